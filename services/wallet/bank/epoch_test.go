package bank_test

import (
	"context"
	"math"
	"testing"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/wallet/bank"
)

// issuedEpochs is the table service's answer: the highest epoch it issued
// per table.
type issuedEpochs map[string]int64

func (e issuedEpochs) IssuedEpoch(_ context.Context, table string) (int64, error) {
	if n, ok := e[table]; ok {
		return n, nil
	}
	return 0, fault.New(fault.Unavailable, "UNAVAILABLE", "the table service cannot be reached; retry")
}

// TestForgedEpochCannotFenceATableOut is issue 9's hold with epoch 2^63−1:
// the wallet takes a table's write only with an epoch the table service
// issued to a lease holder, so a caller's own number is refused
// (EPOCH_NOT_ISSUED) and recorded nowhere, and the table's real owner goes
// on. An epoch recorded before the wallet asked (books of before the
// check) is brought back down to the issued one at the next write.
func TestForgedEpochCannotFenceATableOut(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		e.open(t, "eve", 100000)
		b := bank.New(e.store, e.clock, bank.Config{Epochs: issuedEpochs{"T1": 3, "T2": 5}})
		hold := func(key, table string, epoch int64) (bank.HoldResult, error) {
			return b.HoldBuyIn(ctx, bank.HoldRequest{Key: key, TableRequest: bank.TableRequest{Table: table, Epoch: epoch}, Player: "eve",
				Seat: 1, Currency: "EUR", Game: nl25, Amount: 20000})
		}
		f := wantFault(t, func() error { _, err := hold("forged", "T1", math.MaxInt64); return err }(), fault.Invalid, "EPOCH_NOT_ISSUED")
		if f.Meta["issued"] != "3" {
			t.Fatalf("refusal = %+v", f)
		}
		// The owner's epoch is taken; a stale one is fenced out as ever.
		h, err := hold("real", "T1", 3)
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.CommitHold(ctx, bank.SettleRequest{Key: "stale", TableRequest: bank.TableRequest{Table: "T1", Epoch: 2}, HoldID: h.HoldID})
		wantFault(t, err, fault.Aborted, "FENCED_OUT")
		_, err = b.CommitHold(ctx, bank.SettleRequest{Key: "forged-commit", TableRequest: bank.TableRequest{Table: "T1", Epoch: 4}, HoldID: h.HoldID})
		wantFault(t, err, fault.Invalid, "EPOCH_NOT_ISSUED")
		if _, err := b.CommitHold(ctx, bank.SettleRequest{Key: "commit", TableRequest: bank.TableRequest{Table: "T1", Epoch: 3}, HoldID: h.HoldID}); err != nil {
			t.Fatal(err)
		}
		_, err = b.CashOut(ctx, bank.CashOutRequest{Key: "forged-out", TableRequest: bank.TableRequest{Table: "T1", Epoch: math.MaxInt64}, Player: "eve",
			Currency: "EUR", Stack: 20000, Sitting: h.HoldID, Seat: 1})
		wantFault(t, err, fault.Invalid, "EPOCH_NOT_ISSUED")
		if _, err := b.CashOut(ctx, bank.CashOutRequest{Key: "out", TableRequest: bank.TableRequest{Table: "T1", Epoch: 3}, Player: "eve",
			Currency: "EUR", Stack: 20000, Sitting: h.HoldID, Seat: 1}); err != nil {
			t.Fatal(err)
		}

		// Books of before the check: T2's recorded epoch is a forged one.
		if _, err := e.db.SQL().ExecContext(ctx, `INSERT INTO table_epochs (id, epoch, issued) VALUES ('T2', 9223372036854775807, 0)`); err != nil {
			t.Fatal(err)
		}
		h2, err := hold("t2", "T2", 5)
		if err != nil {
			t.Fatalf("the owner of T2 after a forged epoch was recorded: %v", err)
		}
		if _, err := b.ReleaseHold(ctx, bank.SettleRequest{Key: "t2-release", TableRequest: bank.TableRequest{Table: "T2", Epoch: 5}, HoldID: h2.HoldID}); err != nil {
			t.Fatal(err)
		}
		// A table service that cannot be reached: the write waits (UNAVAILABLE).
		_, err = hold("t3", "T3", 1)
		wantFault(t, err, fault.Unavailable, "UNAVAILABLE")
	})
}
