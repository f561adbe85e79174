# cardroom — see README.md. Every target works offline once the Go module
# cache is warm; `make test` starts throwaway Redis/PostgreSQL when
# REDIS_URL/DATABASE_URL are not set.
SHELL := /bin/bash
GO ?= go
MODULES := $(shell $(GO) work edit -json | sed -n 's/.*"DiskPath": "\(.*\)".*/\1/p')

.PHONY: run test bench proto proto-check lint build

build:
	@mkdir -p bin
	cd cmd/cardroom && $(GO) build -trimpath -o ../../bin/cardroom .

run: build
	./bin/cardroom all

test:
	./scripts/test.sh

bench:
	./scripts/bench.sh

proto:
	./scripts/proto.sh

proto-check:
	./scripts/proto.sh --check

lint:
	./scripts/lint.sh
