package table_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table"
)

const kSkip = tablev1.DealerActionKind_DEALER_ACTION_KIND_SKIP

// TestSkip_TP46_TP47_TP48 enters SKIP at a live cash table (four-way flop,
// A first to act): the table rules on it from the out-of-turn entries made
// during the skipped seat's turn, not on the dealer's say-so. Fewer than
// two seats acted: refused, the seat acts now (TP-46), nothing changes.
// Two acted: checked, or folded facing a bet (TP-47). The next round's
// cards out first: a floor decision (TP-48, G-10), the floor's alone. At a
// digital table SKIP applies as entered, as before.
func TestSkip_TP46_TP47_TP48(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		digital bool
		before  []step // up to the SKIP entry
		restart bool   // the process is replaced after the first entry of before
		skip    byte   // the skipped seat
		dealt   bool   // next_street_dealt
		cards   []string
		byFloor bool
		// noReason: the entry gives no reason
		noReason bool
		// refusal (empty: accepted)
		reason, rule string
		// accepted: the ruling, the skipped seat folded or not, the
		// street and who is to act after it
		outcome string
		rules   []string
		folded  bool
		street  string
		toAct   byte
	}{
		{name: "TP-46 nobody acted after the skipped seat: refused", skip: 'A', reason: "ACTION_NOT_ALLOWED", rule: "TP-46"},
		{name: "TP-46 one seat acted after it out of turn: refused", before: []step{{'C', kOOT, aCheck, 0, nil}}, skip: 'A',
			reason: "ACTION_NOT_ALLOWED", rule: "TP-46"},
		{name: "TP-46 one held wager after it: refused", before: []step{{'A', kAct, aBet, 100, nil}, {'C', kOOT, aCall, 0, nil}}, skip: 'B',
			reason: "ACTION_NOT_ALLOWED", rule: "TP-46"},
		{name: "TP-46 acts out of turn before its turn do not count", before: []step{{'C', kOOT, aCheck, 0, nil}, {'D', kOOT, aCheck, 0, nil},
			{'A', kAct, aBet, 100, nil}}, skip: 'B', reason: "ACTION_NOT_ALLOWED", rule: "TP-46"},
		{name: "TP-47 two checked out of turn, no bet: deemed checked", before: []step{{'C', kOOT, aCheck, 0, nil}, {'D', kOOT, aCheck, 0, nil}},
			skip: 'A', outcome: "deemed_checked", rules: []string{"TP-47"}, street: "flop", toAct: 'B'},
		{name: "TP-47 two acted out of turn across a restart: deemed checked", before: []step{{'C', kOOT, aCheck, 0, nil}, {'D', kOOT, aCheck, 0, nil}},
			restart: true, skip: 'A', outcome: "deemed_checked", rules: []string{"TP-47"}, street: "flop", toAct: 'B'},
		{name: "TP-47 facing a bet, a held call and a fold after it: deemed folded",
			before: []step{{'A', kAct, aBet, 100, nil}, {'C', kOOT, aCall, 0, nil}, {'D', kOOT, aFold, 0, nil}},
			skip:   'B', outcome: "deemed_folded", rules: []string{"TP-47"}, folded: true, street: "turn"},
		{name: "TP-48 next street dealt: the dealer may not record it", skip: 'A', dealt: true, reason: "FLOOR_ONLY", rule: "TP-48"},
		{name: "TP-48 next street dealt: the floor records it", skip: 'A', dealt: true, byFloor: true,
			outcome: "floor_decision", rules: []string{"TP-48", "G-10"}, street: "flop", toAct: 'B'},
		{name: "TP-48 the floor records its decision with a reason", skip: 'A', dealt: true, byFloor: true, noReason: true,
			reason: "RULING_REASON_REQUIRED", rule: "TP-48"},
		{name: "TP-48 G-10 the floor records the turn dealt too early, with the card", skip: 'A', dealt: true, byFloor: true, cards: []string{"Kc"},
			outcome: "floor_decision", rules: []string{"TP-48", "G-10"}, street: "flop", toAct: 'B'},
		{name: "G-10 cards dealt too early go with the floor's decision only", before: []step{{'C', kOOT, aCheck, 0, nil}, {'D', kOOT, aCheck, 0, nil}},
			skip: 'A', dealt: true, cards: []string{"Kc"}, reason: "CARDS_NOT_EXPECTED", rule: "G-10"},
		{name: "TP-48 on the river no round follows: refused",
			before: []step{{'A', kAct, aCheck, 0, nil}, {'B', kAct, aCheck, 0, nil}, {'C', kAct, aCheck, 0, nil}, {'D', kAct, aCheck, 0, nil}, boardStep("Jd"),
				{'A', kAct, aCheck, 0, nil}, {'B', kAct, aCheck, 0, nil}, {'C', kAct, aCheck, 0, nil}, {'D', kAct, aCheck, 0, nil}, boardStep("Qd")},
			skip: 'A', dealt: true, byFloor: true, reason: "ACTION_NOT_ALLOWED", rule: "TP-48"},
		{name: "TP-47 two acted and next street dealt: TP-47 governs", before: []step{{'C', kOOT, aCheck, 0, nil}, {'D', kOOT, aCheck, 0, nil}},
			skip: 'A', dealt: true, outcome: "deemed_checked", rules: []string{"TP-47"}, street: "flop", toAct: 'B'},
		{name: "digital table: SKIP applies as entered", digital: true, skip: 'A', street: "flop", toAct: 'B'},
	}
	testkit.EachStore(t, table.DBOptions(), func(t *testing.T, db *sqlstore.DB) {
		clk, decks := clock.NewFake(t0), seededDecks(55)
		e := start(t, db, clk, decks, table.Deps{})
		storeT := t // a restarted process lives as long as the store's test
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				e.t = t
				mode := tablev1.TableMode_TABLE_MODE_LIVE
				if tc.digital {
					mode = tablev1.TableMode_TABLE_MODE_DIGITAL
				}
				o := openOOT(t, e, tablev1.TableKind_TABLE_KIND_CASH, mode)
				for i, s := range tc.before {
					o.run([]step{s})
					if tc.restart && i == 0 {
						// What acted out of turn during the turn is stored
						// with the hand.
						e = start(storeT, db, clk, decks, table.Deps{})
						e.t = t
						o.e = e
						o.dealer = e.g.As(t, "dealer-1", auth.Dealer)
					}
				}
				who := o.seat[tc.skip]
				before := o.staff()
				if before.GetHand().GetToAct() != who {
					t.Fatalf("seat %c is not in turn: %v", tc.skip, before.GetHand())
				}
				ctx := o.dealer
				if tc.byFloor {
					ctx = o.e.floor()
				}
				why := "seat passed over"
				if tc.noReason {
					why = ""
				}
				resp, err := o.e.c.DealerAction(ctx, &tablev1.DealerActionRequest{TableId: o.id, Kind: kSkip, Seat: who,
					NextStreetDealt: tc.dealt, Reason: why, Cards: tc.cards})
				if tc.reason != "" {
					if r, rule := reason(err); r != tc.reason || rule != tc.rule {
						t.Fatalf("SKIP: %v, want %s (%s)", err, tc.reason, tc.rule)
					}
					if after := o.staff(); after.String() != before.String() {
						t.Fatalf("a refused SKIP changed the table:\n%v\n%v", before, after)
					}
					if a := o.skipAudits(); len(a) != 0 {
						t.Fatalf("a refused SKIP was audited: %v", a)
					}
					return
				}
				if err != nil {
					t.Fatalf("SKIP: %v", err)
				}
				var got *tablev1.OutOfTurnRuling
				for _, r := range resp.GetOutOfTurn() {
					if r.GetSeat() == who && (strings.HasPrefix(r.GetOutcome(), "deemed_") || r.GetOutcome() == "floor_decision") {
						got = r
					}
				}
				st := o.staff()
				s := st.GetSeats()[who]
				if s.GetFolded() != tc.folded || st.GetHand().GetStreet() != tc.street ||
					(tc.toAct != 0 && st.GetHand().GetToAct() != o.seat[tc.toAct]) {
					t.Fatalf("after the SKIP: seat %d folded %v (want %v), street %s (want %s), to act %d (want seat %c)",
						who, s.GetFolded(), tc.folded, st.GetHand().GetStreet(), tc.street, st.GetHand().GetToAct(), tc.toAct)
				}
				audits := o.skipAudits()
				if tc.digital {
					if got != nil || !slices.Equal(audits, []string{"skip"}) {
						t.Fatalf("digital SKIP: ruling %v, audits %v", got, audits)
					}
					return
				}
				if got == nil || got.GetOutcome() != tc.outcome || !slices.Equal(ruleIDs(got.GetRules()), tc.rules) {
					t.Fatalf("SKIP ruling %v, want %s %v (all: %v)", got, tc.outcome, tc.rules, resp.GetOutOfTurn())
				}
				want := "skip:" + tc.outcome + ":" + strings.Join(tc.rules, ",")
				if ids := o.auditedOOT()[want]; !slices.Equal(audits, []string{want}) || !slices.Equal(ids, tc.rules) {
					t.Fatalf("SKIP ruling not audited as %s with rule ids %v: %v", want, tc.rules, o.auditedOOT())
				}
			})
		}
	})
}

// skipAudits returns the audit actions of SKIP entries ("skip…").
func (o *ootTable) skipAudits() []string {
	o.e.t.Helper()
	resp, err := o.e.c.ListRulings(o.e.floor(), &tablev1.ListRulingsRequest{TableId: o.id})
	if err != nil {
		o.e.t.Fatal(err)
	}
	var out []string
	for _, r := range resp.GetRulings() {
		if strings.HasPrefix(r.GetAction(), "skip") {
			out = append(out, r.GetAction())
		}
	}
	return out
}
