#!/usr/bin/env bash
# make bench: the benchmarks that carry the issues' speed targets. The ones
# that write to PostgreSQL run twice, on two throwaway servers started here
# (scripts/testenv.sh): one with fsync and synchronous_commit off (fast, as
# the tests run) and one with them on (durable: what a casino runs, every
# commit waits for its WAL flush). A table at the end puts both side by
# side, headed by the settings each server reports. Redis is the one
# testenv.sh gives (REDIS_URL, or a throwaway server).
#
# CARDROOM_BENCHTIME (default 3s) is each benchmark's -benchtime, apart from
# the table benchmarks, which count actions.
#
# The durable server also runs with the WAL and checkpoint settings that
# docs/CAPACITY.md recommends for a production server under this load
# (durable_settings below): full-page images compressed, checkpoints every
# 15 minutes rather than every few hundred megabytes of WAL, recycled WAL
# segments kept. They change neither what a commit waits for nor the WAL
# an action writes between checkpoints; the table benchmarks report that
# WAL per action (wal-B/action, and the full-page images' share). It also
# times its WAL flushes (track_wal_io_timing), so the table benchmarks
# report how long a flush took during each run (wal-sync-ms): the floor
# under a durable action's latency, and on a shared disk what differs most
# between two runs of the same code.
set -euo pipefail
cd "$(dirname "$0")/.."
benchtime=${CARDROOM_BENCHTIME:-3s}

# Both servers are our own, so their settings are known: never a
# DATABASE_URL from the environment, whose settings are someone else's.
unset DATABASE_URL
export TESTENV_NO_CHROMIUM=1
# shellcheck source=scripts/testenv.sh
source scripts/testenv.sh
declare -A storage_url
storage_url[off]=$DATABASE_URL
durable_settings="wal_compression=lz4 checkpoint_timeout=15min max_wal_size=4GB min_wal_size=1GB wal_buffers=16MB checkpoint_completion_target=0.9 track_wal_io_timing=on"
TESTENV_PG_SETTINGS=$durable_settings testenv_start_postgres durable
storage_url[on]=$DATABASE_URL

# warm_wal gives a new server what one that has been running has: WAL
# segments to recycle. A server made by initdb has one; every 16 MB of WAL
# then creates a file and fills it with zeros before a commit may use it
# (50-160 ms on this machine's disk), which a running server never does
# (min_wal_size keeps 1 GB of old segments to reuse). Left cold, a 15 s
# paced run at 2 MB/s of WAL meets two or three of those stalls; its p99
# would measure initdb, not the room. Seventy switched segments, then two
# checkpoints so that they are behind the redo point and recycled.
warm_wal() { # url
	psql -q "$1" -c "CREATE TABLE IF NOT EXISTS wal_warm (x int)"
	for _ in $(seq 70); do
		psql -q "$1" -c "INSERT INTO wal_warm VALUES (1)" -c "SELECT pg_switch_wal()" >/dev/null
	done
	psql -q "$1" -c "DROP TABLE wal_warm" -c "CHECKPOINT" -c "CHECKPOINT"
}
warm_wal "${storage_url[on]}"

# The services' benchmarks run with their telemetry as deployed (every
# call traced with the deployment's sampler, the metrics recorded, both
# exported over OTLP/gRPC: testkit.DeployedTelemetry), which costs the
# table service 12-16 % more CPU per action and the wallet 13-24 % more
# per buy-in than the no-op providers
# (docs/CAPACITY.md). CARDROOM_BENCH_TELEMETRY=0 runs them without.
telemetry=${CARDROOM_BENCH_TELEMETRY:-1}
export TABLE_BENCH_TELEMETRY=$telemetry WALLET_BENCH_TELEMETRY=$telemetry

failed=()
out=$(mktemp -d -t cardroom-bench.XXXXXX)
_testenv_dirs+=("$out")

# pg_settings prints the settings that decide what a commit costs.
pg_settings() {
	psql "$1" -Atc "SELECT string_agg(name || '=' || current_setting(name), ' ' ORDER BY name) FROM pg_settings
		WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes', 'wal_sync_method', 'wal_compression',
			'checkpoint_timeout', 'max_wal_size', 'min_wal_size', 'wal_buffers', 'checkpoint_completion_target', 'track_wal_io_timing')"
}

bench() { # dir pattern [extra go test flags]
	local dir=$1 pattern=$2
	shift 2
	echo "== $dir: $pattern"
	(cd "$dir" && go test -run '^$' -bench "$pattern" -benchmem -benchtime "$benchtime" "$@" .)
}

# wal_counts prints the server's WAL fsyncs and commits so far. Backends
# report their counts when they exit at the latest, so read between runs.
wal_counts() {
	psql "$1" -Atc "SELECT wal_sync, (SELECT sum(xact_commit) FROM pg_stat_database) FROM pg_stat_wal" | tr '|' ' '
}

# dbbench runs a benchmark on both servers, fast first, and keeps each
# output under its label for the side-by-side table. On the durable one it
# also counts the WAL fsyncs and the commits of the whole run (setup
# included): commits per fsync is how many transactions share one flush.
dbbench() { # label dir pattern [extra go test flags]
	local label=$1 sync s0 c0 s1 c1
	shift
	for sync in off on; do
		echo "-- PostgreSQL fsync/synchronous_commit $sync: $label"
		read -r s0 c0 < <(wal_counts "${storage_url[$sync]}")
		# A benchmark that fails (a lease lost on an overloaded machine)
		# is reported at the end; the others still run.
		DATABASE_URL=${storage_url[$sync]} bench "$@" | tee "$out/$sync.$label" || failed+=("$label (fsync $sync)")
		read -r s1 c1 < <(wal_counts "${storage_url[$sync]}")
		echo "   WAL fsyncs $((s1 - s0)), commits $((c1 - c0)) (fsync $sync)"
	done
}

echo "== machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC'), telemetry as deployed: $telemetry"
for sync in off on; do
	echo "== PostgreSQL $sync: $(pg_settings "${storage_url[$sync]}")"
done

# Hand evaluation: ours against the fastest Go evaluators the module proxy
# serves, in a module of its own so they never become production
# dependencies (target: at least 2x the fastest peer, 0 allocs).
(export GOWORK=off && bench services/table/enginebench Eval7)
# Complete random 6-max NL Hold'em hands on one core (target: 100,000/s).
GOMAXPROCS=1 bench services/table/engine 'BenchmarkRandomHand6MaxNL$'
bench services/table/engine/eval .
# Tournaments (issue 10): the seat draw and the table plan for 10,000
# entrants, and the balancing decision after a bust at 1,100 tables
# (target < 1 ms): the balancer's plan alone, and the director's whole
# decision (the seating it keeps brought up to date by the bust, the move,
# the halts), next to the same decision on a seating rebuilt from every
# entry (what it cost before the seating was kept).
bench services/tournament/draw .
bench services/tournament/balance .
bench services/tournament/director 'BenchmarkDecideAfterBust1100Tables(Rebuilt)?$'
# A freezeout played by bots to its winner in one process (issue 10): the
# director, the tournament store (SQLite) and its books driving the table
# service's own table logic (dealer + engine) in process; hands/s, wall
# time, hands. Once: it is one whole event. 10,000 entrants unless
# TOURNAMENT_BENCH_ENTRANTS says otherwise: 17,803 hands, about 515 s of
# CPU (7 min wall on a quiet 2-core machine, docs/CAPACITY.md).
# A stalled event fails it (no table could deal for two hours of the
# fake clock); the others run.
TOURNAMENT_BENCH_ENTRANTS=${TOURNAMENT_BENCH_ENTRANTS:-10000} bench cmd/cardroom/tourbench 'BenchmarkFreezeout10000$' -benchtime 1x -timeout 0 ||
	failed+=("freezeout")
# ICM for a nine-handed final table, exact over every finishing order
# (TR-38 deal calculator; target: well under a millisecond).
bench services/tournament/deal BenchmarkICM9
# Wallet buy-ins/s with p50/p99 (target: 5,000/s durable): SQLite once,
# PostgreSQL on both servers; each both ways the wallet can commit,
# grouped (the default: concurrent buy-ins share a transaction, with
# buy-ins/commit reported) and each (one transaction per buy-in). First
# the holds alone (BenchmarkBuyInTransfers, transfers/s; a top-up is a
# hold and its commit), then whole buy-ins (buy-ins/s) both ways: a hold
# and its commit (BenchmarkSeatedBuyIns, how a table seated a player
# until 2026-12-03) and one SitDown (BenchmarkSitDowns, how it does now).
bench services/wallet/bank 'Benchmark(BuyInTransfers|SeatedBuyIns|SitDowns)/sqlite'
dbbench wallet services/wallet/bank 'Benchmark(BuyInTransfers|SeatedBuyIns|SitDowns)/postgres'
# The same grouped, with 128 buy-ins in flight instead of 24: a group
# commit carries as many requests as are waiting, so at 24 the rate is
# bounded by the latency (Little's law), at 128 by the machine. The
# buy-ins/s target is read from this one.
WALLET_BENCH_PARALLELISM=64 dbbench wallet-128 services/wallet/bank 'Benchmark(BuyInTransfers|SeatedBuyIns|SitDowns)/postgres/grouped'
# Table actions over gRPC and over REST on Redis + PostgreSQL: flat out at
# 200 tables (the most actions/s; target 5,000/s durable), then 1,000
# tables at a player's pace of one action per table per second (the
# latency one action sees in a busy room; target p99 < 10 ms over gRPC,
# < 15 ms over REST). Counts long enough that the tables' first actions
# (each reads its state, every connection is new) are a small part: 50
# actions a table flat out (at 15 the rate was a fifth lower), 15 s paced.
# The players run in a process of their own, the service's CPU apart
# (cpu-us/action; players-cpu-us/action is theirs). GOGC as the table
# service's deployment sets it (deploy/k8s/base/table.yaml).
export GOGC=400
TABLE_BENCH_TABLES=200 dbbench flat-200 services/table 'BenchmarkActions(GRPC|REST)$' -benchtime 10000x
TABLE_BENCH_TABLES=1000 TABLE_BENCH_PACE=1s dbbench paced-1000 services/table 'BenchmarkActions(GRPC|REST)$' -benchtime 15000x
# Memory per open table nobody plays at (target < 64 KiB) and per open
# watch feed, at a thousand of each; PostgreSQL's settings do not matter.
unset GOGC
DATABASE_URL=${storage_url[off]} bench services/table 'Benchmark(IdleTable|WatchStream)Memory$' -benchtime 1000x

# Side by side: every metric of every benchmark run on both servers.
echo
echo "== PostgreSQL fsync/synchronous_commit off vs on ($(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), telemetry as deployed: $telemetry)"
for sync in off on; do
	echo "   $sync: $(pg_settings "${storage_url[$sync]}")"
done
awk '
	FNR == 1 { n = split(FILENAME, p, "/"); split(p[n], q, "."); sync = q[1]; label = q[2] }
	# A log line the service writes while a benchmark runs can split its
	# result line: the name, the log, then the iterations and metrics.
	function metrics(name, from,    i, key) {
		sub(/-[0-9]+$/, "", name)
		name = label " " name
		if (!(name in seen)) { seen[name] = 1; order[++names] = name }
		for (i = from; i < NF; i += 2) {
			if ($(i + 1) ~ /^(ns\/op|B\/op|allocs\/op)$/) continue
			key = name SUBSEP $(i + 1)
			if (!(key in known)) { known[key] = 1; units[name] = units[name] " " $(i + 1) }
			v[key, sync] = $i
		}
	}
	/^Benchmark/ { if ($2 ~ /^[0-9]+$/) metrics($1, 3); else pending = $1; next }
	pending != "" && $1 ~ /^[0-9]+$/ && $3 == "ns/op" { metrics(pending, 2); pending = "" }
	END {
		printf "%-48s %-12s %12s %12s\n", "benchmark", "metric", "fsync off", "fsync on"
		for (k = 1; k <= names; k++) {
			name = order[k]
			m = split(units[name], u, " ")
			for (j = 1; j <= m; j++)
				printf "%-48s %-12s %12s %12s\n", name, u[j], v[name, u[j], "off"], v[name, u[j], "on"]
		}
	}' "$out"/off.* "$out"/on.*
if ((${#failed[@]})); then
	echo "FAILED: ${failed[*]}"
	exit 1
fi
