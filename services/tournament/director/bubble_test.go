package director_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/tournament/desk"
	"github.com/cardroom/cardroom/services/tournament/director"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/house"
	"github.com/cardroom/cardroom/services/tournament/standings"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// tenPaid pays ten places whatever the field.
var tenPaid = standings.Structure{Unit: 1, Tiers: []standings.Tier{{Shares: []int{2500, 1800, 1300, 1000, 800, 700, 600, 500, 400, 400}}}}

// TestHandForHand_StartsAtTheBubbleAndStopsWhenItBursts_G26_G39_TR37: 18
// entrants at two tables, ten places paid. The hand that leaves eleven
// players (the places paid and one) starts hand-for-hand by itself: the
// table whose hand just ended waits, the table still in its hand finishes
// it, then both deal together; in a round a table that has played waits
// for the other. The round that leaves ten players ends it, and the
// tables deal at their own pace again. Each start and stop is audited.
func TestHandForHand_StartsAtTheBubbleAndStopsWhenItBursts_G26_G39_TR37(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	s := runningWith(t, db, 18, house.Rules{Payouts: tenPaid})
	ctx := t.Context()
	payEntries(t, s, 18) // the field the payouts count
	f := newFakeTables()
	d := newDirector(s, f, clock.NewFake(now))
	if err := d.Start(ctx, "ev1"); err != nil {
		t.Fatal(err)
	}
	h4h := func() (active bool, done []string) {
		t.Helper()
		tr, err := s.Load(ctx, "ev1")
		if err != nil {
			t.Fatal(err)
		}
		return tr.HandForHand.Active, tr.HandForHand.Done
	}
	// record is the books' step for a hand ended in a round (the desk's
	// hand_ended consumer): the table has played its round hand.
	record := func(table string) {
		t.Helper()
		err := s.Update(ctx, "ev1", func(_ *store.Tx, tr *store.Tournament) error {
			if tr.HandForHand.Active {
				_, err := tr.HandForHand.HandEnded(table)
				return err
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	lockstep := f.lockstep
	// Busts down to twelve, two at a time, the tables even: no
	// hand-for-hand yet.
	for _, step := range []struct {
		table int
		id    string
		no    int64
	}{{1, "tbl1", 5}, {2, "tbl2", 3}, {1, "tbl1", 6}} {
		f.tables[step.id].handNo = step.no
		out := tablePlayers(t, s, step.table)[:2]
		bust(t, s, f, out...)
		if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: step.id, Table: step.table, No: step.no, Busted: out}); err != nil {
			t.Fatal(err)
		}
		if on, _ := h4h(); on || lockstep(step.id) != step.no+1 {
			t.Fatalf("%d left for ten places: hand-for-hand %v, %s may deal through %d", len(mustActive(t, s)), on, step.id, lockstep(step.id))
		}
	}
	// Table 1 is dealing hand 7 when table 2's hand 4 busts one: eleven
	// left, the bubble. Table 2 waits for table 1 to finish its hand.
	f.tables["tbl1"].handNo, f.tables["tbl1"].inHand, f.tables["tbl2"].handNo = 7, true, 4
	out := tablePlayers(t, s, 2)[:1]
	bust(t, s, f, out...)
	if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl2", Table: 2, No: 4, Busted: out}); err != nil {
		t.Fatal(err)
	}
	if on, done := h4h(); !on || !slices.Equal(done, []string{"2"}) {
		t.Fatalf("at the bubble: hand-for-hand %v, tables done %v; want on, table 2 done", on, done)
	}
	if got := lockstep("tbl2"); got != 4 {
		t.Fatalf("table 2 may deal through hand %d while table 1 finishes its hand", got)
	}
	// Table 1's hand 7 ends the first round: both deal together.
	f.tables["tbl1"].inHand = false
	record("1")
	if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl1", Table: 1, No: 7}); err != nil {
		t.Fatal(err)
	}
	if lockstep("tbl1") != 8 || lockstep("tbl2") != 5 {
		t.Fatalf("after the first round tables deal through %d and %d, want 8 and 5", lockstep("tbl1"), lockstep("tbl2"))
	}
	// Round two: table 2's hand 5 ends first and waits.
	f.tables["tbl1"].handNo, f.tables["tbl2"].handNo = 8, 5
	record("2")
	if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl2", Table: 2, No: 5}); err != nil {
		t.Fatal(err)
	}
	if got := lockstep("tbl2"); got != 5 {
		t.Fatalf("table 2 may deal through hand %d while table 1 plays its round hand", got)
	}
	// Table 1's hand 8 busts one: ten left for ten places, the bubble
	// burst when the round ends (the books placed the round's
	// knock-outs together, TR-37).
	out = tablePlayers(t, s, 1)[:1]
	bust(t, s, f, out...)
	record("1")
	if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl1", Table: 1, No: 8, Busted: out}); err != nil {
		t.Fatal(err)
	}
	if on, _ := h4h(); on {
		t.Fatal("hand-for-hand still on with ten left for ten places")
	}
	if lockstep("tbl1") != 9 || lockstep("tbl2") != 6 {
		t.Fatalf("after the bubble burst tables deal through %d and %d, want 9 and 6", lockstep("tbl1"), lockstep("tbl2"))
	}
	audit, err := s.Audit(ctx, "ev1")
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, a := range audit {
		if a.Action == "hand_for_hand_on" || a.Action == "hand_for_hand_off" {
			actions = append(actions, a.Action)
		}
	}
	if !slices.Equal(actions, []string{"hand_for_hand_on", "hand_for_hand_off"}) {
		t.Fatalf("audit %v", actions)
	}
}

// mustActive returns the players in play.
func mustActive(t *testing.T, s *store.Store) []string {
	t.Helper()
	var out []string
	for _, en := range mustEntries(t, s) {
		if en.Status == entry.Active {
			out = append(out, en.PlayerID)
		}
	}
	return out
}

// atTheBubbleWithAHandNotHandled is the bubble of an 18-entrant event
// with ten places paid (G-39): table 1's hand 7 has just left eleven
// players and started hand-for-hand, table 1 waits for the round at its
// hand 7, table 2 is between hands, its hand 4 over but not handled yet,
// held at it. It returns the books, the tables, the director, each
// table's lockstep hold and the books' step for a round hand (the
// server's consumer).
func atTheBubbleWithAHandNotHandled(t *testing.T) (*store.Store, *fakeTables, *director.Director, func(string) int64, func(string)) {
	t.Helper()
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	s := runningWith(t, db, 18, house.Rules{Payouts: tenPaid})
	ctx := t.Context()
	payEntries(t, s, 18) // the field the payouts count
	f := newFakeTables()
	d := newDirector(s, f, clock.NewFake(now))
	if err := d.Start(ctx, "ev1"); err != nil {
		t.Fatal(err)
	}
	lockstep := f.lockstep
	for _, step := range []struct {
		table int
		id    string
		no    int64
	}{{1, "tbl1", 5}, {2, "tbl2", 3}, {1, "tbl1", 6}} {
		f.tables[step.id].handNo = step.no
		out := tablePlayers(t, s, step.table)[:2]
		bust(t, s, f, out...)
		if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: step.id, Table: step.table, No: step.no, Busted: out}); err != nil {
			t.Fatal(err)
		}
	}
	// record is the books' step for a round hand (the desk's consumer).
	record := func(table string) {
		t.Helper()
		err := s.Update(ctx, "ev1", func(_ *store.Tx, tr *store.Tournament) error {
			_, err := tr.HandForHand.HandEnded(table)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// Table 2's hand 4 is over, not handled; table 1's hand 7 busts one:
	// eleven left. Table 1 waits; table 2 stays held at hand 4.
	f.tables["tbl2"].handNo = 4
	f.tables["tbl1"].handNo = 7
	out := tablePlayers(t, s, 1)[:1]
	bust(t, s, f, out...)
	if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl1", Table: 1, No: 7, Busted: out}); err != nil {
		t.Fatal(err)
	}
	if lockstep("tbl1") != 7 || lockstep("tbl2") != 4 {
		t.Fatalf("G-26 at the start tables deal through %d and %d, want 7 and 4", lockstep("tbl1"), lockstep("tbl2"))
	}
	return s, f, d, lockstep, record
}

// TestHandForHand_AHandEndedBeforeTheStartIsNoRoundHand_G26: at the
// bubble table 2 is between hands, its hand 4 over but not handled yet.
// It is not let go with the first round: it would deal before its hand's
// handling took its busted off and made its balancing move (seen in the
// rebuy event: a move made after the table had dealt on, of a player no
// longer due the big blind). Its hand 4, handled after the start, is no
// round's hand: table 2 had finished its hand at the start and waits
// (G-39), done with the first round, which table 1's bubble hand ended
// too — so both tables deal together. Before, table 2 was let play a
// round hand of its own at once, and in the rebuy event one did while a
// hand begun before the start was still played at a third table.
func TestHandForHand_AHandEndedBeforeTheStartIsNoRoundHand_G26(t *testing.T) {
	t.Parallel()
	_, _, d, lockstep, _ := atTheBubbleWithAHandNotHandled(t)
	ctx := t.Context()
	if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl2", Table: 2, No: 4, End: now.Add(-time.Second)}); err != nil {
		t.Fatal(err)
	}
	if lockstep("tbl1") != 8 || lockstep("tbl2") != 5 {
		t.Fatalf("G-26 after table 2's last hand before the start, tables deal through %d and %d, want 8 and 5 (together)", lockstep("tbl1"), lockstep("tbl2"))
	}
}

// TestHandForHand_FloorStopsItBeforeAHandIsHandled_G26: the floor stops
// hand-for-hand while table 1 waits for the round and table 2's hand 4,
// over, is not handled yet. Table 1 deals on; table 2 stays held until
// its hand's handling (its busted taken off, its balancing made), which
// then lets it deal (before, both were let go together, and table 2
// dealt before its hand was handled).
func TestHandForHand_FloorStopsItBeforeAHandIsHandled_G26(t *testing.T) {
	t.Parallel()
	s, f, d, lockstep, _ := atTheBubbleWithAHandNotHandled(t)
	ctx := t.Context()
	books := desk.New(desk.Deps{Store: s, Clock: clock.NewFake(now), Tables: f})
	if _, err := books.SetHandForHand(ctx, "ev1", false); err != nil {
		t.Fatal(err)
	}
	if lockstep("tbl1") != 8 || lockstep("tbl2") != 4 {
		t.Fatalf("G-26 hand-for-hand off: tables deal through %d and %d, want 8 and 4 (table 2's hand 4 not handled)", lockstep("tbl1"), lockstep("tbl2"))
	}
	if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl2", Table: 2, No: 4, End: now.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	if lockstep("tbl2") != 5 {
		t.Fatalf("G-26 table 2's hand 4 handled after hand-for-hand stopped: it deals through %d, want 5", lockstep("tbl2"))
	}
}

// TestHandForHand_ATableNotLetGoAtTheStopIsByTheRecoveryPass_G26: the
// floor stops hand-for-hand while table 1 waits for the round, and the
// call that lets it deal on fails (a table replica restarting). The books
// keep it in the tables to let go, and the director's recovery pass lets
// it deal; table 2, its hand 4 not handled, stays held (before, a failed
// call left table 1 held for good: nothing retried it).
func TestHandForHand_ATableNotLetGoAtTheStopIsByTheRecoveryPass_G26(t *testing.T) {
	t.Parallel()
	s, f, d, lockstep, _ := atTheBubbleWithAHandNotHandled(t)
	ctx := t.Context()
	books := desk.New(desk.Deps{Store: s, Clock: clock.NewFake(now), Tables: f})
	f.mu.Lock()
	f.fail["Hold"] = 1
	f.mu.Unlock()
	if _, err := books.SetHandForHand(ctx, "ev1", false); err != nil {
		t.Fatal(err)
	}
	if lockstep("tbl1") != 7 {
		t.Fatalf("table 1 deals through %d with its call failed, want 7", lockstep("tbl1"))
	}
	tr, err := s.Load(ctx, "ev1")
	if err != nil || !slices.Equal(tr.HandForHand.Release, []string{"1"}) {
		t.Fatalf("G-26 the books' tables to let go after the failed call: %v %v, want [1]", tr.HandForHand.Release, err)
	}
	if err := d.Recover(ctx, []string{"ev1"}); err != nil {
		t.Fatal(err)
	}
	if lockstep("tbl1") != 8 || lockstep("tbl2") != 4 {
		t.Fatalf("G-26 after the recovery pass tables deal through %d and %d, want 8 and 4", lockstep("tbl1"), lockstep("tbl2"))
	}
	if tr, err := s.Load(ctx, "ev1"); err != nil || len(tr.HandForHand.Release) != 0 {
		t.Fatalf("G-26 tables still to let go after the recovery pass: %v %v", tr.HandForHand.Release, err)
	}
}

// TestHandForHand_ATableNotLetGoAtARoundsEndIsByTheRecoveryPass_G26: a
// round ends and the call that lets table 1 deal its next round hand
// fails. The books keep it to be let go and the recovery pass does it;
// table 2, let go already, is not asked again (before, table 1 stayed
// held, and with it the round for good).
func TestHandForHand_ATableNotLetGoAtARoundsEndIsByTheRecoveryPass_G26(t *testing.T) {
	t.Parallel()
	s, f, d, lockstep, _ := atTheBubbleWithAHandNotHandled(t)
	ctx := t.Context()
	// Table 2's hand before the start, handled now, ends the first round
	// (TestHandForHand_AHandEndedBeforeTheStartIsNoRoundHand_G26).
	f.mu.Lock()
	f.fail["Hold"] = 1
	f.mu.Unlock()
	if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl2", Table: 2, No: 4, End: now.Add(-time.Second)}); err == nil {
		t.Fatal("the failed call to table 1 was not reported")
	}
	if lockstep("tbl1") != 7 || lockstep("tbl2") != 5 {
		t.Fatalf("after the round with table 1's call failed tables deal through %d and %d, want 7 and 5", lockstep("tbl1"), lockstep("tbl2"))
	}
	if err := d.Recover(ctx, []string{"ev1"}); err != nil {
		t.Fatal(err)
	}
	if lockstep("tbl1") != 8 || lockstep("tbl2") != 5 {
		t.Fatalf("G-26 after the recovery pass tables deal through %d and %d, want 8 and 5", lockstep("tbl1"), lockstep("tbl2"))
	}
	if tr, err := s.Load(ctx, "ev1"); err != nil || len(tr.HandForHand.Release) != 0 {
		t.Fatalf("G-26 tables still to let go after the recovery pass: %v %v", tr.HandForHand.Release, err)
	}
}

// TestHandForHand_StartsWhenTheFieldStoodOnTheBubbleBeforeAHandsKnockouts_G39_G42:
// 18 entrants at two tables, ten places paid, twelve left. A player held
// for a rebuy at a table that could no longer deal is knocked out once
// they may not rebuy any more (G-42) — by the recovery pass between hands,
// or by the report of a hand at the other table, placed below its players
// — which leaves eleven, the places paid and one; the hand at table 1
// then knocks out one more. The field stood on the bubble between hands,
// and that hand was in play then: hand-for-hand starts, audited at eleven
// players left, and stops at the end of its first round (ten left). Before,
// the director looked only at the field after the hand (ten), logged that
// the bubble was passed in one hand and never went hand for hand (seen in
// the rebuy event).
func TestHandForHand_StartsWhenTheFieldStoodOnTheBubbleBeforeAHandsKnockouts_G39_G42(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// recovered: the held player is knocked out by the recovery pass
		// before the hand ends; otherwise by the hand's report.
		recovered bool
	}{
		{name: "knocked out by the recovery pass", recovered: true},
		{name: "knocked out by the hand's report", recovered: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
			s := runningWith(t, db, 18, house.Rules{Payouts: tenPaid})
			ctx := t.Context()
			payEntries(t, s, 18) // the field the payouts count
			f := newFakeTables()
			d := newDirector(s, f, clock.NewFake(now))
			if err := d.Start(ctx, "ev1"); err != nil {
				t.Fatal(err)
			}
			// Busts down to twelve, two at a time.
			for _, step := range []struct {
				table int
				id    string
				no    int64
			}{{1, "tbl1", 5}, {2, "tbl2", 3}, {1, "tbl1", 6}} {
				f.tables[step.id].handNo = step.no
				out := tablePlayers(t, s, step.table)[:2]
				bust(t, s, f, out...)
				if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: step.id, Table: step.table, No: step.no, Busted: out}); err != nil {
					t.Fatal(err)
				}
			}
			if n := len(mustActive(t, s)); n != 12 {
				t.Fatalf("%d left, want 12", n)
			}
			held := tablePlayers(t, s, 2)[0]
			bust(t, s, f, held)
			if tc.recovered {
				if err := d.Recover(ctx, []string{"ev1"}); err != nil {
					t.Fatal(err)
				}
			}
			// Table 1's hand 7 knocks out one more: ten left.
			f.tables["tbl1"].handNo = 7
			out := tablePlayers(t, s, 1)[:1]
			bust(t, s, f, out...)
			if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl1", Table: 1, No: 7, Busted: out}); err != nil {
				t.Fatal(err)
			}
			tr, err := s.Load(ctx, "ev1")
			if err != nil {
				t.Fatal(err)
			}
			if !tr.HandForHand.Active {
				t.Fatal("G-39: the field stood at eleven for ten places between hands and hand-for-hand did not start")
			}
			audit, err := s.Audit(ctx, "ev1")
			if err != nil {
				t.Fatal(err)
			}
			left := -1
			for _, a := range audit {
				if a.Action == "hand_for_hand_on" {
					var on struct {
						PlayersLeft int `json:"players_left"`
					}
					if err := json.Unmarshal(a.Detail, &on); err != nil {
						t.Fatal(err)
					}
					left = on.PlayersLeft
				}
			}
			if left != 11 {
				t.Fatalf("G-39: hand-for-hand audited at %d players left, want 11", left)
			}
		})
	}
}

// TestHandForHand_ATableBrokenAfterItsRoundHandEndsNoRound_G26: in the
// first round table 3 has played its round hand (the only table done so
// far) and breaks at that hand's end: the players fit in two tables. Table
// 1 is still in its round hand and table 2's round hand is over but not
// handled yet. The break takes table 3 out of the round (and out of its
// tables done), which must not end the round: table 2 stays held until its
// hand's handling and table 1 finishes its hand. Before, the empty list of
// tables done read as a round just completed: every table between hands
// was let deal, table 2 before its round hand was handled (seen in the
// rebuy event: a table dealt its next hand while another's round hand was
// still on), and the hand's handling failed on the closed table's hold.
func TestHandForHand_ATableBrokenAfterItsRoundHandEndsNoRound_G26(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	s, f, d := started(t, db, 27)
	ctx := t.Context()
	// Nine out, three at each table, between hands: eighteen fit in two
	// tables.
	for _, n := range []int{1, 2, 3} {
		out := tablePlayers(t, s, n)[:3]
		bust(t, s, f, out...)
		for _, p := range out {
			if err := f.RemoveBusted(ctx, fmt.Sprintf("tbl%d", n), "out/"+p, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	lockstep := f.lockstep
	f.mu.Lock()
	f.tables["tbl1"].handNo, f.tables["tbl1"].inHand = 5, true
	f.tables["tbl1"].holds[director.HoldLockstep] = 5
	f.tables["tbl2"].handNo = 5 // over, not handled: held at it
	f.tables["tbl2"].holds[director.HoldLockstep] = 5
	f.tables["tbl3"].handNo = 5
	f.tables["tbl3"].holds[director.HoldLockstep] = 5
	f.mu.Unlock()
	// Hand-for-hand started before these hands ended; the books counted
	// table 3's hand 5 as its round hand.
	err := s.Update(ctx, "ev1", func(_ *store.Tx, tr *store.Tournament) error {
		tr.HandForHand.Start([]string{"1", "2", "3"})
		tr.HandForHand.Since = now.Add(-time.Second)
		_, err := tr.HandForHand.HandEnded("3")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl3", Table: 3, No: 5, End: now}); err != nil {
		t.Fatalf("G-26 table 3's hand, its table broken: %v", err)
	}
	if len(tablePlayers(t, s, 3)) != 0 {
		t.Fatalf("table 3 not broken: %v", tablePlayers(t, s, 3))
	}
	tr, err := s.Load(ctx, "ev1")
	if err != nil {
		t.Fatal(err)
	}
	hf := tr.HandForHand
	if !hf.Active || hf.Round != 1 || !slices.Equal(hf.Tables, []string{"1", "2"}) || len(hf.Done) != 0 || len(hf.Release) != 0 {
		t.Fatalf("G-26 after table 3 broke: %+v; want round 1 of tables 1 and 2, none done, none to let go", hf)
	}
	if lockstep("tbl2") != 5 || lockstep("tbl1") != 5 {
		t.Fatalf("G-26 tables 1 and 2 deal through %d and %d before their round hands were handled, want 5 and 5", lockstep("tbl1"), lockstep("tbl2"))
	}
}

// payEntries records the entries of n players (p01…) as paid: the field
// the payouts count.
func payEntries(t *testing.T, s *store.Store, n int) {
	t.Helper()
	err := s.Update(t.Context(), "ev1", func(tx *store.Tx, _ *store.Tournament) error {
		for i := range n {
			p := entry.Payment{Key: fmt.Sprintf("pay/%d", i), Kind: entry.PayEntry, EventID: "ev1", PlayerID: fmt.Sprintf("p%02d", i+1),
				Currency: "EUR", PrizePart: 100, Fee: 10}
			if err := tx.AddPayment(p, 0, now); err != nil {
				return err
			}
			if _, err := tx.SettlePayment(p.Key, true, "tr", ""); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestHandForHand_NotWhileRegistrationIsOpen_G39_G23: the field stands at
// one more than the places paid while late registration is open (G-23):
// entries still come in and the places paid may grow, so there is no
// bubble yet and the tables deal on. The first hand to end at the bubble
// once registration has closed starts hand-for-hand (G-39).
func TestHandForHand_NotWhileRegistrationIsOpen_G39_G23(t *testing.T) {
	t.Parallel()
	s, f, d, clk, on := lateRegistrationEvent(t, []bust18{{1, "tbl1", 5, 2}, {2, "tbl2", 3, 2}, {1, "tbl1", 6, 2}, {2, "tbl2", 4, 1}})
	ctx := t.Context()
	if n := len(mustActive(t, s)); n != 11 || on() {
		t.Fatalf("G-23 %d left for ten places while registration is open: hand-for-hand %v, want 11 and off", n, on())
	}
	clk.Advance(30 * time.Minute) // registration closes
	f.tables["tbl1"].handNo = 7
	if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl1", Table: 1, No: 7}); err != nil {
		t.Fatal(err)
	}
	if !on() {
		t.Fatal("G-39 eleven left for ten places once registration closed: no hand-for-hand")
	}
}

// TestHandForHand_NoneWhenTheFieldPassedTheBubbleWhileRegistrationWasOpen_G39_G23:
// the field stands at one more than the places paid while late
// registration is open (G-23), and a hand takes it to the places paid
// before registration closes: it never stood on the bubble, so once
// registration has closed the tables deal on without hand-for-hand
// (G-39) — the rebuy event's fast runs, whose field came down to the
// money in the 15 seconds of late registration.
func TestHandForHand_NoneWhenTheFieldPassedTheBubbleWhileRegistrationWasOpen_G39_G23(t *testing.T) {
	t.Parallel()
	s, f, d, clk, on := lateRegistrationEvent(t, []bust18{{1, "tbl1", 5, 2}, {2, "tbl2", 3, 2}, {1, "tbl1", 6, 2}, {2, "tbl2", 4, 1}, {1, "tbl1", 7, 1}})
	ctx := t.Context()
	if n := len(mustActive(t, s)); n != 10 || on() {
		t.Fatalf("G-23 %d left for ten places while registration is open: hand-for-hand %v, want 10 and off", n, on())
	}
	clk.Advance(30 * time.Minute) // registration closes
	for _, h := range []director.Hand{{TableID: "tbl2", Table: 2, No: 5}, {TableID: "tbl1", Table: 1, No: 8}} {
		f.tables[h.TableID].handNo = h.No
		if err := d.HandEnded(ctx, "ev1", h); err != nil {
			t.Fatal(err)
		}
		if on() {
			t.Fatalf("G-39, G-23: hand-for-hand after hand %d at table %d, the field at the places paid since before registration closed", h.No, h.Table)
		}
	}
	err := s.Update(ctx, "ev1", func(tx *store.Tx, _ *store.Tournament) error {
		n, err := tx.CountAudit("hand_for_hand_on")
		if err == nil && n != 0 {
			t.Errorf("G-39: %d hand_for_hand_on records", n)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// bust18 is a hand that busts out players of a table in the 18-entrant
// event of lateRegistrationEvent.
type bust18 struct {
	table int
	id    string
	no    int64
	out   int
}

// lateRegistrationEvent starts an 18-entrant event paying ten places
// with 30 minutes of late registration (G-23) on a fake clock, and plays
// the hands given, each busting its first players; on reports whether
// hand-for-hand is on.
func lateRegistrationEvent(t *testing.T, hands []bust18) (*store.Store, *fakeTables, *director.Director, *clock.Fake, func() bool) {
	t.Helper()
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	s := runningWith(t, db, 18, house.Rules{Payouts: tenPaid})
	ctx := t.Context()
	payEntries(t, s, 18)
	err := s.Update(ctx, "ev1", func(_ *store.Tx, tr *store.Tournament) error {
		tr.Rules.Entry.LateRegistration = 30 * time.Minute
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(now)
	f := newFakeTables()
	d := newDirector(s, f, clk)
	if err := d.Start(ctx, "ev1"); err != nil {
		t.Fatal(err)
	}
	on := func() bool {
		t.Helper()
		tr, err := s.Load(ctx, "ev1")
		if err != nil {
			t.Fatal(err)
		}
		return tr.HandForHand.Active
	}
	for _, step := range hands {
		f.tables[step.id].handNo = step.no
		out := tablePlayers(t, s, step.table)[:step.out]
		bust(t, s, f, out...)
		if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: step.id, Table: step.table, No: step.no, Busted: out}); err != nil {
			t.Fatal(err)
		}
	}
	return s, f, d, clk, on
}
