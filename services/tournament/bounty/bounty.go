// Package bounty holds knockout bounties (issue 13, G-36): the part of
// each buy-in that goes on the entrant's head, who wins it when they are
// knocked out, and how a head is split between several winners and, in a
// progressive knockout (PKO), between the winner's cash and their own
// head. Every split is in money's minor units and sums to the head to the
// cent. It is pure: no I/O, no clock.
package bounty

import (
	"math/big"
	"slices"

	"github.com/cardroom/cardroom/platform/fault"
)

// Rules are an event's bounty as the house publishes it.
type Rules struct {
	// Amount is the part of each entry's prize-pool part that goes on the
	// entrant's head, minor units; zero: no bounties.
	Amount int64 `json:"amount,omitempty"`
	// Progressive pays the winner half of a head and adds the other half
	// to their own head (PKO).
	Progressive bool `json:"progressive,omitempty"`
}

// On reports whether the event has bounties.
func (r Rules) On() bool { return r.Amount > 0 }

// Validate checks the bounty against the entry's prize-pool part: the
// bounty is part of it, and the prize pool keeps at least a cent of each
// entry.
func (r Rules) Validate(prizePart int64) error {
	switch {
	case r.Amount < 0:
		return fault.Invalidf("bounty.amount", "must not be negative, got %d", r.Amount)
	case r.Amount == 0 && r.Progressive:
		return fault.Invalidf("bounty.amount", "a progressive knockout needs a bounty")
	case r.Amount >= prizePart:
		return fault.Invalidf("bounty.amount", "%d is part of buy_in %d and must be less than it", r.Amount, prizePart)
	}
	return nil
}

// Share is chips won by one seat.
type Share struct {
	Seat   int
	Amount int64
}

// Pot is one pot of a hand: the seats that could win it and what each
// winner took.
type Pot struct {
	Eligible []int
	Winners  []Share
}

// Eliminators returns who knocked out the player at seat busted (G-36):
// the winners of the pots the busted player was in, each with the chips
// they took from those pots, in seat order. None: no pot the player was
// in was won by anyone else (the bounty is unclaimed).
func Eliminators(busted int, pots []Pot) []Share {
	won := map[int]int64{}
	for _, p := range pots {
		if !slices.Contains(p.Eligible, busted) {
			continue
		}
		for _, w := range p.Winners {
			if w.Seat != busted && w.Amount > 0 {
				won[w.Seat] += w.Amount
			}
		}
	}
	out := make([]Share, 0, len(won))
	for seat, n := range won {
		out = append(out, Share{Seat: seat, Amount: n})
	}
	slices.SortFunc(out, func(a, b Share) int { return a.Seat - b.Seat })
	return out
}

// Award is what one winner gets from a head: Cash paid to them and, in a
// progressive knockout, Head added to their own head.
type Award struct {
	Seat int
	Cash int64
	Head int64
}

// Split shares a head among its winners by the chips each took (G-36). In
// a progressive knockout half goes on the winners' heads and the rest,
// with the odd cent, is paid in cash. Each part is shared by largest
// remainder, ties to the lower seat, so the awards sum to the head
// exactly. No winners: nil.
func Split(head int64, progressive bool, by []Share) []Award {
	if len(by) == 0 || head <= 0 {
		return nil
	}
	var onHead int64
	if progressive {
		onHead = head / 2
	}
	cash := share(head-onHead, by)
	heads := share(onHead, by)
	out := make([]Award, len(by))
	for i, s := range by {
		out[i] = Award{Seat: s.Seat, Cash: cash[i], Head: heads[i]}
	}
	return out
}

// share splits amount in proportion to the weights by largest remainder,
// ties to the earlier weight. Exact integer arithmetic: chips times cents
// can pass int64.
func share(amount int64, by []Share) []int64 {
	out := make([]int64, len(by))
	var total int64
	for _, s := range by {
		total += s.Amount
	}
	if amount == 0 || total <= 0 {
		return out
	}
	rems := make([]*big.Int, len(by))
	var given int64
	for i, s := range by {
		q, r := new(big.Int).QuoRem(new(big.Int).Mul(big.NewInt(amount), big.NewInt(s.Amount)), big.NewInt(total), new(big.Int))
		out[i], rems[i] = q.Int64(), r
		given += out[i]
	}
	order := make([]int, len(by))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return rems[b].Cmp(rems[a]) })
	for k := 0; given < amount; k++ {
		out[order[k%len(order)]]++
		given++
	}
	return out
}
