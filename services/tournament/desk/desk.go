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
	"time"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/random"
	"github.com/cardroom/cardroom/services/tournament/director"
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
	// Director drives the tables; nil leaves them to the floor.
	Director *director.Director
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
	d := &Desk{store: deps.Store, clock: deps.Clock, wallet: deps.Wallet, random: random.Crypto(), log: deps.Logger,
		director: deps.Director}
	if d.wallet == nil {
		d.wallet = noMoney{}
	}
	if deps.Random != nil {
		d.random = random.Locked(deps.Random)
	}
	if d.log == nil {
		d.log = slog.Default()
	}
	return d
}

// Director returns the director that drives the tables, nil when the
// floor does.
func (d *Desk) Director() *director.Director { return d.director }

// now is the clock's time as stored: to the millisecond, so an event
// reads back as it was written.
func (d *Desk) now() time.Time { return d.clock.Now().UTC().Truncate(time.Millisecond) }

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

// Store gives the server the store it still reads itself while its
// handlers move to the desk (issue 16).
func (d *Desk) Store() *store.Store { return d.store }

// Clock is the desk's clock.
func (d *Desk) Clock() clock.Clock { return d.clock }

// Random is the desk's source of draws.
func (d *Desk) Random() rand.Source { return d.random }

// Logger is the desk's logger.
func (d *Desk) Logger() *slog.Logger { return d.log }
