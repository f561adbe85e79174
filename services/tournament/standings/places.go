// Package standings decides how a tournament ends for each player: the
// finishing places as players are knocked out (TR-37), penalties and their
// escalation (TR-32…TR-34, G-27), the payout structure published before
// the start (TR-36, G-30), and satellite seats (TR-19, G-24). It is pure.
package standings

import (
	"cmp"
	"slices"

	"github.com/cardroom/cardroom/platform/fault"
)

// Knockout is one player knocked out.
type Knockout struct {
	PlayerID string
	TableID  string
	// Hand is the table's hand number the player went out in.
	Hand int64
	// StartStack is the player's stack when that hand started (TR-37).
	StartStack int64
}

// Finish is a player's finishing place. Players who share places (TR-37)
// all have the same Place, the best of the shared ones, and Shared is how
// many places they share.
type Finish struct {
	PlayerID string
	Place    int
	Shared   int
	// Removed marks a player expelled from the event (TR-34): placed, but
	// paid no prize.
	Removed bool
}

// Board is the field: how many entered and the places given so far, last
// place first.
type Board struct {
	Entrants  int
	Remaining int
	Finishes  []Finish
}

// Board failures.
var (
	ErrKnockoutEmpty  = fault.New(fault.Invalid, "KNOCKOUT_EMPTY", "a knock-out names at least one player")
	ErrTooManyOut     = fault.New(fault.Precondition, "KNOCKOUT_TOO_MANY", "a knock-out cannot take out every remaining player")
	ErrAlreadyPlaced  = fault.New(fault.Conflict, "PLAYER_ALREADY_PLACED", "the player already has a finishing place")
	ErrWinnerUndecide = fault.New(fault.Precondition, "WINNER_NOT_DECIDED", "more than one player remains")
)

// KnockOut places players who went out at the same time. When they all
// went out in the same hand at the same table, the one who started the
// hand with more chips finishes higher and equal stacks share their places
// (TR-37 case 1). Players knocked out at different tables at once — during
// hand-for-hand, or when the order cannot be told — share all their places
// (TR-37 cases 2 and 3). Players knocked out one after another are placed
// by separate calls, in order.
func (b *Board) KnockOut(out []Knockout) ([]Finish, error) {
	if len(out) == 0 {
		return nil, ErrKnockoutEmpty
	}
	if len(out) >= b.Remaining {
		return nil, ErrTooManyOut.Withf("%d knocked out with %d remaining", len(out), b.Remaining)
	}
	for _, k := range out {
		if b.placed(k.PlayerID) {
			return nil, ErrAlreadyPlaced.With("player_id", k.PlayerID)
		}
	}
	sameHand := true
	for _, k := range out[1:] {
		if k.TableID != out[0].TableID || k.Hand != out[0].Hand {
			sameHand = false
		}
	}
	ko := slices.Clone(out)
	if sameHand {
		slices.SortStableFunc(ko, func(a, b Knockout) int {
			return cmp.Or(cmp.Compare(b.StartStack, a.StartStack), cmp.Compare(a.PlayerID, b.PlayerID))
		})
	} else {
		slices.SortFunc(ko, func(a, b Knockout) int { return cmp.Compare(a.PlayerID, b.PlayerID) })
	}
	best := b.Remaining - len(ko) + 1
	finishes := make([]Finish, 0, len(ko))
	for i := 0; i < len(ko); {
		j := i + 1
		for j < len(ko) && (!sameHand || ko[j].StartStack == ko[i].StartStack) {
			j++
		}
		for _, k := range ko[i:j] {
			finishes = append(finishes, Finish{PlayerID: k.PlayerID, Place: best + i, Shared: j - i})
		}
		i = j
	}
	b.Remaining -= len(ko)
	b.Finishes = append(b.Finishes, finishes...)
	return finishes, nil
}

// Remove places one player who leaves play by the floor's decision: a
// disqualified player (TR-34) takes the place of a knock-out at that
// moment; an expelled one (expel) the same place, with no prize.
func (b *Board) Remove(player string, expel bool) (Finish, error) {
	fs, err := b.KnockOut([]Knockout{{PlayerID: player}})
	if err != nil {
		return Finish{}, err
	}
	if expel {
		b.Finishes[len(b.Finishes)-1].Removed = true
		fs[0].Removed = true
	}
	return fs[0], nil
}

// Win places the last player first.
func (b *Board) Win(player string) (Finish, error) {
	if b.Remaining != 1 {
		return Finish{}, ErrWinnerUndecide.Withf("%d players remain", b.Remaining)
	}
	if b.placed(player) {
		return Finish{}, ErrAlreadyPlaced.With("player_id", player)
	}
	f := Finish{PlayerID: player, Place: 1, Shared: 1}
	b.Remaining = 0
	b.Finishes = append(b.Finishes, f)
	return f, nil
}

func (b *Board) placed(player string) bool {
	return slices.ContainsFunc(b.Finishes, func(f Finish) bool { return f.PlayerID == player })
}

// Grow renumbers the places given when the field grows by one while
// players are already out: a late registration (G-23) takes a place in
// the field, so every place given moves one down and the places stay
// 1..entrants with no two finishes on one place.
func Grow(fs []Finish) []Finish {
	out := slices.Clone(fs)
	for i := range out {
		out[i].Place++
	}
	return out
}

// Reenter renumbers the places given when player, out, enters again
// (G-23): their place is taken back, the places given after it (better
// ones) move one down into the gap, and a place they shared is shared by
// one player fewer, the worst of the shared places going with them. The
// places stay 1..entrants with no two finishes on one place.
func Reenter(fs []Finish, player string) []Finish {
	i := slices.IndexFunc(fs, func(f Finish) bool { return f.PlayerID == player })
	if i < 0 {
		return slices.Clone(fs)
	}
	gone := fs[i]
	out := make([]Finish, 0, len(fs)-1)
	for _, f := range fs {
		switch {
		case f.PlayerID == player:
			continue
		case f.Place < gone.Place:
			f.Place++
		case f.Place == gone.Place && gone.Shared > 1:
			// The group kept its best place; one fewer share it, so it
			// starts one lower.
			f.Place++
			f.Shared--
		}
		out = append(out, f)
	}
	return out
}
