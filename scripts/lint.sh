#!/usr/bin/env bash
# make lint: gofmt on every Go file we write (generated code is skipped),
# no time.Sleep in tests outside benchmarks, go vet on every module of
# go.work (and the Go code under tools/), go mod tidy -diff on every
# module, revive
# (doc comments on every exported name, error style; rules in
# tools/lint/revive.toml), function length and cognitive complexity
# (tools/lint/revive-size.toml, with a shrink-only allowlist), buf lint and buf format on our protos. Runs every
# check, prints each finding, and exits non-zero when there was any.
set -uo pipefail
cd "$(dirname "$0")/.."

fail=0
finding() {
	echo "lint: $*" >&2
	fail=1
}

echo "== gofmt"
# Generated files carry the standard "Code generated ... DO NOT EDIT." line.
mapfile -t gofiles < <(find . -path ./.git -prune -o -path ./proto/gen -prune -o -name '*.go' -type f -print |
	xargs -r grep -L -E '^// Code generated .* DO NOT EDIT\.$')
if ((${#gofiles[@]})); then
	unformatted=$(gofmt -l "${gofiles[@]}")
	if [[ -n $unformatted ]]; then
		finding "gofmt -l lists (run gofmt -w):"
		echo "$unformatted" >&2
	fi
fi

echo "== logs"
# Every log line carries the trace and span ids of its context
# (platform/telemetry's handler reads them from it), so loggers are called
# with the ...Context methods; and errors go under one key, "error".
mapfile -t srcfiles < <(printf '%s\n' "${gofiles[@]}" | grep -v '_test\.go$')
if ((${#srcfiles[@]})); then
	nocontext=$(grep -nHE '\b(slog|[A-Za-z_]*[lL]og(ger)?)\.(Debug|Info|Warn|Error)\(' "${srcfiles[@]}")
	if [[ -n $nocontext ]]; then
		finding "log calls without a context (use DebugContext, InfoContext, WarnContext, ErrorContext):"
		echo "$nocontext" >&2
	fi
	errkey=$(grep -nHE '"err"[,)]' "${srcfiles[@]}")
	if [[ -n $errkey ]]; then
		finding "log attributes named \"err\" (the key for errors is \"error\"):"
		echo "$errkey" >&2
	fi
fi

echo "== sleeps in tests"
# Tests wait for an asynchronous effect with a condition and a deadline
# (testkit.Eventually, or platform/testkit/poll where testkit cannot be
# imported) and move rule timers with a fake clock: a bare time.Sleep in
# a test is a finding, except in a benchmark (a function named
# Benchmark... or taking *testing.B). The files listed here still poll
# with sleeps and are to be converted; the list may only shrink.
sleep_pending=(
	# deliberate, not polls: tournament_test waits for the published start
	# on the child's real clock, tournament_move_test kills at a random
	# moment of a call, and the director test's idle rounds are when its
	# table replica is killed during a move
	cmd/cardroom/tournament_director_test.go
	cmd/cardroom/tournament_move_test.go
	cmd/cardroom/tournament_test.go
)
mapfile -t testfiles < <(printf '%s\n' "${gofiles[@]}" | grep '_test\.go$')
if ((${#testfiles[@]})); then
	sleeps=$(awk '
		/^func / { bench = ($0 ~ /^func Benchmark/ || $0 ~ /\*testing\.B[,)]/) }
		/time\.Sleep\(/ && $0 !~ /^[ \t]*\/\// && !bench { print FILENAME ":" FNR ":" $0 }
	' "${testfiles[@]}" | grep -vF -f <(printf './%s:\n' "${sleep_pending[@]}"))
	if [[ -n $sleeps ]]; then
		finding "time.Sleep in tests (wait with testkit.Eventually, time rules with a fake clock):"
		echo "$sleeps" >&2
	fi
fi

echo "== go vet"
modules=$(go work edit -json | sed -n 's/.*"DiskPath": "\(.*\)".*/\1/p')
for m in $modules; do
	# A module with no packages yet has nothing to vet (go vet would fail).
	if (cd "$m" && go list ./... 2>&1 | grep -q 'matched no packages'); then
		continue
	fi
	(cd "$m" && go vet ./...) || finding "go vet failed in $m"
done
# The tools modules are outside the workspace on purpose (see tools/).
# So is deploy/observability/check, whose Prometheus dependencies must not
# reach the suite's build.
outside="tools/protoc/printproto deploy/observability/check"
for m in $outside; do
	(cd "$m" && GOWORK=off go vet ./...) || finding "go vet failed in $m"
done

echo "== go mod tidy"
for m in $modules; do
	(cd "$m" && go mod tidy -diff >/dev/null 2>&1) || finding "go.mod/go.sum of $m are not tidy (run: cd $m && go mod tidy)"
done
(cd deploy/observability/check && GOWORK=off go mod tidy -diff >/dev/null 2>&1) ||
	finding "go.mod/go.sum of deploy/observability/check are not tidy (run: cd deploy/observability/check && GOWORK=off go mod tidy)"

echo "== revive"
# Pinned in tools/lint, outside the workspace like the proto tools.
# Built once before it runs, so that what the go command prints while it
# fetches modules on a fresh machine is not taken for a finding.
revive_config=$PWD/tools/lint/revive.toml
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
if ! (cd tools/lint && GOWORK=off go build -o "$bin/revive" github.com/mgechev/revive); then
	finding "revive did not build (tools/lint)"
	modules=""
fi
for m in $modules deploy/observability/check; do
	out=$(cd "$m" && "$bin/revive" -config "$revive_config" ./... 2>&1)
	rc=$?
	((rc == 0)) && [[ -z $out ]] && continue
	echo "$out" | sed "s|^|${m#./}/|" >&2
	# revive exits 3 on findings (tools/lint/revive.toml); anything else
	# is the tool failing, which fails lint wherever it happens.
	if ((rc != 3 && rc != 0)); then
		finding "revive did not run in $m (exit $rc)"
		continue
	fi
	finding "revive in $m"
done

echo "== function size"
# Limits in tools/lint/revive-size.toml; the functions over them when they
# came in are listed in tools/lint/size-allowlist.txt, which may only shrink.
if [[ -x $bin/revive ]]; then
	if ! sizes=$(scripts/funcsize.sh "$bin/revive"); then
		finding "function size check did not run"
	fi
	allowed=$(grep -v '^#' tools/lint/size-allowlist.txt | sort -u)
	grown=$(comm -23 <(echo "$sizes") <(echo "$allowed") | grep .)
	if [[ -n $grown ]]; then
		finding "functions over the size limits of tools/lint/revive-size.toml (split them):"
		echo "$grown" >&2
	fi
	shrunk=$(comm -13 <(echo "$sizes") <(echo "$allowed") | grep .)
	if [[ -n $shrunk ]]; then
		finding "within the limits now: delete these lines from tools/lint/size-allowlist.txt:"
		echo "$shrunk" >&2
	fi
fi

echo "== buf lint, buf format"
buf() { (cd proto && GOWORK=off go tool -modfile=../tools/buf/go.mod buf "$@"); }
buf lint || finding "buf lint"
# Only our own protos: third_party/ is vendored as printed.
buf format --diff --exit-code --path cardroom || finding "buf format (run: cd proto && buf format -w --path cardroom)"

if ((fail)); then
	echo "lint: FAILED" >&2
	exit 1
fi
echo "lint: clean"
