package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver for creating the run's own database

	"github.com/cardroom/cardroom/platform/testkit"
)

// builtBinary is a cardroom executable built once for the end-to-end
// tests (TestMain removes it).
type builtBinary struct {
	tags string // go build -tags; "" for none
	once sync.Once
	path string
	err  error
}

var (
	// binary is the cardroom executable.
	binary = &builtBinary{}
	// seededBinary is built with the cardroomtest tag: it honours
	// CARDROOM_TEST_DECK_SEED (shuffle_cardroomtest.go).
	seededBinary = &builtBinary{tags: "cardroomtest"}
)

// build builds the executable the first time any test asks for it.
func (b *builtBinary) build(t *testing.T) string {
	t.Helper()
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "cardroom-e2e-bin")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, "cardroom")
		args := []string{"build", "-o", b.path}
		if b.tags != "" {
			args = append(args, "-tags", b.tags)
		}
		out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// suite is one cardroom child process: `cardroom all` unless part names
// another (cluster_test.go runs each part in its own).
type suite struct {
	t       *testing.T
	bin     string
	part    string // the command: "all", "wallet", "table", "gateway", ...
	env     []string
	base    string // http://host:port; empty for a part without the gateway
	metrics string // http://host:port of /metrics
	trace   string // CARDROOM_TRACE_FILE
	cmd     *exec.Cmd
	stdout  lockedBuffer
	stderr  lockedBuffer
	earlier strings.Builder // what the part's earlier runs logged, when it was restarted
	waitErr chan error
}

// lockedBuffer is a bytes.Buffer a child process writes while the test
// reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *lockedBuffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Reset()
}

// freeAddr returns a loopback address for a child to listen on (see
// testkit.FreeAddr for why it is not one the kernel picks).
func freeAddr(t *testing.T) string {
	t.Helper()
	return testkit.FreeAddr(t)
}

// newSuite prepares a suite's environment: its own data dir, ports and
// trace file, plus extra (REDIS_URL, DATABASE_URL, ...). Variables of the
// test process that would leak into the child are removed.
func newSuite(t *testing.T, extra ...string) *suite {
	t.Helper()
	return newSuiteOf(t, binary, extra...)
}

// newSuiteOf is newSuite running bin's executable.
func newSuiteOf(t *testing.T, bin *builtBinary, extra ...string) *suite {
	t.Helper()
	dir := t.TempDir()
	httpAddr, metricsAddr := freeAddr(t), freeAddr(t)
	s := &suite{t: t, bin: bin.build(t), part: "all", base: "http://" + httpAddr, metrics: "http://" + metricsAddr, trace: filepath.Join(dir, "trace.jsonl")}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "REDIS_URL" || k == "DATABASE_URL" || strings.HasPrefix(k, "CARDROOM_") || strings.HasPrefix(k, "OTEL_") {
			continue
		}
		s.env = append(s.env, kv)
	}
	s.env = append(s.env,
		"CARDROOM_DATA_DIR="+filepath.Join(dir, "data"),
		"CARDROOM_HTTP_ADDR="+httpAddr,
		"CARDROOM_METRICS_ADDR="+metricsAddr,
		"CARDROOM_GRPC_ADDR="+freeAddr(t),
		"CARDROOM_TRACE_FILE="+s.trace,
		"CARDROOM_SHUTDOWN_TIMEOUT=5s",
		"CARDROOM_TABLE_HAND_PAUSE=0s", // hands follow each other at once: the tests wait for them
		"CARDROOM_LOCK_TTL=3s",         // a killed process's tables are taken over sooner
		// Players put themselves on lists from the app in these tests; the
		// house default (G-21, floor only) is TestRemoteSignUpOffByDefault_G21's.
		"CARDROOM_SEATING_REMOTE_SIGN_UP=true",
	)
	s.env = append(s.env, extra...)
	return s
}

// start runs the suite's part and waits until it is ready: /healthz says
// every part is when it serves the gateway, else it has printed its banner.
func (s *suite) start() {
	t := s.t
	t.Helper()
	s.stdout.Reset()
	if logged := s.stderr.String(); logged != "" {
		// A restart after a kill: what the killed process logged is what
		// a failure needs most.
		s.earlier.WriteString(logged + "-- restarted --\n")
	}
	s.stderr.Reset()
	s.cmd = exec.Command(s.bin, s.part)
	s.cmd.Env = s.env
	s.cmd.Stdout, s.cmd.Stderr = &s.stdout, &s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.waitErr = make(chan error, 1)
	go func() { s.waitErr <- s.cmd.Wait() }()
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			_ = s.cmd.Process.Kill()
			<-s.waitErr
		}
	})
	testkit.Eventually(t, 60*time.Second, func() error {
		select {
		case err := <-s.waitErr:
			t.Fatalf("cardroom %s exited: %v\nstderr:\n%s", s.part, err, s.stderr.String())
		default:
		}
		// The child's own banner comes first: it prints it once its listeners
		// are bound, so a health check can't be answered by another process
		// that holds the port.
		if !strings.Contains(s.stdout.String(), " is ready") {
			return fmt.Errorf("cardroom %s has not printed its banner\nstderr:\n%s", s.part, s.stderr.String())
		}
		if s.base == "" {
			return nil
		}
		resp, err := http.Get(s.base + "/healthz")
		if err != nil {
			return fmt.Errorf("cardroom %s: %w", s.part, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("cardroom %s: /healthz %d\nstderr:\n%s", s.part, resp.StatusCode, s.stderr.String())
		}
		return nil
	})
}

// stop sends SIGTERM and expects a clean exit.
func (s *suite) stop() {
	t := s.t
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.waitErr:
		if err != nil {
			t.Fatalf("cardroom all exited with %v after SIGTERM\nstderr:\n%s", err, s.stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("cardroom all did not stop within 30s of SIGTERM")
	}
	if !strings.Contains(s.stderr.String(), `"msg":"stopped"`) {
		t.Fatalf("no clean stop logged:\n%s", s.stderr.String())
	}
	// Open feeds are drained, not waited for: nothing is cut off.
	for _, cut := range []string{"in-flight RPCs were cut off", "gateway did not drain in time"} {
		if strings.Contains(s.stderr.String(), cut) {
			t.Fatalf("the stop was held up (%s):\n%s", cut, s.stderr.String())
		}
	}
}

// token runs `cardroom token` with the suite's environment.
func (s *suite) token(sub, role string) string {
	s.t.Helper()
	cmd := exec.Command(s.bin, "token", "--sub", sub, "--role", role)
	cmd.Env = s.env
	out, err := cmd.Output()
	if err != nil {
		s.t.Fatalf("cardroom token: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// call makes a REST request and decodes the JSON answer.
func (s *suite) call(method, path, token string, body any) (int, map[string]any) {
	s.t.Helper()
	code, raw := s.request(s.t, method, path, token, body)
	var out map[string]any
	if len(raw) > 0 && json.Unmarshal(raw, &out) != nil {
		out = map[string]any{"raw": string(raw)}
	}
	return code, out
}

// request makes a REST request and returns the status and the raw body;
// t fails the test when the request cannot be made.
func (s *suite) request(t *testing.T, method, path, token string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp.StatusCode, raw
}

// span is the part of stdouttrace's JSON that the trace checks read.
type span struct {
	Name        string
	SpanKind    int
	SpanContext struct{ TraceID, SpanID string }
	Parent      struct{ SpanID string }
	Scope       struct{ Name string } `json:"InstrumentationScope"`
}

// isSQLSpan reports whether sp is a database statement's: otelsql's (one
// statement through database/sql) or otelpgx's (a pipeline's batch, sent
// to pgx directly, and each statement in it).
func isSQLSpan(sp span) bool {
	return strings.HasSuffix(sp.Scope.Name, "otelsql") || strings.HasSuffix(sp.Scope.Name, "otelpgx")
}

// traceOf returns every span of the trace that contains a span named name.
func (s *suite) traceOf(name string) []span {
	s.t.Helper()
	var out []span
	testkit.Eventually(s.t, 10*time.Second, func() error {
		spans := s.readSpans()
		trace := ""
		for _, sp := range spans {
			if sp.Name == name {
				trace = sp.SpanContext.TraceID
			}
		}
		out = out[:0]
		for _, sp := range spans {
			if sp.SpanContext.TraceID == trace {
				out = append(out, sp)
			}
		}
		// The trace is complete once the HTTP span (which ends when the
		// response is written) and every span's parent are in: work the
		// request set off after answering (the outbox relay's publish)
		// ends later.
		if !complete(out) {
			return fmt.Errorf("no complete trace with span %q among %d spans", name, len(spans))
		}
		return nil
	})
	return out
}

func complete(spans []span) bool {
	ids := map[string]bool{}
	root := false
	for _, sp := range spans {
		ids[sp.SpanContext.SpanID] = true
		root = root || strings.HasSuffix(sp.Scope.Name, "otelhttp")
	}
	for _, sp := range spans {
		if strings.Trim(sp.Parent.SpanID, "0") != "" && !ids[sp.Parent.SpanID] {
			return false
		}
	}
	return root
}

func (s *suite) readSpans() []span {
	f, err := os.Open(s.trace)
	if err != nil {
		return nil
	}
	defer f.Close()
	var spans []span
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var sp span
		if json.Unmarshal(sc.Bytes(), &sp) == nil {
			spans = append(spans, sp)
		}
	}
	return spans
}

// checkTrace asserts that one trace runs gateway HTTP span (the root) →
// gRPC client span → service server span → SQL (and Redis) spans.
func checkTrace(t *testing.T, spans []span, rpc string, wantRedis bool) {
	t.Helper()
	var root, client, server span
	var sqlSpans, redisSpans int
	for _, sp := range spans {
		switch {
		case strings.HasSuffix(sp.Scope.Name, "otelhttp"):
			root = sp
		case sp.Name == rpc && sp.SpanKind == 3:
			client = sp
		case sp.Name == rpc && sp.SpanKind == 2:
			server = sp
		case isSQLSpan(sp):
			sqlSpans++
		case strings.Contains(sp.Scope.Name, "redisotel"):
			redisSpans++
		}
	}
	if root.Name == "" || strings.Trim(root.Parent.SpanID, "0") != "" {
		t.Fatalf("trace of %s: no root gateway HTTP span: %+v", rpc, spans)
	}
	if client.Parent.SpanID != root.SpanContext.SpanID {
		t.Fatalf("trace of %s: gRPC client span is not the HTTP span's child", rpc)
	}
	if server.Parent.SpanID != client.SpanContext.SpanID {
		t.Fatalf("trace of %s: gRPC server span is not the client span's child", rpc)
	}
	if sqlSpans == 0 {
		t.Fatalf("trace of %s: no SQL spans", rpc)
	}
	if wantRedis && redisSpans == 0 {
		t.Fatalf("trace of %s: no Redis spans", rpc)
	}
}

// postgresDatabase creates a database of its own for one suite run on the
// PostgreSQL that DATABASE_URL names, and drops it afterwards — unless the
// test failed and CARDROOM_TEST_KEEP_FAILED_DB is set, when it is kept for
// a look and its name logged.
func postgresDatabase(t *testing.T) string {
	t.Helper()
	base := testkit.DatabaseURL(t)
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	name := "e2e_" + strings.ToLower(testkit.UniqueName(t))
	if _, err := admin.ExecContext(t.Context(), `CREATE DATABASE "`+name+`"`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() && os.Getenv("CARDROOM_TEST_KEEP_FAILED_DB") != "" {
			t.Logf("database %s kept (CARDROOM_TEST_KEEP_FAILED_DB)", name)
			return
		}
		_, _ = admin.ExecContext(context.Background(), `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`)
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Run("embedded", func(t *testing.T) {
		t.Parallel()
		exerciseSuite(t, newSuite(t), false)
	})
	t.Run("redis+postgres", func(t *testing.T) {
		t.Parallel()
		s := newSuite(t,
			"REDIS_URL="+testkit.RedisURL(t),
			"CARDROOM_REDIS_PREFIX="+testkit.RedisPrefix(t),
			"DATABASE_URL="+postgresDatabase(t),
		)
		exerciseSuite(t, s, true)
	})
}

// exerciseSuite drives a running suite over REST as the apps would.
func exerciseSuite(t *testing.T, s *suite, distributed bool) {
	s.start()
	floor := s.token("floor-anna", "floor")
	player := s.token("alice", "player")

	if code, body := s.call("GET", "/openapi.json", "", nil); code != 200 || !strings.Contains(fmt.Sprint(body["paths"]), "/v1/tables") {
		t.Fatalf("openapi.json: %d", code)
	}

	table := map[string]any{
		"name": "NL Hold'em 2/5", "seats": 9, "kind": "TABLE_KIND_CASH", "mode": "TABLE_MODE_DIGITAL",
		"game": map[string]any{"variant": "VARIANT_HOLDEM", "structure": "STRUCTURE_NO_LIMIT",
			"stakes": map[string]any{"small_blind": 200, "big_blind": 500}},
	}
	// Refusals first: none of them may write anything.
	if code, body := s.call("POST", "/v1/tables", "", table); code != 401 || body["code"] != "UNAUTHENTICATED" {
		t.Fatalf("no token: %d %v", code, body)
	}
	if code, body := s.call("POST", "/v1/tables", "not-a-token", table); code != 401 {
		t.Fatalf("bad token: %d %v", code, body)
	}
	if code, body := s.call("POST", "/v1/tables", player, table); code != 403 || body["code"] != "PERMISSION_DENIED" {
		t.Fatalf("player opening a table: %d %v", code, body)
	}
	bad := map[string]any{"name": "x", "seats": 11, "kind": "TABLE_KIND_CASH", "mode": "TABLE_MODE_DIGITAL", "game": table["game"]}
	if code, body := s.call("POST", "/v1/tables", floor, bad); code != 400 || body["metadata"].(map[string]any)["field"] != "seats" {
		t.Fatalf("eleven seats: %d %v", code, body)
	}
	stud := map[string]any{"name": "Stud", "seats": 8, "kind": "TABLE_KIND_CASH", "mode": "TABLE_MODE_LIVE",
		"game": map[string]any{"variant": "VARIANT_STUD", "structure": "STRUCTURE_NO_LIMIT", "stakes": map[string]any{"ante": 100, "bring_in": 200}}}
	if code, body := s.call("POST", "/v1/tables", floor, stud); code != 400 || body["rule_id"] != "TP-27" || body["reason"] != "STUD_IS_FIXED_LIMIT" {
		t.Fatalf("no-limit stud: %d %v", code, body)
	}
	if code, body := s.call("GET", "/v1/tables", player, nil); code != 200 || len(body["tables"].([]any)) != 0 {
		t.Fatalf("refusals wrote tables: %d %v", code, body)
	}

	code, body := s.call("POST", "/v1/tables", floor, table)
	if code != 200 {
		t.Fatalf("create table: %d %v", code, body)
	}
	tableID := body["table"].(map[string]any)["table_id"].(string)
	checkTrace(t, s.traceOf("cardroom.table.v1.TableService/CreateTable"), "cardroom.table.v1.TableService/CreateTable", distributed)

	// The dealer console's out-of-turn entry (TP-46…TP-52) over REST: the
	// gateway passes the kind through; a player may not use the console,
	// and with no hand dealt there is nothing to enter.
	oot := map[string]any{"kind": "DEALER_ACTION_KIND_OUT_OF_TURN", "seat": 2, "action": "ACTION_KIND_RAISE", "amount": 1000}
	if code, body := s.call("POST", "/v1/tables/"+tableID+"/dealer-actions", player, oot); code != 403 {
		t.Fatalf("a player used the dealer console: %d %v", code, body)
	}
	if code, body := s.call("POST", "/v1/tables/"+tableID+"/dealer-actions", s.token("dealer-dave", "dealer"), oot); code != 400 ||
		body["reason"] != "NO_HAND_IN_PROGRESS" {
		t.Fatalf("out-of-turn entry with no hand: %d %v", code, body)
	}

	tournament := map[string]any{
		"name": "Monday 50 + 11", "variant": "VARIANT_HOLDEM", "structure": "STRUCTURE_NO_LIMIT", "currency": "EUR",
		"buy_in": 5000, "fee": 1100, "starting_stack": 20000, "start_time": time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339),
	}
	if code, body := s.call("POST", "/v1/tournaments", floor, tournament); code != 200 {
		t.Fatalf("create tournament: %d %v", code, body)
	}
	checkTrace(t, s.traceOf("cardroom.tournament.v1.TournamentService/CreateTournament"), "cardroom.tournament.v1.TournamentService/CreateTournament", false)

	// Everything written survives a clean restart (SIGTERM, then start again).
	s.stop()
	s.start()
	if code, body := s.call("GET", "/v1/tables/"+tableID, player, nil); code != 200 || body["table"].(map[string]any)["name"] != "NL Hold'em 2/5" {
		t.Fatalf("table after restart: %d %v", code, body)
	}
	if code, body := s.call("GET", "/v1/tournaments", player, nil); code != 200 || len(body["tournaments"].([]any)) != 1 {
		t.Fatalf("tournaments after restart: %d %v", code, body)
	}
	if code, body := s.call("GET", "/v1/tables/nope", player, nil); code != 404 || body["reason"] != "TABLE_NOT_FOUND" {
		t.Fatalf("unknown table: %d %v", code, body)
	}
	// The restarted suite took over the table the stopped one dealt.
	waitFor(t, "the table taken over after the restart", 20*time.Second, func() bool {
		n, _ := s.scrape().sum("cardroom_lock_takeovers_total", `cardroom_lock_entity="tables"`)
		return n >= 1
	})
	checkCatalogue(t, s.scrape(), "restart")
	exerciseWallet(t, s)
	board := exerciseSeating(t, s)
	s.stop()
	// The board feed still open at the stop ends with SHUTTING_DOWN, the
	// app's cue to watch again.
	if last := board.last(); !strings.Contains(fmt.Sprint(last["error"]), "SHUTTING_DOWN") {
		t.Fatalf("the board feed open at the stop ended with %v, want a SHUTTING_DOWN error", last)
	}

	// The ledger the run left behind proves itself (cardroom wallet audit).
	cmd := exec.Command(s.bin, "wallet", "audit")
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "EUR: debits 100000, credits 100000, balances sum 0") || !strings.HasSuffix(string(out), "clean\n") {
		t.Fatalf("cardroom wallet audit: %v\n%s", err, out)
	}
}

// exerciseWallet: a cashier opens an account and deposits (idempotently);
// the player reads their own balance and no one else's.
func exerciseWallet(t *testing.T, s *suite) {
	cashier := s.token("cage-1", "cashier")
	alice := s.token("alice", "player")
	bob := s.token("bob", "player")
	open := map[string]any{"owner_id": "alice", "currency": "EUR", "kind": "ACCOUNT_KIND_PLAYER", "idempotency_key": "open-alice"}
	if code, body := s.call("POST", "/v1/accounts", alice, open); code != 403 {
		t.Fatalf("player opening an account: %d %v", code, body)
	}
	if code, body := s.call("POST", "/v1/accounts", cashier, open); code != 200 {
		t.Fatalf("open account: %d %v", code, body)
	}
	deposit := map[string]any{"idempotency_key": "dep-1", "currency": "EUR", "amount": 100000}
	code, first := s.call("POST", "/v1/players/alice/deposits", cashier, deposit)
	if code != 200 {
		t.Fatalf("deposit: %d %v", code, first)
	}
	if code, again := s.call("POST", "/v1/players/alice/deposits", cashier, deposit); code != 200 ||
		again["transfer"].(map[string]any)["transfer_id"] != first["transfer"].(map[string]any)["transfer_id"] {
		t.Fatalf("retried deposit: %d %v, first %v", code, again, first)
	}
	deposit["amount"] = 100001
	if code, body := s.call("POST", "/v1/players/alice/deposits", cashier, deposit); code != 409 || body["reason"] != "IDEMPOTENCY_KEY_REUSED" {
		t.Fatalf("key reused for another amount: %d %v", code, body)
	}
	deposit["idempotency_key"], deposit["amount"] = "dep-2", -5
	if code, body := s.call("POST", "/v1/players/alice/deposits", cashier, deposit); code != 400 || body["metadata"].(map[string]any)["field"] != "amount" {
		t.Fatalf("negative deposit: %d %v", code, body)
	}
	if code, body := s.call("GET", "/v1/accounts/player:alice:EUR/balance", alice, nil); code != 200 || body["balance"] != "100000" {
		t.Fatalf("own balance: %d %v", code, body)
	}
	if code, body := s.call("GET", "/v1/accounts/player:alice:EUR/balance", bob, nil); code != 403 {
		t.Fatalf("someone else's balance: %d %v", code, body)
	}
}

// exerciseSeating: a player joins a waitlist from the app, the room's board
// shows it, the floor opens a table of that game, the player is offered a
// seat and accepts it, and the board shows the list change again.
// It returns the board feed, still open.
func exerciseSeating(t *testing.T, s *suite) *lineStream {
	floor := s.token("floor-anna", "floor")
	alice := s.token("alice", "player")
	bob := s.token("bob", "player")
	game := map[string]any{"variant": "VARIANT_OMAHA", "structure": "STRUCTURE_POT_LIMIT",
		"stakes": map[string]any{"small_blind": 100, "big_blind": 200}}
	code, body := s.call("POST", "/v1/waitlists", floor, map[string]any{"game": game})
	if code != 200 {
		t.Fatalf("create waitlist: %d %v", code, body)
	}
	list := body["waitlist"].(map[string]any)["waitlist_id"].(string)

	board := s.stream("/v1/seating/board?waitlist_id="+list, alice)
	// waitFor reads board updates until the list shows want players
	// waiting; each change may come with updates for other reasons.
	waitFor := func(want string) {
		t.Helper()
		var seen []string
		for len(seen) < 20 {
			line := board.next()
			boards := line["result"].(map[string]any)["boards"].([]any)
			w := fmt.Sprint(boards[0].(map[string]any)["waitlist"].(map[string]any)["waiting"])
			if w == want {
				return
			}
			seen = append(seen, w)
		}
		t.Fatalf("board never showed %s waiting: saw %v", want, seen)
	}
	waitFor("0") // the snapshot
	if code, body := s.call("POST", "/v1/waitlists/"+list+"/entries", alice, map[string]any{}); code != 200 || body["entry"].(map[string]any)["position"] != float64(1) {
		t.Fatalf("join: %d %v", code, body)
	}
	if code, body := s.call("POST", "/v1/waitlists/"+list+"/entries", alice, map[string]any{}); code == 200 {
		t.Fatalf("joined twice: %v", body)
	}
	waitFor("1")

	table := map[string]any{"name": "PLO 1/2", "seats": 6, "kind": "TABLE_KIND_CASH", "mode": "TABLE_MODE_DIGITAL", "game": game}
	if code, body := s.call("POST", "/v1/tables", floor, table); code != 200 {
		t.Fatalf("open table: %d %v", code, body)
	}
	// The offer follows the table.opened event asynchronously.
	var offer map[string]any
	testkit.Eventually(t, 20*time.Second, func() error {
		if _, body := s.call("GET", "/v1/seat-offers", alice, nil); len(body["offers"].([]any)) > 0 {
			offer = body["offers"].([]any)[0].(map[string]any)
			return nil
		}
		return errors.New("no seat offer after the table opened")
	})
	id := offer["offer_id"].(string)
	if offer["state"] != "OFFER_STATE_PENDING" {
		t.Fatalf("offer %v", offer)
	}
	if code, body := s.call("POST", "/v1/seat-offers/"+id+":accept", bob, map[string]any{}); code != 403 || body["reason"] != "OFFER_NOT_YOURS" {
		t.Fatalf("accepting someone else's offer: %d %v", code, body)
	}
	if code, body := s.call("POST", "/v1/seat-offers/"+id+":accept", alice, map[string]any{}); code != 200 || body["offer"].(map[string]any)["state"] != "OFFER_STATE_ACCEPTED" {
		t.Fatalf("accept: %d %v", code, body)
	}
	waitFor("0") // seated from the list
	return board
}

// lineStream reads a server-streaming response's newline-delimited JSON.
type lineStream struct {
	t     *testing.T
	lines chan map[string]any
}

// stream opens a streaming GET that lasts until the test ends.
func (s *suite) stream(path, token string) *lineStream {
	s.t.Helper()
	resp := s.open(s.t, path, token)
	if resp.StatusCode != 200 {
		s.t.Fatalf("stream %s: %d", path, resp.StatusCode)
	}
	ls := &lineStream{t: s.t, lines: make(chan map[string]any, 64)}
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				ls.lines <- m
			}
		}
		close(ls.lines)
	}()
	return ls
}

// open starts a GET of a streaming path that lasts until the test ends;
// the caller reads and closes the body.
func (s *suite) open(t *testing.T, path, token string) *http.Response {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, "GET", s.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// last reads the stream to its end and returns its last message.
func (ls *lineStream) last() map[string]any {
	ls.t.Helper()
	var last map[string]any
	for {
		select {
		case m, ok := <-ls.lines:
			if !ok {
				return last
			}
			last = m
		case <-time.After(20 * time.Second):
			ls.t.Fatal("the stream did not end within 20s")
		}
	}
}

// next returns the stream's next message.
func (ls *lineStream) next() map[string]any {
	ls.t.Helper()
	select {
	case m, ok := <-ls.lines:
		if !ok {
			ls.t.Fatal("stream ended")
		}
		if _, failed := m["error"]; failed {
			ls.t.Fatalf("stream error: %v", m)
		}
		return m
	case <-time.After(20 * time.Second):
		ls.t.Fatal("no stream message within 20s")
	}
	return nil
}
