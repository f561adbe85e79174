package director_test

import (
	"fmt"
	"testing"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/tournament/director"
	"github.com/cardroom/cardroom/services/tournament/house"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// TestHandEnded_TablesBreakInTheHouseOrder_TR23_G25_G40: 27 entrants at
// three tables lose nine (table 1 five short and halted, table 3 four
// left): the eighteen left fit at two tables. The table that breaks is
// the house's: by default the highest-numbered, at once; with
// break_order [2] table 2, at its own next hand end; with [7, 1] table 1
// (7 never plays), which is halted and cannot deal, so it breaks at table
// 3's hand end. Either way the two tables left seat nine each and the
// broken one is closed.
func TestHandEnded_TablesBreakInTheHouseOrder_TR23_G25_G40(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		order  []int
		broken string
	}{
		{order: nil, broken: "tbl3"},
		{order: []int{2}, broken: "tbl2"},
		{order: []int{7, 1}, broken: "tbl1"},
	} {
		t.Run(fmt.Sprint(tc.order), func(t *testing.T) {
			t.Parallel()
			db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
			s := runningWith(t, db, 27, house.Rules{BreakOrder: tc.order})
			f := newFakeTables()
			d := newDirector(s, f, clock.NewFake(now))
			ctx := t.Context()
			if err := d.Start(ctx, "ev1"); err != nil {
				t.Fatal(err)
			}
			for _, step := range []struct {
				table int
				out   int
			}{{1, 4}, {3, 5}, {2, 0}} {
				id := fmt.Sprintf("tbl%d", step.table)
				out := tablePlayers(t, s, step.table)[:step.out]
				bust(t, s, f, out...)
				if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: id, Table: step.table, No: 1, Busted: out}); err != nil {
					t.Fatal(err)
				}
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			for _, id := range []string{"tbl1", "tbl2", "tbl3"} {
				tb := f.tables[id]
				if id == tc.broken {
					if !tb.closed || len(tb.seats) != 0 {
						t.Fatalf("%s, first to break, still seats %v (closed %v)", id, tb.seats, tb.closed)
					}
					continue
				}
				if tb.closed || len(tb.seats) != 9 {
					t.Fatalf("%s seats %v (closed %v), want nine: %s broke", id, tb.seats, tb.closed, tc.broken)
				}
			}
		})
	}
}
