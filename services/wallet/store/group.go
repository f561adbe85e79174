package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/telemetry"
)

// GroupCommit sets how the store batches concurrent requests (Idempotent)
// into shared transactions: group commit. On a durable PostgreSQL every
// commit waits for its WAL flush, so one request per transaction caps the
// wallet at about one request per flush (fewer where requests share a
// row, like the cage's account, whose lock each holds through its flush);
// a batch of requests in one transaction pays one flush for all of them
// and holds its rows' locks once. Each request still runs alone in a
// savepoint of its own, with its own idempotency key, checks, result and
// error: a refused request is rolled back to its savepoint and the others
// go on. Every caller is answered only once the batch has committed, so no
// answer rests on writes that might still be lost.
//
// Requests name a lane (Request.Lane: a table, the cage, an event); each
// lane is served by one of Committers committers, which runs one batch at
// a time on its own connection, so requests that touch the same rows
// batch together instead of waiting for each other's commit, and the
// committers run side by side on the others. No request waits for a batch
// to fill: a committer takes whatever its lanes have queued when it starts
// (at most MaxBatch), so a quiet wallet runs each request alone and a busy
// one batches more the busier it is.
type GroupCommit struct {
	// MaxBatch is the most requests one transaction carries; 0 means
	// DefaultMaxBatch.
	MaxBatch int
	// Committers is how many batches may run at once, each on its own
	// connection; 0 means DefaultCommitters. SQLite has one.
	Committers int
}

// Group commit defaults.
const (
	// DefaultMaxBatch keeps a batch within the 64 subtransaction IDs
	// PostgreSQL caches per transaction: each request is a savepoint that
	// writes, and past 64 every other session's snapshot has to look
	// subtransactions up on disk (pg_subtrans).
	DefaultMaxBatch = 64
	// DefaultCommitters is two: a committer takes only what queued
	// while its last batch ran, so the more committers the smaller the
	// batches (24 buy-ins in flight made 1.65 per commit over eight, 5.6
	// over two), and each commit is round trips and a flush that cost the
	// database CPU. Measured on 2 cores (docs/CAPACITY.md, 2026-12-02):
	// two committers gave more buy-ins/s than eight (874 and 1,081
	// against 683 and 876) with a third less PostgreSQL CPU. The rest of
	// the wallet's pool (16) serves reads and the unbatched writes.
	DefaultCommitters = 2
)

// errPipelineRefused stands for the failed pipeline of a batch that then
// runs straight in savepoints.
var errPipelineRefused = errors.New("pipeline refused")

// groupAttempts bounds how often a request refused by a transient
// conflict (a deadlock with another committer's or process's transaction)
// is run again in a later batch.
const groupAttempts = 10

// groupTimeout bounds one batch, so that it ends even if the database
// stops answering (each caller stops waiting at its own deadline).
const groupTimeout = time.Minute

// group is the store's group committer: callers queue their requests on
// their lane's committer, which runs them in batches (a goroutine started
// when requests wait, ending when none do).
type group struct {
	store      *Store
	maxBatch   int
	committers []*committer
	// queued, when set (tests), is told each time a request is queued,
	// with the number of requests then waiting for its committer.
	queued func(waiting int)

	batches, requests atomic.Int64
	// pipelined counts the requests committed by a pipeline,
	// pipelineFailures the pipelines that did not commit.
	pipelined, pipelineFailures atomic.Int64
}

// committer runs the batches of the lanes hashed to it, one at a time.
type committer struct {
	mu      sync.Mutex
	queue   []*groupCall
	running bool
}

// groupCall is one request waiting for, or running in, a batch.
type groupCall struct {
	ctx context.Context
	now time.Time
	fn  func(tx *Tx) error
	// exclusive, when set, lets the request be pipelined (Request.Exclusive,
	// with its idempotency key).
	exclusive []string
	attempts  int
	// state is queued, taken (by a batch) or abandoned (the caller left
	// before a batch took it); guarded by its committer's mu.
	state callState
	err   error
	done  chan struct{}
}

type callState int

const (
	queued callState = iota
	taken
	abandoned
)

// NewGrouped returns a store over an opened and migrated database whose
// idempotent requests are group-committed (see GroupCommit).
func NewGrouped(db *sqlstore.DB, cfg GroupCommit) *Store {
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = DefaultMaxBatch
	}
	if cfg.Committers <= 0 {
		cfg.Committers = DefaultCommitters
	}
	if db.Dialect() == sqlstore.SQLite {
		// SQLite runs one writer at a time: a second committer would
		// only wait for the first one's lock.
		cfg.Committers = 1
	}
	s := New(db)
	g := &group{store: s, maxBatch: cfg.MaxBatch, committers: make([]*committer, cfg.Committers)}
	for i := range g.committers {
		g.committers[i] = &committer{}
	}
	s.group = g
	return s
}

// GroupStats are what the group committer did so far.
type GroupStats struct {
	// Batches is the number of batch transactions committed.
	Batches int64
	// Requests is the number of requests those batches carried (refused
	// ones included).
	Requests int64
	// Pipelined is how many of those requests were committed by a
	// pipelined transaction (GroupCommit's pipeline), and PipelineFailures
	// how many pipelined transactions failed and left their batch to run
	// the ordinary way.
	Pipelined, PipelineFailures int64
}

// OnQueued makes a grouped store call f each time a request is queued,
// with the number then waiting for its committer: tests that need
// requests in one batch (behind one that holds the committer) wait for
// them with it. Set it before any request is made.
func (s *Store) OnQueued(f func(waiting int)) { s.group.queued = f }

// GroupStats reports the group committer's counts (zero when the store
// does not group).
func (s *Store) GroupStats() GroupStats {
	if s.group == nil {
		return GroupStats{}
	}
	return GroupStats{Batches: s.group.batches.Load(), Requests: s.group.requests.Load(),
		Pipelined: s.group.pipelined.Load(), PipelineFailures: s.group.pipelineFailures.Load()}
}

// write runs fn in a read-write transaction: a batch's when the store
// groups (pipelined with the batch's other requests when exclusive names
// what it reads: Request.Exclusive), else one of its own.
func (s *Store) write(ctx context.Context, lane string, exclusive []string, now time.Time, fn func(tx *Tx) error) error {
	if s.group == nil {
		return s.update(ctx, now, fn)
	}
	return s.group.do(ctx, lane, exclusive, now, fn)
}

// do queues fn on its lane's committer and waits for its batch to commit.
// A caller whose context ends first returns at once: before a batch took
// its request, the request never runs; after, it may still commit with
// its batch (as a request whose caller timed out during COMMIT may).
func (g *group) do(ctx context.Context, lane string, exclusive []string, now time.Time, fn func(tx *Tx) error) error {
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	h := fnv.New32a()
	h.Write([]byte(lane))
	cm := g.committers[h.Sum32()%uint32(len(g.committers))]
	c := &groupCall{ctx: ctx, now: now, fn: fn, exclusive: exclusive, done: make(chan struct{})}
	g.enqueue(cm, c)
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
	}
	cm.mu.Lock()
	state := c.state
	if state == queued {
		c.state = abandoned
	}
	cm.mu.Unlock()
	if state == queued {
		return context.Cause(ctx)
	}
	return fmt.Errorf("%w (the request was in a batch being committed: it may have committed)", context.Cause(ctx))
}

// enqueue queues c and starts the committer's goroutine unless it runs.
func (g *group) enqueue(cm *committer, c *groupCall) {
	cm.mu.Lock()
	cm.queue = append(cm.queue, c)
	waiting := len(cm.queue)
	if !cm.running {
		cm.running = true
		go g.lead(cm)
	}
	hook := g.queued
	cm.mu.Unlock()
	if hook != nil {
		hook(waiting)
	}
}

// lead runs the committer's batches until no request waits.
func (g *group) lead(cm *committer) {
	for {
		batch := g.take(cm)
		if batch == nil {
			return
		}
		if again := g.run(batch); len(again) > 0 {
			cm.mu.Lock()
			for _, c := range again {
				c.state = queued
			}
			// Ahead of the requests that came later, as they were before.
			cm.queue = append(again, cm.queue...)
			cm.mu.Unlock()
		}
	}
}

// take removes up to MaxBatch waiting requests from the committer's
// queue, or, when none waits, stops the committer and returns nil.
func (g *group) take(cm *committer) []*groupCall {
	cm.mu.Lock()
	defer cm.mu.Unlock()
	var batch []*groupCall
	n := 0
	for ; n < len(cm.queue) && len(batch) < g.maxBatch; n++ {
		c := cm.queue[n]
		cm.queue[n] = nil
		if c.state == abandoned {
			continue
		}
		c.state = taken
		batch = append(batch, c)
	}
	cm.queue = cm.queue[n:]
	if len(cm.queue) == 0 {
		cm.queue = nil // let the backing array go
	}
	if len(batch) == 0 {
		cm.running = false
	}
	return batch
}

// run runs a batch in one transaction and answers every request once
// the outcome is known, except those refused by a transient conflict (a
// deadlock), which it returns to be queued again for a later batch.
//
// On PostgreSQL it first pipelines the requests that allow it
// (Request.Exclusive) in a transaction of their own (pipeline); when that
// commits, they are answered and the rest of the batch runs as below.
// When it does not, the whole batch runs as below, straight in savepoints:
// what failed the pipeline (mostly a request refused) would most likely
// fail a run without them too.
//
// It then runs the requests one after another without savepoints, which
// cost a round trip each: when all succeed, as they mostly do, that is
// the batch. When one fails, the transaction is rolled back and the batch
// runs again with each request in its own savepoint, so the failure is
// that request's alone. A batch of one needs no savepoint at all: its
// transaction is its own.
func (g *group) run(batch []*groupCall) (again []*groupCall) {
	ctx, cancel := context.WithTimeout(context.Background(), groupTimeout)
	defer cancel()
	requests := make([]context.Context, len(batch))
	for i, c := range batch {
		requests[i] = c.ctx
	}
	ctx, span := telemetry.Batch(ctx, "wallet transfers group commit", requests)
	defer span.End()
	batch, refused := g.pipeline(ctx, batch)
	if len(batch) == 0 {
		return nil
	}
	opts := sqlstore.TxOptions{Isolation: sql.LevelReadCommitted}
	if len(batch) == 1 {
		g.runAlone(ctx, opts, batch[0])
		return nil
	}
	errs := make([]error, len(batch))
	// runAll runs the requests in tx, each by within, and stops at the
	// first error within returns.
	runAll := func(tx *sqlstore.Tx, within func(c *groupCall, i int) error) error {
		clear(errs)
		for i, c := range batch {
			if err := c.ctx.Err(); err != nil {
				errs[i] = context.Cause(c.ctx) // its caller has gone
				continue
			}
			if err := within(c, i); err != nil {
				return err
			}
		}
		return nil
	}
	fn := func(c *groupCall) func(*sqlstore.Tx) error {
		return func(sub *sqlstore.Tx) error { return c.fn(&Tx{tx: sub, now: c.now, store: g.store}) }
	}
	err := errPipelineRefused
	if !refused {
		err = g.store.db.TxWith(ctx, opts, func(tx *sqlstore.Tx) error {
			return runAll(tx, func(c *groupCall, i int) error { return tx.Within(fn(c)) })
		})
	}
	if err != nil {
		// One request failed (or the commit did): again, each request
		// in a savepoint, every failure its own request's.
		err = g.store.db.TxWith(ctx, opts, func(tx *sqlstore.Tx) error {
			return runAll(tx, func(c *groupCall, i int) error {
				errs[i] = tx.Savepoint(ctx, fn(c))
				if spErr, ok := errors.AsType[*sqlstore.SavepointError](errs[i]); ok {
					return spErr // the transaction itself failed
				}
				return nil
			})
		})
	}
	if err == nil {
		g.batches.Add(1)
		g.requests.Add(int64(len(batch)))
	}
	for i, c := range batch {
		switch {
		case err != nil:
			c.err = fmt.Errorf("group commit of %d requests: %w", len(batch), err)
		case sqlstore.Retryable(errs[i]) && c.attempts+1 < groupAttempts:
			c.attempts++
			again = append(again, c)
			continue
		default:
			c.err = errs[i]
		}
		close(c.done)
	}
	return again
}

// runAlone runs a batch of one request, which needs no savepoint: its
// transaction is its own.
func (g *group) runAlone(ctx context.Context, opts sqlstore.TxOptions, c *groupCall) {
	c.err = context.Cause(c.ctx) // nil unless its caller has gone
	if c.err == nil {
		// TxWith runs it again after a conflict, as a transaction of its
		// own would be.
		c.err = g.store.db.TxWith(ctx, opts, func(tx *sqlstore.Tx) error {
			return tx.Within(func(sub *sqlstore.Tx) error { return c.fn(&Tx{tx: sub, now: c.now, store: g.store}) })
		})
		if c.err == nil {
			g.batches.Add(1)
			g.requests.Add(1)
		}
	}
	close(c.done)
}

// pipeline runs the batch's requests that allow it (exclusive set, no
// exclusive name shared with another one taken, caller still waiting) as
// one pipelined transaction (sqlstore.DB.Pipeline): a batch of n buy-ins
// is three round trips — BEGIN with every request's first statement,
// their second statements, COMMIT — where running them in turn costs two
// per request. The requests' statements interleave, which is the same as
// running them in turn since none reads what another writes: each names
// what it reads that another request may write (the player's account, its
// idempotency key) and no two taken share a name. When the transaction
// commits, the requests taken are answered and the others returned; when
// anything fails (a refusal, a statement that cannot be pipelined, a
// conflict), nothing of it is kept and the whole batch is returned, to run
// the ordinary way, where each request's outcome is its own.
func (g *group) pipeline(ctx context.Context, batch []*groupCall) (rest []*groupCall, failed bool) {
	if g.store.db.Dialect() != sqlstore.Postgres {
		return batch, false
	}
	var taken []*groupCall
	names := make(map[string]bool)
	for _, c := range batch {
		if len(c.exclusive) == 0 || c.ctx.Err() != nil || slices.ContainsFunc(c.exclusive, func(n string) bool { return names[n] }) {
			rest = append(rest, c)
			continue
		}
		for _, n := range c.exclusive {
			names[n] = true
		}
		taken = append(taken, c)
	}
	if len(taken) == 0 {
		return batch, false
	}
	order := make([]string, len(taken))
	fns := make([]func(*sqlstore.Tx) error, len(taken))
	for i, c := range taken {
		order[i] = c.exclusive[0]
		fns[i] = func(tx *sqlstore.Tx) error { return c.fn(&Tx{tx: tx, now: c.now, store: g.store}) }
	}
	if err := g.store.db.Pipeline(ctx, order, fns); err != nil {
		g.pipelineFailures.Add(1)
		return batch, true
	}
	g.batches.Add(1)
	g.requests.Add(int64(len(taken)))
	g.pipelined.Add(int64(len(taken)))
	for _, c := range taken {
		c.err = nil
		close(c.done)
	}
	return rest, false
}
