package bank_test

import (
	"testing"

	"github.com/cardroom/cardroom/services/wallet/bank"
	"github.com/cardroom/cardroom/services/wallet/ledger"
	"github.com/cardroom/cardroom/services/wallet/store"
)

// TestNextOwnerRetriesACommitUnderItsEpoch: a table replica commits a
// buy-in and dies before the answer reaches it; the table's next owner,
// under a new epoch, retries the commit with the same key. It must get the
// original answer — the chips are in escrow and the seat is paid — not
// IDEMPOTENCY_KEY_REUSED, which the table takes for a refusal and undoes
// the seat over, stranding the buy-in in escrow. A different hold under
// the key is still a key reuse.
func TestNextOwnerRetriesACommitUnderItsEpoch(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		e.open(t, "erin", 200000)
		tbl := func(epoch int64) bank.TableRequest { return bank.TableRequest{Table: "T9", Epoch: epoch} }
		h, err := e.bank.HoldBuyIn(ctx, bank.HoldRequest{Key: "sit/erin", TableRequest: tbl(5), Player: "erin", Seat: 1,
			Currency: "EUR", Game: nl25, Amount: 30000})
		if err != nil {
			t.Fatal(err)
		}
		first, err := e.bank.CommitHold(ctx, bank.SettleRequest{Key: "sit/erin/commit", TableRequest: tbl(5), HoldID: h.HoldID})
		if err != nil || first.State != store.Committed {
			t.Fatalf("commit = %+v, %v", first, err)
		}
		retry, err := e.bank.CommitHold(ctx, bank.SettleRequest{Key: "sit/erin/commit", TableRequest: tbl(6), HoldID: h.HoldID})
		if err != nil || retry != first {
			t.Fatalf("the next owner's retry = %+v, %v; want the original %+v", retry, err, first)
		}
		if got := e.balance(t, ledger.TableAccount("T9", "EUR")); got != 30000 {
			t.Fatalf("table escrow = %d, want 30000 (one commit)", got)
		}
		// The old owner, fenced out, cannot release what was committed.
		if _, err := e.bank.ReleaseHold(ctx, bank.SettleRequest{Key: "sit/erin/release", TableRequest: tbl(5), HoldID: h.HoldID}); err == nil {
			t.Fatal("a release under the old epoch after the next owner's retry went through")
		}
		if got := e.balance(t, ledger.TableAccount("T9", "EUR")); got != 30000 {
			t.Fatalf("table escrow after the stale release = %d, want 30000", got)
		}
	})
}
