package eval

import (
	"math/rand/v2"

	"github.com/cardroom/cardroom/services/table/engine/cards"
)

// This file holds slow, obviously correct evaluators that the fast ones are
// checked against. They share nothing with the table builders but the Value
// layout (category, then rank nibbles from the most significant).

// refGroup is a rank and how many of the five cards hold it.
type refGroup struct{ rank, count int }

// refGroups groups five ranks (1–14) by count, biggest group first, then
// highest rank first. It returns the groups and how many there are.
func refGroups(ranks [5]int) ([5]refGroup, int) {
	var count [15]int
	for _, r := range ranks {
		count[r]++
	}
	var gs [5]refGroup
	n := 0
	for c := 4; c >= 1; c-- {
		for r := 14; r >= 1; r-- {
			if count[r] == c {
				gs[n] = refGroup{r, c}
				n++
			}
		}
	}
	return gs, n
}

func refPack(cat int, gs []refGroup) Value {
	v := Value(cat) << 20
	for i, g := range gs {
		v |= Value(g.rank) << (16 - 4*i)
	}
	return v
}

// refHigh5 scores exactly five cards by the rules as written in any rule book.
func refHigh5(five []cards.Card) Value {
	var ranks [5]int
	flush := true
	for i, c := range five {
		ranks[i] = int(c.Rank())
		if c.Suit() != five[0].Suit() {
			flush = false
		}
	}
	all, n := refGroups(ranks)
	gs := all[:n]
	straightTop := 0
	if n == 5 {
		if gs[0].rank-gs[4].rank == 4 {
			straightTop = gs[0].rank
		} else if gs[0].rank == 14 && gs[1].rank == 5 {
			straightTop = 5 // A-2-3-4-5
		}
	}
	switch {
	case straightTop != 0 && flush:
		return refPack(9, []refGroup{{straightTop, 1}})
	case gs[0].count == 4:
		return refPack(8, gs)
	case gs[0].count == 3 && gs[1].count == 2:
		return refPack(7, gs)
	case flush:
		return refPack(6, gs)
	case straightTop != 0:
		return refPack(5, []refGroup{{straightTop, 1}})
	case gs[0].count == 3:
		return refPack(4, gs)
	case gs[0].count == 2 && gs[1].count == 2:
		return refPack(3, gs)
	case gs[0].count == 2:
		return refPack(2, gs)
	default:
		return refPack(1, gs)
	}
}

// refRazz5 scores exactly five cards as an ace-to-five low.
func refRazz5(five []cards.Card) Value {
	var ranks [5]int
	for i, c := range five {
		ranks[i] = int(c.Rank())
		if ranks[i] == 14 {
			ranks[i] = 1
		}
	}
	all, n := refGroups(ranks)
	gs := all[:n]
	var cat int
	switch {
	case gs[0].count == 4:
		cat = 5
	case gs[0].count == 3 && gs[1].count == 2:
		cat = 4
	case gs[0].count == 3:
		cat = 3
	case gs[0].count == 2 && gs[1].count == 2:
		cat = 2
	case gs[0].count == 2:
		cat = 1
	}
	badness := refPack(cat, gs)
	return Value(1<<28) | (0xFFFFFF - badness)
}

// refLow8of5 is refRazz5 restricted to qualifying eight-or-better lows.
func refLow8of5(five []cards.Card) Value {
	var seen [15]bool
	for _, c := range five {
		if seen[c.Rank()] || (c.Rank() > cards.Eight && c.Rank() != cards.Ace) {
			return Invalid
		}
		seen[c.Rank()] = true
	}
	return refRazz5(five)
}

// refBest tries every five-card subset of cs.
func refBest(cs []cards.Card, f func([]cards.Card) Value) Value {
	var best Value
	var five [5]cards.Card
	n := len(cs)
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			for c := b + 1; c < n; c++ {
				for d := c + 1; d < n; d++ {
					for e := d + 1; e < n; e++ {
						five = [5]cards.Card{cs[a], cs[b], cs[c], cs[d], cs[e]}
						best = max(best, f(five[:]))
					}
				}
			}
		}
	}
	return best
}

// refOmahaBest tries every two hole cards with every three board cards.
func refOmahaBest(hole, board []cards.Card, f func([]cards.Card) Value) Value {
	var best Value
	var five [5]cards.Card
	for a := 0; a < len(hole); a++ {
		for b := a + 1; b < len(hole); b++ {
			for c := 0; c < len(board); c++ {
				for d := c + 1; d < len(board); d++ {
					for e := d + 1; e < len(board); e++ {
						five = [5]cards.Card{hole[a], hole[b], board[c], board[d], board[e]}
						best = max(best, f(five[:]))
					}
				}
			}
		}
	}
	return best
}

// deal returns n distinct random cards.
func deal(r *rand.Rand, n int) []cards.Card {
	var deck [cards.NumCards]cards.Card
	for i := range deck {
		deck[i] = cards.Card(i)
	}
	for i := 0; i < n; i++ {
		j := i + r.IntN(cards.NumCards-i)
		deck[i], deck[j] = deck[j], deck[i]
	}
	return append([]cards.Card(nil), deck[:n]...)
}
