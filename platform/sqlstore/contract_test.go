package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// migrations is a service's migration tree: portable files at the root,
// plus per-dialect directories that replace the root for that dialect.
var migrations = fstest.MapFS{
	"00001_counters.sql": {Data: []byte(`-- +goose Up
CREATE TABLE counters (
	id TEXT PRIMARY KEY,
	epoch BIGINT NOT NULL DEFAULT 0,
	value BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL);
-- +goose Down
DROP TABLE notes;
DROP TABLE counters;
`)},
}

// dialectMigrations has a subdirectory per dialect, so each engine gets its
// own history and the root file must never run.
var dialectMigrations = fstest.MapFS{
	"00001_never.sql": {Data: []byte("-- +goose Up\nTHIS IS NOT SQL;\n")},
	"postgres/00001_marker.sql": {Data: []byte(`-- +goose Up
CREATE TABLE marker (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, dialect TEXT NOT NULL);
INSERT INTO marker (dialect) VALUES ('postgres');
`)},
	"sqlite/00001_marker.sql": {Data: []byte(`-- +goose Up
CREATE TABLE marker (id INTEGER PRIMARY KEY AUTOINCREMENT, dialect TEXT NOT NULL);
INSERT INTO marker (dialect) VALUES ('sqlite');
`)},
}

// TestContract runs the one sqlstore contract suite on SQLite and on real
// PostgreSQL.
func TestContract(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "contract", Migrations: migrations}, runContract)
}

func runContract(t *testing.T, db *sqlstore.DB) {
	tests := []struct {
		name string
		run  func(t *testing.T, db *sqlstore.DB)
	}{
		{"migrations are idempotent", testMigrateTwice},
		{"commit makes writes visible", testCommit},
		{"error and panic roll back", testRollback},
		{"numbered placeholders bind on both dialects", testPlaceholders},
		{"read-only transactions read and refuse writes", testReadTx},
		{"duplicate keys are recognised on both dialects", testUniqueViolation},
		{"conflicting transactions all succeed by retrying", testConflictRetry},
		{"fenced write refuses a lower epoch", testFence},
		{"claiming a missing row is NotFound", testClaimMissing},
		{"SQL spans are children of the caller's span", testSpans},
		{"Collect reads every row in order and names what failed", testCollect},
		{"Found tells no row from a failure", testFound},
		{"Exec counts the rows changed and names what failed", testExec},
		{"Map reads two columns into a map and names what failed", testMap},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, db)
		})
	}
}

func insertCounter(t *testing.T, db *sqlstore.DB, id string) {
	t.Helper()
	err := db.Tx(t.Context(), func(tx *sqlstore.Tx) error {
		_, err := tx.ExecContext(t.Context(), `INSERT INTO counters (id) VALUES ($1)`, id)
		return err
	})
	if err != nil {
		t.Fatalf("insert counter %s: %v", id, err)
	}
}

func readCounter(t *testing.T, db *sqlstore.DB, id string) (value, epoch int64) {
	t.Helper()
	err := db.SQL().QueryRowContext(t.Context(), `SELECT value, epoch FROM counters WHERE id = $1`, id).Scan(&value, &epoch)
	if err != nil {
		t.Fatalf("read counter %s: %v", id, err)
	}
	return value, epoch
}

func testCollect(t *testing.T, db *sqlstore.DB) {
	for _, id := range []string{"collect-b", "collect-a", "collect-c"} {
		if _, err := db.SQL().ExecContext(t.Context(), `INSERT INTO notes (id, body) VALUES ($1, $2)`, id, "body of "+id); err != nil {
			t.Fatal(err)
		}
	}
	const q = `SELECT id FROM notes WHERE id LIKE $1 ORDER BY id`
	got, err := sqlstore.Collect(t.Context(), db.SQL(), "notes", q, []any{"collect-%"}, sqlstore.ScanString)
	if err != nil || !slices.Equal(got, []string{"collect-a", "collect-b", "collect-c"}) {
		t.Fatalf("Collect = %q, %v; want the three notes in order", got, err)
	}
	if got, err := sqlstore.Collect(t.Context(), db.SQL(), "notes", q, []any{"none-%"}, sqlstore.ScanString); err != nil || got != nil {
		t.Fatalf("Collect of no rows = %q, %v; want nil, nil", got, err)
	}
	bad := errors.New("bad row")
	_, err = sqlstore.Collect(t.Context(), db.SQL(), "notes", q, []any{"collect-%"}, func(sqlstore.Scanner) (string, error) { return "", bad })
	if !errors.Is(err, bad) || !strings.HasPrefix(err.Error(), "notes: ") {
		t.Fatalf("Collect with a failing row = %v, want %v under \"notes: \"", err, bad)
	}
	_, err = sqlstore.Collect(t.Context(), db.SQL(), "missing", `SELECT id FROM no_such_table`, nil, sqlstore.ScanString)
	if err == nil || !strings.HasPrefix(err.Error(), "missing: ") {
		t.Fatalf("Collect of a failing query = %v, want an error under \"missing: \"", err)
	}
}

func testFound(t *testing.T, db *sqlstore.DB) {
	insertCounter(t, db, "found")
	var v int64
	for _, tc := range []struct {
		id, table string
		found     bool
		fails     bool
	}{{"found", "counters", true, false}, {"missing", "counters", false, false}, {"found", "no_such_table", false, true}} {
		err := db.SQL().QueryRowContext(t.Context(), `SELECT value FROM `+tc.table+` WHERE id = $1`, tc.id).Scan(&v)
		ok, err := sqlstore.Found(err, "counter %s", tc.id)
		if ok != tc.found || (err != nil) != tc.fails || (err != nil && !strings.HasPrefix(err.Error(), "counter "+tc.id+": ")) {
			t.Errorf("Found for %s in %s = %v, %v; want %v and an error %v", tc.id, tc.table, ok, err, tc.found, tc.fails)
		}
	}
}

func testMap(t *testing.T, db *sqlstore.DB) {
	for _, id := range []string{"map-a", "map-b"} {
		if _, err := db.SQL().ExecContext(t.Context(), `INSERT INTO notes (id, body) VALUES ($1, $2)`, id, "body of "+id); err != nil {
			t.Fatal(err)
		}
	}
	got, err := sqlstore.Map[string, string](t.Context(), db.SQL(), "notes", `SELECT id, body FROM notes WHERE id LIKE $1`, []any{"map-%"})
	if want := map[string]string{"map-a": "body of map-a", "map-b": "body of map-b"}; err != nil || !maps.Equal(got, want) {
		t.Fatalf("Map = %v, %v; want %v", got, err, want)
	}
	_, err = sqlstore.Map[string, string](t.Context(), db.SQL(), "missing", `SELECT id, body FROM no_such_table`, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "missing: ") {
		t.Fatalf("Map of a failing query = %v, want an error under \"missing: \"", err)
	}
}

func testExec(t *testing.T, db *sqlstore.DB) {
	insertCounter(t, db, "exec")
	for _, tc := range []struct {
		id, table string
		changed   int64
		fails     bool
	}{{"exec", "counters", 1, false}, {"missing", "counters", 0, false}, {"exec", "no_such_table", 0, true}} {
		n, err := sqlstore.Exec(t.Context(), db.SQL(), `UPDATE `+tc.table+` SET value = value + 1 WHERE id = $1`, []any{tc.id}, "bump %s", tc.id)
		if n != tc.changed || (err != nil) != tc.fails || (err != nil && !strings.HasPrefix(err.Error(), "bump "+tc.id+": ")) {
			t.Errorf("Exec on %s in %s = %d, %v; want %d and an error %v", tc.id, tc.table, n, err, tc.changed, tc.fails)
		}
	}
	if value, _ := readCounter(t, db, "exec"); value != 1 {
		t.Errorf("counter after one bump = %d, want 1", value)
	}
}

func testMigrateTwice(t *testing.T, db *sqlstore.DB) {
	for range 2 {
		if err := db.Migrate(t.Context()); err != nil {
			t.Fatalf("migrate again: %v", err)
		}
	}
	var n int
	if err := db.SQL().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM goose_db_version WHERE version_id = 1`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("version 1 recorded %d times, want 1", n)
	}
}

func testCommit(t *testing.T, db *sqlstore.DB) {
	ran := 0
	err := db.Tx(t.Context(), func(tx *sqlstore.Tx) error {
		tx.AfterCommit(func() { ran++ })
		_, err := tx.ExecContext(t.Context(), `INSERT INTO notes (id, body) VALUES ($1, $2)`, "commit", "kept")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var body string
	if err := db.SQL().QueryRowContext(t.Context(), `SELECT body FROM notes WHERE id = $1`, "commit").Scan(&body); err != nil {
		t.Fatal(err)
	}
	if body != "kept" || ran != 1 {
		t.Fatalf("body %q, after-commit ran %d times; want kept, 1", body, ran)
	}
}

func testRollback(t *testing.T, db *sqlstore.DB) {
	boom := errors.New("boom")
	ran := 0
	err := db.Tx(t.Context(), func(tx *sqlstore.Tx) error {
		tx.AfterCommit(func() { ran++ })
		if _, err := tx.ExecContext(t.Context(), `INSERT INTO notes (id, body) VALUES ($1, $2)`, "rolled-back", "x"); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Tx error = %v, want boom", err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("panic was swallowed")
			}
		}()
		_ = db.Tx(t.Context(), func(tx *sqlstore.Tx) error {
			tx.AfterCommit(func() { ran++ })
			if _, err := tx.ExecContext(t.Context(), `INSERT INTO notes (id, body) VALUES ($1, $2)`, "panicked", "x"); err != nil {
				return err
			}
			panic("in transaction")
		})
	}()
	var n int
	if err := db.SQL().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM notes WHERE id IN ('rolled-back', 'panicked')`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 || ran != 0 {
		t.Fatalf("%d rolled-back rows survive, after-commit ran %d times; want 0, 0", n, ran)
	}
}

func testPlaceholders(t *testing.T, db *sqlstore.DB) {
	// $2 comes before $1 and $3 appears twice: both drivers must bind by
	// number, not by position.
	err := db.Tx(t.Context(), func(tx *sqlstore.Tx) error {
		_, err := tx.ExecContext(t.Context(), `INSERT INTO counters (id, value, epoch) VALUES ($2 || '-' || $1, $3, $3)`, "x", "ph", int64(7))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	value, epoch := readCounter(t, db, "ph-x")
	if value != 7 || epoch != 7 {
		t.Fatalf("value, epoch = %d, %d; want 7, 7", value, epoch)
	}
}

func testUniqueViolation(t *testing.T, db *sqlstore.DB) {
	insertCounter(t, db, "dup")
	err := db.Tx(t.Context(), func(tx *sqlstore.Tx) error {
		_, err := tx.ExecContext(t.Context(), `INSERT INTO counters (id) VALUES ($1)`, "dup")
		return err
	})
	if !sqlstore.IsUniqueViolation(err) {
		t.Fatalf("second insert: %v, want a unique violation", err)
	}
	if sqlstore.IsUniqueViolation(errors.New("x")) || sqlstore.Retryable(err) {
		t.Fatal("misclassified")
	}
}

func testReadTx(t *testing.T, db *sqlstore.DB) {
	insertCounter(t, db, "readonly")
	var v int64 = -1
	err := db.ReadTx(t.Context(), func(tx *sqlstore.Tx) error {
		return tx.QueryRowContext(t.Context(), `SELECT value FROM counters WHERE id = $1`, "readonly").Scan(&v)
	})
	if err != nil || v != 0 {
		t.Fatalf("read-only read = %d, %v; want 0, nil", v, err)
	}
	if db.Dialect() == sqlstore.Postgres {
		err = db.ReadTx(t.Context(), func(tx *sqlstore.Tx) error {
			_, err := tx.ExecContext(t.Context(), `UPDATE counters SET value = 1 WHERE id = $1`, "readonly")
			return err
		})
		if err == nil {
			t.Fatal("write in a read-only transaction succeeded")
		}
	}
}

// testConflictRetry runs read-modify-write increments from many goroutines
// without any lock: on PostgreSQL (serializable) they conflict with 40001
// and on SQLite they queue on the write lock; with retries none is lost.
func testConflictRetry(t *testing.T, db *sqlstore.DB) {
	incrementConcurrently(t, db, "race", 6, 8)
}

// incrementConcurrently has workers each add 1 to counter id, each times,
// in read-then-write transactions, and checks that no update was lost:
// conflicting transactions must be retried, not fail or overwrite.
func incrementConcurrently(t *testing.T, db *sqlstore.DB, id string, workers, each int) {
	t.Helper()
	insertCounter(t, db, id)
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for range workers {
		wg.Go(func() {
			for range each {
				errs <- db.Tx(t.Context(), func(tx *sqlstore.Tx) error {
					var v int64
					if err := tx.QueryRowContext(t.Context(), `SELECT value FROM counters WHERE id = $1`, id).Scan(&v); err != nil {
						return err
					}
					_, err := tx.ExecContext(t.Context(), `UPDATE counters SET value = $1 WHERE id = $2`, v+1, id)
					return err
				})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("increment: %v", err)
		}
	}
	if v, _ := readCounter(t, db, id); v != int64(workers*each) {
		t.Fatalf("counter = %d, want %d (lost updates)", v, workers*each)
	}
}

func testFence(t *testing.T, db *sqlstore.DB) {
	ctx := t.Context()
	insertCounter(t, db, "fenced")
	claim := func() sqlstore.Fence {
		var f sqlstore.Fence
		if err := db.Tx(ctx, func(tx *sqlstore.Tx) (err error) {
			f, err = sqlstore.ClaimEpoch(ctx, tx, "counters", "fenced")
			return err
		}); err != nil {
			t.Fatalf("claim: %v", err)
		}
		return f
	}
	old, cur := claim(), claim()
	if old.Epoch != 1 || cur.Epoch != 2 {
		t.Fatalf("epochs = %d, %d; want 1, 2", old.Epoch, cur.Epoch)
	}
	write := func(f sqlstore.Fence, v int64) error {
		return db.Tx(ctx, func(tx *sqlstore.Tx) error {
			if err := f.Check(ctx, tx); err != nil {
				return err
			}
			return f.Update(ctx, tx, "value = $1", v)
		})
	}
	if err := write(cur, 10); err != nil {
		t.Fatalf("current owner's write: %v", err)
	}
	err := write(old, 99)
	if !errors.Is(err, sqlstore.ErrFencedOut) || fault.KindOf(err) != fault.Aborted {
		t.Fatalf("stale owner's write: %v, want ErrFencedOut (Aborted)", err)
	}
	if f, _ := fault.As(err); f.Reason != "FENCED_OUT" {
		t.Fatalf("reason = %q", f.Reason)
	}
	if v, e := readCounter(t, db, "fenced"); v != 10 || e != 2 {
		t.Fatalf("value, epoch = %d, %d; want 10, 2", v, e)
	}
}

func testClaimMissing(t *testing.T, db *sqlstore.DB) {
	err := db.Tx(t.Context(), func(tx *sqlstore.Tx) error {
		_, err := sqlstore.ClaimEpoch(t.Context(), tx, "counters", "nobody")
		return err
	})
	if fault.KindOf(err) != fault.NotFound {
		t.Fatalf("claim missing: %v, want NotFound", err)
	}
}

func testSpans(t *testing.T, db *sqlstore.DB) {
	// The suite's db uses the global provider; open a second handle on the
	// same database with a recording provider.
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	traced := reopen(t, db, sqlstore.Options{TracerProvider: tp})
	// Arguments are what services bind secrets and hole cards to; spans
	// record the query text (placeholders) and never the arguments.
	const secret = "hole-cards-As-Kd"
	const query = `SELECT COUNT(*) FROM counters WHERE id = $1`
	ctx, parent := tp.Tracer("test").Start(t.Context(), "request")
	err := traced.Tx(ctx, func(tx *sqlstore.Tx) error {
		var n int
		return tx.QueryRowContext(ctx, query, secret).Scan(&n)
	})
	parent.End()
	if err != nil {
		t.Fatal(err)
	}
	var children []string
	statementRecorded := false
	for _, s := range rec.Ended() {
		if s.Parent().SpanID() == parent.SpanContext().SpanID() {
			children = append(children, s.Name())
		}
		for _, kv := range s.Attributes() {
			if strings.Contains(kv.Value.String(), secret) {
				t.Errorf("span %s records an argument: %s=%s", s.Name(), kv.Key, kv.Value.String())
			}
			statementRecorded = statementRecorded || kv.Value.String() == query
		}
		for _, ev := range s.Events() {
			for _, kv := range ev.Attributes {
				if strings.Contains(kv.Value.String(), secret) {
					t.Errorf("span %s event %s records an argument: %s", s.Name(), ev.Name, kv.Value.String())
				}
			}
		}
	}
	if !statementRecorded {
		t.Error("no span records the query text")
	}
	want := map[string]bool{"sql.conn.begin_tx": false, "sql.conn.query": false, "sql.tx.commit": false}
	for _, name := range children {
		if _, ok := want[name]; ok {
			want[name] = true
		}
	}
	for name, seen := range want {
		if !seen {
			t.Errorf("no %s span under the request span; children: %v", name, children)
		}
	}
	for _, s := range rec.Ended() {
		if strings.HasSuffix(s.InstrumentationScope().Name, "otelpgx") {
			t.Errorf("a single statement traced twice: %s by otelpgx", s.Name())
		}
	}
	if db.Dialect() != sqlstore.Postgres {
		return
	}
	// A pipeline talks to pgx directly, past otelsql: otelpgx traces its
	// batches — a span for each, under the request, and one for each
	// statement — with the query text and never the arguments.
	ctx, parent = tp.Tracer("test").Start(t.Context(), "pipelined request")
	err = traced.Pipeline(ctx, []string{"a"}, []func(tx *sqlstore.Tx) error{func(tx *sqlstore.Tx) error {
		return tx.Query(ctx, query, []any{secret}, func(sqlstore.Rows) error { return nil })
	}})
	parent.End()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[trace.SpanID]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		byID[s.SpanContext().SpanID()] = s
	}
	batches, statements := 0, 0
	for _, s := range rec.Ended() {
		if !strings.HasSuffix(s.InstrumentationScope().Name, "otelpgx") {
			continue
		}
		under := false
		for p, ok := byID[s.Parent().SpanID()]; ok; p, ok = byID[p.Parent().SpanID()] {
			under = under || p.SpanContext().SpanID() == parent.SpanContext().SpanID()
		}
		if !under {
			t.Errorf("pipeline span %s is not under the request's span", s.Name())
		}
		if s.Parent().SpanID() == parent.SpanContext().SpanID() {
			batches++
		}
		for _, kv := range s.Attributes() {
			if strings.Contains(kv.Value.String(), secret) {
				t.Errorf("pipeline span %s records an argument: %s=%s", s.Name(), kv.Key, kv.Value.String())
			}
			if kv.Value.String() == query {
				statements++
			}
		}
	}
	if batches == 0 || statements != 1 {
		t.Errorf("the pipeline's spans: %d batches under the request, %d with its statement's text; want some and 1", batches, statements)
	}
}

// reopen opens another handle on db's database with extra options.
func reopen(t *testing.T, db *sqlstore.DB, opts sqlstore.Options) *sqlstore.DB {
	t.Helper()
	opts.Service = "contract"
	if db.Dialect() == sqlstore.Postgres {
		opts.URL, opts.Schema = testkit.DatabaseURL(t), db.Schema()
	} else {
		var path string
		if err := db.SQL().QueryRowContext(t.Context(), `SELECT file FROM pragma_database_list WHERE name = 'main'`).Scan(&path); err != nil {
			t.Fatal(err)
		}
		opts.DataDir = path[:len(path)-len("/contract.db")]
	}
	d, err := sqlstore.Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestDialectMigrations(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "dialects", Migrations: dialectMigrations}, func(t *testing.T, db *sqlstore.DB) {
		var got string
		if err := db.SQL().QueryRowContext(t.Context(), `SELECT dialect FROM marker`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != string(db.Dialect()) {
			t.Fatalf("marker = %q, want %q", got, db.Dialect())
		}
	})
}

// dialectFileMigrations is a shared tree (no dialect directories) with a
// file for each dialect alone: each engine runs the shared files and its
// own, never the other's (which would fail on it).
var dialectFileMigrations = fstest.MapFS{
	"00001_marker.sql": {Data: []byte("-- +goose Up\nCREATE TABLE marker (dialect TEXT NOT NULL);\n")},
	"00002_fill.postgres.sql": {Data: []byte(`-- +goose Up
ALTER TABLE marker SET (fillfactor = 50);
INSERT INTO marker (dialect) VALUES ('postgres');
`)},
	"00002_fill.sqlite.sql": {Data: []byte(`-- +goose Up
INSERT INTO marker (dialect) VALUES ('sqlite');
`)},
	"00003_after.sql": {Data: []byte("-- +goose Up\nINSERT INTO marker (dialect) VALUES ('both');\n")},
}

func TestDialectFileMigrations(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "dialectfiles", Migrations: dialectFileMigrations}, func(t *testing.T, db *sqlstore.DB) {
		rows, err := db.SQL().QueryContext(t.Context(), `SELECT dialect FROM marker`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var got []string
		for rows.Next() {
			var d string
			if err := rows.Scan(&d); err != nil {
				t.Fatal(err)
			}
			got = append(got, d)
		}
		if want := []string{string(db.Dialect()), "both"}; !slices.Equal(got, want) {
			t.Fatalf("markers = %v, want %v", got, want)
		}
	})
}

// TestSharedMigrationSets checks that a platform package's set keeps its
// own version table beside the service's.
func TestSharedMigrationSets(t *testing.T) {
	t.Parallel()
	shared := sqlstore.MigrationSet{Name: "extras", FS: fstest.MapFS{
		"00001_extras.sql": {Data: []byte("-- +goose Up\nCREATE TABLE extras (id TEXT PRIMARY KEY);\n")},
	}}
	testkit.EachStore(t, sqlstore.Options{Service: "shared", Migrations: migrations, Shared: []sqlstore.MigrationSet{shared}}, func(t *testing.T, db *sqlstore.DB) {
		// Both sets' tables exist (empty), and each set recorded its
		// version 1 in a version table of its own.
		for _, c := range []struct {
			query string
			want  int
		}{
			{`SELECT COUNT(*) FROM extras`, 0},
			{`SELECT COUNT(*) FROM counters`, 0},
			{`SELECT COUNT(*) FROM goose_extras_version WHERE version_id = 1`, 1},
			{`SELECT COUNT(*) FROM goose_db_version WHERE version_id = 1`, 1},
		} {
			var n int
			if err := db.SQL().QueryRowContext(t.Context(), c.query).Scan(&n); err != nil {
				t.Fatalf("%s: %v", c.query, err)
			}
			if n != c.want {
				t.Fatalf("%s = %d, want %d", c.query, n, c.want)
			}
		}
	})
}

// TestSQLiteBusyIsRetried holds SQLite's write lock longer than the busy
// timeout: the writer's BEGIN IMMEDIATE fails with SQLITE_BUSY, and Tx must
// retry until the lock is free rather than fail.
func TestSQLiteBusyIsRetried(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := testkit.SQLite(t, sqlstore.Options{Service: "busy", Migrations: migrations, SQLiteBusyTimeout: time.Millisecond})
	insertCounter(t, db, "busy")

	holder, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if _, err := holder.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	// A plain write now fails with a retryable SQLITE_BUSY.
	_, err = db.SQL().ExecContext(ctx, `UPDATE counters SET value = 1 WHERE id = 'busy'`)
	if err == nil || !sqlstore.Retryable(err) {
		t.Fatalf("write beside a held lock: %v, want retryable SQLITE_BUSY", err)
	}
	release := time.AfterFunc(50*time.Millisecond, func() {
		_, _ = holder.ExecContext(context.Background(), "COMMIT")
	})
	defer release.Stop()
	err = db.Tx(ctx, func(tx *sqlstore.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE counters SET value = value + 5 WHERE id = 'busy'`)
		return err
	})
	if err != nil {
		t.Fatalf("Tx beside a held lock: %v", err)
	}
	if v, _ := readCounter(t, db, "busy"); v != 5 {
		t.Fatalf("value = %d, want 5", v)
	}
}

// TestSQLiteConcurrentWritersWithBusyErrors: with a 1 ms busy timeout,
// concurrent writers hit SQLITE_BUSY constantly; Tx's retries must still
// apply every increment exactly once.
func TestSQLiteConcurrentWritersWithBusyErrors(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, sqlstore.Options{Service: "writers", Migrations: migrations, SQLiteBusyTimeout: time.Millisecond, MaxAttempts: 1000})
	incrementConcurrently(t, db, "w", 8, 10)
}

func TestRetryable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"plain error", errors.New("x"), false},
		{"fenced out", sqlstore.ErrFencedOut, false},
		{"no rows", sql.ErrNoRows, false},
		{"wrapped nil-free", fmt.Errorf("wrap: %w", context.Canceled), false},
	}
	for _, tt := range tests {
		if got := sqlstore.Retryable(tt.err); got != tt.want {
			t.Errorf("%s: Retryable = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestOpenRejectsBadNames(t *testing.T) {
	t.Parallel()
	for _, opts := range []sqlstore.Options{
		{Service: "bad name", DataDir: t.TempDir()},
		{Service: "ok", URL: "postgres://127.0.0.1/x", Schema: `x"; DROP`},
		{Service: "ok", URL: "mysql://127.0.0.1/x"},
	} {
		if db, err := sqlstore.Open(t.Context(), opts); err == nil {
			db.Close()
			t.Errorf("Open(%+v) succeeded", opts)
		}
	}
}

// TestPoolSizePerDialect checks the pool caps: MaxOpenConns, or
// SQLiteMaxOpenConns instead on SQLite when set, or the defaults (8 on
// PostgreSQL, 16 on SQLite).
func TestPoolSizePerDialect(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name             string
		max, sqliteMax   int
		postgres, sqlite int
	}{
		{"defaults", 0, 0, 8, 16},
		{"one size", 12, 0, 12, 12},
		{"sqlite's own", 24, 3, 24, 3},
		{"sqlite's own over the default", 0, 2, 8, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			testkit.EachStore(t, sqlstore.Options{Service: "pool", Migrations: migrations, MaxOpenConns: tt.max, SQLiteMaxOpenConns: tt.sqliteMax},
				func(t *testing.T, db *sqlstore.DB) {
					want := tt.sqlite
					if db.Dialect() == sqlstore.Postgres {
						want = tt.postgres
					}
					if got := db.SQL().Stats().MaxOpenConnections; got != want {
						t.Fatalf("MaxOpenConnections = %d, want %d", got, want)
					}
				})
		})
	}
}

// TestSQLiteFilesAreTheOwnersOnly: the database, its WAL and shared-memory
// files are created 0600 in a 0700 directory whatever the umask, and a file
// an older version left readable to others is tightened on open.
func TestSQLiteFilesAreTheOwnersOnly(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	old := filepath.Join(dir, "old.db")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(old, 0o644); err != nil { // past any umask
		t.Fatal(err)
	}
	for _, service := range []string{"fresh", "old"} {
		db, err := sqlstore.Open(t.Context(), sqlstore.Options{Service: service, DataDir: dir, Migrations: migrations})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Migrate(t.Context()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files int
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		files++
		if fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s has mode %v, want no access for group and others", e.Name(), fi.Mode().Perm())
		}
	}
	if files < 4 { // fresh.db, its -wal and -shm, old.db
		t.Fatalf("only %d files in the data dir", files)
	}
	fresh := filepath.Join(t.TempDir(), "new", "dir")
	db, err := sqlstore.Open(t.Context(), sqlstore.Options{Service: "x", DataDir: fresh, Migrations: migrations})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("data dir mode %v, %v; want 0700", fi.Mode().Perm(), err)
	}
}
