#!/usr/bin/env bash
# make test: checks that the generated protobuf code is current and that
# make lint is clean, makes sure
# Redis and PostgreSQL are there (scripts/testenv.sh: REDIS_URL/DATABASE_URL
# when set, otherwise throwaway servers), runs every workspace module's
# tests with the race detector (and the dashboards and alerts check, a
# module outside the workspace), then gives each fuzz target a short run.
#
# CARDROOM_FUZZTIME (default 20000x) is each fuzz target's budget; 0 skips
# fuzzing. The default counts executions rather than seconds: on Go 1.26 a
# duration budget can fail a target with a bare "context deadline exceeded"
# as the window closes (a race in the fuzz coordinator, go.dev/issue/75804,
# fixed in Go 1.27), and a count has no deadline to race.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/proto.sh --check
./scripts/lint.sh

# shellcheck source=scripts/testenv.sh
source scripts/testenv.sh
echo "test: REDIS_URL=${REDIS_URL%%@*}... DATABASE_URL=${DATABASE_URL%%@*}..."

# One go test over every module of go.work, so packages of all modules share
# the build and run in parallel.
go test -race -count=1 -timeout 25m github.com/cardroom/cardroom/...
# The dashboards and alerts check builds Prometheus's parsers: its own
# module, outside the workspace (see deploy/observability/check).
(cd deploy/observability/check && GOWORK=off go test -count=1 ./...)

fuzztime=${CARDROOM_FUZZTIME:-20000x}
if [[ $fuzztime != 0 ]]; then
	# Every fuzz target in the workspace, found by name: package dir + target.
	while IFS=: read -r file name; do
		dir=$(dirname "$file")
		echo "== fuzz $dir $name ($fuzztime)"
		(cd "$dir" && go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" .)
	done < <(grep -rHoE --include='*_test.go' '^func (Fuzz[A-Za-z0-9_]+)' services platform gateway cmd |
		sed -E 's/func //' | sort)
fi
echo "test: all passed"
