package bank_test

import (
	"testing"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/wallet/bank"
	"github.com/cardroom/cardroom/services/wallet/ledger"
)

// TestRefundEntry_TR04 refunds an entry withdrawn before the start: exactly
// the prize part and the fee, once, only the named player's entry to the
// named event, and a voucher entry's voucher becomes usable again.
func TestRefundEntry_TR04(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		for _, p := range []string{"p1", "p2"} {
			e.open(t, p, 20000)
		}
		enter := func(key, player, event, voucher string) bank.TransferResult {
			t.Helper()
			r, err := e.bank.Enter(ctx, bank.ContributionRequest{Key: key, Player: player, Event: event, Currency: "EUR", PrizePart: 5000, Fee: 1100, VoucherID: voucher})
			if err != nil {
				t.Fatalf("enter %s: %v", key, err)
			}
			return r
		}
		p1 := enter("e-p1", "p1", "EV", "")
		p2 := enter("e-p2", "p2", "EV", "")
		refund := func(key, player, event, transfer string) (bank.TransferResult, error) {
			return e.bank.RefundEntry(ctx, bank.EntryRefundRequest{Key: key, Event: event, Player: player, TransferID: transfer, Reason: "unregistered"})
		}

		cases := []struct {
			name, player, event, transfer, reason string
		}{
			{"another player's entry", "p1", "EV", p2.TransferID, "ENTRY_NOT_REFUNDABLE"},
			{"another event", "p1", "OTHER", p1.TransferID, "ENTRY_NOT_REFUNDABLE"},
			{"not an entry", "p1", "EV", depositOf(t, e, "p1"), "ENTRY_NOT_REFUNDABLE"},
			{"no such transfer", "p1", "EV", "tr_missing", "TRANSFER_NOT_FOUND"},
		}
		for _, c := range cases {
			_, err := refund("bad-"+c.name, c.player, c.event, c.transfer)
			f, ok := fault.As(err)
			if !ok || f.Reason != c.reason {
				t.Fatalf("%s: err = %v, want %s", c.name, err, c.reason)
			}
			if c.reason == "ENTRY_NOT_REFUNDABLE" && f.Rule != "TR-04" {
				t.Fatalf("%s: rule = %q, want TR-04", c.name, f.Rule)
			}
		}

		before := e.balance(t, ledger.PlayerAccount("p1", "EUR"))
		r, err := refund("r-p1", "p1", "EV", p1.TransferID)
		if err != nil {
			t.Fatal(err)
		}
		if r.Amount != 6100 || r.Kind != ledger.Reversal || r.Balance != before+6100 {
			t.Fatalf("refund = %+v, want 6100 back to a balance of %d", r, before+6100)
		}
		// The same key answers the same; another key finds it reversed.
		again, err := refund("r-p1", "p1", "EV", p1.TransferID)
		if err != nil || again.TransferID != r.TransferID {
			t.Fatalf("replay = %+v, %v; want %s", again, err, r.TransferID)
		}
		_, err = refund("r-p1-twice", "p1", "EV", p1.TransferID)
		wantFault(t, err, fault.Precondition, "ALREADY_REVERSED")
		if got := e.balance(t, ledger.PlayerAccount("p1", "EUR")); got != before+6100 {
			t.Fatalf("p1 = %d, want %d: refunded more than once", got, before+6100)
		}
		if pool, fees := e.balance(t, ledger.PrizePoolAccount("EV", "EUR")), e.balance(t, ledger.HouseFeesAccount("EUR")); pool != 5000 || fees != 1100 {
			t.Fatalf("pool %d fees %d, want p2's 5000 + 1100 alone", pool, fees)
		}
		// The event's cancellation refund skips the refunded entry.
		c, err := e.bank.Refund(ctx, bank.RefundRequest{Key: "cancel", Event: "EV", Reason: "cancelled"})
		if err != nil || c.Total != 6100 {
			t.Fatalf("cancel = %+v, %v; want p2's 6100 alone", c, err)
		}

		// A voucher entry refunded gives the voucher back.
		enter("sat-p1", "p1", "SAT", "")
		enter("sat-p2", "p2", "SAT", "")
		v, err := e.bank.IssueVoucher(ctx, bank.VoucherRequest{Key: "v", Player: "p1", SourceEvent: "SAT", TargetEvent: "MAIN", Currency: "EUR", Amount: 6100})
		if err != nil {
			t.Fatal(err)
		}
		main := enter("main-p1", "p1", "MAIN", v.VoucherID)
		if _, err := refund("r-main", "p1", "MAIN", main.TransferID); err != nil {
			t.Fatal(err)
		}
		if got := e.balance(t, ledger.VoucherAccount("MAIN", "EUR")); got != 6100 {
			t.Fatalf("voucher account = %d, want 6100", got)
		}
		enter("main-p1-again", "p1", "MAIN", v.VoucherID)
	})
}

// depositOf returns the transfer of a fresh deposit to player.
func depositOf(t *testing.T, e env, player string) string {
	t.Helper()
	r, err := e.bank.Deposit(t.Context(), bank.CashierRequest{Key: "dep2-" + player, Player: player, Currency: "EUR", Amount: 1, Cashier: "c"})
	if err != nil {
		t.Fatal(err)
	}
	return r.TransferID
}

// TestSettlePrizePool_TR34 moves what a pool holds after its prizes to the
// house or a player, never more than it holds, once per key.
func TestSettlePrizePool_TR34(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		for _, p := range []string{"p1", "p2", "p3"} {
			e.open(t, p, 20000)
			if _, err := e.bank.Enter(ctx, bank.ContributionRequest{Key: "e-" + p, Player: p, Event: "EV", Currency: "EUR", PrizePart: 5000, Fee: 1000}); err != nil {
				t.Fatal(err)
			}
		}
		// p3 was expelled (TR-34): 10000 of the 15000 pool is paid, 5000 withheld.
		if _, err := e.bank.PayPrize(ctx, bank.PrizeRequest{Key: "first", Player: "p1", Event: "EV", Currency: "EUR", Amount: 10000, Place: 1}); err != nil {
			t.Fatal(err)
		}
		settle := func(key, player string, amount int64) (bank.TransferResult, error) {
			return e.bank.SettlePrizePool(ctx, bank.PoolSettlementRequest{Key: key, Event: "EV", Currency: "EUR", Amount: amount, Player: player, Reason: "withheld prize of an expelled player"})
		}
		_, err := settle("too-much", "", 5001)
		wantFault(t, err, fault.Precondition, "INSUFFICIENT_FUNDS")
		_, err = settle("nobody", "ghost", 1000)
		wantFault(t, err, fault.NotFound, "ACCOUNT_NOT_FOUND")

		fees := e.balance(t, ledger.HouseFeesAccount("EUR"))
		r, err := settle("to-house", "", 3000)
		if err != nil || r.Kind != ledger.PoolSettlement || r.Amount != 3000 {
			t.Fatalf("settle = %+v, %v", r, err)
		}
		if again, err := settle("to-house", "", 3000); err != nil || again.TransferID != r.TransferID {
			t.Fatalf("replay = %+v, %v", again, err)
		}
		p2 := e.balance(t, ledger.PlayerAccount("p2", "EUR"))
		if _, err := settle("to-p2", "p2", 2000); err != nil {
			t.Fatal(err)
		}
		if got := e.balance(t, ledger.HouseFeesAccount("EUR")); got != fees+3000 {
			t.Fatalf("house fees = %d, want %d", got, fees+3000)
		}
		if got := e.balance(t, ledger.PlayerAccount("p2", "EUR")); got != p2+2000 {
			t.Fatalf("p2 = %d, want %d", got, p2+2000)
		}
		if got := e.balance(t, ledger.PrizePoolAccount("EV", "EUR")); got != 0 {
			t.Fatalf("pool = %d, want 0", got)
		}
	})
}

// TestSettlePrizePool_FlightsIntoDay2_G34 moves each Day 1 flight's pool into
// its Day 2's pool: the sum of the flights' pools, never more than a flight
// holds, once per key, and never to a player and another event at once.
func TestSettlePrizePool_FlightsIntoDay2_G34(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		for i, p := range []string{"p1", "p2", "p3"} {
			e.open(t, p, 20000)
			flight := []string{"D1A", "D1B", "D1B"}[i]
			if _, err := e.bank.Enter(ctx, bank.ContributionRequest{Key: "e-" + p, Player: p, Event: flight, Currency: "EUR", PrizePart: 5000, Fee: 1000}); err != nil {
				t.Fatal(err)
			}
		}
		move := func(key, from, to, player string, amount int64) (bank.TransferResult, error) {
			return e.bank.SettlePrizePool(ctx, bank.PoolSettlementRequest{Key: key, Event: from, ToEvent: to, Player: player, Currency: "EUR", Amount: amount, Reason: "flight bagged"})
		}
		_, err := move("self", "D1A", "D1A", "", 5000)
		wantFault(t, err, fault.Invalid, "INVALID_ARGUMENT")
		_, err = move("both", "D1A", "D2", "p1", 5000)
		wantFault(t, err, fault.Invalid, "INVALID_ARGUMENT")
		_, err = move("too-much", "D1A", "D2", "", 5001)
		wantFault(t, err, fault.Precondition, "INSUFFICIENT_FUNDS")

		a, err := move("a-to-d2", "D1A", "D2", "", 5000)
		if err != nil || a.Kind != ledger.PoolSettlement || a.Amount != 5000 {
			t.Fatalf("move D1A = %+v, %v", a, err)
		}
		if again, err := move("a-to-d2", "D1A", "D2", "", 5000); err != nil || again.TransferID != a.TransferID {
			t.Fatalf("replay = %+v, %v; want the first transfer %s", again, err, a.TransferID)
		}
		if _, err := move("b-to-d2", "D1B", "D2", "", 10000); err != nil {
			t.Fatal(err)
		}
		for account, want := range map[ledger.AccountID]int64{
			ledger.PrizePoolAccount("D1A", "EUR"): 0,
			ledger.PrizePoolAccount("D1B", "EUR"): 0,
			ledger.PrizePoolAccount("D2", "EUR"):  15000,
		} {
			if got := e.balance(t, account); got != want {
				t.Errorf("%s = %d, want %d", account, got, want)
			}
		}
	})
}
