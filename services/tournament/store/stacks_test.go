package store

import (
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/house"
)

// TestStacks checks on both dialects that a table's report after a hand
// replaces a player's count, that the count follows a player moved to
// another table, and that a redelivered report of an earlier hand at the
// old table changes nothing.
func TestStacks(t *testing.T) {
	t.Parallel()
	opts := sqlstore.Options{Service: "tournament", Migrations: Migrations(), Shared: []sqlstore.MigrationSet{events.Migrations}}
	testkit.EachStore(t, opts, func(t *testing.T, db *sqlstore.DB) {
		s := New(db)
		ctx := t.Context()
		at := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
		e := event.Event{ID: "t1", Name: "t1", Game: "HOLDEM", Structure: "NO_LIMIT", Format: event.Freezeout,
			BuyIn: event.BuyIn{PrizePool: 5000, Fee: 1100, Currency: "EUR"}, StartingStack: 20000, StartsAt: at,
			Status: event.Running, CreatedAt: at}
		if err := s.Create(ctx, e, house.Rules{}.WithDefaults(e)); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Stacks(ctx, "t1"); err != nil || len(got) != 0 {
			t.Fatalf("before any hand: %v %v", got, err)
		}
		steps := []struct {
			name string
			save []Stack
			want map[string]Stack
		}{
			{"hand 1 at A", []Stack{{PlayerID: "ann", TableID: "A", HandNo: 1, Chips: 19000, EndedAt: at}, {PlayerID: "bob", TableID: "A", HandNo: 1, Chips: 21000, EndedAt: at}},
				map[string]Stack{"ann": {PlayerID: "ann", TableID: "A", HandNo: 1, Chips: 19000, EndedAt: at}, "bob": {PlayerID: "bob", TableID: "A", HandNo: 1, Chips: 21000, EndedAt: at}}},
			{"ann moved to B plays its hand 7", []Stack{{PlayerID: "ann", TableID: "B", HandNo: 7, Chips: 25000, EndedAt: at.Add(2 * time.Minute)}},
				map[string]Stack{"ann": {PlayerID: "ann", TableID: "B", HandNo: 7, Chips: 25000, EndedAt: at.Add(2 * time.Minute)}, "bob": {PlayerID: "bob", TableID: "A", HandNo: 1, Chips: 21000, EndedAt: at}}},
			{"A's hand 2 redelivered late", []Stack{{PlayerID: "ann", TableID: "A", HandNo: 2, Chips: 18000, EndedAt: at.Add(time.Minute)}, {PlayerID: "bob", TableID: "A", HandNo: 2, Chips: 22000, EndedAt: at.Add(time.Minute)}},
				map[string]Stack{"ann": {PlayerID: "ann", TableID: "B", HandNo: 7, Chips: 25000, EndedAt: at.Add(2 * time.Minute)}, "bob": {PlayerID: "bob", TableID: "A", HandNo: 2, Chips: 22000, EndedAt: at.Add(time.Minute)}}},
		}
		for _, st := range steps {
			if err := s.SaveStacks(ctx, "t1", st.save); err != nil {
				t.Fatal(err)
			}
			got, err := s.Stacks(ctx, "t1")
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(st.want) {
				t.Fatalf("%s: %+v, want %+v", st.name, got, st.want)
			}
			for p, w := range st.want {
				if got[p] != w {
					t.Fatalf("%s: %s %+v, want %+v", st.name, p, got[p], w)
				}
			}
		}
		// In a transaction, as the director reads it for a slip.
		err := s.Update(ctx, "t1", func(tx *Tx, _ *Tournament) error {
			ann, ok, err := tx.Stack("ann")
			if err != nil || !ok || ann.Chips != 25000 || ann.HandNo != 7 {
				t.Errorf("ann in a transaction: %+v ok %v err %v", ann, ok, err)
			}
			if _, ok, err := tx.Stack("zed"); err != nil || ok {
				t.Errorf("zed, never counted: ok %v err %v", ok, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}
