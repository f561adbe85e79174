package runner

import (
	"strings"

	"github.com/cardroom/cardroom/services/table/dealer"
)

// consoleEntry is the dealer's entry a change applies: who made it, what
// it was (with the explanation given) and the hand it was made in.
type consoleEntry struct {
	caller Caller
	args   DealerArgs
	handNo int64
}

// OOTAuditPrefix starts the audit action of an out-of-turn ruling:
// "out_of_turn:<outcome>:<rule ids>", e.g.
// "out_of_turn:check_or_call:TP-50,TP-50/S1".
const OOTAuditPrefix = "out_of_turn"

// SkipAuditPrefix starts the audit action of a ruling on a skipped seat at
// a live table: "skip:<outcome>:<rule ids>", e.g. "skip:deemed_folded:TP-47"
// or "skip:floor_decision:TP-48,G-10".
const SkipAuditPrefix = "skip"

// OOTAuditAction is the audit action of an out-of-turn ruling or of a
// ruling on a skipped seat.
func OOTAuditAction(r dealer.OOTRuling) string {
	prefix := OOTAuditPrefix
	if r.Skip != nil {
		prefix = SkipAuditPrefix
	}
	return prefix + ":" + r.OutcomeName() + ":" + strings.Join(r.RuleIDs(), ",")
}
