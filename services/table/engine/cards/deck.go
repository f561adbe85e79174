package cards

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// Source yields uniformly random 64-bit values. The shuffle draws from it; it
// is an interface so tests can inject a seeded source and production code a
// cryptographic one.
type Source interface {
	// Uint64 returns the next uniformly random value.
	Uint64() uint64
}

// cryptoSource reads crypto/rand.
type cryptoSource struct{}

func (cryptoSource) Uint64() uint64 {
	var b [8]byte
	// crypto/rand.Read never returns an error on supported platforms (Go 1.24+
	// crashes the program instead), so there is nothing to handle here.
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// NewCryptoSource returns a Source backed by crypto/rand, the source every
// live shuffle uses.
func NewCryptoSource() Source { return cryptoSource{} }

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

// Shuffle permutes d in place with an unbiased Fisher–Yates shuffle, drawing
// each index by rejection sampling so that no position is favoured by modulo
// bias.
func (d Deck) Shuffle(src Source) {
	for i := len(d) - 1; i > 0; i-- {
		j := uniform(src, uint64(i+1))
		d[i], d[j] = d[j], d[i]
	}
}

// uniform returns a uniform value in [0, n) using Lemire's multiply-shift with
// rejection, which is exact for every n.
func uniform(src Source, n uint64) uint64 {
	threshold := -n % n
	for {
		v := src.Uint64()
		hi, lo := bits.Mul64(v, n)
		if lo >= threshold {
			return hi
		}
	}
}

// ErrDeckExhausted is returned when more cards are dealt than remain.
var ErrDeckExhausted = errors.New("deck exhausted")

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

// SplitMix64 is a small seeded Source for tests and simulations. It is not
// for live shuffles.
type SplitMix64 struct{ state uint64 }

// NewSeeded returns a SplitMix64 source started from seed.
func NewSeeded(seed uint64) *SplitMix64 { return &SplitMix64{state: seed} }

// Uint64 returns the next value.
func (s *SplitMix64) Uint64() uint64 {
	s.state += 0x9e3779b97f4a7c15
	z := s.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
