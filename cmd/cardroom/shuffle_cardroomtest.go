//go:build cardroomtest

package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/cardroom/cardroom/platform/random"
	"github.com/cardroom/cardroom/services/table/engine/cards"
)

// In test builds CARDROOM_TEST_DECK_SEED seeds every shuffle from one
// seeded stream (platform/random.Seeded), so a run with the same seed and actions deals the
// same cards (the crash test compares an interrupted night with an
// uninterrupted one).
func init() {
	v := os.Getenv("CARDROOM_TEST_DECK_SEED")
	if v == "" {
		return
	}
	seed, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		panic(fmt.Sprintf("CARDROOM_TEST_DECK_SEED=%q: %v", v, err))
	}
	var mu sync.Mutex
	src := random.Seeded(seed)
	testShuffle = func() cards.Deck {
		mu.Lock()
		defer mu.Unlock()
		d := cards.NewDeck()
		d.Shuffle(src)
		return d
	}
	fmt.Fprintln(os.Stderr, "cardroom: TEST BUILD: decks are seeded, never use this binary for play")
}
