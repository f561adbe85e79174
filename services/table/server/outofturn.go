package server

import (
	"regexp"
	"strings"

	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table/dealer"
	"github.com/cardroom/cardroom/services/table/engine/live"
)

func ootRulingToProto(r dealer.OOTRuling) *tablev1.OutOfTurnRuling {
	p := &tablev1.OutOfTurnRuling{Seat: int32(r.Seat), Outcome: r.OutcomeName(), Wager: r.Wager, Returned: r.Returned, Scenario: r.Scenario,
		Rules: citationsToProto(r.Rules)}
	for _, o := range r.Options {
		p.Options = append(p.Options, liveActionToProto[o])
	}
	p.Decided = liveActionToProto[r.Decided]
	return p
}

// citationsToProto converts the rules engine/live cites for a ruling.
func citationsToProto(rules []live.Citation) []*tablev1.RuleCitation {
	var out []*tablev1.RuleCitation
	for _, c := range rules {
		out = append(out, &tablev1.RuleCitation{RuleId: c.Rule, Text: c.Text})
	}
	return out
}

func provisionalToProto(p *dealer.Provisional) *tablev1.ProvisionalWager {
	if p == nil {
		return nil
	}
	w := &tablev1.ProvisionalWager{Seat: int32(p.Seat), Action: actionToProto[p.Kind], Amount: p.To, RuleIds: []string{"TP-46", "TP-50"}}
	for _, s := range p.Skipped {
		w.SkippedSeats = append(w.SkippedSeats, int32(s))
	}
	return w
}

// ruleID matches a RULES.md id or a seed scenario id ("TP-59", "G-10",
// "TP-50/S1").
var ruleID = regexp.MustCompile(`^[A-Z]+-[0-9]+(/S[0-9]+)?$`)

// ruleIDsOf reads the rule ids an audit action names after its last colon
// ("kill:TP-59", "out_of_turn:stands:TP-50,TP-50/S3"; runner.OOTAuditAction).
func ruleIDsOf(action string) []string {
	i := strings.LastIndexByte(action, ':')
	if i < 0 {
		return nil
	}
	var out []string
	for _, id := range strings.Split(action[i+1:], ",") {
		if ruleID.MatchString(id) {
			out = append(out, id)
		}
	}
	return out
}
