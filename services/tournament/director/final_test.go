package director_test

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/tournament/director"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/house"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// loseAll takes every chip of players at their tables and gives them to
// another player there, as a hand the books have not heard of yet does:
// the players sit with no chips and the books still count them.
func loseAll(t *testing.T, f *fakeTables, players ...string) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range players {
		tb, _ := f.where("ev1", p)
		for _, q := range tb.seats {
			if q != p && tb.stacks[q] > 0 && !slices.Contains(players, q) {
				tb.stacks[q] += tb.stacks[p]
				tb.stacks[p] = 0
				break
			}
		}
		if tb.stacks[p] != 0 {
			t.Fatalf("nobody at %s to win %s's chips", tb.id, p)
		}
	}
}

// moveOut records a move of player to seat of table to (the books' entry
// and the movement slip, as balance does) and takes its first step at the
// table service, returning the move's state there.
func moveOut(t *testing.T, s *store.Store, f *fakeTables, player string, to, seat int) director.MoveState {
	t.Helper()
	ctx := t.Context()
	links, err := s.Tables(ctx, "ev1")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[int]string{}
	for _, l := range links {
		ids[l.Table] = l.TableID
	}
	moveID := "trn/ev1/move/test-" + player
	var from entry.Entry
	err = s.Update(ctx, "ev1", func(tx *store.Tx, _ *store.Tournament) error {
		en, err := tx.Entry(player)
		if err != nil {
			return err
		}
		from = *en
		en.Table, en.Seat = to, seat
		if err := tx.PutEntry(*en); err != nil {
			return err
		}
		return tx.AddAudit(director.Actor, "move", map[string]any{"move_id": moveID, "player_id": player, "from_table": from.Table,
			"from_seat": from.Seat, "to_table": to, "to_seat": seat, "rule_id": "TR-23"}, now)
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.MoveOut(ctx, director.Move{ID: moveID, Player: player, FromTableID: ids[from.Table], ToTableID: ids[to], ToSeat: seat})
	if err != nil {
		t.Fatalf("move out %s: %v", player, err)
	}
	return st
}

// finalState checks the event after the final table formed (TR-07,
// G-28): every player the books count sits at the final table in the
// seat their entry names with the chips they had, each arrived by a TR-07
// slip; the final table's button is the recorded draw's; every other
// table is closed; no move is left open; chips are conserved.
func finalState(t *testing.T, s *store.Store, f *fakeTables, d *director.Director, final string, chips map[string]int64) {
	t.Helper()
	ctx := t.Context()
	links, err := s.Tables(ctx, "ev1")
	if err != nil {
		t.Fatal(err)
	}
	finalNo := 0
	for _, l := range links {
		if l.TableID == final {
			finalNo = l.Table
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	ft := f.tables[final]
	if ft == nil || finalNo == 0 {
		t.Fatalf("no final table %s (links %v)", final, links)
	}
	slips := map[string]int{}
	audit, _ := s.Audit(ctx, "ev1")
	for _, a := range audit {
		var m struct {
			Player string `json:"player_id"`
			To     int    `json:"to_table"`
			Seat   int    `json:"to_seat"`
			Rule   string `json:"rule_id"`
		}
		if a.Action == "move" && json.Unmarshal(a.Detail, &m) == nil && m.Rule == "TR-07" {
			if m.To != finalNo {
				t.Errorf("TR-07 slip of %s to table %d, final table %d", m.Player, m.To, finalNo)
			}
			slips[m.Player] = m.Seat
		}
	}
	ens, _ := s.Entries(ctx, "ev1")
	active := 0
	for _, en := range ens {
		if en.Status != entry.Active {
			if _, drawn := slips[en.PlayerID]; drawn {
				t.Errorf("%s (%s) drew a seat at the final table", en.PlayerID, en.Status)
			}
			continue
		}
		active++
		tb, seat := f.where("ev1", en.PlayerID)
		if tb != ft || en.Table != finalNo || en.Seat != seat || slips[en.PlayerID] != seat || ft.stacks[en.PlayerID] != chips[en.PlayerID] {
			id := ""
			if tb != nil {
				id = tb.id
			}
			t.Errorf("%s at %s seat %d with %d; entry %d/%d, slip seat %d, had %d", en.PlayerID, id, seat, ft.stacks[en.PlayerID],
				en.Table, en.Seat, slips[en.PlayerID], chips[en.PlayerID])
		}
	}
	if len(ft.seats) != active || len(slips) != active {
		t.Errorf("final table seats %v, %d TR-07 slips, %d players", ft.seats, len(slips), active)
	}
	for _, tb := range f.tables {
		if tb != ft && !tb.closed {
			t.Errorf("old table %s not closed: seats %v", tb.id, tb.seats)
		}
	}
	for _, m := range f.moves {
		if m.State != director.MoveDelivered && m.State != director.MoveCancelled {
			t.Errorf("move %s left %v", m.ID, m.State)
		}
	}
	var button int
	draws, _ := s.Draws(ctx, "ev1")
	for _, dr := range draws {
		var b struct {
			Table int `json:"table"`
			Seat  int `json:"button_seat"`
		}
		if dr.Kind == "button" && json.Unmarshal(dr.Record, &b) == nil && b.Table == finalNo {
			button = b.Seat
		}
	}
	if _, seated := ft.seats[button]; !seated || ft.button != button {
		t.Errorf("final table button %d, drawn %d", ft.button, button)
	}
	if ft.holds[director.HoldLockstep] != 1 || len(ft.rows) == 0 {
		t.Errorf("final table holds %v, %d rows: not let deal hand 1", ft.holds, len(ft.rows))
	}
	if d.Mismatch("ev1") != 0 {
		t.Errorf("chips mismatch %d", d.Mismatch("ev1"))
	}
}

// stacks returns the chips of every player the books count, wherever the
// table service has them (a move in transit carries them).
func stacks(t *testing.T, s *store.Store, f *fakeTables) map[string]int64 {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]int64{}
	for _, en := range mustEntries(t, s) {
		if en.Status != entry.Active {
			continue
		}
		if tb, _ := f.where("ev1", en.PlayerID); tb != nil {
			out[en.PlayerID] = tb.stacks[en.PlayerID]
		}
		for _, m := range f.moves {
			if m.Player == en.PlayerID && m.State == director.MoveInTransit {
				out[en.PlayerID] = m.Chips
			}
		}
	}
	return out
}

// TestFinalRedraw_WaitsUntilEveryTableIsAtRest_TR07_G28 plays the final
// table's redraw against a table service that behaves as the real one
// does on a cluster, where hands end and are handled in any order: the
// redraw waits while a table is in a hand, while a table still seats a
// player whose bust the books have not heard of, and while a move is not
// finished (the case the freezeout stalled on: a move whose new seat was
// still held by a busted player, finished after the redraw had taken its
// player elsewhere, left them at an old table that then could not close).
// Each time the hand that settles the last table redraws: every player
// left draws a seat at the new final table, nobody is left at an old one,
// every old table closes, and no chip is made or lost.
func TestFinalRedraw_WaitsUntilEveryTableIsAtRest_TR07_G28(t *testing.T) {
	t.Parallel()
	type setup struct {
		// first is the hand whose end finds the players fitting one table;
		// last the one that settles the last table.
		first, last director.Hand
	}
	cases := []struct {
		name string
		// arrange leaves 9 players at tables 1 and 2 (4 and 5) in the
		// books, in the state the case names.
		arrange func(t *testing.T, s *store.Store, f *fakeTables) setup
	}{
		{"the other table in a hand", func(t *testing.T, s *store.Store, f *fakeTables) setup {
			out1, out2 := tablePlayers(t, s, 1)[4:], tablePlayers(t, s, 2)[5:]
			bust(t, s, f, append(slices.Clone(out1), out2...)...)
			f.tables["tbl2"].inHand = true
			return setup{director.Hand{TableID: "tbl1", Table: 1, No: 5, Busted: out1},
				director.Hand{TableID: "tbl2", Table: 2, No: 5, Busted: out2}}
		}},
		{"a bust at the other table not handled yet", func(t *testing.T, s *store.Store, f *fakeTables) setup {
			// Table 2's hand busted q: the table seats them with no chips,
			// its hand's end is on its way; the books count 9 with q.
			p1, p2 := tablePlayers(t, s, 1), tablePlayers(t, s, 2)
			q, out1, out2 := p2[4], p1[4:], p2[5:]
			bust(t, s, f, append(slices.Clone(out1), out2...)...)
			loseAll(t, f, q)
			return setup{director.Hand{TableID: "tbl1", Table: 1, No: 5, Busted: out1},
				director.Hand{TableID: "tbl2", Table: 2, No: 5, Busted: []string{q}}}
		}},
		{"a move its new table refused", func(t *testing.T, s *store.Store, f *fakeTables) setup {
			// x is on the way from table 1 to table 2, into the seat of q,
			// whom the books busted and table 2 lets go when its hand's
			// end is handled.
			p1, p2 := tablePlayers(t, s, 1), tablePlayers(t, s, 2)
			q, x := p2[5], p1[3]
			out1, out2 := p1[4:], append([]string{q}, p2[6:]...)
			bust(t, s, f, append(slices.Clone(out1), out2...)...)
			_, qSeat := f.at(q)
			if st := moveOut(t, s, f, x, 2, qSeat); st != director.MoveInTransit {
				t.Fatalf("move out between hands: %v", st)
			}
			return setup{director.Hand{TableID: "tbl1", Table: 1, No: 5, Busted: out1},
				director.Hand{TableID: "tbl2", Table: 2, No: 5, Busted: out2}}
		}},
		{"a move ordered during a hand", func(t *testing.T, s *store.Store, f *fakeTables) setup {
			// x, moved from table 2 while in a hand there into a seat of
			// table 1 that a busted player leaves at its hand's end, leaves
			// when their own hand ends (pending until then).
			p1, p2 := tablePlayers(t, s, 1), tablePlayers(t, s, 2)
			x := p2[4]
			out1, out2 := p1[4:], p2[5:]
			bust(t, s, f, append(slices.Clone(out1), out2...)...)
			f.tables["tbl2"].inHand = true
			_, seat := f.at(out1[0])
			if st := moveOut(t, s, f, x, 1, seat); st != director.MovePending {
				t.Fatalf("move out during a hand: %v", st)
			}
			return setup{director.Hand{TableID: "tbl1", Table: 1, No: 5, Busted: out1},
				director.Hand{TableID: "tbl2", Table: 2, No: 5, Busted: out2}}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
			s, f, d := started(t, db, 18)
			ctx := t.Context()
			su := c.arrange(t, s, f)
			if err := d.HandEnded(ctx, "ev1", su.first); err != nil {
				t.Fatalf("hand at table 1: %v", err)
			}
			if _, held := f.tables["tbl1"].holds[director.HoldFinal]; !held || len(f.tables) != 2 || len(f.moves) > 1 {
				t.Fatalf("redrawn before table 2 came to rest: table 1 holds %v, %d tables, moves %d", f.tables["tbl1"].holds, len(f.tables), len(f.moves))
			}
			// A recovery pass meanwhile does not redraw either.
			if err := d.Recover(ctx, []string{"ev1"}); err != nil {
				t.Fatal(err)
			}
			if len(f.tables) != 2 {
				t.Fatalf("the recovery pass redrew before table 2 came to rest: %d tables", len(f.tables))
			}
			f.endHand("tbl2")
			bust(t, s, f, su.last.Busted...) // the books, as the hand's record does
			chips := stacks(t, s, f)
			if err := d.HandEnded(ctx, "ev1", su.last); err != nil {
				t.Fatalf("hand at table 2: %v", err)
			}
			finalState(t, s, f, d, "tbl3", chips)
		})
	}
}

// TestFinalRedraw_FinishedAfterACrash_TR07: the process dies after the
// tables were held for the final table, or between the redraw's moves;
// the recovery pass of the next process redraws, or finishes the moves,
// lets the final table deal only once everyone arrived, and closes the
// old tables.
func TestFinalRedraw_FinishedAfterACrash_TR07(t *testing.T) {
	t.Parallel()
	for _, crash := range []string{"held", "MoveOut", "MoveIn"} {
		t.Run(crash, func(t *testing.T) {
			t.Parallel()
			db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
			s, f, d := started(t, db, 18)
			ctx := t.Context()
			out1, out2 := tablePlayers(t, s, 1)[4:], tablePlayers(t, s, 2)[5:]
			bust(t, s, f, append(slices.Clone(out1), out2...)...)
			chips := stacks(t, s, f)
			switch crash {
			case "held":
				// Table 2 was in a hand; its hand's end was handled by a
				// process that died before the redraw.
				f.tables["tbl2"].inHand = true
				if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl1", Table: 1, No: 5, Busted: out1}); err != nil {
					t.Fatal(err)
				}
				f.endHand("tbl2")
			default:
				f.fail[crash] = 1
				if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl1", Table: 1, No: 5, Busted: out1}); !errors.Is(err, director.ErrUnreachable) {
					t.Fatalf("redraw with the table service silent: %v", err)
				}
				final := f.tables["tbl3"]
				if final == nil || final.holds[director.HoldLockstep] != 0 {
					t.Fatalf("final table let deal before its players arrived: %+v", final)
				}
			}
			// Table 2's busted are still seated there (its hand's end was
			// not handled): the recovery removes them to close it.
			d = newDirector(s, f, clock.NewFake(now))
			for range 2 {
				if err := d.Recover(ctx, []string{"ev1"}); err != nil {
					t.Fatal(err)
				}
			}
			finalState(t, s, f, d, "tbl3", chips)
		})
	}
}

// TestFinalRedraw_HouseRuleOff_TR07: an event whose house switched the
// redraw off breaks down to the last table as before: the players of the
// table that breaks draw seats at the one that stays, whose players keep
// theirs, and no new table opens.
func TestFinalRedraw_HouseRuleOff_TR07(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	s := runningWith(t, db, 18, house.Rules{NoFinalRedraw: true})
	f := newFakeTables()
	d := newDirector(s, f, clock.NewFake(now))
	ctx := t.Context()
	if err := d.Start(ctx, "ev1"); err != nil {
		t.Fatal(err)
	}
	out1, out2 := tablePlayers(t, s, 1)[4:], tablePlayers(t, s, 2)[5:]
	bust(t, s, f, append(slices.Clone(out1), out2...)...)
	stay := map[string]int{}
	for _, p := range tablePlayers(t, s, 1) {
		_, stay[p] = f.at(p)
	}
	if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl1", Table: 1, No: 5, Busted: out1}); err != nil {
		t.Fatal(err)
	}
	if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl2", Table: 2, No: 5, Busted: out2}); err != nil {
		t.Fatal(err)
	}
	if len(f.tables) != 2 || !f.tables["tbl2"].closed || len(f.tables["tbl1"].seats) != 9 {
		t.Fatalf("%d tables, table 2 closed %v, table 1 seats %v", len(f.tables), f.tables["tbl2"].closed, f.tables["tbl1"].seats)
	}
	for p, seat := range stay {
		if id, now := f.at(p); id != "tbl1" || now != seat {
			t.Errorf("%s of the table that stays moved to %s seat %d from seat %d", p, id, now, seat)
		}
	}
	if d.Mismatch("ev1") != 0 {
		t.Fatalf("chips mismatch %d", d.Mismatch("ev1"))
	}
}

// TestFinishMoves_FreesASeatOnlyAtATableThatCannotDeal_G42: x is in
// transit from table 1 to table 2, into the seat of q, whom the books
// knocked out and table 2 still seats with no chips. Where table 2 can
// deal, the handling of its hand frees the seat (as a final redraw waits
// for), and a recovery pass leaves the move in transit; where it cannot
// (one player left with chips besides q, no hand in play), no hand will
// end there, so the pass takes q off and seats x with the chips in
// transit (G-42) instead of leaving them in transit for ever.
func TestFinishMoves_FreesASeatOnlyAtATableThatCannotDeal_G42(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		withChips int // table 2's players left with chips besides x
		want      director.MoveState
	}{
		{"the table can deal", 3, director.MoveInTransit},
		{"the table cannot deal", 1, director.MoveDelivered},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
			s, f, d := started(t, db, 27)
			ctx := t.Context()
			p1, p2 := tablePlayers(t, s, 1), tablePlayers(t, s, 2)
			q, x := p2[tc.withChips], p1[0]
			bust(t, s, f, p2[tc.withChips:]...)
			f.mu.Lock()
			chips := f.tables["tbl1"].stacks[x]
			f.mu.Unlock()
			_, qSeat := f.at(q)
			if st := moveOut(t, s, f, x, 2, qSeat); st != director.MoveInTransit {
				t.Fatalf("move out between hands: %v", st)
			}
			if err := d.Recover(ctx, []string{"ev1"}); err != nil {
				t.Fatal(err)
			}
			moves, err := f.Moves(ctx, "ev1")
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(moves, func(m director.Move) bool { return m.Player == x })
			if i < 0 || moves[i].State != tc.want {
				t.Fatalf("G-42: x's move %+v, want %v", moves, tc.want)
			}
			if tc.want != director.MoveDelivered {
				return
			}
			if id, seat := f.at(x); id != "tbl2" || seat != qSeat {
				t.Fatalf("x at %s seat %d, want tbl2 seat %d", id, seat, qSeat)
			}
			f.mu.Lock()
			got := f.tables["tbl2"].stacks[x]
			f.mu.Unlock()
			if got != chips {
				t.Fatalf("x arrived with %d chips, carried %d", got, chips)
			}
		})
	}
}
