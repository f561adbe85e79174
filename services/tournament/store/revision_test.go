package store

import (
	"slices"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/house"
)

// TestEntriesSince: every transaction that writes entries takes one new
// revision, and EntriesSince returns exactly the entries written after a
// revision, with the revision now (what the director's kept seating
// reads after each hand), on SQLite and PostgreSQL.
func TestEntriesSince(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "tournament", Migrations: Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s := New(db)
		ctx := t.Context()
		now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
		e := event.Event{ID: "f1", Name: "Freezeout", Game: "HOLDEM", Structure: "NO_LIMIT", Format: event.Freezeout,
			BuyIn: event.BuyIn{PrizePool: 100, Fee: 10, Currency: "EUR"}, StartingStack: 5000, StartsAt: now, Status: event.Scheduled, CreatedAt: now}
		if err := s.Create(ctx, e, house.Rules{}.WithDefaults(e)); err != nil {
			t.Fatal(err)
		}
		put := func(ens ...entry.Entry) {
			t.Helper()
			err := s.Update(ctx, "f1", func(tx *Tx, _ *Tournament) error {
				for _, en := range ens {
					en.EventID, en.RegisteredAt = "f1", now
					if err := tx.PutEntry(en); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		since := func(rev int64) ([]string, int64) {
			t.Helper()
			ens, now, err := s.EntriesSince(ctx, "f1", rev)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, en := range ens {
				names = append(names, en.PlayerID+":"+en.Status.String())
			}
			return names, now
		}
		if got, rev := since(-1); got != nil || rev != 0 {
			t.Fatalf("before any entry: %v at %d", got, rev)
		}
		put(entry.Entry{PlayerID: "ann", Status: entry.Active, Table: 1, Seat: 1}, entry.Entry{PlayerID: "bob", Status: entry.Active, Table: 1, Seat: 2})
		all, r1 := since(-1)
		if len(all) != 2 || r1 != 1 {
			t.Fatalf("two entries in one transaction: %v at %d, want both at 1", all, r1)
		}
		if got, rev := since(r1); got != nil || rev != r1 {
			t.Fatalf("nothing changed: %v at %d", got, rev)
		}
		put(entry.Entry{PlayerID: "bob", Status: entry.Busted, Table: 1, Seat: 2})
		put(entry.Entry{PlayerID: "cy", Status: entry.Active, Table: 2, Seat: 5})
		got, r3 := since(r1)
		if !slices.Equal(got, []string{"bob:" + entry.Busted.String(), "cy:" + entry.Active.String()}) || r3 != 3 {
			t.Fatalf("after the bust and the late seat: %v at %d", got, r3)
		}
		// A transaction that writes no entry takes no revision.
		if err := s.Update(ctx, "f1", func(*Tx, *Tournament) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if got, rev := since(r3); got != nil || rev != r3 {
			t.Fatalf("after an update without entries: %v at %d", got, rev)
		}
		if _, _, err := s.EntriesSince(ctx, "nope", 0); err == nil {
			t.Fatal("EntriesSince of an unknown tournament: no error")
		}
		en, ok, err := s.Entry(ctx, "f1", "bob")
		if err != nil || !ok || en.Status != entry.Busted {
			t.Fatalf("Entry(bob) = %+v, %v, %v", en, ok, err)
		}
		if _, ok, err := s.Entry(ctx, "f1", "dan"); err != nil || ok {
			t.Fatalf("Entry(dan) = %v, %v", ok, err)
		}
	})
}
