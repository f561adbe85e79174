package runner

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/table/dealer"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/engine/live"
	"github.com/cardroom/cardroom/services/table/store"
)

// DealerKind is a console entry.
type DealerKind uint8

// Console entries.
const (
	DealerPlayerAction DealerKind = iota + 1
	DealerCallClock
	DealerKill
	DealerRevive
	DealerExposeLive
	DealerSkip
	// DealerOutOfTurn is an action made out of turn (TP-46…TP-52).
	DealerOutOfTurn
	// DealerBoardCards enters the community cards the street awaits.
	DealerBoardCards
	// DealerSeatCards enters a seat's cards (a stud up card, the hand
	// turned face up, hole cards where the house enters them).
	DealerSeatCards
	// DealerExposed marks a seat's exposed cards (TP-58).
	DealerExposed
	// DealerMisdeal voids the hand (G-32).
	DealerMisdeal
	// DealerAwardPot enters a pot's winners (winner entry; the floor's is
	// applied, a dealer's is proposed to the floor).
	DealerAwardPot
	// DealerConfirm confirms the standing proposal.
	DealerConfirm
	// DealerBoardOverdeal is the floor's correction of an overdeal
	// (TP-78, TP-79).
	DealerBoardOverdeal
)

// DealerArgs is one console entry.
type DealerArgs struct {
	Kind   DealerKind
	Seat   int
	Action engine.ActionKind
	Amount int64
	Kill   engine.KillReason
	// NextStreetDealt (SKIP) is the dealer's report that the next round's
	// cards were dealt before the skipped seat could react (TP-48).
	NextStreetDealt bool
	// Cards are the physical cards the entry names.
	Cards []cards.Card
	// ProposalID names the proposal a CONFIRM confirms.
	ProposalID string
	// Pot, Winners and LowWinners are a pot award.
	Pot        int
	Winners    []int
	LowWinners []int
	// ExtraCards is how many cards too many an overdeal dealt.
	ExtraCards  int
	Reason      string
	ActionID    string
	ExpectedSeq *int64
}

var dealerNames = map[DealerKind]string{DealerPlayerAction: "player_action", DealerCallClock: "call_clock", DealerKill: "kill",
	DealerRevive: "revive", DealerExposeLive: "expose_live", DealerSkip: "skip", DealerOutOfTurn: OOTAuditPrefix,
	DealerBoardCards: "board_cards", DealerSeatCards: "seat_cards", DealerExposed: "exposed", DealerMisdeal: "misdeal",
	DealerAwardPot: "award_pot", DealerConfirm: "confirm", DealerBoardOverdeal: "board_overdeal"}

// floorOnly are the entries only the floor makes, with the rule that says
// so (the dealer marks an exposure; the floor rules on it, TP-58).
func floorOnly(a DealerArgs) (string, bool) {
	switch {
	case a.Kind == DealerRevive:
		return "TP-60", true
	case a.Kind == DealerExposeLive, a.Kind == DealerKill && a.Kill == engine.KillExposed:
		return "TP-58", true
	case a.Kind == DealerBoardOverdeal && a.ExtraCards > 1:
		return "TP-79", true
	case a.Kind == DealerBoardOverdeal:
		return "TP-78", true
	}
	return "", false
}

// floorReason is the rule that asks the floor for the reason of a ruling
// it makes at the console (TP-02: the floor gives one for every ruling;
// TP-60: a hand is revived "with a reason"); false for an entry that is
// not a ruling of the floor.
func floorReason(a DealerArgs) (string, bool) {
	switch a.Kind {
	case DealerRevive:
		return "TP-60", true
	case DealerExposeLive:
		return "TP-58", true
	case DealerKill:
		if a.Kill == engine.KillExposed {
			return "TP-58", true
		}
		return "TP-02", true
	case DealerMisdeal:
		return "G-32", true
	case DealerBoardOverdeal, DealerAwardPot:
		return "TP-02", true
	}
	return "", false
}

// DealerResult is what a console entry did.
type DealerResult struct {
	View View
	// OOT are the out-of-turn rulings it made (TP-46…TP-52).
	OOT []dealer.OOTRuling
	// Proposal is a proposal it recorded for the floor (a dealer's pot
	// award).
	Proposal *dealer.Proposal
}

// Dealer applies a dealer's or the floor's console entry. Every ruling it
// makes is written to the audit log in the same transaction, with the rules
// it applies and the reason given (the floor must give one, TP-02, TP-60):
// floor rulings, kills, exposures, misdeals, overdeals, a called clock,
// skipped seats and out-of-turn rulings, confirmed proposals and the
// floor's rulings against a proposal. The ordinary flow — an action
// entered as the player made it, the cards as they are dealt — is the
// hand's history, not a ruling.
func (r *Runner) Dealer(ctx context.Context, id string, c Caller, a DealerArgs) (DealerResult, error) {
	t, err := r.table(ctx, id)
	if err != nil {
		return DealerResult{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if rule, only := floorOnly(a); only && !c.Floor {
		return DealerResult{}, fault.Rule(fault.Forbidden, rule, "FLOOR_ONLY", "the floor makes this ruling")
	}
	if a.Kind == DealerMisdeal && !c.Floor {
		if h := t.dt.Hand(); h != nil && h.SubstantialAction() {
			return DealerResult{}, fault.Rule(fault.Forbidden, "G-32", "FLOOR_ONLY", "substantial action has occurred: only the floor declares a misdeal now")
		}
	}
	if rule, ok := floorReason(a); ok && c.Floor && a.Reason == "" {
		err := dealer.ErrReasonRequired.Withf("the floor gives the reason for its ruling")
		err.Rule = rule
		return DealerResult{}, err
	}
	t.console = &consoleEntry{caller: c, args: a, handNo: t.dt.HandNo()}
	defer func() { t.console = nil }()
	role := engine.RoleDealer
	if c.Floor {
		role = engine.RoleFloor
	}
	now := r.d.Clock.Now()
	act := dealer.Act{ActionID: a.ActionID, ExpectedSeq: a.ExpectedSeq, Reason: a.Reason,
		Action: engine.Action{Seat: a.Seat, By: role, Cards: a.Cards}}
	var fn func(dt *dealer.Table) (dealer.Output, error)
	var proposal *dealer.Proposal
	switch a.Kind {
	case DealerPlayerAction:
		act.Action.Kind, act.Action.Amount = a.Action, a.Amount
	case DealerCallClock:
		fn = func(dt *dealer.Table) (dealer.Output, error) { return dt.CallClock(now) }
	case DealerKill:
		act.Action.Kind, act.Action.Kill = engine.Kill, a.Kill
	case DealerRevive:
		act.Action.Kind = engine.Revive
	case DealerExposeLive:
		act.Action.Kind = engine.ExposeLive
	case DealerSkip:
		// At a live table the table rules on the skip (TP-46…TP-48,
		// dealer.Table.Skip); a digital table applies it as entered.
		act.Action.Kind = engine.Skip
		fn = func(dt *dealer.Table) (dealer.Output, error) { return dt.Skip(act, a.NextStreetDealt, now) }
	case DealerOutOfTurn:
		act.Action.Kind, act.Action.Amount = a.Action, a.Amount
		fn = func(dt *dealer.Table) (dealer.Output, error) { return dt.OutOfTurn(act, now) }
	case DealerBoardCards:
		act.Action.Kind = engine.DealBoard
	case DealerSeatCards:
		act.Action.Kind = engine.DealSeat
	case DealerExposed:
		act.Action.Kind = engine.Expose
	case DealerMisdeal:
		act.Action.Kind = engine.Misdeal
	case DealerBoardOverdeal:
		act.Action.Kind, act.Action.Amount = engine.BoardOverdeal, int64(a.ExtraCards)
	case DealerAwardPot:
		act.Action = engine.Action{Kind: engine.AwardPot, By: role, Pot: a.Pot, Winners: a.Winners, LowWinners: a.LowWinners}
		if !c.Floor {
			fn = func(dt *dealer.Table) (dealer.Output, error) {
				p, out, err := dt.ProposeAward(events.NewID(), a.Pot, a.Winners, a.LowWinners)
				proposal = &p
				return out, err
			}
		}
	case DealerConfirm:
		fn = func(dt *dealer.Table) (dealer.Output, error) { return dt.Confirm(a.ProposalID, role, a.Reason, now) }
	default:
		return DealerResult{}, fault.Invalidf("kind", "unknown console entry")
	}
	if fn == nil {
		fn = func(dt *dealer.Table) (dealer.Output, error) { return dt.Apply(act, now) }
	}
	out, err := t.do(ctx, fn, nil)
	if err != nil {
		return DealerResult{}, err
	}
	return DealerResult{View: t.view(Viewer{Staff: true}), OOT: out.OOT, Proposal: proposal}, nil
}

// Interpret reads a live dealer's entry for seat (-1: the seat in turn;
// another seat: a push out of turn) under TP-32…TP-43 and records the
// proposal it amounts to (dealer.Table.Interpret). It returns the proposal
// and the table's sequence number after recording it.
func (r *Runner) Interpret(ctx context.Context, id string, seat int, e live.Entry) (dealer.Proposal, int64, error) {
	t, err := r.table(ctx, id)
	if err != nil {
		return dealer.Proposal{}, 0, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var p dealer.Proposal
	out, err := t.do(ctx, func(dt *dealer.Table) (dealer.Output, error) {
		var out dealer.Output
		var err error
		p, out, err = dt.Interpret(events.NewID(), seat, e)
		return out, err
	}, nil)
	if err != nil {
		return dealer.Proposal{}, 0, err
	}
	return p, out.Seq, nil
}

// rulingRules are the rules an entry that is itself a ruling applies;
// entries not listed are audited by the rulings they make.
func rulingRules(a DealerArgs, floor bool, h *engine.Hand) ([]string, bool) {
	switch a.Kind {
	case DealerCallClock:
		return []string{"TP-59"}, true
	case DealerKill:
		return []string{a.Kill.Rule()}, true
	case DealerRevive:
		return []string{"TP-60"}, true
	case DealerExposeLive, DealerExposed:
		return []string{"TP-58"}, true
	case DealerMisdeal:
		return []string{"G-32"}, true
	case DealerBoardOverdeal:
		if a.ExtraCards > 1 {
			return []string{"TP-79"}, true
		}
		return []string{"TP-78"}, true
	case DealerAwardPot:
		return []string{"TP-68"}, floor
	case DealerSkip:
		if h != nil && h.Config().Mode != engine.Live {
			return []string{"TP-47"}, true
		}
	}
	return nil, false
}

// withRulings adds to the transaction that persists a change the audit
// records of the rulings its output o made (TP-02): the proposal it
// confirmed or the floor overruled, and its out-of-turn rulings — in the
// name of the console entry being applied, or of the table itself when
// the change was automatic (a timeout of a skipped seat). The caller holds
// t.mu.
func (t *Table) withRulings(ctx context.Context, o dealer.Output, extra func(tx *sqlstore.Tx) error) func(tx *sqlstore.Tx) error {
	rec := t.recorder()
	if p := o.Confirmed; p != nil {
		rules := p.RuleIDs()
		if p.CallFloor && !slices.Contains(rules, "TP-02") {
			rules = append(rules, "TP-02") // the floor decided
		}
		rec.add("confirm:"+p.Kind.String(), p.Seat, rules, citations(p.Ruling.Rules)...)
	}
	if p := o.Overruled; p != nil {
		rec.add("floor_ruling:"+p.Kind.String(), p.Seat, append([]string{"TP-02"}, p.RuleIDs()...), citations(p.Ruling.Rules)...)
	}
	for _, r := range o.OOT {
		a := auditOf(t.id, r, rec.actor, rec.role, strings.Join(append(nonEmpty(rec.given), citations(r.Rules)...), "; "), rec.at)
		rec.audits = append(rec.audits, a)
	}
	return t.withAuditRows(ctx, rec.audits, extra)
}

// withEntry adds the audit record of the console entry being applied when
// the entry is itself a ruling (a kill, a revival, an exposure, a misdeal,
// an overdeal, a called clock, a digital skip, the floor's pot award). The
// caller holds t.mu.
func (t *Table) withEntry(ctx context.Context, extra func(tx *sqlstore.Tx) error) func(tx *sqlstore.Tx) error {
	e := t.console
	if e == nil {
		return extra
	}
	rules, ok := rulingRules(e.args, e.caller.Floor, t.dt.Hand())
	if !ok {
		return extra
	}
	action := dealerNames[e.args.Kind]
	if e.args.Kind == DealerKill {
		action += ":" + e.args.Kill.Rule()
	}
	rec := t.recorder()
	rec.add(action, e.args.Seat, rules)
	return t.withAuditRows(ctx, rec.audits, extra)
}

// auditRecorder builds audit records in the name of the console entry
// being applied, or of the table itself.
type auditRecorder struct {
	table              string
	actor, role, given string
	handNo             int64
	at                 time.Time
	audits             []store.Audit
}

func (t *Table) recorder() *auditRecorder {
	r := &auditRecorder{table: t.id, role: "system", handNo: t.dt.HandNo(), at: t.r.d.Clock.Now()}
	if e := t.console; e != nil {
		r.actor, r.role, r.given, r.handNo = e.caller.Player, e.caller.Role, e.args.Reason, e.handNo
	}
	return r
}

func (r *auditRecorder) add(action string, seat int, rules []string, texts ...string) {
	if r.given != "" {
		texts = append([]string{r.given}, texts...)
	}
	r.audits = append(r.audits, store.Audit{ID: events.NewID(), TableID: r.table, HandNo: r.handNo, Actor: r.actor, Role: r.role,
		Action: action, Seat: seat, Reason: strings.Join(texts, "; "), At: r.at, RuleIDs: rules})
}

// withAuditRows writes audits before extra in the transaction.
func (t *Table) withAuditRows(ctx context.Context, audits []store.Audit, extra func(tx *sqlstore.Tx) error) func(tx *sqlstore.Tx) error {
	if len(audits) == 0 {
		return extra
	}
	return func(tx *sqlstore.Tx) error {
		for _, a := range audits {
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

func citations(cs []live.Citation) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.Rule+": "+c.Text)
	}
	return out
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

func auditOf(table string, r dealer.OOTRuling, actor, role, reason string, at time.Time) store.Audit {
	return store.Audit{ID: events.NewID(), TableID: table, HandNo: r.HandNo, Actor: actor, Role: role, Action: OOTAuditAction(r),
		Seat: r.Seat, Reason: reason, At: at, RuleIDs: r.RuleIDs()}
}
