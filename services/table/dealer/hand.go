package dealer

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/engine/button"
	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/engine/refusal"
)

func (t *Table) buttonSeat(s Seat) button.Seat {
	if s.Unpaid || s.Arriving != nil {
		// Not in the game yet: the planner sees an empty seat, so no blind
		// is owed for the moments before the wallet confirms, or before a
		// moved player reaches a live table.
		return button.Seat{}
	}
	return button.Seat{Player: s.Player, Stack: s.Stack, SittingOut: s.Absent() || s.Leaving, New: s.New,
		PostNow: s.PostNow, Rebought: s.Rebought, Debt: s.Debt, Straddle: s.Straddle && !t.cfg.Tournament}
}

func (t *Table) buttonTable() button.Table {
	bt := button.Table{Previous: t.previous, Stakes: t.stakes(), Tournament: t.cfg.Tournament, Method: t.settings.Method}
	for _, s := range t.seats {
		bt.Seats = append(bt.Seats, t.buttonSeat(s))
	}
	if !t.started {
		first := t.firstButton()
		if t.tour != nil && t.tour.Button != nil {
			first = *t.tour.Button // drawn (TR-07, G-28)
		}
		bt.Previous = button.FirstHand(first)
	}
	return bt
}

// firstButton places the first hand's button on the last player before
// the lowest occupied seat, so the blinds fall on the first players
// clockwise from it (a fixed draw, G-28).
func (t *Table) firstButton() int {
	n := len(t.seats)
	for i := range n {
		if t.seats[i].Occupied() {
			return (i - 1 + n) % n
		}
	}
	return 0
}

// Ready reports whether the next hand can start at now: no hand in
// progress, the table open, at least two players who can be dealt in, and
// at a tournament table no hold, no break and a level started.
func (t *Table) Ready(now time.Time) bool {
	if t.hand != nil || t.closing || t.heldAt(now) != "" {
		return false
	}
	_, _, err := t.planNext()
	return err == nil
}

func (t *Table) planNext() (button.Plan, engine.Setup, error) {
	if t.cfg.Game.IsStud() {
		return t.planStud()
	}
	bt := t.buttonTable()
	plan, err := button.PlanHand(bt)
	if isStraddleRefusal(err) {
		// A straddle asked for during the last hand that this hand's
		// positions do not allow (TP-20): deal without it.
		for i := range bt.Seats {
			bt.Seats[i].Straddle = false
		}
		plan, err = button.PlanHand(bt)
	}
	if err != nil {
		return plan, engine.Setup{}, err
	}
	setup := engine.Setup{Button: plan.Positions.Button}
	for _, p := range plan.Players {
		setup.Players = append(setup.Players, engine.Player{Seat: p.Seat, ID: p.ID, Stack: p.Stack, Absent: p.Absent})
	}
	for _, q := range plan.Posts {
		setup.Posts = append(setup.Posts, engine.Post{Seat: q.Seat, Kind: engine.PostKind(q.Kind), Amount: q.Amount, Rule: q.Rule})
	}
	// The engine wants players in seat order; the plan lists them in deal
	// order.
	slices.SortFunc(setup.Players, func(a, b engine.Player) int { return a.Seat - b.Seat })
	return plan, setup, nil
}

// planStud deals everyone with chips who is not sitting out: stud has no
// blinds to owe (antes and the bring-in are the engine's).
func (t *Table) planStud() (button.Plan, engine.Setup, error) {
	var setup engine.Setup
	for i, s := range t.seats {
		if s.Occupied() && !s.Unpaid && s.Arriving == nil && s.Stack > 0 && (!s.Absent() && !s.Leaving || t.cfg.Tournament) {
			setup.Players = append(setup.Players, engine.Player{Seat: i, ID: s.Player, Stack: s.Stack, Absent: t.cfg.Tournament && s.Absent()})
		}
	}
	if len(setup.Players) < 2 {
		return button.Plan{}, setup, &refusal.Error{Rule: "TP-10", Reason: refusal.TooFewPlayers, Msg: "fewer than two players can be dealt in"}
	}
	return button.Plan{Positions: t.previous}, setup, nil
}

// StartHand deals the next hand from deck (shuffled by the service and
// stored before this call, so a recovery never reshuffles; a live table
// deals physical cards and takes none). It refuses when a hand is in
// progress or fewer than two players can play.
func (t *Table) StartHand(deck cards.Deck, now time.Time) (Output, error) {
	if t.hand != nil {
		return Output{}, fault.New(fault.Precondition, "HAND_IN_PROGRESS", "a hand is in progress")
	}
	if t.closing {
		return Output{}, fault.New(fault.Precondition, "TABLE_CLOSED", "the table is closed")
	}
	notices, err := t.startLevel(now)
	if err != nil {
		return Output{}, err
	}
	plan, setup, err := t.planNext()
	if err != nil {
		return Output{}, err
	}
	if !t.cfg.Physical {
		setup.Deck = slices.Clone(deck)
	}
	h, err := engine.NewHand(t.cfg, setup)
	if err != nil {
		return Output{}, err
	}
	t.hand, t.plan, t.setup, t.handStart, t.fixed = h, plan, setup, now, nil
	for i := range t.seats {
		// A straddle request is for one hand: this one used it up.
		t.seats[i].Straddle = false
	}
	t.handNo++
	t.started = true
	t.log = append(t.log[:0], h.Events()...)
	out := t.changed()
	out.Notices = notices
	if t.tour != nil {
		t.countPenalties(&out)
		t.tour.Button = nil
	}
	out.Started = t.handNo
	out.Events = slices.Clone(h.Events())
	if err := t.settle(&out, now); err != nil {
		return Output{}, err
	}
	return out, nil
}

// Act applies one action by a seat or by staff. ExpectedSeq (when set)
// must equal the table's sequence number, and ActionID (when set) makes a
// retry a no-op.
type Act struct {
	// ActionID is the client's id for the action; a repeat is not applied
	// again.
	ActionID string
	// ExpectedSeq, when not nil, must be the table's current sequence
	// number.
	ExpectedSeq *int64
	// Action is the engine action; Action.By says who acts.
	Action engine.Action
	// Reason is the explanation the floor gives for a ruling (TP-02); a
	// floor ruling without one is refused (floorRuling).
	Reason string
}

// Apply applies act to the hand in progress. A digital-table player may act
// only in turn (TP-46); refusals leave the table unchanged and name their
// rule.
func (t *Table) Apply(act Act, now time.Time) (Output, error) {
	if out, done, err := t.precheck(act); done || err != nil {
		return out, err
	}
	a := act.Action
	if a.By == engine.RolePlayer && t.cfg.Mode == engine.Digital && t.hand.ToAct() != a.Seat && t.hand.Phase() != engine.PhaseDone {
		return Output{}, ErrNotInTurn.Withf("seat %d acted, seat %d is to act", a.Seat, t.hand.ToAct())
	}
	confirmed, overruled, err := t.bound(a)
	if err != nil {
		return Output{}, err
	}
	if overruled != nil && act.Reason == "" {
		return Output{}, ErrReasonRequired.Withf("the floor rules otherwise than the console proposed: give the reason")
	}
	evs, err := t.hand.Apply(a)
	if err != nil {
		return Output{}, err
	}
	if a.Kind == engine.Show && (t.seats[a.Seat].Leaving || t.seats[a.Seat].Away) {
		// A live table's dealer tabling the away seat's hand (G-43).
		evs = awayRuled(evs, a.Seat)
	}
	out := t.accepted(act.ActionID, evs)
	out.Confirmed, out.Overruled = confirmed, overruled
	if r, ok := t.choiceRuling(a.Seat, evs); ok {
		out.OOT = append(out.OOT, r)
	}
	t.deadline, t.clockCalled = time.Time{}, false
	if err := t.settle(&out, now); err != nil {
		return Output{}, err
	}
	return out, nil
}

// precheck answers a repeated action id (done, a duplicate) and refuses a
// stale sequence number or an act with no hand in progress.
func (t *Table) precheck(act Act) (Output, bool, error) {
	if act.ActionID != "" && slices.Contains(t.recent, act.ActionID) {
		return Output{Seq: t.seq, Duplicate: true}, true, nil
	}
	if act.ExpectedSeq != nil && *act.ExpectedSeq != t.seq {
		return Output{}, false, ErrStaleSequence.Withf("expected sequence %d, the table is at %d", *act.ExpectedSeq, t.seq).
			With("sequence", strconv.FormatInt(t.seq, 10))
	}
	if t.hand == nil {
		return Output{}, false, ErrNoHand
	}
	return Output{}, false, nil
}

// accepted records an action the hand applied, with its events evs: its
// id (a retry is not applied again), the events in the hand's log and in
// the change's output.
func (t *Table) accepted(id string, evs []engine.Event) Output {
	t.remember(id)
	t.log = append(t.log, evs...)
	out := t.changed()
	out.Events = slices.Clone(evs)
	return out
}

// remember records an applied action id so that a retry is not applied
// twice.
func (t *Table) remember(id string) {
	if id == "" {
		return
	}
	t.recent = append(t.recent, id)
	if len(t.recent) > recentActions {
		t.recent = slices.Delete(t.recent, 0, len(t.recent)-recentActions)
	}
}

// CallClock starts the TP-59 clock on the seat in turn: it has the
// profile's ClockSeconds plus the countdown, and then its hand is dead.
func (t *Table) CallClock(now time.Time) (Output, error) {
	if t.hand == nil || t.hand.ToAct() < 0 {
		return Output{}, ErrClockNotDue
	}
	p := t.cfg.Profile
	d := time.Duration(p.ClockSeconds+p.ClockCountdownSeconds) * time.Second
	if d <= 0 {
		d = 70 * time.Second
	}
	t.deadline, t.clockCalled = now.Add(d), true
	return t.changed(), nil
}

// Expire applies what a passed deadline means: a called clock kills the
// hand (TP-59), the house time limit times the seat out (fold when facing
// a bet, otherwise check). It does nothing before the deadline.
func (t *Table) Expire(now time.Time) (Output, error) {
	if t.hand == nil || t.deadline.IsZero() || now.Before(t.deadline) {
		return Output{Seq: t.seq}, nil
	}
	seat := t.hand.ToAct()
	if seat < 0 {
		t.deadline = time.Time{}
		return Output{Seq: t.seq}, nil
	}
	a := engine.Action{Seat: seat, Kind: engine.Timeout, By: engine.RoleDealer}
	if t.clockCalled && t.hand.Phase() == engine.PhaseBetting {
		a = engine.Action{Seat: seat, Kind: engine.Kill, Kill: engine.KillClockExpired, By: engine.RoleFloor}
	}
	out, err := t.Apply(Act{Action: a}, now)
	if err != nil && a.Kind == engine.Kill {
		out, err = t.Apply(Act{Action: engine.Action{Seat: seat, Kind: engine.Timeout, By: engine.RoleDealer}}, now)
	}
	return out, err
}

// settle runs what follows an accepted change without a decision: leaving
// seats and (in digital mode) showdown decisions act at once; a finished
// hand is wrapped up; the clock is set for the next decision.
func (t *Table) settle(out *Output, now time.Time) error {
	for t.hand != nil && !t.hand.Done() {
		// A provisional out-of-turn wager is re-ruled after every change,
		// automatic ones included (TP-50).
		if err := t.followOOT(out); err != nil {
			return err
		}
		if t.hand.Done() {
			break
		}
		seat := t.hand.ToAct()
		if seat < 0 {
			break
		}
		a, leaving, wait := t.automatic(seat, now)
		if wait {
			return nil
		}
		evs, err := t.hand.Apply(a)
		if err != nil {
			return fmt.Errorf("table %s hand %d: automatic %s for seat %d: %w", t.id, t.handNo, a.Kind, seat, err)
		}
		if leaving {
			evs = awayRuled(evs, seat)
		}
		t.log = append(t.log, evs...)
		out.Events = append(out.Events, evs...)
	}
	if t.hand != nil && t.hand.Done() {
		t.finish(out, now)
	}
	t.dropStaleOOT()
	return nil
}

// automatic decides what the house does for the seat in turn (seat):
// act for a seat that is away (G-43) or table a hand at a digital
// showdown; wait is true when the player, or the dealer, decides, and
// then the action clock is set if the table runs one.
func (t *Table) automatic(seat int, now time.Time) (a engine.Action, leaving, wait bool) {
	showdown := t.hand.Phase() == engine.PhaseShowdown && t.cfg.Mode == engine.Digital
	leaving = t.seats[seat].Leaving || t.seats[seat].Away
	switch {
	case leaving && showdown && t.canShow():
		// A leave never gives a live hand away (TP-44: an all-in
		// player is dealt to the showdown): under the house rule for
		// a seat that is away (G-43) the house tables its hand,
		// which wins what it wins, then the seat leaves with it.
		a = engine.Action{Seat: seat, Kind: engine.Show}
	case leaving && t.hand.Phase() == engine.PhaseShowdown:
		// A live table's dealer tables the away seat's cards (G-43),
		// and a floor ruling pending on the hand comes first: a
		// timeout here would muck a live hand, so no clock runs.
		return engine.Action{}, leaving, true
	case leaving:
		// Away during the betting (G-43): the seat checks when it
		// may and otherwise its hand is folded (TP-56); an all-in
		// seat is never asked.
		a = engine.Action{Seat: seat, Kind: engine.Timeout, By: engine.RoleDealer}
	case showdown && !t.settings.ManualShowdown:
		a = engine.Action{Seat: seat, Kind: engine.Show}
		if !t.canShow() {
			a.Kind = engine.Timeout
		}
	default:
		if t.deadline.IsZero() && t.settings.ActionTimeout > 0 {
			t.deadline = now.Add(t.settings.ActionTimeout)
		}
		return engine.Action{}, leaving, true
	}
	return a, leaving, false
}

// AwayRule is the house rule the table applies for a seat whose player
// asked to leave during the hand (RULES.md G-43): it checks when it may,
// its hand is folded facing a bet, and a hand live at the showdown is
// tabled for it. The history cites it on what the house did for the seat.
const AwayRule = "G-43"

// awayRuled returns evs with what the house did for the away seat — its
// check, fold or bring-in (which the engine records as a timeout, TP-59,
// though no clock ran) and its tabled hand — citing AwayRule.
func awayRuled(evs []engine.Event, seat int) []engine.Event {
	evs = slices.Clone(evs)
	for i := range evs {
		if e := &evs[i]; e.Seat == seat && (e.Rule == "TP-59" || e.Kind == engine.EvShow) {
			e.Rule = AwayRule
		}
	}
	return evs
}

// canShow reports whether the seat in turn may table its hand now.
func (t *Table) canShow() bool {
	return slices.ContainsFunc(t.hand.LegalActions(), func(l engine.Legal) bool { return l.Kind == engine.Show })
}

// finish wraps up a finished hand: stacks from the result, debts from the
// plan, queued top-ups added (CS-05), leavers cashed out, busts reported.
func (t *Table) finish(out *Output, now time.Time) {
	res := t.hand.Results()
	bseats := make([]button.Seat, len(t.seats))
	for i, s := range t.seats {
		bseats[i] = t.buttonSeat(s)
	}
	// A misdeal (G-32) is dealt again: the button, the blinds owed and
	// the new players' status stay as they were before it.
	if !t.cfg.Game.IsStud() && !t.hand.Misdealt() {
		next := t.plan.Next(bseats)
		for i := range t.seats {
			if t.seats[i].Unpaid {
				continue
			}
			t.seats[i].Debt = next[i].Debt
			t.seats[i].New = next[i].New
			t.seats[i].PostNow = next[i].PostNow
			t.seats[i].Rebought = next[i].Rebought
		}
		t.previous = t.plan.Positions
	}
	ended := &HandEnded{HandNo: t.handNo, Result: res}
	t.last = lastHand(t.handNo, t.hand, res, now)
	for _, r := range res.Seats {
		s := &t.seats[r.Seat]
		s.Stack = r.Stack
		if s.Stack == 0 && s.Pending == 0 {
			ended.Busted = append(ended.Busted, r.Seat)
		}
	}
	for i := range t.seats {
		s := &t.seats[i]
		if s.Pending > 0 {
			if s.Stack == 0 {
				s.Rebought = true
			}
			s.Stack += s.Pending
			s.Pending = 0
		}
		if s.Occupied() {
			ended.Stacks = append(ended.Stacks, SeatStack{Seat: i, Player: s.Player, Stack: s.Stack})
		}
	}
	out.Ended = ended
	out.History = &History{TableID: t.id, HandNo: t.handNo, Config: t.cfg, Setup: t.setup, Events: slices.Clone(t.log),
		Hand: t.hand, Start: t.handStart, End: now}
	for i := range t.seats {
		t.seats[i].Away = false // sitting out from now on
		if t.seats[i].Leaving || (t.closing && t.seats[i].Occupied()) {
			t.vacate(i, out)
		}
	}
	plan := t.plan
	t.hand, t.plan, t.setup, t.log, t.oot, t.acted, t.proposal, t.fixed = nil, button.Plan{}, engine.Setup{}, nil, nil, nil, nil, nil
	t.deadline, t.clockCalled = time.Time{}, false
	if t.cfg.Tournament {
		_ = t.tournament()
		t.finishTournament(out, out.History, plan, now)
	}
}
