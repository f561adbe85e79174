package bank_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/wallet/bank"
	"github.com/cardroom/cardroom/services/wallet/buyin"
	"github.com/cardroom/cardroom/services/wallet/ledger"
	"github.com/cardroom/cardroom/services/wallet/store"
)

// start is 20:00 on 30 Nov 2026 in Helsinki, inside one gaming day.
var start = time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC)

type env struct {
	bank  *bank.Bank
	store *store.Store
	db    *sqlstore.DB
	clock *clock.Fake
}

// eachStore runs test on SQLite and on PostgreSQL, each with a fresh
// database and the wallet's group commit (store.NewGrouped), and checks
// after the test that the audit is clean.
func eachStore(t *testing.T, test func(t *testing.T, e env)) {
	t.Helper()
	testkit.EachStore(t, sqlstore.Options{Service: store.ServiceName, Migrations: store.Migrations(), MaxOpenConns: 16}, func(t *testing.T, db *sqlstore.DB) {
		clk := clock.NewFake(start)
		st := store.NewGrouped(db, store.GroupCommit{})
		e := env{bank: bank.New(st, clk, bank.Config{HoldTTL: 2 * time.Minute}), store: st, db: db, clock: clk}
		t.Cleanup(func() { auditClean(t, db) })
		test(t, e)
	})
}

func auditClean(t *testing.T, db *sqlstore.DB) {
	t.Helper()
	r, err := store.Audit(context.Background(), db)
	if err != nil {
		t.Errorf("audit: %v", err)
		return
	}
	if !r.Clean() {
		t.Errorf("audit not clean: %v", r.Problems())
	}
}

func (e env) open(t *testing.T, player string, deposit int64) {
	t.Helper()
	if _, err := e.bank.OpenAccount(t.Context(), "open-"+player, player, "EUR"); err != nil {
		t.Fatalf("open %s: %v", player, err)
	}
	if deposit > 0 {
		if _, err := e.bank.Deposit(t.Context(), bank.CashierRequest{Key: "dep-" + player, Player: player, Currency: "EUR", Amount: deposit, Cashier: "cashier1"}); err != nil {
			t.Fatalf("deposit for %s: %v", player, err)
		}
	}
}

func (e env) balance(t *testing.T, id ledger.AccountID) int64 {
	t.Helper()
	a, err := e.store.Account(t.Context(), id)
	if err != nil {
		t.Fatalf("balance of %s: %v", id, err)
	}
	return a.Balance
}

func (e env) counts(t *testing.T) (transfers, entries int64) {
	t.Helper()
	r, err := e.store.Audit(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return r.Transfers, r.Entries
}

func wantFault(t *testing.T, err error, kind fault.Kind, reason string) *fault.Error {
	t.Helper()
	f, ok := fault.As(err)
	if !ok || f.Kind != kind || (reason != "" && f.Reason != reason) {
		t.Fatalf("err = %v, want %v %s", err, kind, reason)
	}
	return f
}

var nl25 = buyin.Game{Structure: buyin.NoLimit, BigBlind: 500} // 2/5 €: buy-in 200–500 €

func TestCashier(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		e.open(t, "alice", 0)
		dep, err := e.bank.Deposit(ctx, bank.CashierRequest{Key: "d1", Player: "alice", Currency: "EUR", Amount: 100000, Cashier: "c1"})
		if err != nil {
			t.Fatal(err)
		}
		if dep.Balance != 100000 || dep.Amount != 100000 || dep.GamingDay != "2026-11-30" {
			t.Fatalf("deposit = %+v", dep)
		}
		wd, err := e.bank.Withdraw(ctx, bank.CashierRequest{Key: "w1", Player: "alice", Currency: "EUR", Amount: 30000, Cashier: "c2"})
		if err != nil || wd.Balance != 70000 {
			t.Fatalf("withdraw = %+v, %v", wd, err)
		}
		_, err = e.bank.Withdraw(ctx, bank.CashierRequest{Key: "w2", Player: "alice", Currency: "EUR", Amount: 70001, Cashier: "c2"})
		wantFault(t, err, fault.Precondition, "INSUFFICIENT_FUNDS")
		if got := e.balance(t, ledger.CageAccount("EUR")); got != -70000 {
			t.Fatalf("cage = %d, want -70000", got)
		}

		lines, next, err := e.store.Statement(ctx, ledger.PlayerAccount("alice", "EUR"), 0, 1)
		if err != nil || len(lines) != 1 || next != 1 || lines[0].Amount != 100000 || lines[0].Kind != ledger.Deposit {
			t.Fatalf("statement page 1 = %+v next %d, %v", lines, next, err)
		}
		lines, next, err = e.store.Statement(ctx, ledger.PlayerAccount("alice", "EUR"), next, 10)
		if err != nil || len(lines) != 1 || next != 0 || lines[0].Amount != -30000 || lines[0].BalanceAfter != 70000 {
			t.Fatalf("statement page 2 = %+v next %d, %v", lines, next, err)
		}

		report, err := e.store.CageReport(ctx, "2026-11-30")
		if err != nil {
			t.Fatal(err)
		}
		if len(report) != 2 || report[0].Cashier != "c1" || report[0].DepositTotal != 100000 || report[0].Deposits != 1 ||
			report[1].Cashier != "c2" || report[1].WithdrawalTotal != 30000 || report[1].NetCashIn != -30000 {
			t.Fatalf("cage report = %+v", report)
		}

		// A mistaken deposit is corrected only by its reversal, once.
		wrong, err := e.bank.Deposit(ctx, bank.CashierRequest{Key: "d2", Player: "alice", Currency: "EUR", Amount: 5000, Cashier: "c1"})
		if err != nil {
			t.Fatal(err)
		}
		rev, err := e.bank.Reverse(ctx, bank.ReverseRequest{Key: "r1", TransferID: wrong.TransferID, Reason: "wrong amount", Actor: "c1"})
		if err != nil || rev.Kind != ledger.Reversal || rev.Amount != 5000 {
			t.Fatalf("reverse = %+v, %v", rev, err)
		}
		if got := e.balance(t, ledger.PlayerAccount("alice", "EUR")); got != 70000 {
			t.Fatalf("alice = %d after reversal, want 70000", got)
		}
		_, err = e.bank.Reverse(ctx, bank.ReverseRequest{Key: "r2", TransferID: wrong.TransferID, Reason: "again", Actor: "c1"})
		wantFault(t, err, fault.Precondition, "ALREADY_REVERSED")
		// Reversing the first deposit would overdraw alice: refused.
		_, err = e.bank.Reverse(ctx, bank.ReverseRequest{Key: "r3", TransferID: dep.TransferID, Reason: "test", Actor: "c1"})
		wantFault(t, err, fault.Precondition, "INSUFFICIENT_FUNDS")
	})
}

func TestBadInputWritesNothing(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		e.open(t, "alice", 50000)
		if _, err := e.bank.OpenAccount(ctx, "open-usd", "alice", "USD"); err != nil {
			t.Fatal(err)
		}
		tr0, en0 := e.counts(t)
		_, err := e.bank.OpenAccount(ctx, "open-usd-again", "alice", "USD")
		wantFault(t, err, fault.Conflict, "ACCOUNT_EXISTS")
		tests := []struct {
			name string
			req  bank.CashierRequest
			kind fault.Kind
		}{
			{"zero amount", bank.CashierRequest{Player: "alice", Currency: "EUR", Amount: 0}, fault.Invalid},
			{"negative amount", bank.CashierRequest{Player: "alice", Currency: "EUR", Amount: -5}, fault.Invalid},
			{"overflowing amount", bank.CashierRequest{Player: "alice", Currency: "EUR", Amount: math.MaxInt64}, fault.Invalid},
			{"unknown account", bank.CashierRequest{Player: "nobody", Currency: "EUR", Amount: 100}, fault.NotFound},
			{"currency with no account", bank.CashierRequest{Player: "alice", Currency: "SEK", Amount: 100}, fault.NotFound},
			{"malformed currency", bank.CashierRequest{Player: "alice", Currency: "euro", Amount: 100}, fault.Invalid},
			{"malformed player", bank.CashierRequest{Player: "a:b", Currency: "EUR", Amount: 100}, fault.Invalid},
		}
		for i, tc := range tests {
			tc.req.Key = fmt.Sprintf("bad-%d", i)
			_, err := e.bank.Deposit(ctx, tc.req)
			if fault.KindOf(err) != tc.kind {
				t.Errorf("%s: deposit err = %v, want %v", tc.name, err, tc.kind)
			}
		}
		// Above the per-transaction maximum (overflow on the account itself
		// is TestBooksThatOverflowedStillAudit's).
		_, err = e.bank.Deposit(ctx, bank.CashierRequest{Key: "big1", Player: "alice", Currency: "EUR", Amount: math.MaxInt64 - 10, Cashier: "c"})
		wantFault(t, err, fault.Invalid, "AMOUNT_ABOVE_TRANSACTION_MAXIMUM")
		_, err = e.bank.Deposit(ctx, bank.CashierRequest{Player: "alice", Currency: "EUR", Amount: 5}) // no key
		wantFault(t, err, fault.Invalid, "")
		// Wrong currency for a hold: the table is EUR, alice's USD account has nothing.
		_, err = e.bank.HoldBuyIn(ctx, bank.HoldRequest{Key: "h-bad", TableRequest: bank.TableRequest{Table: "T1", Epoch: 1}, Player: "alice", Currency: "USD", Game: nl25, Amount: 20000})
		wantFault(t, err, fault.Precondition, "INSUFFICIENT_FUNDS")
		_, err = e.bank.HoldBuyIn(ctx, bank.HoldRequest{Key: "h-bad2", TableRequest: bank.TableRequest{Table: "T1", Epoch: 1}, Player: "alice", Currency: "EUR", Game: nl25, Amount: 0})
		wantFault(t, err, fault.Invalid, "AMOUNT_NOT_POSITIVE")
		_, err = e.bank.Enter(ctx, bank.ContributionRequest{Key: "e-bad", Player: "alice", Event: "E1", Currency: "EUR", PrizePart: 100, Fee: -1})
		wantFault(t, err, fault.Invalid, "NEGATIVE_AMOUNT")
		_, err = e.bank.PayPrize(ctx, bank.PrizeRequest{Key: "p-bad", Player: "alice", Event: "E1", Currency: "EUR", Amount: 100})
		wantFault(t, err, fault.Precondition, "INSUFFICIENT_FUNDS")

		if tr, en := e.counts(t); tr != tr0 || en != en0 {
			t.Fatalf("bad input wrote transfers %d→%d, entries %d→%d", tr0, tr, en0, en)
		}
		if got := e.balance(t, ledger.PlayerAccount("alice", "EUR")); got != 50000 {
			t.Fatalf("alice = %d, want 50000", got)
		}
	})
}

func TestConcurrentBuyInsNeverOverdraw_CS01(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		const initial, amount, n = 1_000_000, 20000, 200 // room for 50 of the 200
		e.open(t, "whale", initial)
		// One table per request: a second hold at the same table while the
		// first is pending is HOLD_PENDING, which is not what this tests.
		var wg sync.WaitGroup
		var mu sync.Mutex
		successes, refusals := 0, 0
		var other []error
		for i := range n {
			wg.Go(func() {
				_, err := e.bank.HoldBuyIn(t.Context(), bank.HoldRequest{
					Key:          fmt.Sprintf("buy-%d", i),
					TableRequest: bank.TableRequest{Table: fmt.Sprintf("T%d", i), Epoch: 1},
					Player:       "whale", Currency: "EUR", Game: nl25, Amount: amount,
				})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					successes++
				case errors.Is(err, ledger.ErrInsufficientFunds):
					refusals++
				default:
					other = append(other, err)
				}
			})
		}
		wg.Wait()
		if len(other) > 0 {
			t.Fatalf("%d unexpected errors, first: %v", len(other), other[0])
		}
		got := e.balance(t, ledger.PlayerAccount("whale", "EUR"))
		if got < 0 || got != initial-int64(successes)*amount {
			t.Fatalf("balance %d after %d successes, want %d", got, successes, initial-int64(successes)*amount)
		}
		if successes != initial/amount || refusals != n-successes {
			t.Fatalf("successes %d, refusals %d; want %d, %d", successes, refusals, initial/amount, n-initial/amount)
		}
	})
}

func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		e.open(t, "bob", 0)
		const n = 1000
		results := make([]bank.TransferResult, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				results[i], errs[i] = e.bank.Deposit(t.Context(), bank.CashierRequest{Key: "same-key", Player: "bob", Currency: "EUR", Amount: 2500, Cashier: "c1"})
			})
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
		if got := e.balance(t, ledger.PlayerAccount("bob", "EUR")); got != 2500 {
			t.Fatalf("balance = %d, want 2500 (one deposit)", got)
		}
		var deposits int
		if err := e.db.SQL().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM transfers WHERE kind = 'deposit'`).Scan(&deposits); err != nil {
			t.Fatal(err)
		}
		if deposits != 1 {
			t.Fatalf("%d deposit transfers, want 1", deposits)
		}
		_, err := e.bank.Deposit(t.Context(), bank.CashierRequest{Key: "same-key", Player: "bob", Currency: "EUR", Amount: 2600, Cashier: "c1"})
		wantFault(t, err, fault.Conflict, "IDEMPOTENCY_KEY_REUSED")
		_, err = e.bank.Withdraw(t.Context(), bank.CashierRequest{Key: "same-key", Player: "bob", Currency: "EUR", Amount: 2500, Cashier: "c1"})
		wantFault(t, err, fault.Conflict, "IDEMPOTENCY_KEY_REUSED")
	})
}

func TestHoldExpiresAndReleases(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		e.open(t, "carol", 60000)
		h, err := e.bank.HoldBuyIn(ctx, bank.HoldRequest{Key: "h1", TableRequest: bank.TableRequest{Table: "T1", Epoch: 3}, Player: "carol", Seat: 4, Currency: "EUR", Game: nl25, Amount: 30000})
		if err != nil {
			t.Fatal(err)
		}
		if h.Balance != 30000 || h.Rule != "CS-03" || h.Min != 20000 || h.Max != 50000 || !h.ExpiresAt.Equal(start.Add(2*time.Minute)) {
			t.Fatalf("hold = %+v", h)
		}
		if got := e.balance(t, ledger.HoldAccount("T1", "EUR")); got != 30000 {
			t.Fatalf("hold account = %d", got)
		}
		// Not yet expired: nothing to sweep.
		e.clock.Advance(time.Minute)
		if n, err := e.bank.ExpireHolds(ctx); err != nil || n != 0 {
			t.Fatalf("early sweep released %d, %v", n, err)
		}
		// The sweeper runs on the fake clock.
		sweepCtx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { e.bank.RunSweeper(sweepCtx, 30*time.Second, func(err error) { t.Error(err) }); close(done) }()
		stop := sync.OnceFunc(func() { cancel(); <-done })
		defer stop()
		testkit.Eventually(t, 10*time.Second, func() error {
			if e.clock.Pending() > 0 {
				e.clock.Advance(30 * time.Second)
			}
			if got := e.balance(t, ledger.PlayerAccount("carol", "EUR")); got != 60000 {
				return fmt.Errorf("carol holds %d, want 60000: the expired hold was not released", got)
			}
			return nil
		})
		stop()
		if got := e.balance(t, ledger.HoldAccount("T1", "EUR")); got != 0 {
			t.Fatalf("hold account = %d after release", got)
		}
		_, err = e.bank.CommitHold(ctx, bank.SettleRequest{Key: "c1", TableRequest: bank.TableRequest{Table: "T1", Epoch: 3}, HoldID: h.HoldID})
		wantFault(t, err, fault.Precondition, "HOLD_NOT_HELD")

		// A hold past its expiry but not yet swept cannot be committed.
		h2, err := e.bank.HoldBuyIn(ctx, bank.HoldRequest{Key: "h2", TableRequest: bank.TableRequest{Table: "T1", Epoch: 3}, Player: "carol", Currency: "EUR", Game: nl25, Amount: 20000})
		if err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(2 * time.Minute)
		_, err = e.bank.CommitHold(ctx, bank.SettleRequest{Key: "c2", TableRequest: bank.TableRequest{Table: "T1", Epoch: 3}, HoldID: h2.HoldID})
		wantFault(t, err, fault.Precondition, "HOLD_EXPIRED")
		if n, err := e.bank.ExpireHolds(ctx); err != nil || n != 1 {
			t.Fatalf("sweep released %d, %v; want 1", n, err)
		}
	})
}

func TestTableFlow_CS03_CS07_G19_CS08_CS09_CS10_G20(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		e.open(t, "dave", 200000)
		tbl := func(epoch int64) bank.TableRequest { return bank.TableRequest{Table: "T7", Epoch: epoch} }
		sitting := "" // dave's open sitting at T7, which his top-ups name
		hold := func(key string, epoch, stack, amount int64) (bank.HoldResult, error) {
			return e.bank.HoldBuyIn(ctx, bank.HoldRequest{Key: key, TableRequest: tbl(epoch), Player: "dave", Seat: 2, Currency: "EUR", Game: nl25,
				Stack: stack, Amount: amount, Sitting: sitting})
		}

		// CS-03 refusal carries the range.
		_, err := hold("h0", 5, 0, 60000)
		f := wantFault(t, err, fault.Precondition, "BUY_IN_ABOVE_MAXIMUM")
		if f.Rule != "CS-03" || f.Meta["min"] != "20000" || f.Meta["max"] != "50000" {
			t.Fatalf("refusal = %+v", f)
		}
		h, err := hold("h1", 5, 0, 50000)
		if err != nil {
			t.Fatal(err)
		}
		c, err := e.bank.CommitHold(ctx, bank.SettleRequest{Key: "c1", TableRequest: tbl(5), HoldID: h.HoldID})
		if err != nil || c.State != store.Committed {
			t.Fatalf("commit = %+v, %v", c, err)
		}
		if got := e.balance(t, ledger.TableAccount("T7", "EUR")); got != 50000 {
			t.Fatalf("table escrow = %d", got)
		}
		// Seated, dave cannot sit down at T7 again (a sit-down names no
		// sitting): CS-09 waits for the cash-out of the open sitting.
		_, err = hold("h-again", 5, 0, 20000)
		wantFault(t, err, fault.Precondition, "CASH_OUT_PENDING")
		sitting = h.HoldID
		// A stale table owner (lower epoch) is fenced out.
		_, err = hold("h-stale", 4, 10000, 1000)
		wantFault(t, err, fault.Aborted, "FENCED_OUT")

		// CS-07/G-19: seated with 45 000 after a hand, top up at most 5 000.
		_, err = hold("h2", 6, 45000, 5001)
		wantFault(t, err, fault.Precondition, "TOP_UP_ABOVE_MAXIMUM")
		top, err := hold("h3", 6, 45000, 5000)
		if err != nil || top.Rule != "G-19" {
			t.Fatalf("top-up = %+v, %v", top, err)
		}
		if _, err := e.bank.CommitHold(ctx, bank.SettleRequest{Key: "c3", TableRequest: tbl(6), HoldID: top.HoldID}); err != nil {
			t.Fatal(err)
		}

		// The player wins some chips from the table's other players; here
		// we let the table hold more than dave brought by seating erin.
		e.open(t, "erin", 50000)
		eh, err := e.bank.HoldBuyIn(ctx, bank.HoldRequest{Key: "e1", TableRequest: tbl(6), Player: "erin", Seat: 3, Currency: "EUR", Game: nl25, Amount: 50000})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.bank.CommitHold(ctx, bank.SettleRequest{Key: "ec1", TableRequest: tbl(6), HoldID: eh.HoldID}); err != nil {
			t.Fatal(err)
		}

		// CS-08: leaving with the whole stack (80 000 after winning).
		// A cash-out names its sitting and seat: erin's sitting is not dave's.
		_, err = e.bank.CashOut(ctx, bank.CashOutRequest{Key: "o0", TableRequest: tbl(6), Player: "dave", Currency: "EUR", Stack: 80000, Sitting: eh.HoldID, Seat: 2})
		wantFault(t, err, fault.Precondition, "NOT_SEATED")
		_, err = e.bank.CashOut(ctx, bank.CashOutRequest{Key: "o0", TableRequest: tbl(6), Player: "dave", Currency: "EUR", Stack: 80000, Sitting: h.HoldID, Seat: 3})
		wantFault(t, err, fault.Precondition, "NOT_SEATED")
		out, err := e.bank.CashOut(ctx, bank.CashOutRequest{Key: "o1", TableRequest: tbl(6), Player: "dave", Currency: "EUR", Stack: 80000, Sitting: h.HoldID, Seat: 2})
		if err != nil || out.Balance != 200000-55000+80000 {
			t.Fatalf("cash-out = %+v, %v", out, err)
		}
		sitting = ""
		_, err = e.bank.CashOut(ctx, bank.CashOutRequest{Key: "o2", TableRequest: tbl(6), Player: "dave", Currency: "EUR", Stack: 1000, Sitting: h.HoldID, Seat: 2})
		f = wantFault(t, err, fault.Precondition, "NOT_SEATED")
		if f.Rule != "CS-08" {
			t.Fatalf("rule = %s", f.Rule)
		}

		// CS-09: back at T7 90 minutes later, the same gaming day: 80 000 or nothing.
		e.clock.Advance(90 * time.Minute)
		d, err := e.bank.CheckBuyIn(ctx, bank.BuyInQuery{Player: "dave", Currency: "EUR", Game: buyin.Game{Table: "T7", Structure: buyin.NoLimit, BigBlind: 500}})
		if err != nil || d.Rule != "CS-09" || d.Range.Min != 80000 || d.Range.Max != 80000 {
			t.Fatalf("check buy-in = %+v, %v", d, err)
		}
		_, err = hold("h4", 6, 0, 50000)
		f = wantFault(t, err, fault.Precondition, "BUY_IN_BELOW_DEPARTURE_STACK")
		if f.Rule != "CS-09" || f.Meta["min"] != "80000" {
			t.Fatalf("refusal = %+v", f)
		}
		// CS-10: another NL table brings the stack capped at its maximum.
		d, err = e.bank.CheckBuyIn(ctx, bank.BuyInQuery{Player: "dave", Currency: "EUR", Game: buyin.Game{Table: "T8", Structure: buyin.NoLimit, BigBlind: 500}})
		if err != nil || d.Rule != "CS-10" || d.Range.Min != 50000 {
			t.Fatalf("table change = %+v, %v", d, err)
		}
		// G-20: after the 06:00 cut-off a new gaming day starts.
		e.clock.Set(time.Date(2026, 12, 1, 6, 0, 0, 0, e.bank.Profile().Day.Location))
		d, err = e.bank.CheckBuyIn(ctx, bank.BuyInQuery{Player: "dave", Currency: "EUR", Game: buyin.Game{Table: "T7", Structure: buyin.NoLimit, BigBlind: 500}})
		if err != nil || d.Rule != "CS-03" || d.Range.Min != 20000 {
			t.Fatalf("next day = %+v, %v", d, err)
		}
		if _, err := e.bank.CashOut(ctx, bank.CashOutRequest{Key: "eo", TableRequest: tbl(7), Player: "erin", Currency: "EUR", Stack: 25000, Sitting: eh.HoldID, Seat: 3}); err != nil {
			t.Fatal(err)
		}
		if got := e.balance(t, ledger.TableAccount("T7", "EUR")); got != 0 {
			t.Fatalf("table escrow = %d after everyone left", got)
		}
		// Release returns a held buy-in.
		rh, err := hold("h5", 7, 0, 20000)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := e.bank.ReleaseHold(ctx, bank.SettleRequest{Key: "r5", TableRequest: tbl(7), HoldID: rh.HoldID})
		if err != nil || rel.State != store.Released || rel.Balance != 225000 {
			t.Fatalf("release = %+v, %v", rel, err)
		}
	})
}

// TestLateCashOutNeverEndsALaterSitting_CS09 is the issue's stuck-escrow
// sequence at the wallet: a player leaves a table whose cash-out is late
// (the wallet was unreachable), and is seated there again. The sit-down is
// refused while the first sitting is open (CASH_OUT_PENDING, CS-09), not
// ruled a CS-07 rebuy; once the late cash-out arrives the return is judged
// on it (CS-09: the stack left with); and a cash-out naming the first
// sitting can never end the second, so the second one's chips come off
// the table with its own cash-out.
func TestLateCashOutNeverEndsALaterSitting_CS09(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		e.open(t, "ann", 100000)
		tbl := bank.TableRequest{Table: "T9", Epoch: 1}
		sit := func(key string, amount int64) (bank.HoldResult, error) {
			h, err := e.bank.HoldBuyIn(ctx, bank.HoldRequest{Key: key, TableRequest: tbl, Player: "ann", Seat: 3, Currency: "EUR", Game: nl25, Amount: amount})
			if err != nil {
				return h, err
			}
			return e.bank.CommitHold(ctx, bank.SettleRequest{Key: key + "/commit", TableRequest: tbl, HoldID: h.HoldID})
		}
		first, err := sit("sit-1", 40000)
		if err != nil {
			t.Fatal(err)
		}
		// ann leaves with 41 300; the table's cash-out does not reach the
		// wallet yet. The floor seats her again at once: refused, naming
		// the open sitting, whatever the amount (no CS-07 rebuy).
		_, err = sit("sit-2", 20000)
		f := wantFault(t, err, fault.Precondition, "CASH_OUT_PENDING")
		if f.Rule != "CS-09" || f.Meta["sitting_id"] != first.HoldID || f.Meta["seat"] != "3" {
			t.Fatalf("refusal = %+v", f)
		}
		if got := e.balance(t, ledger.PlayerAccount("ann", "EUR")); got != 60000 {
			t.Fatalf("a refused sit-down moved chips: balance %d", got)
		}
		// The late cash-out arrives; its chips come off the table.
		e.open(t, "bob", 50000)
		bh, err := e.bank.HoldBuyIn(ctx, bank.HoldRequest{Key: "bob", TableRequest: tbl, Player: "bob", Seat: 4, Currency: "EUR", Game: nl25, Amount: 50000})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.bank.CommitHold(ctx, bank.SettleRequest{Key: "bob/commit", TableRequest: tbl, HoldID: bh.HoldID}); err != nil {
			t.Fatal(err)
		}
		late := bank.CashOutRequest{Key: "out-1", TableRequest: tbl, Player: "ann", Currency: "EUR", Stack: 41300, Sitting: first.HoldID, Seat: 3}
		if _, err := e.bank.CashOut(ctx, late); err != nil {
			t.Fatal(err)
		}
		// CS-09: back at the same table the same gaming day, with the stack left with.
		_, err = sit("sit-3", 20000)
		f = wantFault(t, err, fault.Precondition, "BUY_IN_BELOW_DEPARTURE_STACK")
		if f.Rule != "CS-09" || f.Meta["min"] != "41300" {
			t.Fatalf("return refusal = %+v", f)
		}
		second, err := sit("sit-4", 41300)
		if err != nil {
			t.Fatal(err)
		}
		// A cash-out of the first sitting, sent again under another key,
		// finds it ended and cannot end the second.
		again := late
		again.Key = "out-1-again"
		_, err = e.bank.CashOut(ctx, again)
		wantFault(t, err, fault.Precondition, "NOT_SEATED")
		out, err := e.bank.CashOut(ctx, bank.CashOutRequest{Key: "out-2", TableRequest: tbl, Player: "ann", Currency: "EUR", Stack: 40000, Sitting: second.HoldID, Seat: 3})
		if err != nil || out.Balance != 100000-40000+41300-41300+40000 {
			t.Fatalf("second cash-out = %+v, %v", out, err)
		}
		if got := e.balance(t, ledger.TableAccount("T9", "EUR")); got != 40000+50000-41300+41300-40000 {
			t.Fatalf("table escrow = %d, want bob's 50 000 only", got)
		}
	})
}

func TestTournamentFlow_TR04_TR14_TR17_TR19(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		for _, p := range []string{"p1", "p2", "p3"} {
			e.open(t, p, 20000)
		}
		enter := func(key, player, event string, voucher string) (bank.TransferResult, error) {
			return e.bank.Enter(ctx, bank.ContributionRequest{Key: key, Player: player, Event: event, Currency: "EUR", PrizePart: 5000, Fee: 1100, VoucherID: voucher})
		}
		// TR-04: 50 + 11 € goes to two accounts.
		for _, p := range []string{"p1", "p2", "p3"} {
			if _, err := enter("sat-"+p, p, "SAT", ""); err != nil {
				t.Fatal(err)
			}
		}
		if pool, fees := e.balance(t, ledger.PrizePoolAccount("SAT", "EUR")), e.balance(t, ledger.HouseFeesAccount("EUR")); pool != 15000 || fees != 3300 {
			t.Fatalf("pool %d fees %d, want 15000 3300", pool, fees)
		}
		// TR-14: a rebuy costs the prize part only; TR-17 add-on.
		if _, err := e.bank.Rebuy(ctx, bank.ContributionRequest{Key: "rb", Player: "p2", Event: "SAT", Currency: "EUR", PrizePart: 5000}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.bank.AddOn(ctx, bank.ContributionRequest{Key: "ao", Player: "p3", Event: "SAT", Currency: "EUR", PrizePart: 1000}); err != nil {
			t.Fatal(err)
		}
		// TR-19: the satellite pays a personal voucher for MAIN worth one entry.
		v, err := e.bank.IssueVoucher(ctx, bank.VoucherRequest{Key: "v1", Player: "p1", SourceEvent: "SAT", TargetEvent: "MAIN", Currency: "EUR", Amount: 6100})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.bank.PayPrize(ctx, bank.PrizeRequest{Key: "rem", Player: "p2", Event: "SAT", Currency: "EUR", Amount: 14900, Place: 2}); err != nil {
			t.Fatal(err)
		}
		if got := e.balance(t, ledger.PrizePoolAccount("SAT", "EUR")); got != 0 {
			t.Fatalf("SAT pool = %d after payout", got)
		}
		_, err = e.bank.PayPrize(ctx, bank.PrizeRequest{Key: "over", Player: "p2", Event: "SAT", Currency: "EUR", Amount: 1})
		wantFault(t, err, fault.Precondition, "INSUFFICIENT_FUNDS")

		_, err = enter("steal", "p2", "MAIN", v.VoucherID)
		if f := wantFault(t, err, fault.Forbidden, "VOUCHER_NOT_TRANSFERABLE"); f.Rule != "TR-19" {
			t.Fatalf("rule = %s", f.Rule)
		}
		_, err = enter("wrong", "p1", "OTHER", v.VoucherID)
		wantFault(t, err, fault.Precondition, "VOUCHER_WRONG_EVENT")
		before := e.balance(t, ledger.PlayerAccount("p1", "EUR"))
		if _, err := enter("main-p1", "p1", "MAIN", v.VoucherID); err != nil {
			t.Fatal(err)
		}
		if got := e.balance(t, ledger.PlayerAccount("p1", "EUR")); got != before {
			t.Fatalf("voucher entry charged the wallet: %d → %d", before, got)
		}
		_, err = enter("again", "p1", "MAIN", v.VoucherID)
		wantFault(t, err, fault.Precondition, "VOUCHER_USED")
		if _, err := enter("main-p3", "p3", "MAIN", ""); err != nil {
			t.Fatal(err)
		}
		// MAIN is cancelled: every contribution is reversed; the voucher is usable again.
		p3 := e.balance(t, ledger.PlayerAccount("p3", "EUR"))
		ref, err := e.bank.Refund(ctx, bank.RefundRequest{Key: "cancel", Event: "MAIN", Reason: "cancelled"})
		if err != nil || len(ref.Reversals) != 2 || ref.Total != 12200 {
			t.Fatalf("refund = %+v, %v", ref, err)
		}
		if got := e.balance(t, ledger.PlayerAccount("p3", "EUR")); got != p3+6100 {
			t.Fatalf("p3 = %d, want %d", got, p3+6100)
		}
		if pool := e.balance(t, ledger.PrizePoolAccount("MAIN", "EUR")); pool != 0 {
			t.Fatalf("MAIN pool = %d after refund", pool)
		}
		if got := e.balance(t, ledger.VoucherAccount("MAIN", "EUR")); got != 6100 {
			t.Fatalf("voucher account = %d, want 6100", got)
		}
		if _, err := enter("main-p1-again", "p1", "MAIN", v.VoucherID); err != nil {
			t.Fatalf("voucher after refund: %v", err)
		}
	})
}

func TestLedgerRowsAreImmutable(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		e.open(t, "frank", 1000)
		for _, q := range []string{
			`UPDATE entries SET amount = amount + 1`,
			`DELETE FROM entries`,
			`UPDATE transfers SET amount = 1`,
		} {
			if _, err := e.db.SQL().ExecContext(t.Context(), q); err == nil {
				t.Errorf("%s succeeded", q)
			}
		}
		if _, err := e.db.SQL().ExecContext(t.Context(), `UPDATE accounts SET balance = -1 WHERE id = 'player:frank:EUR'`); err == nil {
			t.Error("negative player balance accepted by the schema")
		}
	})
}

func TestHoldSettlesOnceUnderRace(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		e.open(t, "gina", 50000)
		h, err := e.bank.HoldBuyIn(ctx, bank.HoldRequest{Key: "h", TableRequest: bank.TableRequest{Table: "R1", Epoch: 1}, Player: "gina", Currency: "EUR", Game: nl25, Amount: 50000})
		if err != nil {
			t.Fatal(err)
		}
		const n = 20
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				req := bank.SettleRequest{Key: fmt.Sprintf("s%d", i), TableRequest: bank.TableRequest{Table: "R1", Epoch: 1}, HoldID: h.HoldID}
				if i%2 == 0 {
					_, errs[i] = e.bank.CommitHold(ctx, req)
				} else {
					_, errs[i] = e.bank.ReleaseHold(ctx, req)
				}
			})
		}
		wg.Wait()
		ok, committed := 0, false
		for i, err := range errs {
			switch {
			case err == nil:
				ok++
				committed = i%2 == 0
			case errors.Is(err, bank.ErrHoldNotHeld):
			default:
				t.Fatalf("settle %d: %v", i, err)
			}
		}
		if ok != 1 {
			t.Fatalf("%d settlements succeeded, want 1", ok)
		}
		var table int64
		if a, err := e.store.Account(ctx, ledger.TableAccount("R1", "EUR")); err == nil {
			table = a.Balance
		} else if !errors.Is(err, store.ErrAccountNotFound) {
			t.Fatal(err)
		}
		player := e.balance(t, ledger.PlayerAccount("gina", "EUR"))
		if committed && (table != 50000 || player != 0) || !committed && (table != 0 || player != 50000) {
			t.Fatalf("committed=%v: table %d, player %d", committed, table, player)
		}
		if got := e.balance(t, ledger.HoldAccount("R1", "EUR")); got != 0 {
			t.Fatalf("hold account = %d", got)
		}
	})
}

func TestVoucherUsedOnceUnderRace_TR19(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		e.open(t, "hank", 6100)
		if _, err := e.bank.Enter(ctx, bank.ContributionRequest{Key: "sat", Player: "hank", Event: "SAT2", Currency: "EUR", PrizePart: 6100}); err != nil {
			t.Fatal(err)
		}
		v, err := e.bank.IssueVoucher(ctx, bank.VoucherRequest{Key: "v", Player: "hank", SourceEvent: "SAT2", TargetEvent: "MAIN2", Currency: "EUR", Amount: 6100})
		if err != nil {
			t.Fatal(err)
		}
		const n = 10
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, errs[i] = e.bank.Enter(ctx, bank.ContributionRequest{Key: fmt.Sprintf("e%d", i), Player: "hank", Event: "MAIN2", Currency: "EUR", PrizePart: 5000, Fee: 1100, VoucherID: v.VoucherID})
			})
		}
		wg.Wait()
		ok := 0
		for i, err := range errs {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, bank.ErrVoucherUsed):
			default:
				t.Fatalf("entry %d: %v", i, err)
			}
		}
		if ok != 1 || e.balance(t, ledger.PrizePoolAccount("MAIN2", "EUR")) != 5000 || e.balance(t, ledger.VoucherAccount("MAIN2", "EUR")) != 0 {
			t.Fatalf("%d entries succeeded; pool %d", ok, e.balance(t, ledger.PrizePoolAccount("MAIN2", "EUR")))
		}
	})
}
