package main

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/house"
	tournamentstore "github.com/cardroom/cardroom/services/tournament/store"
)

// TestTournamentChipsCheck: the wallet audit's check reports a running
// tournament whose director counted other than the chips it issued, and
// only that one; a count it cannot read fails the audit.
func TestTournamentChipsCheck(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		events []eventChips
		err    error
		want   []string
	}{
		{name: "conserved", events: []eventChips{{ID: "t1", Check: tournamentstore.ChipCheck{Issued: 27000, Counted: 27000, CountedAt: at}}}},
		{name: "one short", events: []eventChips{
			{ID: "t1", Check: tournamentstore.ChipCheck{Issued: 27000, Counted: 27000, CountedAt: at}},
			{ID: "t2", Check: tournamentstore.ChipCheck{Issued: 27000, Counted: 26950, CountedAt: at}},
		}, want: []string{"tournament t2: chips counted 26950 at 2026-12-01T20:00:00Z, issued 27000 (difference -50)"}},
		{name: "none running"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := tournamentChips(func(context.Context) ([]eventChips, error) { return tc.events, nil })(t.Context())
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("problems %q err %v, want %q", got, err, tc.want)
			}
		})
	}
	t.Run("unreadable", func(t *testing.T) {
		t.Parallel()
		down := errors.New("tournament service down")
		if _, err := tournamentChips(func(context.Context) ([]eventChips, error) { return nil, down })(t.Context()); !errors.Is(err, down) {
			t.Fatalf("err %v", err)
		}
	})
}

// TestTournamentChipsFromDB: cardroom wallet audit reads the director's
// saved counts of the running tournaments only, on both dialects.
func TestTournamentChipsFromDB(t *testing.T) {
	t.Parallel()
	opts := sqlstore.Options{Service: "tournament", Migrations: tournamentstore.Migrations(), Shared: []sqlstore.MigrationSet{events.Migrations}}
	testkit.EachStore(t, opts, func(t *testing.T, db *sqlstore.DB) {
		s := tournamentstore.New(db)
		ctx := t.Context()
		at := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
		for _, ev := range []struct {
			id      string
			status  event.Status
			counted int64
		}{{"running-short", event.Running, 990}, {"running-ok", event.Running, 1000}, {"finished-short", event.Finished, 990}} {
			e := event.Event{ID: ev.id, Name: ev.id, Game: "HOLDEM", Structure: "NO_LIMIT", Format: event.Freezeout,
				BuyIn: event.BuyIn{PrizePool: 1000, Fee: 100, Currency: "EUR"}, StartingStack: 1000, StartsAt: at,
				Status: ev.status, CreatedAt: at}
			if err := s.Create(ctx, e, house.Rules{}.WithDefaults(e)); err != nil {
				t.Fatal(err)
			}
			if err := s.SaveChipCheck(ctx, ev.id, tournamentstore.ChipCheck{Issued: 1000, Counted: ev.counted, CountedAt: at}); err != nil {
				t.Fatal(err)
			}
		}
		got, err := tournamentChips(chipsFromDB(db))(ctx)
		want := []string{"tournament running-short: chips counted 990 at 2026-12-01T20:00:00Z, issued 1000 (difference -10)"}
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("problems %q err %v, want %q", got, err, want)
		}
	})
}
