package bank_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/wallet/bank"
	"github.com/cardroom/cardroom/services/wallet/ledger"
)

// TestEventPaymentRetriedAfterPruning_PaysOnce_TR04: the tournament
// service names its payments by event, player, kind and number, and may
// retry one after the wallet pruned its idempotency key (a saga left
// pending past the retention window, a director replaying its books).
// Before, the retry ran as a new request: the entry was taken twice and
// the prize paid twice. Now the key is kept for good with the payment
// (payment_keys): every retry gets the original answer and no money
// moves; the key with another request is still IDEMPOTENCY_KEY_REUSED.
func TestEventPaymentRetriedAfterPruning_PaysOnce_TR04(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		const window = 7 * 24 * time.Hour
		b := bank.New(e.store, e.clock, bank.Config{IdempotencyRetention: window})
		e.open(t, "ann", 10000)
		e.open(t, "bob", 10000)
		enter := func(player string, prize int64) (bank.TransferResult, error) {
			return b.Enter(ctx, bank.ContributionRequest{Key: "trn/E7/" + player + "/entry/1", Player: player, Event: "E7", Currency: "EUR",
				PrizePart: prize, Fee: 500})
		}
		payPrize := func(amount int64) (bank.TransferResult, error) {
			return b.PayPrize(ctx, bank.PrizeRequest{Key: "trn/E7/ann/prize/1", Player: "ann", Event: "E7", Currency: "EUR", Amount: amount, Place: 1})
		}
		rebuy := func() (bank.TransferResult, error) {
			return b.Rebuy(ctx, bank.ContributionRequest{Key: "trn/E7/bob/rebuy/1", Player: "bob", Event: "E7", Currency: "EUR", PrizePart: 2000})
		}
		annIn, err := enter("ann", 5000)
		if err != nil {
			t.Fatal(err)
		}
		bobIn, err := enter("bob", 5000)
		if err != nil {
			t.Fatal(err)
		}
		bobRebuy, err := rebuy()
		if err != nil {
			t.Fatal(err)
		}
		prize, err := payPrize(12000)
		if err != nil {
			t.Fatal(err)
		}
		pool := ledger.PrizePoolAccount("E7", "EUR")
		books := func() [4]int64 {
			return [4]int64{e.balance(t, ledger.PlayerAccount("ann", "EUR")), e.balance(t, ledger.PlayerAccount("bob", "EUR")),
				e.balance(t, pool), e.balance(t, ledger.HouseFeesAccount("EUR"))}
		}
		before := books()
		if want := [4]int64{10000 - 5500 + 12000, 10000 - 5500 - 2000, 0, 1000}; before != want {
			t.Fatalf("books after the event = %v, want %v (ann, bob, pool, fees)", before, want)
		}
		transfers, _ := e.counts(t)

		e.clock.Advance(window + time.Hour)
		if n, err := b.PruneIdempotencyKeys(ctx); err != nil || n == 0 {
			t.Fatalf("prune = %d, %v", n, err)
		}
		if got := e.keyCount(t); got != 0 {
			t.Fatalf("%d idempotency keys left after the window", got)
		}
		for i := range 2 { // the retry, and the retry of the retry
			if again, err := enter("ann", 5000); err != nil || again != annIn {
				t.Fatalf("retry %d of ann's entry = %+v, %v; want the original %+v", i+1, again, err, annIn)
			}
			if again, err := enter("bob", 5000); err != nil || again != bobIn {
				t.Fatalf("retry %d of bob's entry = %+v, %v; want the original %+v", i+1, again, err, bobIn)
			}
			if again, err := rebuy(); err != nil || again != bobRebuy {
				t.Fatalf("retry %d of bob's rebuy = %+v, %v; want the original %+v", i+1, again, err, bobRebuy)
			}
			if again, err := payPrize(12000); err != nil || again != prize {
				t.Fatalf("retry %d of ann's prize = %+v, %v; want the original %+v", i+1, again, err, prize)
			}
		}
		_, err = payPrize(9000)
		wantFault(t, err, fault.Conflict, "IDEMPOTENCY_KEY_REUSED")
		if after := books(); after != before {
			t.Fatalf("books after the retries = %v, want %v: a payment went twice", after, before)
		}
		if tr, _ := e.counts(t); tr != transfers {
			t.Fatalf("the retries posted %d transfers", tr-transfers)
		}
	})
}

// TestEventPaymentRetriedConcurrentlyAfterPruning_PaysOnce_TR04: two
// retries of a prize race each other after its idempotency key was
// pruned; the payment key's primary key lets one through, and both get the
// original answer.
func TestEventPaymentRetriedConcurrentlyAfterPruning_PaysOnce_TR04(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		const window = 7 * 24 * time.Hour
		b := bank.New(e.store, e.clock, bank.Config{IdempotencyRetention: window})
		e.open(t, "cy", 10000)
		if _, err := b.Enter(ctx, bank.ContributionRequest{Key: "trn/E8/cy/entry/1", Player: "cy", Event: "E8", Currency: "EUR", PrizePart: 10000}); err != nil {
			t.Fatal(err)
		}
		pay := func() (bank.TransferResult, error) {
			return b.PayPrize(ctx, bank.PrizeRequest{Key: "trn/E8/cy/prize/1", Player: "cy", Event: "E8", Currency: "EUR", Amount: 4000, Place: 1})
		}
		prize, err := pay()
		if err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(window + time.Hour)
		if _, err := b.PruneIdempotencyKeys(ctx); err != nil {
			t.Fatal(err)
		}
		const n = 4
		results := make(chan error, n)
		for range n {
			go func() {
				got, err := pay()
				if err == nil && got != prize {
					err = fmt.Errorf("answered %+v, want the original %+v", got, prize)
				}
				results <- err
			}()
		}
		for range n {
			if err := <-results; err != nil && !isReason(err, "IDEMPOTENCY_KEY_BUSY") {
				t.Fatalf("a concurrent retry of the prize: %v", err)
			}
		}
		if got := e.balance(t, ledger.PlayerAccount("cy", "EUR")); got != 4000 {
			t.Fatalf("cy has %d, want the prize 4000 paid once", got)
		}
	})
}
