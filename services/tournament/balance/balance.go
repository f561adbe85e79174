// Package balance keeps a multi-table tournament's tables even (TR-23,
// G-25), breaks tables as the field shrinks, keeps tables in step during
// hand-for-hand play (G-26) and settles the blinds a moved player dodged
// (TR-24). It is pure: it proposes moves; seating and the table service
// carry them out.
package balance

import (
	"cmp"
	"maps"
	"math/rand/v2"
	"slices"

	"github.com/cardroom/cardroom/platform/fault"
)

// Table is one table as the balancer sees it between hands.
type Table struct {
	ID       string
	MaxSeats int
	// Seats maps occupied seat numbers (1-based) to player ids.
	Seats map[int]string
	// Button is the seat that had the button in the last hand; 0 before
	// the first hand.
	Button int
}

// occupied returns the occupied seats in seat order.
func (t Table) occupied() []int { return slices.Sorted(maps.Keys(t.Seats)) }

// after returns the first seat in ring after s (ring sorted, non-empty).
func after(ring []int, s int) int {
	for _, r := range ring {
		if r > s {
			return r
		}
	}
	return ring[0]
}

// nextBlinds returns the seats that post the small and the big blind in
// the next hand under a moving button: the button moves to the next
// occupied seat, the blinds follow it. Heads-up the button posts the
// small blind (G-04).
func nextBlinds(ring []int, button int) (sb, bb int) {
	btn := after(ring, button)
	if len(ring) == 2 {
		return btn, after(ring, btn)
	}
	sb = after(ring, btn)
	return sb, after(ring, sb)
}

// DueBigBlind returns the seat of the player due to post the big blind in
// the next hand: the one who moves when the table gives a player (TR-23,
// G-25).
func (t Table) DueBigBlind() int {
	ring := t.occupied()
	if len(ring) < 2 {
		if len(ring) == 1 {
			return ring[0]
		}
		return 0
	}
	_, bb := nextBlinds(ring, t.Button)
	return bb
}

// WorstSeat returns the empty seat that a moved player takes: the one that
// will post the big blind soonest, which may be the big blind itself but
// is never the small blind (G-25). ok is false when the table is full.
func (t Table) WorstSeat() (seat int, ok bool) {
	ring := t.occupied()
	best, bestWait := 0, 1<<30
	for s := 1; s <= t.MaxSeats; s++ {
		if _, taken := t.Seats[s]; taken {
			continue
		}
		with := append(slices.Clone(ring), s)
		slices.Sort(with)
		if len(with) < 2 {
			return s, true
		}
		sb, bb := nextBlinds(with, t.Button)
		if s == sb {
			continue
		}
		// Hands until s posts the big blind: 0 if it is the next big blind,
		// otherwise its distance round the ring from that seat.
		wait := slices.Index(with, s) - slices.Index(with, bb)
		if wait < 0 {
			wait += len(with)
		}
		if wait < bestWait {
			best, bestWait = s, wait
		}
	}
	if best == 0 {
		// The only empty seat is the small blind's: it is still a seat.
		for s := 1; s <= t.MaxSeats; s++ {
			if _, taken := t.Seats[s]; !taken {
				return s, true
			}
		}
		return 0, false
	}
	return best, true
}

// Move is one player sent from one table to a seat at another.
type Move struct {
	PlayerID  string
	FromTable string
	FromSeat  int
	ToTable   string
	ToSeat    int
	// Rule is the rule that sends the player: TR-23 for balancing, TR-06
	// for a seat drawn when a table breaks.
	Rule string
}

// Policy is the house's balancing policy (G-25).
type Policy struct {
	// MaxDifference is the largest difference in players between tables
	// that is left alone; default 1 (flop games).
	MaxDifference int
	// HaltShortBy: play halts at a table this many or more players short
	// of the fullest table until it is balanced; default 3.
	HaltShortBy int
}

func (p Policy) withDefaults() Policy {
	if p.MaxDifference <= 0 {
		p.MaxDifference = 1
	}
	if p.HaltShortBy <= 0 {
		p.HaltShortBy = 3
	}
	return p
}

// Plan balances tables: while the fullest table has more than
// MaxDifference players more than the shortest, the player due to be big
// blind next at the fullest table moves to the worst seat at the shortest
// (TR-23, G-25). Ties go to the earlier table in the slice. The input is
// not changed; the moves are in the order to make them.
func Plan(tables []Table, p Policy) []Move {
	p = p.withDefaults()
	// Copy on write: a bust at one of a thousand tables moves one player,
	// so only the tables a move touches get their own seat maps (cloning
	// every table made the decision cost milliseconds).
	ts := slices.Clone(tables)
	owned := map[int]bool{}
	own := func(i int) {
		if !owned[i] {
			ts[i].Seats = maps.Clone(ts[i].Seats)
			if ts[i].Seats == nil {
				ts[i].Seats = map[int]string{}
			}
			owned[i] = true
		}
	}
	var moves []Move
	for len(ts) > 1 {
		hi, lo := 0, 0
		for i := range ts {
			if len(ts[i].Seats) > len(ts[hi].Seats) {
				hi = i
			}
			if len(ts[i].Seats) < len(ts[lo].Seats) {
				lo = i
			}
		}
		if len(ts[hi].Seats)-len(ts[lo].Seats) <= p.MaxDifference {
			break
		}
		from := ts[hi].DueBigBlind()
		to, ok := ts[lo].WorstSeat()
		if !ok {
			break
		}
		player := ts[hi].Seats[from]
		moves = append(moves, Move{PlayerID: player, FromTable: ts[hi].ID, FromSeat: from, ToTable: ts[lo].ID, ToSeat: to, Rule: "TR-23"})
		own(hi)
		own(lo)
		delete(ts[hi].Seats, from)
		ts[lo].Seats[to] = player
	}
	return moves
}

// Halted returns the tables where play halts until balanced: those
// HaltShortBy or more players short of the fullest table (G-25).
func Halted(tables []Table, p Policy) []string {
	p = p.withDefaults()
	most := 0
	for _, t := range tables {
		most = max(most, len(t.Seats))
	}
	var out []string
	for _, t := range tables {
		if most-len(t.Seats) >= p.HaltShortBy {
			out = append(out, t.ID)
		}
	}
	return out
}

func clone(tables []Table) []Table {
	out := make([]Table, len(tables))
	for i, t := range tables {
		t.Seats = make(map[int]string, len(tables[i].Seats))
		for s, p := range tables[i].Seats {
			t.Seats[s] = p
		}
		out[i] = t
	}
	return out
}

// ErrCannotBreak refuses a table break that would leave players without
// seats.
var ErrCannotBreak = fault.New(fault.Precondition, "TABLE_BREAK_NO_ROOM", "the other tables have too few empty seats for the broken table's players")

// CanBreak reports whether the players fit in one table fewer.
func CanBreak(tables []Table) bool {
	if len(tables) < 2 {
		return false
	}
	players, seats := 0, 0
	for _, t := range tables {
		players += len(t.Seats)
		seats += t.MaxSeats
	}
	smallest := slices.MinFunc(tables, func(a, b Table) int { return cmp.Compare(a.MaxSeats, b.MaxSeats) })
	return players <= seats-smallest.MaxSeats
}

// Break breaks the table with id breaking: its players go in random order
// (TR-06: seats are drawn) each to the table that then has the fewest
// players, ties drawn, at a seat drawn among that table's empty seats.
func Break(tables []Table, breaking string, src rand.Source) ([]Move, error) {
	ts := clone(tables)
	i := slices.IndexFunc(ts, func(t Table) bool { return t.ID == breaking })
	if i < 0 {
		return nil, fault.NotFoundf("table", "no table %q", breaking)
	}
	gone := ts[i]
	rest := slices.Delete(ts, i, i+1)
	free := 0
	for _, t := range rest {
		free += t.MaxSeats - len(t.Seats)
	}
	if free < len(gone.Seats) {
		return nil, ErrCannotBreak.Withf("%d players, %d empty seats", len(gone.Seats), free)
	}
	r := rand.New(src)
	seats := gone.occupied()
	r.Shuffle(len(seats), func(i, j int) { seats[i], seats[j] = seats[j], seats[i] })
	var moves []Move
	for _, from := range seats {
		fewest := len(rest[0].Seats)
		var candidates []int
		for k, t := range rest {
			if len(t.Seats) >= t.MaxSeats {
				continue
			}
			switch n := len(t.Seats); {
			case candidates == nil || n < fewest:
				fewest, candidates = n, []int{k}
			case n == fewest:
				candidates = append(candidates, k)
			}
		}
		to := &rest[candidates[r.IntN(len(candidates))]]
		var empty []int
		for s := 1; s <= to.MaxSeats; s++ {
			if _, taken := to.Seats[s]; !taken {
				empty = append(empty, s)
			}
		}
		seat := empty[r.IntN(len(empty))]
		player := gone.Seats[from]
		to.Seats[seat] = player
		moves = append(moves, Move{PlayerID: player, FromTable: gone.ID, FromSeat: from, ToTable: to.ID, ToSeat: seat, Rule: "TR-06"})
	}
	return moves, nil
}

// DodgedBlinds is what a moved player is charged when the floor rules that
// they dodged the blinds on the way (TR-24): the blinds that passed their
// new seat while they were not there. The amount leaves the stack (never
// more than the stack) and is dead money in the next pot.
func DodgedBlinds(stack, smallBlind, bigBlind int64, missedSmall, missedBig bool) (newStack, deadMoney int64) {
	var owed int64
	if missedSmall {
		owed += smallBlind
	}
	if missedBig {
		owed += bigBlind
	}
	owed = min(owed, stack)
	return stack - owed, owed
}

// Place seats one new player — a late registration (G-23) — at the table
// with the fewest players (ties drawn) in a drawn empty seat, as the seat
// draw would (TR-06). ok is false when every table is full: the caller
// opens a new table.
func Place(tables []Table, src rand.Source) (table string, seat int, ok bool) {
	fewest := -1
	var candidates []int
	for i, t := range tables {
		n := len(t.Seats)
		if n >= t.MaxSeats {
			continue
		}
		switch {
		case fewest < 0 || n < fewest:
			fewest, candidates = n, []int{i}
		case n == fewest:
			candidates = append(candidates, i)
		}
	}
	if len(candidates) == 0 {
		return "", 0, false
	}
	r := rand.New(src)
	t := tables[candidates[r.IntN(len(candidates))]]
	var empty []int
	for s := 1; s <= t.MaxSeats; s++ {
		if _, taken := t.Seats[s]; !taken {
			empty = append(empty, s)
		}
	}
	return t.ID, empty[r.IntN(len(empty))], true
}
