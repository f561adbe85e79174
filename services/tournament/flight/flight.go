// Package flight holds multi-day events (issue 13): Day 1 flights (1A, 1B,
// …) that each play until a configured level or player count, bag their
// survivors' stacks and feed one Day 2, which seats the carried stacks by
// a new draw and plays for the sum of the flights' prize pools. It is
// pure: the director and the store carry out what it decides.
package flight

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
)

// Flight is what the house publishes for a Day 1 flight: the Day 2 it
// feeds and when its day ends.
type Flight struct {
	// Day2 is the Day 2 event the survivors carry their stacks to.
	Day2 string `json:"day2"`
	// StopLevel is the row of the structure sheet (0-based, breaks
	// included) at whose start play stops for the day; 0: no level stop.
	StopLevel int `json:"stop_level,omitempty"`
	// StopPlayers stops play once this many players (or fewer) are left.
	// At least 2, so a flight never plays down to a winner: its prizes
	// are paid by Day 2.
	StopPlayers int `json:"stop_players"`
}

// Validate checks a flight's settings against the sheet's length.
func (f Flight) Validate(rows int) error {
	switch {
	case f.Day2 == "":
		return fault.Invalidf("flight.day2_tournament_id", "a flight feeds a Day 2")
	case f.StopPlayers < 2:
		return fault.Invalidf("flight.stop_players", "a flight stops with at least 2 players left, got %d", f.StopPlayers)
	case f.StopLevel < 0 || f.StopLevel >= rows:
		return fault.Invalidf("flight.stop_level_index", "must be a row of the structure sheet (0..%d), got %d", rows-1, f.StopLevel)
	}
	return nil
}

// Over reports whether the flight's day is over after a hand: the clock
// has reached the stop level at the hand's end (row is the row in force),
// or the players left are at most StopPlayers.
func (f Flight) Over(row, playersLeft int) bool {
	return playersLeft <= f.StopPlayers || (f.StopLevel > 0 && row >= f.StopLevel)
}

// Policy is the house's rule for a player who survives more than one
// flight (G-34): which bag goes to Day 2. The other bags' chips leave
// play; their entries stay in the prize pool.
type Policy string

// Policies. The zero value is KeepLarger, the G-34 house default.
const (
	KeepLarger Policy = "larger"
	KeepFirst  Policy = "first"
	KeepLast   Policy = "last"
)

// Valid reports whether p is a known policy ("" is KeepLarger).
func (p Policy) Valid() bool { return p == "" || p == KeepLarger || p == KeepFirst || p == KeepLast }

// Day2 is what the house publishes for a Day 2.
type Day2 struct {
	// Survivors is the policy for a player who bagged in two flights
	// (G-34); "" keeps the larger stack.
	Survivors Policy `json:"survivors,omitempty"`
}

// Bag is a survivor's stack bagged at the end of a flight's day, as the
// table counted it.
type Bag struct {
	Flight string
	Player string
	Chips  int64
	// Table and Seat are where the player sat when play stopped.
	Table, Seat int
	BaggedAt    time.Time
}

// Carry applies the survivor policy (G-34) to every flight's bags: one
// bag per player goes to Day 2 (kept), the others are forfeited. Ties
// keep the earlier bag (KeepLarger), and "first" and "last" go by the
// time the bags were made, then by flight id. Both lists come sorted by
// player.
func Carry(bags []Bag, p Policy) (kept, forfeited []Bag) {
	byPlayer := map[string][]Bag{}
	for _, b := range bags {
		byPlayer[b.Player] = append(byPlayer[b.Player], b)
	}
	for _, pl := range slices.Sorted(maps.Keys(byPlayer)) {
		bs := byPlayer[pl]
		slices.SortFunc(bs, func(a, b Bag) int {
			return cmp.Or(a.BaggedAt.Compare(b.BaggedAt), cmp.Compare(a.Flight, b.Flight))
		})
		keep := 0
		switch p {
		case KeepLast:
			keep = len(bs) - 1
		case KeepFirst:
		default:
			for i, b := range bs {
				if b.Chips > bs[keep].Chips {
					keep = i
				}
			}
		}
		kept = append(kept, bs[keep])
		for i, b := range bs {
			if i != keep {
				forfeited = append(forfeited, b)
			}
		}
	}
	return kept, forfeited
}

// Chips sums the bags' chips.
func Chips(bags []Bag) int64 {
	var n int64
	for _, b := range bags {
		n += b.Chips
	}
	return n
}
