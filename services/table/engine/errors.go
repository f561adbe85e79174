package engine

import "strconv"

// Reason is a stable, machine-readable refusal reason. The list is closed.
type Reason string

// Refusal reasons.
const (
	ReasonBadConfig          Reason = "BAD_CONFIG"
	ReasonBadSetup           Reason = "BAD_SETUP"
	ReasonBadCard            Reason = "BAD_CARD"
	ReasonDuplicateCard      Reason = "DUPLICATE_CARD"
	ReasonDeckTooShort       Reason = "DECK_TOO_SHORT"
	ReasonBadPlayerCount     Reason = "BAD_PLAYER_COUNT"
	ReasonStraddleNotAllowed Reason = "STRADDLE_NOT_ALLOWED"
	ReasonSeatNotInHand      Reason = "SEAT_NOT_IN_HAND"
	ReasonOutOfTurn          Reason = "OUT_OF_TURN"
	ReasonHandOver           Reason = "HAND_OVER"
	ReasonActionNotAllowed   Reason = "ACTION_NOT_ALLOWED"
	ReasonNegativeAmount     Reason = "NEGATIVE_AMOUNT"
	ReasonAboveStack         Reason = "AMOUNT_ABOVE_STACK"
	ReasonNotChipMultiple    Reason = "NOT_CHIP_UNIT_MULTIPLE"
	ReasonBetBelowMinimum    Reason = "BET_BELOW_MINIMUM"
	ReasonRaiseBelowMinimum  Reason = "RAISE_BELOW_MINIMUM"
	ReasonAboveMaximum       Reason = "AMOUNT_ABOVE_MAXIMUM"
	ReasonWrongAmount        Reason = "WRONG_AMOUNT"
	ReasonBettingNotReopened Reason = "BETTING_NOT_REOPENED"
	ReasonRaiseCapReached    Reason = "RAISE_CAP_REACHED"
	ReasonNoAggression       Reason = "NO_BET_OR_RAISE_ALLOWED"
	ReasonCannotCheck        Reason = "CANNOT_CHECK_FACING_BET"
	ReasonRoleRequired       Reason = "ROLE_REQUIRED"
	ReasonShownWinner        Reason = "SHOWN_WINNER_CANNOT_BE_KILLED"
	ReasonNotRevivable       Reason = "HAND_NOT_REVIVABLE"
	ReasonBadStub            Reason = "BAD_STUB"
	ReasonAwaitingCards      Reason = "AWAITING_CARDS"
	ReasonCardsNotExpected   Reason = "CARDS_NOT_EXPECTED"
	ReasonWrongCardCount     Reason = "WRONG_CARD_COUNT"
	ReasonFloorPending       Reason = "FLOOR_DECISION_PENDING"
	ReasonNotEligible        Reason = "NOT_ELIGIBLE_FOR_POT"
)

// RuleError is the typed error every refusal returns: the rule that refuses
// (e.g. "TP-22"), a stable reason, a message, and the allowed range where
// one applies.
type RuleError struct {
	Rule   string `json:"rule,omitempty"`
	Reason Reason `json:"reason"`
	Msg    string `json:"msg"`
	Min    int64  `json:"min,omitempty"`
	Max    int64  `json:"max,omitempty"`
}

// Error formats the refusal.
func (e *RuleError) Error() string {
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

// Is matches another *RuleError with the same Reason (and Rule, if the
// target names one), so errors.Is(err, ErrOutOfTurn) works.
func (e *RuleError) Is(target error) bool {
	t, ok := target.(*RuleError)
	if !ok {
		return false
	}
	return t.Reason == e.Reason && (t.Rule == "" || t.Rule == e.Rule)
}

// Sentinel errors for errors.Is.
var (
	ErrOutOfTurn          = &RuleError{Reason: ReasonOutOfTurn}
	ErrSeatNotInHand      = &RuleError{Reason: ReasonSeatNotInHand}
	ErrHandOver           = &RuleError{Reason: ReasonHandOver}
	ErrActionNotAllowed   = &RuleError{Reason: ReasonActionNotAllowed}
	ErrNegativeAmount     = &RuleError{Reason: ReasonNegativeAmount}
	ErrAboveStack         = &RuleError{Reason: ReasonAboveStack}
	ErrNotChipMultiple    = &RuleError{Reason: ReasonNotChipMultiple}
	ErrBetBelowMinimum    = &RuleError{Reason: ReasonBetBelowMinimum}
	ErrRaiseBelowMinimum  = &RuleError{Reason: ReasonRaiseBelowMinimum}
	ErrAboveMaximum       = &RuleError{Reason: ReasonAboveMaximum}
	ErrBettingNotReopened = &RuleError{Reason: ReasonBettingNotReopened}
	ErrRaiseCapReached    = &RuleError{Reason: ReasonRaiseCapReached}
	ErrBadCard            = &RuleError{Reason: ReasonBadCard}
	ErrDuplicateCard      = &RuleError{Reason: ReasonDuplicateCard}
)

func ruleErr(rule string, reason Reason, msg string) *RuleError {
	return &RuleError{Rule: rule, Reason: reason, Msg: msg}
}

func rangeErr(rule string, reason Reason, msg string, lo, hi int64) *RuleError {
	return &RuleError{Rule: rule, Reason: reason, Msg: msg, Min: lo, Max: hi}
}
