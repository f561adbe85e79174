package runner

import (
	"context"
	"errors"

	"github.com/cardroom/cardroom/services/table/engine"
)

// Wallet is the cash wallet as a table's money sagas use it: a sit-down
// is stored with its unpaid seat, then bought in one call (SitDown); a
// top-up (and a buy-in stored by an older version) is held, stored with
// its seat, then committed into the table's escrow or released; a leaving
// player is cashed out of it. Each step is
// idempotent by its key and fenced by the table's epoch. An error that
// wraps *WalletRefused is the wallet's answer, refusing the step; any other
// is no answer, and the step may yet go through.
type Wallet interface {
	// Escrow reports whether the table's chips are money in the wallet's
	// escrow: false for a table without money, whose chips appear and
	// vanish at the table and whose steps are done when they are stored.
	Escrow() bool
	// SitDown buys a player's seat: the wallet applies its buy-in rules
	// and moves the amount from the player to the table's escrow, opening
	// the sitting the table named. A sitting is bought at most once: asked
	// again (under the same key, or after the wallet forgot it), the
	// wallet answers nil without moving chips. A refusal moved nothing.
	SitDown(ctx context.Context, s SitDown) error
	// Hold holds a top-up (or, from an older version, a buy-in) and
	// returns the hold's id.
	Hold(ctx context.Context, h Hold) (holdID string, err error)
	// Commit moves player's held buy-in into the table's escrow; a hold
	// committed before is committed.
	Commit(ctx context.Context, s Step, holdID, player string) error
	// Release gives a held buy-in back to the player: nil when the chips
	// are back with them (released now or before, or expired), committed
	// when the hold was committed after all (the chips are in escrow).
	Release(ctx context.Context, s Step, holdID string) (committed bool, err error)
	// CashOut pays a stack from the table's escrow to its player.
	CashOut(ctx context.Context, s Step, c CashOut) error
	// Refused reads back a refusal kept with its step (WalletRefused's
	// Record): a retry of a refused sit-down under its key is answered
	// with what the wallet answered.
	Refused(record string) error
}

// Step names one wallet step: its idempotency key and the table and
// epoch it is fenced by.
type Step struct {
	Key   string
	Table string
	Epoch int64
}

// SitDown is a seat to buy.
type SitDown struct {
	Step
	Player   string
	Seat     int
	Currency string
	// Game is the game the table deals: the wallet's buy-in rules are
	// the game's.
	Game   engine.Config
	Amount int64
	// Sitting names the sitting the buy-in opens, chosen by the table
	// before it calls: the seat is stored with it, so a retry asks for
	// the same sitting and cannot buy a second one.
	Sitting string
}

// Hold is a buy-in (Stack 0, no Sitting) or a top-up to hold.
type Hold struct {
	Step
	Player   string
	Seat     int
	Currency string
	// Game is the game the table deals: the wallet's buy-in rules are
	// the game's.
	Game   engine.Config
	Amount int64
	// Stack is a top-up's seat's chips now, pending and unconfirmed ones
	// included (CS-07).
	Stack int64
	// Sitting is the wallet sitting a top-up joins.
	Sitting string
}

// CashOut is a stack paid back to its player, closing their sitting.
type CashOut struct {
	Player   string
	Seat     int
	Currency string
	Stack    int64
	Sitting  string
}

// WalletRefused is the wallet's definite answer refusing a step: the step
// is settled, and a refused commit is undone once the hold's release says
// where the chips are (undoBuyIn).
type WalletRefused struct {
	Err error
	// Record is the refusal as the step keeps it, for Wallet.Refused; ""
	// when it cannot be kept (a retry then hears BUY_IN_UNDONE).
	Record string
}

func (r *WalletRefused) Error() string { return r.Err.Error() }

func (r *WalletRefused) Unwrap() error { return r.Err }

// definite reports whether err is the wallet's answer to the request,
// rather than no answer.
func definite(err error) bool {
	_, ok := errors.AsType[*WalletRefused](err)
	return ok
}

// NoMoney is the Wallet of a table without money (a tournament's, whose
// chips are tournament chips, and tests of play): it moves nothing.
type NoMoney struct{}

// Escrow is false: the chips are not money.
func (NoMoney) Escrow() bool { return false }

// SitDown buys nothing.
func (NoMoney) SitDown(context.Context, SitDown) error { return nil }

// Refused is nil: nothing is refused where nothing is bought.
func (NoMoney) Refused(string) error { return nil }

// Hold holds nothing.
func (NoMoney) Hold(context.Context, Hold) (string, error) { return "", nil }

// Commit commits nothing.
func (NoMoney) Commit(context.Context, Step, string, string) error { return nil }

// Release releases nothing.
func (NoMoney) Release(context.Context, Step, string) (bool, error) { return false, nil }

// CashOut pays nothing.
func (NoMoney) CashOut(context.Context, Step, CashOut) error { return nil }
