package bank_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/wallet/bank"
	"github.com/cardroom/cardroom/services/wallet/ledger"
	"github.com/cardroom/cardroom/services/wallet/store"
)

// settled is what one CommitHold call answered.
type settled struct {
	res bank.HoldResult
	err error
}

// TestCommitHold_PipelinedCommitsAnswerAsTheOrdinaryWay_CS09 puts buy-in
// commits that name their player into one batch, with a hold of another
// player at the same table, and checks on PostgreSQL that all three were
// pipelined (two statements each instead of six round trips) and that
// each commit did what the ordinary way does: the chips moved from the
// table's hold account to its escrow, the hold is committed, the sitting
// the sit-down opens is open (a cash-out of it is taken, and the player's
// next sit-down waits for it: CS-09), and the stored answer is the one
// replayed to a retry under the same key, with or without the player.
//
// Then batches of a commit the pipeline cannot take — of a hold past its
// expiry, naming another player, under a fencing epoch older than the
// table's — beside a good one: the pipeline fails, nothing of it is kept,
// and the batch runs the ordinary way, where the refusal is its own
// (HOLD_EXPIRED, NOT_FOUND, fenced out) and the good commit goes through.
// On SQLite nothing is pipelined and the outcomes are the same.
func TestCommitHold_PipelinedCommitsAnswerAsTheOrdinaryWay_CS09(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: store.ServiceName, Migrations: store.Migrations(), MaxOpenConns: 16}, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		clk := clock.NewFake(start)
		// One committer: a request blocking it holds every lane's batch.
		st := store.NewGrouped(db, store.GroupCommit{Committers: 1})
		waiting := make(chan int, 256) // more than the test queues between drains
		st.OnQueued(func(n int) { waiting <- n })
		e := env{bank: bank.New(st, clk, bank.Config{HoldTTL: 2 * time.Minute}), store: st, db: db, clock: clk}
		t.Cleanup(func() { auditClean(t, db) })
		const table = "PC-T"
		pipelines := db.Dialect() == sqlstore.Postgres

		// call runs f (one request to the bank) and returns once it is
		// queued, with a channel for its answer.
		call := func(f func() (bank.HoldResult, error)) <-chan settled {
			out := make(chan settled, 1)
			go func() {
				res, err := f()
				out <- settled{res, err}
			}()
			<-waiting
			return out
		}
		// batch runs the requests queued by queue in one batch, behind one
		// that holds the committer meanwhile.
		batch := func(name string, queue func()) {
			started, release := make(chan struct{}), make(chan struct{})
			go func() {
				_, _, err := st.Idempotent(ctx, store.Request{Key: "pc-block-" + name, Operation: "Block", Lane: "table:" + table}, clk.Now(),
					func(*store.Tx) ([]byte, error) { close(started); <-release; return nil, nil })
				if err != nil {
					t.Errorf("blocking request: %v", err)
				}
			}()
			<-waiting
			<-started
			queue()
			close(release)
		}
		// drained forgets the queueings of requests made one at a time: a
		// request that returned has queued all it will (once, or again
		// after its epoch was verified).
		drained := func() {
			for len(waiting) > 0 {
				<-waiting
			}
		}
		hold := func(key, player string, epoch int64) bank.HoldResult {
			t.Helper()
			h, err := e.bank.HoldBuyIn(ctx, bank.HoldRequest{Key: key, TableRequest: bank.TableRequest{Table: table, Epoch: epoch},
				Player: player, Seat: 1, Currency: "EUR", Game: nl25, Amount: 20000})
			drained()
			if err != nil {
				t.Fatalf("hold %s: %v", key, err)
			}
			return h
		}
		commit := func(key string, h bank.HoldResult, player string, epoch int64) func() (bank.HoldResult, error) {
			return func() (bank.HoldResult, error) {
				return e.bank.CommitHold(ctx, bank.SettleRequest{Key: key, TableRequest: bank.TableRequest{Table: table, Epoch: epoch},
					HoldID: h.HoldID, Player: player})
			}
		}
		for _, p := range []string{"pc-w", "pc-a", "pc-b", "pc-c", "pc-e", "pc-f", "pc-g", "pc-h"} {
			e.open(t, p, 100000)
		}
		drained()
		// The table's first hold opened its escrow account too, so even
		// its first commit, alone in its batch, is pipelined.
		hw := hold("pc-hw", "pc-w", 1)
		first := st.GroupStats()
		_, err := commit("pc-cw", hw, "pc-w", 1)()
		drained()
		if err != nil {
			t.Fatalf("first commit at the table: %v", err)
		}
		if got, want := st.GroupStats().Pipelined-first.Pipelined, map[bool]int64{true: 1, false: 0}[pipelines]; got != want {
			t.Errorf("the table's first commit pipelined = %d, want %d (its escrow opened by the hold)", got, want)
		}
		escrow, holds := ledger.TableAccount(table, "EUR"), ledger.HoldAccount(table, "EUR")
		ha, hb := hold("pc-ha", "pc-a", 1), hold("pc-hb", "pc-b", 1)
		before := st.GroupStats()

		var ca, cb, hc <-chan settled
		batch("1", func() {
			ca, cb = call(commit("pc-ca", ha, "pc-a", 1)), call(commit("pc-cb", hb, "pc-b", 1))
			hc = call(func() (bank.HoldResult, error) {
				return e.bank.HoldBuyIn(ctx, bank.HoldRequest{Key: "pc-hc", TableRequest: bank.TableRequest{Table: table, Epoch: 1},
					Player: "pc-c", Seat: 3, Currency: "EUR", Game: nl25, Amount: 30000})
			})
		})
		answers := map[string]settled{"pc-ca": <-ca, "pc-cb": <-cb}
		if r := <-hc; r.err != nil || r.res.Balance != 70000 {
			t.Errorf("hold of pc-c beside the commits = %+v, %v; want balance 70000", r.res, r.err)
		}
		after := st.GroupStats()
		if got, want := after.Pipelined-before.Pipelined, map[bool]int64{true: 3, false: 0}[pipelines]; got != want {
			t.Errorf("requests pipelined in the first batch = %d, want %d", got, want)
		}
		if after.PipelineFailures != before.PipelineFailures {
			t.Errorf("pipelines failed in the first batch: %d", after.PipelineFailures-before.PipelineFailures)
		}
		for key, h := range map[string]bank.HoldResult{"pc-ca": ha, "pc-cb": hb} {
			got := answers[key]
			if got.err != nil {
				t.Fatalf("commit %s: %v", key, got.err)
			}
			want := bank.HoldResult{HoldID: h.HoldID, State: store.Committed, Player: h.Player, Table: table, Currency: "EUR", Amount: 20000,
				ExpiresAt: h.ExpiresAt, TransferID: got.res.TransferID}
			if got.res != want || got.res.TransferID == "" {
				t.Errorf("commit %s = %+v, want %+v", key, got.res, want)
			}
			if s := e.holdState(t, h.HoldID); s != store.Committed {
				t.Errorf("hold %s is %s, want committed", h.HoldID, s)
			}
			// A retry gets the stored answer, whether it names the player
			// or not (Player is no part of the request's hash).
			for _, player := range []string{h.Player, ""} {
				again, err := e.bank.CommitHold(ctx, bank.SettleRequest{Key: key, TableRequest: bank.TableRequest{Table: table, Epoch: 1},
					HoldID: h.HoldID, Player: player})
				drained()
				if err != nil || again != got.res {
					t.Errorf("commit %s sent again (player %q) = %+v, %v; want %+v", key, player, again, err, got.res)
				}
			}
		}
		if got := e.balance(t, escrow); got != 3*20000 {
			t.Errorf("escrow = %d, want %d", got, 3*20000)
		}
		if got := e.balance(t, holds); got != 30000 {
			t.Errorf("hold account = %d, want 30000 (pc-c's hold)", got)
		}
		// pc-a's sitting is open: a sit-down waits for its cash-out (CS-09),
		// which ends it.
		_, err = e.bank.HoldBuyIn(ctx, bank.HoldRequest{Key: "pc-ha2", TableRequest: bank.TableRequest{Table: table, Epoch: 1},
			Player: "pc-a", Seat: 4, Currency: "EUR", Game: nl25, Amount: 20000})
		drained()
		wantFault(t, err, fault.Precondition, "CASH_OUT_PENDING")
		out, err := e.bank.CashOut(ctx, bank.CashOutRequest{Key: "pc-out-a", TableRequest: bank.TableRequest{Table: table, Epoch: 1},
			Player: "pc-a", Currency: "EUR", Stack: 25000, Sitting: ha.HoldID, Seat: 1})
		drained()
		if err != nil || out.Balance != 80000+25000 {
			t.Fatalf("cash-out of pc-a's pipelined sitting = %+v, %v; want balance 105000", out, err)
		}

		// Batches with a refusal beside a good commit: the refusal fails
		// the pipeline, which keeps nothing, and each is answered as it
		// would be alone.
		he := hold("pc-he", "pc-e", 1)
		clk.Advance(3 * time.Minute) // he (and pc-c's hold) expire
		hf := hold("pc-hf", "pc-f", 1)
		hh := hold("pc-hh", "pc-h", 2) // the table's epoch is 2 from now on
		for i, c := range []struct {
			name   string
			commit func() (bank.HoldResult, error)
			held   bank.HoldResult
			want   func(error) bool
		}{
			{"a hold past its expiry", commit("pc-ce", he, "pc-e", 2), he, func(err error) bool { return errors.Is(err, bank.ErrHoldExpired) }},
			{"another player's hold", commit("pc-cf", hf, "pc-a", 2), hf, func(err error) bool {
				f, ok := fault.As(err)
				return ok && f.Kind == fault.NotFound
			}},
			{"the old owner's epoch", commit("pc-ch", hh, "pc-h", 1), hh, func(err error) bool { return errors.Is(err, sqlstore.ErrFencedOut) }},
		} {
			good := hold("pc-hg"+strconv.Itoa(i), "pc-g", 2)
			snap := st.GroupStats()
			transfers, _ := e.counts(t)
			var refused, beside <-chan settled
			batch(strconv.Itoa(2+i), func() {
				refused = call(c.commit)
				beside = call(commit("pc-cg"+strconv.Itoa(i), good, "pc-g", 2))
			})
			if r := <-refused; !c.want(r.err) {
				t.Errorf("commit of %s = %+v, %v; want it refused", c.name, r.res, r.err)
			}
			if r := <-beside; r.err != nil || r.res.State != store.Committed {
				t.Errorf("commit beside that of %s = %+v, %v; want committed", c.name, r.res, r.err)
			}
			got := st.GroupStats()
			if failed, want := got.PipelineFailures-snap.PipelineFailures, map[bool]int64{true: 1, false: 0}[pipelines]; failed != want {
				t.Errorf("with %s: pipelines failed = %d, want %d", c.name, failed, want)
			}
			if got.Pipelined != snap.Pipelined {
				t.Errorf("with %s: requests pipelined = %d, want 0", c.name, got.Pipelined-snap.Pipelined)
			}
			if s := e.holdState(t, c.held.HoldID); s != store.Held {
				t.Errorf("the hold whose commit was refused (%s) is %s, want still held", c.name, s)
			}
			if now, _ := e.counts(t); now != transfers+1 {
				t.Errorf("with %s: transfers posted = %d, want 1 (the good commit's)", c.name, now-transfers)
			}
			// pc-g's next sit-down needs this one's sitting ended.
			if _, err := e.bank.CashOut(ctx, bank.CashOutRequest{Key: "pc-out-g" + strconv.Itoa(i), TableRequest: bank.TableRequest{Table: table, Epoch: 2},
				Player: "pc-g", Currency: "EUR", Stack: 20000, Sitting: good.HoldID, Seat: 1}); err != nil {
				t.Fatalf("cash-out of pc-g: %v", err)
			}
			drained()
		}
		// Released, the refused ones leave the books as they were.
		for _, h := range []bank.HoldResult{hf, hh} {
			if _, err := e.bank.ReleaseHold(ctx, bank.SettleRequest{Key: "pc-r-" + h.HoldID, TableRequest: bank.TableRequest{Table: table, Epoch: 2},
				HoldID: h.HoldID}); err != nil {
				t.Errorf("release %s: %v", h.HoldID, err)
			}
			drained()
		}
		if n, err := e.bank.ExpireHolds(ctx); err != nil || n != 2 {
			t.Errorf("expired holds released = %d, %v; want 2 (pc-c's and pc-e's)", n, err)
		}
	})
}

// TestCommittingHashesAsASettleRequest checks that a commit's request
// hash (its JSON, with the operation's name) is the same whether or not
// it names its player, so that commits stored before the player was
// named answer their retries.
func TestCommittingHashesAsASettleRequest(t *testing.T) {
	t.Parallel()
	r := bank.SettleRequest{Key: "k", TableRequest: bank.TableRequest{Table: "T", Epoch: 3}, HoldID: "hold_1"}
	named := r
	named.Player = "p"
	a, errA := json.Marshal(r)
	b, errB := json.Marshal(named)
	if errA != nil || errB != nil || string(a) != string(b) || string(a) != `{"Table":"T","HoldID":"hold_1"}` {
		t.Errorf("request JSON = %s, %s (%v, %v); want both {\"Table\":\"T\",\"HoldID\":\"hold_1\"}", a, b, errA, errB)
	}
}

// TestConcurrentBuyInsAndCashierKeepTheBooks_CS01_CS09 runs whole buy-ins
// (hold, then commit naming the player or, one time in four, release),
// cash-outs and cage deposits and withdrawals from many goroutines at once
// on a few players and tables, so that commits are pipelined in batches
// with holds, cash-outs and cashier requests of the same players, and
// then reconciles the books with what the callers were told: each
// player's balance is the start plus every change a caller was answered
// (a hold −, a release +, a cash-out + the stack left with, a deposit +,
// a withdrawal −; a commit leaves it as it is), each table's escrow is
// what was committed less what was cashed out, no hold account keeps a
// chip once every hold is settled, and the audit is clean. A refusal
// (short of funds, a hold or sitting of the same player pending at the
// table: CS-01, CS-09) changes nothing.
func TestConcurrentBuyInsAndCashierKeepTheBooks_CS01_CS09(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, e env) {
		ctx := t.Context()
		const initial, amount, loss = 150000, 20000, 5000
		players := []string{"cb-0", "cb-1", "cb-2", "cb-3", "cb-4"}
		tables := []string{"CB-T0", "CB-T1", "CB-T2"}
		for _, p := range players {
			e.open(t, p, initial)
		}
		var mu sync.Mutex
		balance := map[string]int64{} // each player's answered changes
		escrow := map[string]int64{}  // each table's
		refused := map[string]int{}   // by reason
		change := func(m map[string]int64, k string, d int64) { mu.Lock(); m[k] += d; mu.Unlock() }
		// refusal counts an answer that may come of the players and tables
		// being shared, and reports any other.
		refusal := func(what string, err error) {
			f, ok := fault.As(err)
			if !ok || !map[string]bool{"INSUFFICIENT_FUNDS": true, "HOLD_PENDING": true, "CASH_OUT_PENDING": true}[f.Reason] {
				t.Errorf("%s: %v", what, err)
				return
			}
			mu.Lock()
			refused[f.Reason]++
			mu.Unlock()
		}
		before := e.store.GroupStats()
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(g), 7))
				for i := range 30 {
					p, tb := players[rng.IntN(len(players))], tables[rng.IntN(len(tables))]
					key := fmt.Sprintf("cb-%d-%d", g, i)
					req := bank.TableRequest{Table: tb, Epoch: 1}
					switch k := rng.IntN(10); {
					case k < 6:
						h, err := e.bank.HoldBuyIn(ctx, bank.HoldRequest{Key: key, TableRequest: req, Player: p, Seat: int64(g), Currency: "EUR", Game: nl25, Amount: amount})
						if err != nil {
							refusal("hold", err)
							continue
						}
						change(balance, p, -amount)
						if rng.IntN(4) == 0 {
							if _, err := e.bank.ReleaseHold(ctx, bank.SettleRequest{Key: key + "-r", TableRequest: req, HoldID: h.HoldID}); err != nil {
								t.Errorf("release %s: %v", h.HoldID, err)
								continue
							}
							change(balance, p, amount)
							continue
						}
						if _, err := e.bank.CommitHold(ctx, bank.SettleRequest{Key: key + "-c", TableRequest: req, HoldID: h.HoldID, Player: p}); err != nil {
							t.Errorf("commit %s: %v", h.HoldID, err)
							continue
						}
						change(escrow, tb, amount)
						// The player leaves with less than they sat down with.
						if _, err := e.bank.CashOut(ctx, bank.CashOutRequest{Key: key + "-o", TableRequest: req, Player: p, Currency: "EUR",
							Stack: amount - loss, Sitting: h.HoldID, Seat: int64(g)}); err != nil {
							t.Errorf("cash-out of %s: %v", h.HoldID, err)
							continue
						}
						change(escrow, tb, -(amount - loss))
						change(balance, p, amount-loss)
					case k < 8:
						if _, err := e.bank.Deposit(ctx, bank.CashierRequest{Key: key, Player: p, Currency: "EUR", Amount: 7000, Cashier: "c"}); err != nil {
							t.Errorf("deposit: %v", err)
							continue
						}
						change(balance, p, 7000)
					default:
						if _, err := e.bank.Withdraw(ctx, bank.CashierRequest{Key: key, Player: p, Currency: "EUR", Amount: 10000, Cashier: "c"}); err != nil {
							refusal("withdrawal", err)
							continue
						}
						change(balance, p, -10000)
					}
				}
			})
		}
		wg.Wait()
		for _, p := range players {
			if got, want := e.balance(t, ledger.PlayerAccount(p, "EUR")), initial+balance[p]; got != want {
				t.Errorf("balance of %s = %d, want %d (the start and every change answered)", p, got, want)
			}
		}
		for _, tb := range tables {
			if got := e.balance(t, ledger.TableAccount(tb, "EUR")); got != escrow[tb] {
				t.Errorf("escrow of %s = %d, want %d", tb, got, escrow[tb])
			}
			if a, err := e.store.Account(ctx, ledger.HoldAccount(tb, "EUR")); err == nil && a.Balance != 0 {
				t.Errorf("hold account of %s = %d with every hold settled, want 0", tb, a.Balance)
			}
		}
		after := e.store.GroupStats()
		t.Logf("refused %v; %d requests pipelined in %d batches", refused, after.Pipelined-before.Pipelined, after.Batches-before.Batches)
	})
}
