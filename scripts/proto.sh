#!/usr/bin/env bash
# make proto: regenerates, with buf and the plugins pinned in
# tools/buf/go.mod and tools/protoc/go.mod (offline: no registry, no remote
# plugins):
#   proto/gen/go/...                      Go messages, gRPC stubs, grpc-gateway handlers
#   proto/openapi/cardroom.swagger.json   one merged OpenAPI (Swagger 2.0) document
#   proto/openapi/cardroom.openapi.json   the same as OpenAPI 3.1 (proto/openapi/cmd/openapi31)
#   gateway/internal/streamtest/gen/      the gateway tests' streaming service
#
# make proto-check (--check): generates into a temporary directory and fails
# when the committed generated code differs from it (stale or hand-edited).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

# go tool -modfile refuses workspace mode; the tools modules are not in go.work.
export GOWORK=off
buf() { go tool -modfile="$root/tools/buf/go.mod" buf "$@"; }

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

# Each buf root and what it generates (a directory it owns wholly, or a file).
declare -A outputs=(
	[proto]="gen openapi/cardroom.swagger.json openapi/cardroom.openapi.json"
	[gateway/internal/streamtest]="gen"
)

# sync makes $2 equal to $1 file by file: rename is atomic and unchanged
# files keep their mtime, so builds running meanwhile never see a missing
# file and nothing is rebuilt needlessly. Files no longer generated go.
sync() {
	local from=$1 to=$2 f
	if [[ -f $from ]]; then
		cmp -s "$from" "$to" || mv -f "$from" "$to"
		return
	fi
	declare -A keep=()
	while IFS= read -r f; do
		keep[$f]=1
		if ! cmp -s "$from/$f" "$to/$f"; then
			mkdir -p "$(dirname "$to/$f")"
			mv -f "$from/$f" "$to/$f"
		fi
	done < <(cd "$from" && find . -type f)
	if [[ -d $to ]]; then
		while IFS= read -r f; do
			[[ -n ${keep[$f]:-} ]] || rm -f "$to/$f"
		done < <(cd "$to" && find . -type f)
		find "$to" -type d -empty -delete
	fi
}

status=0
for dir in "${!outputs[@]}"; do
	# buf runs the local plugins from the root's directory, so the relative
	# -modfile paths in its buf.gen.yaml hold with any output directory.
	(cd "$dir" && buf generate --output "$tmp/$dir")
	if [[ $dir == proto ]]; then
		# The OpenAPI 3.1 document is the Swagger 2.0 one converted
		# (proto/openapi/openapi31.go): same protos, same annotations.
		(cd proto && go run ./openapi/cmd/openapi31 <"$tmp/proto/openapi/cardroom.swagger.json" >"$tmp/proto/openapi/cardroom.openapi.json")
	fi
	for out in ${outputs[$dir]}; do
		if ((check)); then
			diff -r "$dir/$out" "$tmp/$dir/$out" || status=1
		else
			sync "$tmp/$dir/$out" "$dir/$out"
		fi
	done
done

if ((check)); then
	if ((status)); then
		echo "proto-check: committed generated code is stale; run 'make proto' and commit the result" >&2
		exit 1
	fi
	echo "proto-check: generated code is up to date"
	exit 0
fi
echo "proto: regenerated ${!outputs[*]}"
