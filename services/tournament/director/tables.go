package director

import (
	"context"
	"errors"
	"time"
)

// Tables is what the director needs from the table service: the controls
// of a tournament's tables (cardroom.table.v1.TournamentTableService),
// named for what the tournament decides. Seats are the tournament's
// (1-based, as drawn); the adapter translates them. Every control is
// idempotent by its key, hold id, move id or revision, so the director
// repeats one freely after a crash or a timeout.
//
// Errors: ErrUnreachable (wrapped) when the table service did not answer
// (repeat later); ErrFailed (wrapped) when it failed the control itself
// (Internal, Unknown: repeat later, but it may fail again, so the step is
// backed off and reported stuck when it keeps failing); any other error is
// a definite refusal, whose reason Refusal reports.
type Tables interface {
	// Open opens a tournament table, idempotent by key.
	Open(ctx context.Context, t OpenTable) (tableID string, err error)
	// Close closes a table nobody sits at.
	Close(ctx context.Context, tableID string) error
	// Seat seats an entrant with a stack of tournament chips (TR-06, TR-08).
	Seat(ctx context.Context, tableID, key, player string, seat int, stack int64) error
	// SetButton places the drawn button for the next hand (TR-07, G-28).
	SetButton(ctx context.Context, tableID, key string, seat int) error
	// SetLevels gives the table its schedule under a revision (TR-20, G-07).
	SetLevels(ctx context.Context, tableID string, revision int64, rows []Row) error
	// Hold stops dealing after hand dealThrough (0: at the next boundary).
	Hold(ctx context.Context, tableID, holdID string, reason HoldReason, dealThrough int64) error
	// Release lifts a hold.
	Release(ctx context.Context, tableID, holdID string) error
	// SetAbsence deals an entrant dead for hands hands (TR-33) or, left,
	// until the chips are gone (TR-35).
	SetAbsence(ctx context.Context, tableID, key, player string, hands int, left bool) error
	// AddChips adds a rebuy's (TR-14) or an add-on's (TR-17) chips to an
	// entrant's stack, idempotent by key.
	AddChips(ctx context.Context, tableID, key, player string, chips int64, addOn bool) error
	// RaceChips applies a chip race's result (TR-22, G-08) to an entrant's
	// stack, which must still be before; idempotent by key.
	RaceChips(ctx context.Context, tableID, key, player string, amount, before int64) error
	// RemoveBusted takes an entrant with no chips off the table.
	RemoveBusted(ctx context.Context, tableID, key, player string) error
	// RemoveBagged takes a flight's survivor off the table at the end of
	// the day, their chips bagged for Day 2 (issue 13).
	RemoveBagged(ctx context.Context, tableID, key, player string) error
	// RemoveOut takes a disqualified or (expel) expelled entrant off the
	// table with their chips, out of play (TR-34): now (removed, with the
	// chips) between hands, or when the hand they play ends.
	RemoveOut(ctx context.Context, tableID, key, player string, expel bool) (removed bool, chips int64, err error)
	// MoveOut is a move's first step, at the table the entrant leaves.
	MoveOut(ctx context.Context, m Move) (MoveState, error)
	// MoveIn is its second, at the table the entrant joins.
	MoveIn(ctx context.Context, tableID, moveID string) (MoveState, error)
	// Moves lists the tournament's moves in the given states (all when
	// none is given).
	Moves(ctx context.Context, tournamentID string, states ...MoveState) ([]Move, error)
	// CountChips counts the tournament's chips on its tables and in
	// transit, in one snapshot.
	CountChips(ctx context.Context, tournamentID string) (int64, error)
	// Status reads where a table stands.
	Status(ctx context.Context, tableID string) (TableStatus, error)
}

// TableStatus is where a table stands.
type TableStatus struct {
	// HandNo is the hand in progress or the last one (0 before the first).
	HandNo int64
	InHand bool
	Closed bool
	// Seats are the occupied seats.
	Seats []SeatStatus
	// Holds are the table's dealing holds: the hand each lets it deal
	// through, by hold id (HoldLockstep: through the hand after the last
	// one the director handled).
	Holds map[string]int64
}

// SeatStatus is an occupied seat: the tournament's seat number (from 1),
// the entrant and the chips behind.
type SeatStatus struct {
	Seat   int
	Player string
	Stack  int64
	// Pending are chips added during a hand (a rebuy, an add-on): the
	// player's, behind from the next hand.
	Pending int64
	// AllIn is a player all in in the hand in play: dealt in with
	// nothing behind (no player folds with nothing behind; one who has
	// nothing left acts no more).
	AllIn bool
}

// OpenTable is a tournament table to open.
type OpenTable struct {
	Key          string
	TournamentID string
	Name         string
	// Game and Structure are the event's ("HOLDEM", "NO_LIMIT").
	Game, Structure string
	Seats           int
	// SmallBlind and BigBlind are the stakes until the schedule's first
	// row starts.
	SmallBlind, BigBlind int64
	// Live opens a live table (physical cards, a dealer console).
	Live bool
}

// Row is one row of the schedule as the tables play it: a playing level
// or a break from Start on.
type Row struct {
	// Level is the sheet's row number from 1 (breaks count).
	Level        int
	Start        time.Time
	Break        bool
	SmallBlind   int64
	BigBlind     int64
	Ante         int64
	BigBlindAnte bool
}

// HoldReason says why dealing is held.
type HoldReason int

// Hold reasons.
const (
	HoldFloor HoldReason = iota + 1
	HoldBalancing
	HoldHandForHand
	HoldClockPaused
)

// MoveState is where a move stands at the table service.
type MoveState int

// Move states.
const (
	MovePending MoveState = iota + 1
	MoveInTransit
	MoveArriving
	MoveDelivered
	MoveCancelled
)

// Move is one entrant's move between two of the tournament's tables.
type Move struct {
	ID          string
	Player      string
	FromTableID string
	ToTableID   string
	ToSeat      int
	State       MoveState
	Chips       int64
}

// ErrUnreachable wraps a control the table service did not answer: it may
// or may not have been applied, and repeating it is safe.
var ErrUnreachable = errors.New("table service unreachable")

// ErrFailed wraps a control the table service failed (Internal, Unknown):
// it may or may not have been applied and repeating it is safe, but unlike
// a control not answered it may well fail again: the step that needs it is
// backed off and, when it keeps failing, reported stuck (steps.go).
var ErrFailed = errors.New("table service failed")

// Refused is a control the table service refused for good.
type Refused struct {
	// Reason is the ErrorInfo reason ("TABLE_NOT_EMPTY").
	Reason string
	Err    error
}

func (r *Refused) Error() string { return r.Err.Error() }

func (r *Refused) Unwrap() error { return r.Err }

// Refusal returns the reason a control was refused for, "" when err is
// not a refusal.
func Refusal(err error) string {
	var r *Refused
	if errors.As(err, &r) {
		return r.Reason
	}
	return ""
}
