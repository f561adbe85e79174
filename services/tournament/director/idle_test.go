package director_test

import (
	"slices"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/random"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/tournament/desk"
	"github.com/cardroom/cardroom/services/tournament/director"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/house"
	"github.com/cardroom/cardroom/services/tournament/standings"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// TestHandEnded_BreaksAnIdleTableDueToBreakAtAnotherTablesHandEnd_G25: the
// table due to break (the highest-numbered, G-25) cannot deal — one
// player left, or halted short — so it has no hand end of its own to break
// at, and while it is due no other table balances: the event would stall
// with every table playing down to one player. Another table's hand end
// breaks it (TR-06 drawn seats) and closes it. A table due to break that
// can deal still breaks at its own hand end only (the test above).
func TestHandEnded_BreaksAnIdleTableDueToBreakAtAnotherTablesHandEnd_G25(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// busts at tables 1, 2 and 3
		out [3]int
	}{
		{name: "one player left", out: [3]int{1, 0, 8}},  // 8/9/1: 18 fit in two tables
		{name: "halted short", out: [3]int{0, 5, 4}},     // 9/4/5: table 3 four short, halted
		{name: "halted and alone", out: [3]int{0, 1, 8}}, // 9/8/1
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testkit.EachStore(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()}, func(t *testing.T, db *sqlstore.DB) {
				s, f, d := started(t, db, 27)
				ctx := t.Context()
				// Table 3's hand first: it cannot break yet (too many
				// players), then the hands that make it due.
				for _, i := range []int{2, 1, 0} {
					out := tablePlayers(t, s, i+1)[:tc.out[i]]
					bust(t, s, f, out...)
					if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: f.order[i], Table: i + 1, No: 1, Busted: out}); err != nil {
						t.Fatal(err)
					}
				}
				if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl1", Table: 1, No: 2}); err != nil {
					t.Fatal(err)
				}
				n1, n2, n3 := len(tablePlayers(t, s, 1)), len(tablePlayers(t, s, 2)), len(tablePlayers(t, s, 3))
				if n3 != 0 || n1+n2 != 18 || len(f.tables["tbl1"].seats)+len(f.tables["tbl2"].seats) != 18 {
					t.Fatalf("after table 1's hand: %d/%d/%d, want table 3 broken into the others", n1, n2, n3)
				}
				if !f.tables["tbl3"].closed {
					t.Fatal("broken table 3 not closed")
				}
				if d.Mismatch("ev1") != 0 {
					t.Fatalf("chips mismatch %d", d.Mismatch("ev1"))
				}
			})
		})
	}
}

// gone takes players out of play between hands, as the floor's
// knock-outs or a disqualification do, or as a crash that lost the
// director's steps after the hands that busted them leaves it: out in the
// books and off their tables, with no table's hand end to follow.
func gone(t *testing.T, s *store.Store, f *fakeTables, players ...string) {
	t.Helper()
	bust(t, s, f, players...)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range players {
		tb, seat := f.where("ev1", p)
		delete(tb.seats, seat)
		delete(tb.stacks, p)
	}
}

// TestRecover_BreaksAndReleasesWhenNoTableCanDeal_TR23_G25: the director
// decides at a table's hand end, so when no table can deal — each left
// with one player, or the only table with players halted short by a hold
// from before the others lost theirs between hands — nothing would ever
// happen. The recovery pass (a restart, or its every-10-s round) settles
// it: the table due to break breaks between hands (TR-06 drawn seats) and
// closes, and a halt the seating no longer calls for is lifted while the
// tables now short are halted.
func TestRecover_BreaksAndReleasesWhenNoTableCanDeal_TR23_G25(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// short busts at table 3 in a hand first; gone then leaves tables
		// 1, 2 and 3 with left players.
		short int
		left  [3]int
	}{
		{name: "one player at each table", left: [3]int{1, 1, 1}},
		{name: "stale halt at the only table that can deal", short: 4, left: [3]int{1, 1, 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
			s := runningWith(t, db, 27, house.Rules{NoFinalRedraw: true})
			f := newFakeTables()
			d := newDirector(s, f, clock.NewFake(now))
			ctx := t.Context()
			if err := d.Start(ctx, "ev1"); err != nil {
				t.Fatal(err)
			}
			if tc.short > 0 {
				out := tablePlayers(t, s, 3)[:tc.short]
				bust(t, s, f, out...)
				if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl3", Table: 3, No: 1, Busted: out}); err != nil {
					t.Fatal(err)
				}
				if _, held := f.tables["tbl3"].holds[director.HoldShort]; !held {
					t.Fatal("table 3 not halted five against nine")
				}
			}
			for i, n := range tc.left {
				players := tablePlayers(t, s, i+1)
				gone(t, s, f, players[n:]...)
			}
			// A new process takes over.
			d = newDirector(s, f, clock.NewFake(now))
			if err := d.Recover(ctx, []string{"ev1"}); err != nil {
				t.Fatal(err)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			dealing := 0
			for _, id := range []string{"tbl1", "tbl2", "tbl3"} {
				tb := f.tables[id]
				if _, held := tb.holds[director.HoldShort]; !tb.closed && !held && len(tb.seats) >= 2 {
					dealing++
				}
			}
			if dealing == 0 {
				for _, id := range []string{"tbl1", "tbl2", "tbl3"} {
					tb := f.tables[id]
					t.Logf("%s: seats %v holds %v closed %v", id, tb.seats, tb.holds, tb.closed)
				}
				t.Fatal("after the recovery pass no table can deal: the event stalls")
			}
			if tc.short == 0 && (!f.tables["tbl3"].closed || len(f.tables["tbl1"].seats)+len(f.tables["tbl2"].seats) != 3) {
				t.Fatalf("table 3 not broken into the others: closed %v, %v / %v", f.tables["tbl3"].closed, f.tables["tbl1"].seats, f.tables["tbl2"].seats)
			}
		})
	}
}

// hold takes players' chips (they lost them at their table) and holds
// them at their seats while they may rebuy (TR-13), as the books do with
// a player out of chips in the rebuy period: in play, seated, not dealt
// in. Their chips went to a player with chips at their table.
func hold(t *testing.T, s *store.Store, f *fakeTables, players ...string) {
	t.Helper()
	err := s.Update(t.Context(), "ev1", func(_ *store.Tx, tr *store.Tournament) error {
		if tr.HeldBusts == nil {
			tr.HeldBusts = map[string]int{}
		}
		for _, p := range players {
			tr.HeldBusts[p] = 0 // no rebuys when they went out
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range players {
		tb, _ := f.where("ev1", p)
		lost := tb.stacks[p]
		tb.stacks[p] = 0
		for _, o := range tb.seats {
			if tb.stacks[o] > 0 {
				tb.stacks[o] += lost
				break
			}
		}
	}
}

// TestRecover_KnocksOutHeldPlayersWhenNoTableCanDeal_TR13_TR17_G42: every
// table is left with one player with chips and players held out of chips
// while they may still take the add-on with a rebuy (TR-13, TR-17). The
// books seat the held players, so no table is short or due to break, and
// no table can deal, so no hand ends anywhere to knock them out once the
// window closes (G-42): on a cluster the rebuy event stalled so with ten
// players left. While the window is open they stay in play; once the
// clock closes it, the recovery pass knocks them out, placed together,
// takes them off their tables and breaks the tables, so one deals again.
func TestRecover_KnocksOutHeldPlayersWhenNoTableCanDeal_TR13_TR17_G42(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := runningWith(t, db, 27, house.Rules{NoFinalRedraw: true})
		clk, f, d := rebuyEvent(t, s)
		if err := d.Start(ctx, "ev1"); err != nil {
			t.Fatal(err)
		}
		var held []string
		for i, h := range []int{3, 2, 3} {
			players := tablePlayers(t, s, i+1)
			gone(t, s, f, players[1+h:]...)
			hold(t, s, f, players[1:1+h]...)
			held = append(held, players[1:1+h]...)
		}
		dealing := func() int {
			f.mu.Lock()
			defer f.mu.Unlock()
			n := 0
			for _, id := range f.order {
				tb := f.tables[id]
				withChips := 0
				for _, p := range tb.seats {
					if tb.stacks[p] > 0 {
						withChips++
					}
				}
				if _, short := tb.holds[director.HoldShort]; !tb.closed && !short && withChips >= 2 {
					n++
				}
			}
			return n
		}
		status := func() map[entry.Status][]string {
			out := map[entry.Status][]string{}
			for _, en := range mustEntries(t, s) {
				if slices.Contains(held, en.PlayerID) {
					out[en.Status] = append(out[en.Status], en.PlayerID)
				}
			}
			return out
		}
		// TR-17: they may still take the add-on with a rebuy.
		if err := d.Recover(ctx, []string{"ev1"}); err != nil {
			t.Fatal(err)
		}
		if got := status(); len(got[entry.Active]) != len(held) {
			t.Fatalf("TR-17: knocked out while the add-on with a rebuy is open: %v", got)
		}
		if n := dealing(); n != 0 {
			t.Fatalf("%d tables can deal with one player with chips at each", n)
		}
		clk.Advance(15 * time.Minute) // the add-on window closes
		if err := d.Recover(ctx, []string{"ev1"}); err != nil {
			t.Fatal(err)
		}
		if got := status(); len(got[entry.Busted]) != len(held) {
			t.Fatalf("G-42: held at tables that cannot deal after the add-on window closed: %v", got)
		}
		for _, p := range held {
			if id, _ := f.at(p); id != "" {
				t.Errorf("G-42: %s, knocked out, still seated at %s", p, id)
			}
		}
		res, err := s.Results(ctx, "ev1")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if !slices.Contains(held, r.PlayerID) || r.Place != 4 {
				t.Errorf("finish %+v, want the %d held placed together 4th", r, len(held))
			}
		}
		if len(res) != len(held) {
			t.Errorf("%d finishes, want %d: %+v", len(res), len(held), res)
		}
		if n := dealing(); n == 0 {
			t.Fatal("after the recovery pass no table can deal: the event stalls")
		}
		if d.Mismatch("ev1") != 0 {
			t.Fatalf("chips mismatch %d", d.Mismatch("ev1"))
		}
	})
}

// TestRecover_EndsAHandForHandRoundATableCannotPlay_G26_G39_G42_TR37:
// hand-for-hand is on over three tables. Tables 2 and 3 have played their
// round hand and wait; table 1 is left with one player with chips and six
// held out of chips while they may still take the add-on with a rebuy
// (TR-13, TR-17): seated in the books, so it is no table that cannot
// deal, yet it deals no round hand. Once the clock closes the window, the
// recovery pass knocks the held players out (G-42), and table 1 can no
// longer deal: it is done with the round, so the round is over. No hand
// ends anywhere to say so, and on a cluster the rebuy event stalled there
// for good, hand-for-hand on with fewer players left than places paid.
// The recovery pass ends the round: the six are placed together (TR-37),
// and the tables deal together (G-26) — or at their own pace, the
// hand-for-hand stopped and audited, when the round burst the bubble
// (G-39).
func TestRecover_EndsAHandForHandRoundATableCannotPlay_G26_G39_G42_TR37(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		paid int
		on   bool // hand-for-hand still on after the round
	}{
		{"the bubble bursts", 20, false},
		{"still above the money", 12, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
			payouts := standings.Structure{Unit: 1, Tiers: []standings.Tier{{Shares: slices.Repeat([]int{100}, tc.paid)}}}
			s := runningWith(t, db, 27, house.Rules{Payouts: payouts})
			ctx := t.Context()
			payEntries(t, s, 27)
			clk, f, d := rebuyEvent(t, s)
			if err := d.Start(ctx, "ev1"); err != nil {
				t.Fatal(err)
			}
			// Seven seated at each table, 21 in play; at table 1 one with
			// chips and six held.
			one := tablePlayers(t, s, 1)
			held := one[1:7]
			gone(t, s, f, one[7:]...)
			hold(t, s, f, held...)
			for _, n := range []int{2, 3} {
				gone(t, s, f, tablePlayers(t, s, n)[7:]...)
			}
			f.mu.Lock()
			f.tables["tbl1"].handNo, f.tables["tbl1"].holds[director.HoldLockstep] = 4, 5 // let deal its round hand
			for _, id := range []string{"tbl2", "tbl3"} {
				f.tables[id].handNo, f.tables[id].holds[director.HoldLockstep] = 5, 5 // played it, waiting
			}
			f.mu.Unlock()
			err := s.Update(ctx, "ev1", func(_ *store.Tx, tr *store.Tournament) error {
				tr.HandForHand.Start([]string{"1", "2", "3"})
				tr.HandForHand.Since = now
				for _, tb := range []string{"2", "3"} {
					if _, err := tr.HandForHand.HandEnded(tb); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			lockstep := f.lockstep
			load := func() store.Tournament {
				tr, err := s.Load(ctx, "ev1")
				if err != nil {
					t.Fatal(err)
				}
				return tr
			}
			// TR-17: while they may take the add-on with a rebuy, table 1
			// is in the round, not done with it.
			if err := d.Recover(ctx, []string{"ev1"}); err != nil {
				t.Fatal(err)
			}
			if hf := load().HandForHand; !hf.Active || hf.Round != 1 || !slices.Equal(hf.Done, []string{"2", "3"}) {
				t.Fatalf("G-26 with the add-on window open: %+v, want round 1 with tables 2 and 3 done", hf)
			}
			if lockstep("tbl2") != 5 || lockstep("tbl3") != 5 {
				t.Fatalf("G-26 tables 2 and 3 deal through %d and %d before table 1 played, want 5", lockstep("tbl2"), lockstep("tbl3"))
			}
			clk.Advance(15 * time.Minute) // the add-on window closes
			if err := d.Recover(ctx, []string{"ev1"}); err != nil {
				t.Fatal(err)
			}
			tr := load()
			if hf := tr.HandForHand; hf.Active != tc.on || len(tr.PendingKnockouts) != 0 {
				t.Fatalf("G-26 after the held were knocked out: %+v, pending %v; want on %v, none pending", hf, tr.PendingKnockouts, tc.on)
			}
			if tc.on && (tr.HandForHand.Round != 2 || len(tr.HandForHand.Done) != 0) {
				t.Fatalf("G-26 round %d, done %v; want round 2 begun", tr.HandForHand.Round, tr.HandForHand.Done)
			}
			res, err := s.Results(ctx, "ev1")
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res {
				if !slices.Contains(held, r.PlayerID) || r.Place != 16 {
					t.Errorf("TR-37 finish %+v, want the six held placed together 16th", r)
				}
			}
			if len(res) != len(held) {
				t.Fatalf("TR-37 %d placed, want the %d held: %+v", len(res), len(held), res)
			}
			if lockstep("tbl2") != 6 || lockstep("tbl3") != 6 {
				t.Fatalf("G-26 after the round tables 2 and 3 deal through %d and %d, want 6", lockstep("tbl2"), lockstep("tbl3"))
			}
			audit, err := s.Audit(ctx, "ev1")
			if err != nil {
				t.Fatal(err)
			}
			off := slices.ContainsFunc(audit, func(a store.AuditRecord) bool { return a.Action == "hand_for_hand_off" })
			if off == tc.on {
				t.Fatalf("G-39 hand_for_hand_off audited %v, want %v", off, !tc.on)
			}
		})
	}
}

// rebuyEvent makes s's event a rebuy event whose rebuy period is over
// and whose add-on window is open for 15 minutes more (TR-13, TR-17), on
// a fake clock, and returns the clock, the tables and a director wired
// to the books as the service wires it.
func rebuyEvent(t *testing.T, s *store.Store) (*clock.Fake, *fakeTables, *director.Director) {
	t.Helper()
	err := s.Update(t.Context(), "ev1", func(_ *store.Tx, tr *store.Tournament) error {
		tr.Rules.Entry = entry.Policy{RebuyPeriod: 30 * time.Minute, LastRebuyHands: 1, MaxRebuys: 2, RebuyChips: stack,
			AddOn: true, AddOnWindow: 15 * time.Minute, AddOnChips: 2 * stack}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(now.Add(31 * time.Minute))
	f := newFakeTables()
	books := desk.New(desk.Deps{Store: s, Clock: clk})
	return clk, f, director.New(director.Deps{Store: s, Tables: f, Clock: clk, Random: random.Seeded(11), KnockOutHeld: books.KnockOutHeld,
		Round: books.BookRound})
}
