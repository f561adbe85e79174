// Package draw holds the tournament's random draws: the seat draw at the
// start (TR-06) and the button draw at each table (TR-07, G-28). Every
// draw takes an injected random source and returns a record of what was
// drawn, so the draw can be logged and replayed. It is pure.
package draw

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/cardroom/cardroom/platform/fault"
)

// Seat is one drawn place: table number (1-based) and seat number
// (1-based).
type Seat struct {
	PlayerID string
	Table    int
	Seat     int
}

// ErrNoPlayers refuses a draw with nobody to seat.
var ErrNoPlayers = fault.New(fault.Precondition, "NO_ENTRIES", "there are no entries to seat")

// Seats draws every player a seat at random (TR-06). Players are spread
// over the fewest tables of seatsPerTable that hold them, the tables'
// sizes differing by at most one; which seats stay empty at a short table
// is drawn too. The result is in table, then seat order.
func Seats(players []string, seatsPerTable int, src rand.Source) ([]Seat, error) {
	if len(players) == 0 {
		return nil, ErrNoPlayers
	}
	if seatsPerTable < 2 || seatsPerTable > 10 {
		return nil, fault.Invalidf("seats_per_table", "must be between 2 and 10, got %d", seatsPerTable)
	}
	if dup := firstDuplicate(players); dup != "" {
		return nil, fault.Invalidf("players", "%s appears twice", dup)
	}
	r := rand.New(src)
	tables := (len(players) + seatsPerTable - 1) / seatsPerTable
	var slots []Seat
	for t := range tables {
		n := len(players) / tables
		if t < len(players)%tables {
			n++
		}
		seats := make([]int, seatsPerTable)
		for i := range seats {
			seats[i] = i + 1
		}
		r.Shuffle(len(seats), func(i, j int) { seats[i], seats[j] = seats[j], seats[i] })
		seats = seats[:n]
		slices.Sort(seats)
		for _, s := range seats {
			slots = append(slots, Seat{Table: t + 1, Seat: s})
		}
	}
	order := slices.Clone(players)
	r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	for i := range slots {
		slots[i].PlayerID = order[i]
	}
	return slots, nil
}

func firstDuplicate(ids []string) string {
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			return id
		}
		seen[id] = true
	}
	return ""
}

// Card is a playing card for the button draw, numbered as the table
// engine numbers its cards: (rank-2)*4 + suit, suits clubs, diamonds,
// hearts, spades. A higher number is a higher card by rank, then by suit
// (G-28 with G-09's suit order).
type Card uint8

// String returns the two-letter form, "As".
func (c Card) String() string {
	return string("23456789TJQKA"[c/4]) + string("cdhs"[c%4])
}

// ButtonResult is a button draw at one table: the card each seat drew and
// the seat that won the button.
type ButtonResult struct {
	Cards  map[int]Card
	Winner int
}

// ErrTooFewSeats refuses a button draw with fewer than two players.
var ErrTooFewSeats = fault.Rule(fault.Precondition, "TR-07", "BUTTON_DRAW_NEEDS_PLAYERS", "the button draw needs at least two players")

// Button deals one card to each occupied seat from a shuffled deck,
// in seat order, and gives the button to the highest card by suit (TR-07,
// G-28). It runs when a table opens and when the final table forms.
func Button(seats []int, src rand.Source) (ButtonResult, error) {
	if len(seats) < 2 {
		return ButtonResult{}, ErrTooFewSeats
	}
	if len(seats) > 52 {
		return ButtonResult{}, fmt.Errorf("button draw for %d seats: more seats than cards", len(seats))
	}
	order := slices.Clone(seats)
	slices.Sort(order)
	if len(slices.Compact(slices.Clone(order))) != len(order) {
		return ButtonResult{}, fault.Invalidf("seats", "a seat appears twice")
	}
	deck := ShuffledDeck(src)
	b := ButtonResult{Cards: make(map[int]Card, len(order))}
	best := Card(0)
	for i, s := range order {
		c := deck[i]
		b.Cards[s] = c
		if i == 0 || c > best {
			best, b.Winner = c, s
		}
	}
	return b, nil
}

// ShuffledDeck returns the 52 cards in an order drawn from src.
func ShuffledDeck(src rand.Source) []Card {
	deck := make([]Card, 52)
	for i := range deck {
		deck[i] = Card(i)
	}
	rand.New(src).Shuffle(len(deck), func(i, j int) { deck[i], deck[j] = deck[j], deck[i] })
	return deck
}
