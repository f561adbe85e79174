package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// Rows is what a Query scan function reads: *sql.Rows on the ordinary
// path, pgx's rows in a pipeline.
type Rows interface {
	// Next moves to the next row, reporting false after the last.
	Next() bool
	// Scan copies the row's columns into dest.
	Scan(dest ...any) error
	// Err is the error that ended the rows, if any.
	Err() error
}

// ErrNotPipelined is a statement a pipelined transaction cannot send (see
// DB.Pipeline): only Query can. The pipeline then fails, and its caller
// runs the work the ordinary way.
var ErrNotPipelined = errors.New("statement cannot be pipelined")

// Pipelined reports whether the transaction is one of DB.Pipeline's, where
// only Query sends statements.
func (t *Tx) Pipelined() bool { return t.pipe != nil }

// Query runs a query outside any transaction and hands its rows to scan:
// Tx.Query's counterpart, so that a statement can be written once for
// both.
func (d *DB) Query(ctx context.Context, query string, args []any, scan func(Rows) error) error {
	rows, err := d.db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	return scanRows(rows, scan)
}

// Exec runs a statement whose result is not read inside the transaction:
// ExecContext, but one that a pipelined transaction (DB.Pipeline) can
// send too, with the other transactions' statements of the same round.
func (t *Tx) Exec(ctx context.Context, query string, args ...any) error {
	if t.pipe != nil {
		return t.pipe.send(query, args, func(Rows) error { return nil })
	}
	_, err := t.tx.ExecContext(t.ctx(ctx), query, args...)
	return err
}

// Query runs a query inside the transaction and hands its rows to scan.
// In a pipelined transaction (DB.Pipeline) the query is sent with the
// other transactions' statements of the same round, and scan runs once
// the round's results are back.
func (t *Tx) Query(ctx context.Context, query string, args []any, scan func(Rows) error) error {
	if t.pipe != nil {
		return t.pipe.send(query, args, scan)
	}
	rows, err := t.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	return scanRows(rows, scan)
}

// scanRows hands rows to scan and closes them.
func scanRows(rows *sql.Rows, scan func(Rows) error) error {
	if err := scan(rows); err != nil {
		rows.Close()
		return err
	}
	if err := rows.Close(); err != nil {
		return err
	}
	return rows.Err()
}

// Pipeline runs several pieces of work in one read-write READ COMMITTED
// PostgreSQL transaction, pipelined: each fn runs in a goroutine of its own, and a round sends
// the next statement of every fn that has one as one batch — one round
// trip for all of them, where running the fns in turn costs a round trip
// per statement of each. A group commit of n requests of two statements
// each is then BEGIN with the first statements, the second statements,
// and COMMIT: three round trips instead of 2n + 2.
//
// The fns' statements interleave: the k-th statement of every fn runs
// after the (k-1)-th of all of them, in the order of order (a key per fn,
// ascending: the order their row locks are taken in, so that two
// pipelines lock the same rows in the same order). That is the same as
// running the fns one after another only when no fn reads what another
// one writes; the caller must see to that.
//
// Only Query sends a statement; any other (ExecContext, QueryContext)
// fails with ErrNotPipelined. When any fn or statement fails, or the
// commit does, the transaction is rolled back (every fn's work with it)
// and the error returned: the caller then runs the work the ordinary way,
// where every piece fails or succeeds alone. On success the fns'
// AfterCommit functions run. SQLite has no pipeline: Pipeline fails with
// ErrNotPipelined there.
func (d *DB) Pipeline(ctx context.Context, order []string, fns []func(tx *Tx) error) error {
	if d.dialect != Postgres {
		return ErrNotPipelined
	}
	const begin = "BEGIN ISOLATION LEVEL READ COMMITTED"
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("pipeline: %w", err)
	}
	defer conn.Close()
	var txs []*Tx
	err = conn.Raw(func(dc any) error {
		pc, ok := pgxConn(dc)
		if !ok {
			return fmt.Errorf("pipeline: connection %T is not pgx's: %w", dc, ErrNotPipelined)
		}
		var err error
		txs, err = runPipeline(ctx, pc, d, begin, order, fns)
		return err
	})
	if err != nil {
		return err
	}
	for _, tx := range txs {
		for _, f := range tx.afterCommit {
			f()
		}
	}
	return nil
}

// pgxConn finds the pgx connection under a driver connection from the
// pool (wrapped by otelsql).
func pgxConn(dc any) (*pgx.Conn, bool) {
	if w, ok := dc.(interface{ Raw() driver.Conn }); ok {
		dc = w.Raw()
	}
	c, ok := dc.(*stdlib.Conn)
	if !ok {
		return nil, false
	}
	return c.Conn(), true
}

// pipe is a pipelined transaction's way to the round that sends its
// statements.
type pipe struct {
	index int
	steps chan<- pipeStep
}

// pipeStep is a fn's next statement, or its end (done, with its error).
type pipeStep struct {
	index int
	query string
	args  []any
	scan  func(Rows) error
	reply chan error
	done  bool
	err   error
}

func (p *pipe) send(query string, args []any, scan func(Rows) error) error {
	reply := make(chan error, 1)
	p.steps <- pipeStep{index: p.index, query: query, args: args, scan: scan, reply: reply}
	return <-reply
}

// errPipelineFailed answers the statements of a round that is not sent,
// since another fn of the pipeline already failed.
var errPipelineFailed = errors.New("pipeline failed")

// runPipeline runs the fns' rounds on pc and commits, or rolls back and
// returns the first failure.
func runPipeline(ctx context.Context, pc *pgx.Conn, d *DB, begin string, order []string, fns []func(tx *Tx) error) ([]*Tx, error) {
	steps := make(chan pipeStep, len(fns))
	txs := make([]*Tx, len(fns))
	for i, fn := range fns {
		tx := &Tx{db: d, detached: true, pipe: &pipe{index: i, steps: steps}}
		txs[i] = tx
		go func() {
			err := fn(tx)
			steps <- pipeStep{index: i, done: true, err: err}
		}()
	}
	var failure error
	began := false
	for active := len(fns); active > 0; {
		var round []pipeStep
		round, active = gather(steps, active, func(err error) { failure = cmp.Or(failure, err) })
		if len(round) == 0 {
			continue
		}
		if failure != nil {
			for _, s := range round {
				s.reply <- errPipelineFailed
			}
			continue
		}
		slices.SortFunc(round, func(a, b pipeStep) int {
			return cmp.Or(cmp.Compare(order[a.index], order[b.index]), cmp.Compare(a.index, b.index))
		})
		b := &pgx.Batch{}
		if !began {
			b.Queue(begin)
		}
		for _, s := range round {
			b.Queue(s.query, s.args...)
		}
		failure = sendRound(ctx, pc, b, !began, round)
		began = true
	}
	if !began {
		return nil, failure
	}
	if failure != nil {
		if _, err := pc.Exec(ctx, "ROLLBACK"); err != nil {
			// The connection's state is unknown: drop it from the pool.
			_ = pc.Close(context.WithoutCancel(ctx))
		}
		return nil, failure
	}
	if _, err := pc.Exec(ctx, "COMMIT"); err != nil {
		if pc.PgConn().TxStatus() != 'I' {
			_ = pc.Close(context.WithoutCancel(ctx))
		}
		return nil, fmt.Errorf("pipeline commit: %w", err)
	}
	return txs, nil
}

// gather waits until each of the active fns has sent its next statement
// or ended, and returns the statements and how many fns are still
// running; fail is told each error a fn ended with.
func gather(steps <-chan pipeStep, active int, fail func(error)) ([]pipeStep, int) {
	var round []pipeStep
	for waiting := active; waiting > 0; waiting-- {
		s := <-steps
		if !s.done {
			round = append(round, s)
			continue
		}
		active--
		if s.err != nil {
			fail(fmt.Errorf("pipelined work %d: %w", s.index, s.err))
		}
	}
	return round, active
}

// sendRound sends one round's batch (BEGIN first when withBegin), hands
// each statement's rows to its scan and answers its fn. It returns the
// round's first failure.
func sendRound(ctx context.Context, pc *pgx.Conn, b *pgx.Batch, withBegin bool, round []pipeStep) error {
	br := pc.SendBatch(ctx, b)
	var first error
	if withBegin {
		if _, err := br.Exec(); err != nil {
			first = fmt.Errorf("pipeline begin: %w", err)
		}
	}
	for _, s := range round {
		err := first
		if err == nil {
			err = scanResult(br, s.scan)
		}
		if err != nil && first == nil {
			first = err
		}
		s.reply <- err
	}
	if err := br.Close(); err != nil && first == nil {
		first = fmt.Errorf("pipeline round: %w", err)
	}
	return first
}

// scanResult reads the batch's next result with scan.
func scanResult(br pgx.BatchResults, scan func(Rows) error) error {
	rows, err := br.Query()
	if err != nil {
		return err
	}
	defer rows.Close()
	if err := scan(rows); err != nil {
		return err
	}
	rows.Close()
	return rows.Err()
}
