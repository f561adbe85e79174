// Package deal holds the calculators a floor shows players who talk about
// a deal (TR-38): the independent chip model (ICM, Malmuth–Harville) and
// the chip chop. Both split the prizes still to be paid among the players
// still in, in money's minor units, and the shares always sum to the
// prizes exactly: the house pays the posted structure unless a deal is
// agreed, so a proposal that loses or creates a cent cannot be paid. It is
// pure: no I/O, no clock.
package deal

import (
	"math"
	"sort"

	"github.com/cardroom/cardroom/platform/fault"
)

// MaxICMPlayers is the most players ICM is computed for. The model is
// exact (every finishing order counted), which costs n·2ⁿ steps; a final
// table of nine is what the floor deals at.
const MaxICMPlayers = 9

// ICM returns each player's expected prize under the Malmuth–Harville
// model: a player finishes first with probability stack/total, and each
// next place goes the same way among those not yet placed. stacks are the
// players' chips (all positive); prizes are the remaining prizes by place
// (prizes[0] for first), at most one per player; places without a prize
// pay zero. Shares are rounded to minor units by largest remainder, ties
// to the earlier player, so they sum to the prizes exactly.
func ICM(stacks, prizes []int64) ([]int64, error) {
	pool, err := check(stacks, prizes)
	if err != nil {
		return nil, err
	}
	if len(stacks) > MaxICMPlayers {
		return nil, fault.Invalidf("stacks", "ICM is exact for at most %d players, got %d", MaxICMPlayers, len(stacks))
	}
	return allocate(icmValues(stacks, prizes), pool), nil
}

// icmValues is the exact expected value of each player. Rather than walk
// the n! finishing orders it memoises on the set of players already
// placed: reach[S] is the probability that the players in S take the top
// |S| places (in some order), and whoever finishes next out of the rest
// does so with probability stack/(chips left). Every order through S
// shares the same future, so each set is expanded once: n·2ⁿ steps.
func icmValues(stacks, prizes []int64) []float64 {
	n := len(stacks)
	var total int64
	for _, s := range stacks {
		total += s
	}
	full := 1 << n
	reach := make([]float64, full)
	placed := make([]int64, full) // chips of the players in the set
	reach[0] = 1
	ev := make([]float64, n)
	for set := range full - 1 {
		if reach[set] == 0 {
			continue
		}
		place := popcount(set)
		left := float64(total - placed[set])
		var prize float64
		if place < len(prizes) {
			prize = float64(prizes[place])
		}
		for i := range n {
			bit := 1 << i
			if set&bit != 0 {
				continue
			}
			p := reach[set] * float64(stacks[i]) / left
			ev[i] += p * prize
			next := set | bit
			reach[next] += p
			placed[next] = placed[set] + stacks[i]
		}
	}
	return ev
}

func popcount(x int) int {
	c := 0
	for ; x != 0; x &= x - 1 {
		c++
	}
	return c
}

// ChipChop returns the chip-chop split: every player is first given the
// smallest remaining prize (what the next to bust would get), and the rest
// is shared in proportion to chips. No player is given more than first
// prize: a share over it is capped and the excess shared among the others
// in proportion to their chips, so every share lies between the smallest
// and the largest remaining prize, as under ICM. Rounded like ICM.
func ChipChop(stacks, prizes []int64) ([]int64, error) {
	pool, err := check(stacks, prizes)
	if err != nil {
		return nil, err
	}
	n := len(stacks)
	low, high := bounds(prizes, n)
	values := make([]float64, n)
	capped := make([]bool, n)
	for i := range values {
		values[i] = float64(low)
	}
	rest := float64(pool - int64(n)*low)
	// Each round caps at least one player or finishes; n rounds at most.
	for range n {
		var chips int64
		for i, s := range stacks {
			if !capped[i] {
				chips += s
			}
		}
		over := false
		for i, s := range stacks {
			if !capped[i] && float64(low)+rest*float64(s)/float64(chips) > float64(high) {
				capped[i], values[i], over = true, float64(high), true
				rest -= float64(high - low)
			}
		}
		if over {
			continue
		}
		for i, s := range stacks {
			if !capped[i] {
				values[i] = float64(low) + rest*float64(s)/float64(chips)
			}
		}
		break
	}
	return allocate(values, pool), nil
}

// bounds returns the smallest and largest prize among the places the n
// players will take (zero for places without a prize).
func bounds(prizes []int64, n int) (low, high int64) {
	high = prizes[0]
	if len(prizes) == n {
		low = prizes[n-1]
	}
	for _, p := range prizes {
		low, high = min(low, p), max(high, p)
	}
	return low, high
}

// check validates the inputs and returns the pool: the sum of prizes.
func check(stacks, prizes []int64) (int64, error) {
	if len(stacks) == 0 {
		return 0, fault.Invalidf("stacks", "no players")
	}
	if len(prizes) == 0 {
		return 0, fault.Invalidf("prizes", "no prizes")
	}
	if len(prizes) > len(stacks) {
		return 0, fault.Invalidf("prizes", "%d prizes for %d players: each place pays one player", len(prizes), len(stacks))
	}
	var chips int64
	for _, s := range stacks {
		if s <= 0 {
			return 0, fault.Invalidf("stacks", "every player still in has chips, got %d", s)
		}
		if chips > math.MaxInt64-s {
			return 0, fault.Invalidf("stacks", "chips overflow")
		}
		chips += s
	}
	var pool int64
	for _, p := range prizes {
		if p < 0 {
			return 0, fault.Invalidf("prizes", "prizes are not negative, got %d", p)
		}
		if pool > math.MaxInt64-p {
			return 0, fault.Invalidf("prizes", "prizes overflow")
		}
		pool += p
	}
	return pool, nil
}

// allocate rounds the exact values to minor units summing to pool: each
// gets the floor, and the cents left go one each to the largest fractions,
// ties (within float noise) to the earlier player, so equal stacks differ
// by at most a cent and the same inputs always give the same split.
func allocate(values []float64, pool int64) []int64 {
	out := make([]int64, len(values))
	frac := make([]float64, len(values))
	var sum int64
	for i, v := range values {
		f := math.Floor(v)
		out[i], frac[i] = int64(f), v-f
		sum += out[i]
	}
	order := make([]int, len(values))
	for i := range order {
		order[i] = i
	}
	// Fractions are compared to a millionth of a cent so that float noise
	// between players in the same position never decides the odd cent.
	quantum := make([]int64, len(values))
	for i, f := range frac {
		quantum[i] = int64(math.Round(f * 1e6))
	}
	sort.SliceStable(order, func(a, b int) bool { return quantum[order[a]] > quantum[order[b]] })
	for k := 0; sum < pool; k++ {
		out[order[k%len(order)]]++
		sum++
	}
	// Float error can only overshoot by a cent here and there; take it back
	// from the smallest fractions.
	for k := len(order) - 1; sum > pool; k-- {
		out[order[(k%len(order)+len(order))%len(order)]]--
		sum--
	}
	return out
}
