// Package chiprace colours up a tournament's smallest chips (TR-22, G-08):
// full sets are exchanged, the odd chips are pooled and raced for with
// cards dealt from seat 1, no player wins more than one new chip, and no
// one is knocked out by the race. It is pure; the deck comes from an
// injected source.
package chiprace

import (
	"cmp"
	"slices"

	"math/rand/v2"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/tournament/draw"
)

// Player is one seat's chips before the race.
type Player struct {
	Seat     int
	PlayerID string
	// Stack is the player's whole stack in chip value.
	Stack int64
	// Chips is how many chips of the raced denomination the player has.
	Chips int64
}

// Race is a colour-up at one table.
type Race struct {
	// Removed is the denomination taken out of play.
	Removed int64
	// Into is the denomination the removed chips are exchanged for.
	Into int64
	// Lowest is the lowest denomination still in play after the race: what
	// a player left with nothing receives (TR-22).
	Lowest  int64
	Players []Player
}

// Result is one seat's outcome.
type Result struct {
	Seat     int
	PlayerID string
	// Cards are the cards dealt to the seat, one per odd chip.
	Cards []draw.Card
	// OddValue is the value of the odd chips the seat raced with.
	OddValue int64
	// Won is set when the seat won a new chip.
	Won bool
	// Stack is the stack after the race.
	Stack int64
}

// Validate checks the race's numbers.
func (r Race) Validate() error {
	switch {
	case r.Removed <= 0 || r.Into <= r.Removed || r.Into%r.Removed != 0:
		return fault.Invalidf("into", "the new denomination must be a multiple of the removed one, got %d into %d", r.Removed, r.Into)
	case r.Lowest <= 0:
		return fault.Invalidf("lowest", "must be positive")
	}
	seen := map[int]bool{}
	for _, p := range r.Players {
		if p.Chips < 0 || p.Stack < p.Chips*r.Removed || seen[p.Seat] || p.Seat < 1 {
			return fault.Invalidf("players", "seat %d: chips %d of %d do not fit a stack of %d", p.Seat, p.Chips, r.Removed, p.Stack)
		}
		seen[p.Seat] = true
	}
	return nil
}

// Run races. The new chips raced for are the pooled odd value divided by
// the new denomination, a leftover worth at least half a new chip rounding
// up to one (G-08). Cards are dealt one per odd chip, round the table from
// the lowest seat (TR-22: the race starts at seat 1); each seat's highest
// card by suit ranks it; the best seats win one chip each.
func Run(r Race, src rand.Source) ([]Result, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	players := slices.SortedFunc(slices.Values(r.Players), func(a, b Player) int { return cmp.Compare(a.Seat, b.Seat) })
	perChip := r.Into / r.Removed
	results := make([]Result, len(players))
	var pool int64
	var odd []int // indexes of racing seats
	for i, p := range players {
		results[i] = Result{Seat: p.Seat, PlayerID: p.PlayerID, Stack: p.Stack}
		if n := p.Chips % perChip; n > 0 {
			results[i].OddValue = n * r.Removed
			results[i].Stack -= results[i].OddValue
			pool += results[i].OddValue
			odd = append(odd, i)
		}
	}
	prizes := pool / r.Into
	if 2*(pool%r.Into) >= r.Into {
		prizes++
	}
	var dealt int64
	for _, i := range odd {
		dealt += results[i].OddValue / r.Removed
	}
	if dealt > 52 {
		return nil, fault.Rule(fault.Precondition, "G-08", "CHIP_RACE_TOO_MANY_CHIPS", "more odd chips than cards in a deck")
	}
	deck := draw.ShuffledDeck(src)
	next := 0
	for remaining := true; remaining; {
		remaining = false
		for _, i := range odd {
			if int64(len(results[i].Cards)) < results[i].OddValue/r.Removed {
				results[i].Cards = append(results[i].Cards, deck[next])
				next++
				remaining = true
			}
		}
	}
	ranked := slices.Clone(odd)
	slices.SortFunc(ranked, func(a, b int) int { return cmp.Compare(slices.Max(results[b].Cards), slices.Max(results[a].Cards)) })
	for k, i := range ranked {
		if int64(k) >= prizes {
			break
		}
		results[i].Won = true
		results[i].Stack += r.Into
	}
	for i := range results {
		if results[i].Stack == 0 && players[i].Stack > 0 {
			// TR-22: the race never knocks a player out.
			results[i].Stack = r.Lowest
		}
	}
	return results, nil
}
