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

// Skipped seats at a live table (TP-46…TP-48).
//
// A SKIP entry names the seat in turn whose turn was passed over. The table
// rules on it with live.SkippedPlayer from what it knows, not on the
// dealer's say-so: how many seats acted out of turn (OutOfTurn entries)
// while that seat was in turn on this round, whether it faces a bet, and
// whether the dealer reports that the next round's cards are already out
// (the engine never deals them while a seat is to act, so only the dealer
// can say so).
//   - Fewer than two acted: the action returns to the seat (TP-46); the
//     SKIP is refused and nothing changes.
//   - Two or more acted: the seat has checked, or folded facing a bet
//     (TP-47); the engine's Skip applies exactly that.
//   - Fewer than two acted but the next round's cards are out: a floor
//     decision (TP-48, gap G-10); only the floor records it, and the seat
//     is then checked or folded as under TP-47.
// The ruling is returned in Output.OOT (OOTRuling.Skip set) for the
// response and the audit log. Digital tables apply the engine's Skip as
// before: there only the seat in turn can act, so no seat is passed over.

// ootActs are the seats that acted out of turn while InTurn was in turn on
// Street: what TP-47 counts. It is stored with the hand and dropped as soon
// as the turn moves on (settle), so it only ever covers the current turn.
type ootActs struct {
	InTurn int           `json:"in_turn"`
	Street engine.Street `json:"street"`
	Seats  []int         `json:"seats"`
}

// noteOOT records that seat acted out of turn while inTurn was in turn on
// street.
func (t *Table) noteOOT(inTurn int, street engine.Street, seat int) {
	if w := t.acted; w == nil || w.InTurn != inTurn || w.Street != street {
		t.acted = &ootActs{InTurn: inTurn, Street: street}
	}
	if !slices.Contains(t.acted.Seats, seat) {
		t.acted.Seats = append(t.acted.Seats, seat)
	}
}

// dropStaleOOT forgets the out-of-turn seats once the turn has moved on
// (the seat in turn acted, was skipped or killed, or the round ended).
func (t *Table) dropStaleOOT() {
	if w := t.acted; w != nil && (t.hand == nil || t.hand.ToAct() != w.InTurn || t.hand.Street() != w.Street) {
		t.acted = nil
	}
}

// actedSince is how many seats acted out of turn while seat has been in
// turn on this round.
func (t *Table) actedSince(seat int) int {
	t.dropStaleOOT()
	if w := t.acted; w != nil && w.InTurn == seat {
		return len(w.Seats)
	}
	return 0
}

// Skip rules on a SKIP entry for the seat in turn (see the comment above
// ootActs). nextStreetDealt is the dealer's report that the next round's
// cards were dealt before the seat could react (TP-48). Refusals leave the
// table unchanged and name their rule.
func (t *Table) Skip(act Act, nextStreetDealt bool, now time.Time) (Output, error) {
	if t.cfg.Mode != engine.Live {
		return t.Apply(act, now)
	}
	if out, done, err := t.precheck(act); done || err != nil {
		return out, err
	}
	a, h := act.Action, t.hand
	b, ok := h.Betting()
	if !ok || h.ToAct() < 0 {
		return Output{}, fault.Rule(fault.Precondition, "TP-47", "ACTION_NOT_ALLOWED", "no betting round is open")
	}
	if a.Seat != h.ToAct() {
		return Output{}, fault.Rule(fault.Precondition, "TP-47", "ACTION_NOT_ALLOWED",
			"seat "+strconv.Itoa(a.Seat)+" is not in turn: only the seat in turn can have been skipped").
			With("to_act", strconv.Itoa(h.ToAct()))
	}
	if nextStreetDealt && h.LastRound() {
		return Output{}, fault.Rule(fault.Precondition, "TP-48", "ACTION_NOT_ALLOWED", "no round follows this one: no next round's cards can have been dealt")
	}
	n := t.actedSince(a.Seat)
	ru := live.SkippedPlayer(live.Skipped{FacedBet: b.CurrentBet > b.InFront, ActedSince: n, NextStreetDealt: nextStreetDealt})
	switch ru.Outcome {
	case live.ActionReturns:
		return Output{}, fault.Rule(fault.Precondition, "TP-46", "ACTION_NOT_ALLOWED",
			fmt.Sprintf("the skipped seat %d acts now: %d seat(s) acted after it out of turn; TP-47 needs two", a.Seat, n)).
			With("acted_since", strconv.Itoa(n))
	case live.FloorDecision:
		if a.By != engine.RoleFloor {
			return Output{}, fault.Rule(fault.Forbidden, "TP-48", "FLOOR_ONLY",
				"the next round's cards were dealt before the skipped seat could react: the floor decides")
		}
		if act.Reason == "" {
			err := ErrReasonRequired.Withf("the floor records its decision on the skipped seat with the reason (TP-48)")
			err.Rule = "TP-48"
			return Output{}, err
		}
	}
	if len(a.Cards) > 0 && ru.Outcome != live.FloorDecision {
		return Output{}, fault.Rule(fault.Precondition, "G-10", "CARDS_NOT_EXPECTED", "cards dealt too early go with the floor's decision (TP-48)")
	}
	// The engine's Skip folds a seat facing a bet and checks one that is
	// not; it runs on a copy first so that a disagreement with the ruling
	// changes nothing.
	c := h.Clone()
	evs, err := c.Apply(a)
	if err != nil {
		return Output{}, err
	}
	want := engine.EvCheck
	if b.CurrentBet > b.InFront {
		want = engine.EvFold
	}
	if !slices.ContainsFunc(evs, func(e engine.Event) bool { return e.Kind == want && e.Seat == a.Seat }) {
		return Output{}, fmt.Errorf("table %s hand %d: seat %d: the engine's skip is not the %s ruling", t.id, t.handNo, a.Seat, ru.Outcome)
	}
	t.hand = c
	out := t.accepted(act.ActionID, evs)
	o := ru.Outcome
	out.OOT = append(out.OOT, OOTRuling{HandNo: t.handNo, Seat: a.Seat, Skip: &o, OutOfTurnRuling: live.OutOfTurnRuling{Rules: ru.Rules}})
	t.deadline, t.clockCalled = time.Time{}, false
	if err := t.settle(&out, now); err != nil {
		return Output{}, err
	}
	return out, nil
}
