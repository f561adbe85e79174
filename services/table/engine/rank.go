package engine

// Hand values for the showdown, the stud first-to-act and bring-in. The
// showdown values are computed here until engine/eval lands; then these
// functions become thin wrappers around it. Every value is "higher is
// better"; suits never break ties (TP-72).

import "github.com/cardroom/cardroom/services/table/engine/cards"

// highValue ranks the best five-card high hand in 5–7 cards.
func highValue(cs []cards.Card) uint32 {
	var cnt [15]uint8
	var suitMask [4]uint16
	var suitCnt [4]uint8
	var rankMask uint16
	for _, c := range cs {
		r := c.Rank()
		cnt[r]++
		suitMask[c.Suit()] |= 1 << r
		suitCnt[c.Suit()]++
		rankMask |= 1 << r
	}
	for s := 0; s < 4; s++ {
		if suitCnt[s] >= 5 {
			if top := straightTop(suitMask[s]); top > 0 {
				return 8<<20 | uint32(top)<<16
			}
			return 5<<20 | topRanks(suitMask[s], 5)
		}
	}
	var quad, trip, trip2, pair1, pair2 uint32
	for r := 14; r >= 2; r-- {
		switch cnt[r] {
		case 4:
			quad = uint32(r)
		case 3:
			if trip == 0 {
				trip = uint32(r)
			} else if trip2 == 0 {
				trip2 = uint32(r)
			}
		case 2:
			if pair1 == 0 {
				pair1 = uint32(r)
			} else if pair2 == 0 {
				pair2 = uint32(r)
			}
		}
	}
	if quad != 0 {
		return 7<<20 | quad<<16 | topRanks(rankMask&^(1<<quad), 1)>>4
	}
	if trip != 0 && (pair1 != 0 || trip2 != 0) {
		p := max(pair1, trip2)
		return 6<<20 | trip<<16 | p<<12
	}
	if top := straightTop(rankMask); top > 0 {
		return 4<<20 | uint32(top)<<16
	}
	if trip != 0 {
		return 3<<20 | trip<<16 | topRanks(rankMask&^(1<<trip), 2)>>4
	}
	if pair2 != 0 {
		return 2<<20 | pair1<<16 | pair2<<12 | topRanks(rankMask&^(1<<pair1|1<<pair2), 1)>>8
	}
	if pair1 != 0 {
		return 1<<20 | pair1<<16 | topRanks(rankMask&^(1<<pair1), 3)>>4
	}
	return topRanks(rankMask, 5)
}

// topRanks packs the n highest ranks of mask into nibbles from bit 16 down.
func topRanks(mask uint16, n int) uint32 {
	var v uint32
	shift := 16
	for r := 14; r >= 2 && n > 0; r-- {
		if mask&(1<<r) != 0 {
			v |= uint32(r) << shift
			shift -= 4
			n--
		}
	}
	return v
}

// straightTop returns the top rank of the best straight in mask, 0 if none.
func straightTop(mask uint16) int {
	if mask&(1<<14) != 0 {
		mask |= 1 << 1 // the ace plays low in the wheel
	}
	for top := 14; top >= 5; top-- {
		m := uint16(0x1F) << (top - 4)
		if mask&m == m {
			return top
		}
	}
	return 0
}

// omahaHigh is the best high hand using exactly two hole and three board cards.
func omahaHigh(hole, board []cards.Card) uint32 {
	var best uint32
	var h [5]cards.Card
	for a := 0; a < len(hole); a++ {
		for b := a + 1; b < len(hole); b++ {
			h[0], h[1] = hole[a], hole[b]
			for x := 0; x < len(board); x++ {
				for y := x + 1; y < len(board); y++ {
					for z := y + 1; z < len(board); z++ {
						h[2], h[3], h[4] = board[x], board[y], board[z]
						if v := highValue(h[:]); v > best {
							best = v
						}
					}
				}
			}
		}
	}
	return best
}

func lowRank(c cards.Card) int {
	if c.Rank() == cards.Ace {
		return 1
	}
	return int(c.Rank())
}

// low8Value is the best ace-to-five low of 8 or better (G-17); ok is false
// when no five distinct ranks of eight or lower exist.
func low8Value(cs []cards.Card) (uint32, bool) {
	var mask uint16
	for _, c := range cs {
		if r := lowRank(c); r <= 8 {
			mask |= 1 << r
		}
	}
	var key uint32
	n := 0
	shift := 0
	for r := 1; r <= 8 && n < 5; r++ {
		if mask&(1<<r) != 0 {
			key |= uint32(r) << shift
			shift += 4
			n++
		}
	}
	if n < 5 {
		return 0, false
	}
	return 1<<20 - key, true // the highest card is in the top nibble
}

// omahaLow8 is the best 8-or-better low using two hole and three board cards.
func omahaLow8(hole, board []cards.Card) (uint32, bool) {
	var best uint32
	found := false
	var h [5]cards.Card
	for a := 0; a < len(hole); a++ {
		for b := a + 1; b < len(hole); b++ {
			h[0], h[1] = hole[a], hole[b]
			for x := 0; x < len(board); x++ {
				for y := x + 1; y < len(board); y++ {
					for z := y + 1; z < len(board); z++ {
						h[2], h[3], h[4] = board[x], board[y], board[z]
						if v, ok := low8Value(h[:]); ok && (!found || v > best) {
							best, found = v, true
						}
					}
				}
			}
		}
	}
	return best, found
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

// razzValue is the best ace-to-five low of 5–7 cards, pairs counting
// against; higher is better.
func razzValue(cs []cards.Card) uint32 {
	best := uint32(0)
	n := len(cs)
	var h [5]cards.Card
	var rec func(start, k int)
	rec = func(start, k int) {
		if k == 5 {
			if v := 1<<24 - groupKey(h[:], true); v > best {
				best = v
			}
			return
		}
		for i := start; i <= n-(5-k); i++ {
			h[k] = cs[i]
			rec(i+1, k+1)
		}
	}
	if n < 5 {
		return 1<<24 - groupKey(cs, true)
	}
	rec(0, 0)
	return best
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
