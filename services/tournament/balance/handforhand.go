package balance

import (
	"slices"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
)

// HandForHand keeps the tables in step near the money (G-26): each table
// plays one hand and waits until every table has finished its hand; then
// the next round starts. Players knocked out at different tables in one
// round finish together (TR-37). The zero value is off.
type HandForHand struct {
	// Active is set from Start until Stop.
	Active bool
	// Round counts rounds from 1.
	Round int
	// Tables are the tables in play; Done those that finished this round.
	Tables []string
	Done   []string
	// Release are the tables waiting to be let deal: every table when a
	// round ended, the tables done with the round when it stopped. The
	// director lets each deal on and strikes it off, and its recovery pass
	// retries those left, so a failed call or a crash between the books
	// and the tables never leaves one held for good.
	Release []string `json:",omitempty"`
	// Since is when it started. A hand that ended before then (its report
	// handled after the start) is not a hand of any round: a table between
	// hands at the start counts as done with the first round, or plays it.
	Since time.Time
}

// Before reports whether a hand that ended at end ended before
// hand-for-hand started, so that it is no hand of a round.
func (h *HandForHand) Before(end time.Time) bool {
	return h.Active && !h.Since.IsZero() && !end.IsZero() && end.Before(h.Since)
}

// Hand-for-hand failures.
var (
	ErrHandForHandOff  = fault.Rule(fault.Precondition, "G-26", "HAND_FOR_HAND_OFF", "hand-for-hand play is not on")
	ErrWaitForTables   = fault.Rule(fault.Precondition, "G-26", "HAND_FOR_HAND_WAIT", "this table has played its hand; it waits for the other tables")
	ErrUnknownH4HTable = fault.Rule(fault.Precondition, "G-26", "TABLE_NOT_IN_HAND_FOR_HAND", "the table is not in the hand-for-hand round")
)

// Start turns hand-for-hand on over tables (the director's call, G-26).
func (h *HandForHand) Start(tables []string) {
	*h = HandForHand{Active: true, Round: 1, Tables: slices.Clone(tables)}
	slices.Sort(h.Tables)
}

// Stop turns it off; the tables done with the round wait in Release until
// the director lets them deal on.
func (h *HandForHand) Stop() { *h = HandForHand{Release: slices.Clone(h.Done)} }

// StopAfterRound turns it off at the end of a round (the bubble burst):
// every table in play waits in Release until the director lets it deal on.
func (h *HandForHand) StopAfterRound() { *h = HandForHand{Release: slices.Clone(h.Tables)} }

// MayDeal reports whether a table may start a hand: always when hand-for-
// hand is off, otherwise only if it has not played this round's hand.
func (h *HandForHand) MayDeal(table string) error {
	if !h.Active {
		return nil
	}
	if !slices.Contains(h.Tables, table) {
		return ErrUnknownH4HTable.Withf("table %q is not in play", table)
	}
	if slices.Contains(h.Done, table) {
		return ErrWaitForTables
	}
	return nil
}

// HandEnded records that table finished this round's hand. When it was the
// last, the next round starts and next is true: every table may deal.
func (h *HandForHand) HandEnded(table string) (next bool, err error) {
	if !h.Active {
		return false, ErrHandForHandOff
	}
	if err := h.MayDeal(table); err != nil {
		return false, err
	}
	h.Done = append(h.Done, table)
	if len(h.Done) < len(h.Tables) {
		return false, nil
	}
	h.Round++
	h.Done, h.Release = nil, slices.Clone(h.Tables)
	return true, nil
}

// TableClosed takes a broken table out of the round; its absence may
// complete the round.
func (h *HandForHand) TableClosed(table string) (next bool) {
	if !h.Active {
		return false
	}
	h.Tables = slices.DeleteFunc(h.Tables, func(t string) bool { return t == table })
	h.Done = slices.DeleteFunc(h.Done, func(t string) bool { return t == table })
	if len(h.Tables) > 0 && len(h.Done) == len(h.Tables) {
		h.Round++
		h.Done, h.Release = nil, slices.Clone(h.Tables)
		return true
	}
	return false
}

// Follow brings the round's tables in line with the tables in play: a
// broken table no longer holds the round up (TableClosed), and a table
// opened since (a final table) joins it. It reports whether a table's
// leaving completed the round.
func (h *HandForHand) Follow(tables []string) (next bool) {
	for _, tb := range slices.Clone(h.Tables) {
		if !slices.Contains(tables, tb) && h.TableClosed(tb) {
			next = true
		}
	}
	for _, tb := range tables {
		if !slices.Contains(h.Tables, tb) {
			h.Tables = append(h.Tables, tb)
		}
	}
	slices.Sort(h.Tables)
	return next
}

// PlayNone counts tables that cannot deal (one player, or halted short,
// G-25) as done with the round: they play no round hand, and waiting for
// them would stop every table. It reports whether that completed the
// round.
func (h *HandForHand) PlayNone(tables []string) (next bool, err error) {
	for _, tb := range tables {
		if slices.Contains(h.Done, tb) {
			continue
		}
		n, err := h.HandEnded(tb)
		if err != nil {
			return false, err
		}
		next = next || n
	}
	return next, nil
}
