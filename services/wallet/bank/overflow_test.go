package bank_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/wallet/bank"
	"github.com/cardroom/cardroom/services/wallet/ledger"
	"github.com/cardroom/cardroom/services/wallet/store"
)

// TestAmountsAboveTheMaximumAreRefused is issue 9's int64 overflow at
// the door: every amount a transaction brings into the books is bounded
// by the per-transaction maximum, and a larger one is a clear
// INVALID_ARGUMENT naming the maximum, before anything is written.
func TestAmountsAboveTheMaximumAreRefused(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		e.open(t, "max", 100000)
		limit := strconv.FormatInt(bank.DefaultMaxAmount, 10)
		for _, amount := range []int64{bank.DefaultMaxAmount + 1, 1 << 62, math.MaxInt64} {
			calls := map[string]func() error{
				"deposit": func() error {
					_, err := e.bank.Deposit(ctx, bank.CashierRequest{Key: "d", Player: "max", Currency: "EUR", Amount: amount, Cashier: "c"})
					return err
				},
				"withdrawal": func() error {
					_, err := e.bank.Withdraw(ctx, bank.CashierRequest{Key: "w", Player: "max", Currency: "EUR", Amount: amount, Cashier: "c"})
					return err
				},
				"buy-in": func() error {
					_, err := e.bank.HoldBuyIn(ctx, bank.HoldRequest{Key: "h", TableRequest: bank.TableRequest{Table: "T1", Epoch: 1}, Player: "max",
						Currency: "EUR", Game: nl25, Amount: amount})
					return err
				},
				"entry": func() error {
					_, err := e.bank.Enter(ctx, bank.ContributionRequest{Key: "e", Player: "max", Event: "E1", Currency: "EUR", PrizePart: amount})
					return err
				},
				"prize": func() error {
					_, err := e.bank.PayPrize(ctx, bank.PrizeRequest{Key: "p", Player: "max", Event: "E1", Currency: "EUR", Amount: amount})
					return err
				},
			}
			for name, call := range calls {
				f := wantFault(t, call(), fault.Invalid, "AMOUNT_ABOVE_TRANSACTION_MAXIMUM")
				if f.Meta["max"] != limit {
					t.Fatalf("%s of %d: metadata %v", name, amount, f.Meta)
				}
			}
		}
		// An entry whose parts are each allowed but whose total is not.
		_, err := e.bank.Enter(ctx, bank.ContributionRequest{Key: "e2", Player: "max", Event: "E1", Currency: "EUR",
			PrizePart: bank.DefaultMaxAmount, Fee: 1})
		wantFault(t, err, fault.Invalid, "AMOUNT_ABOVE_TRANSACTION_MAXIMUM")
		if got := e.balance(t, ledger.PlayerAccount("max", "EUR")); got != 100000 {
			t.Fatalf("refused requests moved chips: balance %d", got)
		}
	})
}

// TestBooksThatOverflowedStillAudit runs a wallet whose maximum allows
// any int64 (as before the maximum existed): sums beyond int64 are
// reported exactly by the audit and the cage report instead of failing
// them for ever, and a posting that would take a balance past the int64
// range is AMOUNT_OVERFLOW (INVALID_ARGUMENT), never an internal error —
// on PostgreSQL it used to be "bigint out of range".
func TestBooksThatOverflowedStillAudit(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		b := bank.New(e.store, e.clock, bank.Config{MaxAmount: math.MaxInt64})
		if _, err := b.OpenAccount(ctx, "open", "big", "EUR"); err != nil {
			t.Fatal(err)
		}
		// Two deposit and withdrawal round trips of 2^62: the balance is
		// back at 0, debits and credits are 2^64 each.
		for i := range 2 {
			k := strconv.Itoa(i)
			if _, err := b.Deposit(ctx, bank.CashierRequest{Key: "d" + k, Player: "big", Currency: "EUR", Amount: 1 << 62, Cashier: "c"}); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Withdraw(ctx, bank.CashierRequest{Key: "w" + k, Player: "big", Currency: "EUR", Amount: 1 << 62, Cashier: "c"}); err != nil {
				t.Fatal(err)
			}
		}
		r, err := store.Audit(ctx, e.db)
		if err != nil {
			t.Fatalf("audit of books with sums beyond int64: %v", err)
		}
		if !r.Clean() || len(r.Currencies) != 1 || r.Currencies[0].Debits.String() != "18446744073709551616" || r.Currencies[0].Balances.Sign() != 0 {
			t.Fatalf("audit = %+v, problems %v", r, r.Problems())
		}
		lines, err := e.store.CageReport(ctx, b.Today())
		if err != nil {
			t.Fatalf("cage report: %v", err)
		}
		if len(lines) != 1 || !lines[0].Overflow || lines[0].DepositTotal != math.MaxInt64 || lines[0].NetCashIn != 0 || lines[0].Deposits != 2 {
			t.Fatalf("cage report = %+v", lines)
		}

		// A balance past the int64 range is refused as AMOUNT_OVERFLOW.
		if _, err := b.Deposit(ctx, bank.CashierRequest{Key: "d-one", Player: "big", Currency: "EUR", Amount: 1, Cashier: "c"}); err != nil {
			t.Fatal(err)
		}
		_, err = b.Deposit(ctx, bank.CashierRequest{Key: "d-max", Player: "big", Currency: "EUR", Amount: math.MaxInt64, Cashier: "c"})
		wantFault(t, err, fault.Invalid, "AMOUNT_OVERFLOW")
		// The cage at −(2^63−1): the next cash-in is AMOUNT_OVERFLOW, a 400.
		if _, err := b.OpenAccount(ctx, "open2", "big2", "EUR"); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Withdraw(ctx, bank.CashierRequest{Key: "w-one", Player: "big", Currency: "EUR", Amount: 1, Cashier: "c"}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Deposit(ctx, bank.CashierRequest{Key: "d-max2", Player: "big2", Currency: "EUR", Amount: math.MaxInt64, Cashier: "c"}); err != nil {
			t.Fatal(err)
		}
		_, err = b.Deposit(ctx, bank.CashierRequest{Key: "d-after", Player: "big", Currency: "EUR", Amount: 2, Cashier: "c"})
		wantFault(t, err, fault.Invalid, "AMOUNT_OVERFLOW")
		if r, err := store.Audit(ctx, e.db); err != nil || !r.Clean() {
			t.Fatalf("audit after refused overflows: %v %v", err, r.Problems())
		}
	})
}
