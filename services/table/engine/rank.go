package engine

// Hand values for the showdown (engine/eval) and for the stud bring-in and
// first to act (partial up-card hands, here). Every value is "higher is
// better"; suits never break ties (TP-72).

import (
	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/engine/eval"
)

// highValue ranks the best five-card high hand in 5–7 cards.
func highValue(cs []cards.Card) uint32 { return uint32(eval.High(cs)) }

// omahaHigh is the best high hand using exactly two hole and three board cards.
func omahaHigh(hole, board []cards.Card) uint32 { return uint32(eval.Omaha(hole, board)) }

// low8Value is the best ace-to-five low of 8 or better (G-17); ok is false
// when none qualifies.
func low8Value(cs []cards.Card) (uint32, bool) {
	v, ok := eval.Low8(cs)
	return uint32(v), ok
}

// omahaLow8 is the best 8-or-better low using two hole and three board cards.
func omahaLow8(hole, board []cards.Card) (uint32, bool) {
	v, ok := eval.OmahaLow8(hole, board)
	return uint32(v), ok
}

// razzValue is the best ace-to-five low of 5–7 cards, pairs counting
// against; higher is better.
func razzValue(cs []cards.Card) uint32 { return uint32(eval.Razz(cs)) }

func lowRank(c cards.Card) int {
	if c.Rank() == cards.Ace {
		return 1
	}
	return int(c.Rank())
}

// groupKey ranks up to five cards by pairing pattern then ranks (no
// straights or flushes): for a high reading (aceLow false) higher is
// better; with aceLow the ace counts one and the caller inverts it.
func groupKey(cs []cards.Card, aceLow bool) uint32 {
	var cnt [15]uint8
	for _, c := range cs {
		r := int(c.Rank())
		if aceLow && r == 14 {
			r = 1
		}
		cnt[r]++
	}
	var cat uint32
	pairs := 0
	for r := 1; r <= 14; r++ {
		switch cnt[r] {
		case 2:
			pairs++
		case 3:
			cat = max(cat, 3)
		case 4:
			cat = 5
		}
	}
	switch {
	case cat == 3 && pairs > 0:
		cat = 4
	case cat == 0 && pairs == 2:
		cat = 2
	case cat == 0 && pairs == 1:
		cat = 1
	}
	key := cat << 20
	shift := 16
	for k := 4; k >= 1; k-- {
		for r := 14; r >= 1; r-- {
			if int(cnt[r]) == k {
				for j := 0; j < k && shift >= 0; j++ {
					key |= uint32(r) << shift
					shift -= 4
				}
			}
		}
	}
	return key
}

// showingValue ranks a stud player's face-up cards for the first to act
// and the first to show (TP-63): highest for stud and stud hi/lo, lowest
// for razz. Higher is better.
func showingValue(up []cards.Card, razz bool) uint32 {
	if razz {
		return 1<<24 - groupKey(up, true)
	}
	return groupKey(up, false)
}
