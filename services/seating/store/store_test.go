package store

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/seating/waitlist"
)

var now = time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC)

func spec(bb int64) waitlist.Spec {
	return waitlist.Spec{Variant: 1, Structure: 1, Stakes: waitlist.Stakes{SmallBlind: bb / 2, BigBlind: bb}}
}

func TestStore(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "seating", Migrations: Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := New(db, lock.NewLocal())
		for i := range 3 {
			g, err := waitlist.New(fmt.Sprintf("w%d", i), spec(int64(200*(i+1))), waitlist.DefaultPolicy(), now)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Create(ctx, g); err != nil {
				t.Fatal(err)
			}
		}
		// One list per game.
		dup, _ := waitlist.New("w9", spec(200), waitlist.DefaultPolicy(), now)
		err := s.Create(ctx, dup)
		if f, ok := fault.As(err); !errors.Is(err, ErrExists) || !ok || f.Meta["waitlist_id"] != "w0" {
			t.Fatalf("duplicate game = %v, want WAITLIST_EXISTS naming w0", err)
		}
		if id, err := s.ByGame(ctx, spec(400)); err != nil || id != "w1" {
			t.Fatalf("ByGame = %q, %v", id, err)
		}
		page, next, err := s.List(ctx, 2, "")
		if err != nil || len(page) != 2 || next != "w1" {
			t.Fatalf("List page 1 = %d, %q, %v", len(page), next, err)
		}
		page, next, err = s.List(ctx, 2, next)
		if err != nil || len(page) != 1 || page[0].Game.ID != "w2" || next != "" {
			t.Fatalf("List page 2 = %d, %q, %v", len(page), next, err)
		}

		// A successful update saves the game, bumps the version, indexes
		// its tables and sets the next timer.
		rec, err := s.Update(ctx, "w0", func(tx *sqlstore.Tx, g *waitlist.Game, _ int64) error {
			if _, _, err := g.Join("ann", waitlist.Remote, now); err != nil {
				return err
			}
			g.TableOpened("t1", "Table 1", 9, now)
			return nil
		})
		if err != nil || rec.Version != 1 || len(rec.Game.PendingOffers()) != 1 {
			t.Fatalf("Update = %+v, %v", rec, err)
		}
		got, err := s.Get(ctx, "w0")
		if err != nil || got.Version != 1 || got.Game.Position("ann") != 1 || got.Game.Table("t1") == nil {
			t.Fatalf("Get = %+v, %v", got, err)
		}
		if id, err := s.ByTable(ctx, "t1"); err != nil || id != "w0" {
			t.Fatalf("ByTable = %q, %v", id, err)
		}
		if _, err := s.ByTable(ctx, "nope"); !errors.Is(err, ErrTableNotFound) {
			t.Fatalf("ByTable(unknown) = %v", err)
		}
		due, err := s.Due(ctx, now.Add(3*time.Minute))
		if err != nil || len(due) != 1 || due[0] != "w0" {
			t.Fatalf("Due = %v, %v", due, err)
		}
		if due, _ := s.Due(ctx, now.Add(time.Minute)); len(due) != 0 {
			t.Fatalf("Due early = %v", due)
		}

		// A failing update saves nothing.
		_, err = s.Update(ctx, "w0", func(tx *sqlstore.Tx, g *waitlist.Game, _ int64) error {
			g.Join("bob", waitlist.Remote, now)
			_, _, err := g.Join("ann", waitlist.Remote, now)
			return err
		})
		if !errors.Is(err, waitlist.ErrAlreadyOnList) {
			t.Fatalf("failing update = %v", err)
		}
		if got, _ := s.Get(ctx, "w0"); got.Version != 1 || got.Game.Position("bob") != 0 {
			t.Fatalf("failed update left %+v", got)
		}
		// A change that changes nothing writes nothing.
		if rec, err := s.Update(ctx, "w0", func(*sqlstore.Tx, *waitlist.Game, int64) error { return nil }); err != nil || rec.Version != 1 {
			t.Fatalf("no-op update = %+v, %v", rec, err)
		}
		if _, err := s.Update(ctx, "zz", func(*sqlstore.Tx, *waitlist.Game, int64) error { return nil }); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Update(unknown) = %v", err)
		}

		// A stale owner's save is fenced out.
		var stale sqlstore.Fence
		if err := db.Tx(ctx, func(tx *sqlstore.Tx) error {
			f, err := sqlstore.ClaimEpoch(ctx, tx, Entity, "w1")
			stale = f
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Update(ctx, "w1", func(*sqlstore.Tx, *waitlist.Game, int64) error { return nil }); err != nil {
			t.Fatal(err)
		}
		err = db.Tx(ctx, func(tx *sqlstore.Tx) error {
			_, err := s.Apply(ctx, tx, stale, func(*sqlstore.Tx, *waitlist.Game, int64) error { return nil })
			return err
		})
		if !errors.Is(err, sqlstore.ErrFencedOut) {
			t.Fatalf("stale save = %v", err)
		}

		// CS-14: the long-break ledger takes one break per player and day.
		for i, want := range []bool{true, false} {
			var ok bool
			err := db.Tx(ctx, func(tx *sqlstore.Tx) error {
				var err error
				ok, err = s.TakeLongBreak(ctx, tx, "ann", "2026-11-30", "w0", "t1", now)
				return err
			})
			if err != nil || ok != want {
				t.Fatalf("CS-14 long break %d = %v, %v", i, ok, err)
			}
		}

		// Floor decisions, newest first.
		for i, action := range []string{"move_entry", "release_seat"} {
			d := Decision{ID: fmt.Sprintf("d%d", i), Waitlist: "w0", Floor: "fl", Action: action, Player: "ann", Reason: "r", At: now.Add(time.Duration(i) * time.Minute)}
			if err := db.Tx(ctx, func(tx *sqlstore.Tx) error { return s.RecordDecision(ctx, tx, d) }); err != nil {
				t.Fatal(err)
			}
		}
		ds, err := s.Decisions(ctx, "w0", 10)
		if err != nil || len(ds) != 2 || ds[0].Action != "release_seat" || !ds[0].At.Equal(now.Add(time.Minute)) {
			t.Fatalf("Decisions = %+v, %v", ds, err)
		}
		versions, err := s.Versions(ctx)
		if err != nil || versions["w0"] != 1 || versions["w1"] != 0 || versions["w2"] != 0 {
			t.Fatalf("Versions = %v, %v", versions, err)
		}
	})
}

func TestStoreNames(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "seating", Migrations: Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := New(db, lock.NewLocal())
		if got, err := s.Names(ctx, nil); err != nil || len(got) != 0 {
			t.Fatalf("Names(nil) = %v, %v", got, err)
		}
		for _, set := range [][2]string{{"ann", "Ann"}, {"bob", "Bobby"}, {"ann", "Ann K."}} {
			if err := s.SetName(ctx, set[0], set[1], now); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.Names(ctx, []string{"ann", "bob", "cat"})
		if err != nil || fmt.Sprint(got) != "map[ann:Ann K. bob:Bobby]" {
			t.Fatalf("Names = %v, %v", got, err)
		}
	})
}
