package table_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	grpcstatus "google.golang.org/grpc/status"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/testkit"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table"
)

// liveTable is a live table with three players (ann, bob, cat in seats
// 0–2, stacks 200; NL 1/2 unless the test asks otherwise), its dealer and
// the floor.
type liveTable struct {
	e       *env
	id      string
	dealer  context.Context
	floor   context.Context
	players []string
}

var liveTables atomic.Int64

func openLive(t *testing.T, e *env, structure gamev1.Structure, cards *tablev1.LiveCards) *liveTable {
	t.Helper()
	stakes := &gamev1.Stakes{SmallBlind: 1, BigBlind: 2}
	if structure == gamev1.Structure_STRUCTURE_FIXED_LIMIT {
		stakes.SmallBet, stakes.BigBet = 2, 4
	}
	resp, err := e.c.CreateTable(e.floor(), &tablev1.CreateTableRequest{Name: "Live", Seats: 6, Kind: tablev1.TableKind_TABLE_KIND_CASH,
		Mode: tablev1.TableMode_TABLE_MODE_LIVE, ActionSeconds: -1, LiveCards: cards,
		Game: &gamev1.Game{Variant: gamev1.Variant_VARIANT_HOLDEM, Structure: structure, Stakes: stakes}})
	if err != nil {
		t.Fatal(err)
	}
	l := &liveTable{e: e, id: resp.GetTable().GetTableId(), dealer: e.g.As(t, "dealer-1", auth.Dealer), floor: e.floor()}
	n := liveTables.Add(1)
	for i, p := range []string{"ann", "bob", "cat"} {
		l.players = append(l.players, fmt.Sprintf("%s-l%d", p, n))
		e.sit(l.id, int32(i), l.players[i], 200)
	}
	// The first hand was dealt heads-up when the second player sat down:
	// fold it, so that the hand in play deals all three in.
	for range 5 {
		st := l.staff()
		if inHand(st) == 3 {
			return l
		}
		l.must(l.dealer, &tablev1.DealerActionRequest{Kind: kAct, Seat: st.GetHand().GetToAct(), Action: aFold})
	}
	t.Fatalf("no three-way hand: %v", l.staff())
	return nil
}

func (l *liveTable) staff() *tablev1.TableState {
	l.e.t.Helper()
	resp, err := l.e.c.GetTableState(l.dealer, &tablev1.GetTableStateRequest{TableId: l.id})
	if err != nil {
		l.e.t.Fatal(err)
	}
	return resp.GetState()
}

func (l *liveTable) enter(ctx context.Context, r *tablev1.DealerActionRequest) (*tablev1.DealerActionResponse, error) {
	r.TableId = l.id
	return l.e.c.DealerAction(ctx, r)
}

func (l *liveTable) must(ctx context.Context, r *tablev1.DealerActionRequest) *tablev1.DealerActionResponse {
	l.e.t.Helper()
	resp, err := l.enter(ctx, r)
	if err != nil {
		l.e.t.Fatalf("%v: %v", r, err)
	}
	return resp
}

// act enters the action of the seat in turn.
func (l *liveTable) act(action tablev1.ActionKind, amount int64) {
	l.e.t.Helper()
	l.must(l.dealer, &tablev1.DealerActionRequest{Kind: kAct, Seat: l.staff().GetHand().GetToAct(), Action: action, Amount: amount})
}

// checkDown calls or checks the round in progress to its end.
func (l *liveTable) checkDown() {
	l.e.t.Helper()
	st := l.staff()
	street := st.GetHand().GetStreet()
	for st.GetHand().GetStreet() == street && st.GetHand().GetToAct() >= 0 && !st.GetHand().GetDone() {
		kind := tablev1.ActionKind_ACTION_KIND_UNSPECIFIED
		for _, lg := range st.GetHand().GetLegal() {
			switch {
			case lg.GetKind() == aCall:
				kind = aCall
			case lg.GetKind() == aCheck && kind == tablev1.ActionKind_ACTION_KIND_UNSPECIFIED:
				kind = aCheck
			}
		}
		if kind == tablev1.ActionKind_ACTION_KIND_UNSPECIFIED {
			return // the showdown
		}
		l.act(kind, 0)
		st = l.staff()
	}
}

func (l *liveTable) board(cards ...string) {
	l.e.t.Helper()
	l.must(l.dealer, &tablev1.DealerActionRequest{Kind: kBoard, Cards: cards})
}

// refused enters r and wants the refusal's reason and rule, the table
// unchanged.
func (l *liveTable) refused(ctx context.Context, r *tablev1.DealerActionRequest, wantReason, wantRule string) {
	l.e.t.Helper()
	before := l.staff()
	_, err := l.enter(ctx, r)
	if got, rule := reason(err); got != wantReason || rule != wantRule {
		l.e.t.Fatalf("%v: %v, want %s (%s)", r, err, wantReason, wantRule)
	}
	if after := l.staff(); after.String() != before.String() {
		l.e.t.Fatalf("a refused entry changed the table:\n%v\n%v", before, after)
	}
}

// rulings returns the table's audited rulings by action, with their rule
// ids and reasons.
func (l *liveTable) rulings() []*tablev1.Ruling {
	l.e.t.Helper()
	resp, err := l.e.c.ListRulings(l.floor, &tablev1.ListRulingsRequest{TableId: l.id})
	if err != nil {
		l.e.t.Fatal(err)
	}
	return resp.GetRulings()
}

func (l *liveTable) ruling(action string) *tablev1.Ruling {
	l.e.t.Helper()
	for _, r := range l.rulings() {
		if r.GetAction() == action {
			return r
		}
	}
	l.e.t.Fatalf("no ruling %s in %v", action, l.rulings())
	return nil
}

var kConfirm = tablev1.DealerActionKind_DEALER_ACTION_KIND_CONFIRM

// TestLive_PhysicalCards_TP68 plays a hand at a live table, where the
// cards are physical: no player's app shows a hole card (none was
// entered), the street waits for its board cards, impossible cards are
// refused with their reason and rule, the hands tabled at the showdown
// decide the pot (cards speak), and the history holds the cards as they
// were seen: the hand mucked unseen is unknown, in the JSON and the PHH.
func TestLive_PhysicalCards_TP68(t *testing.T) {
	t.Parallel()
	e := start(t, testkit.SQLite(t, table.DBOptions()), clock.NewFake(t0), seededDecks(3), table.Deps{})
	l := openLive(t, e, gamev1.Structure_STRUCTURE_NO_LIMIT, nil)
	for _, p := range l.players {
		for _, s := range e.state(l.id, p).GetSeats() {
			if len(s.GetCards()) > 0 && !hiddenCards(s.GetCards()) {
				t.Fatalf("%s's app shows seat %d's cards %v: no card was entered", p, s.GetSeat(), s.GetCards())
			}
		}
	}
	l.checkDown()
	st := l.staff()
	if a := st.GetHand().GetAwaiting(); a.GetBoard() != 3 || a.GetStreet() != "flop" || st.GetHand().GetToAct() != -1 {
		t.Fatalf("the flop is not awaited: %v", st.GetHand())
	}
	l.refused(l.dealer, &tablev1.DealerActionRequest{Kind: kAct, Seat: 1, Action: aCheck}, "AWAITING_CARDS", "")
	l.refused(l.dealer, &tablev1.DealerActionRequest{Kind: kBoard, Cards: []string{"2c", "3d", "7h", "8c"}}, "WRONG_CARD_COUNT", "TP-78")
	l.refused(l.dealer, &tablev1.DealerActionRequest{Kind: kBoard, Cards: []string{"2c", "3d", "2c"}}, "DUPLICATE_CARD", "G-32")
	l.refused(l.dealer, &tablev1.DealerActionRequest{Kind: kBoard, Cards: []string{"2c", "3d"}}, "WRONG_CARD_COUNT", "")
	if _, err := l.enter(l.dealer, &tablev1.DealerActionRequest{Kind: kBoard, Cards: []string{"2c", "3d", "zz"}}); codeOf(err) != "InvalidArgument" {
		t.Fatalf("a card that is no card: %v", err)
	}
	l.board("2c", "3d", "7h")
	l.checkDown()
	l.refused(l.dealer, &tablev1.DealerActionRequest{Kind: kBoard, Cards: []string{"7h"}}, "DUPLICATE_CARD", "G-32")
	l.board("8c")
	l.checkDown()
	l.board("Js")
	l.checkDown()
	st = l.staff()
	first := st.GetHand().GetToAct()
	show := func(seat int32, cards ...string) *tablev1.DealerActionRequest {
		return &tablev1.DealerActionRequest{Kind: kAct, Seat: seat, Action: tablev1.ActionKind_ACTION_KIND_SHOW, Cards: cards}
	}
	l.refused(l.dealer, show(first), "WRONG_CARD_COUNT", "TP-67")
	l.refused(l.dealer, show(first, "As", "2c"), "DUPLICATE_CARD", "TP-68")
	l.refused(l.dealer, show(first, "As", "Ah", "Ad"), "WRONG_CARD_COUNT", "TP-55")
	l.must(l.dealer, show(first, "Qs", "Qh"))
	second := l.staff().GetHand().GetToAct()
	l.must(l.dealer, show(second, "As", "Ah"))
	third := l.staff().GetHand().GetToAct()
	l.must(l.dealer, &tablev1.DealerActionRequest{Kind: kAct, Seat: third, Action: tablev1.ActionKind_ACTION_KIND_MUCK})
	// The aces entered at the table win: 6 chips of pot.
	h := history(t, e, l.id, 2)
	for _, s := range h.Seats {
		want := map[int32][]string{first: {"Qs", "Qh"}, second: {"As", "Ah"}, third: {"??", "??"}}[s.GetSeat()]
		if !slices.Equal(s.GetCards(), want) {
			t.Fatalf("history seat %d holds %v, want %v", s.Seat, s.Cards, want)
		}
	}
	if len(h.Pots) != 1 || len(h.Pots[0].Winners) != 1 || h.Pots[0].Winners[0].Seat != second {
		t.Fatalf("pots %+v: the tabled aces of seat %d win", h.Pots, second)
	}
	ph, err := e.c.GetHandHistory(e.floor(), &tablev1.GetHandHistoryRequest{TableId: l.id, HandNo: 2, Format: tablev1.HistoryFormat_HISTORY_FORMAT_PHH})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"AsAh", "QsQh", "????", "d db 2c3d7h"} {
		if !strings.Contains(ph.GetContent(), want) {
			t.Fatalf("PHH lacks %q:\n%s", want, ph.GetContent())
		}
	}
}

// history reads a hand's history as the floor: typed (issue 17).
func history(t *testing.T, e *env, id string, no int64) *tablev1.HandHistory {
	t.Helper()
	resp, err := e.c.GetHandHistory(e.floor(), &tablev1.GetHandHistoryRequest{TableId: id, HandNo: no})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetHistory().GetHandNo() != no || resp.GetContent() != "" {
		t.Fatalf("hand %d's JSON history: %v", no, resp)
	}
	return resp.GetHistory()
}

func hiddenCards(cs []string) bool {
	for _, c := range cs {
		if c != "??" {
			return false
		}
	}
	return true
}

// TestLive_HoleCardEntry: where the house enters each seat's hole cards
// (a shuffler or RFID feed uses the same entry), the seat's player — and
// no one else — sees them.
func TestLive_HoleCardEntry(t *testing.T) {
	t.Parallel()
	e := start(t, testkit.SQLite(t, table.DBOptions()), clock.NewFake(t0), seededDecks(4), table.Deps{})
	off := openLive(t, e, gamev1.Structure_STRUCTURE_NO_LIMIT, nil)
	off.refused(off.dealer, &tablev1.DealerActionRequest{Kind: tablev1.DealerActionKind_DEALER_ACTION_KIND_SEAT_CARDS, Seat: 0,
		Cards: []string{"As", "Ah"}}, "CARDS_NOT_EXPECTED", "")
	l := openLive(t, e, gamev1.Structure_STRUCTURE_NO_LIMIT, &tablev1.LiveCards{HoleCardEntry: true})
	l.must(l.dealer, &tablev1.DealerActionRequest{Kind: tablev1.DealerActionKind_DEALER_ACTION_KIND_SEAT_CARDS, Seat: 0, Cards: []string{"As", "Ah"}})
	l.refused(l.dealer, &tablev1.DealerActionRequest{Kind: tablev1.DealerActionKind_DEALER_ACTION_KIND_SEAT_CARDS, Seat: 1,
		Cards: []string{"As", "Kd"}}, "DUPLICATE_CARD", "")
	if own := e.state(l.id, l.players[0]).GetSeats()[0].GetCards(); !slices.Equal(own, []string{"As", "Ah"}) {
		t.Fatalf("ann sees her own cards as %v", own)
	}
	if other := e.state(l.id, l.players[1]).GetSeats()[0].GetCards(); !hiddenCards(other) {
		t.Fatalf("bob sees ann's cards %v", other)
	}
	if staff := l.staff().GetSeats()[0].GetCards(); !hiddenCards(staff) {
		t.Fatalf("the dealer's console sees ann's cards %v", staff)
	}
}

// TestLive_Proposals_TP38_G13_TP42: an interpretation is a recorded
// proposal with an id that binds the next entry for its seat. A string bet
// (TP-38, G-15) calls the floor: the dealer cannot confirm it, nor enter
// another action instead; the floor confirms it with a reason, and the
// confirmation is audited with the rules. "pot" at no-limit (TP-42) locks a
// bet or raise whose size must be stated. The seat in turn's legal actions,
// with amounts, are on the console's state; a digital table refuses the
// interpretation.
func TestLive_Proposals_TP38_G13_TP42(t *testing.T) {
	t.Parallel()
	e := start(t, testkit.SQLite(t, table.DBOptions()), clock.NewFake(t0), seededDecks(5), table.Deps{})
	l := openLive(t, e, gamev1.Structure_STRUCTURE_NO_LIMIT, nil)
	st := l.staff()
	seat := st.GetHand().GetToAct()
	var call *tablev1.LegalAction
	for _, lg := range st.GetHand().GetLegal() {
		if lg.GetKind() == aCall {
			call = lg
		}
	}
	if call == nil || call.GetMin() != 2 || call.GetSeat() != seat {
		t.Fatalf("the console does not see the seat in turn's legal actions: %v", st.GetHand().GetLegal())
	}
	if mine := e.state(l.id, l.players[(seat+1)%3]).GetHand().GetLegal(); len(mine) != 0 {
		t.Fatalf("a player not in turn sees legal actions %v", mine)
	}
	// A string bet: chips in two motions with no declaration.
	ru, err := e.c.InterpretEntry(l.dealer, &tablev1.InterpretEntryRequest{TableId: l.id, ChipsTotal: 10, ChipCount: 2, LargestChip: 5, Motions: 2})
	if err != nil {
		t.Fatal(err)
	}
	if ru.GetProposalId() == "" || !ru.GetCallFloor() || ru.GetAction() != aCall || ru.GetSequence() != st.GetSequence()+1 {
		t.Fatalf("string bet proposal: %v", ru)
	}
	if p := l.staff().GetHand().GetProposal(); p.GetProposalId() != ru.GetProposalId() || !p.GetCallFloor() {
		t.Fatalf("the standing proposal on the console: %v", p)
	}
	l.refused(l.dealer, &tablev1.DealerActionRequest{Kind: kConfirm, ProposalId: ru.GetProposalId()}, "FLOOR_ONLY", "TP-38")
	l.refused(l.dealer, &tablev1.DealerActionRequest{Kind: kAct, Seat: seat, Action: aRaise, Amount: 10}, "FLOOR_ONLY", "TP-38")
	l.refused(l.floor, &tablev1.DealerActionRequest{Kind: kConfirm, ProposalId: ru.GetProposalId()}, "RULING_REASON_REQUIRED", "TP-38")
	l.refused(l.floor, &tablev1.DealerActionRequest{Kind: kConfirm, ProposalId: "nope", Reason: "x"}, "PROPOSAL_NOT_FOUND", "")
	l.must(l.floor, &tablev1.DealerActionRequest{Kind: kConfirm, ProposalId: ru.GetProposalId(), Reason: "first motion counts"})
	if s := l.staff().GetSeats()[seat]; s.GetBet() != 2 {
		t.Fatalf("the confirmed call: %v", s)
	}
	r := l.ruling("confirm:call")
	if !slices.Equal(r.GetRuleIds(), []string{"TP-38", "G-15", "TP-02"}) || !strings.HasPrefix(r.GetReason(), "first motion counts") || r.GetRole() != "floor" {
		t.Fatalf("the floor's confirmation audited as %v", r)
	}
	// TP-42: "pot" at no-limit locks a raise; its size must be stated.
	seat = l.staff().GetHand().GetToAct()
	ru, err = e.c.InterpretEntry(l.dealer, &tablev1.InterpretEntryRequest{TableId: l.id, Declaration: tablev1.Declaration_DECLARATION_POT,
		DeclaredBeforeChips: true})
	if err != nil || !ru.GetAwaitAmount() {
		t.Fatalf("pot at no-limit: %v %v", ru, err)
	}
	l.refused(l.dealer, &tablev1.DealerActionRequest{Kind: kConfirm, ProposalId: ru.GetProposalId()}, "AMOUNT_REQUIRED", "TP-42")
	l.refused(l.dealer, &tablev1.DealerActionRequest{Kind: kAct, Seat: seat, Action: aCall}, "AMOUNT_REQUIRED", "TP-42")
	l.must(l.dealer, &tablev1.DealerActionRequest{Kind: kAct, Seat: seat, Action: aRaise, Amount: 8})
	if r := l.ruling("confirm:raise"); !slices.Contains(r.GetRuleIds(), "TP-42") {
		t.Fatalf("the locked raise audited as %v", r)
	}
	// A plain proposal binds the dealer to it: the same action confirms.
	seat = l.staff().GetHand().GetToAct()
	ru, err = e.c.InterpretEntry(l.dealer, &tablev1.InterpretEntryRequest{TableId: l.id, ChipsTotal: 25, ChipCount: 1, LargestChip: 25})
	if err != nil || ru.GetAction() != aCall || ru.GetCallFloor() {
		t.Fatalf("TP-34 single chip facing a raise: %v %v", ru, err)
	}
	l.refused(l.dealer, &tablev1.DealerActionRequest{Kind: kAct, Seat: seat, Action: aFold}, "PROPOSAL_PENDING", "TP-34")
	l.must(l.dealer, &tablev1.DealerActionRequest{Kind: kAct, Seat: seat, Action: aCall})
	// A digital table takes exact actions: no interpretation.
	if _, err := e.c.InterpretEntry(l.dealer, &tablev1.InterpretEntryRequest{TableId: e.open(6, -1), ChipsTotal: 2, ChipCount: 1}); reasonOf(err) != "NOT_LIVE_TABLE" {
		t.Fatalf("a digital table interpreted an entry: %v", err)
	}
	// A player cannot act from the app at a live table.
	if _, err := e.c.Act(e.player(l.players[0]), &tablev1.ActRequest{TableId: l.id, Kind: aCall}); reasonOf(err) != "LIVE_TABLE" {
		t.Fatalf("a player acted from the app at a live table: %v", err)
	}
}

// TestLive_InterpretOutOfTurnPush_TP50: chips pushed out of turn are
// interpreted for the seat that pushed them; confirming enters the
// out-of-turn action, held under TP-50.
func TestLive_InterpretOutOfTurnPush_TP50(t *testing.T) {
	t.Parallel()
	e := start(t, testkit.SQLite(t, table.DBOptions()), clock.NewFake(t0), seededDecks(6), table.Deps{})
	o := openOOT(t, e, tablev1.TableKind_TABLE_KIND_CASH, tablev1.TableMode_TABLE_MODE_LIVE)
	o.run([]step{{'A', kAct, aBet, 20, nil}})
	c := o.seat['C']
	ru, err := e.c.InterpretEntry(o.dealer, &tablev1.InterpretEntryRequest{TableId: o.id, Seat: &c, ChipsTotal: 100, ChipCount: 1, LargestChip: 100})
	if err != nil || !ru.GetOutOfTurn() || ru.GetSeat() != c || ru.GetAction() != aCall || ru.GetAmount() != 20 {
		t.Fatalf("TP-34 oversized chip out of turn: %v %v", ru, err)
	}
	resp, err := e.c.DealerAction(o.dealer, &tablev1.DealerActionRequest{TableId: o.id, Kind: kConfirm, ProposalId: ru.GetProposalId()})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.GetOutOfTurn(); len(got) != 1 || got[0].GetOutcome() != "pending" || got[0].GetSeat() != c {
		t.Fatalf("the confirmed out-of-turn call is not held (TP-50): %v", got)
	}
	if held := o.staff().GetHand().GetProvisionalWagers(); len(held) != 1 || held[0].GetSeat() != c || held[0].GetAmount() != 20 {
		t.Fatalf("held wagers %v", held)
	}
	if r := (&liveTable{e: e, id: o.id, floor: e.floor()}).ruling("confirm:call"); !slices.Contains(r.GetRuleIds(), "TP-34") {
		t.Fatalf("the confirmation audited as %v", r)
	}
}

func codeOf(err error) string { return grpcstatus.Code(err).String() }

func reasonOf(err error) string {
	r, _ := reason(err)
	return r
}

// TestLive_PotStatedOnlyAtPotLimit_TP43: at a live table the pot total is
// on the players' (and spectators') states only in pot-limit; the dealer's
// console always has it.
func TestLive_PotStatedOnlyAtPotLimit_TP43(t *testing.T) {
	t.Parallel()
	e := start(t, testkit.SQLite(t, table.DBOptions()), clock.NewFake(t0), seededDecks(8), table.Deps{})
	for _, c := range []struct {
		name      string
		structure gamev1.Structure
		shown     bool
	}{
		{"TP-43 no-limit: spread, not stated", gamev1.Structure_STRUCTURE_NO_LIMIT, false},
		{"TP-43 fixed limit: spread, not stated", gamev1.Structure_STRUCTURE_FIXED_LIMIT, false},
		{"TP-43 pot-limit: stated", gamev1.Structure_STRUCTURE_POT_LIMIT, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.t = t
			l := openLive(t, e, c.structure, nil)
			if pot := l.staff().GetHand().GetPot(); pot != 3 {
				t.Fatalf("the console's pot %d, want the blinds' 3", pot)
			}
			for _, who := range append(slices.Clone(l.players), "rail-"+l.id) {
				if pot := e.state(l.id, who).GetHand().GetPot(); (pot == 3) != c.shown || (!c.shown && pot != 0) {
					t.Fatalf("%s's state shows the pot as %d", who, pot)
				}
			}
		})
	}
}

// TestLive_ExposedCards_TP58: the dealer marks the exposure with the
// exposed card; the hand's decisions wait for the floor, who alone rules it
// dead or live without the right to bet or raise, with a reason; every step
// is audited under TP-58.
func TestLive_ExposedCards_TP58(t *testing.T) {
	t.Parallel()
	e := start(t, testkit.SQLite(t, table.DBOptions()), clock.NewFake(t0), seededDecks(9), table.Deps{})
	kExposed := tablev1.DealerActionKind_DEALER_ACTION_KIND_EXPOSED
	kLive := tablev1.DealerActionKind_DEALER_ACTION_KIND_EXPOSE_LIVE
	kKill := tablev1.DealerActionKind_DEALER_ACTION_KIND_KILL
	for _, ruling := range []string{"live", "dead"} {
		t.Run("TP-58 ruled "+ruling, func(t *testing.T) {
			e.t = t
			l := openLive(t, e, gamev1.Structure_STRUCTURE_NO_LIMIT, nil)
			seat := l.staff().GetHand().GetToAct()
			l.must(l.dealer, &tablev1.DealerActionRequest{Kind: kExposed, Seat: seat, Cards: []string{"Ks"}})
			st := l.staff()
			if !slices.Equal(st.GetHand().GetExposurePending(), []int32{seat}) || len(st.GetHand().GetLegal()) != 0 {
				t.Fatalf("exposure not pending the floor: %v", st.GetHand())
			}
			if c := e.state(l.id, l.players[(seat+1)%3]).GetSeats()[seat].GetCards(); !slices.Equal(c, []string{"Ks", "??"}) {
				t.Fatalf("the exposed card as the table sees it: %v", c)
			}
			l.refused(l.dealer, &tablev1.DealerActionRequest{Kind: kAct, Seat: seat, Action: aCall}, "FLOOR_DECISION_PENDING", "TP-58")
			l.refused(l.dealer, &tablev1.DealerActionRequest{Kind: kKill, Seat: seat, KillReason: tablev1.KillReason_KILL_REASON_EXPOSED}, "FLOOR_ONLY", "TP-58")
			l.refused(l.dealer, &tablev1.DealerActionRequest{Kind: kLive, Seat: seat}, "FLOOR_ONLY", "TP-58")
			l.refused(l.floor, &tablev1.DealerActionRequest{Kind: kLive, Seat: seat}, "RULING_REASON_REQUIRED", "TP-58")
			if ruling == "live" {
				l.must(l.floor, &tablev1.DealerActionRequest{Kind: kLive, Seat: seat, Reason: "flashed by accident"})
				l.refused(l.dealer, &tablev1.DealerActionRequest{Kind: kAct, Seat: seat, Action: aRaise, Amount: 10}, "NO_BET_OR_RAISE_ALLOWED", "TP-58")
				l.must(l.dealer, &tablev1.DealerActionRequest{Kind: kAct, Seat: seat, Action: aCall})
			} else {
				l.must(l.floor, &tablev1.DealerActionRequest{Kind: kKill, Seat: seat, KillReason: tablev1.KillReason_KILL_REASON_EXPOSED,
					Reason: "shown on purpose"})
				if !l.staff().GetSeats()[seat].GetFolded() {
					t.Fatal("the hand ruled dead is still in")
				}
			}
			want := map[string]string{"exposed": "", "expose_live": "flashed by accident", "kill:TP-58": "shown on purpose"}
			for _, r := range l.rulings() {
				if reason, ok := want[r.GetAction()]; ok {
					if !slices.Equal(r.GetRuleIds(), []string{"TP-58"}) || reason != "" && !strings.HasPrefix(r.GetReason(), reason) {
						t.Fatalf("ruling %v", r)
					}
					delete(want, r.GetAction())
				}
			}
			if len(want) != 1 {
				t.Fatalf("rulings not audited: %v (all %v)", want, l.rulings())
			}
		})
	}
}

// TestLive_FloorRulingsNameTheirRules_TP02_TP60: the floor revives a
// released hand only with a reason (TP-60); the revival and a called clock
// are audited with their rules (TP-60, TP-59).
func TestLive_FloorRulingsNameTheirRules_TP02_TP60(t *testing.T) {
	t.Parallel()
	e := start(t, testkit.SQLite(t, table.DBOptions()), clock.NewFake(t0), seededDecks(10), table.Deps{})
	l := openLive(t, e, gamev1.Structure_STRUCTURE_NO_LIMIT, nil)
	seat := l.staff().GetHand().GetToAct()
	l.act(aFold, 0)
	kRevive := tablev1.DealerActionKind_DEALER_ACTION_KIND_REVIVE
	l.refused(l.dealer, &tablev1.DealerActionRequest{Kind: kRevive, Seat: seat, Reason: "cards not in the muck"}, "FLOOR_ONLY", "TP-60")
	l.refused(l.floor, &tablev1.DealerActionRequest{Kind: kRevive, Seat: seat}, "RULING_REASON_REQUIRED", "TP-60")
	l.must(l.floor, &tablev1.DealerActionRequest{Kind: kRevive, Seat: seat, Reason: "cards not in the muck"})
	l.must(l.dealer, &tablev1.DealerActionRequest{Kind: tablev1.DealerActionKind_DEALER_ACTION_KIND_CALL_CLOCK})
	for action, rules := range map[string][]string{"revive": {"TP-60"}, "call_clock": {"TP-59"}} {
		if r := l.ruling(action); !slices.Equal(r.GetRuleIds(), rules) {
			t.Fatalf("%s audited with rules %v, want %v", action, r.GetRuleIds(), rules)
		}
	}
	if r := l.ruling("revive"); r.GetReason() != "cards not in the muck" || r.GetRole() != "floor" {
		t.Fatalf("revival audited as %v", r)
	}
}

// TestLive_Misdeal_G32: the dealer declares a misdeal before substantial
// action: every chip goes back and the hand is dealt again with the same
// button. After substantial action only the floor may, with a reason.
func TestLive_Misdeal_G32(t *testing.T) {
	t.Parallel()
	e := start(t, testkit.SQLite(t, table.DBOptions()), clock.NewFake(t0), seededDecks(11), table.Deps{})
	l := openLive(t, e, gamev1.Structure_STRUCTURE_NO_LIMIT, nil)
	kMisdeal := tablev1.DealerActionKind_DEALER_ACTION_KIND_MISDEAL
	before := l.staff()
	stacks := map[int32]int64{}
	for _, s := range before.GetSeats() {
		stacks[s.GetSeat()] = s.GetStack() + s.GetBet()
	}
	l.act(aCall, 0)
	l.must(l.dealer, &tablev1.DealerActionRequest{Kind: kMisdeal})
	after := l.staff()
	if after.GetHand().GetHandNo() != before.GetHand().GetHandNo()+1 || after.GetHand().GetButton() != before.GetHand().GetButton() {
		t.Fatalf("the misdealt hand is not dealt again with the same button: %v → %v", before.GetHand(), after.GetHand())
	}
	for _, s := range after.GetSeats() {
		if s.GetStack()+s.GetBet() != stacks[s.GetSeat()] {
			t.Fatalf("seat %d has %d after the misdeal, %d before", s.GetSeat(), s.GetStack()+s.GetBet(), stacks[s.GetSeat()])
		}
	}
	if r := l.ruling("misdeal"); !slices.Equal(r.GetRuleIds(), []string{"G-32"}) {
		t.Fatalf("misdeal audited as %v", r)
	}
	l.act(aCall, 0)
	l.act(aCall, 0)
	l.refused(l.dealer, &tablev1.DealerActionRequest{Kind: kMisdeal}, "FLOOR_ONLY", "G-32")
	l.refused(l.floor, &tablev1.DealerActionRequest{Kind: kMisdeal}, "RULING_REASON_REQUIRED", "G-32")
	l.must(l.floor, &tablev1.DealerActionRequest{Kind: kMisdeal, Reason: "a card flashed in the deal"})
}

// TestLive_WinnerEntry: where the house allows it, the dealer enters the
// winner of the pot instead of the tabled cards; the floor confirms the
// award (a proposal only the floor confirms), and the hand's cards stay
// unknown.
func TestLive_WinnerEntry(t *testing.T) {
	t.Parallel()
	e := start(t, testkit.SQLite(t, table.DBOptions()), clock.NewFake(t0), seededDecks(12), table.Deps{})
	l := openLive(t, e, gamev1.Structure_STRUCTURE_NO_LIMIT, &tablev1.LiveCards{WinnerEntry: true})
	l.checkDown()
	for _, street := range [][]string{{"2c", "3d", "7h"}, {"8c"}, {"Js"}} {
		l.board(street...)
		l.checkDown()
	}
	st := l.staff()
	pots := st.GetHand().GetPotsToAward()
	if len(pots) != 1 || pots[0].GetAmount() != 6 || len(pots[0].GetEligibleSeats()) != 3 {
		t.Fatalf("pots to award %v", pots)
	}
	kAward := tablev1.DealerActionKind_DEALER_ACTION_KIND_AWARD_POT
	l.refused(l.dealer, &tablev1.DealerActionRequest{Kind: kAward, Winners: []int32{4}}, "NOT_ELIGIBLE_FOR_POT", "TP-44")
	resp := l.must(l.dealer, &tablev1.DealerActionRequest{Kind: kAward, Winners: []int32{1}})
	p := resp.GetProposal()
	if p.GetProposalId() == "" || !p.GetCallFloor() || !slices.Equal(p.GetWinners(), []int32{1}) {
		t.Fatalf("award proposal %v", p)
	}
	l.refused(l.dealer, &tablev1.DealerActionRequest{Kind: kConfirm, ProposalId: p.GetProposalId()}, "FLOOR_ONLY", "TP-68")
	l.must(l.floor, &tablev1.DealerActionRequest{Kind: kConfirm, ProposalId: p.GetProposalId(), Reason: "seat 1's flush read at the table"})
	h := history(t, e, l.id, 2)
	if len(h.Pots) != 1 || len(h.Pots[0].Winners) != 1 || h.Pots[0].Winners[0].Seat != 1 {
		t.Fatalf("pots %+v", h.Pots)
	}
	for _, s := range h.Seats {
		if !hiddenCards(s.Cards) {
			t.Fatalf("seat %d's cards %v: none was entered", s.Seat, s.Cards)
		}
	}
	if r := l.ruling("confirm:award_pot"); !slices.Equal(r.GetRuleIds(), []string{"TP-68", "TP-02"}) {
		t.Fatalf("award audited as %v", r)
	}
}
