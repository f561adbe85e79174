package runner

import (
	"context"
	"fmt"

	"github.com/cardroom/cardroom/services/table/dealer"
	"github.com/cardroom/cardroom/services/table/store"
)

// CashCount is one cash table's chips and its wallet steps still pending,
// as one snapshot of the store saw them.
type CashCount struct {
	Table    string
	Currency string
	Closed   bool
	// Chips is every chip the table shows (dealer.PublicChips).
	Chips   int64
	Pending []store.MoneyMove
}

// CountCash counts the cash tables the wallet's audit reconciles with their
// escrow: every open one and every closed one with a wallet step pending.
// Each is read from the store (the state and its pending steps in one
// transaction), whichever replica deals it: every change is stored before
// anyone hears of it, and chips only move between seats and the pot with
// the changes that are not.
func (r *Runner) CountCash(ctx context.Context) ([]CashCount, error) {
	return CountCash(ctx, r.d.Store)
}

// CountCash is Runner.CountCash over a store, for a count made without a
// running service (`cardroom wallet audit`).
func CountCash(ctx context.Context, st *store.Store) ([]CashCount, error) {
	ids, err := st.TablesToCount(ctx)
	if err != nil {
		return nil, err
	}
	var out []CashCount
	for _, id := range ids {
		def, err := st.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if def.Config.Tournament {
			continue // tournament chips are not money
		}
		snap, err := st.ReadSnapshot(ctx, id)
		if err != nil {
			return nil, err
		}
		var chips int64
		if snap.Public != nil { // nil: nothing happened since the table opened
			if chips, err = dealer.PublicChips(snap.Public); err != nil {
				return nil, fmt.Errorf("count chips of %s: %w", id, err)
			}
		}
		out = append(out, CashCount{Table: id, Currency: def.Currency, Closed: snap.Closed, Chips: chips, Pending: snap.Moves})
	}
	return out, nil
}
