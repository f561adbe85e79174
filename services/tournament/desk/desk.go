// Package desk is the tournament desk: the tournament service's
// application layer. It runs every change to an event in one store
// transaction, makes the wallet saga's steps (Wallet), consumes the
// tables' table.hand_ended, finishes what a crash or an unanswered
// wallet left pending (Run), and holds the director that drives the
// tables. It takes and returns domain values; the server translates them
// to and from proto, and platform/rpc maps its errors to gRPC statuses.
package desk

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/random"
	"github.com/cardroom/cardroom/services/tournament/director"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// Deps is what a Desk needs.
type Deps struct {
	Store *store.Store
	Clock clock.Clock
	// Wallet moves the events' money (wallet.New); nil keeps the books
	// without money (tests).
	Wallet Wallet
	// Random draws seats, buttons and chip races (TR-06, TR-07, TR-22);
	// nil uses crypto/rand. Calls are serialized, so it need not be safe
	// for concurrent use.
	Random rand.Source
	// Logger logs what the consumer drops and the tables not driven yet;
	// nil is slog.Default().
	Logger *slog.Logger
	// Tables has the desk's director drive the events' tables at the
	// table service, the books of what happens there kept by this desk:
	// the hands' knock-outs (HandleHandEnded), a bagged flight's pool
	// (FlightBagged), players held at tables that cannot deal
	// (KnockOutHeld). Nil leaves the tables to the floor.
	Tables director.Tables
}

// Desk is the tournament desk.
type Desk struct {
	store  *store.Store
	clock  clock.Clock
	wallet Wallet
	random rand.Source
	log    *slog.Logger
	// director drives the tables; nil leaves them to the floor.
	director *director.Director
}

// New returns a Desk over deps.
func New(deps Deps) *Desk {
	d := &Desk{store: deps.Store, clock: deps.Clock, wallet: deps.Wallet, random: random.Crypto(), log: deps.Logger}
	if d.wallet == nil {
		d.wallet = noMoney{}
	}
	if deps.Random != nil {
		d.random = random.Locked(deps.Random)
	}
	if d.log == nil {
		d.log = slog.Default()
	}
	if deps.Tables != nil {
		d.director = director.New(director.Deps{Store: d.store, Tables: deps.Tables, Clock: d.clock, Random: d.random, Logger: d.log,
			Record: d.record, Bagged: d.FlightBagged, KnockOutHeld: d.KnockOutHeld, Round: d.BookRound})
	}
	return d
}

// Director returns the director that drives the tables, nil when the
// floor does.
func (d *Desk) Director() *director.Director { return d.director }

// Run finishes wallet payments left unanswered (a crash, the wallet down)
// at once and then every ResumeInterval, and, with a director, runs its
// recovery pass (director.Run), until ctx ends.
func (d *Desk) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Go(func() { _ = d.resume(ctx) })
	if d.director != nil {
		wg.Go(func() { _ = d.director.Run(ctx) })
	}
	wg.Wait()
	return nil
}

// now is the clock's time as stored: to the millisecond, so an event
// reads back as it was written.
func (d *Desk) now() time.Time { return d.clock.Now().UTC().Truncate(time.Millisecond) }

// running runs change on a running event (ErrNotRunning otherwise) in
// one store transaction and returns what it made, the zero T when it
// fails.
func running[T any](ctx context.Context, d *Desk, id string, change func(tx *store.Tx, t *store.Tournament, now time.Time) (T, error)) (T, error) {
	now := d.now()
	var out T
	err := d.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		if t.Event.Status != event.Running {
			return ErrNotRunning
		}
		var err error
		out, err = change(tx, t, now) // each attempt replaces the last one's
		return err
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return out, nil
}

// drive has the director carry a committed change to the tables. What
// the table service does not take now, the director's recovery pass
// finishes (director.Run), so the change stands either way.
func (d *Desk) drive(ctx context.Context, what, id string, step func(context.Context, string) error) {
	if d.director == nil {
		return
	}
	if err := step(ctx, id); err != nil {
		d.log.WarnContext(ctx, "tournament: tables not driven yet", "step", what, "tournament", id, "error", err)
	}
}
