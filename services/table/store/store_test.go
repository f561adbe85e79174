package store

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/tables"
)

func TestStore(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "table", Migrations: Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s := New(db)
		ctx := t.Context()
		var want []tables.Definition
		for i := range 3 {
			d := tables.Definition{
				ID: fmt.Sprintf("t%d", i), Name: fmt.Sprintf("Table %d", i), Seats: 9, Kind: tables.Cash,
				Config:    engine.Config{Game: engine.Omaha, Structure: engine.PotLimit, Stakes: engine.Stakes{SmallBlind: 100, BigBlind: 200}},
				CreatedAt: time.Date(2026, 11, 30, 18, i, 0, 0, time.UTC),
			}
			if err := d.Validate(); err != nil {
				t.Fatal(err)
			}
			if err := s.Create(ctx, d, nil); err != nil {
				t.Fatal(err)
			}
			want = append(want, d)
		}
		boom := errors.New("outbox down")
		failed := want[0]
		failed.ID = "t9"
		if err := s.Create(ctx, failed, func(*sqlstore.Tx) error { return boom }); !errors.Is(err, boom) {
			t.Fatalf("Create with failing outbox = %v", err)
		}
		if _, err := s.Get(ctx, "t9"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("table created although its event was not: %v", err)
		}
		got, err := s.Get(ctx, "t1")
		if err != nil || !reflect.DeepEqual(got, want[1]) {
			t.Fatalf("Get = %+v, %v; want %+v", got, err, want[1])
		}
		if _, err := s.Get(ctx, "zz"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Get(unknown) = %v", err)
		}
		page, next, err := s.ListListed(ctx, 2, "", false)
		if err != nil || len(page) != 2 || next != "t1" {
			t.Fatalf("List page 1 = %d tables, next %q, %v", len(page), next, err)
		}
		page, next, err = s.ListListed(ctx, 2, next, false)
		if err != nil || len(page) != 1 || page[0].ID != "t2" || next != "" {
			t.Fatalf("List page 2 = %v, next %q, %v", page, next, err)
		}
	})
}

// TestOldCashTableGetsItsChipUnit_TP31: a cash table stored before tables
// had a smallest chip (its config has no chip_unit) reads with the one a
// new table at its stakes gets — 5 at 5/10 — rather than the engine's
// default of 1, which let a raise to 23 through and split pots to 1 chip.
// A tournament table's comes from its levels and stays unset.
func TestOldCashTableGetsItsChipUnit_TP31(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "table", Migrations: Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s := New(db)
		for _, tt := range []struct {
			id   string
			kind tables.Kind
			want int64
		}{{"old-cash", tables.Cash, 5}, {"old-tournament", tables.Tournament, 0}} {
			// Not validated: stored as a table of before the setting.
			d := tables.Definition{ID: tt.id, Name: tt.id, Seats: 9, Kind: tt.kind, CreatedAt: time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC),
				Config: engine.Config{Game: engine.Holdem, Structure: engine.NoLimit, Stakes: engine.Stakes{SmallBlind: 5, BigBlind: 10}}}
			if err := s.Create(t.Context(), d, nil); err != nil {
				t.Fatal(err)
			}
			got, err := s.Get(t.Context(), tt.id)
			if err != nil || got.Config.Stakes.ChipUnit != tt.want {
				t.Fatalf("%s: chip unit %d, %v; want %d", tt.id, got.Config.Stakes.ChipUnit, err, tt.want)
			}
		}
	})
}
