package dealer

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/engine/live"
)

// The dealer console's proposals (RULES.md §0.3, "assisted": the console
// proposes the ruling; the dealer confirms it or escalates to the floor).
//
// Interpret reads an entry (the declaration and the chips pushed) for the
// seat in turn or for a seat that pushed out of turn and records the
// proposal it amounts to. A proposal binds the next entry for its seat:
// the dealer confirms it (Confirm, or the same action and amount entered
// for the seat), or interprets again. A proposal that calls the floor — a
// string bet (TP-38, G-15), an oversized chip facing a bet (G-13), chips
// short of a call (TP-02) — is confirmed by the floor only, who may also
// rule otherwise (TP-02); one locked as a bet or raise of a size still to
// be stated (TP-42) is not confirmed: the dealer interprets again with the
// amount. A proposal lapses as soon as the table changes otherwise.
//
// A pot award entered by a dealer at a table that awards by the winners
// (engine.Config.WinnerEntry) is a proposal too, which only the floor
// confirms.

// Proposal is a console proposal standing for a seat.
type Proposal struct {
	// ID names it; the caller makes it (the package has no randomness).
	ID   string `json:"id"`
	Seat int    `json:"seat"`
	// OutOfTurn: the entry was a push out of turn; confirming enters an
	// out-of-turn action (TP-46…TP-52).
	OutOfTurn bool `json:"out_of_turn,omitempty"`
	// Kind and Amount are what confirming applies (Amount the round
	// total, TP-32; 0 for a call, a check, a fold). Kind is engine.AwardPot
	// for a pot award.
	Kind   engine.ActionKind `json:"kind"`
	Amount int64             `json:"amount,omitempty"`
	// None: the console proposes no action (the floor decides).
	None bool `json:"none,omitempty"`
	// CallFloor: only the floor confirms it. AwaitAmount: locked as a
	// bet or raise whose size is still to be stated (TP-42).
	CallFloor   bool `json:"call_floor,omitempty"`
	AwaitAmount bool `json:"await_amount,omitempty"`
	// Ruling is the interpretation (Returned, Owed, AllIn and the rules).
	Ruling live.Ruling `json:"ruling"`
	// Pot, Winners and LowWinners are a pot award.
	Pot        int   `json:"pot,omitempty"`
	Winners    []int `json:"winners,omitempty"`
	LowWinners []int `json:"low_winners,omitempty"`
	// Seq is the table's sequence number once it was recorded: the
	// proposal stands while the table is still there.
	Seq int64 `json:"seq"`
}

// RuleIDs returns the rules the proposal applies.
func (p Proposal) RuleIDs() []string {
	var ids []string
	for _, c := range p.Ruling.Rules {
		if !slices.Contains(ids, c.Rule) {
			ids = append(ids, c.Rule)
		}
	}
	return ids
}

// floorRule names the rule that sends the proposal to the floor: the
// first one cited among those that do, else the first.
func (p Proposal) floorRule() string {
	for _, c := range p.Ruling.Rules {
		switch c.Rule {
		case "TP-38", "G-15", "G-13", "TP-02", "TP-42", "TP-68":
			return c.Rule
		}
	}
	if len(p.Ruling.Rules) > 0 {
		return p.Ruling.Rules[0].Rule
	}
	return "TP-02"
}

// Errors of the console.
var (
	ErrNotLive          = fault.New(fault.Precondition, "NOT_LIVE_TABLE", "this entry is for live tables")
	ErrProposalNotFound = fault.New(fault.Precondition, "PROPOSAL_NOT_FOUND", "no standing proposal has that id")
)

// Proposal returns the standing proposal, or nil.
func (t *Table) Proposal() *Proposal {
	if p := t.proposal; p != nil && p.Seq == t.seq && t.hand != nil {
		c := *p
		return &c
	}
	return nil
}

var liveToEngine = map[live.Action]engine.ActionKind{live.Fold: engine.Fold, live.Check: engine.Check, live.Call: engine.Call,
	live.Bet: engine.Bet, live.Raise: engine.Raise}

// Interpret reads a dealer's entry for seat (the seat in turn, or a seat
// that pushed out of turn; -1 is the seat in turn) under TP-32…TP-43 and
// records the proposal it amounts to under id.
func (t *Table) Interpret(id string, seat int, e live.Entry) (Proposal, Output, error) {
	if t.cfg.Mode != engine.Live {
		return Proposal{}, Output{}, ErrNotLive.Withf("a digital table takes exact actions, not chips and words")
	}
	if t.hand == nil {
		return Proposal{}, Output{}, ErrNoHand
	}
	h := t.hand
	if seat < 0 {
		seat = h.ToAct()
	}
	b, ok := h.BettingFor(seat)
	if !ok {
		if h.ToAct() < 0 {
			return Proposal{}, Output{}, fault.New(fault.Precondition, "NO_DECISION_PENDING", "nobody is to act")
		}
		return Proposal{}, Output{}, fault.Rule(fault.Precondition, "TP-46", "ACTION_NOT_ALLOWED", "seat "+strconv.Itoa(seat)+" has no action")
	}
	s := live.Situation{Structure: live.Structure(b.Structure), Tournament: b.Tournament, Preflop: b.Preflop, CurrentBet: b.CurrentBet,
		InFront: b.InFront, Stack: b.Stack, MinRaiseTo: b.MinRaiseTo, MaxRaiseTo: b.MaxRaiseTo, BigUnitTo: b.BigUnitTo, LastRaise: b.LastRaise,
		ChipUnit: b.ChipUnit, RaiseClosed: b.RaiseClosed}
	ru, err := live.Interpret(e, s)
	if err != nil {
		return Proposal{}, Output{}, err
	}
	p := Proposal{ID: id, Seat: seat, OutOfTurn: seat != h.ToAct(), CallFloor: ru.CallFloor, AwaitAmount: ru.AwaitAmount, Ruling: ru}
	p.Kind, ok = liveToEngine[ru.Action]
	p.None = !ok
	switch p.Kind {
	case engine.Bet, engine.Raise:
		p.Amount = ru.Amount
	}
	if p.None {
		p.CallFloor = true
	}
	out := t.changed()
	p.Seq = t.seq
	t.proposal = &p
	out.Proposal = &p
	return p, out, nil
}

// ProposeAward records a dealer's pot award at a table that awards by the
// winners entered: the floor confirms it.
func (t *Table) ProposeAward(id string, pot int, winners, low []int) (Proposal, Output, error) {
	if t.hand == nil {
		return Proposal{}, Output{}, ErrNoHand
	}
	if !t.cfg.WinnerEntry || t.hand.Phase() != engine.PhaseShowdown {
		return Proposal{}, Output{}, fault.Rule(fault.Precondition, "TP-68", "ACTION_NOT_ALLOWED", "no pot is awarded by the winners entered now")
	}
	// The floor's award is checked now on a copy, so that a proposal the
	// engine would refuse is refused at once.
	a := engine.Action{Kind: engine.AwardPot, By: engine.RoleFloor, Pot: pot, Winners: winners, LowWinners: low}
	if _, err := t.hand.Clone().Apply(a); err != nil {
		return Proposal{}, Output{}, err
	}
	p := Proposal{ID: id, Seat: -1, Kind: engine.AwardPot, CallFloor: true, Pot: pot, Winners: slices.Clone(winners), LowWinners: slices.Clone(low),
		Ruling: live.Ruling{Rules: []live.Citation{{Rule: "TP-68", Text: "the winners of the pot as the dealer read the tabled hands; the floor confirms"}}}}
	out := t.changed()
	p.Seq = t.seq
	t.proposal = &p
	out.Proposal = &p
	return p, out, nil
}

// Confirm applies the standing proposal named id for role: the floor's
// confirmation, with its reason, when the proposal calls the floor.
func (t *Table) Confirm(id string, role engine.Role, reason string, now time.Time) (Output, error) {
	p := t.Proposal()
	if p == nil || p.ID != id {
		return Output{}, ErrProposalNotFound.Withf("proposal %q is not standing (confirmed, replaced, or the table moved on)", id)
	}
	switch {
	case p.AwaitAmount:
		return Output{}, fault.Rule(fault.Precondition, "TP-42", "AMOUNT_REQUIRED", "\"pot\" locks a bet or raise whose size must be stated: interpret again with the amount")
	case p.None:
		return Output{}, fault.Rule(fault.Forbidden, p.floorRule(), "FLOOR_ONLY", "the console proposes no action: the floor enters one")
	case p.CallFloor && role != engine.RoleFloor:
		return Output{}, fault.Rule(fault.Forbidden, p.floorRule(), "FLOOR_ONLY", "this proposal goes to the floor")
	case p.CallFloor && reason == "":
		err := ErrReasonRequired.Withf("the floor confirms a proposal that called it with the reason")
		err.Rule = p.floorRule()
		return Output{}, err
	}
	var out Output
	var err error
	act := Act{Action: engine.Action{Seat: p.Seat, Kind: p.Kind, Amount: p.Amount, By: role}, Reason: reason}
	t.proposal = nil
	switch {
	case p.Kind == engine.AwardPot:
		act.Action = engine.Action{Kind: engine.AwardPot, By: engine.RoleFloor, Pot: p.Pot, Winners: p.Winners, LowWinners: p.LowWinners}
		out, err = t.Apply(act, now)
	case p.OutOfTurn:
		out, err = t.OutOfTurn(act, now)
	default:
		out, err = t.Apply(act, now)
	}
	if err != nil {
		t.proposal = p
		return Output{}, err
	}
	out.Confirmed = p
	return out, nil
}

// bound applies the standing proposal to a console entry for its seat: an
// entry that is the proposed action confirms it (confirmed); the floor
// rules otherwise at will (TP-02, overruled); a dealer's other entry is
// refused while the proposal stands.
func (t *Table) bound(a engine.Action) (confirmed, overruled *Proposal, err error) {
	p := t.Proposal()
	if p == nil || p.Seat != a.Seat || a.By == engine.RolePlayer {
		return nil, nil, nil
	}
	switch a.Kind {
	case engine.Fold, engine.Check, engine.Call, engine.Bet, engine.Raise, engine.Complete, engine.Withdraw:
	default:
		return nil, nil, nil
	}
	amount := a.Amount
	if a.Kind == engine.Call {
		amount = 0
	}
	same := !p.None && !p.AwaitAmount && p.Kind == a.Kind && p.Amount == amount
	switch {
	case a.By == engine.RoleFloor && same:
		return p, nil, nil
	case a.By == engine.RoleFloor:
		return nil, p, nil
	case p.None || p.CallFloor:
		return nil, nil, fault.Rule(fault.Forbidden, p.floorRule(), "FLOOR_ONLY", "the console's proposal for this seat goes to the floor")
	case p.AwaitAmount && (a.Kind == engine.Bet || a.Kind == engine.Raise) && a.Amount > 0:
		// TP-42: the word locked a bet or raise; the dealer states its size.
		return p, nil, nil
	case p.AwaitAmount:
		return nil, nil, fault.Rule(fault.Precondition, "TP-42", "AMOUNT_REQUIRED", "\"pot\" locked a bet or raise: enter its size")
	case !same:
		return nil, nil, fault.Rule(fault.Precondition, p.floorRule(), "PROPOSAL_PENDING",
			fmt.Sprintf("the console proposed %s %d for seat %d: confirm it, interpret again, or call the floor", p.Kind, p.Amount, p.Seat))
	}
	return p, nil, nil
}
