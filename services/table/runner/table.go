package runner

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	"github.com/cardroom/cardroom/services/table/dealer"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/store"
	"github.com/cardroom/cardroom/services/table/tablepb"
	"github.com/cardroom/cardroom/services/table/tables"
)

// Table is one running table.
type Table struct {
	r     *Runner
	id    string
	lease lock.Lease

	mu       sync.Mutex // guards everything below
	def      tables.Definition
	dt       *dealer.Table
	fence    sqlstore.Fence
	timer    clock.Timer
	timerFor time.Time
	starter  clock.Timer
	// waker deals again when the next row of a tournament table's level
	// schedule starts (a level after a break, level 1), at wakeFor.
	waker    clock.Timer
	wakeFor  time.Time
	watchers map[*watcher]struct{}
	stopped  error
	// buying counts buy-ins between their seat and their commit: no hand
	// starts then, so nobody is dealt in on chips the wallet has not moved.
	buying int
	// retrying is set while retryMoney works through the waiting wallet
	// steps; again asks it for one more pass (retryMoney).
	retrying, again bool
	// seated is who holds a seat here in the store's seated_players (G-21,
	// seated.go), by seat.
	seated map[string]int
	// console is the dealer's entry being applied, if any: the out-of-turn
	// rulings a change makes are audited in its name (outofturn.go).
	console *consoleEntry
	// ordering is the tournament move being ordered by the change being
	// applied, if any (tournament.go).
	ordering *store.Move
	// ended is the hand the change at sequence endedSeq finished: the
	// answer to that change and its feed message show it done, with its
	// pots (changeView).
	ended    *engine.Hand
	endedSeq int64
	// fixed is the hand's fixed part as last sealed (sealFixed).
	fixed sealedFixed
}

// load claims a new epoch and reads the table's stored state.
func (t *Table) load(ctx context.Context) error {
	d := t.r.d
	err := d.DB.Tx(t.lease.Context(), func(tx *sqlstore.Tx) (err error) {
		t.fence, err = sqlstore.ClaimEpoch(t.lease.Context(), tx, store.EntityTable, t.id)
		return err
	})
	if err != nil {
		return err
	}
	// The floor's CreateTable stores epoch 1; a claim above 2 follows an
	// earlier dealer's.
	if t.fence.Epoch > 2 {
		lock.CountTakeover(ctx, store.EntityTable)
	}
	dt, err := t.read(ctx)
	if err != nil {
		return err
	}
	t.dt = dt
	return nil
}

// read reads the table's stored state: a new dealer table when nothing is
// stored yet.
func (t *Table) read(ctx context.Context) (*dealer.Table, error) {
	d := t.r.d
	st, err := d.Store.LoadState(ctx, d.DB.SQL(), t.id)
	if err != nil {
		return nil, err
	}
	if st.Public == nil {
		return dealer.New(t.id, t.def.Config, t.def.Seats, dealer.Settings{ActionTimeout: t.def.ActionTimeout}), nil
	}
	if st.HandFixed != nil {
		fixed, err := d.Sealer.Open(st.HandFixed, handFixedAD(t.id))
		if err != nil {
			return nil, fmt.Errorf("open stored hand of %s: %w", t.id, err)
		}
		moving, err := d.Sealer.Open(st.Hand, handMovingAD(t.id, st.HandFixed))
		if err != nil {
			return nil, fmt.Errorf("open stored hand of %s: %w", t.id, err)
		}
		// The next action stores the same sealed bytes again.
		t.fixed = sealedFixed{plain: fixed, sealed: st.HandFixed}
		return dealer.UnmarshalSplit(st.Public, fixed, moving)
	}
	// Stored whole: between hands, or a hand stored before the split.
	var private []byte
	if st.Hand != nil {
		if private, err = d.Sealer.Open(st.Hand, handAD(t.id)); err != nil {
			return nil, fmt.Errorf("open stored hand of %s: %w", t.id, err)
		}
	}
	return dealer.Unmarshal(st.Public, private)
}

// resume restarts what runs by itself: the clock, the next hand, and
// unfinished wallet steps. The caller holds t.mu.
func (t *Table) resume() {
	t.retryMoney(t.r.ctx)
	t.schedule()
}

func (t *Table) stop(cause error) {
	if t.stopped != nil {
		return
	}
	t.stopped = cause
	if t.timer != nil {
		t.timer.Stop()
	}
	if t.starter != nil {
		t.starter.Stop()
	}
	if t.waker != nil {
		t.waker.Stop()
	}
	for w := range t.watchers {
		close(w.ch)
		delete(t.watchers, w)
	}
	_ = t.lease.Release(context.Background())
}

func (t *Table) epoch() int64 {
	return t.fence.Epoch
}

func gameProto(d tables.Definition) *gamev1.Game { return tablepb.GameToProto(d.Config) }
