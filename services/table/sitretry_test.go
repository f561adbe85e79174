package table_test

import (
	"context"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	seatingv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/seating/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table"
)

// fakeSeating lists the open offers seating would: an accepted offer is
// used up once its player sat down with it.
type fakeSeating struct {
	seatingv1.SeatingServiceClient

	mu     sync.Mutex
	offers []*seatingv1.Offer
}

func (s *fakeSeating) ListOffers(_ context.Context, req *seatingv1.ListOffersRequest, _ ...grpc.CallOption) (*seatingv1.ListOffersResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := &seatingv1.ListOffersResponse{}
	for _, o := range s.offers {
		if o.GetPlayerId() == req.GetPlayerId() {
			out.Offers = append(out.Offers, o)
		}
	}
	return out, nil
}

func (s *fakeSeating) useUp(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, o := range s.offers {
		if o.GetOfferId() == id {
			s.offers = append(s.offers[:i], s.offers[i+1:]...)
			return
		}
	}
}

// TestSit_RetryOfAPlayersBuyInGetsTheOriginalAnswer: a player's sit-down
// with a seating offer, retried with the same idempotency key after it went
// through (the offer is used up by then), answers with the seat and the
// hold of the original, every time, and moves no more money.
func TestSit_RetryOfAPlayersBuyInGetsTheOriginalAnswer(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, table.DBOptions(), func(t *testing.T, db *sqlstore.DB) {
		w := newFakeWallet(map[string]int64{"ann": 1000})
		seating := &fakeSeating{}
		e := start(t, db, clock.NewFake(t0), seededDecks(4), table.Deps{Wallet: w, Seating: seating})
		id := e.open(6, -1)
		seating.offers = append(seating.offers, &seatingv1.Offer{OfferId: "w.1", TableId: id, Seat: 3, PlayerId: "ann",
			State: seatingv1.OfferState_OFFER_STATE_ACCEPTED})
		req := &tablev1.SitRequest{TableId: id, Seat: 3, Amount: 200, OfferId: "w.1", IdempotencyKey: "ann-sits"}
		first, err := e.c.Sit(e.player("ann"), req)
		if err != nil {
			t.Fatal(err)
		}
		seating.useUp("w.1")
		for i := range 3 {
			again, err := e.c.Sit(e.player("ann"), req)
			if err != nil {
				t.Fatalf("retry %d: %v", i+1, err)
			}
			if !proto.Equal(again, first) {
				t.Fatalf("retry %d answered %v, the sit-down %v", i+1, again, first)
			}
		}
		if got := w.balanceOf("ann"); got != 800 {
			t.Fatalf("ann's balance after one buy-in of 200 and three retries: %d", got)
		}
		// Another buy-in under a fresh key needs a valid offer.
		_, err = e.c.Sit(e.player("ann"), &tablev1.SitRequest{TableId: id, Seat: 3, Amount: 200, OfferId: "w.1", IdempotencyKey: "ann-again"})
		if r, _ := reason(err); r != "SEATING_OFFER_NOT_VALID" {
			t.Fatalf("a new sit-down with the used offer: %v", err)
		}
	})
}
