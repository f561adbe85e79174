#!/usr/bin/env bash
# make proto: regenerates proto/gen/go (Go messages, gRPC stubs, grpc-gateway
# handlers) and proto/openapi/cardroom.swagger.json (one merged OpenAPI
# document) from proto/cardroom with buf and the plugins pinned in
# tools/buf/go.mod and tools/protoc/go.mod. Offline: no registry, no remote
# plugins.
#
# make proto-check (--check): generates into a temporary directory and fails
# when the committed generated code differs from it (stale or hand-edited).
set -euo pipefail
cd "$(dirname "$0")/../proto"

# go tool -modfile refuses workspace mode; the tools modules are not in go.work.
export GOWORK=off
buf() { go tool -modfile=../tools/buf/go.mod buf "$@"; }

check=0
case "${1:-}" in
--check) check=1 ;;
"") ;;
*)
	echo "usage: $0 [--check]" >&2
	exit 2
	;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# buf runs the local plugins from this directory, so buf.gen.yaml's
# -modfile=../tools/protoc/go.mod holds with any output directory.
buf generate --output "$tmp"

if ((check)); then
	status=0
	diff -r gen "$tmp/gen" || status=1
	diff openapi/cardroom.swagger.json "$tmp/openapi/cardroom.swagger.json" || status=1
	if ((status)); then
		echo "proto-check: generated code in proto/ is stale; run 'make proto' and commit the result" >&2
		exit 1
	fi
	echo "proto-check: generated code is up to date"
	exit 0
fi

# Update in place, file by file: rename is atomic and unchanged files keep
# their mtime, so builds running meanwhile never see a missing file and
# nothing is rebuilt needlessly. Files of deleted protos are removed.
mapfile -t fresh < <(cd "$tmp" && find gen -type f | sort)
declare -A keep=()
for f in "${fresh[@]}"; do
	keep[$f]=1
	if ! cmp -s "$tmp/$f" "$f"; then
		mkdir -p "$(dirname "$f")"
		mv -f "$tmp/$f" "$f"
	fi
done
while IFS= read -r f; do
	[[ -n ${keep[$f]:-} ]] || rm -f "$f"
done < <(find gen -type f 2>/dev/null)
find gen -type d -empty -delete 2>/dev/null || true
if ! cmp -s "$tmp/openapi/cardroom.swagger.json" openapi/cardroom.swagger.json; then
	mv -f "$tmp/openapi/cardroom.swagger.json" openapi/cardroom.swagger.json
fi
echo "proto: regenerated proto/gen/go and proto/openapi/cardroom.swagger.json"
