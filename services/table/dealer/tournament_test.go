package dealer

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/engine/button"
)

func tourConfig(mode engine.Mode) engine.Config {
	c := nlhe()
	c.Tournament, c.Mode = true, mode
	c.Stakes.ChipUnit = 1
	return c
}

// tourTable seats entrants "A", "B", ... in seats 0.. of a 9-seat
// tournament table with the stacks given.
func tourTable(t *testing.T, mode engine.Mode, stacks ...int64) *Table {
	t.Helper()
	tb := New("tt", tourConfig(mode), 9, Settings{})
	for i, st := range stacks {
		if _, err := tb.SeatEntrant(i, string(rune('A'+i)), st); err != nil {
			t.Fatalf("seat %d: %v", i, err)
		}
	}
	return tb
}

// foldAround plays the hand in progress to its end: each seat in turn
// checks when it may, otherwise folds. It returns the output of the action
// that ended it.
func playOut(t *testing.T, tb *Table, now time.Time) Output {
	t.Helper()
	for range 200 {
		if !tb.InHand() {
			t.Fatal("no hand in progress")
		}
		seat := tb.Hand().ToAct()
		kind := engine.Fold
		for _, l := range tb.Hand().LegalActions() {
			if l.Kind == engine.Check {
				kind = engine.Check
			}
		}
		out, err := tb.Apply(Act{Action: engine.Action{Seat: seat, Kind: kind}}, now)
		if err != nil {
			t.Fatalf("seat %d %s: %v", seat, kind, err)
		}
		if out.Ended != nil {
			return out
		}
	}
	t.Fatal("the hand did not end")
	return Output{}
}

// shove plays the hand in progress with every seat all in (or calling it).
func shove(t *testing.T, tb *Table, now time.Time) Output {
	t.Helper()
	for range 200 {
		seat := tb.Hand().ToAct()
		var a engine.Action
		for _, l := range tb.Hand().LegalActions() {
			switch l.Kind {
			case engine.Bet, engine.Raise:
				a = engine.Action{Seat: seat, Kind: l.Kind, Amount: l.Max}
			case engine.Call, engine.Check:
				if a.Kind != engine.Bet && a.Kind != engine.Raise {
					a = engine.Action{Seat: seat, Kind: l.Kind}
				}
			}
		}
		out, err := tb.Apply(Act{Action: a}, now)
		if err != nil {
			t.Fatalf("seat %d %s: %v", seat, a.Kind, err)
		}
		if out.Ended != nil {
			return out
		}
	}
	t.Fatal("the hand did not end")
	return Output{}
}

func level(no int, start time.Time, sb, bb int64) Level {
	return Level{No: no, Start: start, Stakes: engine.Stakes{SmallBlind: sb, BigBlind: bb, ChipUnit: 1}}
}

func blinds(evs []engine.Event) map[string]int64 {
	out := map[string]int64{}
	for _, e := range evs {
		if e.Kind == engine.EvPost {
			out[e.Post.String()] = max(out[e.Post.String()], e.Amount)
		}
	}
	return out
}

func TestLevels_HandPlaysTheLevelInForceAtItsStart_TR20(t *testing.T) {
	t.Parallel()
	tb := tourTable(t, engine.Digital, 1000, 1000, 1000)
	l2 := t0.Add(20 * time.Minute)
	if _, _, err := tb.SetLevels(1, []Level{level(1, t0, 25, 50), level(2, l2, 50, 100)}); err != nil {
		t.Fatal(err)
	}
	// A hand that starts a moment before level 2 plays level 1 to its end,
	// even though it ends in level 2.
	out := mustStart(t, tb, 1, l2.Add(-time.Second))
	if b := blinds(out.Events); b["big_blind"] != 50 {
		t.Fatalf("hand started in level 1 posted %v", b)
	}
	end := playOut(t, tb, l2.Add(30*time.Second))
	if r := end.Ended.Report; r.Level != 1 || r.Stakes.BigBlind != 50 || !r.Start.Equal(l2.Add(-time.Second)) {
		t.Fatalf("report: level %d, stakes %+v, start %s", r.Level, r.Stakes, r.Start)
	}
	// The case: a hand started 1.8 s into level 2 posts level 2.
	out = mustStart(t, tb, 2, l2.Add(1800*time.Millisecond))
	if b := blinds(out.Events); b["small_blind"] != 50 || b["big_blind"] != 100 {
		t.Fatalf("hand started 1.8 s into level 2 posted %v", b)
	}
	end = playOut(t, tb, l2.Add(time.Minute))
	r := end.Ended.Report
	if r.Level != 2 || r.Stakes.BigBlind != 100 {
		t.Fatalf("report: level %d, stakes %+v", r.Level, r.Stakes)
	}
	if !slices.ContainsFunc(r.Posts, func(p ForcedBet) bool { return p.Kind == "big_blind" && p.Amount == 100 }) {
		t.Fatalf("report posts %+v", r.Posts)
	}
}

func TestLevels_NoHandBeforeLevelOneOrInABreak_G07(t *testing.T) {
	t.Parallel()
	tb := tourTable(t, engine.Digital, 1000, 1000)
	brk, after := t0.Add(time.Hour), t0.Add(75*time.Minute)
	levels := []Level{level(1, t0, 25, 50), {No: 2, Start: brk, Break: true}, level(3, after, 50, 100)}
	if _, _, err := tb.SetLevels(1, levels); err != nil {
		t.Fatal(err)
	}
	if tb.Ready(t0.Add(-time.Second)) || tb.WakeAt(t0.Add(-time.Second)) != t0 {
		t.Fatalf("ready before level 1 starts, or wakes at %s", tb.WakeAt(t0.Add(-time.Second)))
	}
	// A hand started before the break plays on into it.
	mustStart(t, tb, 1, brk.Add(-time.Second))
	playOut(t, tb, brk.Add(time.Minute))
	if tb.Ready(brk.Add(time.Minute)) {
		t.Fatal("deals in the break")
	}
	if _, err := tb.StartHand(seeded(2), brk.Add(time.Minute)); err == nil {
		t.Fatal("a hand started in the break")
	}
	if w := tb.WakeAt(brk.Add(time.Minute)); !w.Equal(after) {
		t.Fatalf("wakes at %s, want the level after the break, %s", w, after)
	}
	st := tb.Status(brk.Add(time.Minute))
	if !st.OnBreak || st.Dealing || st.Level != 2 {
		t.Fatalf("status in the break %+v", st)
	}
	if !tb.Ready(after) {
		t.Fatal("not dealing after the break")
	}
}

// TestBreak_ToldWhenItStartsBetweenHands_G07: a break that starts while
// the table waits between hands is told to the console when the clock
// turns (ClockTurned), once; one that a hand played into is told at that
// hand's end, and not again. Only a hand's end told it: a live table held
// between hands showed no break at all.
func TestBreak_ToldWhenItStartsBetweenHands_G07(t *testing.T) {
	t.Parallel()
	breaks := func(out Output) int {
		n := 0
		for _, no := range out.Notices {
			if no.Kind == "break" && no.Rule == "G-07" {
				n++
			}
		}
		return n
	}
	tb := tourTable(t, engine.Live, 1000, 1000)
	brk, after, brk2 := t0.Add(time.Hour), t0.Add(75*time.Minute), t0.Add(2*time.Hour)
	levels := []Level{level(1, t0, 25, 50), {No: 2, Start: brk, Break: true}, level(3, after, 50, 100), {No: 4, Start: brk2, Break: true},
		level(5, brk2.Add(15*time.Minute), 100, 200)}
	if _, _, err := tb.SetLevels(1, levels); err != nil {
		t.Fatal(err)
	}
	// Level 1, in force and never dealt, is told (TR-20); no break yet.
	if out := tb.ClockTurned(brk.Add(-time.Second)); breaks(out) != 0 || len(out.Notices) != 1 || out.Notices[0].Kind != "level" {
		t.Fatalf("a break told before it starts: %+v", out)
	}
	if out := tb.ClockTurned(brk); out.Duplicate || breaks(out) != 1 {
		t.Fatalf("G-07: the break starting between hands is not told: %+v", out)
	}
	if out := tb.ClockTurned(brk.Add(time.Second)); !out.Duplicate || breaks(out) != 0 {
		t.Fatalf("G-07: the break told twice: %+v", out)
	}
	// The next break starts during a hand: told at its end, once.
	mustStart(t, tb, 1, brk2.Add(-time.Second))
	if out := tb.ClockTurned(brk2); !out.Duplicate {
		t.Fatalf("told during a hand: %+v", out)
	}
	if out := playOut(t, tb, brk2.Add(time.Second)); breaks(out) != 1 {
		t.Fatalf("G-07: the break a hand played into is not told at its end: %+v", out.Notices)
	}
	if out := tb.ClockTurned(brk2.Add(2 * time.Second)); !out.Duplicate {
		t.Fatalf("G-07: the break told twice: %+v", out)
	}
}

func TestLevels_RevisionsAndRetraction_TR20(t *testing.T) {
	t.Parallel()
	tb := tourTable(t, engine.Digital, 1000, 1000)
	l2 := t0.Add(20 * time.Minute)
	v2 := []Level{level(1, t0, 25, 50), level(2, l2, 50, 100)}
	if _, _, err := tb.SetLevels(2, v2); err != nil {
		t.Fatal(err)
	}
	// Paused before level 2: the tournament retracts it with revision 3.
	if _, _, err := tb.SetLevels(3, v2[:1]); err != nil {
		t.Fatal(err)
	}
	// A late repeat of revision 2 changes nothing.
	stale, out, err := tb.SetLevels(2, v2)
	if err != nil || !stale || out.Duplicate {
		t.Fatalf("old revision: stale %v, %+v, %v", stale, out, err)
	}
	if _, _, err := tb.SetLevels(3, v2); !errors.Is(err, ErrLevelsConflict) {
		t.Fatalf("revision 3 with other levels: %v", err)
	}
	if _, out, err := tb.SetLevels(3, v2[:1]); err != nil || !out.Duplicate {
		t.Fatalf("revision 3 repeated: %+v, %v", out, err)
	}
	mustStart(t, tb, 1, l2.Add(time.Minute))
	if e := playOut(t, tb, l2.Add(2*time.Minute)); e.Ended.Report.Level != 1 {
		t.Fatalf("retracted level 2 was played: level %d", e.Ended.Report.Level)
	}
	bad := []Level{level(2, l2, 50, 100), level(1, t0, 25, 50)}
	if _, _, err := tb.SetLevels(4, bad); fault.KindOf(err) != fault.Invalid {
		t.Fatalf("levels out of order: %v", err)
	}
}

func TestHolds_HandForHandDealsOneHandAtATime_G26(t *testing.T) {
	t.Parallel()
	tb := tourTable(t, engine.Digital, 1000, 1000, 1000)
	mustStart(t, tb, 1, t0)
	// Hand-for-hand starts during hand 1: it plays to its end, then holds.
	if _, err := tb.Hold(Hold{ID: "h4h", Reason: HoldHandForHand}); err != nil {
		t.Fatal(err)
	}
	if !tb.InHand() {
		t.Fatal("a hold stopped the hand in progress")
	}
	end := playOut(t, tb, t0)
	if end.Ended.Report.Dealing || tb.Ready(t0) {
		t.Fatal("the table deals on under hand-for-hand")
	}
	// The next round: exactly one more hand.
	if _, err := tb.Hold(Hold{ID: "h4h", Reason: HoldHandForHand, Through: tb.HandNo() + 1}); err != nil {
		t.Fatal(err)
	}
	if !tb.Ready(t0) {
		t.Fatal("the round's hand does not start")
	}
	mustStart(t, tb, 2, t0)
	if end := playOut(t, tb, t0); end.Ended.Report.Dealing || tb.Ready(t0) {
		t.Fatal("a second hand would start in one hand-for-hand round")
	}
	// Holds overlap: a floor hold outlives the end of hand-for-hand.
	if _, err := tb.Hold(Hold{ID: "floor/1", Reason: HoldFloor, Note: "dispute at seat 3"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Release("h4h"); err != nil {
		t.Fatal(err)
	}
	if tb.Ready(t0) {
		t.Fatal("deals while the floor holds")
	}
	if out, err := tb.Release("h4h"); err != nil || !out.Duplicate {
		t.Fatalf("releasing a hold twice: %+v %v", out, err)
	}
	if _, err := tb.Release("floor/1"); err != nil || !tb.Ready(t0) {
		t.Fatalf("released: %v, ready %v", err, tb.Ready(t0))
	}
}

func TestSetButton_FirstHandAndFinalTableRedraw_TR07(t *testing.T) {
	t.Parallel()
	tb := tourTable(t, engine.Digital, 1000, 1000, 1000, 1000)
	if _, err := tb.SetButton(2); err != nil {
		t.Fatal(err)
	}
	mustStart(t, tb, 1, t0)
	if b := tb.Hand().View(-1).Button; b != 2 {
		t.Fatalf("first hand's button on %d, drawn 2", b)
	}
	end := playOut(t, tb, t0)
	if p := end.Ended.Report.Positions; p.Button != 2 || p.SmallBlind != 3 || p.BigBlind != 0 {
		t.Fatalf("positions %+v", p)
	}
	// The final table is redrawn during a hand: placed when it ends.
	mustStart(t, tb, 2, t0)
	if _, err := tb.SetButton(0); err != nil {
		t.Fatal(err)
	}
	end = playOut(t, tb, t0)
	if n := end.Ended.Report.Next; n == nil || n.Button != 0 || n.BigBlind != 2 {
		t.Fatalf("next positions after the redraw %+v", n)
	}
	mustStart(t, tb, 3, t0)
	if b := tb.Hand().View(-1).Button; b != 0 {
		t.Fatalf("button after the redraw on %d, drawn 0", b)
	}
}

func TestPenalty_MissedHandsDealtDeadBlindsPosted_TR33(t *testing.T) {
	t.Parallel()
	tb := tourTable(t, engine.Digital, 1000, 1000, 1000)
	// 3 players × 1 round.
	if _, err := tb.SetAbsence("B", 3, false); err != nil {
		t.Fatal(err)
	}
	posted := int64(0)
	for hand := 1; hand <= 4; hand++ {
		out := mustStart(t, tb, uint64(hand), t0)
		killed := slices.ContainsFunc(tb.Hand().Events(), func(e engine.Event) bool {
			return e.Kind == engine.EvKill && e.Seat == 1 && e.Rule == "TP-57"
		})
		for _, e := range out.Events {
			if e.Kind == engine.EvPost && e.Seat == 1 {
				posted += e.Amount
			}
		}
		if killed != (hand <= 3) {
			t.Fatalf("hand %d: B's hand killed %v", hand, killed)
		}
		if left := tb.Seats()[1].MissedHands; left != max(3-hand, 0) {
			t.Fatalf("after hand %d starts, %d hands to miss", hand, left)
		}
		playOut(t, tb, t0)
	}
	if posted == 0 {
		t.Fatal("B posted no blind during the penalty")
	}
}

func TestLeft_BlindsPostedUntilTheChipsAreGone_TR35(t *testing.T) {
	t.Parallel()
	tb := tourTable(t, engine.Digital, 1000, 1000, 60)
	if _, _, err := tb.SetLevels(1, []Level{level(1, t0, 10, 20)}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.SetAbsence("C", 0, true); err != nil {
		t.Fatal(err)
	}
	for hand := 1; tb.Seats()[2].Stack > 0; hand++ {
		if hand > 40 {
			t.Fatal("C's chips never ran out")
		}
		mustStart(t, tb, uint64(hand), t0)
		if tb.dealtIn(2) && !slices.ContainsFunc(tb.Hand().Events(), func(e engine.Event) bool { return e.Kind == engine.EvKill && e.Seat == 2 }) {
			t.Fatalf("hand %d: C's hand was not dead", hand)
		}
		end := playOut(t, tb, t0)
		if tb.Seats()[2].Stack == 0 && !slices.Contains(end.Ended.Busted, 2) {
			t.Fatalf("C out of chips but not busted: %+v", end.Ended.Busted)
		}
	}
}

func TestMoveOut_BetweenHandsDuringAHandAndBroke_TR23(t *testing.T) {
	t.Parallel()
	tb := tourTable(t, engine.Digital, 1000, 1000, 1000, 1000)
	chips := tb.Chips()
	// Between hands: at once, with the stack.
	out, err := tb.MoveOut("D", "m1", "to T2, seat 5")
	if err != nil || len(out.Moves) != 1 || out.Moves[0].State != MoveInTransit || out.Moves[0].Chips != 1000 || out.Moves[0].From != 0 {
		t.Fatalf("move between hands: %+v %v", out.Moves, err)
	}
	if tb.SeatOf("D") >= 0 || tb.Chips() != chips-1000 {
		t.Fatalf("D still seated, or chips %d", tb.Chips())
	}
	// During a hand C plays: when it ends, with the chips C has then.
	mustStart(t, tb, 1, t0)
	if out, err := tb.MoveOut("C", "m2", "to T2, seat 5"); err != nil || len(out.Moves) != 0 || tb.Seats()[2].MoveOut != "m2" {
		t.Fatalf("move during the hand: %+v %v", out.Moves, err)
	}
	if _, err := tb.MoveOut("C", "m3", "to T2, seat 5"); !errors.Is(err, ErrMoveInProgress) {
		t.Fatalf("a second move for C: %v", err)
	}
	end := playOut(t, tb, t0)
	r := end.Ended.Report
	if len(r.Moves) != 1 || r.Moves[0].Move != "m2" || r.Moves[0].From != MovePending || r.Moves[0].State != MoveInTransit {
		t.Fatalf("moves at the hand's end %+v", r.Moves)
	}
	final := slices.IndexFunc(end.Ended.Result.Seats, func(s engine.SeatResult) bool { return s.Seat == 2 })
	if r.Moves[0].Chips != end.Ended.Result.Seats[final].Stack || tb.SeatOf("C") >= 0 {
		t.Fatalf("C moved with %d, ended the hand with %d", r.Moves[0].Chips, end.Ended.Result.Seats[final].Stack)
	}
	if slices.ContainsFunc(end.Ended.Stacks, func(s SeatStack) bool { return s.Player == "C" }) {
		t.Fatalf("the report's stacks still list C: %+v", end.Ended.Stacks)
	}
	if tb.Chips()+1000+r.Moves[0].Chips != chips {
		t.Fatalf("chips: %d at the table + %d + %d in transit, issued %d", tb.Chips(), 1000, r.Moves[0].Chips, chips)
	}

	// Broke in the hand being finished: not moved.
	tb = tourTable(t, engine.Digital, 1000, 30)
	mustStart(t, tb, 7, t0)
	if _, err := tb.MoveOut("B", "m4", "to T2, seat 5"); err != nil {
		t.Fatal(err)
	}
	for tb.Seats()[1].Stack > 0 && tb.InHand() {
		end = shove(t, tb, t0)
		if tb.Seats()[1].Stack > 0 {
			break
		}
	}
	if mv := end.Ended.Report.Moves; len(mv) == 1 && mv[0].State == MoveCancelled {
		if tb.SeatOf("B") != 1 || tb.Seats()[1].MoveOut != "" {
			t.Fatal("a cancelled move took B off the table")
		}
	} else if len(mv) != 1 || mv[0].State != MoveInTransit || mv[0].Chips == 0 {
		t.Fatalf("moves %+v", mv)
	}
}

func TestMoveIn_NewPlayerWaitsBetweenButtonAndBigBlind_G06(t *testing.T) {
	t.Parallel()
	tb := New("tt", tourConfig(engine.Digital), 9, Settings{})
	for _, seat := range []int{0, 2, 4, 6} {
		if _, err := tb.SeatEntrant(seat, string(rune('A'+seat)), 1000); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tb.SetButton(0); err != nil {
		t.Fatal(err)
	}
	mustStart(t, tb, 1, t0) // button 0, small blind 2, big blind 4
	playOut(t, tb, t0)      // next: button 2, small blind 4, big blind 6
	// Moved into seat 3, between the button and the small blind.
	out, err := tb.MoveIn(3, "F", Arrival{Move: "m1", Chips: 777, MissedHands: 2})
	if err != nil || len(out.Moves) != 1 || out.Moves[0].State != MoveDelivered || out.Moves[0].From != MoveInTransit {
		t.Fatalf("move in: %+v %v", out.Moves, err)
	}
	if s := tb.Seats()[3]; s.Stack != 777 || s.MissedHands != 2 || !s.New {
		t.Fatalf("seat %+v", s)
	}
	mustStart(t, tb, 2, t0)
	if p := tb.plan.Positions; p.Button != 2 || p.BigBlind != 6 {
		t.Fatalf("positions %+v", p)
	}
	if tb.dealtIn(3) {
		t.Fatal("a moved player was dealt in between the button and the big blind (G-06)")
	}
}

func TestMoveIn_LiveSeatHeldUntilTheDealerConfirms_TR23(t *testing.T) {
	t.Parallel()
	tb := tourTable(t, engine.Live, 1000, 1000, 1000, 1000)
	if _, err := tb.RemoveEntrant("C", RemoveDisqualified); err != nil {
		t.Fatal(err)
	}
	chips := tb.Chips()
	out, err := tb.MoveIn(2, "E", Arrival{Move: "m1", Chips: 500})
	if err != nil || out.Moves[0].State != MoveArriving {
		t.Fatalf("move in at a live table: %+v %v", out.Moves, err)
	}
	if tb.Chips() != chips {
		t.Fatalf("chips in transit counted at the table: %d, was %d", tb.Chips(), chips)
	}
	mustStart(t, tb, 1, t0)
	if tb.dealtIn(2) {
		t.Fatal("an arriving seat was dealt in")
	}
	if _, err := tb.AdjustStack("E", 100, nil, ChangeRebuy); !errors.Is(err, ErrMoveInProgress) {
		t.Fatalf("chips for an arriving player: %v", err)
	}
	if _, err := tb.ConfirmArrival(2, "m9"); !errors.Is(err, ErrNotArriving) {
		t.Fatalf("confirming another move: %v", err)
	}
	out, err = tb.ConfirmArrival(2, "m1")
	if err != nil || out.Moves[0].State != MoveDelivered || out.Moves[0].From != MoveArriving || tb.Seats()[2].Stack != 500 {
		t.Fatalf("confirm: %+v %v", out.Moves, err)
	}
	if tb.Chips() != chips+500 {
		t.Fatalf("chips %d after the arrival, want %d", tb.Chips(), chips+500)
	}
	if _, err := tb.ConfirmArrival(2, ""); !errors.Is(err, ErrNotArriving) {
		t.Fatalf("a second confirmation: %v", err)
	}
}

func TestAdjustStack_RebuyAddOnChipRace_TR14_TR17_TR22(t *testing.T) {
	t.Parallel()
	tb := tourTable(t, engine.Digital, 1000, 1000, 1000)
	mustStart(t, tb, 1, t0)
	// An add-on during a hand the entrant plays waits for its end.
	if _, err := tb.AdjustStack("A", 2000, nil, ChangeRebuy); err != nil || tb.Seats()[0].Pending != 2000 {
		t.Fatalf("add-on in hand: %v, pending %d", err, tb.Seats()[0].Pending)
	}
	if _, err := tb.AdjustStack("A", -10, nil, ChangeRebuy); !errors.Is(err, ErrSeatInHand) {
		t.Fatalf("taking chips in hand: %v", err)
	}
	exp := int64(1000)
	if _, err := tb.AdjustStack("B", 5, &exp, ChangeChipRace); !errors.Is(err, ErrSeatInHand) {
		t.Fatalf("chip race in hand: %v", err)
	}
	end := playOut(t, tb, t0)
	a := tb.Seats()[0]
	if a.Pending != 0 || !slices.ContainsFunc(end.Ended.Stacks, func(s SeatStack) bool { return s.Player == "A" && s.Stack == a.Stack }) {
		t.Fatalf("A after the hand %+v, report %+v", a, end.Ended.Stacks)
	}
	// The chip race between hands, from the stack it was computed on.
	have := tb.Seats()[1].Stack
	wrong := have + 1
	if _, err := tb.AdjustStack("B", 25, &wrong, ChangeChipRace); !errors.Is(err, ErrStackMismatch) {
		t.Fatalf("chip race on another stack: %v", err)
	}
	if _, err := tb.AdjustStack("B", 25, &have, ChangeChipRace); err != nil || tb.Seats()[1].Stack != have+25 {
		t.Fatalf("chip race: %v, stack %d", err, tb.Seats()[1].Stack)
	}
	if _, err := tb.AdjustStack("C", -tb.Seats()[2].Stack-1, nil, ChangeConfiscation); fault.KindOf(err) != fault.Invalid {
		t.Fatalf("taking more than the stack: %v", err)
	}
	if _, err := tb.AdjustStack("Z", 1, nil, ChangeRebuy); !errors.Is(err, ErrEntrantNotSeated) {
		t.Fatalf("unknown entrant: %v", err)
	}
}

func TestRemoveEntrant_BustedOrDisqualified_TR34(t *testing.T) {
	t.Parallel()
	tb := tourTable(t, engine.Digital, 1000, 1000, 1000)
	if _, err := tb.RemoveEntrant("A", RemoveBusted); !errors.Is(err, ErrEntrantHasChips) {
		t.Fatalf("removing an entrant with chips as busted: %v", err)
	}
	mustStart(t, tb, 1, t0)
	out, err := tb.RemoveEntrant("B", RemoveDisqualified)
	if err != nil || len(out.Removed) != 0 || tb.SeatOf("B") != 1 {
		t.Fatalf("disqualified in hand: %+v %v", out.Removed, err)
	}
	end := playOut(t, tb, t0)
	rm := end.Ended.Report.Removed
	if len(rm) != 1 || rm[0].Player != "B" || rm[0].Reason != RemoveDisqualified || tb.SeatOf("B") >= 0 {
		t.Fatalf("removed at the hand's end %+v", rm)
	}
	if tb.Chips()+rm[0].Chips != 3000 {
		t.Fatalf("chips %d + removed %d, issued 3000", tb.Chips(), rm[0].Chips)
	}

	// Expelled during a hand in which they go broke: removed, not among
	// the busted seats.
	for seed := uint64(10); ; seed++ {
		if seed == 40 {
			t.Fatal("no seeded hand broke B")
		}
		tb = tourTable(t, engine.Digital, 1000, 30)
		mustStart(t, tb, seed, t0)
		if _, err := tb.RemoveEntrant("B", RemoveExpelled); err != nil {
			t.Fatal(err)
		}
		end := shove(t, tb, t0)
		if i := slices.IndexFunc(end.Ended.Result.Seats, func(s engine.SeatResult) bool { return s.Seat == 1 }); end.Ended.Result.Seats[i].Stack > 0 {
			continue
		}
		if slices.Contains(end.Ended.Busted, 1) || len(end.Ended.Report.Removed) != 1 || end.Ended.Report.Removed[0].Chips != 0 {
			t.Fatalf("busted %v, removed %+v", end.Ended.Busted, end.Ended.Report.Removed)
		}
		break
	}
}

// TestNextPositions_AreTheNextHandsUnderTheDeadButton_TR21_TR23: whatever
// busts, moves and arrivals happen between hands, the next button and big
// blind a hand reports (the balancer moves the player due the big blind
// next) are where the next hand puts them.
func TestNextPositions_AreTheNextHandsUnderTheDeadButton_TR21_TR23(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	checked := 0
	for game := range 50 {
		tb := tourTable(t, engine.Digital, 300, 300, 300, 300, 300, 300, 300)
		next := 'H'
		var want *button.Positions
		for hand := 1; hand < 60; hand++ {
			if !tb.Ready(t0) {
				break
			}
			end := mustStart(t, tb, uint64(game*100+hand), t0)
			got := tb.plan.Positions
			if end.Ended != nil {
				got = end.Ended.Report.Positions // over at the deal (all in on the blinds)
			}
			if want != nil {
				checked++
			}
			if want != nil && (got.Button != want.Button || got.BigBlind != want.BigBlind) {
				t.Fatalf("game %d hand %d: button %d big blind %d, the last hand said %d and %d", game, hand, got.Button, got.BigBlind,
					want.Button, want.BigBlind)
			}
			switch {
			case end.Ended != nil:
			case rng.IntN(5) == 0:
				end = shove(t, tb, t0)
			default:
				end = playOut(t, tb, t0)
			}
			// Between hands: the busted go, someone moves out, someone in.
			for _, b := range end.Ended.Busted {
				if _, err := tb.RemoveEntrant(tb.Seats()[b].Player, RemoveBusted); err != nil {
					t.Fatal(err)
				}
			}
			changed := false
			if rng.IntN(4) == 0 {
				if s := rng.IntN(9); tb.Seats()[s].Occupied() {
					if _, err := tb.MoveOut(tb.Seats()[s].Player, "m", "to T2, seat 5"); err != nil {
						t.Fatal(err)
					}
					changed = true
				}
			}
			if rng.IntN(4) == 0 {
				if s := rng.IntN(9); !tb.Seats()[s].Occupied() {
					if _, err := tb.MoveIn(s, string(next), Arrival{Move: "m", Chips: 300}); err != nil {
						t.Fatal(err)
					}
					next++
					changed = true
				}
			}
			want = end.Ended.Report.Next
			if changed || len(end.Ended.Busted) > 0 {
				want = tb.Status(t0).Next
			}
		}
	}
	if checked < 400 {
		t.Fatalf("only %d hands checked", checked)
	}
}

func TestTournamentState_SurvivesMarshal(t *testing.T) {
	t.Parallel()
	tb := tourTable(t, engine.Live, 1000, 1000, 1000)
	if _, _, err := tb.SetLevels(4, []Level{level(1, t0, 25, 50)}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Hold(Hold{ID: "h", Reason: HoldBalancing, Through: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.SetAbsence("A", 5, false); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.MoveIn(5, "Q", Arrival{Move: "m", Chips: 70, Left: true}); err != nil {
		t.Fatal(err)
	}
	pub, priv, err := tb.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal(pub, priv)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(tb.Tour())
	b, _ := json.Marshal(back.Tour())
	if string(a) != string(b) || !slices.EqualFunc(tb.Seats(), back.Seats(), func(x, y Seat) bool {
		xa, _ := json.Marshal(x)
		ya, _ := json.Marshal(y)
		return string(xa) == string(ya)
	}) {
		t.Fatalf("tour %s / %s, seats %+v / %+v", a, b, tb.Seats(), back.Seats())
	}
	if c, err := PublicChips(pub); err != nil || c != 3000 {
		t.Fatalf("public chips %d %v", c, err)
	}
}

func TestControls_RefusedAtACashTable(t *testing.T) {
	t.Parallel()
	tb := newTable(t, Settings{}, 100, 100)
	for name, err := range map[string]error{
		"seat":   func() error { _, err := tb.SeatEntrant(3, "X", 10); return err }(),
		"hold":   func() error { _, err := tb.Hold(Hold{ID: "h"}); return err }(),
		"button": func() error { _, err := tb.SetButton(1); return err }(),
		"move":   func() error { _, err := tb.MoveOut("A", "m", "to T2, seat 5"); return err }(),
	} {
		if !errors.Is(err, ErrNotTournamentTable) {
			t.Errorf("%s at a cash table: %v", name, err)
		}
	}
}
