package bank_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/wallet/bank"
	"github.com/cardroom/cardroom/services/wallet/ledger"
	"github.com/cardroom/cardroom/services/wallet/store"
)

// snapshot is what a refused request must leave as it was.
type snapshot struct {
	player, hold       int64
	transfers, entries int64
	keys               int64
}

func (e env) snapshot(t *testing.T, player, table string) snapshot {
	t.Helper()
	s := snapshot{player: e.balance(t, ledger.PlayerAccount(player, "EUR"))}
	if a, err := e.store.Account(t.Context(), ledger.HoldAccount(table, "EUR")); err == nil {
		s.hold = a.Balance
	} else if !errors.Is(err, store.ErrAccountNotFound) {
		t.Fatal(err)
	}
	s.transfers, s.entries = e.counts(t)
	if err := e.db.SQL().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM idempotency_keys`).Scan(&s.keys); err != nil {
		t.Fatal(err)
	}
	return s
}

// holdState reads a hold's state.
func (e env) holdState(t *testing.T, id string) store.HoldState {
	t.Helper()
	var h store.Hold
	err := e.store.Read(t.Context(), e.clock.Now(), func(tx *store.Tx) error {
		var err error
		h, err = tx.Hold(t.Context(), id)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return h.State
}

// wantHoldPending checks a HOLD_PENDING refusal and that it names the
// pending hold and its expiry.
func wantHoldPending(t *testing.T, err error, pending bank.HoldResult) {
	t.Helper()
	f := wantFault(t, err, fault.Precondition, "HOLD_PENDING")
	if !errors.Is(err, bank.ErrHoldPending) {
		t.Fatalf("err = %v, not ErrHoldPending", err)
	}
	if f.Meta["hold_id"] != pending.HoldID || f.Meta["expires_at"] != pending.ExpiresAt.UTC().Format(time.RFC3339Nano) ||
		f.Meta["player_id"] != pending.Player || f.Meta["table_id"] != pending.Table {
		t.Fatalf("metadata = %v, want hold_id %s expires_at %s", f.Meta, pending.HoldID, pending.ExpiresAt.UTC().Format(time.RFC3339Nano))
	}
}

func TestSecondHoldWhileOneIsPendingIsRefusedAndChangesNothing(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		e.open(t, "ann", 200000)
		e.open(t, "ben", 200000)
		hold := func(key, player, table string, stack, amount int64) (bank.HoldResult, error) {
			return e.bank.HoldBuyIn(ctx, bank.HoldRequest{Key: key, TableRequest: bank.TableRequest{Table: table, Epoch: 1},
				Player: player, Seat: 1, Currency: "EUR", Game: nl25, Stack: stack, Amount: amount})
		}
		first, err := hold("h1", "ann", "P1", 0, 30000)
		if err != nil {
			t.Fatal(err)
		}
		before := e.snapshot(t, "ann", "P1")
		tests := []struct {
			name          string
			key           string
			stack, amount int64
		}{
			{"same amount, another key", "h2", 0, 30000},
			{"another amount", "h3", 0, 20000},
			{"an amount the rules refuse", "h4", 0, 90000},
			{"as a top-up", "h5", 30000, 10000},
		}
		for _, tc := range tests {
			_, err := hold(tc.key, "ann", "P1", tc.stack, tc.amount)
			wantHoldPending(t, err, first)
			if after := e.snapshot(t, "ann", "P1"); after != before {
				t.Fatalf("%s: refusal changed %+v to %+v", tc.name, before, after)
			}
		}
		// Still pending a millisecond before its expiry.
		e.clock.Advance(2*time.Minute - time.Millisecond)
		_, err = hold("h6", "ann", "P1", 0, 30000)
		wantHoldPending(t, err, first)
		// The rule is per player and table: another table, another player.
		if _, err := hold("h7", "ann", "P2", 0, 30000); err != nil {
			t.Fatalf("ann at another table: %v", err)
		}
		if _, err := hold("h8", "ben", "P1", 0, 30000); err != nil {
			t.Fatalf("another player at P1: %v", err)
		}
		if got := e.holdState(t, first.HoldID); got != store.Held {
			t.Fatalf("first hold is %s", got)
		}
	})
}

func TestHoldAllowedOnceThePendingOneIsSettledOrExpired(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// settle ends the first hold; it returns the state the first hold
		// must end in and the stack the next hold is for (a top-up once
		// the player is seated).
		settle func(t *testing.T, e env, h bank.HoldResult) (store.HoldState, int64)
	}{
		{"after commit", func(t *testing.T, e env, h bank.HoldResult) (store.HoldState, int64) {
			if _, err := e.bank.CommitHold(t.Context(), bank.SettleRequest{Key: "c", TableRequest: bank.TableRequest{Table: "A1", Epoch: 1}, HoldID: h.HoldID}); err != nil {
				t.Fatal(err)
			}
			return store.Committed, h.Amount
		}},
		{"after release", func(t *testing.T, e env, h bank.HoldResult) (store.HoldState, int64) {
			if _, err := e.bank.ReleaseHold(t.Context(), bank.SettleRequest{Key: "r", TableRequest: bank.TableRequest{Table: "A1", Epoch: 1}, HoldID: h.HoldID}); err != nil {
				t.Fatal(err)
			}
			return store.Released, 0
		}},
		{"after expiry, swept", func(t *testing.T, e env, h bank.HoldResult) (store.HoldState, int64) {
			e.clock.Advance(2 * time.Minute)
			if n, err := e.bank.ExpireHolds(t.Context()); err != nil || n != 1 {
				t.Fatalf("sweep released %d, %v", n, err)
			}
			return store.Expired, 0
		}},
		{"after expiry, not swept yet", func(t *testing.T, e env, h bank.HoldResult) (store.HoldState, int64) {
			// Expired at exactly its expiry, as CommitHold sees it.
			e.clock.Advance(2 * time.Minute)
			return store.Expired, 0
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			eachStore(t, func(t *testing.T, e env) {
				ctx := t.Context()
				e.open(t, "cleo", 100000)
				sitting := "" // a top-up names the sitting the committed first hold opened
				hold := func(key string, stack, amount int64) (bank.HoldResult, error) {
					return e.bank.HoldBuyIn(ctx, bank.HoldRequest{Key: key, TableRequest: bank.TableRequest{Table: "A1", Epoch: 1},
						Player: "cleo", Seat: 2, Currency: "EUR", Game: nl25, Stack: stack, Amount: amount, Sitting: sitting})
				}
				first, err := hold("first", 0, 20000)
				if err != nil {
					t.Fatal(err)
				}
				state, stack := tc.settle(t, e, first)
				if state == store.Committed {
					sitting = first.HoldID
				}
				next, err := hold("next", stack, 25000)
				if err != nil {
					t.Fatalf("hold after the first ended: %v", err)
				}
				if next.HoldID == first.HoldID || next.State != store.Held {
					t.Fatalf("next hold = %+v", next)
				}
				if got := e.holdState(t, first.HoldID); got != state {
					t.Fatalf("first hold is %s, want %s", got, state)
				}
				// Only the new hold's chips are held; the player paid for
				// what was committed and got back what was not.
				wantPlayer := int64(100000 - 25000)
				if state == store.Committed {
					wantPlayer -= first.Amount
				}
				if got := e.balance(t, ledger.PlayerAccount("cleo", "EUR")); got != wantPlayer || next.Balance != wantPlayer {
					t.Fatalf("cleo = %d (hold says %d), want %d", got, next.Balance, wantPlayer)
				}
				if got := e.balance(t, ledger.HoldAccount("A1", "EUR")); got != 25000 {
					t.Fatalf("hold account = %d, want 25000", got)
				}
				// And the new one is pending in its turn.
				_, err = hold("third", stack, 20000)
				wantHoldPending(t, err, next)
			})
		})
	}
}

func TestSameKeyReplayReturnsTheOriginalHoldNotHoldPending(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		e.open(t, "dora", 100000)
		req := bank.HoldRequest{Key: "sit/1", TableRequest: bank.TableRequest{Table: "K1", Epoch: 1}, Player: "dora", Seat: 5, Currency: "EUR", Game: nl25, Amount: 40000}
		orig, err := e.bank.HoldBuyIn(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		before := e.snapshot(t, "dora", "K1")
		replay, err := e.bank.HoldBuyIn(ctx, req)
		if err != nil || replay != orig {
			t.Fatalf("replay = %+v, %v; want %+v", replay, err, orig)
		}
		// Past the expiry, not swept: the replay still answers the original
		// and releases nothing (its attempt is rolled back with the key).
		e.clock.Advance(3 * time.Minute)
		replay, err = e.bank.HoldBuyIn(ctx, req)
		if err != nil || replay != orig {
			t.Fatalf("replay after expiry = %+v, %v; want %+v", replay, err, orig)
		}
		if after := e.snapshot(t, "dora", "K1"); after != before {
			t.Fatalf("replays changed %+v to %+v", before, after)
		}
		if got := e.holdState(t, orig.HoldID); got != store.Held {
			t.Fatalf("original hold is %s after replays", got)
		}
		// The same key for another request is still a key reuse.
		other := req
		other.Amount = 30000
		_, err = e.bank.HoldBuyIn(ctx, other)
		wantFault(t, err, fault.Conflict, "IDEMPOTENCY_KEY_REUSED")
		if n, err := e.bank.ExpireHolds(ctx); err != nil || n != 1 {
			t.Fatalf("sweep released %d, %v", n, err)
		}
	})
}

func TestConcurrentHoldsForOnePlayerAtOneTable_ExactlyOneSucceeds(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		const n, amount = 40, 20000
		e.open(t, "eve", 1_000_000)
		results := make([]bank.HoldResult, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				results[i], errs[i] = e.bank.HoldBuyIn(t.Context(), bank.HoldRequest{Key: fmt.Sprintf("race-%d", i),
					TableRequest: bank.TableRequest{Table: "RACE", Epoch: 1}, Player: "eve", Seat: int64(i % 9), Currency: "EUR", Game: nl25, Amount: amount})
			})
		}
		close(start)
		wg.Wait()
		winner := -1
		for i, err := range errs {
			if err == nil {
				if winner >= 0 {
					t.Fatalf("holds %d and %d both succeeded", winner, i)
				}
				winner = i
			}
		}
		if winner < 0 {
			t.Fatalf("no hold succeeded; first error: %v", errs[0])
		}
		for i, err := range errs {
			if i != winner {
				wantHoldPending(t, err, results[winner])
			}
		}
		if got := e.balance(t, ledger.PlayerAccount("eve", "EUR")); got != 1_000_000-amount {
			t.Fatalf("eve = %d, want %d", got, 1_000_000-amount)
		}
		if got := e.balance(t, ledger.HoldAccount("RACE", "EUR")); got != amount {
			t.Fatalf("hold account = %d, want %d", got, amount)
		}
		var held int
		if err := e.db.SQL().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM holds WHERE player = 'eve'`).Scan(&held); err != nil || held != 1 {
			t.Fatalf("%d holds recorded, %v; want 1", held, err)
		}
	})
}

// TestConcurrentSameKeyBuyInsPostOnce sends one buy-in 1,000 times at once
// under one idempotency key. On PostgreSQL the key is written in the
// transfer's own statement (store.KeyRow): exactly one hold transfer is
// posted, every caller gets the identical response, and the balance after
// it in that response is the books' balance.
func TestConcurrentSameKeyBuyInsPostOnce(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		const n, amount = 1000, 20000
		e.open(t, "kay", 100000)
		req := bank.HoldRequest{Key: "same-buy-in", TableRequest: bank.TableRequest{Table: "K1", Epoch: 1},
			Player: "kay", Seat: 2, Currency: "EUR", Game: nl25, Amount: amount}
		results := make([]bank.HoldResult, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { results[i], errs[i] = e.bank.HoldBuyIn(t.Context(), req) })
		}
		wg.Wait()
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("request %d: %v", i, errs[i])
			}
			if results[i] != results[0] {
				t.Fatalf("response %d = %+v, differs from %+v", i, results[i], results[0])
			}
		}
		if got := e.balance(t, ledger.PlayerAccount("kay", "EUR")); got != 100000-amount || results[0].Balance != got {
			t.Fatalf("balance = %d, response says %d; want %d", got, results[0].Balance, 100000-amount)
		}
		var holds int
		if err := e.db.SQL().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM transfers WHERE kind = $1`, string(ledger.BuyInHold)).Scan(&holds); err != nil {
			t.Fatal(err)
		}
		if holds != 1 {
			t.Fatalf("%d hold transfers, want 1", holds)
		}
		// The replay answers the same; another buy-in under the key is refused.
		again, err := e.bank.HoldBuyIn(t.Context(), req)
		if err != nil || again != results[0] {
			t.Fatalf("replay = %+v, %v", again, err)
		}
		req.Amount++
		_, err = e.bank.HoldBuyIn(t.Context(), req)
		wantFault(t, err, fault.Conflict, "IDEMPOTENCY_KEY_REUSED")
	})
}
