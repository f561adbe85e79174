// Package runner runs the tables this process owns: it claims each table
// (its lock plus a new SQL fencing epoch), keeps the table's dealer in
// memory, and makes every change durable before anyone hears of it — the
// table's state, its sealed hand and deck, finished hand histories and the
// outbox events of a change are written in one fenced transaction. It
// drives the action clock and the start of each hand from the injected
// clock, moves money through the wallet (buy-in hold → seat → commit;
// cash-out on leaving) as sagas recorded in SQL and retried until done, and
// streams each change to the table's watchers as they may see it.
package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/telemetry"
	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/seal"
	"github.com/cardroom/cardroom/services/table/store"
)

// LockKey is the lock that guards table id (the key lock.Claim uses for
// the row id of the tables table).
func LockKey(id string) string { return store.EntityTable + ":" + id }

// Deps is what a Runner needs.
type Deps struct {
	DB    *sqlstore.DB
	Store *store.Store
	// States group-commits the state writes of plain actions; nil means
	// store.NewStateGroup's defaults over Store.
	States *store.StateGroup
	Clock  clock.Clock
	Locker lock.Locker
	Relay  *events.Relay
	Sealer *seal.Sealer
	// Wallet moves buy-ins and cash-outs (NoMoney: chips appear and vanish
	// at the table).
	Wallet Wallet
	// Shuffle returns a freshly shuffled deck; nil shuffles with
	// crypto/rand (tests inject seeded decks).
	Shuffle func() cards.Deck
	// HandPause is the pause between the end of a hand and the deal of the
	// next; zero deals at once.
	HandPause time.Duration
	// ClaimWait is how long a request waits for a table whose lock another
	// process holds; default 2 s.
	ClaimWait time.Duration
	// AsyncActionCommit writes plain actions (no money, no hand end, no
	// event) with PostgreSQL's asynchronous commit (store.SaveStateAsync):
	// a database-server crash may lose the last few hundred ms of them.
	AsyncActionCommit bool
	// Logger receives background failures; never cards.
	Logger *slog.Logger
}

// ErrOwnedElsewhere is returned when another process holds a table.
var ErrOwnedElsewhere = fault.New(fault.Unavailable, "TABLE_OWNED_ELSEWHERE", "another process runs this table; retry")

// ErrClosed is returned for a closed table.
var ErrClosed = fault.New(fault.Precondition, "TABLE_CLOSED", "the table is closed")

// Runner runs tables.
type Runner struct {
	d      Deps
	ctx    context.Context // the runner's lifetime: leases and timers end with it
	cancel context.CancelFunc

	mu      sync.Mutex // guards tables and loading
	tables  map[string]*Table
	loading map[string]chan struct{} // closed when a claim in progress ends
}

// ErrNoWallet refuses a Runner without Deps.Wallet: every cash table's
// buy-in and cash-out goes through it (NoMoney for tables without money).
var ErrNoWallet = errors.New("table runner: no wallet (Deps.Wallet; runner.NoMoney moves no money)")

// New returns a Runner. Close it to release its tables.
func New(d Deps) (*Runner, error) {
	if d.Wallet == nil {
		return nil, ErrNoWallet
	}
	if d.Shuffle == nil {
		d.Shuffle = CryptoShuffle
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	d.ClaimWait = cmp.Or(d.ClaimWait, 2*time.Second)
	if d.States == nil && d.Store != nil {
		d.States = store.NewStateGroup(d.Store, 0, 0)
	}
	ctx, cancel := context.WithCancel(context.Background())
	telemetry.CountChipMismatches(ctx, "hand", 0) // the series exists at zero
	return &Runner{d: d, ctx: ctx, cancel: cancel, tables: map[string]*Table{}, loading: map[string]chan struct{}{}}, nil
}

// Run claims every open table it can, then every 5 s claims the open
// tables nobody runs (a crashed owner's lease has expired) and retries
// unfinished wallet steps; it returns when ctx ends, releasing every table.
func (r *Runner) Run(ctx context.Context) error {
	defer r.Close()
	for {
		r.claimOpen(ctx)
		r.recordWalletSteps(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(5 * time.Second):
			for _, t := range r.owned() {
				t.mu.Lock()
				t.retryMoney(t.r.ctx)
				t.schedule()
				t.mu.Unlock()
			}
		}
	}
}

// claimOpen claims the open tables this process does not run yet; tables
// another replica runs are skipped at once.
func (r *Runner) claimOpen(ctx context.Context) {
	ids, err := r.d.Store.OpenTables(ctx)
	if err != nil {
		r.d.Logger.WarnContext(ctx, "list open tables", "error", err)
		return
	}
	for _, id := range ids {
		r.mu.Lock()
		_, owned := r.tables[id]
		r.mu.Unlock()
		if owned {
			continue
		}
		if _, err := r.claim(ctx, id, false); err != nil && !errors.Is(err, ErrOwnedElsewhere) {
			r.d.Logger.WarnContext(ctx, "claim table", "table", id, "error", err)
		}
	}
}

func (r *Runner) owned() []*Table {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Collect(maps.Values(r.tables))
}

// Close stops every table's timers and releases their locks. The epochs
// stay: the next owner claims a higher one.
func (r *Runner) Close() {
	r.cancel()
	for _, t := range r.owned() {
		t.mu.Lock()
		t.stop(errors.New("runner closed"))
		t.mu.Unlock()
	}
}

// table returns the running table id, claiming it on first use (waiting
// up to ClaimWait for another owner to let go).
func (r *Runner) table(ctx context.Context, id string) (*Table, error) { return r.claim(ctx, id, true) }

func (r *Runner) claim(ctx context.Context, id string, wait bool) (*Table, error) {
	for {
		r.mu.Lock()
		if t := r.tables[id]; t != nil {
			r.mu.Unlock()
			return t, nil
		}
		if r.ctx.Err() != nil {
			r.mu.Unlock()
			return nil, fault.New(fault.Unavailable, "SHUTTING_DOWN", "the table service is stopping")
		}
		if ch := r.loading[id]; ch != nil {
			// Another request is claiming it: wait for that one.
			r.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		ch := make(chan struct{})
		r.loading[id] = ch
		r.mu.Unlock()

		t, err := r.load(ctx, id, wait)
		r.mu.Lock()
		delete(r.loading, id)
		if err == nil {
			r.tables[id] = t
		}
		r.mu.Unlock()
		close(ch)
		if err != nil {
			return nil, err
		}
		go func() {
			// A lost lease means another process may own the table now.
			<-t.lease.Context().Done()
			r.drop(t)
		}()
		t.mu.Lock()
		t.resume()
		t.mu.Unlock()
		return t, nil
	}
}

// load takes the table's lock and reads it, without holding r.mu (other
// tables stay reachable while this one waits for its lock).
func (r *Runner) load(ctx context.Context, id string, wait bool) (*Table, error) {
	def, err := r.d.Store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	lease, err := r.acquire(ctx, id, wait)
	if err != nil {
		return nil, err
	}
	t := &Table{r: r, id: id, def: def, lease: lease, watchers: map[*watcher]struct{}{}}
	if err := t.load(ctx); err != nil {
		_ = lease.Release(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("load table %s: %w", id, err)
	}
	if err := t.claimHoldings(ctx); err != nil {
		_ = lease.Release(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("load table %s seat holders: %w", id, err)
	}
	return t, nil
}

func (r *Runner) acquire(ctx context.Context, id string, wait bool) (lock.Lease, error) {
	deadline := time.Now()
	if wait {
		deadline = deadline.Add(r.d.ClaimWait)
	}
	for {
		lease, err := r.d.Locker.TryAcquire(r.ctx, LockKey(id))
		if err == nil {
			return lease, nil
		}
		if !errors.Is(err, lock.ErrHeld) {
			return nil, fmt.Errorf("lock table %s: %w", id, err)
		}
		if time.Now().After(deadline) {
			return nil, ErrOwnedElsewhere
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (r *Runner) drop(t *Table) {
	r.mu.Lock()
	if r.tables[t.id] == t {
		delete(r.tables, t.id)
	}
	r.mu.Unlock()
	t.mu.Lock()
	t.stop(context.Cause(t.lease.Context()))
	t.mu.Unlock()
}
