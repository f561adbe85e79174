package director_test

import (
	"testing"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/tournament/director"
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
