package eval

import (
	"sort"

	"github.com/cardroom/cardroom/services/table/engine/cards"
)

// The Best functions return the five cards that make a hand, for display at
// showdown. They allocate and are not meant for hot loops. When several
// choices tie, any one of them is returned. The cards come in reading order:
// the biggest group first (quads, trips, pairs), then by rank from the top;
// the wheel reads 5-4-3-2-A and a low reads from its highest card down.

// Best5 returns the five cards of the best high hand among cs (5 to 7
// cards) and its Value; nil and Invalid for other counts.
func Best5(cs []cards.Card) ([]cards.Card, Value) {
	best, v := bestOf(cs, nil, 0, High)
	if v == Invalid {
		return nil, Invalid
	}
	return ordered(best, v), v
}

// BestOmaha returns the five cards (two hole, three board) of the best
// Omaha high hand and its Value.
func BestOmaha(hole, board []cards.Card) ([]cards.Card, Value) {
	if Omaha(hole, board) == Invalid {
		return nil, Invalid
	}
	best, v := bestOf(hole, board, 2, High)
	return ordered(best, v), v
}

// BestLow8 returns the five cards of the best eight-or-better low among cs,
// its Value, and false when there is no qualifying low.
func BestLow8(cs []cards.Card) ([]cards.Card, Value, bool) {
	best, v := bestOf(cs, nil, 0, low8Of5)
	if v == Invalid {
		return nil, Invalid, false
	}
	return ordered(best, v), v, true
}

// BestOmahaLow8 returns the five cards (two hole, three board) of the best
// Omaha eight-or-better low, its Value, and false when there is none.
func BestOmahaLow8(hole, board []cards.Card) ([]cards.Card, Value, bool) {
	if _, ok := OmahaLow8(hole, board); !ok {
		return nil, Invalid, false
	}
	best, v := bestOf(hole, board, 2, low8Of5)
	return ordered(best, v), v, true
}

// BestRazz returns the five cards of the best razz hand among cs and its
// Value.
func BestRazz(cs []cards.Card) ([]cards.Card, Value) {
	best, v := bestOf(cs, nil, 0, Razz)
	if v == Invalid {
		return nil, Invalid
	}
	return ordered(best, v), v
}

func low8Of5(five []cards.Card) Value {
	v, _ := Low8(five)
	return v
}

// bestOf tries every five-card hand: five of a when b is nil, otherwise
// exactly fromA of a and 5-fromA of b.
func bestOf(a, b []cards.Card, fromA int, f func([]cards.Card) Value) ([]cards.Card, Value) {
	var best []cards.Card
	var bestV Value
	five := make([]cards.Card, 0, 5)
	try := func() {
		if v := f(five); v > bestV {
			bestV = v
			best = append(best[:0], five...)
		}
	}
	if b == nil {
		if len(a) < 5 || len(a) > 7 {
			return nil, Invalid
		}
		combos(a, 5, five, func(h []cards.Card) { five = h; try() })
		return best, bestV
	}
	combos(a, fromA, five, func(h []cards.Card) {
		combos(b, 5-fromA, h, func(full []cards.Card) { five = full; try() })
	})
	return best, bestV
}

// combos calls f with prefix extended by every k-subset of cs, in order.
func combos(cs []cards.Card, k int, prefix []cards.Card, f func([]cards.Card)) {
	if k == 0 {
		f(prefix)
		return
	}
	for i := 0; i+k <= len(cs); i++ {
		combos(cs[i+1:], k-1, append(prefix, cs[i]), f)
	}
}

// ordered sorts five cards for reading (see above).
func ordered(five []cards.Card, v Value) []cards.Card {
	out := append([]cards.Card(nil), five...)
	low := IsLow(v)
	cat := Category(v)
	wheel := !low && (cat == Straight || cat == StraightFlush) && v>>16&0xF == 5
	key := func(c cards.Card) int {
		r := int(c.Rank())
		if r == int(cards.Ace) && (low || wheel) {
			r = 1
		}
		return r
	}
	var count [15]int
	for _, c := range out {
		count[key(c)]++
	}
	sort.SliceStable(out, func(i, j int) bool {
		ki, kj := key(out[i]), key(out[j])
		if count[ki] != count[kj] {
			return count[ki] > count[kj]
		}
		if ki != kj {
			return ki > kj
		}
		return out[i].Suit() > out[j].Suit()
	})
	return out
}
