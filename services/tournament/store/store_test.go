package store

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/house"
)

func TestStore(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "tournament", Migrations: Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s := New(db)
		ctx := t.Context()
		base := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
		var want []event.Event
		for i := range 5 {
			e := event.Event{
				ID: fmt.Sprintf("t%d", i), Name: fmt.Sprintf("Event %d", i), Game: "HOLDEM", Structure: "NO_LIMIT",
				Format: event.Freezeout, BuyIn: event.BuyIn{PrizePool: 5000, Fee: 1100, Currency: "EUR"},
				StartingStack: 20000, StartsAt: base.Add(time.Duration(4-i) * time.Hour), Status: event.Scheduled,
				CreatedAt: base.Add(-time.Hour),
			}
			if err := s.Create(ctx, e, house.Rules{}.WithDefaults(e)); err != nil {
				t.Fatal(err)
			}
			want = append([]event.Event{e}, want...) // later ids start earlier
		}
		if err := s.Create(ctx, want[0], house.Rules{}); err == nil {
			t.Fatal("duplicate id accepted")
		}

		got, err := s.Get(ctx, "t2")
		if err != nil || got != want[2] {
			t.Fatalf("Get = %+v, %v; want %+v", got, err, want[2])
		}
		if _, err := s.Get(ctx, "nope"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Get(unknown) = %v", err)
		}

		var listed []event.Event
		token := ""
		for pages := 0; ; pages++ {
			p, err := s.List(ctx, 2, token)
			if err != nil {
				t.Fatal(err)
			}
			listed = append(listed, p.Events...)
			if p.Next == "" {
				if pages != 2 {
					t.Fatalf("pages = %d, want 3", pages+1)
				}
				break
			}
			token = p.Next
		}
		if len(listed) != len(want) {
			t.Fatalf("listed %d, want %d", len(listed), len(want))
		}
		for i := range want {
			if listed[i] != want[i] {
				t.Fatalf("listed[%d] = %s, want %s (by start time)", i, listed[i].ID, want[i].ID)
			}
		}
		if _, err := s.List(ctx, 2, "!!"); fault.KindOf(err) != fault.Invalid {
			t.Fatalf("List(bad token) = %v", err)
		}
	})
}
