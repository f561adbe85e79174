package deal

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestICMKnownValues checks ICM against values worked out by hand
// (TR-38): the textbook 50/30/20 stacks and prizes, where the short stack
// is worth more than its chips and the big stack less.
func TestICMKnownValues(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name           string
		stacks, prizes []int64
		want           []int64
	}{
		// A: 50·.5 + 30·(.3·5/7 + .2·5/8) + 20·(1 - .5 - .3392857) = 38.392857
		// B: 50·.3 + 30·(.5·3/5 + .2·3/8) + 20·.325 = 32.75
		// C: 100 - A - B = 28.857143; the odd cent goes to C (largest fraction).
		{"textbook 3 players", []int64{5000, 3000, 2000}, []int64{5000, 3000, 2000}, []int64{3839, 3275, 2886}},
		// Order of players does not matter.
		{"textbook permuted", []int64{2000, 5000, 3000}, []int64{5000, 3000, 2000}, []int64{2886, 3839, 3275}},
		// Two players, winner takes all: chips are equity.
		{"heads-up winner takes all", []int64{3000, 1000}, []int64{10000}, []int64{7500, 2500}},
		// Two players, 70/30: each gets 30 plus their chip share of 40.
		{"heads-up two prizes", []int64{3000, 1000}, []int64{7000, 3000}, []int64{6000, 4000}},
		// Equal stacks share equally; the odd cent goes to the first player.
		{"equal stacks odd cent", []int64{100, 100, 100}, []int64{60, 30, 10}, []int64{34, 33, 33}},
		// 4 players, 40/30/20/10 chips, prizes 50/30/20 (fourth unpaid), summed
		// over the 24 finishing orders in exact fractions: 33.603175,
		// 29.488095, 23.587302, 13.321429; the two odd cents go to B and C.
		{"4 players, fourth unpaid", []int64{4000, 3000, 2000, 1000}, []int64{5000, 3000, 2000}, []int64{3360, 2949, 2359, 1332}},
		{"one player", []int64{5}, []int64{777}, []int64{777}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := ICM(c.stacks, c.prizes)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("ICM(%v, %v) = %v, want %v", c.stacks, c.prizes, got, c.want)
			}
		})
	}
}

// bruteICM walks every finishing order, the model's definition, to check
// the memoised recursion against.
func bruteICM(stacks, prizes []int64) []float64 {
	n := len(stacks)
	ev := make([]float64, n)
	var walk func(left []int, p float64, place int)
	walk = func(left []int, p float64, place int) {
		if len(left) == 0 {
			return
		}
		var chips int64
		for _, i := range left {
			chips += stacks[i]
		}
		for k, i := range left {
			q := p * float64(stacks[i]) / float64(chips)
			if place < len(prizes) {
				ev[i] += q * float64(prizes[place])
			}
			rest := slices.Concat(left[:k:k], left[k+1:])
			walk(rest, q, place+1)
		}
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	walk(all, 1, 0)
	return ev
}

func TestICMMatchesEveryFinishingOrder(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(13, 38))
	for n := 1; n <= 7; n++ {
		for range 20 {
			stacks, prizes := randomTable(r, n)
			got, want := icmValues(stacks, prizes), bruteICM(stacks, prizes)
			for i := range got {
				if math.Abs(got[i]-want[i]) > 1e-6*max(1, want[i]) {
					t.Fatalf("n=%d stacks %v prizes %v: player %d %f, brute force %f", n, stacks, prizes, i, got[i], want[i])
				}
			}
		}
	}
}

func TestChipChopKnownValues(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name           string
		stacks, prizes []int64
		want           []int64
	}{
		// Everyone gets third (20); the 40 left goes 50/30/20 by chips.
		{"3 players", []int64{5000, 3000, 2000}, []int64{5000, 3000, 2000}, []int64{4000, 3200, 2800}},
		// The chip leader's 20+36 would pass first prize: capped at 50, the
		// 10 over shared by the others' chips (equal here).
		{"capped at first prize", []int64{9000, 500, 500}, []int64{5000, 3000, 2000}, []int64{5000, 2500, 2500}},
		{"fewer prizes than players", []int64{1, 1, 2}, []int64{100}, []int64{25, 25, 50}},
		{"equal stacks odd cent", []int64{7, 7, 7}, []int64{50, 30, 20}, []int64{34, 33, 33}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := ChipChop(c.stacks, c.prizes)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("ChipChop(%v, %v) = %v, want %v", c.stacks, c.prizes, got, c.want)
			}
		})
	}
}

func TestRejects(t *testing.T) {
	t.Parallel()
	ten := []int64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	cases := []struct {
		name           string
		stacks, prizes []int64
	}{
		{"no players", nil, []int64{1}},
		{"no prizes", []int64{1}, nil},
		{"more prizes than players", []int64{1, 2}, []int64{3, 2, 1}},
		{"a player without chips", []int64{1, 0}, []int64{3, 2}},
		{"negative prize", []int64{1, 2}, []int64{3, -2}},
		{"prize overflow", []int64{1, 2}, []int64{math.MaxInt64, 1}},
		{"too many for ICM", ten, []int64{100}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if _, err := ICM(c.stacks, c.prizes); err == nil {
				t.Fatalf("ICM(%v, %v) accepted", c.stacks, c.prizes)
			}
		})
	}
	if _, err := ChipChop(ten, []int64{100}); err != nil {
		t.Fatalf("chip chop has no player limit: %v", err)
	}
}

// checkSplit is the invariant every split keeps: the shares sum to the
// prizes to the cent, each lies between the smallest and the largest
// remaining prize, and players with equal stacks are at most a cent apart.
func checkSplit(t *testing.T, name string, stacks, prizes, got []int64) {
	t.Helper()
	var pool, sum int64
	for _, p := range prizes {
		pool += p
	}
	for _, s := range got {
		sum += s
	}
	if sum != pool {
		t.Fatalf("%s(%v, %v) = %v: sums to %d, prizes %d", name, stacks, prizes, got, sum, pool)
	}
	low, high := bounds(prizes, len(stacks))
	for i, s := range got {
		if s < low || s > high {
			t.Fatalf("%s(%v, %v) = %v: player %d outside [%d, %d]", name, stacks, prizes, got, i, low, high)
		}
		for j := range i {
			if stacks[i] == stacks[j] && (got[i]-got[j] > 1 || got[j]-got[i] > 1) {
				t.Fatalf("%s(%v, %v) = %v: equal stacks %d and %d differ by more than a cent", name, stacks, prizes, got, j, i)
			}
			// More chips is never worth less.
			if stacks[i] > stacks[j] && got[i]+1 < got[j] || stacks[j] > stacks[i] && got[j]+1 < got[i] {
				t.Fatalf("%s(%v, %v) = %v: players %d and %d out of chip order", name, stacks, prizes, got, j, i)
			}
		}
	}
}

// randomTable draws n stacks and a descending payout of 1..n places.
func randomTable(r *rand.Rand, n int) (stacks, prizes []int64) {
	stacks = make([]int64, n)
	for i := range stacks {
		stacks[i] = 1 + r.Int64N(1_000_000)
	}
	prizes = make([]int64, 1+r.IntN(n))
	for i := range prizes {
		prizes[i] = r.Int64N(10_000_000_00)
	}
	slices.Sort(prizes)
	slices.Reverse(prizes)
	return stacks, prizes
}

func TestSplitInvariants(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(20, 26))
	for range 500 {
		stacks, prizes := randomTable(r, 1+r.IntN(MaxICMPlayers))
		for name, f := range map[string]func(a, b []int64) ([]int64, error){"ICM": ICM, "ChipChop": ChipChop} {
			got, err := f(stacks, prizes)
			if err != nil {
				t.Fatal(err)
			}
			checkSplit(t, name, stacks, prizes, got)
		}
	}
}

func FuzzSplit(f *testing.F) {
	f.Add(int64(5000), int64(3000), int64(2000), int64(1), int64(5000), int64(3000), int64(2000), uint8(3))
	f.Add(int64(1), int64(1), int64(1), int64(1), int64(1), int64(0), int64(0), uint8(4))
	f.Fuzz(func(t *testing.T, s0, s1, s2, s3, p0, p1, p2 int64, n uint8) {
		stacks := []int64{s0, s1, s2, s3}[:1+int(n)%4]
		prizes := []int64{p0, p1, p2}[:min(len(stacks), 3)]
		slices.Sort(prizes) // a payout never pays a lower place more
		slices.Reverse(prizes)
		for _, s := range stacks {
			if s <= 0 || s > 1<<40 {
				t.Skip()
			}
		}
		for _, p := range prizes {
			if p < 0 || p > 1<<40 {
				t.Skip()
			}
		}
		for name, fn := range map[string]func(a, b []int64) ([]int64, error){"ICM": ICM, "ChipChop": ChipChop} {
			got, err := fn(stacks, prizes)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkSplit(t, name, stacks, prizes, got)
		}
	})
}

// BenchmarkICM9 is a nine-handed final table, the largest ICM the desk
// computes (target: well under a millisecond, so the floor can show it
// live).
func BenchmarkICM9(b *testing.B) {
	stacks := []int64{4_200_000, 3_100_000, 2_750_000, 1_900_000, 1_400_000, 980_000, 640_000, 410_000, 220_000}
	prizes := []int64{250_000_00, 160_000_00, 115_000_00, 85_000_00, 65_000_00, 50_000_00, 40_000_00, 32_000_00, 26_000_00}
	for b.Loop() {
		if _, err := ICM(stacks, prizes); err != nil {
			b.Fatal(err)
		}
	}
}
