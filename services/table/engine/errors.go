package engine

import "github.com/cardroom/cardroom/services/table/engine/refusal"

// Sentinel errors for errors.Is.
var (
	ErrOutOfTurn          = &refusal.Error{Reason: refusal.OutOfTurn}
	ErrSeatNotInHand      = &refusal.Error{Reason: refusal.SeatNotInHand}
	ErrHandOver           = &refusal.Error{Reason: refusal.HandOver}
	ErrActionNotAllowed   = &refusal.Error{Reason: refusal.ActionNotAllowed}
	ErrNegativeAmount     = &refusal.Error{Reason: refusal.NegativeAmount}
	ErrAboveStack         = &refusal.Error{Reason: refusal.AboveStack}
	ErrNotChipMultiple    = &refusal.Error{Reason: refusal.NotChipMultiple}
	ErrBetBelowMinimum    = &refusal.Error{Reason: refusal.BetBelowMinimum}
	ErrRaiseBelowMinimum  = &refusal.Error{Reason: refusal.RaiseBelowMinimum}
	ErrAboveMaximum       = &refusal.Error{Reason: refusal.AboveMaximum}
	ErrBettingNotReopened = &refusal.Error{Reason: refusal.BettingNotReopened}
	ErrRaiseCapReached    = &refusal.Error{Reason: refusal.RaiseCapReached}
	ErrBadCard            = &refusal.Error{Reason: refusal.BadCard}
	ErrDuplicateCard      = &refusal.Error{Reason: refusal.DuplicateCard}
)

var ruleErr = refusal.New

func rangeErr(rule string, reason refusal.Reason, msg string, lo, hi int64) *refusal.Error {
	return &refusal.Error{Rule: rule, Reason: reason, Msg: msg, Min: lo, Max: hi}
}
