package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/telemetry"
)

// StateSave is one table's state write: what SaveStateNow takes, and
// what the change also wrote.
type StateSave struct {
	Fence  sqlstore.Fence
	State  State
	Closed bool
	// Also, when set, writes what the change caused besides the table row
	// (a hand's history, its events, cash-outs, rulings) in the same
	// transaction as the state, behind the state's fenced write; nothing
	// it writes is kept for a table fenced out. Its statements are
	// detached from ctx's cancellation (sqlstore.Tx.Within) and it may run
	// more than once (a pipelined batch rolled back, a transaction run
	// again after a conflict, or the table written alone after its batch
	// failed).
	Also func(ctx context.Context, tx *sqlstore.Tx) error
	// Pipelinable says that Also sends its statements through Tx.Exec and
	// Tx.Query alone and reads nothing another table's Also writes, so
	// that it may run in a pipelined transaction (sqlstore.DB.Pipeline)
	// beside the other hand ends of its batch.
	Pipelinable bool
}

// SaveStates writes several tables' play states at once, each under its
// own fence, and returns one error per save: nil, or one wrapping
// sqlstore.ErrFencedOut when that table's epoch has moved on (the others
// are written all the same). err is set instead when the write as a
// whole failed, and then nothing was written. No two saves may name the
// same table.
//
// On PostgreSQL it is one UPDATE statement outside any transaction: one
// round trip, one commit and one WAL flush for every table in it; when a
// save has Also, the UPDATE and every written table's Also run in one
// transaction (one commit, one flush for all of them), and an Also that
// fails fails the whole write. On SQLite it is one transaction with a
// statement per table.
func (s *Store) SaveStates(ctx context.Context, saves []StateSave) (errs []error, err error) {
	seen := make(map[string]bool, len(saves))
	also, pipelinable := false, true
	for _, sv := range saves {
		if seen[sv.Fence.ID] {
			return nil, fmt.Errorf("save table states: table %s twice", sv.Fence.ID)
		}
		seen[sv.Fence.ID] = true
		also = also || sv.Also != nil
		pipelinable = pipelinable && (sv.Also == nil || sv.Pipelinable)
	}
	switch {
	case s.db.Dialect() != sqlstore.Postgres:
		return s.saveStatesTx(ctx, saves)
	case !also:
		return s.updateStates(ctx, s.db, saves)
	case pipelinable:
		if errs, err := s.saveStatesPipelined(ctx, saves); err == nil {
			return errs, nil
		}
		// The pipeline was rolled back whole (a statement refused, or
		// one it cannot send): the same again in turn, where the caller
		// learns whether the batch as a whole fails.
	}
	return s.saveStatesTx(ctx, saves)
}

// saveStatesPipelined is SaveStates of pipelinable saves on PostgreSQL as one
// pipelined transaction (sqlstore.DB.Pipeline). The plain saves' UPDATE
// is a query whose answer tells which tables were fenced out. A hand end
// waits for no answer: its fenced UPDATE fails when the fence does not
// hold (updateStateHeld) and is sent with everything the hand end writes
// (its history, events, next deck: Tx.Exec). A batch of hand ends alone
// — what StateGroup sends — is then one round trip, BEGIN to COMMIT, where
// in turn it is 3k + 3; with plain saves beside them the COMMIT goes in a
// second. The hand ends touch only their own table's rows (the table
// row, its hands, decks and outbox rows), so interleaving them is the
// same as running them in turn. It fails, having written nothing, when
// any statement fails or cannot be pipelined — a hand end fenced out
// among them — and SaveStates then writes the batch in turn, where each
// table learns its own outcome.
func (s *Store) saveStatesPipelined(ctx context.Context, saves []StateSave) ([]error, error) {
	errs := make([]error, len(saves))
	var plain []int
	order := []string{""} // the plain saves' UPDATE first, then by table: the order rows are locked in
	fns := []func(tx *sqlstore.Tx) error{func(tx *sqlstore.Tx) error {
		if len(plain) == 0 {
			return nil
		}
		batch := make([]StateSave, len(plain))
		for j, i := range plain {
			batch[j] = saves[i]
		}
		written, err := s.updateStates(ctx, tx, batch)
		if err != nil {
			return err
		}
		for j, i := range plain {
			errs[i] = written[j]
		}
		return nil
	}}
	for i, sv := range saves {
		if sv.Also == nil {
			plain = append(plain, i)
			continue
		}
		order = append(order, sv.Fence.ID)
		fns = append(fns, func(tx *sqlstore.Tx) error {
			if err := updateStateHeld(ctx, tx, sv); err != nil {
				return err
			}
			if err := sv.Also(ctx, tx); err != nil {
				return fmt.Errorf("table %s: %w", sv.Fence.ID, err)
			}
			return nil
		})
	}
	if err := s.db.Pipeline(ctx, order, fns); err != nil {
		return nil, fmt.Errorf("save %d table states pipelined: %w", len(saves), err)
	}
	return errs, nil
}

// updateStateHeld sends one table's fenced UPDATE in a pipelined
// transaction without waiting for its answer: the statement fails — and
// with it the transaction — when the table's epoch has moved on
// (fence_held, migration 00012), since its row count would come back only
// after the COMMIT sent behind it.
func updateStateHeld(ctx context.Context, tx *sqlstore.Tx, sv StateSave) error {
	return tx.Exec(ctx, `WITH saved AS (UPDATE tables SET `+stateSet+` WHERE id = $6 AND epoch = $7 RETURNING id)
		SELECT fence_held(count(*), $6) FROM saved`, append(stateArgs(sv.State, sv.Closed), sv.Fence.ID, sv.Fence.Epoch)...)
}

// rowQuerier runs a query and hands its rows to scan: the database itself
// (sqlstore.DB) or a transaction, pipelined or not (sqlstore.Tx).
type rowQuerier interface {
	Query(ctx context.Context, query string, args []any, scan func(sqlstore.Rows) error) error
}

// updateStates is SaveStates' fenced UPDATE of every table in saves on
// PostgreSQL, through q (the database, or a transaction).
func (s *Store) updateStates(ctx context.Context, q rowQuerier, saves []StateSave) ([]error, error) {
	n := len(saves)
	saved := make(map[string]bool, n)
	query, args := stateUpdate(saves)
	err := q.Query(ctx, query, args, func(rows sqlstore.Rows) error {
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			saved[id] = true
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("save %d table states: %w", n, err)
	}
	errs := make([]error, n)
	for i, sv := range saves {
		if !saved[sv.Fence.ID] {
			errs[i] = fmt.Errorf("save table %s state: %w", sv.Fence.ID, sqlstore.ErrFencedOut)
		}
	}
	return errs, nil
}

// stateUpdate is updateStates' statement and its arguments. unnest keeps
// the statement's text the same for every batch size, so its prepared
// form is reused. A batch of one — most batches when a room plays at a
// person's pace — is the plain fenced UPDATE instead, which PostgreSQL
// plans once per connection and keeps: the join over unnest it plans
// afresh on every run (its plan for an array of unknown length costs more
// than the one it makes for the array it is given), a sixth of the
// database's CPU at 1,000 paced tables (docs/CAPACITY.md, 2026-12-04).
func stateUpdate(saves []StateSave) (string, []any) {
	if len(saves) == 1 {
		sv := saves[0]
		return `UPDATE tables SET ` + stateSet + ` WHERE id = $6 AND epoch = $7 RETURNING id`,
			append(stateArgs(sv.State, sv.Closed), sv.Fence.ID, sv.Fence.Epoch)
	}
	n := len(saves)
	ids, epochs, states := make([]string, n), make([]int64, n), make([]string, n)
	hands, fixed, closing, closed := make([][]byte, n), make([][]byte, n), make([]bool, n), make([]bool, n)
	for i, sv := range saves {
		ids[i], epochs[i], states[i] = sv.Fence.ID, sv.Fence.Epoch, string(sv.State.Public)
		hands[i], fixed[i], closing[i], closed[i] = sv.State.Hand, sv.State.HandFixed, sv.State.Closing, sv.Closed
	}
	return `UPDATE tables AS t SET state = v.state, hand = v.hand, hand_fixed = v.hand_fixed, closing = v.closing, closed = v.closed
		FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bytea[], $5::bytea[], $6::boolean[], $7::boolean[])
			AS v (id, epoch, state, hand, hand_fixed, closing, closed)
		WHERE t.id = v.id AND t.epoch = v.epoch RETURNING t.id`, []any{ids, epochs, states, hands, fixed, closing, closed}
}

// saveStatesTx is SaveStates as one transaction: the states (one UPDATE
// on PostgreSQL, a statement per table on SQLite), then the Also of every
// table written.
func (s *Store) saveStatesTx(ctx context.Context, saves []StateSave) ([]error, error) {
	errs := make([]error, len(saves))
	err := s.db.TxWith(ctx, sqlstore.TxOptions{Isolation: sql.LevelReadCommitted}, func(tx *sqlstore.Tx) error {
		clear(errs)
		if s.db.Dialect() == sqlstore.Postgres {
			written, err := s.updateStates(ctx, tx, saves)
			if err != nil {
				return err
			}
			copy(errs, written)
		} else {
			for i, sv := range saves {
				err := s.SaveState(ctx, tx, sv.Fence, sv.State, sv.Closed)
				switch {
				case errors.Is(err, sqlstore.ErrFencedOut):
					errs[i] = err // a statement that touched no row: the transaction goes on
				case err != nil:
					return err
				}
			}
		}
		for i, sv := range saves {
			if errs[i] != nil || sv.Also == nil {
				continue
			}
			if err := tx.Within(func(tx *sqlstore.Tx) error { return sv.Also(ctx, tx) }); err != nil {
				return fmt.Errorf("table %s: %w", sv.Fence.ID, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("save %d table states: %w", len(saves), err)
	}
	return errs, nil
}

// SaveStateWith writes one table's state, and its Also in the same
// transaction, alone: SaveStateNow when it has no Also.
func (s *Store) SaveStateWith(ctx context.Context, sv StateSave) error {
	if sv.Also == nil {
		return s.SaveStateNow(ctx, sv.Fence, sv.State, sv.Closed)
	}
	return s.db.TxWith(ctx, sqlstore.TxOptions{Isolation: sql.LevelReadCommitted}, func(tx *sqlstore.Tx) error {
		if err := s.SaveState(ctx, tx, sv.Fence, sv.State, sv.Closed); err != nil {
			return err
		}
		return sv.Also(ctx, tx)
	})
}

// StateGroup group-commits the state writes of plain actions: concurrent
// tables' writes queue, and a committer writes whatever has queued with
// one SaveStates (one statement, one commit, one WAL flush on
// PostgreSQL) instead of one commit and one flush per table. Each table
// keeps its own fence and its own answer: a table fenced out gets
// ErrFencedOut while the others in its batch are written. No write waits
// for a batch to fill: a committer takes what queued while the last batch
// ran, so a quiet service writes each alone and a busy one batches more
// the busier it is. A committer that finds nothing queued waits a while
// (committerLinger) before it stops: a room acting a few times a second
// per committer then never starts one per write, each growing a new
// goroutine's stack through the database driver again.
type StateGroup struct {
	store      *Store
	maxBatch   int
	committers int

	mu      sync.Mutex
	queue   []*stateCall
	running int // committers, idle ones included
	idle    int // committers waiting for a write
	// wake tells an idle committer that a write queued.
	wake chan struct{}

	batches, saves atomic.Int64
}

// State group defaults.
const (
	// DefaultStateBatch is the most table states one write carries.
	DefaultStateBatch = 64
	// DefaultStateCommitters is how many batches run at once, each on a
	// connection of its own: few, so that the pool (24 for the table
	// service) keeps connections for sit-downs and reads, and so that the
	// database flushes its WAL for fewer, larger commits. Against a
	// 2-core PostgreSQL, 2 gave a lower paced p99 than 4 (about 17 ms
	// against 25 at 1,000 tables) and 5-8 % more actions flat out
	// (docs/CAPACITY.md, 2026-12-04): concurrent commits wait on one
	// another's WAL flush and on the database's cores.
	DefaultStateCommitters = 2
	// stateGroupTimeout bounds one batch, so that it ends even if the
	// database stops answering.
	stateGroupTimeout = time.Minute
	// committerLinger is how long a committer with nothing to write waits
	// for a write before it stops.
	committerLinger = time.Second
)

// stateCall is one table's write waiting for, or running in, a batch.
type stateCall struct {
	ctx   context.Context
	save  StateSave
	taken bool // guarded by the group's mu
	gone  bool // the caller left before a batch took it; guarded by mu
	err   error
	done  chan struct{}
}

// NewStateGroup returns a group committer of table states over s, with
// at most maxBatch states per write and committers writes at once (0:
// the defaults; SQLite has one committer, as it has one writer).
func NewStateGroup(s *Store, maxBatch, committers int) *StateGroup {
	if maxBatch <= 0 {
		maxBatch = DefaultStateBatch
	}
	if committers <= 0 {
		committers = DefaultStateCommitters
	}
	if s.db.Dialect() != sqlstore.Postgres {
		committers = 1
	}
	return &StateGroup{store: s, maxBatch: maxBatch, committers: committers, wake: make(chan struct{}, committers)}
}

// StateGroupStats are what a StateGroup did so far.
type StateGroupStats struct {
	// Batches is the number of writes (commits) made.
	Batches int64
	// Saves is the number of table states they carried (fenced-out
	// ones included).
	Saves int64
}

// Stats reports the group's counts.
func (g *StateGroup) Stats() StateGroupStats {
	return StateGroupStats{Batches: g.batches.Load(), Saves: g.saves.Load()}
}

// Save writes a table's play state under its fence, as SaveStateNow does,
// in the next batch, and waits for that batch. The write itself does not
// end with ctx: a caller whose ctx ends before a batch took its write
// returns at once and the write never happens; one whose write was taken
// waits for the outcome, so that whether the state was stored is always
// known when Save returns a nil or fencing error. (Callers that must
// not wait, such as a table that lost its lease, get ctx's cause and the
// write may still commit — harmlessly, since a new owner's claim either
// sees it or fences it out.)
func (g *StateGroup) Save(ctx context.Context, f sqlstore.Fence, st State, closed bool) error {
	return g.SaveWith(ctx, StateSave{Fence: f, State: st, Closed: closed})
}

// SaveWith is Save of a StateSave whose Also (a hand's end: its history,
// events, the next deck) is written in the batch's transaction, so that
// hands ending at several tables, and the plain actions written with them,
// share one commit. A batch that fails as a whole (an Also refused) is
// written again table by table, each with its Also in a transaction of
// its own, so a refusal is its own table's alone.
func (g *StateGroup) SaveWith(ctx context.Context, sv StateSave) error {
	f := sv.Fence
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("save table %s state: %w", f.ID, context.Cause(ctx))
	}
	c := &stateCall{ctx: ctx, save: sv, done: make(chan struct{})}
	g.mu.Lock()
	g.queue = append(g.queue, c)
	g.kick()
	g.mu.Unlock()
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
	}
	g.mu.Lock()
	taken := c.taken
	c.gone = !taken
	g.mu.Unlock()
	if !taken {
		return fmt.Errorf("save table %s state: %w", f.ID, context.Cause(ctx))
	}
	return fmt.Errorf("save table %s state: %w (the write was in a batch being committed: it may have committed)", f.ID, context.Cause(ctx))
}

// kick gets a committer to the queue: an idle one woken, or a new one
// while fewer than committers run. The caller holds g.mu.
func (g *StateGroup) kick() {
	switch {
	case g.idle > 0:
		select {
		case g.wake <- struct{}{}:
		default: // a wake-up is pending already
		}
	case g.running < g.committers:
		g.running++
		go g.lead()
	}
}

// lead runs batches, and stops when no write has queued for
// committerLinger.
func (g *StateGroup) lead() {
	linger := time.NewTimer(committerLinger)
	defer linger.Stop()
	for {
		if batch := g.take(); batch != nil {
			g.run(batch)
			continue
		}
		linger.Reset(committerLinger)
		select {
		case <-g.wake:
			g.mu.Lock()
			g.idle--
			g.mu.Unlock()
		case <-linger.C:
			if g.stop() {
				return
			}
		}
	}
}

// stop ends an idle committer unless a write queued meanwhile.
func (g *StateGroup) stop() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.idle--
	if len(g.queue) > 0 {
		return false
	}
	g.running--
	return true
}

// take removes up to maxBatch waiting writes of one kind from the queue —
// plain state writes, or writes with an Also (hand ends) — or, when none
// waits, counts this committer idle and returns nil. A batch of plain
// writes is one statement; one with hand ends is a transaction that writes
// several times more, and with a plain write in it the plain UPDATE's
// answer would be waited for before the COMMIT is sent. The other kind
// stays queued, in order, for the next batch, and another committer is
// woken or started for it when one is free.
func (g *StateGroup) take() []*stateCall {
	g.mu.Lock()
	defer g.mu.Unlock()
	var batch, left []*stateCall
	also := false
	for _, c := range g.queue {
		switch {
		case c.gone:
		case len(batch) == 0:
			also = c.save.Also != nil
			fallthrough
		case len(batch) < g.maxBatch && (c.save.Also != nil) == also:
			c.taken = true
			batch = append(batch, c)
		default:
			left = append(left, c)
		}
	}
	clear(g.queue)
	g.queue = left // nil when none is left: the old backing array goes
	switch {
	case len(batch) == 0:
		g.idle++
	case len(left) > 0:
		g.kick()
	}
	return batch
}

// run writes a batch and answers each caller. When the write as a whole
// fails, each state is written again alone, so that every table gets its
// own outcome (one table's bad write never fails the others).
func (g *StateGroup) run(batch []*stateCall) {
	ctx, cancel := context.WithTimeout(context.Background(), stateGroupTimeout)
	defer cancel()
	saves := make([]StateSave, len(batch))
	requests := make([]context.Context, len(batch))
	for i, c := range batch {
		saves[i], requests[i] = c.save, c.ctx
	}
	ctx, span := telemetry.Batch(ctx, "table states group commit", requests)
	defer span.End()
	errs, err := g.store.SaveStates(ctx, saves)
	if err == nil {
		g.batches.Add(1)
		g.saves.Add(int64(len(batch)))
	}
	for i, c := range batch {
		switch {
		case err == nil:
			c.err = errs[i]
		case len(batch) == 1:
			c.err = err
		default:
			c.err = g.store.SaveStateWith(ctx, c.save)
			if c.err == nil {
				g.batches.Add(1)
				g.saves.Add(1)
			}
		}
		close(c.done)
	}
}
