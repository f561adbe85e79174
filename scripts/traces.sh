#!/usr/bin/env bash
# make traces: Jaeger (v2, github.com/jaegertracing/jaeger/cmd/jaeger pinned
# in tools/jaeger, configured by tools/jaeger/config.yaml) and the whole
# suite (cardroom all, as make run) exporting its traces and metrics to it
# over OTLP. Search the traces with Jaeger's query API at the printed
# address (README, For SREs: a Jaeger built from the Go module has only a
# placeholder page for its UI). Ctrl-C stops both.
#
# JAEGER_OTLP_ADDR (127.0.0.1:4317) and JAEGER_QUERY_ADDR (127.0.0.1:16686)
# move Jaeger's ports.
set -euo pipefail
cd "$(dirname "$0")/.."

export JAEGER_OTLP_ADDR=${JAEGER_OTLP_ADDR:-127.0.0.1:4317}
export JAEGER_QUERY_ADDR=${JAEGER_QUERY_ADDR:-127.0.0.1:16686}
export JAEGER_HEALTH_ADDR=${JAEGER_HEALTH_ADDR:-127.0.0.1:13133}

bin=$(mktemp -d)
jaeger_pid=""
cleanup() {
	if [[ -n $jaeger_pid ]]; then
		kill "$jaeger_pid" 2>/dev/null || true
		wait "$jaeger_pid" 2>/dev/null || true
	fi
	rm -rf "$bin"
}
trap cleanup EXIT

echo "traces: building Jaeger (tools/jaeger; the first build takes minutes)"
(cd tools/jaeger && GOWORK=off go build -o "$bin/jaeger" github.com/jaegertracing/jaeger/cmd/jaeger)
"$bin/jaeger" --config "$PWD/tools/jaeger/config.yaml" &
jaeger_pid=$!
for _ in $(seq 1 100); do
	if curl -fsS "http://$JAEGER_HEALTH_ADDR/status" >/dev/null 2>&1; then
		break
	fi
	sleep 0.1
done
curl -fsS "http://$JAEGER_HEALTH_ADDR/status" >/dev/null || {
	echo "traces: Jaeger did not become healthy" >&2
	exit 1
}
echo "traces: Jaeger's query API at http://$JAEGER_QUERY_ADDR/api/traces?service=cardroom (README: For SREs)"

make build
OTEL_EXPORTER_OTLP_ENDPOINT="http://$JAEGER_OTLP_ADDR" OTEL_EXPORTER_OTLP_INSECURE=true ./bin/cardroom all
