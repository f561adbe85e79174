#!/usr/bin/env bash
# make test-traces: builds Jaeger (tools/jaeger; minutes on a cold cache,
# which is why make test leaves it out) and runs the end-to-end test that
# exports the suite's traces to it and reads them back through Jaeger's
# query API (cmd/cardroom TestTracesInJaeger_CS03), on Redis and
# PostgreSQL like make test (scripts/testenv.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
echo "test-traces: building Jaeger"
(cd tools/jaeger && GOWORK=off go build -o "$bin/jaeger" github.com/jaegertracing/jaeger/cmd/jaeger)

# shellcheck source=scripts/testenv.sh
source scripts/testenv.sh
# testenv.sh's EXIT trap replaces the one above: remove the binary there too.
trap 'rm -rf "$bin"; _testenv_cleanup' EXIT

cd cmd/cardroom
CARDROOM_JAEGER="$bin/jaeger" go test -count=1 -run 'TestTracesInJaeger' -v . 2>&1 | grep -E '^(=== RUN|--- |PASS|FAIL|ok|panic)|jaeger_test.go'
echo "test-traces: passed"
