package eval

import (
	"math/bits"

	"github.com/cardroom/cardroom/services/table/engine/cards"
)

// Ace-to-five lows. Aces are low, straights and flushes do not count, pairs
// count against the hand. A low is scored by its "badness", laid out like a
// high Value but with ace = 1 and a pairing category (0 five different
// ranks, 1 pair, 2 two pair, 3 trips, 4 full house, 5 quads): a smaller
// badness is a better low. The Value is lowFlag | (lowTop - badness), so the
// better low has the larger Value, and Low8 and Razz give the same Value to
// the same five cards.

const (
	lowNoPairCat = iota
	lowPairCat
	lowTwoPairCat
	lowTripsCat
	lowFullHouseCat
	lowQuadsCat
)

// lowValue turns a badness into a Value.
func lowValue(badness uint32) Value { return lowFlag | (lowTop - Value(badness)) }

// lowPack packs a pairing category and up to five ace-to-five rank indexes
// (ace 0 … king 12) as nibbles holding index+1, most significant first.
func lowPack(cat int, ranks ...int) uint32 {
	b := uint32(cat) << catShift
	for i, r := range ranks {
		b |= uint32(r+1) << (16 - 4*i)
	}
	return b
}

// lowNoPair is the badness of the five lowest ranks of a mask holding at
// least five ranks (bit 0 = ace).
func lowNoPair(m uint16) uint32 {
	var rs [5]int
	n := 0
	for r := 0; r < 13 && n < 5; r++ {
		if m&(1<<r) != 0 {
			rs[n] = r
			n++
		}
	}
	return lowPack(lowNoPairCat, rs[4], rs[3], rs[2], rs[1], rs[0])
}

// Low8 returns the best ace-to-five low of 5 to 7 cards that qualifies for
// eight-or-better (five different ranks, all eight or lower), and ok=false
// when there is none. It does not allocate.
func Low8(cs []cards.Card) (Value, bool) {
	if len(cs) < 5 || len(cs) > 7 {
		return Invalid, false
	}
	var m uint8
	for _, c := range cs {
		m |= low8Bit[c]
	}
	v := low8Value[m]
	return v, v != Invalid
}

// OmahaLow8 returns the best eight-or-better low made of exactly two of the
// hole cards and exactly three of the board cards, and ok=false when there
// is none. Card counts are those of Omaha. It does not allocate.
func OmahaLow8(hole, board []cards.Card) (Value, bool) {
	if len(hole) < 2 || len(hole) > 5 || len(board) < 3 || len(board) > 5 {
		return Invalid, false
	}
	var hm [10]uint8
	nh := 0
	for i := 0; i < len(hole); i++ {
		for j := i + 1; j < len(hole); j++ {
			if m := low8Bit[hole[i]] | low8Bit[hole[j]]; bits.OnesCount8(m) == 2 {
				hm[nh] = m
				nh++
			}
		}
	}
	var bm [10]uint8
	nb := 0
	for i := 0; i < len(board); i++ {
		for j := i + 1; j < len(board); j++ {
			for l := j + 1; l < len(board); l++ {
				if m := low8Bit[board[i]] | low8Bit[board[j]] | low8Bit[board[l]]; bits.OnesCount8(m) == 3 {
					bm[nb] = m
					nb++
				}
			}
		}
	}
	var best Value
	for _, h := range hm[:nh] {
		for _, b := range bm[:nb] {
			if h&b == 0 {
				best = max(best, low8Value[h|b])
			}
		}
	}
	return best, best != Invalid
}

// Razz returns the best ace-to-five low of 5 to 7 cards with no qualifier:
// five different ranks beat any pair, one pair beats two pair, then trips,
// full house and quads; within a pairing the lower ranks win, compared like
// a high hand (pair first, then kickers from the top). Any other number of
// cards gives Invalid. It does not allocate.
func Razz(cs []cards.Card) Value {
	if len(cs) < 5 || len(cs) > 7 {
		return Invalid
	}
	var cnt [13]uint8
	var present uint16
	for _, c := range cs {
		b := lowBit[c]
		if b == 0 {
			return Invalid
		}
		present |= b
		cnt[bits.TrailingZeros16(b)]++
	}
	return lowValue(razzBadness(&cnt, present))
}

// razzBadness picks the best five of the counted cards. With five or more
// ranks there is no pair; otherwise the missing cards must repeat ranks, and
// the best choice repeats the lowest ranks that make the weakest pairing.
func razzBadness(cnt *[13]uint8, present uint16) uint32 {
	var rs [13]int // distinct ranks, lowest first
	d := 0
	for r := 0; r < 13; r++ {
		if cnt[r] > 0 {
			rs[d] = r
			d++
		}
	}
	switch {
	case d >= 5:
		return lowNoPair(present)
	case d == 4:
		// One pair: the lowest rank held twice; the other three ranks
		// are the kickers.
		p := -1
		for _, r := range rs[:4] {
			if cnt[r] >= 2 {
				p = r
				break
			}
		}
		k := make3(rs[:4], p)
		return lowPack(lowPairCat, p, k[2], k[1], k[0])
	case d == 3:
		var dup [3]int
		nd := 0
		for _, r := range rs[:3] {
			if cnt[r] >= 2 {
				dup[nd] = r
				nd++
			}
		}
		if nd >= 2 {
			// Two pair from the two lowest repeated ranks; the third
			// rank is the kicker.
			lo, hi := dup[0], dup[1]
			kick := rs[0] + rs[1] + rs[2] - lo - hi
			return lowPack(lowTwoPairCat, hi, lo, kick)
		}
		// Only one rank repeats, so it is held three or more times.
		t := dup[0]
		k := make3(rs[:3], t)
		return lowPack(lowTripsCat, t, k[1], k[0])
	default: // d == 2: a full house if possible, else quads
		a, b := rs[0], rs[1]
		switch {
		case cnt[a] >= 3 && cnt[b] >= 2:
			return lowPack(lowFullHouseCat, a, b)
		case cnt[b] >= 3 && cnt[a] >= 2:
			return lowPack(lowFullHouseCat, b, a)
		case cnt[a] == 4:
			return lowPack(lowQuadsCat, a, b)
		default:
			return lowPack(lowQuadsCat, b, a)
		}
	}
}

// make3 returns rs without the rank skip, keeping the order (lowest first).
func make3(rs []int, skip int) [3]int {
	var out [3]int
	n := 0
	for _, r := range rs {
		if r != skip && n < 3 {
			out[n] = r
			n++
		}
	}
	return out
}
