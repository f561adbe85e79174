package button

// Reason is a stable, machine-readable reason for a refusal. The list is
// closed.
type Reason string

// Refusal reasons.
const (
	ReasonBadTable          Reason = "BAD_TABLE"
	ReasonTooFewPlayers     Reason = "TOO_FEW_PLAYERS"
	ReasonStraddleForbidden Reason = "STRADDLE_NOT_ALLOWED"
	ReasonStraddleShort     Reason = "STRADDLE_STACK_TOO_SHORT"
)

// RuleError is a refusal: the rule that refuses (e.g. "TP-20"; empty for
// malformed input that no rule covers), a stable reason, and a message.
type RuleError struct {
	Rule   string
	Reason Reason
	Msg    string
}

// Error returns "button: message (RULE REASON)".
func (e *RuleError) Error() string {
	tag := string(e.Reason)
	if e.Rule != "" {
		tag = e.Rule + " " + tag
	}
	return "button: " + e.Msg + " (" + tag + ")"
}

func ruleErr(rule string, reason Reason, msg string) error {
	return &RuleError{Rule: rule, Reason: reason, Msg: msg}
}
