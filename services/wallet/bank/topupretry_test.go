package bank_test

import (
	"testing"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/wallet/bank"
	"github.com/cardroom/cardroom/services/wallet/ledger"
)

// TestTopUpRetriedAfterAHand_OriginalHold_CS07: a top-up's hold is made
// but its answer lost; the table asks again under the same key after a
// hand has moved the player's stack. The stack is what the table saw, not
// what it asks, so the retry gets the original hold (one hold, the amount
// held once), not IDEMPOTENCY_KEY_REUSED. Another amount under the key is
// still a key reuse.
func TestTopUpRetriedAfterAHand_OriginalHold_CS07(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		e.open(t, "erin", 200000)
		tbl := bank.TableRequest{Table: "T4", Epoch: 1}
		sit, err := e.bank.HoldBuyIn(ctx, bank.HoldRequest{Key: "sit/erin", TableRequest: tbl, Player: "erin", Seat: 1,
			Currency: "EUR", Game: nl25, Amount: 30000})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.bank.CommitHold(ctx, bank.SettleRequest{Key: "sit/erin/commit", TableRequest: tbl, HoldID: sit.HoldID}); err != nil {
			t.Fatal(err)
		}
		topUp := func(stack, amount int64) (bank.HoldResult, error) {
			return e.bank.HoldBuyIn(ctx, bank.HoldRequest{Key: "top/erin", TableRequest: tbl, Player: "erin", Seat: 1,
				Currency: "EUR", Game: nl25, Stack: stack, Amount: amount, Sitting: sit.HoldID})
		}
		first, err := topUp(30000, 5000)
		if err != nil || first.Case != "top_up" {
			t.Fatalf("top-up = %+v, %v", first, err)
		}
		retry, err := topUp(28750, 5000) // a hand later
		if err != nil || retry != first {
			t.Fatalf("the retry after a hand = %+v, %v; want the original %+v", retry, err, first)
		}
		if got := e.balance(t, ledger.HoldAccount("T4", "EUR")); got != 5000 {
			t.Fatalf("held = %d, want the top-up's 5000 once", got)
		}
		if _, err := topUp(28750, 6000); err == nil || !isReason(err, "IDEMPOTENCY_KEY_REUSED") {
			t.Fatalf("another amount under the key = %v, want IDEMPOTENCY_KEY_REUSED", err)
		}
		if _, err := e.bank.CommitHold(ctx, bank.SettleRequest{Key: "top/erin/commit", TableRequest: tbl, HoldID: first.HoldID}); err != nil {
			t.Fatal(err)
		}
		if got := e.balance(t, ledger.TableAccount("T4", "EUR")); got != 35000 {
			t.Fatalf("escrow = %d, want 35000", got)
		}
		out, err := e.bank.CashOut(ctx, bank.CashOutRequest{Key: "out/erin", TableRequest: tbl, Player: "erin", Currency: "EUR", Stack: 35000, Sitting: sit.HoldID, Seat: 1})
		if err != nil || out.Balance != 200000 {
			t.Fatalf("cash-out = %+v, %v; want erin's 200000 back", out, err)
		}
	})
}

func isReason(err error, reason string) bool {
	f, ok := fault.As(err)
	return ok && f.Reason == reason
}
