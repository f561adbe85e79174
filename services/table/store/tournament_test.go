package store

import (
	"database/sql"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
)

// TestTournamentRows_OneSeatAndEachMoveStepOnce_TR06_TR23 checks the
// store's side of a tournament's tables on both engines: an entrant has
// one row in the whole tournament, so a second seat is refused (also when
// two transactions race for it); a move's step changes its state only
// from the state expected, so of two writers racing for the same step one
// wins and the other's transaction is refused; the chips in transit are
// read with the tables in one snapshot.
func TestTournamentRows_OneSeatAndEachMoveStepOnce_TR06_TR23(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "table", Migrations: Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s := New(db)
		ctx := t.Context()
		tx := func(fn func(tx *sqlstore.Tx) error) error {
			return db.TxWith(ctx, sqlstore.TxOptions{Isolation: sql.LevelReadCommitted}, fn)
		}
		wantElsewhere := func(what string, err error, meta map[string]string) {
			t.Helper()
			f, ok := fault.As(err)
			if !ok || !errors.Is(err, ErrEntrantSeatedElsewhere) || f.Rule != "TR-06" {
				t.Fatalf("%s: %v, want TR-06 ENTRANT_SEATED_ELSEWHERE", what, err)
			}
			for k, v := range meta {
				if f.Meta[k] != v {
					t.Fatalf("%s: metadata %v, want %s=%s", what, f.Meta, k, v)
				}
			}
		}
		place := func(player, table string, seat int) error {
			return tx(func(tx *sqlstore.Tx) error { return s.PlaceEntrant(ctx, tx, "ev", player, table, seat) })
		}
		if err := place("ann", "a", 3); err != nil {
			t.Fatal(err)
		}
		wantElsewhere("ann at b", place("ann", "b", 1), map[string]string{"table_id": "a", "seat": "3"})
		wantElsewhere("check ann", s.CheckEntrantFree(ctx, "ev", "ann"), nil)
		if err := s.CheckEntrantFree(ctx, "other-event", "ann"); err != nil {
			t.Fatalf("ann in another event: %v", err)
		}
		// Two tables seat bob at once: one seat only.
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, table := range []string{"a", "b"} {
			wg.Go(func() { errs[i] = place("bob", table, 5) })
		}
		wg.Wait()
		if (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("two seats for bob at once: %v, %v", errs[0], errs[1])
		}

		// ann moves from a to b.
		now := time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC)
		m := Move{ID: "trn/ev/move/1", TournamentID: "ev", Player: "ann", FromTable: "a", FromSeat: 3, ToTable: "b", ToSeat: 7,
			State: MovePending, Created: now, Updated: now}
		if err := tx(func(tx *sqlstore.Tx) error { return s.AddMove(ctx, tx, m) }); err != nil {
			t.Fatal(err)
		}
		step := func(from MoveState, to Move, where [2]Entrant) error {
			return tx(func(tx *sqlstore.Tx) error {
				if err := s.AdvanceMove(ctx, tx, from, to); err != nil {
					return err
				}
				return s.MoveEntrant(ctx, tx, "ev", "ann", where[0], where[1])
			})
		}
		transit := m
		transit.State, transit.Chips, transit.MissedHands = MoveInTransit, 1234, 5
		if err := step(MovePending, transit, [2]Entrant{{TableID: "a"}, {Seat: -1, Move: m.ID}}); err != nil {
			t.Fatal(err)
		}
		wantElsewhere("ann in transit at c", place("ann", "c", 0), map[string]string{"move_id": m.ID})
		tabs, moves, err := s.TournamentChips(ctx, "ev")
		if err != nil || len(moves) != 1 || moves[0].Chips != 1234 || moves[0].MissedHands != 5 || len(tabs) != 0 {
			t.Fatalf("in transit %+v, tables %+v, %v", moves, tabs, err)
		}
		// Two deliveries race: one.
		done := m
		done.State, done.Chips = MoveDelivered, 1234
		for i := range 2 {
			wg.Go(func() { errs[i] = step(MoveInTransit, done, [2]Entrant{{Move: m.ID}, {TableID: "b", Seat: 7}}) })
		}
		wg.Wait()
		if (errs[0] == nil) == (errs[1] == nil) || !errors.Is(errors.Join(errs...), sqlstore.ErrFencedOut) {
			t.Fatalf("two deliveries: %v, %v", errs[0], errs[1])
		}
		got, err := s.GetMove(ctx, db.SQL(), m.ID)
		if err != nil || got.State != MoveDelivered || got.Chips != 1234 || got.ToSeat != 7 {
			t.Fatalf("move %+v %v", got, err)
		}
		if e, ok, err := s.FindEntrant(ctx, db.SQL(), "ev", "ann"); err != nil || !ok || e != (Entrant{TableID: "b", Seat: 7}) {
			t.Fatalf("ann is at %+v (%v %v)", e, ok, err)
		}
		if _, err := s.GetMove(ctx, db.SQL(), "nope"); !errors.Is(err, ErrMoveNotFound) {
			t.Fatalf("unknown move: %v", err)
		}
		list, next, err := s.ListMoves(ctx, "ev", []MoveState{MoveDelivered}, 10, "")
		if err != nil || len(list) != 1 || next != "" {
			t.Fatalf("list %+v %q %v", list, next, err)
		}
		if list, _, err := s.ListMoves(ctx, "ev", []MoveState{MoveInTransit}, 10, ""); err != nil || len(list) != 0 {
			t.Fatalf("in transit %+v %v", list, err)
		}

		// A key reused for another request.
		c := Control{Key: "k", TableID: "a", Kind: "stack", Fingerprint: "ann|100", Created: now}
		if err := tx(func(tx *sqlstore.Tx) error { return s.AddControl(ctx, tx, c) }); err != nil {
			t.Fatal(err)
		}
		if dup, err := s.CheckControl(ctx, c); !dup || err != nil {
			t.Fatalf("repeat: %v %v", dup, err)
		}
		c.Fingerprint = "ann|999"
		if _, err := s.CheckControl(ctx, c); !errors.Is(err, ErrKeyReused) {
			t.Fatalf("another request under the key: %v", err)
		}
	})
}
