package eval

import (
	"strings"
)

var rankNames = [15]string{2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
	8: "eight", 9: "nine", 10: "ten", 11: "jack", 12: "queen", 13: "king", 14: "ace"}

var rankPlurals = [15]string{2: "twos", 3: "threes", 4: "fours", 5: "fives", 6: "sixes",
	7: "sevens", 8: "eights", 9: "nines", 10: "tens", 11: "jacks", 12: "queens", 13: "kings", 14: "aces"}

// rankChars is indexed by rank 1–14; 1 is the ace playing low.
const rankChars = "?A23456789TJQKA"

// nibbles returns the five rank nibbles of a value, most significant first.
func nibbles(v uint32) [5]int {
	var out [5]int
	for i := range out {
		out[i] = int(v >> (16 - 4*i) & 0xF)
	}
	return out
}

// dashed writes ranks like "K-9-4", skipping empty nibbles.
func dashed(rs []int) string {
	var b strings.Builder
	for _, r := range rs {
		if r == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('-')
		}
		b.WriteByte(rankChars[r])
	}
	return b.String()
}

// Describe returns a high Value in words, for example "full house, kings
// full of sevens", "two pair, aces and nines, king kicker" or "straight,
// five high". A low Value is passed to DescribeLow.
func Describe(v Value) string {
	if IsLow(v) {
		return DescribeLow(v)
	}
	n := nibbles(uint32(v))
	switch Category(v) {
	case StraightFlush:
		if n[0] == 14 {
			return "royal flush"
		}
		return "straight flush, " + rankNames[n[0]] + " high"
	case Quads:
		return "four of a kind, " + rankPlurals[n[0]] + ", " + rankNames[n[1]] + " kicker"
	case FullHouse:
		return "full house, " + rankPlurals[n[0]] + " full of " + rankPlurals[n[1]]
	case Flush:
		return "flush, " + dashed(n[:]) // all five cards matter
	case Straight:
		return "straight, " + rankNames[n[0]] + " high"
	case Trips:
		return "three of a kind, " + rankPlurals[n[0]] + ", kickers " + dashed(n[1:3])
	case TwoPair:
		return "two pair, " + rankPlurals[n[0]] + " and " + rankPlurals[n[1]] + ", " + rankNames[n[2]] + " kicker"
	case Pair:
		return "pair of " + rankPlurals[n[0]] + ", kickers " + dashed(n[1:4])
	case HighCard:
		return rankNames[n[0]] + " high, " + dashed(n[:])
	default:
		return "no hand"
	}
}

// DescribeLow returns an ace-to-five low Value (Low8, OmahaLow8, Razz) in
// words: "8-6-4-3-A low", or for a razz hand with a pair "pair of twos,
// 7-5-A". A high Value is passed to Describe.
func DescribeLow(v Value) string {
	if v == Invalid {
		return "no low"
	}
	if !IsLow(v) {
		return Describe(v)
	}
	n := nibbles(lowBadness(v))
	switch Category(v) {
	case HighCard:
		return dashed(n[:]) + " low"
	case Pair:
		return "pair of " + lowPlural(n[0]) + ", " + dashed(n[1:4])
	case TwoPair:
		return "two pair, " + lowPlural(n[0]) + " and " + lowPlural(n[1]) + ", " + dashed(n[2:3])
	case Trips:
		return "three of a kind, " + lowPlural(n[0]) + ", " + dashed(n[1:3])
	case FullHouse:
		return "full house, " + lowPlural(n[0]) + " full of " + lowPlural(n[1])
	case Quads:
		return "four of a kind, " + lowPlural(n[0]) + ", " + dashed(n[1:2])
	default:
		return "no low"
	}
}

// lowPlural names a low nibble (1 = ace … 13 = king) in the plural.
func lowPlural(r int) string {
	if r == 1 {
		return rankPlurals[14]
	}
	return rankPlurals[r]
}
