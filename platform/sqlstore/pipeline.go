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
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
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
// send too. There it does not wait for the statement's round: it returns
// nil at once, the statement goes with the round of the fn's next
// statement that waits (or with the COMMIT), and if it fails the whole
// pipeline fails and is rolled back — so a caller that must know a
// statement's outcome before it goes on uses Query.
func (t *Tx) Exec(ctx context.Context, query string, args ...any) error {
	if t.pipe != nil {
		t.pipe.steps <- pipeStep{index: t.pipe.index, query: query, args: args, scan: ignoreRows, async: true}
		return nil
	}
	_, err := t.tx.ExecContext(t.ctx(ctx), query, args...)
	return err
}

// ignoreRows is the scan of a statement whose rows nobody reads.
func ignoreRows(Rows) error { return nil }

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

// Merge lets a pipeline send a round's statements of one shape as one
// statement (Tx.QueryMerged): every statement costs PostgreSQL its
// executor's start, its constraints and triggers set up and its
// protocol messages, whatever the rows it writes, so n statements that
// each insert one row into a table cost several times one that inserts
// the n rows.
type Merge struct {
	// Key names the shape: a round's statements with the same Key are
	// merged. Their arguments must be laid out alike.
	Key string
	// Statement returns the one statement that does what the parts do
	// (each a statement's arguments, in the order the round sends them:
	// it must have the same effects as running them in that order) and
	// its arguments, or ok false to send the parts one by one. Each row it
	// returns begins with the index of the part it belongs to (an
	// integer), followed by the columns the part's own statement returns:
	// the part's scan reads those.
	Statement func(parts [][]any) (query string, args []any, ok bool)
}

// QueryMerged is Query for a statement that a pipeline may merge with
// the others of its round that have m's shape (Merge): outside a
// pipeline, and in a round where no other statement has the shape, it
// runs query with args as Query does.
func (t *Tx) QueryMerged(ctx context.Context, query string, args []any, m *Merge, scan func(Rows) error) error {
	if t.pipe != nil {
		return t.pipe.sendStep(pipeStep{query: query, args: args, scan: scan, merge: m})
	}
	return t.Query(ctx, query, args, scan)
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
// Only Query, QueryMerged and Exec send a statement; any other
// (ExecContext, QueryContext) fails with ErrNotPipelined. The statements
// Exec sends do not wait for their round, so a fn's statements that read
// nothing go in one round; when the last round holds only those, the
// COMMIT goes with it. When any fn or statement fails, or the
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
	// merge, when set, lets the round send the statement merged with
	// others of its shape (Tx.QueryMerged).
	merge *Merge
	// async is a statement sent by Exec, which nobody waits for: a
	// failure fails the pipeline.
	async bool
	reply chan error
	done  bool
	err   error
}

func (p *pipe) send(query string, args []any, scan func(Rows) error) error {
	return p.sendStep(pipeStep{query: query, args: args, scan: scan})
}

func (p *pipe) sendStep(s pipeStep) error {
	s.index, s.reply = p.index, make(chan error, 1)
	p.steps <- s
	return <-s.reply
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
	began, committed := false, false
	for active := len(fns); active > 0; {
		var round []pipeStep
		round, active = gather(steps, active, func(err error) { failure = cmp.Or(failure, err) })
		if len(round) == 0 {
			continue
		}
		if failure != nil {
			for _, s := range round {
				if !s.async {
					s.reply <- errPipelineFailed
				}
			}
			continue
		}
		// Every fn has ended: nothing can follow this round, so the
		// COMMIT goes with it (a failed statement before it makes the
		// server skip it, and the transaction is rolled back below).
		commit := active == 0
		b, sends := roundBatch(round, order, begin, !began, commit)
		failure = sendRound(ctx, pc, b, !began, commit, sends)
		began, committed = true, commit && failure == nil
	}
	if !began {
		return nil, failure
	}
	if err := endPipeline(ctx, pc, failure, committed); err != nil {
		return nil, err
	}
	return txs, nil
}

// roundBatch lays a round out as one batch: BEGIN first when begin is
// due, the statements in the order of order (stable: a fn's keep the order
// it sent them in), merged where they may be, and COMMIT last when commit.
func roundBatch(round []pipeStep, order []string, begin string, withBegin, commit bool) (*pgx.Batch, []send) {
	slices.SortStableFunc(round, func(a, b pipeStep) int {
		return cmp.Or(cmp.Compare(order[a.index], order[b.index]), cmp.Compare(a.index, b.index))
	})
	b := &pgx.Batch{}
	if withBegin {
		b.Queue(begin)
	}
	sends := merged(round)
	for _, s := range sends {
		b.Queue(s.query, s.args...)
	}
	if commit {
		b.Queue("COMMIT")
	}
	return b, sends
}

// endPipeline ends the transaction: rolls it back after a failure (and
// returns the failure), or commits it unless its last round did.
func endPipeline(ctx context.Context, pc *pgx.Conn, failure error, committed bool) error {
	if failure != nil {
		if _, err := pc.Exec(ctx, "ROLLBACK"); err != nil {
			// The connection's state is unknown: drop it from the pool.
			_ = pc.Close(context.WithoutCancel(ctx))
		}
		return failure
	}
	if committed {
		return nil
	}
	if _, err := pc.Exec(ctx, "COMMIT"); err != nil {
		if pc.PgConn().TxStatus() != 'I' {
			_ = pc.Close(context.WithoutCancel(ctx))
		}
		return fmt.Errorf("pipeline commit: %w", err)
	}
	return nil
}

// gather waits until each of the active fns has sent its next statement
// that waits for its round, or ended, and returns the statements (with
// those sent by Exec on the way) and how many fns are still running; fail
// is told each error a fn ended with.
func gather(steps <-chan pipeStep, active int, fail func(error)) ([]pipeStep, int) {
	var round []pipeStep
	for waiting := active; waiting > 0; waiting-- {
		s := <-steps
		if s.async {
			round = append(round, s)
			waiting++ // the fn goes on: its next step is still to come
			continue
		}
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

// send is one statement of a round's batch: one fn's, or the merged
// statement of several (parts, in the round's order).
type send struct {
	query string
	args  []any
	parts []pipeStep
}

// merged lays a round's statements out as the batch sends them: each
// alone, except those of one Merge shape, which go as one statement
// where the first of them stood (or one by one there, when the Merge
// declines them).
func merged(round []pipeStep) []send {
	var groups []send
	at := make(map[string]int) // a shape's place in groups
	for _, s := range round {
		if s.merge != nil {
			if i, ok := at[s.merge.Key]; ok {
				groups[i].parts = append(groups[i].parts, s)
				continue
			}
			at[s.merge.Key] = len(groups)
		}
		groups = append(groups, send{query: s.query, args: s.args, parts: []pipeStep{s}})
	}
	sends := make([]send, 0, len(groups))
	for _, g := range groups {
		if len(g.parts) > 1 {
			args := make([][]any, len(g.parts))
			for j, p := range g.parts {
				args[j] = p.args
			}
			if q, a, ok := g.parts[0].merge.Statement(args); ok {
				sends = append(sends, send{query: q, args: a, parts: g.parts})
				continue
			}
		}
		for _, p := range g.parts {
			sends = append(sends, send{query: p.query, args: p.args, parts: []pipeStep{p}})
		}
	}
	return sends
}

// sendRound sends one round's batch (BEGIN first when withBegin, COMMIT
// last when withCommit), hands each statement's rows to its scan and
// answers its fn (not Exec's, which nobody waits for). It returns the
// round's first failure.
func sendRound(ctx context.Context, pc *pgx.Conn, b *pgx.Batch, withBegin, withCommit bool, sends []send) error {
	br := pc.SendBatch(ctx, b)
	var first error
	if withBegin {
		if _, err := br.Exec(); err != nil {
			first = fmt.Errorf("pipeline begin: %w", err)
		}
	}
	for _, snd := range sends {
		errs := make([]error, len(snd.parts))
		if first == nil {
			if len(snd.parts) == 1 {
				errs[0] = scanResult(br, snd.parts[0].scan)
			} else {
				errs = scanMerged(br, pc.TypeMap(), snd.parts)
			}
		}
		for i, s := range snd.parts {
			err := cmp.Or(first, errs[i])
			if err != nil && first == nil {
				first = err
			}
			if !s.async {
				s.reply <- err
			}
		}
	}
	if withCommit && first == nil {
		if tag, err := br.Exec(); err != nil || tag.String() != "COMMIT" {
			first = fmt.Errorf("pipeline commit (%s): %w", tag, cmp.Or(err, errors.New("not committed")))
		}
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

// scanMerged reads the batch's next result, a merged statement's
// (Merge), and hands each part the rows that name it, without the name.
// It returns each part's error.
func scanMerged(br pgx.BatchResults, types *pgtype.Map, parts []pipeStep) []error {
	errs := make([]error, len(parts))
	fail := func(err error) []error {
		for i := range errs {
			errs[i] = err
		}
		return errs
	}
	rows, err := br.Query()
	if err != nil {
		return fail(err)
	}
	defer rows.Close()
	// Copied: the connection reuses them for its next result.
	fields := slices.Clone(rows.FieldDescriptions())
	byPart := make([][][][]byte, len(parts))
	for rows.Next() {
		raw := rows.RawValues()
		if len(fields) == 0 || len(raw) != len(fields) {
			return fail(fmt.Errorf("merged statement: a row of %d columns", len(raw)))
		}
		var part int64
		if err := types.Scan(fields[0].DataTypeOID, fields[0].Format, raw[0], &part); err != nil {
			return fail(fmt.Errorf("merged statement: the part of a row: %w", err))
		}
		if part < 0 || part >= int64(len(parts)) {
			return fail(fmt.Errorf("merged statement: a row of part %d of %d", part, len(parts)))
		}
		row := make([][]byte, len(raw)-1)
		for i, v := range raw[1:] {
			if v != nil {
				row[i] = append([]byte{}, v...)
			}
		}
		byPart[part] = append(byPart[part], row)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	if len(fields) > 0 {
		fields = fields[1:]
	}
	for i, p := range parts {
		errs[i] = p.scan(&bufferedRows{types: types, fields: fields, rows: byPart[i], at: -1})
	}
	return errs
}

// bufferedRows are the rows of one part of a merged statement, read
// already.
type bufferedRows struct {
	types  *pgtype.Map
	fields []pgconn.FieldDescription
	rows   [][][]byte
	at     int
}

func (r *bufferedRows) Next() bool {
	r.at++
	return r.at < len(r.rows)
}

func (r *bufferedRows) Scan(dest ...any) error {
	if r.at < 0 || r.at >= len(r.rows) {
		return errors.New("merged statement: scan without a row")
	}
	if len(dest) != len(r.fields) {
		return fmt.Errorf("merged statement: %d columns scanned into %d values", len(r.fields), len(dest))
	}
	for i, d := range dest {
		if err := r.types.Scan(r.fields[i].DataTypeOID, r.fields[i].Format, r.rows[r.at][i], d); err != nil {
			return fmt.Errorf("merged statement: column %s: %w", r.fields[i].Name, err)
		}
	}
	return nil
}

func (r *bufferedRows) Err() error { return nil }
