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

// TestMoneyMoveKeepsItsSittingAndOffer: a buy-in made in one wallet call
// is paid from its record, possibly by the background retry, which then
// writes the seat's table.player_seated: the sitting the table named and
// the seating offer it was taken through come back with the step, pending
// or looked up by key.
func TestMoneyMoveKeepsItsSittingAndOffer(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "table", Migrations: Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s := New(db)
		ctx := t.Context()
		move := MoneyMove{Key: "sit/t1/ann/2", TableID: "t1", Kind: MoveBuyIn, Player: "ann", Seat: 3, Amount: 300, Sitting: "sit_abc",
			OfferID: "w.7", Created: time.Date(2026, 12, 2, 20, 0, 0, 0, time.UTC)}
		if err := db.Tx(ctx, func(tx *sqlstore.Tx) error { return s.AddMoneyMove(ctx, tx, move) }); err != nil {
			t.Fatal(err)
		}
		got, ok, err := s.MoneyMove(ctx, move.Key)
		if err != nil || !ok || got.Sitting != "sit_abc" || got.OfferID != "w.7" || got.HoldID != "" {
			t.Fatalf("by key: %+v %v %v, want sitting sit_abc, offer w.7, no hold", got, ok, err)
		}
		pending, err := s.PendingMoneyMoves(ctx, "t1")
		if err != nil || len(pending) != 1 || pending[0].Sitting != "sit_abc" || pending[0].OfferID != "w.7" {
			t.Fatalf("pending: %+v %v, want the buy-in with its sitting and offer", pending, err)
		}
	})
}
