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

// Out-of-turn entries at a live table (TP-46…TP-52).
//
// What the console automates and what the dealer enters:
//   - A fold or a check out of turn is applied at once by the engine
//     (TP-51 binding fold; TP-49 check that bars a later bet or raise this
//     round). The turn stays with the skipped seat; the dealer goes on
//     entering the skipped seats' actions as usual.
//   - A tournament call, bet or raise out of turn is committed as made
//     (TP-52, engine.Hand.ApplyOutOfTurn) and followed: if a skipped seat
//     then wagers more, the table rules Choose (TP-52/S5) and the seat's
//     choice in turn — call the difference, re-raise, or take the bet back
//     and fold (a plain fold is the last) — is ruled Chosen.
//   - A cash-game call, bet or raise out of turn (TP-50) is held here as a
//     Provisional wager: the chips stay in the player's stack as far as the
//     engine is concerned (outside the pot) and viewers see the wager as
//     provisional. Several may be held at once, in turn order. The dealer
//     enters each skipped seat's action as a normal player action; after
//     every change each wager is re-ruled with live.ResolveOutOfTurn. As
//     soon as a skipped seat bets or raises a wager is Withdrawn (its chips
//     go back; the seat acts freely in turn and the dealer enters that
//     action). When the out-of-turn seat's turn comes the table applies the
//     ruling itself: Stands makes the wager as entered, CheckOrCall checks
//     or calls for the seat (the excess goes back). A held wager applied
//     this way is an action the wagers held after it in turn order see.
// Every ruling is returned in Output.OOT for the audit log.

// Provisional is a cash-game call, bet or raise made out of turn and held
// outside the pot until the skipped seats have acted (TP-46, TP-50). It is
// stored with the hand, so it survives a restart.
type Provisional struct {
	// Seat is the seat that acted out of turn.
	Seat int `json:"seat"`
	// Kind is the action as entered: the engine action made if it stands.
	Kind engine.ActionKind `json:"kind"`
	// Action is Kind as engine/live rules on it.
	Action live.Action `json:"action"`
	// To is the total wager on the round the seat put out (TP-32).
	To int64 `json:"to"`
	// Faced is the round's bet when the wager was made; InFront the seat's
	// own wager then.
	Faced   int64 `json:"faced"`
	InFront int64 `json:"in_front"`
	// Street is the betting round it was made on.
	Street engine.Street `json:"street"`
	// Skipped are the seats passed over, in turn order.
	Skipped []int `json:"skipped"`
	// LogFrom is where the hand's event log stood when it was made: the
	// skipped seats' actions are read from the events after it.
	LogFrom int `json:"log_from"`
	// Committed is a tournament wager the engine committed as made
	// (TP-52): it is not held, only followed, to rule when a skipped seat
	// wagers more and to record the seat's choice then.
	Committed bool `json:"committed,omitempty"`
	// Overtaken is set once a skipped seat wagered more than a committed
	// wager and the table ruled Choose (TP-52/S5).
	Overtaken bool `json:"overtaken,omitempty"`
}

// OOTRuling is one ruling on an out-of-turn action, for the response and
// the audit log.
type OOTRuling struct {
	// HandNo is the hand it was made in.
	HandNo int64
	// Seat is the seat that acted out of turn (the skipped seat when Skip
	// is set).
	Seat int
	// Skip is set when the ruling is on a skipped seat (a SKIP entry,
	// TP-46…TP-48, skip.go) rather than on an out-of-turn action: only
	// the embedded ruling's Rules are then used.
	Skip *live.SkipOutcome
	live.OutOfTurnRuling
}

// OutcomeName names the ruling's outcome: a live.SkipOutcome for a skipped
// seat, otherwise the out-of-turn live.Outcome.
func (r OOTRuling) OutcomeName() string {
	if r.Skip != nil {
		return r.Skip.String()
	}
	return r.Outcome.String()
}

// RuleIDs returns the rules the ruling cites, then the scenario it
// matches (e.g. "TP-50", "TP-50/S1").
func (r OOTRuling) RuleIDs() []string {
	var ids []string
	for _, c := range r.Rules {
		if !slices.Contains(ids, c.Rule) {
			ids = append(ids, c.Rule)
		}
	}
	if r.Scenario != "" {
		ids = append(ids, r.Scenario)
	}
	return ids
}

// Provisionals returns copies of the out-of-turn wagers held outside the
// pot (TP-50), in turn order; tournament wagers, committed as made, are not
// among them.
func (t *Table) Provisionals() []Provisional {
	var out []Provisional
	for _, p := range t.oot {
		if !p.Committed {
			c := *p
			c.Skipped = slices.Clone(p.Skipped)
			out = append(out, c)
		}
	}
	return out
}

// ootOf returns the out-of-turn wager of seat being followed, or nil.
func (t *Table) ootOf(seat int) *Provisional {
	for _, p := range t.oot {
		if p.Seat == seat {
			return p
		}
	}
	return nil
}

// hold adds a wager to those followed, in turn order from the seat in turn
// (every held seat's turn is still to come, so the order is the seats'
// clockwise distance from it).
func (t *Table) hold(p *Provisional) {
	t.oot = append(t.oot, p)
	n, from := len(t.seats), t.hand.ToAct()
	slices.SortStableFunc(t.oot, func(a, b *Provisional) int { return (a.Seat-from+n)%n - (b.Seat-from+n)%n })
}

var ootToLive = map[engine.ActionKind]live.Action{engine.Fold: live.Fold, engine.Check: live.Check, engine.Call: live.Call,
	engine.Bet: live.Bet, engine.Raise: live.Raise, engine.Complete: live.Raise}

// OutOfTurn records an action made out of turn at a live table (see the
// package comment above Provisional). Digital tables refuse it (TP-46:
// only the seat in turn acts). Refusals leave the table unchanged and name
// their rule (TP-46 when the refusing check has none of its own).
func (t *Table) OutOfTurn(act Act, now time.Time) (Output, error) {
	out, err := t.outOfTurn(act, now)
	if err != nil {
		return Output{}, withRule(err, "TP-46")
	}
	return out, nil
}

// withRule names rule on a refusal that names none (an engine check that is
// not itself a rule, such as "nothing to call"), so that every refusal of
// an out-of-turn entry says which rule it applies. Internal faults and
// stale sequence numbers are not rulings and stay as they are.
func withRule(err error, rule string) error {
	f, ok := fault.As(err)
	if !ok || f.Rule != "" || f.Kind == fault.Internal || f.Reason == ErrStaleSequence.Reason {
		return err
	}
	c := *f
	c.Rule = rule
	return &c
}

func (t *Table) outOfTurn(act Act, now time.Time) (Output, error) {
	if out, done, err := t.precheck(act); done || err != nil {
		return out, err
	}
	if t.cfg.Mode != engine.Live {
		return Output{}, ErrNotInTurn.Withf("digital table: only the seat in turn acts")
	}
	confirmed, overruled, err := t.bound(act.Action)
	if err != nil {
		return Output{}, err
	}
	if overruled != nil && act.Reason == "" {
		return Output{}, ErrReasonRequired.Withf("the floor rules otherwise than the console proposed: give the reason")
	}
	out, err := t.outOfTurnEntry(act, now)
	if err != nil {
		return Output{}, err
	}
	out.Confirmed, out.Overruled = confirmed, overruled
	return out, nil
}

// outOfTurnEntry applies an out-of-turn entry the console's proposals
// allow.
func (t *Table) outOfTurnEntry(act Act, now time.Time) (Output, error) {
	a := act.Action
	h := t.hand
	la, ok := ootToLive[a.Kind]
	if !ok {
		return Output{}, fault.Rule(fault.Precondition, "TP-46", "ACTION_NOT_ALLOWED", a.Kind.String()+" cannot be entered out of turn")
	}
	b, ok := h.Betting()
	if !ok || h.ToAct() < 0 {
		return Output{}, fault.Rule(fault.Precondition, "TP-46", "ACTION_NOT_ALLOWED", "no betting round is open")
	}
	if a.Seat == h.ToAct() {
		return Output{}, fault.Rule(fault.Precondition, "TP-46", "ACTION_NOT_ALLOWED",
			"seat "+strconv.Itoa(a.Seat)+" is in turn: enter its action as a player action")
	}
	sv, ok := handSeat(h, a.Seat)
	if !ok {
		return Output{}, fault.Rule(fault.Precondition, "TP-46", "SEAT_NOT_IN_HAND", "seat "+strconv.Itoa(a.Seat)+" is not in the hand")
	}
	if p := t.ootOf(a.Seat); p != nil && !p.Committed && a.Kind != engine.Fold {
		// The seat's wager is held: it is settled when its turn comes (a
		// fold out of turn still binds at once, TP-51).
		return Output{}, fault.Rule(fault.Precondition, "TP-50", "ACTION_NOT_ALLOWED",
			"seat "+strconv.Itoa(a.Seat)+"'s out-of-turn wager is already held until the skipped seats act")
	}
	skipped := t.skippedSeats(h, a.Seat)
	turn, street := h.ToAct(), h.Street()
	o := live.OutOfTurn{Tournament: t.cfg.Tournament, Faced: b.CurrentBet, InFront: sv.Bet, SkippedCount: max(len(skipped), 1),
		Action: live.Wager{Action: la, To: a.Amount}}
	if la == live.Call {
		o.Action.To = b.CurrentBet
	}
	if la == live.Fold || la == live.Check || t.cfg.Tournament {
		return t.ootEngine(act, o, skipped, turn, street, now)
	}
	// A cash call, bet or raise: held provisionally (TP-50).
	if sv.Folded || sv.AllIn {
		return Output{}, fault.Rule(fault.Precondition, "TP-46", "ACTION_NOT_ALLOWED", "seat "+strconv.Itoa(a.Seat)+" has no action")
	}
	if la == live.Call && a.Amount != 0 && a.Amount != b.CurrentBet {
		return Output{}, fault.Rule(fault.Invalid, "TP-32", "WRONG_AMOUNT", "a call's amount is the round total").
			With("min", strconv.FormatInt(b.CurrentBet, 10), "max", strconv.FormatInt(b.CurrentBet, 10))
	}
	if err := t.tryStands(a, skipped); err != nil {
		return Output{}, err
	}
	if len(skipped) == 0 {
		return Output{}, fault.Rule(fault.Precondition, "TP-46", "ACTION_NOT_ALLOWED", "no seat was skipped")
	}
	ru, err := live.ResolveOutOfTurn(o)
	if err != nil {
		return Output{}, err
	}
	t.hold(&Provisional{Seat: a.Seat, Kind: a.Kind, Action: la, To: o.Action.To, Faced: o.Faced, InFront: o.InFront, Street: h.Street(),
		Skipped: skipped, LogFrom: len(t.log)})
	t.noteOOT(turn, street, a.Seat)
	t.remember(act.ActionID)
	out := t.changed()
	out.OOT = []OOTRuling{{HandNo: t.handNo, Seat: a.Seat, OutOfTurnRuling: ru}}
	return out, nil
}

// ootEngine applies a fold or check out of turn (TP-51, TP-49) or a
// tournament wager (TP-52) through the engine; a tournament wager is then
// followed (Provisional.Committed). turn and street are the seat in turn
// and the round when it was made (TP-47 counts it for that seat).
func (t *Table) ootEngine(act Act, o live.OutOfTurn, skipped []int, turn int, street engine.Street, now time.Time) (Output, error) {
	from := len(t.log)
	evs, err := t.hand.ApplyOutOfTurn(act.Action)
	if err != nil {
		return Output{}, err
	}
	t.noteOOT(turn, street, act.Action.Seat)
	if a := act.Action; t.cfg.Tournament && a.Kind != engine.Fold && a.Kind != engine.Check && len(skipped) > 0 {
		if p := t.ootOf(a.Seat); p != nil {
			t.oot = slices.DeleteFunc(t.oot, func(q *Provisional) bool { return q == p })
		}
		t.hold(&Provisional{Seat: a.Seat, Kind: a.Kind, Action: o.Action.Action, To: o.Action.To, Faced: o.Faced, InFront: o.InFront,
			Street: street, Skipped: skipped, LogFrom: from + len(evs), Committed: true})
	}
	out := t.accepted(act.ActionID, evs)
	// The ruling's citations: the engine applied it already; engine/live
	// names the rules (TP-49, TP-51, TP-52 and the P-2 fallback).
	ru, err := live.ResolveOutOfTurn(o)
	if err != nil {
		ru = live.OutOfTurnRuling{Rules: []live.Citation{{Rule: "TP-46", Text: "recorded out of turn"}}}
	}
	out.OOT = []OOTRuling{{HandNo: t.handNo, Seat: act.Action.Seat, OutOfTurnRuling: ru}}
	if err := t.settle(&out, now); err != nil {
		return Output{}, err
	}
	return out, nil
}

// tryStands checks on a copy of the hand that the wager is one the seat
// could make in its turn had the skipped seats folded (the case where it
// stands as entered): a refusal names the engine's rule now, not when the
// ruling is applied.
func (t *Table) tryStands(a engine.Action, skipped []int) error {
	if a.Kind == engine.Call {
		a.Amount = 0
	}
	// The skipped seats fold on the copy; if that would end the hand (no
	// one else is left), they check or call instead, which leaves the bet
	// the same.
	for _, kind := range []engine.ActionKind{engine.Fold, engine.Timeout} {
		c := t.hand.Clone()
		for _, s := range skipped {
			k := kind
			if kind == engine.Timeout {
				k = engine.Check
				if b, ok := c.Betting(); ok && b.CurrentBet > b.InFront {
					k = engine.Call
				}
			}
			if c.ToAct() != s {
				break
			}
			if _, err := c.Apply(engine.Action{Seat: s, Kind: k, By: engine.RoleDealer}); err != nil {
				break
			}
		}
		if c.ToAct() != a.Seat {
			continue
		}
		if _, err := c.Apply(a); err != nil {
			return withRule(err, "TP-50")
		}
		return nil
	}
	return fault.Rule(fault.Precondition, "TP-46", "ACTION_NOT_ALLOWED", "seat "+strconv.Itoa(a.Seat)+" has no decision left on this round")
}

// skippedSeats returns the seats from the seat in turn up to (not
// including) seat that can still act, in turn order.
func (t *Table) skippedSeats(h *engine.Hand, seat int) []int {
	v := h.View(-1)
	n := len(v.Seats)
	from := slices.IndexFunc(v.Seats, func(s engine.SeatView) bool { return s.Seat == h.ToAct() })
	var out []int
	for k := range n {
		s := v.Seats[(from+k)%n]
		if s.Seat == seat {
			break
		}
		if !s.Folded && !s.AllIn {
			out = append(out, s.Seat)
		}
	}
	return out
}

func handSeat(h *engine.Hand, seat int) (engine.SeatView, bool) {
	for _, s := range h.View(-1).Seats {
		if s.Seat == seat {
			return s, true
		}
	}
	return engine.SeatView{}, false
}

// skippedWagers reads the skipped seats' actions since the wager was made
// from the hand's log: a kill counts as a fold, a revival takes it back.
func (p *Provisional) skippedWagers(log []engine.Event) []live.Wager {
	done := map[int]live.Wager{}
	var order []int
	for _, e := range log[min(p.LogFrom, len(log)):] {
		if !slices.Contains(p.Skipped, e.Seat) {
			continue
		}
		var w live.Wager
		switch e.Kind {
		case engine.EvFold, engine.EvKill:
			w = live.Wager{Action: live.Fold}
		case engine.EvCheck:
			w = live.Wager{Action: live.Check}
		case engine.EvCall:
			w = live.Wager{Action: live.Call, To: e.Amount}
		case engine.EvBet:
			w = live.Wager{Action: live.Bet, To: e.Amount}
		case engine.EvRaise, engine.EvComplete:
			w = live.Wager{Action: live.Raise, To: e.Amount}
		case engine.EvRevive:
			delete(done, e.Seat)
			order = slices.DeleteFunc(order, func(s int) bool { return s == e.Seat })
			continue
		default:
			continue
		}
		if _, ok := done[e.Seat]; !ok {
			order = append(order, e.Seat)
			done[e.Seat] = w
		}
	}
	out := make([]live.Wager, 0, len(order))
	for _, s := range order {
		out = append(out, done[s])
	}
	return out
}

// followOOT re-rules the out-of-turn wagers followed after a change and
// applies each ruling when it is final: a held cash wager is Withdrawn as
// soon as a skipped seat bets or raises, and Stands or becomes a check or
// call when its seat's turn comes; a committed tournament wager gets its
// Choose ruling when a skipped seat wagers more. An applied wager is an
// action the wagers after it see, so the wagers are ruled again until
// nothing changes.
func (t *Table) followOOT(out *Output) error {
	for again := true; again; {
		again = false
		for _, p := range t.oot {
			done, applied, err := t.followOne(p, out)
			if err != nil {
				return err
			}
			if done {
				t.oot = slices.DeleteFunc(t.oot, func(q *Provisional) bool { return q == p })
			}
			if done || applied {
				again = true
				break
			}
		}
	}
	return nil
}

// followOne rules on one followed wager p: done when it is settled (or
// moot) and no longer followed, applied when the table made the seat's
// action.
func (t *Table) followOne(p *Provisional, out *Output) (done, applied bool, err error) {
	h := t.hand
	sv, in := handSeat(h, p.Seat)
	if h.Phase() != engine.PhaseBetting || h.Street() != p.Street || !in || sv.Folded || sv.AllIn {
		// The seat's hand is dead or the round is over before its turn: a
		// held wager's chips never left its stack; nothing to apply.
		return true, false, nil
	}
	w := p.skippedWagers(t.log)
	o := live.OutOfTurn{Tournament: p.Committed, Faced: p.Faced, InFront: p.InFront, Action: live.Wager{Action: p.Action, To: p.To},
		SkippedCount: len(p.Skipped), Skipped: w}
	turn := h.ToAct() == p.Seat
	if turn && len(w) < len(p.Skipped) {
		// A skipped seat will not act (it went all in on an earlier
		// action, or left): rule on what those who acted did.
		o.SkippedCount = max(len(w), 1)
	}
	ru, err := live.ResolveOutOfTurn(o)
	if err != nil {
		return false, false, err
	}
	if p.Committed {
		switch {
		case ru.Outcome == live.Choose && !p.Overtaken:
			p.Overtaken = true
			out.OOT = append(out.OOT, OOTRuling{HandNo: t.handNo, Seat: p.Seat, OutOfTurnRuling: ru})
		case ru.Outcome == live.Stands && !p.Overtaken && len(w) == len(p.Skipped):
			// Every skipped seat acted and none wagered more: the wager
			// stood as made, as the seed's example (TP-52/S1…S4) says.
			out.OOT = append(out.OOT, OOTRuling{HandNo: t.handNo, Seat: p.Seat, OutOfTurnRuling: ru})
			return true, false, nil
		}
		return false, false, nil
	}
	if turn && len(w) == 0 {
		ru = live.OutOfTurnRuling{Outcome: live.Stands, Wager: p.To, Decided: p.Action, CanBetOrRaise: true,
			Rules: []live.Citation{{Rule: "TP-50", Text: "no skipped player acted: the out-of-turn action stands (rule 3)"}}}
	}
	switch {
	case ru.Outcome == live.Withdrawn:
		// The chips go back at once; the seat acts freely in turn.
		out.OOT = append(out.OOT, OOTRuling{HandNo: t.handNo, Seat: p.Seat, OutOfTurnRuling: ru})
		return true, false, nil
	case ru.Outcome == live.Pending || !turn:
		return false, false, nil
	}
	out.OOT = append(out.OOT, OOTRuling{HandNo: t.handNo, Seat: p.Seat, OutOfTurnRuling: ru})
	var a engine.Action
	switch {
	case ru.Outcome == live.Stands:
		a = engine.Action{Seat: p.Seat, Kind: p.Kind, Amount: p.To, By: engine.RoleDealer}
		if p.Kind == engine.Call {
			a.Amount = 0
		}
	case ru.Outcome == live.CheckOrCall && ru.Decided == live.Call:
		a = engine.Action{Seat: p.Seat, Kind: engine.Call, By: engine.RoleDealer}
	case ru.Outcome == live.CheckOrCall:
		a = engine.Action{Seat: p.Seat, Kind: engine.Check, By: engine.RoleDealer}
	default:
		return true, false, nil
	}
	evs, err := h.Apply(a)
	if err != nil {
		return false, false, fmt.Errorf("table %s hand %d: out-of-turn ruling %s for seat %d: %w", t.id, t.handNo, ru.Outcome, p.Seat, err)
	}
	t.log = append(t.log, evs...)
	out.Events = append(out.Events, evs...)
	return true, true, nil
}

// choiceRuling records the choice a tournament seat made in turn after a
// skipped seat overtook its out-of-turn wager (TP-52/S5): call the
// difference, re-raise, or take the bet back and fold. evs are the events
// of the seat's action; ok is false when the seat had no such choice.
func (t *Table) choiceRuling(seat int, evs []engine.Event) (OOTRuling, bool) {
	p := t.ootOf(seat)
	if p == nil || !p.Committed || !p.Overtaken {
		return OOTRuling{}, false
	}
	t.oot = slices.DeleteFunc(t.oot, func(q *Provisional) bool { return q == p })
	r := OOTRuling{HandNo: t.handNo, Seat: seat, OutOfTurnRuling: live.OutOfTurnRuling{Outcome: live.Chosen, Scenario: "TP-52/S5"}}
	for _, e := range evs {
		if e.Seat != seat {
			continue
		}
		switch e.Kind {
		case engine.EvReturn:
			r.Returned += e.Amount
		case engine.EvFold:
			r.Decided = live.Fold
		case engine.EvCall:
			r.Decided, r.Wager = live.Call, e.Amount
		case engine.EvRaise, engine.EvBet:
			r.Decided, r.Wager, r.CanBetOrRaise = live.Raise, e.Amount, true
		}
	}
	text := map[live.Action]string{
		live.Fold:  "a skipped player wagered more than the out-of-turn bet: the player took the bet back and folded",
		live.Call:  "a skipped player wagered more than the out-of-turn bet: the player called the difference",
		live.Raise: "a skipped player wagered more than the out-of-turn bet: the player raised again",
	}[r.Decided]
	if text == "" {
		text = "a skipped player wagered more than the out-of-turn bet: the player's choice was made for them"
	}
	if sv, ok := handSeat(t.hand, seat); ok && r.Decided == live.Fold {
		r.Wager = sv.Bet
	}
	r.Rules = []live.Citation{{Rule: "TP-52", Text: text}}
	return r, true
}
