package engine

import "github.com/cardroom/cardroom/services/table/engine/refusal"

// Sentinel errors for errors.Is.
var (
	ErrOutOfTurn         = &refusal.Error{Reason: refusal.OutOfTurn}
	ErrHandOver          = &refusal.Error{Reason: refusal.HandOver}
	ErrAboveStack        = &refusal.Error{Reason: refusal.AboveStack}
	ErrRaiseBelowMinimum = &refusal.Error{Reason: refusal.RaiseBelowMinimum}
)

var ruleErr = refusal.New

func rangeErr(rule string, reason refusal.Reason, msg string, lo, hi int64) *refusal.Error {
	return &refusal.Error{Rule: rule, Reason: reason, Msg: msg, Min: lo, Max: hi}
}
