package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/tables"
)

// TestSeatedPlayers_G21 checks the store's side of G-21 (a player may not
// hold seats in two games) on both engines: one row per player, a second
// table refused with the seat held named, a seat released or a closed
// table's left-over row freeing the player, and (PostgreSQL) a second
// transaction waiting on an uncommitted seat and refused when it commits.
func TestSeatedPlayers_G21(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "table", Migrations: Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s := New(db)
		ctx := t.Context()
		for i := range 4 {
			d := tables.Definition{ID: fmt.Sprintf("t%d", i), Name: "NL", Seats: 9, Kind: tables.Cash,
				Config:    engine.Config{Game: engine.Holdem, Structure: engine.NoLimit, Stakes: engine.Stakes{SmallBlind: 1, BigBlind: 2}},
				CreatedAt: time.Date(2026, 11, 30, 18, i, 0, 0, time.UTC)}
			if err := d.Validate(); err != nil {
				t.Fatal(err)
			}
			if err := s.Create(ctx, d, nil); err != nil {
				t.Fatal(err)
			}
		}
		tx := func(fn func(tx *sqlstore.Tx) error) error {
			return db.TxWith(ctx, sqlstore.TxOptions{Isolation: sql.LevelReadCommitted}, fn)
		}
		hold := func(table, player string, seat int) error {
			return tx(func(tx *sqlstore.Tx) error { return s.HoldSeat(ctx, tx, table, player, seat) })
		}
		wantRefused := func(what string, err error, table, seat string) {
			t.Helper()
			f, ok := fault.As(err)
			if !ok || !errors.Is(err, ErrSeatedAtAnotherTable) || f.Rule != "G-21" || f.Meta["table_id"] != table || f.Meta["seat"] != seat {
				t.Fatalf("%s: %v, want G-21 SEATED_AT_ANOTHER_TABLE naming seat %s at %s", what, err, seat, table)
			}
		}

		if err := hold("t0", "ann", 2); err != nil {
			t.Fatal(err)
		}
		wantRefused("check at t1", s.CheckSeatedElsewhere(ctx, "ann", "t1"), "t0", "2")
		if err := s.CheckSeatedElsewhere(ctx, "ann", "t0"); err != nil {
			t.Fatalf("check at her own table: %v", err)
		}
		// A refused hold leaves the transaction usable: the rest of it
		// commits (PostgreSQL would abort it after a failed insert).
		err := tx(func(tx *sqlstore.Tx) error {
			wantRefused("hold at t1", s.HoldSeat(ctx, tx, "t1", "ann", 5), "t0", "2")
			return s.HoldSeat(ctx, tx, "t1", "bob", 5)
		})
		if err != nil {
			t.Fatalf("the transaction after a refused hold: %v", err)
		}
		// The same table moves her seat.
		if err := hold("t0", "ann", 3); err != nil {
			t.Fatal(err)
		}
		if got, err := s.TableHoldings(ctx, db.SQL(), "t0"); err != nil || len(got) != 1 || got["ann"] != 3 {
			t.Fatalf("t0 holds %v, %v; want ann in seat 3", got, err)
		}
		// Released: free to sit elsewhere.
		if err := tx(func(tx *sqlstore.Tx) error { return s.ReleaseSeat(ctx, tx, "t0", "ann") }); err != nil {
			t.Fatal(err)
		}
		if err := hold("t2", "ann", 0); err != nil {
			t.Fatalf("after leaving t0: %v", err)
		}
		// A closed table's left-over row counts for nothing.
		if _, err := db.SQL().ExecContext(ctx, `UPDATE tables SET closed = TRUE WHERE id = 't2'`); err != nil {
			t.Fatal(err)
		}
		if err := s.CheckSeatedElsewhere(ctx, "ann", "t3"); err != nil {
			t.Fatalf("check with a closed table's row: %v", err)
		}
		if err := hold("t3", "ann", 1); err != nil {
			t.Fatalf("hold with a closed table's row: %v", err)
		}

		if db.Dialect() != sqlstore.Postgres {
			return
		}
		// Two sit-downs of cat at once: the second waits on the first's
		// uncommitted row and is refused when it commits.
		inserted, commit := make(chan struct{}), make(chan struct{})
		first := make(chan error, 1)
		go func() {
			first <- tx(func(tx *sqlstore.Tx) error {
				if err := s.HoldSeat(ctx, tx, "t0", "cat", 7); err != nil {
					return err
				}
				close(inserted)
				<-commit
				return nil
			})
		}()
		<-inserted
		second := make(chan error, 1)
		go func() { second <- hold("t1", "cat", 8) }()
		waitForLockWait(ctx, t, db)
		close(commit)
		if err := <-first; err != nil {
			t.Fatal(err)
		}
		wantRefused("the second sit-down", <-second, "t0", "7")
	})
}

// waitForLockWait waits until some backend of the database waits for a
// lock on seated_players, and fails the test when none does: the second
// sit-down must meet the first's uncommitted row, or the test did not
// race and proves nothing.
func waitForLockWait(ctx context.Context, t *testing.T, db *sqlstore.DB) {
	t.Helper()
	testkit.Eventually(t, 30*time.Second, func() error {
		var n int
		if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE wait_event_type = 'Lock' AND query LIKE '%seated_players%'`).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return errors.New("no backend waits on a lock on seated_players: the second sit-down did not race the first")
		}
		return nil
	})
}

// TestPendingCashOutHoldsThePlayer_G21_CS09: a player whose seat is free
// but whose cash-out the wallet has not recorded yet is refused a seat at
// another table, naming the table left and the pending cash-out — until
// then the wallet could not hold the buy-in to the stack left with (CS-09,
// CS-10). The table left is not refused (its own sit-down rules apply),
// and once the cash-out is paid the player may sit anywhere.
func TestPendingCashOutHoldsThePlayer_G21_CS09(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "table", Migrations: Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s := New(db)
		ctx := t.Context()
		for _, id := range []string{"left", "next"} {
			d := tables.Definition{ID: id, Name: "NL", Seats: 9, Kind: tables.Cash,
				Config:    engine.Config{Game: engine.Holdem, Structure: engine.NoLimit, Stakes: engine.Stakes{SmallBlind: 1, BigBlind: 2}},
				CreatedAt: time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC)}
			if err := s.Create(ctx, d, nil); err != nil {
				t.Fatal(err)
			}
		}
		move := MoneyMove{Key: "cash-out/left/9/4", TableID: "left", Kind: MoveCashOut, Player: "eve", Seat: 4, Amount: 700,
			Created: time.Date(2026, 11, 30, 21, 0, 0, 0, time.UTC)}
		if err := db.Tx(ctx, func(tx *sqlstore.Tx) error { return s.AddMoneyMove(ctx, tx, move) }); err != nil {
			t.Fatal(err)
		}
		err := s.CheckSeatedElsewhere(ctx, "eve", "next")
		f, ok := fault.As(err)
		if !ok || !errors.Is(err, ErrSeatedAtAnotherTable) || f.Rule != "G-21" || f.Meta["table_id"] != "left" || f.Meta["seat"] != "4" || f.Meta["cash_out"] != "pending" {
			t.Fatalf("eve with a cash-out pending at the table she left: %v, want SEATED_AT_ANOTHER_TABLE naming it", err)
		}
		for _, c := range []struct{ player, table string }{{"eve", "left"}, {"zoe", "next"}} {
			if err := s.CheckSeatedElsewhere(ctx, c.player, c.table); err != nil {
				t.Fatalf("%s at %s: %v", c.player, c.table, err)
			}
		}
		if err := s.SettleMoneyMove(ctx, db.SQL(), move.Key); err != nil {
			t.Fatal(err)
		}
		if err := s.CheckSeatedElsewhere(ctx, "eve", "next"); err != nil {
			t.Fatalf("eve once her cash-out is paid: %v", err)
		}
	})
}
