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
	"slices"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/engine/button"
	"github.com/cardroom/cardroom/services/table/engine/cards"
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
	// Unconfirmed are top-up chips whose commit the wallet has not
	// confirmed yet (G-41): they are still in the wallet's hold, not the
	// table's escrow, so they never play. The confirmed commit adds them to
	// the stack, or to Pending during a hand the seat was dealt into
	// (TopUpPaid); a refused one takes them back from here (TakeBack), which
	// a hand in progress cannot prevent.
	Unconfirmed int64 `json:"unconfirmed,omitempty"`
	// Leaving is a player who left during a hand they were dealt into: the
	// seat checks when its turn comes, or folds facing a bet; a hand still
	// live at the showdown is tabled for it (G-43); it is cashed out when
	// the hand ends, with what the hand left it.
	// A seat with Unconfirmed chips leaves once the wallet has settled
	// them (G-41).
	Leaving bool `json:"leaving,omitempty"`
	// Away is a player who stepped away from their seat during a hand
	// they are in (StepAway): the house acts for the seat until the hand
	// ends or they return (G-43), as for a leaving one, but the seat stays
	// theirs, sitting out.
	Away bool `json:"away,omitempty"`
	// Unpaid is a player whose buy-in the wallet has not committed yet:
	// the seat is theirs but they are not dealt in until it is (Paid).
	Unpaid bool `json:"unpaid,omitempty"`
	// Sitting names the wallet's sitting of this seat (named by the table
	// for its sit-down, or the hold of a buy-in held before sit-downs were
	// one call): top-ups add to it and the cash-out
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
	// fixed is the hand's fixed part as MarshalSplit marshalled it (or
	// UnmarshalSplit read it), nil until then and between hands.
	fixed []byte

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

// Config returns the game the table deals.
func (t *Table) Config() engine.Config { return t.cfg }

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
	return slices.IndexFunc(t.seats, func(s Seat) bool { return s.Player == player })
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
