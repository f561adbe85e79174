package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
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

// binary is the cardroom executable built once for the end-to-end tests.
var binary struct {
	once sync.Once
	path string
	err  error
}

func buildBinary(t *testing.T) string {
	t.Helper()
	binary.once.Do(func() {
		dir, err := os.MkdirTemp("", "cardroom-e2e-bin")
		if err != nil {
			binary.err = err
			return
		}
		binary.path = filepath.Join(dir, "cardroom")
		out, err := exec.Command("go", "build", "-o", binary.path, ".").CombinedOutput()
		if err != nil {
			binary.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

// suite is one `cardroom all` child process.
type suite struct {
	t       *testing.T
	bin     string
	env     []string
	base    string // http://host:port
	trace   string // CARDROOM_TRACE_FILE
	cmd     *exec.Cmd
	stdout  bytes.Buffer
	stderr  bytes.Buffer
	waitErr chan error
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// newSuite prepares a suite's environment: its own data dir, ports and
// trace file, plus extra (REDIS_URL, DATABASE_URL, ...). Variables of the
// test process that would leak into the child are removed.
func newSuite(t *testing.T, extra ...string) *suite {
	t.Helper()
	dir := t.TempDir()
	httpAddr := freeAddr(t)
	s := &suite{t: t, bin: buildBinary(t), base: "http://" + httpAddr, trace: filepath.Join(dir, "trace.jsonl")}
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
		"CARDROOM_GRPC_ADDR="+freeAddr(t),
		"CARDROOM_TRACE_FILE="+s.trace,
		"CARDROOM_SHUTDOWN_TIMEOUT=5s",
	)
	s.env = append(s.env, extra...)
	return s
}

// start runs `cardroom all` and waits until /healthz says every part is ready.
func (s *suite) start() {
	t := s.t
	t.Helper()
	s.stdout.Reset()
	s.stderr.Reset()
	s.cmd = exec.Command(s.bin, "all")
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
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(s.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case err := <-s.waitErr:
			t.Fatalf("cardroom all exited: %v\nstderr:\n%s", err, s.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("cardroom all not ready after 60s\nstderr:\n%s", s.stderr.String())
		}
		time.Sleep(50 * time.Millisecond) // polling a child process's readiness, not waiting on a rule timer
	}
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
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			s.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if len(raw) > 0 && json.Unmarshal(raw, &out) != nil {
		out = map[string]any{"raw": string(raw)}
	}
	return resp.StatusCode, out
}

// span is the part of stdouttrace's JSON that the trace checks read.
type span struct {
	Name        string
	SpanKind    int
	SpanContext struct{ TraceID, SpanID string }
	Parent      struct{ SpanID string }
	Scope       struct{ Name string } `json:"InstrumentationScope"`
}

// traceOf returns every span of the trace that contains a span named name.
func (s *suite) traceOf(name string) []span {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		spans := s.readSpans()
		trace := ""
		for _, sp := range spans {
			if sp.Name == name {
				trace = sp.SpanContext.TraceID
			}
		}
		var out []span
		for _, sp := range spans {
			if sp.SpanContext.TraceID == trace {
				out = append(out, sp)
			}
		}
		// The trace is complete once the HTTP span (which ends when the
		// response is written) and every span's parent are in: work the
		// request set off after answering (the outbox relay's publish)
		// ends later.
		if complete(out) {
			return out
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("no complete trace with span %q among %d spans", name, len(spans))
		}
		time.Sleep(50 * time.Millisecond) // spans are flushed asynchronously by the child
	}
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
		case strings.HasSuffix(sp.Scope.Name, "otelsql"):
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
// PostgreSQL that DATABASE_URL names, and drops it afterwards.
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
			"CARDROOM_REDIS_PREFIX="+testkit.UniqueName(t)+":",
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
	s.stop()
}
