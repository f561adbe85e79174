package store

import (
	"slices"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/house"
)

// TestStuckSteps checks on both dialects that a stuck step's record
// replaces its previous one, that the steps list the longest stuck first,
// and that a cleared step is gone while the others stay.
func TestStuckSteps(t *testing.T) {
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
		hand := StuckStep{Step: "hand end at table 2", Kind: "hand_end", Error: "hold: table service failed", Attempts: 3, Since: at.Add(time.Minute),
			Last: at.Add(2 * time.Minute)}
		pass := StuckStep{Step: "recovery", Kind: "recovery", Error: "levels: table service failed", Attempts: 3, Since: at, Last: at.Add(time.Minute)}
		for _, st := range []StuckStep{hand, pass} {
			if err := s.SaveStuckStep(ctx, "t1", st); err != nil {
				t.Fatal(err)
			}
		}
		pass.Attempts, pass.Last, pass.Error = 4, at.Add(3*time.Minute), "levels: unreachable"
		if err := s.SaveStuckStep(ctx, "t1", pass); err != nil {
			t.Fatal(err)
		}
		got, err := s.StuckSteps(ctx, "t1")
		if err != nil || !slices.Equal(got, []StuckStep{pass, hand}) {
			t.Fatalf("stuck steps %+v (%v), want %+v", got, err, []StuckStep{pass, hand})
		}
		if err := s.ClearStuckStep(ctx, "t1", pass.Step); err != nil {
			t.Fatal(err)
		}
		if got, err := s.StuckSteps(ctx, "t1"); err != nil || !slices.Equal(got, []StuckStep{hand}) {
			t.Fatalf("after clearing the pass: %+v (%v)", got, err)
		}
	})
}
