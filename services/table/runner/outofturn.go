package runner

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/table/dealer"
	"github.com/cardroom/cardroom/services/table/store"
)

// consoleEntry is the dealer's entry a change applies: who made it and the
// explanation they gave.
type consoleEntry struct {
	caller Caller
	reason string
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

// withRulings adds the audit records of the out-of-turn rulings a change
// made to the transaction that persists it (TP-02): in the name of the
// console entry being applied, or of the table itself when the change was
// automatic (a timeout of a skipped seat). The caller holds t.mu.
func (t *Table) withRulings(ctx context.Context, out dealer.Output, extra func(tx *sqlstore.Tx) error) func(tx *sqlstore.Tx) error {
	if len(out.OOT) == 0 {
		return extra
	}
	actor, role, given := "", "system", ""
	if e := t.console; e != nil {
		actor, role, given = e.caller.Player, e.caller.Role, e.reason
	}
	now := t.r.d.Clock.Now()
	audits := slices.Clone(out.OOT)
	return func(tx *sqlstore.Tx) error {
		for _, r := range audits {
			texts := make([]string, 0, len(r.Rules)+1)
			if given != "" {
				texts = append(texts, given)
			}
			for _, c := range r.Rules {
				texts = append(texts, c.Rule+": "+c.Text)
			}
			a := auditOf(t.id, r, actor, role, strings.Join(texts, "; "), now)
			if err := t.r.d.Store.AddAudit(ctx, tx, a); err != nil {
				return err
			}
		}
		if extra != nil {
			return extra(tx)
		}
		return nil
	}
}

func auditOf(table string, r dealer.OOTRuling, actor, role, reason string, at time.Time) store.Audit {
	return store.Audit{ID: events.NewID(), TableID: table, HandNo: r.HandNo, Actor: actor, Role: role, Action: OOTAuditAction(r),
		Seat: r.Seat, Reason: reason, At: at}
}
