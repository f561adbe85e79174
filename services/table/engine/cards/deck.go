package cards

import (
	"fmt"
	"math/rand/v2"
)

// Deck is an ordered stack of cards; Deal takes from the front.
type Deck []Card

// NewDeck returns the 52 cards in order, two of clubs first.
func NewDeck() Deck {
	d := make(Deck, NumCards)
	for i := range d {
		d[i] = Card(i)
	}
	return d
}

// Shuffle permutes d in place with math/rand/v2's unbiased Fisher–Yates
// shuffle. src is the only randomness: crypto/rand in play
// (platform/random.Crypto), a seeded source in tests.
func (d Deck) Shuffle(src rand.Source) {
	rand.New(src).Shuffle(len(d), func(i, j int) { d[i], d[j] = d[j], d[i] })
}

// Validate reports whether d holds only valid cards, each at most once.
func (d Deck) Validate() error {
	var seen uint64
	for i, c := range d {
		if !c.Valid() {
			return fmt.Errorf("deck position %d: %w", i, ErrBadCard)
		}
		if seen&(1<<c) != 0 {
			return fmt.Errorf("deck position %d: %s: %w", i, c, ErrDuplicateCard)
		}
		seen |= 1 << c
	}
	return nil
}
