// Package house holds what the house publishes with each event besides its
// definition: the entry policy (TR-13…TR-18, G-23), the structure sheet
// (G-07), the payout structure (TR-36, G-30) and the table size. It is
// pure and serializes to JSON for the store.
package house

import (
	"cmp"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/tournament/bounty"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/flight"
	"github.com/cardroom/cardroom/services/tournament/levels"
	"github.com/cardroom/cardroom/services/tournament/standings"
)

// Rules are an event's published house settings.
type Rules struct {
	Entry         entry.Policy        `json:"entry"`
	Sheet         levels.Sheet        `json:"sheet"`
	Payouts       standings.Structure `json:"payouts"`
	SeatsPerTable int                 `json:"seats_per_table"`
	// Live opens the event's tables as live tables: a dealer deals
	// physical cards and enters them on the console (TP-68).
	Live bool `json:"live,omitempty"`
	// NoFinalRedraw switches off the final-table redraw (TR-07): the
	// tables break down to the last one, whose players keep their seats
	// and whose button keeps moving. By default the players left draw new
	// seats and the button at a new final table.
	NoFinalRedraw bool `json:"no_final_redraw,omitempty"`
	// BreakOrder is the order tables break in when the players fit at one
	// table fewer (TR-23, G-25, G-40): the first listed still in play
	// breaks next; tables not listed break after them, highest-numbered
	// first. Empty: highest-numbered first.
	BreakOrder []int `json:"break_order,omitempty"`
	// Flight makes the event a Day 1 flight feeding a Day 2 (issue 13).
	Flight *flight.Flight `json:"flight,omitempty"`
	// Day2 makes the event the Day 2 of a multi-day event: its field is
	// its flights' survivors with their bagged stacks (issue 13).
	Day2 *flight.Day2 `json:"day2,omitempty"`
	// Bounty makes a knockout or progressive knockout event (G-36): its
	// amount is part of each entry's prize-pool part.
	Bounty bounty.Rules `json:"bounty,omitzero"`
}

// BountyPool is the part of pool that is on the entrants' heads: the
// bounty of each of entries entries (re-entries each bring one, G-23).
func (r Rules) BountyPool(entries int) int64 { return int64(entries) * r.Bounty.Amount }

// PrizePool is the part of pool the payout structure shares: all of it
// less the bounties (G-36).
func (r Rules) PrizePool(pool int64, entries int) int64 { return pool - r.BountyPool(entries) }

// FinalRedraw reports whether the final table is redrawn (TR-07).
func (r Rules) FinalRedraw() bool { return !r.NoFinalRedraw }

// DefaultSeatsPerTable is a full ring game table.
const DefaultSeatsPerTable = 9

// WithDefaults fills what the house left unset: the entry policy's rule
// defaults, the default sheet and payouts, nine-handed tables.
func (r Rules) WithDefaults(e event.Event) Rules {
	r.Entry = r.Entry.WithDefaults(e)
	if len(r.Sheet.Levels) == 0 {
		r.Sheet = levels.DefaultSheet()
	}
	if len(r.Payouts.Tiers) == 0 {
		r.Payouts = standings.DefaultStructure()
	}
	r.SeatsPerTable = cmp.Or(r.SeatsPerTable, DefaultSeatsPerTable)
	return r
}

// Validate checks rules as the house wrote them for e, before defaults.
func (r Rules) Validate(e event.Event) error {
	if err := r.Entry.Validate(e); err != nil {
		return err
	}
	if len(r.Sheet.Levels) > 0 {
		if err := r.Sheet.Validate(); err != nil {
			return err
		}
	}
	if len(r.Payouts.Tiers) > 0 {
		if err := r.Payouts.Validate(); err != nil {
			return err
		}
	}
	if r.Flight != nil && r.Day2 != nil {
		return fault.Invalidf("flight", "an event is a flight or a Day 2, not both")
	}
	if r.Day2 != nil && !r.Day2.Survivors.Valid() {
		return fault.Invalidf("day2.survivors", "unknown policy %q", r.Day2.Survivors)
	}
	if err := r.Bounty.Validate(e.BuyIn.PrizePool); err != nil {
		return err
	}
	if r.Bounty.On() && e.Format == event.Satellite {
		return fault.Invalidf("bounty.amount", "a satellite pays entries, not bounties")
	}
	if r.SeatsPerTable != 0 && (r.SeatsPerTable < 2 || r.SeatsPerTable > 10) {
		return fault.Invalidf("seats_per_table", "must be between 2 and 10, got %d", r.SeatsPerTable)
	}
	return nil
}
