package main

import (
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/wallet/ledger"
)

// TestTopUpRetriedAfterTheHoldsAnswerWasLost_CS07: the wallet holds ann's
// top-up but the table never hears it, so nothing is stored at the table;
// a hand is dealt, her stack moves (the blind she posts), and her app
// retries the top-up under the same key. The wallet must give the original
// hold back, not IDEMPOTENCY_KEY_REUSED for a request that differs only in
// the stack the table saw; the chips wait for the next hand (CS-05) and
// are held and committed once.
func TestTopUpRetriedAfterTheHoldsAnswerWasLost_CS07(t *testing.T) {
	t.Parallel()
	eachMoneyStore(t, "", func(t *testing.T, r *moneyRig) {
		r.deposit("ann", 1000)
		r.deposit("bob", 1000)
		id := r.openTable()
		for i, p := range []string{"ann", "bob"} {
			if i == 1 {
				r.client.loseHold.Store(true)
				_, err := r.tableClient().TopUp(r.floor(), &tablev1.TopUpRequest{TableId: id, PlayerId: "ann", Amount: 100, IdempotencyKey: "ann-tops-up"})
				if status.Code(err) != codes.Unavailable {
					t.Fatalf("top-up with the hold's answer lost: %v, want Unavailable", err)
				}
				r.client.loseHold.Store(false)
			}
			if _, err := r.tableClient().Sit(r.floor(), &tablev1.SitRequest{TableId: id, Seat: int32(i), PlayerId: p, Amount: 100,
				PostNow: true, IdempotencyKey: p + "-sits"}); err != nil {
				t.Fatalf("%s sits: %v", p, err)
			}
		}
		if ann := r.state(id).GetSeats()[0]; !ann.GetInHand() || ann.GetStack() == 100 {
			t.Fatalf("ann's stack did not move in a hand: %v", ann)
		}
		resp, err := r.tableClient().TopUp(r.floor(), &tablev1.TopUpRequest{TableId: id, PlayerId: "ann", Amount: 100, IdempotencyKey: "ann-tops-up"})
		if err != nil {
			t.Fatalf("CS-07: the retry of ann's top-up: %v", err)
		}
		if s := resp.GetSeat(); s.GetPendingChips() != 100 {
			t.Fatalf("CS-05: the retry answers %v; want 100 pending for the next hand", s)
		}
		if got := r.balance(ledger.PlayerAccount("ann", "EUR")); got != 800 {
			t.Fatalf("ann's wallet: %d, want 800 (100 and one top-up of 100)", got)
		}
		r.reconciled("after the retried top-up", id, 2000)
	})
}
