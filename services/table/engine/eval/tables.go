package eval

import (
	"fmt"
	"math/bits"
	"sort"
)

// rankKeys holds one key per rank, deuce first. Every multiset of at most
// seven ranks (at most four of each) has a different sum of keys. The keys
// for deuce to king were found by a greedy search (each is the smallest
// number above the previous one that keeps all sums distinct); the ace's is
// one more than the largest sum of the others, which makes it trivially
// safe. buildHash proves the property again at start-up and panics if it
// does not hold.
var rankKeys = [13]uint32{1, 5, 24, 112, 521, 2247, 9244, 30823, 103066, 250154, 667453, 1526359, 8107796}

// Layout of a card's 64-bit key and of their sum.
const (
	// Bits 32–47: one 4-bit counter per suit. The sum starts each counter
	// at 3, so a counter reaches 8 (its top bit) exactly when five cards
	// of that suit are present.
	suitBias  = uint64(0x3333) << 32
	flushBits = 0x8888
	// Bits 48–60: the rank bits. Summed, they equal the rank mask whenever
	// the ranks are distinct, which five cards of one suit always are.
	rankBitShift = 48
)

// Perfect hash of rank keys (see buildHash).
const (
	hashMul     = 0x9E3779B97F4A7C15 // 2^64 / golden ratio, odd
	bucketBits  = 14
	bucketCount = 1 << bucketBits
	homeShift   = 20
	hashBits    = 17
	hashSize    = 1 << hashBits
	hashMask    = hashSize - 1
)

var (
	// cardKey is indexed by cards.Card; entries 52–255 stay zero so that
	// indexing with any byte is safe.
	cardKey    [256]uint64
	hashDisp   [bucketCount]uint32
	hashValue  [hashSize]Value
	flushValue [1 << 13]Value
	// lowBit maps a card to its bit in an ace-to-five rank mask (ace = bit 0,
	// king = bit 12); low8Bit keeps only ace to eight.
	lowBit  [256]uint16
	low8Bit [256]uint8
	// low8Value is the value of the best eight-or-better low from a mask of
	// ace-to-eight ranks, Invalid when fewer than five.
	low8Value [256]Value
	lowCats   = [16]Cat{HighCard, Pair, TwoPair, Trips, FullHouse, Quads}
)

func init() {
	for c := 0; c < 52; c++ {
		r, s := c/4, c%4
		cardKey[c] = uint64(rankKeys[r]) | 1<<(32+4*s) | 1<<(rankBitShift+r)
		lr := (r + 1) % 13 // ace-to-five: ace 0, deuce 1, ..., king 12
		lowBit[c] = 1 << lr
		if lr < 8 {
			low8Bit[c] = 1 << lr
		}
	}
	for m := range flushValue {
		if bits.OnesCount(uint(m)) >= 5 {
			flushValue[m] = flushFromMask(uint16(m))
		}
	}
	for m := range low8Value {
		if bits.OnesCount(uint(m)) >= 5 {
			low8Value[m] = lowValue(lowNoPair(uint16(m)))
		}
	}
	buildHash()
}

// highValue packs a category and up to five rank nibbles, most significant
// first.
func highValue(c Cat, ranks ...int) Value {
	v := Value(c) << catShift
	for i, r := range ranks {
		v |= Value(r) << (16 - 4*i)
	}
	return v
}

// straightTop returns the top rank (2–14) of the best straight in a 13-bit
// rank mask (bit 0 = deuce), 5 for the wheel, or 0 when there is none.
func straightTop(m uint16) int {
	for top := 12; top >= 4; top-- {
		run := uint16(0x1F) << (top - 4)
		if m&run == run {
			return top + 2
		}
	}
	const wheel = 1<<12 | 0xF // A, 2, 3, 4, 5
	if m&wheel == wheel {
		return 5
	}
	return 0
}

// topRanks returns the n highest ranks (2–14) of a mask, highest first.
func topRanks(m uint16, n int) []int {
	out := make([]int, 0, n)
	for r := 12; r >= 0 && len(out) < n; r-- {
		if m&(1<<r) != 0 {
			out = append(out, r+2)
		}
	}
	return out
}

// flushFromMask is the value of five or more cards of one suit.
func flushFromMask(m uint16) Value {
	if top := straightTop(m); top != 0 {
		return highValue(StraightFlush, top)
	}
	return highValue(Flush, topRanks(m, 5)...)
}

// countsValue is the best non-flush high hand from rank counts (index 0 =
// deuce) of five to seven cards.
func countsValue(cnt *[13]uint8) Value {
	var present uint16
	var groups [5][]int // groups[n]: ranks (2–14) held n times, highest first
	for r := 12; r >= 0; r-- {
		if n := cnt[r]; n > 0 {
			present |= 1 << r
			groups[n] = append(groups[n], r+2)
		}
	}
	without := func(rs ...int) uint16 {
		m := present
		for _, r := range rs {
			m &^= 1 << (r - 2)
		}
		return m
	}
	if q := groups[4]; len(q) > 0 {
		return highValue(Quads, append([]int{q[0]}, topRanks(without(q[0]), 1)...)...)
	}
	if t := groups[3]; len(t) > 0 {
		pairs := append(append([]int{}, t[1:]...), groups[2]...)
		sort.Sort(sort.Reverse(sort.IntSlice(pairs)))
		if len(pairs) > 0 {
			return highValue(FullHouse, t[0], pairs[0])
		}
	}
	if top := straightTop(present); top != 0 {
		return highValue(Straight, top)
	}
	if t := groups[3]; len(t) > 0 {
		return highValue(Trips, append([]int{t[0]}, topRanks(without(t[0]), 2)...)...)
	}
	if p := groups[2]; len(p) >= 2 {
		return highValue(TwoPair, p[0], p[1], topRanks(without(p[0], p[1]), 1)[0])
	}
	if p := groups[2]; len(p) == 1 {
		return highValue(Pair, append([]int{p[0]}, topRanks(without(p[0]), 3)...)...)
	}
	return highValue(HighCard, topRanks(present, 5)...)
}

// buildHash fills hashDisp and hashValue with a hash-and-displace perfect
// hash of the rank keys of every multiset of five to seven cards: a key's
// product with hashMul picks a bucket (top bits) and a home slot (middle
// bits); each bucket gets the displacement, XORed into the home slot, that
// puts all its keys in free slots.
func buildHash() {
	type entry struct {
		home uint32
		val  Value
	}
	buckets := make([][]entry, bucketCount)
	var cnt [13]uint8
	seen := make(map[uint32]bool, 80000)
	var walk func(r, left, total int)
	walk = func(r, left, total int) {
		if r == 13 {
			if total < 5 {
				return
			}
			var key uint32
			for i, n := range cnt {
				key += uint32(n) * rankKeys[i]
			}
			if seen[key] {
				panic(fmt.Sprintf("eval: rank key %d is not unique", key))
			}
			seen[key] = true
			x := uint64(key) * hashMul
			b := x >> (64 - bucketBits)
			buckets[b] = append(buckets[b], entry{uint32(x>>homeShift) & hashMask, countsValue(&cnt)})
			return
		}
		for n := 0; n <= 4 && n <= left; n++ {
			cnt[r] = uint8(n)
			walk(r+1, left-n, total+n)
		}
		cnt[r] = 0
	}
	walk(0, 7, 0)

	order := make([]int, 0, bucketCount)
	for i, es := range buckets {
		for j := range es {
			for k := j + 1; k < len(es); k++ {
				if es[j].home == es[k].home {
					panic("eval: two rank keys share a bucket and a home slot; change hashMul")
				}
			}
		}
		if len(es) > 0 {
			order = append(order, i)
		}
	}
	// Biggest buckets first: they are the hardest to place.
	sort.SliceStable(order, func(a, b int) bool { return len(buckets[order[a]]) > len(buckets[order[b]]) })
	used := make([]bool, hashSize)
	for _, b := range order {
		es := buckets[b]
		d := uint32(0)
	try:
		for ; d < hashSize; d++ {
			for _, e := range es {
				if used[e.home^d] {
					continue try
				}
			}
			break
		}
		if d == hashSize {
			panic("eval: perfect hash table too small")
		}
		for _, e := range es {
			used[e.home^d] = true
			hashValue[e.home^d] = e.val
		}
		hashDisp[b] = d
	}
}
