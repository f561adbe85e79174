package director

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"math/rand/v2"

	"github.com/cardroom/cardroom/services/tournament/balance"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// Plan is the seating as the event's entries record it: each table with
// an active entrant, in table order.
func Plan(ens []entry.Entry, seatsPerTable int) []balance.Table {
	// Sized up front: growing a thousand maps entry by entry made this the
	// bulk of the decision after a bust (BenchmarkDecideAfterBust1100Tables).
	byTable := make(map[int]balance.Table, len(ens)/max(seatsPerTable, 1)+1)
	for _, en := range ens {
		if en.Status != entry.Active || en.Table == 0 {
			continue
		}
		tb, ok := byTable[en.Table]
		if !ok {
			tb = balance.Table{ID: strconv.Itoa(en.Table), MaxSeats: seatsPerTable, Seats: make(map[int]string, seatsPerTable)}
		}
		tb.Seats[en.Seat] = en.PlayerID
		byTable[en.Table] = tb
	}
	out := make([]balance.Table, 0, len(byTable))
	for _, n := range slices.Sorted(maps.Keys(byTable)) {
		out = append(out, byTable[n])
	}
	return out
}

// Breaking returns the table that breaks next when the players fit in one
// table fewer, in the house's order (G-25, G-40): the first table of order
// still in play, else the highest-numbered; ok is false when no table can
// break.
func Breaking(plan []balance.Table, order []int) (string, bool) {
	if !balance.CanBreak(plan) {
		return "", false
	}
	for _, n := range order {
		id := strconv.Itoa(n)
		if slices.ContainsFunc(plan, func(tb balance.Table) bool { return tb.ID == id }) {
			return id, true
		}
	}
	return plan[len(plan)-1].ID, true
}

// Idle reports whether table id of plan cannot deal its next hand: one
// player left, or halted short (G-25). A table due to break that is idle
// has no hand end of its own to break at, so the director breaks it at
// another table's.
func Idle(plan []balance.Table, id string) bool {
	i := slices.IndexFunc(plan, func(tb balance.Table) bool { return tb.ID == id })
	return i >= 0 && (len(plan[i].Seats) < 2 || slices.Contains(balance.Halted(plan, balance.Policy{}), id))
}

// DecideInOrder returns the moves the end of hand h lets the director
// make at h's table (between hands, nobody there is in a hand), tables
// breaking in the house's break order (G-40; nil: highest-numbered
// first):
//   - when the players fit in one table fewer and h's table is the one
//     that breaks (Breaking), every player there, each to a drawn seat at the table
//     with the fewest players (TR-06, G-25); while another table is due
//     to break, no balancing move (nobody is sent to a table about to
//     break);
//   - when h's table has more than one player more than the shortest and
//     none fewer than any other, the player due its big blind next as
//     the table itself reports it (the dead-button planner, TR-21) goes
//     to the worst seat of the shortest table (TR-23, G-25). One player
//     per hand: the next one due is known after the next hand.
func DecideInOrder(plan []balance.Table, h Hand, src rand.Source, order []int) []balance.Move {
	id := strconv.Itoa(h.Table)
	i := slices.IndexFunc(plan, func(tb balance.Table) bool { return tb.ID == id })
	if i < 0 {
		return nil
	}
	if breaking, ok := Breaking(plan, order); ok {
		if breaking != id {
			return nil
		}
		moves, err := balance.Break(plan, id, src)
		if err != nil {
			return nil
		}
		return moves
	}
	lo, most := 0, 0
	for k, tb := range plan {
		if len(tb.Seats) < len(plan[lo].Seats) {
			lo = k
		}
		most = max(most, len(tb.Seats))
	}
	from := plan[i]
	if len(from.Seats) < most || len(from.Seats)-len(plan[lo].Seats) <= 1 {
		return nil
	}
	seat := 0
	for s, p := range from.Seats {
		if p == h.DueBigBlind && p != "" {
			seat = s
		}
	}
	switch {
	case seat == 0 && h.DueBigBlind != "":
		// The player the table named no longer sits there: this hand's
		// move was made already (its end delivered again after a failure
		// half way), and the next one due is known after the next hand.
		return nil
	case seat == 0:
		seat = from.DueBigBlind()
	}
	to, ok := plan[lo].WorstSeat()
	if !ok {
		return nil
	}
	return []balance.Move{{PlayerID: from.Seats[seat], FromTable: id, FromSeat: seat, ToTable: plan[lo].ID, ToSeat: to, Rule: "TR-23"}}
}

// Schedule is the level schedule the tables get (TR-20, G-07): every row
// of the sheet with its start by the clock, under a revision that grows
// with every pause and resume and every change the floor makes to the
// clock (and the same rows for the same revision, whenever it is sent).
// While the clock is paused the rows after the one in force are retracted.
func Schedule(t store.Tournament) (revision int64, rows []Row) {
	c := t.Clock
	paused := !c.PausedAt.IsZero()
	// A floor's change may move the clock back, so it counts above any
	// pause total (2^40 ms is 34 years of pauses).
	revision = c.Changes<<41 + 2*c.Paused.Milliseconds() + 1
	last := len(c.Sheet.Levels) - 1
	if paused {
		revision++
		last = c.At(c.PausedAt).Index
	}
	start := c.Started.Add(c.Paused - c.Shift)
	for i, l := range c.Sheet.Levels {
		if i <= last && len(rows) < 100 {
			rows = append(rows, Row{Level: i + 1, Start: start, Break: l.Break, SmallBlind: l.SmallBlind, BigBlind: l.BigBlind,
				Ante: l.Ante, BigBlindAnte: l.BigBlindAnte})
		}
		start = start.Add(l.Duration)
	}
	return revision, rows
}

func jsonUnmarshal(raw []byte, v any) error { return json.Unmarshal(raw, v) }
