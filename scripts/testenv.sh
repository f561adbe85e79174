# shellcheck shell=bash
# testenv.sh — sourced by scripts/test.sh: makes REDIS_URL and DATABASE_URL
# point at a running Redis and PostgreSQL, and CARDROOM_CHROMIUM at a
# Chromium for the browser tests of the room's screens.
#
# A URL already set in the environment is used as is. Otherwise this starts
# a throwaway server on a free loopback port — redis-server without
# persistence, PostgreSQL via initdb + pg_ctl (as the postgres user when run
# as root, trust auth, fsync off) in a temporary directory — exports its
# URL, and stops it and removes the directory when the sourcing shell exits
# (EXIT trap). Missing packages are installed with apt-get when running as
# root. Chromium is found on the PATH or installed (Debian's chromium
# package) the same way; when neither works the browser tests skip, saying
# why; TESTENV_NO_CHROMIUM=1 skips looking for it (make bench needs none).
# Works under `set -euo pipefail`.
#
# After sourcing, `testenv_start_postgres durable` starts one more
# throwaway PostgreSQL, this one with fsync, synchronous_commit and
# full_page_writes on (a production server's settings), and points
# DATABASE_URL at it; `testenv_start_postgres` alone starts another fast
# one. Both are stopped at exit like the first. TESTENV_PG_SETTINGS, when
# set for the call, adds server settings (name=value, space-separated) to
# the server it starts.
#
# Usage: source scripts/testenv.sh

_testenv_dirs=()
_testenv_redis_pidfile=""
_testenv_pg_datas=()
_testenv_pg_ctl=""

_testenv_log() { echo "testenv: $*" >&2; }

_testenv_cleanup() {
	local data
	for data in "${_testenv_pg_datas[@]+"${_testenv_pg_datas[@]}"}"; do
		if [[ $(id -u) -eq 0 ]]; then
			runuser -u postgres -- "$_testenv_pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
		else
			"$_testenv_pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
		fi
	done
	if [[ -n "$_testenv_redis_pidfile" && -s "$_testenv_redis_pidfile" ]]; then
		local pid i
		pid=$(cat "$_testenv_redis_pidfile")
		kill "$pid" 2>/dev/null || true
		# Wait for it to exit: a redis-server still shutting down writes
		# its log and removes its pid file while rm below runs, and rm
		# then fails with "Directory not empty".
		for i in $(seq 1 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	fi
	# Cleaning up never fails the run: the tests' result is what counts.
	local d
	for d in "${_testenv_dirs[@]+"${_testenv_dirs[@]}"}"; do
		rm -rf "$d" 2>/dev/null || rm -rf "$d" 2>/dev/null || _testenv_log "could not remove $d"
	done
	return 0
}

# _testenv_free_port prints a loopback TCP port nothing listens on.
_testenv_free_port() {
	local port i
	for i in $(seq 1 100); do
		port=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return 0
		fi
	done
	_testenv_log "no free port found"
	return 1
}

_testenv_apt_updated=""
_testenv_install() {
	if [[ $(id -u) -ne 0 ]]; then
		_testenv_log "$1 is missing and only root may install it; install it or set ${2}"
		return 1
	fi
	if [[ -z "$_testenv_apt_updated" ]]; then
		DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
		_testenv_apt_updated=1
	fi
	_testenv_log "installing $1"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >&2
}

_testenv_start_redis() {
	if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
		_testenv_install redis-server REDIS_URL || return 1
	fi
	local dir port i
	dir=$(mktemp -d -t cardroom-redis.XXXXXX)
	_testenv_dirs+=("$dir")
	port=$(_testenv_free_port) || return 1
	_testenv_redis_pidfile="$dir/redis.pid"
	redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
		--daemonize yes --dir "$dir" --pidfile "$_testenv_redis_pidfile" \
		--logfile "$dir/redis.log" >/dev/null
	for i in $(seq 1 100); do
		if redis-cli -p "$port" ping 2>/dev/null | grep -q PONG; then
			export REDIS_URL="redis://127.0.0.1:$port/0"
			_testenv_log "started redis-server at $REDIS_URL"
			return 0
		fi
		sleep 0.1
	done
	_testenv_log "redis-server did not start; log:"
	cat "$dir/redis.log" >&2 || true
	return 1
}

# _testenv_pg_bin prints the directory holding initdb and pg_ctl.
_testenv_pg_bin() {
	local d
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		if [[ -x "$d/initdb" && -x "$d/pg_ctl" ]]; then
			echo "$d"
			return 0
		fi
	done
	if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
		dirname "$(command -v initdb)"
		return 0
	fi
	return 1
}

# testenv_start_postgres [durable] starts a throwaway PostgreSQL and
# exports DATABASE_URL: with fsync and synchronous_commit off (fast, for
# tests), or with durable, on (what a casino runs, for make bench).
testenv_start_postgres() {
	local bin dir port as_pg=() settings="fsync=off synchronous_commit=off full_page_writes=off" opts=""
	if [[ ${1:-} == durable ]]; then
		settings="fsync=on synchronous_commit=on full_page_writes=on"
	fi
	settings+="${TESTENV_PG_SETTINGS:+ $TESTENV_PG_SETTINGS}"
	if ! bin=$(_testenv_pg_bin); then
		_testenv_install postgresql DATABASE_URL || return 1
		bin=$(_testenv_pg_bin) || { _testenv_log "initdb not found after installing postgresql"; return 1; }
	fi
	dir=$(mktemp -d -t cardroom-pg.XXXXXX)
	_testenv_dirs+=("$dir")
	if [[ $(id -u) -eq 0 ]]; then
		# PostgreSQL refuses to run as root.
		id postgres >/dev/null 2>&1 || useradd --system --home-dir "$dir" postgres
		chown postgres: "$dir"
		as_pg=(runuser -u postgres --)
	fi
	port=$(_testenv_free_port) || return 1
	if ! "${as_pg[@]}" "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1; then
		_testenv_log "initdb failed:"
		cat "$dir/initdb.log" >&2
		return 1
	fi
	_testenv_pg_datas+=("$dir/data")
	_testenv_pg_ctl="$bin/pg_ctl"
	local kv
	for kv in $settings; do
		opts+=" -c $kv"
	done
	if ! "${as_pg[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 \
		-o "-p $port -k $dir -c listen_addresses=127.0.0.1$opts -c max_connections=300" \
		start >/dev/null; then
		_testenv_log "PostgreSQL did not start; log:"
		cat "$dir/postgres.log" >&2 || true
		return 1
	fi
	export DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
	_testenv_log "started PostgreSQL ($settings) at $DATABASE_URL"
}

# _testenv_find_chromium prints the path of an installed Chromium.
_testenv_find_chromium() {
	local name
	for name in chromium chromium-browser google-chrome headless_shell; do
		if command -v "$name" >/dev/null 2>&1; then
			command -v "$name"
			return 0
		fi
	done
	return 1
}

_testenv_chromium() {
	local path
	if ! path=$(_testenv_find_chromium); then
		if ! _testenv_install chromium CARDROOM_CHROMIUM || ! path=$(_testenv_find_chromium); then
			_testenv_log "no Chromium: the browser tests of the room's screens will be skipped"
			return 0
		fi
	fi
	export CARDROOM_CHROMIUM="$path"
	_testenv_log "browser tests use $CARDROOM_CHROMIUM"
}

trap _testenv_cleanup EXIT

if [[ -z "${REDIS_URL:-}" ]]; then
	_testenv_start_redis || return 1
else
	_testenv_log "using REDIS_URL=$REDIS_URL"
fi
if [[ -z "${DATABASE_URL:-}" ]]; then
	testenv_start_postgres || return 1
else
	_testenv_log "using DATABASE_URL=$DATABASE_URL"
fi
if [[ ${TESTENV_NO_CHROMIUM:-} == 1 ]]; then
	:
elif [[ -z "${CARDROOM_CHROMIUM:-}" ]]; then
	_testenv_chromium
else
	_testenv_log "using CARDROOM_CHROMIUM=$CARDROOM_CHROMIUM"
fi
