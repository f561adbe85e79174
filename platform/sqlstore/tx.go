package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Tx is one attempt of a transaction run by DB.Tx. It offers the
// ExecContext/QueryContext/QueryRowContext trio of *sql.Tx; commit and
// rollback belong to DB.Tx.
type Tx struct {
	tx          *sql.Tx
	db          *DB
	afterCommit []func()
	// savepoints counts the savepoints set so far, to name the next.
	savepoints *int
	// detached runs statements without their context's cancellation (a
	// Savepoint's work: see there).
	detached bool
	// pipe, when set, is the pipeline the transaction's statements go
	// through (DB.Pipeline); tx is then nil and only Query sends.
	pipe *pipe
}

// ctx is the context a statement runs with.
func (t *Tx) ctx(ctx context.Context) context.Context {
	if t.detached {
		return context.WithoutCancel(ctx)
	}
	return ctx
}

// ExecContext runs a statement inside the transaction.
func (t *Tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if t.pipe != nil {
		return nil, ErrNotPipelined
	}
	return t.tx.ExecContext(t.ctx(ctx), query, args...)
}

// QueryContext runs a query inside the transaction.
func (t *Tx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if t.pipe != nil {
		return nil, ErrNotPipelined
	}
	return t.tx.QueryContext(t.ctx(ctx), query, args...)
}

// QueryRowContext runs a single-row query inside the transaction. A
// pipelined transaction cannot (*sql.Row carries no error of ours): code
// that may run in one checks Pipelined first.
func (t *Tx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if t.pipe != nil {
		panic("sqlstore: QueryRowContext in a pipelined transaction (check Tx.Pipelined first)")
	}
	return t.tx.QueryRowContext(t.ctx(ctx), query, args...)
}

// Within runs fn as part of the transaction the way Savepoint does —
// statements detached from their context's cancellation, AfterCommit
// functions kept only if fn succeeds — but sets no savepoint, saving its
// round trip: when fn fails, what it wrote stays in the transaction (and
// on PostgreSQL a failed statement aborts it), so the caller must then
// roll the whole transaction back.
func (t *Tx) Within(fn func(tx *Tx) error) error {
	sub := &Tx{tx: t.tx, db: t.db, savepoints: t.savepoints, detached: true}
	if err := fn(sub); err != nil {
		return err
	}
	t.afterCommit = append(t.afterCommit, sub.afterCommit...)
	return nil
}

// SavepointError is a savepoint that could not be set or rolled back to:
// the transaction is then unusable and must be rolled back as a whole.
type SavepointError struct{ Err error }

func (e *SavepointError) Error() string { return "savepoint: " + e.Err.Error() }

func (e *SavepointError) Unwrap() error { return e.Err }

// Savepoint runs fn inside a savepoint of the transaction: when fn fails,
// everything it wrote is rolled back (ROLLBACK TO SAVEPOINT, which also
// clears PostgreSQL's aborted state after a failed statement), the
// functions it registered with AfterCommit are dropped, the transaction
// goes on and fn's error is returned; when fn succeeds, its writes and
// AfterCommit functions join the transaction's. This is what lets one
// transaction carry several independent requests (the wallet's group
// commit): one refused request does not fail the others.
//
// The savepoint is never released: releasing costs a round trip and frees
// nothing that matters, since a subtransaction that wrote keeps its ID
// until the top transaction ends either way.
//
// fn's statements ignore their context's cancellation: the transaction
// belongs to several callers, and on PostgreSQL a statement cancelled by
// its context breaks the connection and with it everyone's work. A
// *SavepointError means the transaction itself failed.
func (t *Tx) Savepoint(ctx context.Context, fn func(tx *Tx) error) error {
	if t.savepoints == nil {
		t.savepoints = new(int)
	}
	*t.savepoints++
	name := "sp" + strconv.Itoa(*t.savepoints)
	if _, err := t.tx.ExecContext(ctx, "SAVEPOINT "+name); err != nil {
		return &SavepointError{Err: fmt.Errorf("set %s: %w", name, err)}
	}
	sub := &Tx{tx: t.tx, db: t.db, savepoints: t.savepoints, detached: true}
	err := fn(sub)
	if err == nil {
		t.afterCommit = append(t.afterCommit, sub.afterCommit...)
		return nil
	}
	if _, rerr := t.tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT "+name); rerr != nil {
		return &SavepointError{Err: fmt.Errorf("roll back to %s after %w: %w", name, err, rerr)}
	}
	return err
}

// Dialect reports the engine the transaction runs on, for the rare query
// that must differ.
func (t *Tx) Dialect() Dialect { return t.db.dialect }

// AfterCommit registers f to run once this attempt has committed (never
// when it rolls back or is retried), for example to wake the outbox relay.
func (t *Tx) AfterCommit(f func()) { t.afterCommit = append(t.afterCommit, f) }

// TxOptions tunes a transaction.
type TxOptions struct {
	// ReadOnly runs a read-only transaction. PostgreSQL refuses writes in
	// it; on SQLite it is a deferred BEGIN that does not take the write
	// lock, and SQLite does not enforce the read-only promise.
	ReadOnly bool
	// Isolation is the PostgreSQL isolation level; the default is
	// serializable, which is what makes read-check-write transactions safe
	// without explicit row locks. SQLite transactions are always
	// serializable.
	Isolation sql.IsolationLevel
}

// Tx runs fn in a read-write transaction and commits it. When the
// transaction fails with a serialization failure or deadlock (SQLSTATE
// 40001, 40P01) or SQLITE_BUSY/SQLITE_LOCKED, it is rolled back and fn runs
// again in a fresh transaction after a jittered exponential backoff, up to
// Options.MaxAttempts times; fn must therefore have no effects outside the
// transaction (use AfterCommit for those). Any other error from fn rolls
// back and is returned as is.
func (d *DB) Tx(ctx context.Context, fn func(tx *Tx) error) error {
	return d.TxWith(ctx, TxOptions{}, fn)
}

// ReadTx runs fn in a read-only transaction, retrying like Tx.
func (d *DB) ReadTx(ctx context.Context, fn func(tx *Tx) error) error {
	return d.TxWith(ctx, TxOptions{ReadOnly: true}, fn)
}

// Read runs fn in a read-only transaction (ReadTx) and returns what it
// read.
func Read[T any](ctx context.Context, d *DB, fn func(tx *Tx) (T, error)) (T, error) {
	var out T
	err := d.ReadTx(ctx, func(tx *Tx) error {
		var err error
		out, err = fn(tx)
		return err
	})
	return out, err
}

// TxWith runs fn like Tx with explicit options.
func (d *DB) TxWith(ctx context.Context, opts TxOptions, fn func(tx *Tx) error) error {
	sqlOpts := &sql.TxOptions{ReadOnly: opts.ReadOnly}
	if d.dialect == Postgres {
		sqlOpts.Isolation = opts.Isolation
		if sqlOpts.Isolation == sql.LevelDefault {
			sqlOpts.Isolation = sql.LevelSerializable
		}
	}
	var err error
	for attempt := 1; ; attempt++ {
		var tx *Tx
		tx, err = d.attempt(ctx, sqlOpts, fn)
		if err == nil {
			for _, f := range tx.afterCommit {
				f()
			}
			return nil
		}
		if !Retryable(err) {
			return err
		}
		if attempt >= d.maxAttempts {
			return fmt.Errorf("transaction still conflicting after %d attempts: %w", attempt, err)
		}
		t := time.NewTimer(backoff(attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("transaction retry: %w (last attempt: %w)", context.Cause(ctx), err)
		case <-t.C:
		}
	}
}

func (d *DB) attempt(ctx context.Context, opts *sql.TxOptions, fn func(tx *Tx) error) (tx *Tx, err error) {
	sqlTx, err := d.db.BeginTx(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("begin transaction: %w", err)
	}
	tx = &Tx{tx: sqlTx, db: d}
	defer func() {
		if p := recover(); p != nil {
			_ = sqlTx.Rollback()
			panic(p)
		}
	}()
	if err := fn(tx); err != nil {
		_ = sqlTx.Rollback()
		return nil, err
	}
	if err := sqlTx.Commit(); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	return tx, nil
}

// backoff waits 1 ms doubling per attempt up to 128 ms, with jitter so two
// conflicting writers do not collide again in lockstep.
func backoff(attempt int) time.Duration {
	d := time.Millisecond << min(attempt-1, 7)
	return d/2 + rand.N(d/2+1)
}

// Retryable reports whether err is a transient conflict that a fresh
// transaction may not hit: a PostgreSQL serialization failure (40001) or
// deadlock (40P01), or SQLITE_BUSY / SQLITE_LOCKED (any extended code).
func Retryable(err error) bool {
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok {
		return pgErr.Code == pgerrcode.SerializationFailure || pgErr.Code == pgerrcode.DeadlockDetected
	}
	if sqliteErr, ok := errors.AsType[*sqlite.Error](err); ok {
		// The primary result code is the low byte of an extended one
		// (sqlite.org/rescode.html): SQLITE_BUSY_SNAPSHOT is still BUSY.
		switch sqliteErr.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return true
		}
	}
	return false
}

// IsUniqueViolation reports whether err is a unique or primary-key
// constraint violation on either dialect (SQLSTATE 23505;
// SQLITE_CONSTRAINT_UNIQUE or _PRIMARYKEY), for example a second insert of
// the same idempotency key.
func IsUniqueViolation(err error) bool {
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok {
		return pgErr.Code == pgerrcode.UniqueViolation
	}
	if sqliteErr, ok := errors.AsType[*sqlite.Error](err); ok {
		switch sqliteErr.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return true
		}
	}
	return false
}
