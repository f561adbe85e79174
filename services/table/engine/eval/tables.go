package eval

import (
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

// withTop adds the n highest ranks of mask m (bit 0 = deuce) to v as rank
// nibbles, starting at nibble position pos (0 = most significant).
func withTop(v Value, m uint16, n, pos int) Value {
	for r := 12; r >= 0 && n > 0; r-- {
		if m&(1<<r) != 0 {
			v |= Value(r+2) << (16 - 4*pos)
			pos++
			n--
		}
	}
	return v
}

// highest returns the highest rank index (0 = deuce) in a non-empty mask.
func highest(m uint16) int { return bits.Len16(m) - 1 }

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

// flushFromMask is the value of five or more cards of one suit.
func flushFromMask(m uint16) Value {
	if top := straightTop(m); top != 0 {
		return highValue(StraightFlush, top)
	}
	return withTop(highValue(Flush), m, 5, 0)
}

// countsValue is the best non-flush high hand from rank counts (index 0 =
// deuce) of five to seven cards.
func countsValue(cnt *[13]uint8) Value {
	var present uint16
	var held [5]uint16 // held[n]: mask of the ranks held exactly n times
	for r, n := range cnt {
		if n > 0 {
			present |= 1 << r
			held[n] |= 1 << r
		}
	}
	if held[4] != 0 {
		q := highest(held[4])
		return withTop(highValue(Quads, q+2), present&^(1<<q), 1, 1)
	}
	if held[3] != 0 {
		t := highest(held[3])
		// The pair of a full house may come from a second set of trips.
		if pairs := held[3]&^(1<<t) | held[2]; pairs != 0 {
			return highValue(FullHouse, t+2, highest(pairs)+2)
		}
	}
	if top := straightTop(present); top != 0 {
		return highValue(Straight, top)
	}
	if held[3] != 0 {
		t := highest(held[3])
		return withTop(highValue(Trips, t+2), present&^(1<<t), 2, 1)
	}
	if p := held[2]; p != 0 {
		hi := highest(p)
		if rest := p &^ (1 << hi); rest != 0 {
			lo := highest(rest)
			// The kicker may come from a third pair.
			return withTop(highValue(TwoPair, hi+2, lo+2), present&^(1<<hi|1<<lo), 1, 2)
		}
		return withTop(highValue(Pair, hi+2), present&^(1<<hi), 3, 1)
	}
	return withTop(highValue(HighCard), present, 5, 0)
}

// buildHash fills hashDisp and hashValue with a hash-and-displace perfect
// hash of the rank keys of every multiset of five to seven cards: a key's
// product with hashMul picks a bucket (top bits) and a home slot (middle
// bits); each bucket gets the displacement, XORed into the home slot, that
// puts all its keys in free slots.
func buildHash() {
	type entry struct {
		bucket uint32
		home   uint32
		val    Value
	}
	entries := make([]entry, 0, 73775)
	var cnt [13]uint8
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
			x := uint64(key) * hashMul
			entries = append(entries, entry{uint32(x >> (64 - bucketBits)), uint32(x>>homeShift) & hashMask, countsValue(&cnt)})
			return
		}
		for n := 0; n <= 4 && n <= left; n++ {
			cnt[r] = uint8(n)
			walk(r+1, left-n, total+n)
		}
		cnt[r] = 0
	}
	walk(0, 7, 0)

	// Group the entries by bucket (a counting sort).
	var start [bucketCount + 1]int32
	for _, e := range entries {
		start[e.bucket+1]++
	}
	for b := 0; b < bucketCount; b++ {
		start[b+1] += start[b]
	}
	grouped := make([]entry, len(entries))
	next := start
	for _, e := range entries {
		grouped[next[e.bucket]] = e
		next[e.bucket]++
	}
	order := make([]int, 0, bucketCount)
	for b := 0; b < bucketCount; b++ {
		es := grouped[start[b]:start[b+1]]
		for j := range es {
			for k := j + 1; k < len(es); k++ {
				// Equal keys would land here too, so this also proves
				// the rank keys unique.
				if es[j].home == es[k].home {
					panic("eval: two rank keys share a bucket and a home slot; check rankKeys or change hashMul")
				}
			}
		}
		if len(es) > 0 {
			order = append(order, b)
		}
	}
	// Biggest buckets first: they are the hardest to place.
	sort.SliceStable(order, func(i, j int) bool {
		return start[order[i]+1]-start[order[i]] > start[order[j]+1]-start[order[j]]
	})
	used := make([]bool, hashSize)
	for _, b := range order {
		es := grouped[start[b]:start[b+1]]
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
