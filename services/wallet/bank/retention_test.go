package bank_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/wallet/bank"
	"github.com/cardroom/cardroom/services/wallet/ledger"
)

func (e env) keyCount(t *testing.T) int {
	t.Helper()
	var n int
	if err := e.db.SQL().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM idempotency_keys`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestPruningRemovesOnlyKeysOlderThanTheRetentionWindow(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		const window = 7 * 24 * time.Hour
		// A batch of 2 makes the five old keys take three statements.
		b := bank.New(e.store, e.clock, bank.Config{IdempotencyRetention: window, PruneBatch: 2})
		e.open(t, "fay", 0) // keys open-fay (and no deposit)
		deposit := func(key string, amount int64) (bank.TransferResult, error) {
			return b.Deposit(ctx, bank.CashierRequest{Key: key, Player: "fay", Currency: "EUR", Amount: amount, Cashier: "c1"})
		}
		old := make([]bank.TransferResult, 4)
		for i := range old {
			var err error
			if old[i], err = deposit(fmt.Sprintf("old-%d", i), 100); err != nil {
				t.Fatal(err)
			}
		}
		e.clock.Advance(window - time.Minute)
		recent, err := deposit("recent", 100)
		if err != nil {
			t.Fatal(err)
		}
		transfers, entries := e.counts(t)

		// Inside the window nothing goes.
		if n, err := b.PruneIdempotencyKeys(ctx); err != nil || n != 0 {
			t.Fatalf("prune inside the window = %d, %v", n, err)
		}
		// One millisecond past it, the five older keys go (open-fay and
		// old-0..3); "recent" stays.
		e.clock.Advance(time.Minute + time.Millisecond)
		if n, err := b.PruneIdempotencyKeys(ctx); err != nil || n != 5 {
			t.Fatalf("prune = %d, %v; want 5", n, err)
		}
		if got := e.keyCount(t); got != 1 {
			t.Fatalf("%d keys left, want 1", got)
		}
		if tr, en := e.counts(t); tr != transfers || en != entries {
			t.Fatalf("pruning touched the ledger: transfers %d→%d, entries %d→%d", transfers, tr, entries, en)
		}
		for _, o := range old {
			if _, err := e.store.Transfer(ctx, o.TransferID); err != nil {
				t.Fatalf("transfer %s of a pruned key: %v", o.TransferID, err)
			}
		}

		// A key kept still replays, and still refuses another request.
		if again, err := deposit("recent", 100); err != nil || again != recent {
			t.Fatalf("replay of a kept key = %+v, %v; want %+v", again, err, recent)
		}
		_, err = deposit("recent", 200)
		wantFault(t, err, fault.Conflict, "IDEMPOTENCY_KEY_REUSED")
		// A pruned key is free again: here for another request.
		reused, err := deposit("old-0", 700)
		if err != nil || reused.TransferID == old[0].TransferID || reused.Amount != 700 {
			t.Fatalf("reused pruned key = %+v, %v", reused, err)
		}
		if got := e.balance(t, ledger.PlayerAccount("fay", "EUR")); got != 4*100+100+700 {
			t.Fatalf("fay = %d, want %d", got, 4*100+100+700)
		}
	})
}

func TestSweeperPrunesKeysPastRetentionOnTheClock(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		b := bank.New(e.store, e.clock, bank.Config{IdempotencyRetention: time.Hour})
		e.open(t, "gus", 1000)
		if got := e.keyCount(t); got != 2 {
			t.Fatalf("%d keys, want 2", got)
		}
		sweepCtx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { b.RunSweeper(sweepCtx, time.Minute, func(err error) { t.Error(err) }); close(done) }()
		stop := sync.OnceFunc(func() { cancel(); <-done })
		defer stop()
		// One minute of the fake clock per poll, each time the sweeper
		// waits: past the hour takes some sixty sweeps.
		testkit.Eventually(t, time.Minute, func() error {
			if e.clock.Pending() > 0 {
				e.clock.Advance(time.Minute)
			}
			if n := e.keyCount(t); n != 0 {
				return fmt.Errorf("%d keys left: the sweeper did not prune keys past the retention window", n)
			}
			return nil
		})
		stop()
		if !e.clock.Now().After(start.Add(time.Hour)) {
			t.Fatalf("keys pruned at %s, inside the window", e.clock.Now())
		}
		if got := e.balance(t, ledger.PlayerAccount("gus", "EUR")); got != 1000 {
			t.Fatalf("gus = %d after pruning", got)
		}
	})
}
