package engine

import (
	"slices"
	"testing"

	"github.com/cardroom/cardroom/platform/random"
	"github.com/cardroom/cardroom/services/table/engine/cards"
)

// refFive ranks a five-card high hand a different way from highValue: a
// category and the ranks ordered by (count, rank), compared as a tuple.
func refFive(cs []cards.Card) []int {
	cnt := map[int]int{}
	suits := map[cards.Suit]bool{}
	for _, c := range cs {
		cnt[int(c.Rank())]++
		suits[c.Suit()] = true
	}
	var rs []int
	for r := range cnt {
		rs = append(rs, r)
	}
	slices.SortFunc(rs, func(a, b int) int {
		if cnt[a] != cnt[b] {
			return cnt[b] - cnt[a]
		}
		return b - a
	})
	flush := len(suits) == 1
	straight := 0
	if len(rs) == 5 {
		if rs[0]-rs[4] == 4 {
			straight = rs[0]
		} else if rs[0] == 14 && rs[1] == 5 {
			straight = 5
		}
	}
	var cat int
	switch {
	case straight > 0 && flush:
		cat = 8
	case cnt[rs[0]] == 4:
		cat = 7
	case cnt[rs[0]] == 3 && cnt[rs[1]] == 2:
		cat = 6
	case flush:
		cat = 5
	case straight > 0:
		cat = 4
	case cnt[rs[0]] == 3:
		cat = 3
	case cnt[rs[0]] == 2 && cnt[rs[1]] == 2:
		cat = 2
	case cnt[rs[0]] == 2:
		cat = 1
	}
	if straight > 0 {
		return []int{cat, straight}
	}
	return append([]int{cat}, rs...)
}

func refBest(cs []cards.Card) []int {
	var best []int
	var h [5]cards.Card
	var rec func(start, k int)
	rec = func(start, k int) {
		if k == 5 {
			if v := refFive(h[:]); best == nil || slices.Compare(v, best) > 0 {
				best = v
			}
			return
		}
		for i := start; i <= len(cs)-(5-k); i++ {
			h[k] = cs[i]
			rec(i+1, k+1)
		}
	}
	rec(0, 0)
	return best
}

func TestHighValueMatchesReference_TP68(t *testing.T) {
	t.Parallel()
	rng := random.Seeded(5)
	d := cards.NewDeck()
	sign := func(x int) int {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return 0
	}
	for i := 0; i < 20000; i++ {
		d.Shuffle(rng)
		a, b := d[:7], d[7:14]
		va, vb := highValue(a), highValue(b)
		got := 0
		if va > vb {
			got = 1
		} else if va < vb {
			got = -1
		}
		if want := sign(slices.Compare(refBest(a), refBest(b))); got != want {
			t.Fatalf("%s vs %s: got %d want %d (%x %x)", cards.Format(a), cards.Format(b), got, want, va, vb)
		}
	}
}
