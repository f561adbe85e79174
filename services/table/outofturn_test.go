package table_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table"
)

const (
	kAct = tablev1.DealerActionKind_DEALER_ACTION_KIND_PLAYER_ACTION
	kOOT = tablev1.DealerActionKind_DEALER_ACTION_KIND_OUT_OF_TURN

	aFold  = tablev1.ActionKind_ACTION_KIND_FOLD
	aCheck = tablev1.ActionKind_ACTION_KIND_CHECK
	aCall  = tablev1.ActionKind_ACTION_KIND_CALL
	aBet   = tablev1.ActionKind_ACTION_KIND_BET
	aRaise = tablev1.ActionKind_ACTION_KIND_RAISE
)

// ootTable is a live NL 1/2 table with four players, dealt to the flop of a
// hand all four are in: A is the seat first to act on the flop, B, C and
// D follow it in turn.
type ootTable struct {
	e       *env
	id      string
	dealer  context.Context
	seat    map[byte]int32
	stacks  map[int32]int64 // at the start of the flop
	players []string
}

var ootTables atomic.Int64

func openOOT(t *testing.T, e *env, kind tablev1.TableKind, mode tablev1.TableMode) *ootTable {
	t.Helper()
	// Tournament tables are opened and filled by the tournament service.
	n := ootTables.Add(1)
	var players []string
	for _, p := range []string{"ann", "bob", "cat", "dan"} {
		// A player holds one seat in the room (G-21): each table has its own.
		players = append(players, fmt.Sprintf("%s-%d", p, n))
	}
	var id string
	if kind == tablev1.TableKind_TABLE_KIND_TOURNAMENT {
		id = e.openTournament(fmt.Sprintf("oot-%d", n), mode, &gamev1.Stakes{SmallBlind: 1, BigBlind: 2}, players, true, 2000)
	} else {
		resp, err := e.c.CreateTable(e.floor(), &tablev1.CreateTableRequest{Name: "Live NL 1/2", Seats: 6, Kind: kind, Mode: mode, ActionSeconds: -1,
			Game: &gamev1.Game{Variant: gamev1.Variant_VARIANT_HOLDEM, Structure: gamev1.Structure_STRUCTURE_NO_LIMIT, Stakes: &gamev1.Stakes{SmallBlind: 1, BigBlind: 2}}})
		if err != nil {
			t.Fatal(err)
		}
		id = resp.GetTable().GetTableId()
		for i, p := range players {
			if _, err := e.c.Sit(e.floor(), &tablev1.SitRequest{TableId: id, Seat: int32(i), PlayerId: p, Amount: 2000, PostNow: true}); err != nil {
				t.Fatalf("sit %s: %v", p, err)
			}
		}
	}
	o := &ootTable{e: e, id: id, dealer: e.g.As(t, "dealer-1", auth.Dealer), players: players}
	// The first hand was dealt when the second player sat down: fold it
	// out so that the next hand deals all four in.
	for range 20 {
		st := o.staff()
		if inHand(st) == 4 {
			break
		}
		o.must(kAct, st.GetHand().GetToAct(), aFold, 0)
	}
	// Everyone calls (or checks) to the flop.
	for range 10 {
		st := o.staff()
		if st.GetHand().GetStreet() != "preflop" {
			break
		}
		who := playerInTurn(st)
		kind := aCheck
		for _, l := range o.e.state(o.id, who).GetHand().GetLegal() {
			if l.GetKind() == aCall {
				kind = aCall
			}
		}
		o.must(kAct, st.GetHand().GetToAct(), kind, 0)
	}
	if kind := o.staff().GetHand(); mode == tablev1.TableMode_TABLE_MODE_LIVE && kind.GetAwaiting().GetBoard() == 3 {
		// A live table deals physical cards: the dealer enters the flop.
		if _, err := e.c.DealerAction(o.dealer, &tablev1.DealerActionRequest{TableId: o.id, Kind: tablev1.DealerActionKind_DEALER_ACTION_KIND_BOARD_CARDS,
			Cards: []string{"2c", "7d", "9h"}}); err != nil {
			t.Fatalf("flop: %v", err)
		}
	}
	st := o.staff()
	if st.GetHand().GetStreet() != "flop" || inHand(st) != 4 || st.GetHand().GetAwaiting() != nil {
		t.Fatalf("not a four-way flop: %v", st)
	}
	a := st.GetHand().GetToAct()
	o.seat = map[byte]int32{'A': a, 'B': (a + 1) % 4, 'C': (a + 2) % 4, 'D': (a + 3) % 4}
	o.stacks = map[int32]int64{}
	for _, s := range st.GetSeats() {
		o.stacks[s.GetSeat()] = s.GetStack()
	}
	return o
}

func inHand(st *tablev1.TableState) int {
	n := 0
	for _, s := range st.GetSeats() {
		if s.GetInHand() && !s.GetFolded() {
			n++
		}
	}
	return n
}

func (o *ootTable) staff() *tablev1.TableState {
	o.e.t.Helper()
	resp, err := o.e.c.GetTableState(o.dealer, &tablev1.GetTableStateRequest{TableId: o.id})
	if err != nil {
		o.e.t.Fatal(err)
	}
	return resp.GetState()
}

func (o *ootTable) enter(kind tablev1.DealerActionKind, seat int32, action tablev1.ActionKind, amount int64, cards ...string) (*tablev1.DealerActionResponse, error) {
	return o.e.c.DealerAction(o.dealer, &tablev1.DealerActionRequest{TableId: o.id, Kind: kind, Seat: seat, Action: action, Amount: amount, Cards: cards})
}

func (o *ootTable) must(kind tablev1.DealerActionKind, seat int32, action tablev1.ActionKind, amount int64, cards ...string) *tablev1.DealerActionResponse {
	o.e.t.Helper()
	resp, err := o.enter(kind, seat, action, amount, cards...)
	if err != nil {
		o.e.t.Fatalf("%s seat %d %s %d: %v", kind, seat, action, amount, err)
	}
	return resp
}

// step is one console entry by a seat named by letter (the board's cards
// for a BOARD_CARDS entry).
type step struct {
	who    byte
	kind   tablev1.DealerActionKind
	action tablev1.ActionKind
	amount int64
	cards  []string
}

// kBoard enters the street's board cards.
const kBoard = tablev1.DealerActionKind_DEALER_ACTION_KIND_BOARD_CARDS

func boardStep(cards ...string) step { return step{kind: kBoard, cards: cards} }

func (o *ootTable) run(steps []step) []*tablev1.OutOfTurnRuling {
	o.e.t.Helper()
	var out []*tablev1.OutOfTurnRuling
	for _, s := range steps {
		out = append(out, o.must(s.kind, o.seat[s.who], s.action, s.amount, s.cards...).GetOutOfTurn()...)
	}
	return out
}

func ruleIDs(cs []*tablev1.RuleCitation) []string {
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.GetRuleId())
	}
	return ids
}

// auditedOOT returns the out-of-turn rulings in the table's audit log as
// "action" strings with their parsed rule ids.
func (o *ootTable) auditedOOT() map[string][]string {
	o.e.t.Helper()
	resp, err := o.e.c.ListRulings(o.e.floor(), &tablev1.ListRulingsRequest{TableId: o.id})
	if err != nil {
		o.e.t.Fatal(err)
	}
	m := map[string][]string{}
	for _, r := range resp.GetRulings() {
		m[r.GetAction()] = r.GetRuleIds()
	}
	return m
}

// TestOutOfTurn_TP50 runs the seed's examples TP-50/S1…S5 end to end
// through the dealer console of a live cash table: the out-of-turn wager
// is held provisionally (TP-46), shown to viewers, re-ruled as each
// skipped seat acts, and applied when its turn comes (or returned at once
// when a skipped seat bets or raises). Restart runs S1 with the process
// replaced while the wager is held: it is stored with the hand.
func TestOutOfTurn_TP50(t *testing.T) {
	t.Parallel()
	raiseC := step{'C', kOOT, aRaise, 1000, nil}
	betD := step{'D', kOOT, aBet, 500, nil}
	cases := []struct {
		name    string
		before  []step // up to the out-of-turn entry
		oot     step
		skipped string // the skipped seats
		after   []step // the skipped seats' entries
		restart bool
		// outcome of the final ruling, with its scenario and chips
		outcome  string
		scenario string
		returned int64
		wager    int64 // the out-of-turn seat's bet after the ruling
		toAct    byte  // who is in turn after the ruling (0: the round is over)
		options  []tablev1.ActionKind
		then     *step // a free action by the out-of-turn seat
	}{
		{name: "TP-50/S1 B calls: C must call, 800 returned", before: []step{{'A', kAct, aBet, 200, nil}}, oot: raiseC, skipped: "B",
			after: []step{{'B', kAct, aCall, 0, nil}}, outcome: "check_or_call", scenario: "TP-50/S1", returned: 800, wager: 200, toAct: 'D'},
		{name: "TP-50/S1 restart while held", before: []step{{'A', kAct, aBet, 200, nil}}, oot: raiseC, skipped: "B", restart: true,
			after: []step{{'B', kAct, aCall, 0, nil}}, outcome: "check_or_call", scenario: "TP-50/S1", returned: 800, wager: 200, toAct: 'D'},
		{name: "TP-50/S2 B raises: C's 1000 returned, C acts freely", before: []step{{'A', kAct, aBet, 200, nil}}, oot: raiseC, skipped: "B",
			after: []step{{'B', kAct, aRaise, 600, nil}}, outcome: "withdrawn", scenario: "TP-50/S2", returned: 1000, wager: 0, toAct: 'C',
			options: []tablev1.ActionKind{aFold, aCall, aRaise}, then: &step{'C', kAct, aRaise, 1400, nil}},
		{name: "TP-50/S3 B folds: C's 1000 stands", before: []step{{'A', kAct, aBet, 200, nil}}, oot: raiseC, skipped: "B",
			after: []step{{'B', kAct, aFold, 0, nil}}, outcome: "stands", scenario: "TP-50/S3", wager: 1000, toAct: 'D'},
		{name: "TP-50/S4 B and C check: D's 500 returned, D checks", before: []step{{'A', kAct, aCheck, 0, nil}}, oot: betD, skipped: "BC",
			after: []step{{'B', kAct, aCheck, 0, nil}, {'C', kAct, aCheck, 0, nil}}, outcome: "check_or_call", scenario: "TP-50/S4", returned: 500},
		{name: "TP-50/S4 C folds out of turn (TP-51), B checks: D checks", before: []step{{'A', kAct, aCheck, 0, nil}}, oot: betD, skipped: "BC",
			after: []step{{'C', kOOT, aFold, 0, nil}, {'B', kAct, aCheck, 0, nil}}, outcome: "check_or_call", scenario: "TP-50/S4", returned: 500},
		{name: "TP-50/S5 B bets: D's 500 returned at once, D acts freely", before: []step{{'A', kAct, aCheck, 0, nil}}, oot: betD, skipped: "BC",
			after: []step{{'B', kAct, aBet, 100, nil}}, outcome: "withdrawn", scenario: "TP-50/S5", returned: 500, wager: 0, toAct: 'C',
			options: []tablev1.ActionKind{aFold, aCall, aRaise}, then: &step{'C', kAct, aCall, 0, nil}},
	}
	testkit.EachStore(t, table.DBOptions(), func(t *testing.T, db *sqlstore.DB) {
		clk := clock.NewFake(t0)
		decks := seededDecks(50)
		e := start(t, db, clk, decks, table.Deps{})
		storeT := t // a restarted process lives as long as the store's test
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				e.t = t
				o := openOOT(t, e, tablev1.TableKind_TABLE_KIND_CASH, tablev1.TableMode_TABLE_MODE_LIVE)
				o.run(tc.before)
				who := o.seat[tc.oot.who]
				got := o.run([]step{tc.oot})
				if len(got) != 1 || got[0].GetOutcome() != "pending" || !slices.Equal(ruleIDs(got[0].GetRules()), []string{"TP-46", "TP-50"}) {
					t.Fatalf("out-of-turn wager not held provisionally (TP-46, TP-50): %v", got)
				}
				check := func(when string) {
					st := o.staff()
					p := st.GetHand().GetProvisional()
					var skipped []int32
					for _, c := range []byte(tc.skipped) {
						skipped = append(skipped, o.seat[c])
					}
					if p.GetSeat() != who || p.GetAmount() != tc.oot.amount || p.GetAction() != tc.oot.action || !slices.Equal(p.GetSkippedSeats(), skipped) {
						t.Fatalf("%s: provisional wager shown as %v", when, p)
					}
					if s := st.GetSeats()[who]; s.GetBet() != 0 || s.GetStack() != o.stacks[who] {
						t.Fatalf("%s: held chips went into the pot: %v", when, s)
					}
					if st.GetHand().GetToAct() != o.seat['B'] {
						t.Fatalf("%s: the turn left the skipped seat: %d", when, st.GetHand().GetToAct())
					}
					// A player sees it too (no cards in it).
					if o.e.state(o.id, o.players[0]).GetHand().GetProvisional().GetAmount() != tc.oot.amount {
						t.Fatalf("%s: viewers do not see the provisional wager", when)
					}
				}
				check("after the entry")
				if tc.restart {
					// A new process (kill -9 of the old one: its lease is
					// never released) carries on from the stored state.
					e = start(storeT, db, clk, decks, table.Deps{})
					e.t = t
					o.e = e
					o.dealer = e.g.As(t, "dealer-1", auth.Dealer)
					check("after the restart")
				}
				got = o.run(tc.after)
				final := got[len(got)-1]
				if final.GetOutcome() != tc.outcome || final.GetScenario() != tc.scenario || final.GetReturned() != tc.returned ||
					final.GetSeat() != who || !slices.Contains(ruleIDs(final.GetRules()), "TP-50") {
					t.Fatalf("ruling %v, want %s %s returned %d", final, tc.outcome, tc.scenario, tc.returned)
				}
				if !slices.Equal(final.GetOptions(), tc.options) {
					t.Fatalf("options %v, want %v", final.GetOptions(), tc.options)
				}
				// A ruling that applied the action decided it: no options
				// are left (TP-50/S1, S3, S4).
				if want := map[string]bool{"check_or_call": true, "stands": true}[tc.outcome]; want != (final.GetDecided() != tablev1.ActionKind_ACTION_KIND_UNSPECIFIED) {
					t.Fatalf("decided %v for a %s ruling", final.GetDecided(), tc.outcome)
				}
				st := o.staff()
				if st.GetHand().GetProvisional() != nil {
					t.Fatalf("provisional wager still shown after the ruling: %v", st.GetHand().GetProvisional())
				}
				s := st.GetSeats()[who]
				if tc.toAct == 0 {
					if st.GetHand().GetStreet() != "turn" || s.GetStack() != o.stacks[who] {
						t.Fatalf("round not over with the seat checked: %v", st)
					}
				} else if s.GetBet() != tc.wager || s.GetStack() != o.stacks[who]-tc.wager || st.GetHand().GetToAct() != o.seat[tc.toAct] {
					t.Fatalf("seat %d after the ruling: bet %d stack %d (want %d, %d), to act %d (want %d)", who, s.GetBet(), s.GetStack(),
						tc.wager, o.stacks[who]-tc.wager, st.GetHand().GetToAct(), o.seat[tc.toAct])
				}
				if tc.then != nil {
					o.run([]step{*tc.then})
				}
				audited := o.auditedOOT()
				if ids := audited["out_of_turn:pending:TP-46,TP-50"]; !slices.Equal(ids, []string{"TP-46", "TP-50"}) {
					t.Fatalf("entry not audited with its rules: %v", audited)
				}
				if ids := audited["out_of_turn:"+tc.outcome+":TP-50,"+tc.scenario]; !slices.Equal(ids, []string{"TP-50", tc.scenario}) {
					t.Fatalf("ruling not audited with its rules: %v", audited)
				}
			})
		}
	})
}

// TestOutOfTurn_TP49_TP51 enters an out-of-turn check and fold at a live
// cash table: both are applied at once and the turn stays with the skipped
// seat; the checked seat may no longer raise this round (TP-49), the fold
// is binding (TP-51).
func TestOutOfTurn_TP49_TP51(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, table.DBOptions(), func(t *testing.T, db *sqlstore.DB) {
		e := start(t, db, clock.NewFake(t0), seededDecks(51), table.Deps{})
		t.Run("TP-49 check out of turn", func(t *testing.T) {
			e.t = t
			o := openOOT(t, e, tablev1.TableKind_TABLE_KIND_CASH, tablev1.TableMode_TABLE_MODE_LIVE)
			got := o.must(kOOT, o.seat['C'], aCheck, 0).GetOutOfTurn()
			if len(got) != 1 || got[0].GetOutcome() != "checked_no_raise" || !slices.Equal(ruleIDs(got[0].GetRules()), []string{"TP-49"}) {
				t.Fatalf("TP-49 ruling: %v", got)
			}
			if st := o.staff(); st.GetHand().GetToAct() != o.seat['A'] {
				t.Fatalf("the turn left the skipped seat: %v", st.GetHand())
			}
			o.run([]step{{'A', kAct, aBet, 100, nil}, {'B', kAct, aCall, 0, nil}})
			_, err := o.enter(kAct, o.seat['C'], aRaise, 300)
			if _, rule := reason(err); rule != "TP-49" {
				t.Fatalf("C raised after checking out of turn: %v", err)
			}
			o.must(kAct, o.seat['C'], aCall, 0)
			if ids := o.auditedOOT()["out_of_turn:checked_no_raise:TP-49"]; !slices.Equal(ids, []string{"TP-49"}) {
				t.Fatalf("TP-49 ruling not audited: %v", o.auditedOOT())
			}
		})
		t.Run("TP-51 fold out of turn", func(t *testing.T) {
			e.t = t
			o := openOOT(t, e, tablev1.TableKind_TABLE_KIND_CASH, tablev1.TableMode_TABLE_MODE_LIVE)
			got := o.must(kOOT, o.seat['C'], aFold, 0).GetOutOfTurn()
			if len(got) != 1 || got[0].GetOutcome() != "folded" || !slices.Equal(ruleIDs(got[0].GetRules()), []string{"TP-51"}) {
				t.Fatalf("TP-51 ruling: %v", got)
			}
			st := o.staff()
			if !st.GetSeats()[o.seat['C']].GetFolded() || st.GetHand().GetToAct() != o.seat['A'] {
				t.Fatalf("TP-51 fold not binding at once, or the turn moved: %v", st)
			}
			o.run([]step{{'A', kAct, aCheck, 0, nil}, {'B', kAct, aCheck, 0, nil}})
			if to := o.staff().GetHand().GetToAct(); to != o.seat['D'] {
				t.Fatalf("the folded seat was asked to act: %d", to)
			}
			if ids := o.auditedOOT()["out_of_turn:folded:TP-51"]; !slices.Equal(ids, []string{"TP-51"}) {
				t.Fatalf("TP-51 ruling not audited: %v", o.auditedOOT())
			}
		})
	})
}

// TestOutOfTurn_Refused_TP46 checks entries the console refuses: every
// refusal names its rule and leaves the table as it was (sequence, seats,
// the provisional wager held).
func TestOutOfTurn_Refused_TP46(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, table.DBOptions(), func(t *testing.T, db *sqlstore.DB) {
		e := start(t, db, clock.NewFake(t0), seededDecks(52), table.Deps{})
		t.Run("digital table", func(t *testing.T) {
			e.t = t
			o := openOOT(t, e, tablev1.TableKind_TABLE_KIND_CASH, tablev1.TableMode_TABLE_MODE_DIGITAL)
			before := o.staff()
			_, err := o.enter(kOOT, o.seat['C'], aRaise, 1000)
			if r, rule := reason(err); r != "OUT_OF_TURN" || rule != "TP-46" {
				t.Fatalf("digital table took an out-of-turn entry: %v", err)
			}
			if after := o.staff(); after.GetSequence() != before.GetSequence() {
				t.Fatal("a refused entry changed the table")
			}
		})
		t.Run("live table", func(t *testing.T) {
			e.t = t
			o := openOOT(t, e, tablev1.TableKind_TABLE_KIND_CASH, tablev1.TableMode_TABLE_MODE_LIVE)
			refused := func(s step, wantReason, wantRule string) {
				t.Helper()
				before := o.staff()
				_, err := o.enter(s.kind, o.seat[s.who], s.action, s.amount)
				if r, rule := reason(err); r != wantReason || rule != wantRule {
					t.Fatalf("%c %s %d: %v, want %s (%s)", s.who, s.action, s.amount, err, wantReason, wantRule)
				}
				after := o.staff()
				if after.GetSequence() != before.GetSequence() || after.String() != before.String() {
					t.Fatalf("a refused entry changed the table:\n%v\n%v", before, after)
				}
			}
			refused(step{'C', kOOT, aCall, 0, nil}, "ACTION_NOT_ALLOWED", "G-33") // nothing to call yet: what a call is (G-33)
			o.run([]step{{'A', kAct, aBet, 200, nil}})
			refused(step{'B', kOOT, aRaise, 1000, nil}, "ACTION_NOT_ALLOWED", "TP-46") // B is in turn
			refused(step{'C', kOOT, aRaise, 5000, nil}, "AMOUNT_ABOVE_STACK", "CS-05")
			refused(step{'C', kOOT, aRaise, 250, nil}, "RAISE_BELOW_MINIMUM", "TP-22")
			refused(step{'C', kOOT, aCheck, 0, nil}, "CANNOT_CHECK_FACING_BET", "TP-49")
			o.run([]step{{'C', kOOT, aRaise, 1000, nil}})
			refused(step{'C', kOOT, aRaise, 1200, nil}, "ACTION_NOT_ALLOWED", "TP-50") // C's wager is held already
			refused(step{'C', kAct, aCall, 0, nil}, "OUT_OF_TURN", "TP-46")
			// The held seat's hand is killed (TP-54): the wager never
			// reached the pot, so there is nothing to return or apply.
			if _, err := o.e.c.DealerAction(o.dealer, &tablev1.DealerActionRequest{TableId: o.id, Kind: tablev1.DealerActionKind_DEALER_ACTION_KIND_KILL,
				Seat: o.seat['C'], KillReason: tablev1.KillReason_KILL_REASON_FOULED}); err != nil {
				t.Fatal(err)
			}
			got := o.must(kAct, o.seat['B'], aCall, 0).GetOutOfTurn()
			st := o.staff()
			if c := st.GetSeats()[o.seat['C']]; len(got) != 0 || st.GetHand().GetProvisional() != nil || !c.GetFolded() || c.GetStack() != o.stacks[o.seat['C']] {
				t.Fatalf("killed seat's held wager: rulings %v, state %v", got, st)
			}
		})
	})
}

// TestOutOfTurn_TP52 enters out-of-turn actions at a live tournament
// table: a call, bet or raise is committed as made (TP-52, no provisional
// wager); a fold is binding (TP-51 by the P-2 fallback). The turn stays
// with the skipped seat.
func TestOutOfTurn_TP52(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, table.DBOptions(), func(t *testing.T, db *sqlstore.DB) {
		e := start(t, db, clock.NewFake(t0), seededDecks(53), table.Deps{})
		cases := []struct {
			name    string
			oot     step
			outcome string
			rules   []string
			bet     int64 // C's bet after the entry
		}{
			{name: "TP-52 raise stands as made", oot: step{'C', kOOT, aRaise, 1000, nil}, outcome: "stands", rules: []string{"TP-52"}, bet: 1000},
			{name: "TP-52 call stands as made", oot: step{'C', kOOT, aCall, 0, nil}, outcome: "stands", rules: []string{"TP-52"}, bet: 200},
			{name: "TP-51 fold by fallback (P-2)", oot: step{'C', kOOT, aFold, 0, nil}, outcome: "folded", rules: []string{"TP-51", "TP-52"}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				e.t = t
				o := openOOT(t, e, tablev1.TableKind_TABLE_KIND_TOURNAMENT, tablev1.TableMode_TABLE_MODE_LIVE)
				o.run([]step{{'A', kAct, aBet, 200, nil}})
				got := o.run([]step{tc.oot})
				if len(got) != 1 || got[0].GetOutcome() != tc.outcome || !slices.Equal(ruleIDs(got[0].GetRules()), tc.rules) {
					t.Fatalf("ruling %v, want %s %v", got, tc.outcome, tc.rules)
				}
				st := o.staff()
				c := st.GetSeats()[o.seat['C']]
				if st.GetHand().GetProvisional() != nil || c.GetBet() != tc.bet || c.GetStack() != o.stacks[o.seat['C']]-tc.bet ||
					st.GetHand().GetToAct() != o.seat['B'] {
					t.Fatalf("tournament out-of-turn entry not committed at once with the turn kept: %v", st)
				}
				want := "out_of_turn:" + tc.outcome + ":" + strings.Join(tc.rules, ",")
				if ids := o.auditedOOT()[want]; !slices.Equal(ids, tc.rules) {
					t.Fatalf("%s not audited: %v", want, o.auditedOOT())
				}
			})
		}
	})
}

// TestOutOfTurn_TP52_S5_Choice: at a live tournament table D bets 500 out
// of turn (committed as made); skipped B raises to 1000, more than D's
// bet, and the table rules Choose (TP-52/S5) at once. In turn D chooses:
// the dealer enters WITHDRAW, a plain FOLD (which takes the bet back all
// the same: the rule's choices are call the difference, take the bet back
// and fold, or re-raise), CALL or RAISE; the choice is ruled "chosen" and
// audited under TP-52 like the Choose ruling.
func TestOutOfTurn_TP52_S5_Choice(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		entry    step
		decided  tablev1.ActionKind
		returned int64
		folded   bool
		bet      int64 // D's bet after the choice
	}{
		{"TP-52/S5 withdraw: the 500 back, folded", step{'D', kAct, tablev1.ActionKind_ACTION_KIND_WITHDRAW, 0, nil}, aFold, 500, true, 0},
		{"TP-52/S5 a plain fold takes the 500 back", step{'D', kAct, aFold, 0, nil}, aFold, 500, true, 0},
		{"TP-52/S5 call the difference", step{'D', kAct, aCall, 0, nil}, aCall, 0, false, 1000},
		{"TP-52/S5 raise again", step{'D', kAct, aRaise, 1500, nil}, aRaise, 0, false, 1500},
	}
	testkit.EachStore(t, table.DBOptions(), func(t *testing.T, db *sqlstore.DB) {
		e := start(t, db, clock.NewFake(t0), seededDecks(54), table.Deps{})
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				e.t = t
				o := openOOT(t, e, tablev1.TableKind_TABLE_KIND_TOURNAMENT, tablev1.TableMode_TABLE_MODE_LIVE)
				got := o.run([]step{{'A', kAct, aCheck, 0, nil}, {'D', kOOT, aBet, 500, nil}, {'B', kAct, aRaise, 1000, nil}})
				d := o.seat['D']
				if len(got) != 2 || got[1].GetOutcome() != "choose" || got[1].GetScenario() != "TP-52/S5" || got[1].GetSeat() != d ||
					!slices.Equal(got[1].GetOptions(), []tablev1.ActionKind{aCall, aFold, aRaise}) {
					t.Fatalf("B's raise over D's out-of-turn bet is not ruled Choose (TP-52/S5): %v", got)
				}
				o.run([]step{{'C', kAct, aFold, 0, nil}})
				if st := o.staff(); st.GetHand().GetToAct() != d || st.GetSeats()[d].GetBet() != 500 {
					t.Fatalf("D's out-of-turn 500 not standing at D's turn: %v", st)
				}
				got = o.run([]step{tc.entry})
				if len(got) != 1 || got[0].GetOutcome() != "chosen" || got[0].GetDecided() != tc.decided || got[0].GetReturned() != tc.returned ||
					got[0].GetScenario() != "TP-52/S5" || !slices.Equal(ruleIDs(got[0].GetRules()), []string{"TP-52"}) || len(got[0].GetOptions()) != 0 {
					t.Fatalf("TP-52 choice ruling: %v", got)
				}
				s := o.staff().GetSeats()[d]
				if s.GetFolded() != tc.folded || tc.folded && s.GetStack() != o.stacks[d] || !tc.folded && (s.GetBet() != tc.bet || s.GetStack() != o.stacks[d]-tc.bet) {
					t.Fatalf("D after choosing: %v (stack at the flop %d)", s, o.stacks[d])
				}
				audited := o.auditedOOT()
				for _, want := range []string{"out_of_turn:choose:TP-52,TP-52/S5", "out_of_turn:chosen:TP-52,TP-52/S5"} {
					if ids := audited[want]; !slices.Equal(ids, []string{"TP-52", "TP-52/S5"}) {
						t.Fatalf("%s not audited: %v", want, audited)
					}
				}
			})
		}
	})
}

// TestOutOfTurn_TP50_SeveralHeldInTurnOrder: at a live cash table A bets
// 200 and B is skipped by two out-of-turn wagers, entered in either order:
// D calls, C raises to 1000. Both are held, in turn order (C, D). B folds:
// C's raise stands (TP-50/S3) and is applied in C's turn; for D, skipped C
// has now raised, so D's call is returned and D acts freely (TP-50 rule 2,
// as in S2; the seed's examples are a raise and a bet, so no scenario is
// named for a call).
func TestOutOfTurn_TP50_SeveralHeldInTurnOrder(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, table.DBOptions(), func(t *testing.T, db *sqlstore.DB) {
		e := start(t, db, clock.NewFake(t0), seededDecks(55), table.Deps{})
		for _, order := range [][]step{
			{{'C', kOOT, aRaise, 1000, nil}, {'D', kOOT, aCall, 0, nil}},
			{{'D', kOOT, aCall, 0, nil}, {'C', kOOT, aRaise, 1000, nil}},
		} {
			t.Run(fmt.Sprintf("%c first", order[0].who), func(t *testing.T) {
				e.t = t
				o := openOOT(t, e, tablev1.TableKind_TABLE_KIND_CASH, tablev1.TableMode_TABLE_MODE_LIVE)
				o.run([]step{{'A', kAct, aBet, 200, nil}})
				o.run(order)
				st := o.staff()
				held := st.GetHand().GetProvisionalWagers()
				if len(held) != 2 || held[0].GetSeat() != o.seat['C'] || held[1].GetSeat() != o.seat['D'] ||
					!slices.Equal(held[1].GetSkippedSeats(), []int32{o.seat['B'], o.seat['C']}) || st.GetHand().GetToAct() != o.seat['B'] {
					t.Fatalf("two wagers not held in turn order: %v", st.GetHand())
				}
				got := o.run([]step{{'B', kAct, aFold, 0, nil}})
				if len(got) != 2 || got[0].GetSeat() != o.seat['C'] || got[0].GetOutcome() != "stands" || got[0].GetScenario() != "TP-50/S3" ||
					got[1].GetSeat() != o.seat['D'] || got[1].GetOutcome() != "withdrawn" || got[1].GetReturned() != 200 {
					t.Fatalf("rulings %v", got)
				}
				st = o.staff()
				if c, d := st.GetSeats()[o.seat['C']], st.GetSeats()[o.seat['D']]; c.GetBet() != 1000 || d.GetBet() != 0 || d.GetStack() != o.stacks[o.seat['D']] ||
					st.GetHand().GetToAct() != o.seat['D'] || len(st.GetHand().GetProvisionalWagers()) != 0 {
					t.Fatalf("after B folded: %v", st)
				}
				o.run([]step{{'D', kAct, aCall, 0, nil}})
			})
		}
	})
}

// TestOutOfTurn_TP52_S1toS4_Stand: at a live tournament table the
// out-of-turn wager is committed as made; once every skipped seat has
// acted without wagering more, the table rules that it stood, naming the
// seed's example (TP-52/S1, S3, S4), and audits it. The skipped seats act
// on the wager as it stands: in S4 they cannot check D's 500 (they call
// it), and S2's raise to 600 is below the 1000 they face (the engine
// refuses it, RAISE_BELOW_MINIMUM: C's 1000 stands).
func TestOutOfTurn_TP52_S1toS4_Stand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		steps    []step
		scenario string
		seat     byte
	}{
		{"TP-52/S1 B calls: C's 1000 stands", []step{{'A', kAct, aBet, 200, nil}, {'C', kOOT, aRaise, 1000, nil}, {'B', kAct, aCall, 0, nil}}, "TP-52/S1", 'C'},
		{"TP-52/S3 B folds: C's 1000 stands", []step{{'A', kAct, aBet, 200, nil}, {'C', kOOT, aRaise, 1000, nil}, {'B', kAct, aFold, 0, nil}}, "TP-52/S3", 'C'},
		{"TP-52/S4 B and C call D's 500, which stands", []step{{'A', kAct, aCheck, 0, nil}, {'D', kOOT, aBet, 500, nil}, {'B', kAct, aCall, 0, nil},
			{'C', kAct, aCall, 0, nil}}, "TP-52/S4", 'D'},
	}
	e := start(t, testkit.SQLite(t, table.DBOptions()), clock.NewFake(t0), seededDecks(56), table.Deps{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e.t = t
			o := openOOT(t, e, tablev1.TableKind_TABLE_KIND_TOURNAMENT, tablev1.TableMode_TABLE_MODE_LIVE)
			got := o.run(tc.steps)
			last := got[len(got)-1]
			if last.GetOutcome() != "stands" || last.GetScenario() != tc.scenario || last.GetSeat() != o.seat[tc.seat] {
				t.Fatalf("rulings %v, want the wager standing as %s", got, tc.scenario)
			}
			if ids := o.auditedOOT()["out_of_turn:stands:TP-52,"+tc.scenario]; !slices.Equal(ids, []string{"TP-52", tc.scenario}) {
				t.Fatalf("%s not audited: %v", tc.scenario, o.auditedOOT())
			}
		})
	}
	t.Run("TP-52/S2 B's raise to 600 is below C's standing 1000", func(t *testing.T) {
		e.t = t
		o := openOOT(t, e, tablev1.TableKind_TABLE_KIND_TOURNAMENT, tablev1.TableMode_TABLE_MODE_LIVE)
		o.run([]step{{'A', kAct, aBet, 200, nil}, {'C', kOOT, aRaise, 1000, nil}})
		if _, err := o.enter(kAct, o.seat['B'], aRaise, 600); reasonOf(err) != "RAISE_BELOW_MINIMUM" {
			t.Fatalf("B raised to 600 facing C's standing 1000: %v", err)
		}
		if c := o.staff().GetSeats()[o.seat['C']]; c.GetBet() != 1000 {
			t.Fatalf("C's out-of-turn 1000 does not stand: %v", c)
		}
	})
}
