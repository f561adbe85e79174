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

// TestChipCheck checks on both dialects that the director's latest chip
// count replaces the previous one and that none is there before the first.
func TestChipCheck(t *testing.T) {
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
		if _, ok, err := s.ChipCheck(ctx, "t1"); err != nil || ok {
			t.Fatalf("before any count: ok %v, err %v", ok, err)
		}
		for _, c := range []ChipCheck{
			{Issued: 60000, Counted: 59000, CountedAt: at},
			{Issued: 60000, Counted: 60000, CountedAt: at.Add(time.Minute)},
		} {
			if err := s.SaveChipCheck(ctx, "t1", c); err != nil {
				t.Fatal(err)
			}
			got, ok, err := s.ChipCheck(ctx, "t1")
			if err != nil || !ok || got != c {
				t.Fatalf("chip check %+v ok %v err %v, want %+v", got, ok, err, c)
			}
		}
	})
}
