package standings

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/tournament/event"
)

// Tier is the payout for fields up to MaxEntrants (0: any size): the share
// of the pool for each place, in basis points (1/100 of a percent).
type Tier struct {
	MaxEntrants int   `json:"max_entrants,omitempty"`
	Shares      []int `json:"shares"`
}

// Structure is the house's published payout structure (TR-36, G-30).
type Structure struct {
	// Tiers in order of MaxEntrants; the last has MaxEntrants 0.
	Tiers []Tier `json:"tiers"`
	// Unit rounds each prize down to a multiple of this many minor units;
	// what rounding leaves goes to first place (G-30). 0 or 1: no rounding.
	Unit int64 `json:"unit,omitempty"`
}

// DefaultStructure is a common structure for small fields: winner takes
// all up to 6 entrants, 65/35 up to 12, 50/30/20 up to 27, 40/25/15/12/8
// beyond. It is an example of the house's choice (G-30), not a rule.
func DefaultStructure() Structure {
	return Structure{Unit: 100, Tiers: []Tier{
		{MaxEntrants: 6, Shares: []int{10000}},
		{MaxEntrants: 12, Shares: []int{6500, 3500}},
		{MaxEntrants: 27, Shares: []int{5000, 3000, 2000}},
		{Shares: []int{4000, 2500, 1500, 1200, 800}},
	}}
}

// Validate checks that every tier's shares add up to 100 % and do not grow
// with the place, and that the tiers are in order.
func (s Structure) Validate() error {
	if len(s.Tiers) == 0 {
		return fault.Rule(fault.Invalid, "TR-36", "PAYOUTS_EMPTY", "the payout structure has no tiers").With("field", "payouts")
	}
	if s.Unit < 0 {
		return fault.Invalidf("payouts.unit", "must not be negative")
	}
	prev := 0
	for i, t := range s.Tiers {
		field := "payouts.tiers[" + strconv.Itoa(i) + "]"
		last := i == len(s.Tiers)-1
		if (t.MaxEntrants == 0) != last || (!last && t.MaxEntrants <= prev) {
			return fault.Invalidf(field+".max_entrants", "tiers must grow, and only the last is open-ended")
		}
		prev = t.MaxEntrants
		sum := 0
		for j, sh := range t.Shares {
			if sh <= 0 || (j > 0 && sh > t.Shares[j-1]) {
				return fault.Invalidf(field+".shares", "shares must be positive and never grow with the place")
			}
			sum += sh
		}
		if sum != 10000 {
			return fault.Rule(fault.Invalid, "G-30", "PAYOUTS_NOT_WHOLE", field+": shares add up to "+strconv.Itoa(sum)+" basis points, not 10000").With("field", field+".shares")
		}
	}
	return nil
}

// Prizes returns the prize for each place, first place first, for a field
// of entrants and a pool (TR-36). Each prize is rounded down to the unit;
// first place takes what rounding leaves, so the prizes add up to the pool.
// The places paid never exceed the field.
func (s Structure) Prizes(entrants int, pool int64) []int64 {
	tier := s.Tiers[len(s.Tiers)-1]
	for _, t := range s.Tiers {
		if t.MaxEntrants != 0 && entrants <= t.MaxEntrants {
			tier = t
			break
		}
	}
	shares := tier.Shares[:min(len(tier.Shares), max(entrants, 1))]
	total := 0
	for _, sh := range shares {
		total += sh
	}
	unit := max(s.Unit, 1)
	prizes := make([]int64, len(shares))
	var paid int64
	for i, sh := range shares {
		// Shares cut short by a small field are scaled to the whole pool.
		p := pool * int64(sh) / int64(total)
		prizes[i] = p / unit * unit
		paid += prizes[i]
	}
	if len(prizes) > 0 {
		prizes[0] += pool - paid
	}
	return prizes
}

// ErrPayoutsLocked refuses a change to the payouts of an event that has
// started (TR-36: published and locked before the start).
var ErrPayoutsLocked = fault.Rule(fault.Precondition, "TR-36", "PAYOUTS_LOCKED", "the payout structure is locked once the event starts")

// CheckChange says whether e's payout structure may still change at now.
func CheckChange(e event.Event, now time.Time) error {
	if e.Status != event.Scheduled || !now.Before(e.StartsAt) {
		return ErrPayoutsLocked
	}
	return nil
}

// Award is what one player is paid.
type Award struct {
	PlayerID string
	Place    int
	// Amount is money paid (PayPrize); with Voucher it is a voucher's value.
	Amount  int64
	Voucher bool
	// Withheld is a prize not paid to a removed player (TR-34); it stays
	// in the pool for the director.
	Withheld int64
	// Deal marks an amount a confirmed deal set instead of the posted
	// structure (TR-38).
	Deal bool
}

// Awards turns the finishing places into payments from prizes (first place
// first). Players who share places pool those places' prizes and split
// them equally (TR-37); the minor units that do not split go one each to
// the sharers in player-id order (G-30).
func Awards(finishes []Finish, prizes []int64) []Award {
	var out []Award
	groups := map[[2]int][]Finish{}
	var keys [][2]int
	for _, f := range finishes {
		k := [2]int{f.Place, f.Shared}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], f)
	}
	slices.SortFunc(keys, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	for _, k := range keys {
		g := groups[k]
		slices.SortFunc(g, func(a, b Finish) int { return cmp.Compare(a.PlayerID, b.PlayerID) })
		var sum int64
		for place := k[0]; place < k[0]+max(k[1], 1); place++ {
			if place-1 < len(prizes) {
				sum += prizes[place-1]
			}
		}
		if sum == 0 {
			continue
		}
		n := int64(len(g))
		for i, f := range g {
			amt := sum / n
			if int64(i) < sum%n {
				amt++
			}
			a := Award{PlayerID: f.PlayerID, Place: f.Place, Amount: amt}
			if f.Removed {
				a.Amount, a.Withheld = 0, amt
			}
			out = append(out, a)
		}
	}
	return out
}

// SatelliteAwards pays a satellite (TR-19): as many entry vouchers of
// seatPrice (the target's prize part plus fee) as the pool buys, to the
// top places, and the remainder in cash to the next place (G-24). Players
// sharing places that straddle the last seat split the value of those
// places in cash.
func SatelliteAwards(finishes []Finish, pool, seatPrice int64) []Award {
	if seatPrice <= 0 {
		return nil
	}
	seats := int(pool / seatPrice)
	prizes := make([]int64, seats, seats+1)
	for i := range prizes {
		prizes[i] = seatPrice
	}
	if rest := pool - int64(seats)*seatPrice; rest > 0 {
		prizes = append(prizes, rest)
	}
	awards := Awards(finishes, prizes)
	for i := range awards {
		a := &awards[i]
		f := finishes[slices.IndexFunc(finishes, func(f Finish) bool { return f.PlayerID == a.PlayerID })]
		// A voucher is a whole seat for one player in a single place.
		if f.Shared <= 1 && f.Place <= seats {
			a.Voucher = true
		}
	}
	return awards
}
