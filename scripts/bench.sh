#!/usr/bin/env bash
# make bench: the benchmarks that carry the issues' speed targets, each in
# one go test run so the numbers side by side come from the same moment.
# Needs Redis and PostgreSQL like make test (scripts/testenv.sh).
#
# CARDROOM_BENCHTIME (default 3s) is each benchmark's -benchtime.
set -euo pipefail
cd "$(dirname "$0")/.."
benchtime=${CARDROOM_BENCHTIME:-3s}

# shellcheck source=scripts/testenv.sh
source scripts/testenv.sh

bench() { # dir pattern [extra go test flags]
	local dir=$1 pattern=$2
	shift 2
	echo "== $dir: $pattern"
	(cd "$dir" && go test -run '^$' -bench "$pattern" -benchmem -benchtime "$benchtime" "$@" .)
}

# Hand evaluation: ours against the fastest Go evaluators the module proxy
# serves, in a module of its own so they never become production
# dependencies (target: at least 2x the fastest peer, 0 allocs).
(export GOWORK=off && bench services/table/enginebench Eval7)
# Complete random 6-max NL Hold'em hands on one core (target: 100,000/s).
GOMAXPROCS=1 bench services/table/engine 'BenchmarkRandomHand6MaxNL$'
bench services/table/engine/eval .
# Wallet buy-in transfers/s with p50/p99 on PostgreSQL and SQLite (target:
# 2,000/s on PostgreSQL).
bench services/wallet/bank BenchmarkBuyInTransfers
# Table actions with 200 concurrent tables over gRPC and over REST on
# Redis + PostgreSQL: flat out (the most actions/s), then at a player's
# pace of one action per table per second (the latency one action sees at
# a busy room's load; target p99 under 10 ms).
TABLE_BENCH_TABLES=200 bench services/table 'BenchmarkActions(GRPC|REST)$' -benchtime 3000x
TABLE_BENCH_TABLES=200 TABLE_BENCH_PACE=1s bench services/table 'BenchmarkActions(GRPC|REST)$' -benchtime 3000x
