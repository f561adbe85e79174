package deal

import (
	"strconv"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
)

// Method is how a proposal's amounts are worked out.
type Method string

// Methods.
const (
	MethodICM      Method = "icm"
	MethodChipChop Method = "chip_chop"
	MethodCustom   Method = "custom"
)

// State is where a proposal stands.
type State string

// States.
const (
	Proposed  State = "proposed"
	Declined  State = "declined"
	Confirmed State = "confirmed"
)

// Player is one player's part of a proposal.
type Player struct {
	PlayerID string    `json:"player_id"`
	Stack    int64     `json:"stack"`
	Amount   int64     `json:"amount"`
	Agreed   bool      `json:"agreed,omitempty"`
	Declined bool      `json:"declined,omitempty"`
	Answered time.Time `json:"answered,omitzero"`
}

// Proposal is a deal put to the players still in (TR-38): the prizes
// still to be paid shared among them by a calculator or by amounts they
// named, each player's answer, and the floor's confirmation.
type Proposal struct {
	ID          int       `json:"id"`
	State       State     `json:"state"`
	Method      Method    `json:"method"`
	Players     []Player  `json:"players"`
	Prizes      []int64   `json:"prizes"`
	ProposedBy  string    `json:"proposed_by"`
	ConfirmedBy string    `json:"confirmed_by,omitempty"`
	Created     time.Time `json:"created"`
	Confirmed   time.Time `json:"confirmed,omitzero"`
}

// Deal refusals (TR-38).
var (
	ErrNotOpen         = fault.Rule(fault.Precondition, "TR-38", "DEAL_NOT_OPEN", "no deal proposal is waiting for answers")
	ErrNotAgreed       = fault.Rule(fault.Precondition, "TR-38", "DEAL_NOT_AGREED", "every player still in must agree before the floor confirms a deal")
	ErrAmountsMismatch = fault.Rule(fault.Invalid, "TR-38", "DEAL_AMOUNTS_MISMATCH", "a deal names every player still in once and shares exactly the prizes left")
	ErrNotAPlayer      = fault.Rule(fault.Precondition, "TR-38", "DEAL_NOT_A_PLAYER", "the player is not in the deal")
)

// Propose works out a proposal's amounts: stacks are the players still in
// with their chips; prizes are the posted prizes still to be paid, first
// place first; custom (MethodCustom only) names each player's amount,
// and they must sum to the prizes.
func Propose(id int, method Method, stacks []Player, prizes []int64, custom map[string]int64, by string, at time.Time) (Proposal, error) {
	p := Proposal{ID: id, State: Proposed, Method: method, Prizes: prizes, ProposedBy: by, Created: at}
	chips := make([]int64, len(stacks))
	for i, s := range stacks {
		chips[i] = s.Stack
		p.Players = append(p.Players, Player{PlayerID: s.PlayerID, Stack: s.Stack})
	}
	var amounts []int64
	var err error
	switch method {
	case MethodICM:
		amounts, err = ICM(chips, prizes)
	case MethodChipChop:
		amounts, err = ChipChop(chips, prizes)
	case MethodCustom:
		amounts, err = customAmounts(stacks, prizes, custom)
	default:
		return Proposal{}, fault.Invalidf("method", "must be icm, chip chop or custom")
	}
	if err != nil {
		return Proposal{}, err
	}
	for i := range p.Players {
		p.Players[i].Amount = amounts[i]
	}
	return p, nil
}

func customAmounts(stacks []Player, prizes []int64, custom map[string]int64) ([]int64, error) {
	if len(custom) != len(stacks) {
		return nil, ErrAmountsMismatch.Withf("%d amounts for %d players", len(custom), len(stacks))
	}
	var pool, sum int64
	for _, p := range prizes {
		pool += p
	}
	out := make([]int64, len(stacks))
	for i, s := range stacks {
		a, ok := custom[s.PlayerID]
		if !ok {
			return nil, ErrAmountsMismatch.Withf("no amount for %s", s.PlayerID).With("player_id", s.PlayerID)
		}
		if a < 0 {
			return nil, ErrAmountsMismatch.Withf("%s's amount %d is negative", s.PlayerID, a)
		}
		out[i] = a
		sum += a
	}
	if sum != pool {
		return nil, ErrAmountsMismatch.Withf("the amounts sum to %d, the prizes left to %d", sum, pool).
			With("amounts", strconv.FormatInt(sum, 10), "prizes", strconv.FormatInt(pool, 10))
	}
	return out, nil
}

// Answer records one player's answer; a refusal ends the proposal.
func (p *Proposal) Answer(player string, agree bool, at time.Time) error {
	if p.State != Proposed {
		return ErrNotOpen.Withf("deal %d is %s", p.ID, p.State)
	}
	for i := range p.Players {
		if p.Players[i].PlayerID != player {
			continue
		}
		p.Players[i].Agreed, p.Players[i].Declined, p.Players[i].Answered = agree, !agree, at
		if !agree {
			p.State = Declined
		}
		return nil
	}
	return ErrNotAPlayer.With("player_id", player)
}

// Confirm is the floor's confirmation of a proposal every player agreed to.
func (p *Proposal) Confirm(by string, at time.Time) error {
	if p.State != Proposed {
		return ErrNotOpen.Withf("deal %d is %s", p.ID, p.State)
	}
	for _, pl := range p.Players {
		if !pl.Agreed {
			return ErrNotAgreed.Withf("%s has not agreed", pl.PlayerID).With("player_id", pl.PlayerID)
		}
	}
	p.State, p.ConfirmedBy, p.Confirmed = Confirmed, by, at
	return nil
}
