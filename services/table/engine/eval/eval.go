// Package eval ranks poker hands: high hands from five to seven cards,
// Omaha (exactly two hole cards and three board cards), ace-to-five lows with
// the eight-or-better qualifier, and razz.
//
// Every result is a Value: a larger Value is a better hand for the kind of
// comparison that produced it, and two hands tie exactly when their Values
// are equal. Suits never break ties (TP-72). High and low Values live in
// separate ranges and are never compared with each other.
//
// High is the hot path. It adds one precomputed 64-bit key per card; the sum
// holds a per-rank key (unique for every multiset of up to seven ranks), four
// suit counters and the rank bits. A flush is found from the suit counters and
// looked up by its 13-bit rank mask; anything else is found through a perfect
// hash of the rank key. All tables are computed at package initialisation
// from first principles; nothing is downloaded or read from disk.
package eval

import (
	"math/bits"

	"github.com/cardroom/cardroom/services/table/engine/cards"
)

// Value is the strength of a hand. Higher is better for every kind of
// comparison, lows included (a better low has a larger Value). Zero is
// Invalid.
//
// A high Value holds the category in bits 20–23 and up to five rank nibbles
// (2–14) in bits 0–19, most significant first: the pair before its kickers,
// the trips before the pair of a full house, a straight by its top card (5
// for the wheel). A low Value has bit 28 set and holds 0xFFFFFF minus the
// "badness" of the ace-to-five hand (see Razz), so it, too, grows as the hand
// improves.
type Value uint32

// Invalid is the Value of no hand: too few cards, or no qualifying low.
const Invalid Value = 0

// Cat is the category of a hand: high card up to straight flush.
type Cat uint8

// Categories, weakest first. Their order is the order of the hands.
const (
	NoCat Cat = iota // not a hand (Invalid)
	HighCard
	Pair
	TwoPair
	Trips
	Straight
	Flush
	FullHouse
	Quads
	StraightFlush
)

const (
	catShift = 20
	lowFlag  = Value(1) << 28
	lowTop   = Value(0xFFFFFF)
)

// High returns the value of the best five-card high hand among 5, 6 or 7
// cards. Any other number of cards gives Invalid. The cards must be valid
// and distinct; the engine checks that when cards are dealt. High does not
// allocate.
func High(cs []cards.Card) Value {
	var k uint64
	switch len(cs) {
	case 7:
		_ = cs[6]
		k = cardKey[cs[0]] + cardKey[cs[1]] + cardKey[cs[2]] + cardKey[cs[3]] +
			cardKey[cs[4]] + cardKey[cs[5]] + cardKey[cs[6]]
	case 6:
		_ = cs[5]
		k = cardKey[cs[0]] + cardKey[cs[1]] + cardKey[cs[2]] + cardKey[cs[3]] +
			cardKey[cs[4]] + cardKey[cs[5]]
	case 5:
		_ = cs[4]
		k = cardKey[cs[0]] + cardKey[cs[1]] + cardKey[cs[2]] + cardKey[cs[3]] +
			cardKey[cs[4]]
		// Five cards of one suit have five different ranks, so the summed
		// rank bits are the flush's rank mask.
		k += suitBias
		if uint32(k>>32)&flushBits != 0 {
			return flushValue[k>>rankBitShift&0x1FFF]
		}
		return rankValue(uint32(k))
	default:
		return Invalid
	}
	k += suitBias
	if f := uint32(k>>32) & flushBits; f != 0 {
		return flushHigh(cs, cards.Card(bits.TrailingZeros32(f)/4))
	}
	return rankValue(uint32(k))
}

// flushHigh evaluates a hand known to hold five or more cards of suit s. No
// other suit can then make a hand that beats the flush: with seven cards,
// five of one suit leave two cards, too few for quads or a full house.
func flushHigh(cs []cards.Card, s cards.Card) Value {
	var m uint32
	for _, c := range cs {
		if c&3 == s {
			m |= 1 << (c >> 2)
		}
	}
	return flushValue[m&0x1FFF]
}

// rankValue looks a rank key up in the perfect hash of rank multisets.
func rankValue(r uint32) Value {
	x := uint64(r) * hashMul
	return hashValue[(uint32(x>>homeShift)^hashDisp[x>>(64-bucketBits)])&hashMask]
}

// Omaha returns the value of the best high hand made of exactly two of the
// hole cards and exactly three of the board cards. hole must hold 2 to 5
// cards (4 in Omaha, 5 in five-card Omaha) and board 3 to 5; otherwise
// Omaha returns Invalid. It does not allocate.
func Omaha(hole, board []cards.Card) Value {
	if len(hole) < 2 || len(hole) > 5 || len(board) < 3 || len(board) > 5 {
		return Invalid
	}
	var hk [10]uint64
	nh := 0
	for i := 0; i < len(hole); i++ {
		for j := i + 1; j < len(hole); j++ {
			hk[nh] = cardKey[hole[i]] + cardKey[hole[j]] + suitBias
			nh++
		}
	}
	var bk [10]uint64
	nb := 0
	for i := 0; i < len(board); i++ {
		for j := i + 1; j < len(board); j++ {
			for l := j + 1; l < len(board); l++ {
				bk[nb] = cardKey[board[i]] + cardKey[board[j]] + cardKey[board[l]]
				nb++
			}
		}
	}
	var best Value
	for _, h := range hk[:nh] {
		for _, b := range bk[:nb] {
			k := h + b
			var v Value
			if uint32(k>>32)&flushBits != 0 {
				v = flushValue[k>>rankBitShift&0x1FFF]
			} else {
				v = rankValue(uint32(k))
			}
			if v > best {
				best = v
			}
		}
	}
	return best
}
