// Package dealer runs one cash or tournament table between and during
// hands: who sits where, who sits out, who owes missed blinds, when the next
// hand starts, the action clock, and what the rest of the room must hear
// when a hand ends or a seat opens. It drives the hand itself through
// package engine and plans each hand with package button.
//
// The package is pure: no I/O, no goroutines, no wall clock. Time comes in
// as arguments (the service reads its injected clock) and decks come in
// shuffled (the service's deck source), so a fake clock and a seeded deck
// replay a table exactly. A Table is not safe for concurrent use: the
// service holds the table's lock while it mutates one.
package dealer

import (
	"encoding/json"
	"errors"
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

// Settings are the house settings of a table that the engine profile does
// not hold.
type Settings struct {
	// ActionTimeout is the house time limit for each decision (G-16); when
	// it runs out the seat times out: fold when facing a bet, otherwise
	// check (TP-59). Zero means no limit unless the clock is called.
	ActionTimeout time.Duration `json:"action_timeout,omitempty"`
	// ManualShowdown leaves show-or-muck decisions to the players. By
	// default a digital table shows the hands in the TP-62/TP-63 order
	// itself, and the engine mucks those that cannot win (TP-66).
	ManualShowdown bool `json:"manual_showdown,omitempty"`
	// Method is how the button passes empty seats (G-05); tournament
	// tables always use a dead button (TR-21).
	Method button.Method `json:"method,omitempty"`
}

// Seat is one seat at the table.
type Seat struct {
	// Player is who sits here; "" means the seat is empty.
	Player string `json:"player,omitempty"`
	// Stack is the player's chips on the table, not counting chips in the
	// current hand's pot.
	Stack int64 `json:"stack,omitempty"`
	// SittingOut is a player who is not dealt in (TP-56).
	SittingOut bool `json:"sitting_out,omitempty"`
	// New is a player not yet dealt a hand here (TP-13, TP-16).
	New bool `json:"new,omitempty"`
	// PostNow is the player's choice to post what they owe and be dealt in
	// at the next hand (TP-13, TP-15, TP-16, TP-18).
	PostNow bool `json:"post_now,omitempty"`
	// Rebought is a player who went broke and bought chips again (TP-19).
	Rebought bool `json:"rebought,omitempty"`
	// Debt is what the seat owes in missed blinds (TP-15, TP-18, TP-19).
	Debt button.Debt `json:"debt"`
	// Pending are chips bought during a hand: they play from the next hand
	// on (CS-05).
	Pending int64 `json:"pending,omitempty"`
	// Leaving is a player who left during a hand they were dealt into: the
	// seat folds (or checks) when its turn comes and is cashed out when
	// the hand ends.
	Leaving bool `json:"leaving,omitempty"`
	// Unpaid is a player whose buy-in the wallet has not committed yet:
	// the seat is theirs but they are not dealt in until it is (Paid).
	Unpaid bool `json:"unpaid,omitempty"`
	// Sitting names the wallet's sitting of this seat (the hold of the
	// buy-in that seated the player): top-ups add to it and the cash-out
	// ends it, and no other. Empty without a wallet, and for seats taken
	// before sittings had names.
	Sitting string `json:"sitting,omitempty"`
	// Straddle is the player's request to straddle the next hand dealt
	// (TP-20, G-12). It is used up when that hand starts, straddled or not:
	// only the seat after the big blind of that hand may straddle.
	Straddle bool `json:"straddle,omitempty"`

	// Tournament tables (tournament.go):

	// MissedHands is what remains of a missed-hand penalty (TR-33): the
	// entrant is dealt in absent, and each hand that starts counts one.
	MissedHands int `json:"missed_hands,omitempty"`
	// Left is an entrant who left the tournament (TR-35): absent until the
	// chips are gone.
	Left bool `json:"left,omitempty"`
	// MoveOut is the move of an entrant who leaves for another table when
	// the hand in progress ends (TR-23).
	MoveOut string `json:"move_out,omitempty"`
	// Remove is why an entrant dealt into the hand in progress is removed
	// when it ends.
	Remove RemovalReason `json:"remove,omitempty"`
	// Arriving holds the seat at a live table for a moved player until the
	// dealer confirms they sat down with their chips (not dealt in; the
	// chips are in transit, not in Stack).
	Arriving *Arrival `json:"arriving,omitempty"`
	// MoveTo says where a MoveOut goes, for the console.
	MoveTo string `json:"move_to,omitempty"`
}

// Occupied reports whether a player sits in the seat.
func (s Seat) Occupied() bool { return s.Player != "" }

// CashOut is a player leaving the table with their whole stack: the
// service pays it out through the wallet (CS-08, CS-09, CS-10).
type CashOut struct {
	Seat   int    `json:"seat"`
	Player string `json:"player"`
	Stack  int64  `json:"stack"`
	// Sitting is the seat's sitting (Seat.Sitting), which the cash-out ends.
	Sitting string `json:"sitting,omitempty"`
}

// SeatStack is one seat's stack after a hand. At a tournament table it
// also says what remains of a penalty (TR-33), whether the entrant left
// (TR-35) and whether the seat is held for an arriving player.
type SeatStack struct {
	Seat        int    `json:"seat"`
	Player      string `json:"player"`
	Stack       int64  `json:"stack"`
	MissedHands int    `json:"missed_hands,omitempty"`
	Left        bool   `json:"left,omitempty"`
	Arriving    bool   `json:"arriving,omitempty"`
}

// HandEnded is what the room hears when a hand is over: the new stacks and
// who went broke (seating, wallet and tournaments consume it).
type HandEnded struct {
	HandNo int64         `json:"hand_no"`
	Stacks []SeatStack   `json:"stacks"`
	Busted []int         `json:"busted,omitempty"`
	Result engine.Result `json:"result"`
	// Report is what a tournament table reports beside (nil at a cash
	// table).
	Report *HandReport `json:"report,omitempty"`
}

// Output is what one mutation caused, for the service to store, publish
// and stream. Events include private hole-card deals: the service filters
// them per viewer.
type Output struct {
	// Seq is the table's sequence number after the mutation.
	Seq int64
	// Duplicate is true when the request repeated an action id already
	// applied: nothing changed.
	Duplicate bool
	// Started is the number of a hand that started.
	Started int64
	// Events are the engine's events, in order.
	Events []engine.Event
	// Ended is set when a hand ended.
	Ended *HandEnded
	// History is the finished hand, for the hand-history store.
	History *History
	// SeatsOpened are seats that became empty.
	SeatsOpened []int
	// CashOuts are players who left; the service pays them out.
	CashOuts []CashOut
	// OOT are the rulings on out-of-turn actions this change made (the
	// entry's own, and a provisional wager settled by a skipped seat's
	// action), for the response and the audit log (TP-46…TP-52).
	OOT []OOTRuling
	// Moves are the steps of tournament moves this change took here
	// (TR-23); Removed the entrants it removed.
	Moves   []MoveStep
	Removed []Removal
	// Notices are a tournament table's controls as the dealer's console
	// shows them (tournament.go).
	Notices []Notice
	// Proposal is the console proposal the change recorded (Interpret,
	// ProposeAward).
	Proposal *Proposal
	// Confirmed is the proposal the change applied: confirmed, or entered
	// as proposed. Overruled is one the floor ruled otherwise (TP-02).
	Confirmed *Proposal
	Overruled *Proposal
}

// History is a finished hand as stored: setup and every event, enough to
// show it to each viewer, audit it and export it as PHH. It holds every
// card, so the service stores it encrypted.
type History struct {
	TableID string         `json:"table_id"`
	HandNo  int64          `json:"hand_no"`
	Config  engine.Config  `json:"config"`
	Setup   engine.Setup   `json:"setup"`
	Events  []engine.Event `json:"events"`
	Hand    *engine.Hand   `json:"hand"`
	Start   time.Time      `json:"start"`
	End     time.Time      `json:"end"`
}

// Players returns the players dealt into the hand by seat.
func (h *History) Players() map[int]string {
	out := make(map[int]string, len(h.Setup.Players))
	for _, p := range h.Setup.Players {
		out[p.Seat] = p.ID
	}
	return out
}

// Errors of the table (the engine's refusals pass through as faults naming
// their rule).
var (
	ErrSeatTaken     = fault.New(fault.Precondition, "SEAT_TAKEN", "the seat is taken")
	ErrTableFull     = fault.New(fault.Precondition, "TABLE_FULL", "every seat is taken")
	ErrAlreadySeated = fault.New(fault.Precondition, "ALREADY_SEATED", "the player already sits at this table")
	ErrEmptySeat     = fault.New(fault.Precondition, "SEAT_EMPTY", "nobody sits in that seat")
	ErrNoSuchSeat    = fault.New(fault.Invalid, "NO_SUCH_SEAT", "no such seat")
	ErrNoHand        = fault.New(fault.Precondition, "NO_HAND_IN_PROGRESS", "no hand is in progress")
	ErrStaleSequence = fault.Rule(fault.Precondition, "TP-46", "STALE_SEQUENCE", "the table has moved on since that sequence number: the turn the request was made for has passed")
	ErrNotInTurn     = fault.Rule(fault.Precondition, "TP-46", "OUT_OF_TURN", "it is not this seat's turn")
	ErrBadAmount     = fault.New(fault.Invalid, "AMOUNT_NOT_POSITIVE", "amount must be positive")
	ErrTopUpBusted   = fault.Rule(fault.Precondition, "CS-07", "TOP_UP_NOT_SEATED", "only a seated player adds chips")
	ErrClockNotDue   = fault.Rule(fault.Precondition, "TP-59", "NO_DECISION_PENDING", "nobody is to act: there is no clock to call")
)

// ErrReasonRequired refuses a floor ruling made without the explanation
// TP-02 asks for (TP-60 for a revived hand).
var ErrReasonRequired = fault.Rule(fault.Invalid, "TP-02", "RULING_REASON_REQUIRED", "the floor gives the reason for a ruling")

// recentActions is how many client action ids a table remembers for
// idempotent retries.
const recentActions = 128

// Table is one table's whole state: seats, the hand in progress, the
// action clock.
type Table struct {
	id       string
	cfg      engine.Config
	settings Settings
	seats    []Seat
	previous button.Positions
	started  bool // a hand has been dealt: previous holds real positions
	handNo   int64
	seq      int64
	recent   []string // client action ids applied, oldest first

	// The hand in progress (nil between hands).
	hand      *engine.Hand
	plan      button.Plan
	setup     engine.Setup
	log       []engine.Event
	handStart time.Time

	// oot are the out-of-turn wagers followed, in turn order: cash-game
	// wagers held outside the pot (TP-50) and tournament wagers committed
	// as made (TP-52). They belong to the hand in progress.
	oot []*Provisional
	// acted are the seats that acted out of turn during the current turn
	// (TP-47, skip.go); nil when none. It belongs to the hand in progress.
	acted *ootActs

	deadline    time.Time // zero: no clock running
	clockCalled bool
	closing     bool // no new hand; everyone leaves when the current one ends

	// tour is a tournament table's controls (tournament.go); nil until
	// the first one, and always at a cash table.
	tour *Tour

	// proposal is the console's last proposal (console.go); it stands
	// while the table's sequence number is its own.
	proposal *Proposal

	// last is the most recent finished hand as every viewer may see it;
	// nil before the first hand ends.
	last *LastHand
}

// LastHand is a finished hand as every viewer may see it — the board, the
// hands shown or exposed, face-up stud cards, the pots with their eligible
// seats and winners — kept in the table's public state until the next
// hand ends, so an app reads the result from the state and not only from
// the stream. No card nobody was shown is in it: it is stored in clear.
type LastHand struct {
	HandNo int64              `json:"hand_no"`
	Board  []cards.Card       `json:"board,omitempty"`
	Pots   []engine.PotResult `json:"pots,omitempty"`
	Seats  []LastSeat         `json:"seats"`
	End    time.Time          `json:"end"`
}

// LastSeat is one seat of a LastHand: what a spectator saw of it at the
// end (engine.View), its player and its net result.
type LastSeat struct {
	engine.SeatView
	Net int64 `json:"net"`
}

// lastHand records the finished hand h as a spectator sees it.
func lastHand(no int64, h *engine.Hand, res engine.Result, end time.Time) *LastHand {
	v := h.View(-1)
	l := &LastHand{HandNo: no, Board: v.Board, Pots: v.Pots, End: end}
	net := make(map[int]int64, len(res.Seats))
	for _, r := range res.Seats {
		net[r.Seat] = r.Net
	}
	for _, s := range v.Seats {
		l.Seats = append(l.Seats, LastSeat{SeatView: s, Net: net[s.Seat]})
	}
	return l
}

// LastHand returns the most recent finished hand as every viewer may see
// it, or nil before the first hand ends. Callers must not mutate it.
func (t *Table) LastHand() *LastHand { return t.last }

// New returns an empty table with seats seats. A live table deals physical
// cards, which the dealer enters (engine.Config.Physical).
func New(id string, cfg engine.Config, seats int, s Settings) *Table {
	if cfg.Tournament {
		s.Method = button.DeadButton
	}
	return &Table{id: id, cfg: physical(cfg), settings: s, seats: make([]Seat, seats), previous: button.FirstHand(0)}
}

// physical makes a live table's configuration deal physical cards: the
// engine never invents the cards of a live table (a table stored before
// live tables took their cards from the console included).
func physical(cfg engine.Config) engine.Config {
	if cfg.Mode == engine.Live {
		cfg.Physical = true
	}
	return cfg
}

// ID returns the table's id.
func (t *Table) ID() string { return t.id }

// Config returns the game the table deals.
func (t *Table) Config() engine.Config { return t.cfg }

// Settings returns the table's house settings.
func (t *Table) Settings() Settings { return t.settings }

// Seats returns a copy of the seats.
func (t *Table) Seats() []Seat { return slices.Clone(t.seats) }

// Seq returns the table's sequence number: it grows by one with every
// accepted change, and a client may send the number it last saw to make
// sure it acts on the state it saw.
func (t *Table) Seq() int64 { return t.seq }

// HandNo returns the number of the hand in progress, or of the last one.
func (t *Table) HandNo() int64 { return t.handNo }

// Hand returns the hand in progress, or nil. Callers must not mutate it.
func (t *Table) Hand() *engine.Hand { return t.hand }

// InHand reports whether a hand is in progress.
func (t *Table) InHand() bool { return t.hand != nil }

// Deadline returns when the decision now awaited times out, or the zero
// time when no clock runs.
func (t *Table) Deadline() time.Time { return t.deadline }

// ClockCalled reports whether the TP-59 clock was called on the decision
// now awaited.
func (t *Table) ClockCalled() bool { return t.clockCalled }

// SeatOf returns the seat of player, or -1.
func (t *Table) SeatOf(player string) int {
	for i, s := range t.seats {
		if s.Player == player {
			return i
		}
	}
	return -1
}

// StackNow returns the chips the player in seat has in front of them now:
// during a hand they are dealt in, the stack behind their bets as the hand
// stands (what a top-up is capped by, G-19), not the stack they started it
// with. A seat all in while the hand is still being played has not run out
// of chips yet (CS-07: its chips are in the pot it may win): it counts
// with the stack it started the hand with. Chips queued for the next hand
// (Pending) are not included.
func (t *Table) StackNow(seat int) int64 {
	s := t.seats[seat]
	if !t.dealtIn(seat) {
		return s.Stack
	}
	if live := t.hand.Stack(seat); live > 0 || t.hand.Done() {
		return live
	}
	return s.Stack
}

// dealtIn reports whether seat is dealt into the hand in progress.
func (t *Table) dealtIn(seat int) bool {
	return t.hand != nil && t.hand.Stack(seat) >= 0
}

func (t *Table) checkSeat(seat int) error {
	if seat < 0 || seat >= len(t.seats) {
		return ErrNoSuchSeat.Withf("seat %d is not a seat at a %d-seat table", seat, len(t.seats))
	}
	return nil
}

// FreeSeat returns the lowest empty seat, or ErrTableFull.
func (t *Table) FreeSeat() (int, error) {
	for i, s := range t.seats {
		if !s.Occupied() {
			return i, nil
		}
	}
	return -1, ErrTableFull
}

// CheckSit reports whether player may sit in seat now (before the service
// asks the wallet for the buy-in).
func (t *Table) CheckSit(seat int, player string) error {
	if err := t.checkSeat(seat); err != nil {
		return err
	}
	if t.SeatOf(player) >= 0 {
		return ErrAlreadySeated
	}
	if t.seats[seat].Occupied() {
		if _, err := t.FreeSeat(); err != nil {
			return err
		}
		return ErrSeatTaken.Withf("seat %d is taken", seat)
	}
	return nil
}

// Sit seats player in seat with stack chips (already moved to the table's
// escrow by the wallet). A new player waits for the big blind unless they
// choose to post now (TP-13); on a tournament table they play at once.
// Sitting down during a hand deals the player in from the next hand.
func (t *Table) Sit(seat int, player string, stack int64, postNow bool) (Output, error) {
	if err := t.CheckSit(seat, player); err != nil {
		return Output{}, err
	}
	if stack <= 0 {
		return Output{}, ErrBadAmount
	}
	if t.closing {
		return Output{}, fault.New(fault.Precondition, "TABLE_CLOSED", "the table is closed")
	}
	bs := button.Sit(player, stack)
	t.seats[seat] = Seat{Player: bs.Player, Stack: bs.Stack, New: bs.New && !t.cfg.Tournament, PostNow: postNow}
	return t.changed(), nil
}

// SitUnpaid seats a player like Sit whose buy-in the wallet has yet to
// commit: they are not dealt in until Paid. sitting names the wallet's
// sitting the buy-in opens (its hold).
func (t *Table) SitUnpaid(seat int, player string, stack int64, postNow bool, sitting string) (Output, error) {
	out, err := t.Sit(seat, player, stack, postNow)
	if err == nil {
		t.seats[seat].Unpaid = true
		t.seats[seat].Sitting = sitting
	}
	return out, err
}

// Paid records that the wallet committed the buy-in of the player in seat.
func (t *Table) Paid(seat int) (Output, error) {
	if err := t.occupied(seat); err != nil {
		return Output{}, err
	}
	t.seats[seat].Unpaid = false
	return t.changed(), nil
}

// SitOut marks the player in seat as sitting out from the next hand: they
// are not dealt in and owe the blinds that pass them (TP-12, TP-15, TP-18).
func (t *Table) SitOut(seat int) (Output, error) {
	if err := t.occupied(seat); err != nil {
		return Output{}, err
	}
	t.seats[seat].SittingOut = true
	t.seats[seat].PostNow = false
	return t.changed(), nil
}

// Return brings a player who sat out back. With postNow they pay what they
// owe and are dealt in at the next hand; otherwise they wait for the big
// blind (TP-15, TP-16, TP-18).
func (t *Table) Return(seat int, postNow bool) (Output, error) {
	if err := t.occupied(seat); err != nil {
		return Output{}, err
	}
	if err := t.penaltyInForce(seat); err != nil {
		return Output{}, err
	}
	t.seats[seat].SittingOut = false
	t.seats[seat].PostNow = postNow
	return t.changed(), nil
}

// ErrStraddleNotAllowed refuses a straddle request at a table that never
// deals one: tournament tables (TP-20) and stud, which has no blinds.
var ErrStraddleNotAllowed = fault.Rule(fault.Precondition, "TP-20", "STRADDLE_NOT_ALLOWED", "this table deals no straddle")

// RequestStraddle records (on) or withdraws (!on) the request of the
// player in seat to straddle the next hand: a live blind of twice the big
// blind, posted by the seat after the big blind, which then acts last
// before the flop and sizes raises like a big blind (TP-20, G-12). Only
// cash hold'em-family tables deal straddles. Between hands the request is
// checked at once against the next hand's plan; a request made during a
// hand is checked when the next hand is dealt, and if the seat is then not
// the one after the big blind (or cannot cover the straddle) that hand is
// dealt without it.
func (t *Table) RequestStraddle(seat int, on bool) (Output, error) {
	if err := t.occupied(seat); err != nil {
		return Output{}, err
	}
	if t.cfg.Tournament {
		return Output{}, ErrStraddleNotAllowed.Withf("no straddle on tournament tables")
	}
	if t.cfg.Game.IsStud() {
		return Output{}, ErrStraddleNotAllowed.Withf("stud has no blinds to straddle")
	}
	if on && t.hand == nil && !t.closing {
		bt := t.buttonTable()
		bt.Seats[seat].Straddle = true
		if _, err := button.PlanHand(bt); isStraddleRefusal(err) {
			return Output{}, err
		}
	}
	t.seats[seat].Straddle = on
	return t.changed(), nil
}

// isStraddleRefusal reports whether err is the planner refusing a
// straddle request (TP-20).
func isStraddleRefusal(err error) bool {
	var be *refusal.Error
	return errors.As(err, &be) && be.Rule == "TP-20"
}

// Options returns what the player in seat may choose before the next hand
// (TP-13, TP-15, TP-16, TP-18): nil when they owe nothing.
func (t *Table) Options(seat int) []button.Option {
	if seat < 0 || seat >= len(t.seats) || t.cfg.Game.IsStud() {
		return nil
	}
	return button.Options(seat, t.buttonSeat(t.seats[seat]), t.stakes(), t.cfg.Tournament)
}

// TopUp adds chips the wallet has moved to the table. Between hands they
// play at once; during a hand they wait for its end (CS-05). A player with
// no chips left has rebought: the blinds they missed are collected under
// TP-19.
func (t *Table) TopUp(seat int, amount int64) (Output, error) {
	if err := t.occupied(seat); err != nil {
		return Output{}, ErrTopUpBusted.Wrap(err)
	}
	if amount <= 0 {
		return Output{}, ErrBadAmount
	}
	s := &t.seats[seat]
	if t.dealtIn(seat) {
		s.Pending += amount
	} else {
		if s.Stack == 0 && !s.New {
			s.Rebought = true
		}
		s.Stack += amount
	}
	return t.changed(), nil
}

// Leave takes the player in seat away from the table. Between hands, or if
// they are not in the hand, they leave at once with their stack; if they
// are in the hand in progress they leave when it ends, and the seat folds
// (or checks) whenever its turn comes (TP-56: the hand may be removed).
func (t *Table) Leave(seat int, now time.Time) (Output, error) {
	if err := t.occupied(seat); err != nil {
		return Output{}, err
	}
	if t.dealtIn(seat) && !t.hand.Done() {
		t.seats[seat].Leaving = true
		out := t.changed()
		if err := t.settle(&out, now); err != nil {
			return Output{}, err
		}
		return out, nil
	}
	out := t.changed()
	t.vacate(seat, &out)
	return out, nil
}

func (t *Table) vacate(seat int, out *Output) {
	s := t.seats[seat]
	// An unpaid seat takes nothing: its chips never reached the table (the
	// service releases the hold instead of committing it).
	if !s.Unpaid {
		out.CashOuts = append(out.CashOuts, CashOut{Seat: seat, Player: s.Player, Stack: s.Stack + s.Pending, Sitting: s.Sitting})
	}
	out.SeatsOpened = append(out.SeatsOpened, seat)
	t.seats[seat] = Seat{}
}

func (t *Table) occupied(seat int) error {
	if err := t.checkSeat(seat); err != nil {
		return err
	}
	if !t.seats[seat].Occupied() {
		return ErrEmptySeat.Withf("seat %d is empty", seat)
	}
	return nil
}

func (t *Table) changed() Output {
	t.seq++
	return Output{Seq: t.seq}
}

func (t *Table) stakes() button.Stakes {
	k := t.cfg.Stakes
	ante, bba := k.Ante, false
	if k.BigBlindAnte > 0 {
		ante, bba = k.BigBlindAnte, true
	}
	return button.Stakes{SmallBlind: k.SmallBlind, BigBlind: k.BigBlind, Ante: ante, BigBlindAnte: bba}
}

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

// Close stops the table dealing: between hands every player leaves at
// once with their stack; during a hand they leave when it ends.
func (t *Table) Close() Output {
	t.closing = true
	out := t.changed()
	if t.hand == nil {
		t.vacateAll(&out)
	}
	return out
}

// Closing reports whether the table was closed.
func (t *Table) Closing() bool { return t.closing }

// Closed reports whether the table is closed and empty.
func (t *Table) Closed() bool {
	return t.closing && t.hand == nil && !slices.ContainsFunc(t.seats, Seat.Occupied)
}

func (t *Table) vacateAll(out *Output) {
	for i := range t.seats {
		if t.seats[i].Occupied() {
			t.vacate(i, out)
		}
	}
}

// Unseat removes a player whose buy-in did not go through: they take no
// chips with them, because none reached the table. It refuses a player
// dealt into the hand in progress.
func (t *Table) Unseat(seat int) (Output, error) {
	if err := t.occupied(seat); err != nil {
		return Output{}, err
	}
	if t.dealtIn(seat) {
		return Output{}, fault.New(fault.Precondition, "SEAT_IN_HAND", "the seat is in the hand in progress")
	}
	t.seats[seat] = Seat{}
	out := t.changed()
	out.SeatsOpened = []int{seat}
	return out, nil
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
	t.hand, t.plan, t.setup, t.handStart = h, plan, setup, now
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
		var a engine.Action
		showdown := t.hand.Phase() == engine.PhaseShowdown && t.cfg.Mode == engine.Digital
		switch {
		case t.seats[seat].Leaving && showdown && t.canShow():
			// A leave never gives a live hand away (TP-44: an all-in
			// player is dealt to the showdown): the house tables the
			// away seat's hand, which wins what it wins (TP-67), then
			// the seat leaves with it.
			a = engine.Action{Seat: seat, Kind: engine.Show}
		case t.seats[seat].Leaving:
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
			return nil
		}
		evs, err := t.hand.Apply(a)
		if err != nil {
			return fmt.Errorf("table %s hand %d: automatic %s for seat %d: %w", t.id, t.handNo, a.Kind, seat, err)
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
		if t.seats[i].Leaving || (t.closing && t.seats[i].Occupied()) {
			t.vacate(i, out)
		}
	}
	plan := t.plan
	t.hand, t.plan, t.setup, t.log, t.oot, t.acted, t.proposal = nil, button.Plan{}, engine.Setup{}, nil, nil, nil, nil
	t.deadline, t.clockCalled = time.Time{}, false
	if t.cfg.Tournament {
		_ = t.tournament()
		t.finishTournament(out, out.History, plan, now)
	}
}

// snapshot is a table's state as JSON. Secret holds what no one may read
// from storage without the key: the hand (deck and hole cards), its setup
// and its event log.
type snapshot struct {
	ID       string           `json:"id"`
	Config   engine.Config    `json:"config"`
	Settings Settings         `json:"settings"`
	Seats    []Seat           `json:"seats"`
	Previous button.Positions `json:"previous"`
	Started  bool             `json:"started,omitempty"`
	HandNo   int64            `json:"hand_no"`
	Seq      int64            `json:"seq"`
	Recent   []string         `json:"recent,omitempty"`
	Deadline time.Time        `json:"deadline,omitzero"`
	Called   bool             `json:"clock_called,omitempty"`
	InHand   bool             `json:"in_hand,omitempty"`
	Closing  bool             `json:"closing,omitempty"`
	Tour     *Tour            `json:"tour,omitempty"`
	Proposal *Proposal        `json:"proposal,omitempty"`
	LastHand *LastHand        `json:"last_hand,omitempty"`
}

type secret struct {
	Hand  *engine.Hand   `json:"hand"`
	Plan  button.Plan    `json:"plan"`
	Setup engine.Setup   `json:"setup"`
	Log   []engine.Event `json:"log"`
	Start time.Time      `json:"start"`
	// OOT are the out-of-turn wagers followed (TP-50, TP-52).
	OOT []*Provisional `json:"oot_wagers,omitempty"`
	// LegacyOOT is the one held wager a table stored before several could
	// be held; read only.
	LegacyOOT *Provisional `json:"oot,omitempty"`
	// Acted are the seats that acted out of turn during the current turn
	// (TP-47), if any.
	Acted *ootActs `json:"oot_acted,omitempty"`
}

// Marshal returns the table's state: public (seats, positions, clock) and
// secret (the hand in progress with its deck; nil between hands). The
// service stores the secret part encrypted.
func (t *Table) Marshal() (public, private []byte, err error) {
	public, err = json.Marshal(snapshot{ID: t.id, Config: t.cfg, Settings: t.settings, Seats: t.seats, Previous: t.previous,
		Started: t.started, HandNo: t.handNo, Seq: t.seq, Recent: t.recent, Deadline: t.deadline, Called: t.clockCalled, InHand: t.hand != nil, Closing: t.closing,
		Tour: t.tour, Proposal: t.Proposal(), LastHand: t.last})
	if err != nil {
		return nil, nil, fmt.Errorf("marshal table %s: %w", t.id, err)
	}
	if t.hand == nil {
		return public, nil, nil
	}
	private, err = json.Marshal(secret{Hand: t.hand, Plan: t.plan, Setup: t.setup, Log: t.log, Start: t.handStart, OOT: t.oot, Acted: t.acted})
	if err != nil {
		return nil, nil, fmt.Errorf("marshal table %s hand %d: %w", t.id, t.handNo, err)
	}
	return public, private, nil
}

// Unmarshal restores a table from Marshal's output.
func Unmarshal(public, private []byte) (*Table, error) {
	var s snapshot
	if err := json.Unmarshal(public, &s); err != nil {
		return nil, fmt.Errorf("unmarshal table: %w", err)
	}
	t := &Table{id: s.ID, cfg: physical(s.Config), settings: s.Settings, seats: s.Seats, previous: s.Previous, started: s.Started,
		handNo: s.HandNo, seq: s.Seq, recent: s.Recent, deadline: s.Deadline, clockCalled: s.Called, closing: s.Closing, tour: s.Tour,
		proposal: s.Proposal, last: s.LastHand}
	if !s.InHand {
		return t, nil
	}
	if private == nil {
		return nil, fmt.Errorf("unmarshal table %s: hand %d in progress but not stored", s.ID, s.HandNo)
	}
	var sec secret
	if err := json.Unmarshal(private, &sec); err != nil {
		return nil, fmt.Errorf("unmarshal table %s hand %d: %w", s.ID, s.HandNo, err)
	}
	t.hand, t.plan, t.setup, t.log, t.handStart, t.oot, t.acted = sec.Hand, sec.Plan, sec.Setup, sec.Log, sec.Start, sec.OOT, sec.Acted
	if sec.LegacyOOT != nil {
		t.oot = append(t.oot, sec.LegacyOOT)
	}
	return t, nil
}

// PublicSeats reads the seats from a table's public state (Marshal's first
// result), for seat maps read from storage without loading the hand.
func PublicSeats(public []byte) ([]Seat, error) {
	var s snapshot
	if err := json.Unmarshal(public, &s); err != nil {
		return nil, fmt.Errorf("unmarshal table seats: %w", err)
	}
	return s.Seats, nil
}

// TakeBack removes chips a top-up added when the wallet would not commit
// them: from the queued chips first (CS-05), then from the stack between
// hands. It refuses to take chips the seat has in play.
func (t *Table) TakeBack(seat int, amount int64) (Output, error) {
	if err := t.occupied(seat); err != nil {
		return Output{}, err
	}
	s := &t.seats[seat]
	switch {
	case s.Pending >= amount:
		s.Pending -= amount
	case !t.dealtIn(seat) && s.Stack >= amount:
		s.Stack -= amount
	default:
		return Output{}, fault.New(fault.Precondition, "CHIPS_IN_PLAY", "the chips are in play; the floor settles it after the hand")
	}
	return t.changed(), nil
}
