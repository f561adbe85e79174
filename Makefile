# cardroom — see README.md. Every target works offline once the Go module
# cache is warm; `make test` starts throwaway Redis/PostgreSQL when
# REDIS_URL/DATABASE_URL are not set.
SHELL := /bin/bash
GO ?= go
MODULES := $(shell $(GO) work edit -json | sed -n 's/.*"DiskPath": "\(.*\)".*/\1/p')

.PHONY: run traces test test-traces bench proto proto-check lint build

build:
	@mkdir -p bin
	cd cmd/cardroom && $(GO) build -trimpath -o ../../bin/cardroom .

run: build
	CARDROOM_DEV_TOKENS=true ./bin/cardroom all

# Jaeger and the suite exporting to it (query API at http://127.0.0.1:16686/api/traces).
traces:
	./scripts/traces.sh

test:
	./scripts/test.sh

# The Jaeger end-to-end test, apart: building Jaeger takes minutes cold.
test-traces:
	./scripts/test-traces.sh

bench:
	./scripts/bench.sh

proto:
	./scripts/proto.sh

proto-check:
	./scripts/proto.sh --check

lint:
	./scripts/lint.sh
