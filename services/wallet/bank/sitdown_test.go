package bank_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/wallet/bank"
	"github.com/cardroom/cardroom/services/wallet/ledger"
	"github.com/cardroom/cardroom/services/wallet/reconcile"
	"github.com/cardroom/cardroom/services/wallet/store"
)

// TestSitDown_OneStep_CS01_CS03_CS09 buys seats in one step: the rules
// refuse what a hold refused, moving nothing (CS-03's range, CS-01's whole
// amount or nothing, the fence); a sit-down moves the amount from the
// player straight to the table's escrow and opens the sitting the table
// named, which a cash-out ends; and a sitting is bought once: the same key
// replays, another key finds it bought (while open, and after its
// cash-out), and another sitting waits for the open one's cash-out (CS-09).
func TestSitDown_OneStep_CS01_CS03_CS09(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		e.open(t, "sd-ann", 60000)
		e.open(t, "sd-bob", 10000)
		escrow := ledger.TableAccount("SD-T", "EUR")
		sit := func(key, player, sitting string, epoch, amount int64) (bank.SitDownResult, error) {
			return e.bank.SitDown(ctx, bank.SitDownRequest{Key: key, TableRequest: bank.TableRequest{Table: "SD-T", Epoch: epoch},
				Player: player, Seat: 2, Currency: "EUR", Game: nl25, Amount: amount, Sitting: sitting})
		}
		transfers, _ := e.counts(t)

		_, err := sit("sd-k0", "sd-ann", "sit_a1", 3, 60000)
		if f := wantFault(t, err, fault.Precondition, "BUY_IN_ABOVE_MAXIMUM"); f.Rule != "CS-03" || f.Meta["max"] != "50000" {
			t.Errorf("above the maximum: %+v", f)
		}
		_, err = sit("sd-k1", "sd-bob", "sit_b1", 3, 20000)
		if f := wantFault(t, err, fault.Precondition, "INSUFFICIENT_FUNDS"); f.Rule != "CS-01" {
			t.Errorf("short of the amount: %+v", f)
		}
		if got, _ := e.counts(t); got != transfers {
			t.Fatalf("refused sit-downs posted %d transfers", got-transfers)
		}
		if got := e.balance(t, ledger.PlayerAccount("sd-bob", "EUR")); got != 10000 {
			t.Fatalf("bob's balance after a refused sit-down = %d, want 10000", got)
		}

		before := e.store.GroupStats()
		got, err := sit("sd-k2", "sd-ann", "sit_a1", 3, 50000)
		// On PostgreSQL a sit-down is pipelined: its rows and its key go
		// with the transfer's statement.
		if st, pg := e.store.GroupStats(), e.db.Dialect() == sqlstore.Postgres; pg && (st.Pipelined-before.Pipelined != 1 || st.PipelineFailures != before.PipelineFailures) {
			t.Errorf("sit-down pipelined %d, pipelines failed %d; want 1, 0", st.Pipelined-before.Pipelined, st.PipelineFailures-before.PipelineFailures)
		}
		want := bank.SitDownResult{Sitting: "sit_a1", TransferID: store.SitDownTransferID("sit_a1"), Player: "sd-ann", Table: "SD-T", Currency: "EUR",
			Amount: 50000, Balance: 10000, Case: got.Case, Rule: "CS-03", Min: 20000, Max: 50000}
		if err != nil || got != want {
			t.Fatalf("sit-down = %+v, %v; want %+v", got, err, want)
		}
		if b := e.balance(t, escrow); b != 50000 {
			t.Fatalf("escrow = %d, want 50000", b)
		}
		if again, err := sit("sd-k2", "sd-ann", "sit_a1", 3, 50000); err != nil || again != got {
			t.Errorf("the same key again = %+v, %v; want %+v", again, err, got)
		}
		// Another key for the bought sitting (the original's key pruned,
		// or the original still writing it): bought, nothing moves.
		before = e.store.GroupStats()
		if again, err := sit("sd-k3", "sd-ann", "sit_a1", 3, 50000); err != nil || again.TransferID != got.TransferID || again.Balance != 10000 {
			t.Errorf("another key for the bought sitting = %+v, %v", again, err)
		}
		// On PostgreSQL its pipeline fails (the open sitting is refused
		// there), and the ordinary way answers it.
		if st, pg := e.store.GroupStats(), e.db.Dialect() == sqlstore.Postgres; pg && st.PipelineFailures-before.PipelineFailures != 1 {
			t.Errorf("the bought sitting asked again: pipelines failed %d, want 1", st.PipelineFailures-before.PipelineFailures)
		}
		// The key recorded under another request's hash (an older
		// wallet's) cannot answer; the sitting's transfer does: bought.
		if _, err := e.db.SQL().ExecContext(ctx, `UPDATE idempotency_keys SET request_hash = 'older' WHERE key = 'sd-k2'`); err != nil {
			t.Fatal(err)
		}
		if again, err := sit("sd-k2", "sd-ann", "sit_a1", 3, 50000); err != nil || again.TransferID != got.TransferID || again.Balance != 10000 {
			t.Errorf("the key recorded otherwise = %+v, %v; want the sitting bought", again, err)
		}
		// A key used for another request, naming a sitting not bought, is
		// refused as reused: nothing moved.
		_, err = sit("sd-k2", "sd-ann", "sit_a9", 3, 20000)
		wantFault(t, err, fault.Conflict, "IDEMPOTENCY_KEY_REUSED")
		// A stale owner is fenced out; another sitting waits for the cash-out.
		_, err = sit("sd-k4", "sd-ann", "sit_a2", 2, 20000)
		wantFault(t, err, fault.Aborted, "FENCED_OUT")
		_, err = sit("sd-k5", "sd-ann", "sit_a2", 3, 10000)
		if f := wantFault(t, err, fault.Precondition, "CASH_OUT_PENDING"); f.Meta["sitting_id"] != "sit_a1" {
			t.Errorf("a second sitting while the first is open: %+v", f)
		}
		if b := e.balance(t, escrow); b != 50000 {
			t.Fatalf("escrow after the retries = %d, want 50000", b)
		}

		out, err := e.bank.CashOut(ctx, bank.CashOutRequest{Key: "sd-out", TableRequest: bank.TableRequest{Table: "SD-T", Epoch: 3},
			Player: "sd-ann", Currency: "EUR", Stack: 50000, Sitting: "sit_a1", Seat: 2})
		if err != nil || out.Balance != 60000 {
			t.Fatalf("cash-out of the sitting = %+v, %v", out, err)
		}
		// Bought and cashed out, the sitting is not bought again: the
		// ledger refuses its transfer's name (on PostgreSQL that fails the
		// pipeline, and the ordinary way finds the transfer posted).
		before = e.store.GroupStats()
		if again, err := sit("sd-k6", "sd-ann", "sit_a1", 3, 50000); err != nil || again.Balance != 60000 {
			t.Errorf("the cashed-out sitting asked again = %+v, %v; want success, balance 60000", again, err)
		}
		if st, pg := e.store.GroupStats(), e.db.Dialect() == sqlstore.Postgres; pg && st.PipelineFailures-before.PipelineFailures != 1 {
			t.Errorf("pipelines failed %d asking for the cashed-out sitting, want 1", st.PipelineFailures-before.PipelineFailures)
		}
		if b := e.balance(t, escrow); b != 0 {
			t.Errorf("escrow = %d after the only sitting cashed out", b)
		}
		// CS-09: back within the hour, the stack left with or nothing.
		_, err = sit("sd-k7", "sd-ann", "sit_a3", 3, 40000)
		if f := wantFault(t, err, fault.Precondition, "BUY_IN_BELOW_DEPARTURE_STACK"); f.Rule != "CS-09" {
			t.Errorf("return below the stack left with: %+v", f)
		}
	})
}

// TestSitDown_HoldPendingBlocks: a player with a hold still held at the
// table (a top-up's, or the older two-step sit-down's) cannot also sit
// down there; once the hold expires, the sit-down releases it first.
func TestSitDown_HoldPendingBlocks(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		e.open(t, "hp-cy", 100000)
		tbl := bank.TableRequest{Table: "HP-T", Epoch: 1}
		h, err := e.bank.HoldBuyIn(ctx, bank.HoldRequest{Key: "hp-h", TableRequest: tbl, Player: "hp-cy", Seat: 1, Currency: "EUR", Game: nl25, Amount: 20000})
		if err != nil {
			t.Fatal(err)
		}
		req := bank.SitDownRequest{Key: "hp-s", TableRequest: tbl, Player: "hp-cy", Seat: 1, Currency: "EUR", Game: nl25, Amount: 30000, Sitting: "sit_hp"}
		_, err = e.bank.SitDown(ctx, req)
		if f := wantFault(t, err, fault.Precondition, "HOLD_PENDING"); f.Meta["hold_id"] != h.HoldID {
			t.Fatalf("sit-down beside a pending hold: %+v", f)
		}
		e.clock.Advance(3 * time.Minute)
		res, err := e.bank.SitDown(ctx, req)
		if err != nil || res.Balance != 70000 {
			t.Fatalf("sit-down after the hold expired = %+v, %v; want balance 70000", res, err)
		}
		if s := e.holdState(t, h.HoldID); s != store.Expired {
			t.Errorf("the expired hold is %s", s)
		}
		if _, err := e.bank.CashOut(ctx, bank.CashOutRequest{Key: "hp-o", TableRequest: tbl, Player: "hp-cy", Currency: "EUR", Stack: 30000,
			Sitting: "sit_hp", Seat: 1}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestSitDown_ConcurrentAsksBuyOnce sends the same sitting's buy-in many
// times at once, under different keys (a table retrying while its first
// request is still being written): every one answers success, and the
// chips move once.
func TestSitDown_ConcurrentAsksBuyOnce(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		e.open(t, "cc-dee", 100000)
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for i := range 8 {
			wg.Go(func() {
				_, err := e.bank.SitDown(ctx, bank.SitDownRequest{Key: fmt.Sprintf("cc-%d", i), TableRequest: bank.TableRequest{Table: "CC-T", Epoch: 1},
					Player: "cc-dee", Seat: 4, Currency: "EUR", Game: nl25, Amount: 25000, Sitting: "sit_cc"})
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			// Aborted is no answer (a duplicate that lost a race retries);
			// no request may be refused.
			if f, ok := fault.As(err); err != nil && (!ok || f.Kind != fault.Aborted) {
				t.Errorf("concurrent ask: %v", err)
			}
		}
		if b := e.balance(t, ledger.PlayerAccount("cc-dee", "EUR")); b != 75000 {
			t.Errorf("balance = %d, want 75000: the sitting bought once", b)
		}
		if b := e.balance(t, ledger.TableAccount("CC-T", "EUR")); b != 25000 {
			t.Errorf("escrow = %d, want 25000", b)
		}
	})
}

// TestTableBooks_SitDownBought: the audit's books tell a table's pending
// one-step sit-down bought (its transfer posted) from not yet bought, so
// that the escrow reconciles while the table has not marked it paid.
func TestTableBooks_SitDownBought(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		e.open(t, "tb-eve", 50000)
		counts := []reconcile.TableCount{{Table: "TB-T", Currency: "EUR", Chips: 30000,
			Pending: []reconcile.Move{{Kind: reconcile.BuyIn, Player: "tb-eve", Amount: 30000, Sitting: "sit_tb"}}}}
		check := func(bought bool, escrow int64) {
			t.Helper()
			books, err := e.store.TableBooks(ctx, counts)
			if err != nil {
				t.Fatal(err)
			}
			if books.Bought["TB-T/sit_tb"] != bought {
				t.Errorf("bought = %v, want %v", books.Bought["TB-T/sit_tb"], bought)
			}
			if r := reconcile.Reconcile(counts, books); !r.Clean() || r.Lines[0].Escrow != escrow {
				t.Errorf("reconciled = %+v, want clean with escrow %d", r, escrow)
			}
		}
		check(false, 0)
		if _, err := e.bank.SitDown(ctx, bank.SitDownRequest{Key: "tb-s", TableRequest: bank.TableRequest{Table: "TB-T", Epoch: 1},
			Player: "tb-eve", Seat: 1, Currency: "EUR", Game: nl25, Amount: 30000, Sitting: "sit_tb"}); err != nil {
			t.Fatal(err)
		}
		check(true, 30000)
		if _, err := e.bank.CashOut(ctx, bank.CashOutRequest{Key: "tb-o", TableRequest: bank.TableRequest{Table: "TB-T", Epoch: 1},
			Player: "tb-eve", Currency: "EUR", Stack: 30000, Sitting: "sit_tb", Seat: 1}); err != nil {
			t.Fatal(err)
		}
	})
}
