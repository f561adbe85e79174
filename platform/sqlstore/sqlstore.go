// Package sqlstore opens a service's SQL database — SQLite (modernc.org/sqlite,
// pure Go, the embedded default) or PostgreSQL (pgx) when a URL is given —
// runs the service's embedded goose migrations, and runs transactions that
// retry on serialization failures and SQLITE_BUSY. It also holds the fencing
// helpers of ARCHITECTURE.md ("Correctness under concurrency"): ClaimEpoch
// issues a new epoch when an owner takes an entity over, and fenced writes
// touch a row only while its epoch is still the owner's.
//
// # SQL that runs on both dialects
//
// Queries use numbered placeholders ($1, $2, ...) on both dialects: pgx
// understands them natively and modernc.org/sqlite binds $N to the N-th
// argument, so no rebinding happens. Portable column types: TEXT for ids and
// strings, BIGINT for int64 (money in minor units, epochs, unix-millisecond
// timestamps), BOOLEAN, and BYTEA for bytes (SQLite stores []byte as a BLOB
// in a BYTEA column). INSERT ... ON CONFLICT DO NOTHING / DO UPDATE and
// UPDATE ... RETURNING work on both.
//
// # Migration layout
//
// Each service embeds its goose SQL migrations (files NNNNN_name.sql with
// "-- +goose Up" / "-- +goose Down" sections) and passes the embed.FS as
// Options.Migrations. By default the files at the root of that FS run on both
// dialects. When a service needs dialect-specific SQL, it puts a complete set
// in a subdirectory named "postgres" or "sqlite"; that subdirectory is then
// used instead of the root for that dialect (sets are never mixed, so the
// version numbers of one dialect's history stay consistent). Platform
// packages with their own tables (events) export a MigrationSet that the
// service lists in Options.Shared; each set keeps its own goose version table
// (goose_<name>_version), so its numbering is independent of the service's.
//
// A service's tables live in its own PostgreSQL schema (Options.Schema,
// defaulting to the service name; tests use a fresh one) or its own SQLite
// file (DataDir/<service>.db).
package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/XSAM/otelsql"
	"github.com/exaring/otelpgx"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Dialect names the SQL engine behind a DB.
type Dialect string

// Dialects.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// Options says which database to open and which migrations belong to it.
type Options struct {
	// URL is a PostgreSQL URL (postgres:// or postgresql://). Empty means
	// SQLite at DataDir/<Service>.db.
	URL string
	// DataDir holds SQLite files; it is created when missing.
	DataDir string
	// Service names the owner: the SQLite file name and the default
	// PostgreSQL schema.
	Service string
	// Schema is the PostgreSQL schema the service's tables live in; empty
	// means Service. Ignored for SQLite.
	Schema string
	// Migrations is the service's embedded goose migrations (see the package
	// comment for the layout). Nil means the service has none of its own.
	Migrations fs.FS
	// Shared lists migration sets of platform packages (for example
	// events.Migrations) that run, in order, before the service's own.
	Shared []MigrationSet
	// MaxOpenConns caps the connection pool; 0 means 8 for PostgreSQL (many
	// processes share one server) and 16 for SQLite.
	MaxOpenConns int
	// SQLiteMaxOpenConns, when positive, caps the pool instead of
	// MaxOpenConns when the database turns out to be SQLite. A service
	// whose options are made before the URL is filled in (cmd/cardroom
	// sets URL afterwards) sizes each dialect's pool with the two fields:
	// SQLite runs one writer at a time, while a PostgreSQL pool waits
	// mostly on commits and wants more connections.
	SQLiteMaxOpenConns int
	// SQLiteBusyTimeout is how long a SQLite statement waits for another
	// connection's lock before failing with SQLITE_BUSY (which Tx retries);
	// 0 means 5 s.
	SQLiteBusyTimeout time.Duration
	// MaxAttempts bounds how often Tx runs a transaction that keeps failing
	// with a retryable error; 0 means 20.
	MaxAttempts int
	// TracerProvider makes the SQL spans; nil means the global provider.
	TracerProvider trace.TracerProvider
}

// DB is an open service database.
type DB struct {
	db          *sql.DB
	stats       metric.Registration
	dialect     Dialect
	schema      string
	opts        Options
	maxAttempts int
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Open opens (creating when needed) the database described by opts. It
// does not migrate; call Migrate.
func Open(ctx context.Context, opts Options) (*DB, error) {
	if !identifier.MatchString(opts.Service) {
		return nil, fmt.Errorf("open database: service name %q must be a plain identifier", opts.Service)
	}
	d := &DB{opts: opts, maxAttempts: opts.MaxAttempts}
	if d.maxAttempts <= 0 {
		d.maxAttempts = 20
	}
	driverName, dsn, err := d.source()
	if err != nil {
		return nil, err
	}
	var db *sql.DB
	if d.dialect == Postgres {
		// A connector of our own config, so that pgx's batches are traced
		// (batchTracer): the pipelines (DB.Pipeline) send them to pgx
		// directly, past database/sql and otelsql.
		cfg, perr := pgx.ParseConfig(dsn)
		if perr != nil {
			return nil, fmt.Errorf("open %s database for %s: %w", d.dialect, opts.Service, perr)
		}
		cfg.Tracer = d.batchTracer()
		db = otelsql.OpenDB(stdlib.GetConnector(*cfg), d.traceOptions()...)
	} else if db, err = otelsql.Open(driverName, dsn, d.traceOptions()...); err != nil {
		return nil, fmt.Errorf("open %s database for %s: %w", d.dialect, opts.Service, err)
	}
	d.db = db
	// The pool's open, idle and waiting connections, for the platform dashboard.
	stats, err := otelsql.RegisterDBStatsMetrics(db, otelsql.WithAttributes(attribute.String("db.system.name", systemName(d.dialect)),
		attribute.String("db.namespace", opts.Service)))
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("measure %s database for %s: %w", d.dialect, opts.Service, err)
	}
	d.stats = stats
	maxConns := d.poolSize()
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := d.prepare(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s database for %s: %w", d.dialect, opts.Service, err)
	}
	return d, nil
}

// source sets d's dialect (and schema, in PostgreSQL) from its options
// and returns the driver and data source to open.
func (d *DB) source() (driverName, dsn string, err error) {
	opts := d.opts
	if opts.URL == "" {
		d.dialect = SQLite
		driverName = "sqlite"
		dsn, err = sqliteDSN(opts)
	} else {
		d.dialect = Postgres
		driverName = "pgx"
		d.schema = opts.Schema
		d.schema = cmp.Or(d.schema, opts.Service)
		if !identifier.MatchString(d.schema) {
			return "", "", fmt.Errorf("open database: schema %q must be a plain identifier", d.schema)
		}
		dsn, err = postgresDSN(opts.URL, d.schema)
	}
	if err != nil {
		return "", "", fmt.Errorf("open %s database for %s: %w", d.dialect, opts.Service, err)
	}
	return driverName, dsn, nil
}

// traceOptions are the database's span options. otelsql records the
// query text (placeholders only) and never the arguments, which can be
// secrets or hole cards; no AttributesGetter is installed that would add
// them (the contract suite checks).
func (d *DB) traceOptions() []otelsql.Option {
	traceOpts := []otelsql.Option{
		// Both bounded: the dialect and the service owning the database.
		otelsql.WithAttributes(attribute.String("db.system.name", systemName(d.dialect)), attribute.String("db.namespace", d.opts.Service)),
		otelsql.WithSpanOptions(otelsql.SpanOptions{
			OmitConnResetSession: true,
			OmitConnPrepare:      true,
			OmitRows:             true,
			OmitConnectorConnect: true,
			// SQL is traced only inside a trace (a request, a consumed
			// event): background polls such as the outbox relay's would
			// otherwise flood the backend with one-span root traces.
			SpanFilter: func(ctx context.Context, _ otelsql.Method, _ string, _ []driver.NamedValue) bool {
				return trace.SpanContextFromContext(ctx).IsValid()
			},
		}),
	}
	if d.opts.TracerProvider != nil {
		traceOpts = append(traceOpts, otelsql.WithTracerProvider(d.opts.TracerProvider))
	}
	return traceOpts
}

// batchTracer traces pgx's batches with otelpgx: a span for each batch
// and one for each statement in it, in the trace of the context that sent
// it (never outside a trace: otelpgx starts none without a recording
// parent). It leaves single statements alone: those go through
// database/sql, where otelsql traces them, and would be traced twice.
// Like otelsql's, its spans carry the query text and never the
// arguments (otelpgx's default). Its metrics are left out: the pool's are
// otelsql's, and a histogram recorded on every batch of the hot path
// would cost more than it tells.
func (d *DB) batchTracer() pgx.QueryTracer {
	opts := []otelpgx.Option{otelpgx.WithTracerAttributes(attribute.String("db.namespace", d.opts.Service)),
		otelpgx.WithDisableConnectionDetailsInAttributes(), otelpgx.WithMeterProvider(metricnoop.NewMeterProvider())}
	if d.opts.TracerProvider != nil {
		opts = append(opts, otelpgx.WithTracerProvider(d.opts.TracerProvider))
	}
	return batchTracer{otelpgx.NewTracer(opts...)}
}

// batchTracer is otelpgx's tracer for batches alone (DB.batchTracer).
type batchTracer struct{ t *otelpgx.Tracer }

var _ pgx.BatchTracer = batchTracer{}

// TraceQueryStart traces nothing: otelsql traces single statements.
func (batchTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}

// TraceQueryEnd traces nothing (TraceQueryStart).
func (batchTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TraceBatchStart starts the batch's span.
func (b batchTracer) TraceBatchStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	return b.t.TraceBatchStart(ctx, conn, data)
}

// TraceBatchQuery records one statement of the batch.
func (b batchTracer) TraceBatchQuery(ctx context.Context, conn *pgx.Conn, data pgx.TraceBatchQueryData) {
	b.t.TraceBatchQuery(ctx, conn, data)
}

// TraceBatchEnd ends the batch's span.
func (b batchTracer) TraceBatchEnd(ctx context.Context, conn *pgx.Conn, data pgx.TraceBatchEndData) {
	b.t.TraceBatchEnd(ctx, conn, data)
}

// poolSize is how many connections the database's pool keeps open at
// most: MaxOpenConns (SQLiteMaxOpenConns for SQLite, when set), or 16 for
// SQLite and 8 for PostgreSQL.
func (d *DB) poolSize() int {
	n := d.opts.MaxOpenConns
	if d.dialect == SQLite && d.opts.SQLiteMaxOpenConns > 0 {
		n = d.opts.SQLiteMaxOpenConns
	}
	if n > 0 {
		return n
	}
	if d.dialect == Postgres {
		return 8
	}
	return 16
}

func systemName(d Dialect) string {
	if d == Postgres {
		return "postgresql"
	}
	return "sqlite"
}

func sqliteDSN(opts Options) (string, error) {
	dir := opts.DataDir
	dir = cmp.Or(dir, ".")
	// The database holds the room's money and players: only the owner
	// reads it. SQLite gives the -wal and -shm files the mode of the
	// database file, so creating that one 0600 covers all three.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path, err := filepath.Abs(filepath.Join(dir, opts.Service+".db"))
	if err != nil {
		return "", err
	}
	if err := ownerOnly(path); err != nil {
		return "", err
	}
	q := url.Values{}
	// WAL lets readers run beside the one writer; busy_timeout makes a
	// writer wait for the lock inside SQLite before Tx's own retry kicks in;
	// _txlock=immediate makes every read-write transaction BEGIN IMMEDIATE
	// so it takes the write lock up front instead of failing with
	// SQLITE_BUSY when it upgrades from reading to writing (read-only
	// transactions still BEGIN DEFERRED).
	busy := opts.SQLiteBusyTimeout
	if busy <= 0 {
		busy = 5 * time.Second
	}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", max(busy.Milliseconds(), 1)))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode(), nil
}

// ownerOnly creates the file at path with mode 0600 when it does not exist,
// and takes group and other access away from one that does (created by an
// older version with the process's umask), together with its -wal and -shm
// files.
func ownerOnly(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if fi.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(p, fi.Mode().Perm()&0o700); err != nil {
				return err
			}
		}
	}
	return nil
}

// postgresDSN points the connection's search_path at the service schema so
// unqualified table names (and goose's version tables) land there.
func postgresDSN(raw, schema string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("parse database URL: %w", err)
	}
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return "", fmt.Errorf("database URL scheme %q: want postgres", u.Scheme)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

func (d *DB) prepare(ctx context.Context) error {
	if err := d.db.PingContext(ctx); err != nil {
		return err
	}
	if d.dialect != Postgres {
		return nil
	}
	// Two replicas creating the schema at once can both miss it and one
	// then fails with a unique violation; the schema exists either way.
	_, err := d.db.ExecContext(ctx, `CREATE SCHEMA IF NOT EXISTS "`+d.schema+`"`)
	if IsUniqueViolation(err) {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("create schema %s: %w", d.schema, err)
	}
	return nil
}

// Service names the service whose database this is (Options.Service).
func (d *DB) Service() string { return d.opts.Service }

// Dialect reports which engine the DB runs on.
func (d *DB) Dialect() Dialect { return d.dialect }

// Schema returns the PostgreSQL schema holding the service's tables, or ""
// for SQLite.
func (d *DB) Schema() string { return d.schema }

// SQL returns the underlying pool for reads outside a transaction. Writes
// belong in Tx.
func (d *DB) SQL() *sql.DB { return d.db }

// Close closes the pool.
func (d *DB) Close() error {
	_ = d.stats.Unregister()
	return d.db.Close()
}

// Querier is what both *sql.DB and *Tx offer, so read helpers can take either.
type Querier interface {
	// ExecContext runs a statement that returns no rows.
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	// QueryContext runs a query that returns rows.
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	// QueryRowContext runs a query that returns at most one row.
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

var _ Querier = (*sql.DB)(nil)
var _ Querier = (*Tx)(nil)

// Scanner is one row to read: *sql.Row, or *sql.Rows on a row.
type Scanner = interface {
	// Scan copies the row's columns into dest.
	Scan(dest ...any) error
}

// Each runs a query on q and hands each row it returns to row, in order.
// An error, the query's or a row's, is returned under what ("bags of t1:
// ...").
func Each(ctx context.Context, q Querier, what, query string, args []any, row func(Scanner) error) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// Collect is Each returning the rows in order, each read by scan.
func Collect[T any](ctx context.Context, q Querier, what, query string, args []any, scan func(Scanner) (T, error)) ([]T, error) {
	var out []T
	err := Each(ctx, q, what, query, args, func(r Scanner) error {
		v, err := scan(r)
		out = append(out, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Map runs a query of two columns and returns its rows as a map from the
// first column's value to the second's, its errors under what as Each's.
func Map[K comparable, V any](ctx context.Context, q Querier, what, query string, args []any) (map[K]V, error) {
	out := map[K]V{}
	err := Each(ctx, q, what, query, args, func(r Scanner) error {
		var k K
		var v V
		err := r.Scan(&k, &v)
		out[k] = v
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Found reads the error of a query for at most one row (QueryRowContext's
// Scan): no row is false with no error, and any other error is returned
// under the context format and args give ("payment %s").
func Found(err error, format string, args ...any) (bool, error) {
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf(format+": %w", append(args, err)...)
	}
	return true, nil
}

// Exec runs a statement on q and returns how many rows it changed. An
// error, the statement's or the count's, is returned under the context
// format and fargs give ("settle hold %s"), as Found's are.
func Exec(ctx context.Context, q Querier, query string, args []any, format string, fargs ...any) (int64, error) {
	res, err := q.ExecContext(ctx, query, args...)
	if err == nil {
		var n int64
		if n, err = res.RowsAffected(); err == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf(format+": %w", append(fargs, err)...)
}

// ScanString reads a row of one text column, for Collect.
func ScanString(r Scanner) (s string, err error) {
	err = r.Scan(&s)
	return s, err
}

// quoteIdent validates a table or column name the helpers splice into SQL.
func quoteIdent(name string) (string, error) {
	if !identifier.MatchString(name) {
		return "", fmt.Errorf("identifier %q is not a plain SQL name", name)
	}
	return `"` + strings.ToLower(name) + `"`, nil
}
