package main

import "github.com/cardroom/cardroom/services/table/engine/cards"

// testShuffle, when set, replaces the table service's crypto/rand shuffle.
// Only a binary built with the cardroomtest build tag sets it (from
// CARDROOM_TEST_DECK_SEED, see shuffle_cardroomtest.go), so that end-to-end
// tests can replay a night with known decks; release builds cannot.
var testShuffle func() cards.Deck
