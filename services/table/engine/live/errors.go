package live

// Reason is a stable, machine-readable reason for refusing an entry. The
// list is closed.
type Reason string

// Refusal reasons.
const (
	ReasonBadSituation     Reason = "BAD_SITUATION"
	ReasonBadEntry         Reason = "BAD_ENTRY"
	ReasonEmptyEntry       Reason = "EMPTY_ENTRY"
	ReasonNotChipMultiple  Reason = "NOT_CHIP_UNIT_MULTIPLE"
	ReasonAboveStack       Reason = "AMOUNT_ABOVE_STACK"
	ReasonNoChipsBehind    Reason = "NO_CHIPS_BEHIND"
	ReasonBadOutOfTurnCase Reason = "BAD_OUT_OF_TURN_CASE"
)

// RuleError is a refusal: the rule that refuses (e.g. "TP-31"; empty for
// malformed input no rule covers), a stable reason, and a message.
type RuleError struct {
	Rule   string
	Reason Reason
	Msg    string
}

// Error returns "live: message (RULE REASON)".
func (e *RuleError) Error() string {
	tag := string(e.Reason)
	if e.Rule != "" {
		tag = e.Rule + " " + tag
	}
	return "live: " + e.Msg + " (" + tag + ")"
}

func ruleErr(rule string, reason Reason, msg string) error {
	return &RuleError{Rule: rule, Reason: reason, Msg: msg}
}
