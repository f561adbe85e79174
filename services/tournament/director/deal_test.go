package director_test

import (
	"testing"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/tournament/director"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// TestDealHoldAndStacks_TR38: a deal talk holds every open table at its
// next hand end and reads each entrant's chips from the tables (a hand in
// play is reported, its stacks leave out the pot); a table broken on the
// way counts for nothing; a refused deal releases the hold.
func TestDealHoldAndStacks_TR38(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		_, f, d := started(t, db, 12)
		f.mu.Lock()
		var ids []string
		var total int64
		players := 0
		for id, tb := range f.tables {
			ids = append(ids, id)
			for _, p := range tb.seats {
				tb.stacks[p] = 1000 + int64(len(p))
				total += tb.stacks[p]
				players++
			}
		}
		f.mu.Unlock()
		if len(ids) != 2 {
			t.Fatalf("tables %v", ids)
		}
		if err := d.HoldForDeal(t.Context(), "ev1"); err != nil {
			t.Fatal(err)
		}
		f.mu.Lock()
		for _, id := range ids {
			if through, ok := f.tables[id].holds[director.HoldDeal]; !ok || through != 0 {
				t.Errorf("%s holds %v: want the deal's hold at the next hand end", id, f.tables[id].holds)
			}
		}
		f.tables[ids[0]].inHand = true
		f.mu.Unlock()
		seated, err := d.Stacks(t.Context(), "ev1")
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, st := range seated.Stacks {
			sum += st
		}
		if !seated.InHand || len(seated.Stacks) != players || sum != total {
			t.Fatalf("stacks %v (in hand %v): want %d players, %d chips, a hand in play", seated.Stacks, seated.InHand, players, total)
		}

		// The second table broke: closed, nobody there.
		f.mu.Lock()
		f.tables[ids[0]].inHand = false
		closed := f.tables[ids[1]]
		for _, p := range closed.seats {
			delete(closed.stacks, p)
		}
		closed.seats, closed.closed = map[int]string{}, true
		f.mu.Unlock()
		if seated, err = d.Stacks(t.Context(), "ev1"); err != nil || seated.InHand {
			t.Fatalf("stacks after the break: %v, %v", seated, err)
		}
		if err := d.ReleaseDeal(t.Context(), "ev1"); err != nil {
			t.Fatalf("release with a broken table: %v", err)
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if _, ok := f.tables[ids[0]].holds[director.HoldDeal]; ok {
			t.Fatalf("the deal's hold stayed: %v", f.tables[ids[0]].holds)
		}
	})
}
