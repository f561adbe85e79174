package store

import (
	"errors"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
)

// TestSettleMoneyMoveGoesWithItsChange: a wallet step settled in the
// transaction of its change at the table is done when that change is
// stored and still pending when the change fails, so a crash or a lost
// fence never leaves a seat dealt in with its commit still to retry, nor
// a step marked done whose seat was never paid.
func TestSettleMoneyMoveGoesWithItsChange(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "table", Migrations: Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s := New(db)
		ctx := t.Context()
		move := MoneyMove{Key: "sit/t1/ann/1", TableID: "t1", Kind: MoveBuyIn, Player: "ann", Seat: 2, Amount: 400, HoldID: "hold-1",
			Created: time.Date(2026, 12, 2, 20, 0, 0, 0, time.UTC)}
		if err := db.Tx(ctx, func(tx *sqlstore.Tx) error { return s.AddMoneyMove(ctx, tx, move) }); err != nil {
			t.Fatal(err)
		}
		boom := errors.New("the seat's change failed")
		err := db.Tx(ctx, func(tx *sqlstore.Tx) error {
			if err := s.SettleMoneyMove(ctx, tx, move.Key); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("settle in a failing change = %v, want %v", err, boom)
		}
		if got, _, err := s.MoneyMove(ctx, move.Key); err != nil || got.Done {
			t.Fatalf("after a failed change: done %v (%v), want pending", got.Done, err)
		}
		if err := db.Tx(ctx, func(tx *sqlstore.Tx) error { return s.SettleMoneyMove(ctx, tx, move.Key) }); err != nil {
			t.Fatal(err)
		}
		if got, _, err := s.MoneyMove(ctx, move.Key); err != nil || !got.Done {
			t.Fatalf("after the change: done %v (%v), want done", got.Done, err)
		}
		if pending, err := s.PendingMoneyMoves(ctx, "t1"); err != nil || len(pending) != 0 {
			t.Fatalf("pending after settling = %v, %v; want none", pending, err)
		}
	})
}
