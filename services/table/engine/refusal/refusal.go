// Package refusal is the one refusal of the table's engine family: the hand
// (package engine), the button planner (engine/button) and the live-entry
// interpreter (engine/live) all refuse with an *Error, and an *Error turns
// itself into a *fault.Error wherever errors.As asks for one, so no caller
// converts it and none can forget to: a player's refusal reaches the client
// with its reason and rule, never as INTERNAL.
package refusal

import (
	"strconv"

	"github.com/cardroom/cardroom/platform/fault"
)

// Reason is a stable, machine-readable refusal reason. The list is closed.
type Reason string

// Refusal reasons.
const (
	BadConfig          Reason = "BAD_CONFIG"
	BadSetup           Reason = "BAD_SETUP"
	BadCard            Reason = "BAD_CARD"
	DuplicateCard      Reason = "DUPLICATE_CARD"
	DeckTooShort       Reason = "DECK_TOO_SHORT"
	BadPlayerCount     Reason = "BAD_PLAYER_COUNT"
	StraddleNotAllowed Reason = "STRADDLE_NOT_ALLOWED"
	SeatNotInHand      Reason = "SEAT_NOT_IN_HAND"
	OutOfTurn          Reason = "OUT_OF_TURN"
	HandOver           Reason = "HAND_OVER"
	ActionNotAllowed   Reason = "ACTION_NOT_ALLOWED"
	NegativeAmount     Reason = "NEGATIVE_AMOUNT"
	AboveStack         Reason = "AMOUNT_ABOVE_STACK"
	NotChipMultiple    Reason = "NOT_CHIP_UNIT_MULTIPLE"
	BetBelowMinimum    Reason = "BET_BELOW_MINIMUM"
	RaiseBelowMinimum  Reason = "RAISE_BELOW_MINIMUM"
	AboveMaximum       Reason = "AMOUNT_ABOVE_MAXIMUM"
	WrongAmount        Reason = "WRONG_AMOUNT"
	BettingNotReopened Reason = "BETTING_NOT_REOPENED"
	RaiseCapReached    Reason = "RAISE_CAP_REACHED"
	NoAggression       Reason = "NO_BET_OR_RAISE_ALLOWED"
	CannotCheck        Reason = "CANNOT_CHECK_FACING_BET"
	RoleRequired       Reason = "ROLE_REQUIRED"
	ShownWinner        Reason = "SHOWN_WINNER_CANNOT_BE_KILLED"
	NotRevivable       Reason = "HAND_NOT_REVIVABLE"
	BadStub            Reason = "BAD_STUB"
	AwaitingCards      Reason = "AWAITING_CARDS"
	CardsNotExpected   Reason = "CARDS_NOT_EXPECTED"
	WrongCardCount     Reason = "WRONG_CARD_COUNT"
	FloorPending       Reason = "FLOOR_DECISION_PENDING"
	NotEligible        Reason = "NOT_ELIGIBLE_FOR_POT"
	// The button planner's.
	BadTable      Reason = "BAD_TABLE"
	TooFewPlayers Reason = "TOO_FEW_PLAYERS"
	StraddleShort Reason = "STRADDLE_STACK_TOO_SHORT"
	// The live-entry interpreter's.
	BadSituation     Reason = "BAD_SITUATION"
	BadEntry         Reason = "BAD_ENTRY"
	EmptyEntry       Reason = "EMPTY_ENTRY"
	NoChipsBehind    Reason = "NO_CHIPS_BEHIND"
	BadOutOfTurnCase Reason = "BAD_OUT_OF_TURN_CASE"
)

// Error is a refusal: the rule that refuses (e.g. "TP-22"; empty for
// malformed input no rule covers), a stable reason, a message, and the
// allowed range where one applies.
type Error struct {
	Rule   string `json:"rule,omitempty"`
	Reason Reason `json:"reason"`
	Msg    string `json:"msg"`
	Min    int64  `json:"min,omitempty"`
	Max    int64  `json:"max,omitempty"`
	// Malformed marks an entry wrong as written (engine/live's refusals)
	// rather than one the rules forbid now: InvalidArgument, not
	// FailedPrecondition.
	Malformed bool `json:"malformed,omitempty"`
}

// New returns a refusal by rule (empty for none).
func New(rule string, reason Reason, msg string) *Error {
	return &Error{Rule: rule, Reason: reason, Msg: msg}
}

// Error formats the refusal.
func (e *Error) Error() string {
	s := e.Msg + " (" + string(e.Reason)
	if e.Rule != "" {
		s += " " + e.Rule
	}
	s += ")"
	if e.Min != 0 || e.Max != 0 {
		s += " allowed " + strconv.FormatInt(e.Min, 10) + ".." + strconv.FormatInt(e.Max, 10)
	}
	return s
}

// Is matches another *Error with the same Reason (and Rule, if the target
// names one), so errors.Is(err, engine.ErrOutOfTurn) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	return t.Reason == e.Reason && (t.Rule == "" || t.Rule == e.Rule)
}

// As lets errors.As (and so fault.As, and platform/rpc's status mapping)
// find the refusal as the *fault.Error it is to clients; see Fault.
func (e *Error) As(target any) bool {
	f, ok := target.(**fault.Error)
	if ok {
		*f = e.Fault()
	}
	return ok
}

// serverFaults are the reasons that blame input as a whole, not a player's
// entry: the service built the hand, the table or the betting situation,
// so such a refusal is the service's bug.
var serverFaults = map[Reason]bool{
	DeckTooShort:     true,
	BadPlayerCount:   true,
	BadTable:         true,
	BadSituation:     true,
	BadOutOfTurnCase: true,
}

// invalid are the reasons of the hand's that blame the request, not the
// state of play.
var invalid = map[Reason]bool{NegativeAmount: true, BadSetup: true, BadConfig: true}

// Fault is the refusal as clients get it: a player's refusal names its rule
// and reason (and the allowed range as metadata "min" and "max"); a refusal
// of input the service built itself (serverFaults) is fault.Internal, its
// detail kept in the chain for the log only. Card-entry refusals keep their
// reason but not their message, which may name cards.
func (e *Error) Fault() *fault.Error {
	if serverFaults[e.Reason] {
		return fault.New(fault.Internal, string(e.Reason), e.Msg).Wrap(e)
	}
	msg := e.Msg
	if e.Reason == BadCard || e.Reason == DuplicateCard || e.Reason == BadStub {
		msg = "the entered cards are not valid here"
	}
	f := fault.Rule(fault.Precondition, e.Rule, string(e.Reason), msg)
	if e.Malformed || invalid[e.Reason] {
		f.Kind = fault.Invalid
	}
	if e.Min != 0 || e.Max != 0 {
		f = f.With("min", strconv.FormatInt(e.Min, 10), "max", strconv.FormatInt(e.Max, 10))
	}
	return f
}
