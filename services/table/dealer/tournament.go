package dealer

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/engine/button"
)

// A tournament table is controlled by its tournament (the controller) and
// run here (the actuator): the tournament seats, moves, tops up and removes
// its entrants, gives the table its level schedule and holds its dealing.
// Every control leaves the hand in progress alone — except a penalty's
// dead hand (TR-32) — and what cannot apply during a hand (a move, a
// removal, a drawn button) waits for its end, in the change that ends it.

// Level is one row of a tournament table's schedule: from Start on, the
// hands that start play its stakes, or none start while it is a break
// (TR-20, G-07).
type Level struct {
	No    int       `json:"no"`
	Start time.Time `json:"start"`
	Break bool      `json:"break,omitempty"`
	// Stakes are the level's blinds, ante (BigBlindAnte: the big blind's
	// ante for the table), bring-in, limit bets and chip unit.
	Stakes engine.Stakes `json:"stakes"`
}

// HoldReason says why dealing is held.
type HoldReason uint8

// Hold reasons.
const (
	HoldBreak HoldReason = iota + 1
	HoldHandForHand
	HoldBalancing
	HoldClockPaused
	HoldFloor
)

// Hold is a named reason not to deal: the table deals no hand numbered
// after Through while it stands (0: none at all).
type Hold struct {
	ID      string     `json:"id"`
	Reason  HoldReason `json:"reason"`
	Through int64      `json:"through,omitempty"`
	Note    string     `json:"note,omitempty"`
}

// Tour is what a tournament table holds of its tournament's controls.
type Tour struct {
	Revision int64   `json:"revision,omitempty"`
	Levels   []Level `json:"levels,omitempty"`
	Holds    []Hold  `json:"holds,omitempty"`
	// Level is the level of the hand in progress, or of the last hand.
	Level int `json:"level,omitempty"`
	// Button is the drawn button of the next hand, dealt as a first hand
	// (TR-07, G-28); NextButton one drawn during a hand, placed when it
	// ends.
	Button     *int `json:"button,omitempty"`
	NextButton *int `json:"next_button,omitempty"`
	// BreakShown is the row of the last break the console was told of
	// (G-07), so that a break is announced once.
	BreakShown int `json:"break_shown,omitempty"`
	// LevelShown is the last level the console was told of: when the
	// clock turned to it, or at the first hand of it (TR-20), so that a
	// level is announced once.
	LevelShown int `json:"level_shown,omitempty"`
}

// RemovalReason says why an entrant leaves the table.
type RemovalReason uint8

// Removal reasons.
const (
	RemoveBusted RemovalReason = iota + 1
	RemoveDisqualified
	RemoveExpelled
	RemoveFinished
)

// Arrival is a seat a live table holds for a moved player until the dealer
// confirms they sat down with their chips: the chips are in transit, not
// in the seat's stack, and the seat is not dealt in.
type Arrival struct {
	Move string `json:"move"`
	// From says where the player comes from, for the console.
	From        string `json:"from,omitempty"`
	Chips       int64  `json:"chips"`
	MissedHands int    `json:"missed_hands,omitempty"`
	Left        bool   `json:"left,omitempty"`
}

// MoveState is where a move stands after a step at this table.
type MoveState uint8

// Move states.
const (
	MovePending MoveState = iota + 1
	MoveInTransit
	MoveArriving
	MoveDelivered
	MoveCancelled
)

// MoveStep is a step of a tournament move taken at this table: the entrant
// left with Chips (in transit), stayed (cancelled: broke in the hand they
// were finishing), or sat down (arriving, delivered).
type MoveStep struct {
	Move   string `json:"move"`
	Seat   int    `json:"seat"`
	Player string `json:"player"`
	// From is the state the step leaves (0: a move ordered by this very
	// change); State the one it reaches.
	From        MoveState `json:"from,omitempty"`
	State       MoveState `json:"state"`
	Chips       int64     `json:"chips"`
	MissedHands int       `json:"missed_hands,omitempty"`
	Left        bool      `json:"left,omitempty"`
}

// Removal is an entrant taken off the table with the chips they had.
type Removal struct {
	Seat   int           `json:"seat"`
	Player string        `json:"player"`
	Reason RemovalReason `json:"reason"`
	Chips  int64         `json:"chips"`
}

// HandReport is what a tournament table reports of a hand beside the
// stacks: what the tournament decides from.
type HandReport struct {
	Start, End time.Time
	// Positions are the hand's button and blind positions; SmallBlindDead
	// says nobody posted the small blind. Stud tables have none (Stud).
	Positions      button.Positions
	SmallBlindDead bool
	Stud           bool
	Level          int
	Stakes         engine.Stakes
	// Posts are the blinds, antes and bring-in as posted (short stacks
	// post less, G-31), in order.
	Posts []ForcedBet
	// Next are where the next hand's button and big blind go; nil when
	// fewer than two entrants can play.
	Next    *button.Positions
	Moves   []MoveStep
	Removed []Removal
	// Dealing is false when the table holds before its next hand.
	Dealing bool
	Chips   int64
}

// ForcedBet is a blind, ante or bring-in a hand's seat posted; Kind is
// the engine's post kind ("small_blind", "ante", ...) or "bring_in".
type ForcedBet struct {
	Seat   int
	Kind   string
	Amount int64
}

// forcedBets reads what was posted from a hand's events.
func forcedBets(evs []engine.Event) []ForcedBet {
	var out []ForcedBet
	for _, e := range evs {
		switch e.Kind {
		case engine.EvPost:
			out = append(out, ForcedBet{Seat: e.Seat, Kind: e.Post.String(), Amount: e.Amount})
		case engine.EvBringIn:
			out = append(out, ForcedBet{Seat: e.Seat, Kind: "bring_in", Amount: e.Amount})
		}
	}
	return out
}

// Notice is one of a tournament table's controls as the dealer's console
// shows it (WatchTable): a level or a break starting, a hold, a move, a
// penalty, chips added. Kind names it; Seat is -1 for the table.
type Notice struct {
	Kind   string
	Seat   int
	Player string
	Amount int64
	Rule   string
	Detail string
	// At places the notice among the output's events: it comes after the
	// first At of them. A feed shows each control where it happened — a
	// hand's moves and break after its end, a new level before the posts
	// of the hand that plays it (TR-20) — not after everything else the
	// change carries.
	At int
}

func (o *Output) notice(n Notice) {
	n.At = len(o.Events)
	o.Notices = append(o.Notices, n)
}

// StackChange says why a stack changes, with the rule that allows it.
type StackChange uint8

// Stack changes.
const (
	ChangeRebuy StackChange = iota + 1
	ChangeAddOn
	ChangeChipRace
	ChangeConfiscation
	ChangeCorrection
)

var stackChanges = map[StackChange][2]string{ChangeRebuy: {"rebuy", "TR-14"}, ChangeAddOn: {"add-on", "TR-17"},
	ChangeChipRace: {"chip race", "TR-22"}, ChangeConfiscation: {"confiscation", "TR-11"}, ChangeCorrection: {"floor correction", "TR-02"}}

var holdNames = map[HoldReason]string{HoldBreak: "break", HoldHandForHand: "hand-for-hand", HoldBalancing: "balancing",
	HoldClockPaused: "clock paused", HoldFloor: "floor"}

var removalNames = map[RemovalReason]string{RemoveBusted: "busted", RemoveDisqualified: "disqualified", RemoveExpelled: "expelled",
	RemoveFinished: "finished"}

// Errors of the tournament controls.
var (
	ErrNotTournamentTable = fault.New(fault.Precondition, "NOT_A_TOURNAMENT_TABLE", "only a tournament table takes its tournament's controls")
	ErrEntrantNotSeated   = fault.New(fault.Precondition, "NOT_SEATED", "the entrant does not sit at this table")
	ErrEntrantHasChips    = fault.New(fault.Precondition, "ENTRANT_HAS_CHIPS", "the entrant still has chips: only a busted entrant is removed as busted")
	ErrStackMismatch      = fault.New(fault.Precondition, "STACK_MISMATCH", "the stack is not the one the change was computed from")
	ErrSeatInHand         = fault.New(fault.Precondition, "HAND_IN_PROGRESS", "the entrant plays the hand in progress: the change waits until it ends")
	ErrMoveInProgress     = fault.Rule(fault.Precondition, "TR-23", "MOVE_IN_PROGRESS", "the entrant is already part of another move")
	ErrNotArriving        = fault.Rule(fault.Precondition, "TR-23", "NOT_ARRIVING", "no moved player is awaited in that seat")
	ErrLevelsConflict     = fault.New(fault.Conflict, "LEVELS_CONFLICT", "that schedule revision was given with other levels")
)

func (t *Table) tournament() error {
	if !t.cfg.Tournament {
		return ErrNotTournamentTable
	}
	if t.tour == nil {
		t.tour = &Tour{}
	}
	return nil
}

// Tour returns a copy of the tournament controls a tournament table holds
// (nil for a cash table).
func (t *Table) Tour() *Tour {
	if t.tour == nil {
		if !t.cfg.Tournament {
			return nil
		}
		return &Tour{}
	}
	c := *t.tour
	c.Levels, c.Holds = slices.Clone(t.tour.Levels), slices.Clone(t.tour.Holds)
	return &c
}

// entrant returns the seat of player, or ErrEntrantNotSeated.
func (t *Table) entrant(player string) (int, error) {
	if err := t.tournament(); err != nil {
		return -1, err
	}
	s := t.SeatOf(player)
	if s < 0 {
		return -1, ErrEntrantNotSeated.Withf("%s does not sit at this table", player)
	}
	return s, nil
}

// playing reports whether seat is dealt into a hand still being played.
func (t *Table) playing(seat int) bool { return t.dealtIn(seat) && !t.hand.Done() }

// SeatEntrant seats an entrant with stack tournament chips (TR-06, TR-08).
// A seat taken after the first hand is a new player's: they wait while
// between the button and the big blind (G-06); the first hand, and the
// first after a drawn button, deal everyone in.
func (t *Table) SeatEntrant(seat int, player string, stack int64) (Output, error) {
	if err := t.tournament(); err != nil {
		return Output{}, err
	}
	if err := t.seatable(seat, player); err != nil {
		return Output{}, err
	}
	if stack <= 0 {
		return Output{}, ErrBadAmount
	}
	t.seats[seat] = Seat{Player: player, Stack: stack, New: true}
	out := t.changed()
	out.notice(Notice{Kind: "seated", Seat: seat, Player: player, Amount: stack, Rule: "TR-06"})
	return out, nil
}

func (t *Table) seatable(seat int, player string) error {
	if err := t.CheckSit(seat, player); err != nil {
		return err
	}
	if t.closing {
		return fault.New(fault.Precondition, "TABLE_CLOSED", "the table is closed")
	}
	return nil
}

// SetButton places the drawn button (TR-07, G-28): the next hand is dealt
// as a first hand, everyone with chips in, the button at seat (or the next
// player who can play). During a hand it is placed when the hand ends.
func (t *Table) SetButton(seat int) (Output, error) {
	if err := t.tournament(); err != nil {
		return Output{}, err
	}
	if err := t.checkSeat(seat); err != nil {
		return Output{}, err
	}
	out := t.changed()
	if t.hand != nil {
		t.tour.NextButton = &seat
		out.notice(Notice{Kind: "button", Seat: seat, Rule: "TR-07", Detail: "drawn: placed when this hand ends"})
	} else {
		t.placeButton(seat)
		out.notice(Notice{Kind: "button", Seat: seat, Rule: "TR-07", Detail: "drawn"})
	}
	return out, nil
}

func (t *Table) placeButton(seat int) {
	t.tour.Button, t.tour.NextButton = &seat, nil
	t.started = false
	t.previous = button.FirstHand(seat)
}

// SetLevels replaces the schedule with levels under revision rev. A lower
// revision than the table's changes nothing (stale); the same revision must
// repeat the same levels (LEVELS_CONFLICT). Levels must be in strictly
// increasing start and number order; their stakes are the caller's to
// check against the game.
func (t *Table) SetLevels(rev int64, levels []Level) (stale bool, out Output, err error) {
	if err := t.tournament(); err != nil {
		return false, Output{}, err
	}
	for i := 1; i < len(levels); i++ {
		if !levels[i].Start.After(levels[i-1].Start) || levels[i].No <= levels[i-1].No {
			return false, Output{}, fault.Invalidf("levels", "levels[%d] does not follow levels[%d] in start time and number", i, i-1)
		}
	}
	switch {
	case rev < t.tour.Revision:
		return true, Output{Seq: t.seq}, nil
	case rev == t.tour.Revision:
		if !slices.EqualFunc(levels, t.tour.Levels, Level.equal) {
			return false, Output{}, ErrLevelsConflict.Withf("revision %d was given with other levels", rev)
		}
		return false, Output{Seq: t.seq, Duplicate: true}, nil
	}
	t.tour.Revision, t.tour.Levels = rev, slices.Clone(levels)
	return false, t.changed(), nil
}

func (l Level) equal(m Level) bool {
	return l.No == m.No && l.Start.Equal(m.Start) && l.Break == m.Break && l.Stakes == m.Stakes
}

// levelAt returns the row of the schedule in force at now, and false when
// the table has no schedule or none has started yet.
func (t *Table) levelAt(now time.Time) (Level, bool) {
	if t.tour == nil {
		return Level{}, false
	}
	var in Level
	ok := false
	for _, l := range t.tour.Levels {
		if l.Start.After(now) {
			break
		}
		in, ok = l, true
	}
	return in, ok
}

// WakeAt returns when the next row of the schedule starts after now (the
// table may deal again then), or the zero time.
func (t *Table) WakeAt(now time.Time) time.Time {
	if t.tour == nil {
		return time.Time{}
	}
	for _, l := range t.tour.Levels {
		if l.Start.After(now) {
			return l.Start
		}
	}
	return time.Time{}
}

// heldAt reports why a tournament table deals no new hand at now: a hold
// that does not let the next hand through, no level started yet, or a
// break in force; "" when none does.
func (t *Table) heldAt(now time.Time) string {
	if t.tour == nil {
		return ""
	}
	next := t.handNo + 1
	for _, h := range t.tour.Holds {
		if next > h.Through {
			return "hold " + h.ID
		}
	}
	if len(t.tour.Levels) == 0 {
		return ""
	}
	l, ok := t.levelAt(now)
	switch {
	case !ok:
		return "level 1 has not started"
	case l.Break:
		return "break"
	}
	return ""
}

// Hold sets (or replaces, by ID) a hold on dealing: the hand in progress
// plays to its end and no hand numbered after h.Through starts while the
// hold stands.
func (t *Table) Hold(h Hold) (Output, error) {
	if err := t.tournament(); err != nil {
		return Output{}, err
	}
	if i := slices.IndexFunc(t.tour.Holds, func(x Hold) bool { return x.ID == h.ID }); i >= 0 {
		if t.tour.Holds[i] == h {
			return Output{Seq: t.seq, Duplicate: true}, nil
		}
		t.tour.Holds[i] = h
	} else {
		t.tour.Holds = append(t.tour.Holds, h)
	}
	out := t.changed()
	detail := holdNames[h.Reason]
	if h.Note != "" {
		detail += ": " + h.Note
	}
	if h.Through > t.handNo {
		detail += fmt.Sprintf(" (after hand %d)", h.Through)
	}
	out.notice(Notice{Kind: "hold", Seat: -1, Amount: h.Through, Rule: holdRules[h.Reason], Detail: detail})
	return out, nil
}

var holdRules = map[HoldReason]string{HoldBreak: "G-07", HoldHandForHand: "G-26", HoldBalancing: "G-25", HoldFloor: "TR-02"}

// Release lifts the hold id; releasing one that does not stand changes
// nothing.
func (t *Table) Release(id string) (Output, error) {
	if err := t.tournament(); err != nil {
		return Output{}, err
	}
	i := slices.IndexFunc(t.tour.Holds, func(x Hold) bool { return x.ID == id })
	if i < 0 {
		return Output{Seq: t.seq, Duplicate: true}, nil
	}
	h := t.tour.Holds[i]
	t.tour.Holds = slices.Delete(t.tour.Holds, i, i+1)
	out := t.changed()
	out.notice(Notice{Kind: "release", Seat: -1, Rule: holdRules[h.Reason], Detail: holdNames[h.Reason]})
	return out, nil
}

// AdjustStack adds amount chips to the entrant's stack (a negative amount
// takes them off). Chips added to an entrant dealt into the hand in
// progress wait for its end (CS-05); taking chips, or a change that names
// the stack it expects, needs the entrant out of the hand.
func (t *Table) AdjustStack(player string, amount int64, expected *int64, why StackChange) (Output, error) {
	seat, err := t.entrant(player)
	if err != nil {
		return Output{}, err
	}
	s := &t.seats[seat]
	if s.Arriving != nil {
		return Output{}, ErrMoveInProgress.Withf("%s has not sat down here yet", player)
	}
	if t.playing(seat) {
		if amount < 0 || expected != nil {
			return Output{}, ErrSeatInHand
		}
		s.Pending += amount
		out := t.changed()
		out.notice(Notice{Kind: "stack", Seat: seat, Player: player, Amount: amount, Rule: stackChanges[why][1],
			Detail: stackChanges[why][0] + ": plays from the next hand"})
		return out, nil
	}
	have := s.Stack + s.Pending
	if expected != nil && *expected != have {
		return Output{}, ErrStackMismatch.Withf("the stack is %d, not %d", have, *expected).With("stack", strconv.FormatInt(have, 10))
	}
	if have+amount < 0 {
		return Output{}, fault.Invalidf("amount", "takes %d chips from a stack of %d", -amount, have)
	}
	s.Stack, s.Pending = have+amount, 0
	out := t.changed()
	out.notice(Notice{Kind: "stack", Seat: seat, Player: player, Amount: amount, Rule: stackChanges[why][1], Detail: stackChanges[why][0]})
	return out, nil
}

// SetAbsence makes the entrant absent for missed hands, counted down by
// each hand that starts at the table from the next one (TR-33), or for
// good when left (TR-35): dealt in, blinds and antes posted, hands dead
// (TP-57). Zero and false bring them back.
func (t *Table) SetAbsence(player string, missed int, left bool) (Output, error) {
	seat, err := t.entrant(player)
	if err != nil {
		return Output{}, err
	}
	s := &t.seats[seat]
	if a := s.Arriving; a != nil {
		a.MissedHands, a.Left = missed, left
	} else {
		s.MissedHands, s.Left = missed, left
	}
	out := t.changed()
	switch {
	case left:
		out.notice(Notice{Kind: "left", Seat: seat, Player: player, Rule: "TR-35", Detail: "left the tournament: blinds posted, hands dead"})
	case missed > 0:
		out.notice(Notice{Kind: "penalty", Seat: seat, Player: player, Amount: int64(missed), Rule: "TR-33",
			Detail: fmt.Sprintf("misses %d hands from the next", missed)})
	default:
		out.notice(Notice{Kind: "present", Seat: seat, Player: player, Detail: "back in play"})
	}
	return out, nil
}

// Absent reports whether the seat's hands are dealt dead: sitting out, a
// missed-hand penalty running (TR-33), or left the tournament (TR-35).
func (s Seat) Absent() bool { return s.SittingOut || s.MissedHands > 0 || s.Left }

// penaltyInForce refuses an entrant's own return to play while a
// missed-hand penalty runs (TR-33) or after they left the tournament
// (TR-35).
func (t *Table) penaltyInForce(seat int) error {
	switch s := t.seats[seat]; {
	case !t.cfg.Tournament:
		return nil
	case s.MissedHands > 0:
		return fault.Rule(fault.Precondition, "TR-33", "PENALTY_IN_FORCE", "a missed-hand penalty runs").
			With("missed_hands", strconv.Itoa(s.MissedHands))
	case s.Left:
		return fault.Rule(fault.Precondition, "TR-35", "PENALTY_IN_FORCE", "the entrant left the tournament")
	}
	return nil
}

// KillEntrantHand declares the entrant's hand dead in hand handNo, the
// one in progress (TR-32 (c)).
func (t *Table) KillEntrantHand(player string, handNo int64, now time.Time) (Output, error) {
	seat, err := t.entrant(player)
	if err != nil {
		return Output{}, err
	}
	if t.hand == nil || t.handNo != handNo {
		return Output{}, ErrNoHand.Withf("hand %d is not in progress", handNo)
	}
	return t.Apply(Act{Action: engine.Action{Seat: seat, Kind: engine.Kill, Kill: engine.KillPenalty, By: engine.RoleFloor}}, now)
}

// RemoveEntrant takes the entrant off the table: busted (no chips left:
// ENTRANT_HAS_CHIPS otherwise), or disqualified, expelled or finished with
// their chips taken out of play (TR-34). An entrant dealt into the hand in
// progress leaves when it ends (Output.Removed then, in the change that
// ends it).
func (t *Table) RemoveEntrant(player string, why RemovalReason) (Output, error) {
	seat, err := t.entrant(player)
	if err != nil {
		return Output{}, err
	}
	s := &t.seats[seat]
	if s.Arriving != nil || s.MoveOut != "" {
		return Output{}, ErrMoveInProgress.Withf("%s is being moved", player)
	}
	if why == RemoveBusted && (s.Stack > 0 || s.Pending > 0) {
		return Output{}, ErrEntrantHasChips.Withf("%s has %d chips", player, s.Stack+s.Pending)
	}
	if t.playing(seat) {
		s.Remove = why
		out := t.changed()
		out.notice(Notice{Kind: "removing", Seat: seat, Player: player, Rule: removalRule(why), Detail: removalNames[why] + ": leaves when this hand ends"})
		return out, nil
	}
	out := t.changed()
	t.remove(seat, why, &out)
	return out, nil
}

func removalRule(why RemovalReason) string {
	if why == RemoveDisqualified || why == RemoveExpelled {
		return "TR-34"
	}
	return ""
}

func (t *Table) remove(seat int, why RemovalReason, out *Output) {
	s := t.seats[seat]
	out.Removed = append(out.Removed, Removal{Seat: seat, Player: s.Player, Reason: why, Chips: s.Stack + s.Pending})
	out.notice(Notice{Kind: "removed", Seat: seat, Player: s.Player, Amount: s.Stack + s.Pending, Rule: removalRule(why), Detail: removalNames[why]})
	t.seats[seat] = Seat{}
}

// MoveOut is a move's first step (TR-23): the entrant leaves with their
// stack, now between hands or when the hand in progress they play ends
// (Output.Moves says which), and the chips go in transit under move. An
// entrant with no chips left is not moved (MoveCancelled).
func (t *Table) MoveOut(player, move, to string) (Output, error) {
	seat, err := t.entrant(player)
	if err != nil {
		return Output{}, err
	}
	s := &t.seats[seat]
	if s.Arriving != nil || (s.MoveOut != "" && s.MoveOut != move) || s.Remove != 0 {
		return Output{}, ErrMoveInProgress.Withf("%s is already being moved or removed", player)
	}
	if t.playing(seat) {
		s.MoveOut, s.MoveTo = move, to
		out := t.changed()
		out.notice(Notice{Kind: "move_ordered", Seat: seat, Player: player, Rule: "TR-23", Detail: to + ": leaves when this hand ends"})
		return out, nil
	}
	out := t.changed()
	t.seats[seat].MoveTo = to
	t.moveOut(seat, move, 0, &out)
	return out, nil
}

// moveOut takes the entrant in seat away for move, or cancels the move of
// an entrant with no chips; from is the move's state before (pending, or
// 0 for a move ordered now).
func (t *Table) moveOut(seat int, move string, from MoveState, out *Output) {
	s := t.seats[seat]
	step := MoveStep{Move: move, Seat: seat, Player: s.Player, From: from, State: MoveInTransit, Chips: s.Stack + s.Pending,
		MissedHands: s.MissedHands, Left: s.Left}
	if step.Chips == 0 {
		step.State, step.MissedHands, step.Left = MoveCancelled, 0, false
		t.seats[seat].MoveOut, t.seats[seat].MoveTo = "", ""
		out.notice(Notice{Kind: "move_cancelled", Seat: seat, Player: s.Player, Rule: "TR-23", Detail: "no chips left: not moved"})
	} else {
		t.seats[seat] = Seat{}
		out.notice(Notice{Kind: "move_out", Seat: seat, Player: s.Player, Amount: step.Chips, Rule: "TR-23", Detail: s.MoveTo})
	}
	out.Moves = append(out.Moves, step)
}

// MoveIn is a move's second step: the entrant sits in seat with exactly
// the chips in transit and the absence that travels with them (TR-33,
// TR-35). At a live table the seat is held for them (MoveArriving) until
// the dealer confirms they sat down with their chips (ConfirmArrival).
// A moved entrant is a new player: they wait while between the button and
// the big blind (G-06).
func (t *Table) MoveIn(seat int, player string, a Arrival) (Output, error) {
	if err := t.tournament(); err != nil {
		return Output{}, err
	}
	if err := t.seatable(seat, player); err != nil {
		return Output{}, err
	}
	if a.Chips <= 0 {
		return Output{}, ErrBadAmount
	}
	out := t.changed()
	step := MoveStep{Move: a.Move, Seat: seat, Player: player, From: MoveInTransit, State: MoveDelivered, Chips: a.Chips,
		MissedHands: a.MissedHands, Left: a.Left}
	if t.cfg.Mode == engine.Live {
		t.seats[seat] = Seat{Player: player, New: true, Arriving: &a}
		step.State = MoveArriving
		out.notice(Notice{Kind: "arriving", Seat: seat, Player: player, Amount: a.Chips, Rule: "TR-23",
			Detail: a.From + ": confirm when the player sits down with the chips"})
	} else {
		t.seats[seat] = Seat{Player: player, Stack: a.Chips, New: true, MissedHands: a.MissedHands, Left: a.Left}
		out.notice(Notice{Kind: "move_in", Seat: seat, Player: player, Amount: a.Chips, Rule: "TR-23", Detail: a.From})
	}
	out.Moves = append(out.Moves, step)
	return out, nil
}

// ConfirmArrival is a live dealer's confirmation that the player the seat
// is held for sat down with their chips: they are dealt in from the next
// hand. move, when not empty, must be the move the seat is held for.
func (t *Table) ConfirmArrival(seat int, move string) (Output, error) {
	if err := t.tournament(); err != nil {
		return Output{}, err
	}
	if err := t.checkSeat(seat); err != nil {
		return Output{}, err
	}
	s := &t.seats[seat]
	a := s.Arriving
	if a == nil || (move != "" && a.Move != move) {
		return Output{}, ErrNotArriving.Withf("seat %d awaits no move %s", seat, move)
	}
	*s = Seat{Player: s.Player, Stack: a.Chips, New: true, MissedHands: a.MissedHands, Left: a.Left}
	out := t.changed()
	out.notice(Notice{Kind: "arrived", Seat: seat, Player: s.Player, Amount: a.Chips, Rule: "TR-23", Detail: a.From})
	out.Moves = append(out.Moves, MoveStep{Move: a.Move, Seat: seat, Player: s.Player, From: MoveArriving, State: MoveDelivered,
		Chips: a.Chips, MissedHands: a.MissedHands, Left: a.Left})
	return out, nil
}

// Chips returns every chip at the table: stacks and chips pending. During
// a hand the seats' stacks are those it started with, so the pot is
// counted in them. Chips in transit to a held seat are not here. Top-ups
// the wallet has not confirmed are (Seat.Unconfirmed), as the buy-ins of
// unpaid seats are: the wallet's audit takes the chips of uncommitted
// holds off the count.
func (t *Table) Chips() int64 { return chipsOf(t.seats) }

func chipsOf(seats []Seat) int64 {
	var n int64
	for _, s := range seats {
		n += s.Stack + s.Pending + s.Unconfirmed
	}
	return n
}

// PublicChips reads every chip at a table from its public state (Marshal's
// first result), for a count read from storage.
func PublicChips(public []byte) (int64, error) {
	seats, err := PublicSeats(public)
	if err != nil {
		return 0, err
	}
	return chipsOf(seats), nil
}

// PublicHandNo reads the number of the hand in progress, or of the last
// one, from a table's public state.
func PublicHandNo(public []byte) (int64, error) {
	var s snapshot
	if err := json.Unmarshal(public, &s); err != nil {
		return 0, fmt.Errorf("unmarshal table hand number: %w", err)
	}
	return s.HandNo, nil
}

// Status is a tournament table as its tournament sees it.
type Status struct {
	// TournamentID is the table's tournament (the service fills it in:
	// the table's definition holds it).
	TournamentID string
	HandNo       int64
	InHand       bool
	Dealing      bool
	Tour         Tour
	// Level is the row of the schedule in force now (0: none); OnBreak
	// says it is a break.
	Level   int
	OnBreak bool
	// Next are where the next hand's button and big blind go (nil: fewer
	// than two can play); during a hand, as if nobody went broke in it.
	Next   *button.Positions
	Chips  int64
	Closed bool
}

// Status returns the table as its tournament sees it at now.
func (t *Table) Status(now time.Time) Status {
	st := Status{HandNo: t.handNo, InHand: t.hand != nil, Chips: t.Chips(), Closed: t.Closed(), Next: t.nextPositions()}
	if tour := t.Tour(); tour != nil {
		st.Tour = *tour
	}
	st.Dealing = !t.closing && t.heldAt(now) == "" && st.Next != nil
	if l, ok := t.levelAt(now); ok {
		st.Level, st.OnBreak = l.No, l.Break
	}
	return st
}

// nextPositions plans the next hand as the table stands (during a hand,
// from its positions, the seats' stacks being those it started with) and
// returns where its button and big blind go; nil for stud or when fewer
// than two can play.
func (t *Table) nextPositions() *button.Positions {
	if t.cfg.Game.IsStud() {
		return nil
	}
	bt := t.buttonTable()
	if t.hand != nil {
		bt.Previous = t.plan.Positions
	}
	plan, err := button.PlanHand(bt)
	if err != nil {
		return nil
	}
	p := plan.Positions
	return &p
}

// startLevel picks the level a tournament hand starting at now plays
// (TR-20) and counts a hand off every running penalty (TR-33); it refuses
// when the table is held. The caller plans the hand after it.
func (t *Table) startLevel(now time.Time) ([]Notice, error) {
	if t.tour == nil {
		return nil, nil
	}
	if why := t.heldAt(now); why != "" {
		return nil, fmt.Errorf("table %s holds (%s): no hand starts", t.id, why)
	}
	l, ok := t.levelAt(now)
	if !ok {
		return nil, nil
	}
	unit := t.cfg.Stakes.ChipUnit
	t.cfg.Stakes = l.Stakes
	if t.cfg.Stakes.ChipUnit == 0 {
		t.cfg.Stakes.ChipUnit = unit
	}
	if t.tour.Level == l.No {
		return nil, nil
	}
	t.tour.Level = l.No
	if t.tour.LevelShown == l.No {
		return nil, nil // told when the clock turned
	}
	t.tour.LevelShown = l.No
	return []Notice{levelNotice(l, "")}, nil
}

// levelNotice tells the console of a level (TR-20), with a note.
func levelNotice(l Level, note string) Notice {
	return Notice{Kind: "level", Seat: -1, Amount: l.Stakes.BigBlind, Rule: "TR-20", Detail: levelText(l) + note}
}

// levelText says a level's stakes: "level 4: 100/200, big blind ante 200".
func levelText(l Level) string {
	k := l.Stakes
	txt := fmt.Sprintf("level %d: %d/%d", l.No, k.SmallBlind, k.BigBlind)
	if k.BringIn > 0 {
		txt = fmt.Sprintf("level %d: bring-in %d, bets %d/%d", l.No, k.BringIn, k.SmallBet, k.BigBet)
	}
	switch {
	case k.BigBlindAnte > 0:
		txt += fmt.Sprintf(", big blind ante %d", k.BigBlindAnte)
	case k.Ante > 0:
		txt += fmt.Sprintf(", ante %d", k.Ante)
	}
	return txt
}

// countPenalties counts the hand that started off every penalty running
// at the table (TR-33: each hand that starts there counts, whether or not
// the entrant is dealt in).
func (t *Table) countPenalties(out *Output) {
	for i := range t.seats {
		if s := &t.seats[i]; s.Occupied() && s.MissedHands > 0 {
			s.MissedHands--
			if s.MissedHands == 0 {
				out.notice(Notice{Kind: "penalty_served", Seat: i, Player: s.Player, Rule: "TR-33", Detail: "plays again from the next hand"})
			}
		}
	}
}

// finishTournament applies at a hand's end what waited for it: moves,
// removals, the drawn button; and writes the hand's report. It runs once
// the hand is cleared.
func (t *Table) finishTournament(out *Output, h *History, plan button.Plan, now time.Time) {
	for i := range t.seats {
		s := t.seats[i]
		switch {
		case s.MoveOut != "":
			t.moveOut(i, s.MoveOut, MovePending, out)
		case s.Remove != 0:
			t.remove(i, s.Remove, out)
		}
	}
	if nb := t.tour.NextButton; nb != nil {
		t.placeButton(*nb)
		out.notice(Notice{Kind: "button", Seat: *nb, Rule: "TR-07", Detail: "drawn"})
	}
	e := out.Ended
	// The report speaks of the seats as they are after the hand's end: an
	// entrant removed there is in Removed, not among the busted seats.
	e.Busted = slices.DeleteFunc(e.Busted, func(seat int) bool { return !t.seats[seat].Occupied() })
	e.Stacks = e.Stacks[:0]
	for i, s := range t.seats {
		if s.Occupied() {
			e.Stacks = append(e.Stacks, SeatStack{Seat: i, Player: s.Player, Stack: s.Stack, MissedHands: s.MissedHands,
				Left: s.Left, Arriving: s.Arriving != nil})
		}
	}
	r := &HandReport{Start: h.Start, End: now, Positions: plan.Positions, SmallBlindDead: plan.SmallBlindDead,
		Stud: t.cfg.Game.IsStud(), Level: t.tour.Level, Stakes: h.Config.Stakes, Posts: forcedBets(h.Events),
		Next: t.nextPositions(), Moves: slices.Clone(out.Moves), Removed: slices.Clone(out.Removed), Chips: t.Chips()}
	r.Dealing = !t.closing && t.heldAt(now) == "" && r.Next != nil
	if r.Stud {
		r.Dealing = !t.closing && t.heldAt(now) == "" && t.studPlayable() >= 2
	}
	t.showBreak(now, out)
	e.Report = r
}

// showBreak tells the console of the break in force at now, once (G-07).
func (t *Table) showBreak(now time.Time, out *Output) {
	l, ok := t.levelAt(now)
	if !ok || !l.Break || t.tour.BreakShown == l.No {
		return
	}
	t.tour.BreakShown = l.No
	detail := "break"
	if w := t.WakeAt(now); !w.IsZero() {
		detail = "break until " + w.UTC().Format(time.RFC3339)
	}
	out.notice(Notice{Kind: "break", Seat: -1, Rule: "G-07", Detail: detail})
}

// ClockTurned tells the console what the clock turned to, which no hand
// has said yet: a playing level when it starts, also during a hand (its
// stakes apply from the next hand, TR-20), and a break that started while
// the table was between hands (G-07; one that starts during a hand is
// told when the hand ends). Nothing changes (Duplicate) when there is
// nothing new to tell.
func (t *Table) ClockTurned(now time.Time) Output {
	dup := Output{Seq: t.seq, Duplicate: true}
	if t.tour == nil {
		return dup
	}
	l, ok := t.levelAt(now)
	switch {
	case !ok:
		return dup
	case !l.Break && l.No != t.tour.Level && l.No != t.tour.LevelShown:
		out := t.changed()
		t.tour.LevelShown = l.No
		note := ""
		if t.hand != nil {
			note = ", from the next hand"
		}
		out.notice(levelNotice(l, note))
		return out
	case l.Break && t.hand == nil && t.tour.BreakShown != l.No:
		out := t.changed()
		t.showBreak(now, &out)
		return out
	}
	return dup
}

// studPlayable counts the seats a stud hand would deal in.
func (t *Table) studPlayable() int {
	n := 0
	for _, s := range t.seats {
		if s.Occupied() && !s.Unpaid && s.Arriving == nil && s.Stack > 0 {
			n++
		}
	}
	return n
}
