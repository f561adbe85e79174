package desk_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/random"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/tournament/desk"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/house"
	"github.com/cardroom/cardroom/services/tournament/store"
)

var now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// fakeWallet is the desk's Wallet port in memory: down steps go unanswered
// (the wallet out of reach), and a key moves money once however often it
// is asked, as the wallet's idempotency keys make it.
type fakeWallet struct {
	mu    sync.Mutex
	down  int
	calls map[string]int
	moved map[string]int
}

func (w *fakeWallet) Pay(_ context.Context, p entry.Payment) (desk.Paid, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls[p.Key]++
	if w.down > 0 {
		w.down--
		return desk.Paid{}, errors.New("wallet unreachable")
	}
	if w.moved[p.Key] == 0 {
		w.moved[p.Key]++
	}
	return desk.Paid{TransferID: "tr-" + p.Key}, nil
}

// TestResumePayments: steps the wallet did not answer are finished by the
// resume loop with their own keys, and money moves once.
func TestResumePayments(t *testing.T) {
	t.Parallel()
	w := &fakeWallet{calls: map[string]int{}, moved: map[string]int{}}
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	dk := desk.New(desk.Deps{Store: store.New(db), Clock: clock.NewFake(now), Wallet: w, Random: random.Seeded(5)})
	ctx := t.Context()
	tr, err := dk.Create(ctx, event.Event{Name: "Monday Deepstack", Format: event.Freezeout, Game: "HOLDEM", Structure: "NO_LIMIT", StartingStack: 20000,
		BuyIn: event.BuyIn{PrizePool: 5000, Fee: 1100, Currency: "EUR"}, StartsAt: now.Add(6 * time.Hour)}, house.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	id := tr.Event.ID
	if _, err := dk.Register(ctx, id, "a", ""); err != nil {
		t.Fatal(err)
	}
	w.down = 1
	_, err = dk.Register(ctx, id, "b", "")
	wantReason(t, err, "PAYMENT_PENDING")
	if err := dk.ResumePayments(ctx); err != nil {
		t.Fatal(err)
	}
	ens, err := dk.Entries(ctx, id)
	entryKey := entry.PaymentKey(id, "b", entry.PayEntry, 1)
	if err != nil || len(ens) != 2 || ens[1].Status != entry.Active || ens[1].Paid != 6100 || w.moved[entryKey] != 1 {
		t.Fatalf("after resume: %+v, %v; moved %v", ens, err, w.moved)
	}
	// A cancellation whose refund did not get through is finished too.
	w.down = 1
	_, _, err = dk.Cancel(ctx, id, "power cut", "admin-1")
	wantReason(t, err, "PAYMENT_PENDING")
	if err := dk.ResumePayments(ctx); err != nil {
		t.Fatal(err)
	}
	ens, err = dk.Entries(ctx, id)
	if err != nil || ens[0].Status != entry.Refunded || ens[1].Status != entry.Refunded {
		t.Fatalf("refund not finished: %+v, %v", ens, err)
	}
	if err := dk.ResumePayments(ctx); err != nil || w.calls["trn/"+id+"/refund"] != 2 || w.moved["trn/"+id+"/refund"] != 1 {
		t.Fatalf("nothing left to resume: %v, calls %v", err, w.calls)
	}
}

// wantReason fails unless err is a fault with the reason.
func wantReason(t *testing.T, err error, reason string) {
	t.Helper()
	if f, ok := fault.As(err); !ok || f.Reason != reason {
		t.Fatalf("error %v, want reason %s", err, reason)
	}
}
