package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/wallet/ledger"
	"github.com/cardroom/cardroom/services/wallet/store"
)

// result is what one Idempotent call answered.
type result struct {
	resp     string
	replayed bool
	err      error
}

// TestGroupCommit_OneBatchKeepsEachRequestsKeyResultAndError puts four
// requests into one batch transaction behind a first one that holds the
// committer, and checks that each keeps its own outcome: a withdrawal
// commits; the next one, which the first leaves short of funds (CS-01),
// is refused and rolled back alone — with the account it opened, which
// must not stay in the store's cache of open accounts either; a duplicate
// of the first withdrawal's key gets its stored response; a last
// withdrawal commits. A request whose caller gives up while it waits
// never runs.
func TestGroupCommit_OneBatchKeepsEachRequestsKeyResultAndError(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: store.ServiceName, Migrations: store.Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s := store.NewGrouped(db, store.GroupCommit{Committers: 1})
		ctx := t.Context()
		cage, p, opened := ledger.CageAccount("EUR"), ledger.PlayerAccount("g-p", "EUR"), ledger.HoldAccount("g-T", "EUR")
		mustPost(t, s, build(t, "g-dep", ledger.Deposit, ledger.Move{From: cage, To: p, Amount: 100}))

		waiting := make(chan int, 16)
		s.OnQueued(func(n int) { waiting <- n })
		// queue starts an Idempotent call and returns once it is queued.
		queue := func(cctx context.Context, key, body string, fn func(tx *store.Tx) ([]byte, error)) <-chan result {
			out := make(chan result, 1)
			go func() {
				resp, replayed, err := s.Idempotent(cctx, store.Request{Key: key, Operation: "Op", Body: []byte(body)}, now, fn)
				out <- result{string(resp), replayed, err}
			}()
			<-waiting
			return out
		}
		post := func(id string, to ledger.AccountID, amount int64, resp string) func(tx *store.Tx) ([]byte, error) {
			return func(tx *store.Tx) ([]byte, error) {
				if err := tx.EnsureAccount(ctx, to); err != nil {
					return nil, err
				}
				if _, err := tx.Post(ctx, build(t, id, ledger.Withdrawal, ledger.Move{From: p, To: to, Amount: amount}), store.Posting{GamingDay: "d"}); err != nil {
					return nil, err
				}
				return []byte(resp), nil
			}
		}

		started, release := make(chan struct{}), make(chan struct{})
		first := queue(ctx, "g-first", "first", func(*store.Tx) ([]byte, error) {
			close(started)
			<-release
			return []byte("first"), nil
		})
		<-started // the committer runs the first batch; the rest queue behind it
		withdraw := queue(ctx, "g-w1", "60", post("g-w1", cage, 60, "w1"))
		short := queue(ctx, "g-w2", "60", post("g-w2", opened, 60, "w2"))
		duplicate := queue(ctx, "g-w1", "60", post("g-w1-again", cage, 60, "w1-again"))
		last := queue(ctx, "g-w3", "30", post("g-w3", cage, 30, "w3"))
		gone, leave := context.WithCancel(ctx)
		var ran atomic.Bool
		abandoned := queue(gone, "g-gone", "x", func(*store.Tx) ([]byte, error) { ran.Store(true); return []byte("gone"), nil })
		leave()
		if r := <-abandoned; !errors.Is(r.err, context.Canceled) {
			t.Errorf("abandoned request = %+v, want context.Canceled", r)
		}
		close(release)

		for _, c := range []struct {
			name string
			got  result
			want result
		}{
			{"first", <-first, result{resp: "first"}},
			{"withdrawal", <-withdraw, result{resp: "w1"}},
			{"duplicate of the withdrawal's key", <-duplicate, result{resp: "w1", replayed: true}},
			{"last withdrawal", <-last, result{resp: "w3"}},
		} {
			if c.got != c.want {
				t.Errorf("%s = %+v, want %+v", c.name, c.got, c.want)
			}
		}
		if r := <-short; !errors.Is(r.err, ledger.ErrInsufficientFunds) {
			t.Errorf("withdrawal left short = %+v, want CS-01 insufficient funds", r)
		}
		if ran.Load() {
			t.Error("the request whose caller left before its batch still ran")
		}
		if a, err := s.Account(ctx, p); err != nil || a.Balance != 10 {
			t.Errorf("player balance = %d, %v; want 100 - 60 - 30 = 10", a.Balance, err)
		}
		if _, err := s.Account(ctx, opened); !errors.Is(err, store.ErrAccountNotFound) {
			t.Errorf("account opened by the refused request: %v, want it rolled back", err)
		}
		if got := s.GroupStats(); got != (store.GroupStats{Batches: 2, Requests: 5}) {
			t.Errorf("group stats = %+v, want the first batch and one of the four behind it", got)
		}
		// Had the refused request's opening of the account stayed in the
		// cache, this would skip opening it and fail with ACCOUNT_NOT_FOUND.
		if r := <-queue(ctx, "g-w4", "10", post("g-w4", opened, 10, "w4")); r != (result{resp: "w4"}) {
			t.Errorf("a later request to the account the refused one opened = %q, %v", r.resp, r.err)
		}
	})
}

// TestGroupCommit_PipelinesRequestsThatReadNothingAnotherWrites puts
// buy-in holds (the presence read, then the transfer with its key, as the
// bank's) into one batch behind a request that holds the committer. On
// PostgreSQL the ones that name different accounts are pipelined in one
// transaction and the one that shares an account with them runs after
// them; every one keeps its own key, result and balance. A second batch
// holds a refusal (short of funds) and a duplicate of a committed key:
// the pipeline fails, nothing of it is kept, and the batch runs the
// ordinary way — the refusal alone refused and leaving nothing behind,
// the duplicate answered with the stored response, the rest committed.
// On SQLite nothing is pipelined and the outcomes are the same.
func TestGroupCommit_PipelinesRequestsThatReadNothingAnotherWrites(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: store.ServiceName, Migrations: store.Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s := store.NewGrouped(db, store.GroupCommit{Committers: 1})
		ctx := t.Context()
		const table = "pl-T"
		if _, err := s.RecordIssued(ctx, table, 1); err != nil {
			t.Fatal(err)
		}
		cage, holdAccount := ledger.CageAccount("EUR"), ledger.HoldAccount(table, "EUR")
		player := func(p string) ledger.AccountID { return ledger.PlayerAccount(p, "EUR") }
		for p, amount := range map[string]int64{"pl-1": 100, "pl-2": 100, "pl-3": 10} {
			mustPost(t, s, build(t, "pl-dep-"+p, ledger.Deposit, ledger.Move{From: cage, To: player(p), Amount: amount}))
		}

		waiting := make(chan int, 16)
		s.OnQueued(func(n int) { waiting <- n })
		// hold queues a buy-in hold of amount by p under key and returns
		// once it is queued.
		hold := func(key, p string, amount int64) <-chan result {
			req := store.Request{Key: key, Operation: "Hold", Body: []byte(p + fmt.Sprint(amount)), Lane: "table:" + table,
				Exclusive: []string{string(player(p))}}
			fn := func(tx *store.Tx) ([]byte, error) {
				pr, err := tx.FencedPresence(ctx, table, 1, p, "EUR", "d", holdAccount)
				if err != nil {
					return nil, err
				}
				resp := []byte(key)
				var with []store.Row
				if pr.BalanceLocked && pr.Balance >= amount {
					if row, ok := tx.KeyRow(resp); ok {
						with = append(with, row)
					}
				}
				if _, err := tx.Post(ctx, build(t, "pl-tr-"+key, ledger.BuyInHold, ledger.Move{From: player(p), To: holdAccount, Amount: amount}), store.Posting{GamingDay: "d"}, with...); err != nil {
					return nil, err
				}
				return resp, nil
			}
			out := make(chan result, 1)
			go func() {
				resp, replayed, err := s.Idempotent(ctx, req, now, fn)
				out <- result{string(resp), replayed, err}
			}()
			<-waiting
			return out
		}
		// batch runs the requests queued by queue in one batch, behind one
		// that holds the committer meanwhile.
		batch := func(name string, queue func()) {
			started, release := make(chan struct{}), make(chan struct{})
			go func() {
				_, _, err := s.Idempotent(ctx, store.Request{Key: "pl-block-" + name, Operation: "Block", Lane: "table:" + table}, now,
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
		pipelined := func(want int64) {
			t.Helper()
			if db.Dialect() != sqlstore.Postgres {
				want = 0
			}
			if got := s.GroupStats().Pipelined; got != want {
				t.Errorf("requests pipelined = %d, want %d", got, want)
			}
		}

		var a, b, c <-chan result
		batch("1", func() {
			a, b = hold("pl-a", "pl-1", 40), hold("pl-b", "pl-2", 40)
			c = hold("pl-c", "pl-1", 30) // pl-1's account again: after a, not beside it
		})
		for name, got := range map[string]result{"a": <-a, "b": <-b, "c": <-c} {
			if want := (result{resp: "pl-" + name}); got != want {
				t.Errorf("hold %s = %+v, want %+v", name, got, want)
			}
		}
		pipelined(2)
		if failures := s.GroupStats().PipelineFailures; failures != 0 {
			t.Errorf("pipeline failures = %d, want 0", failures)
		}

		var d, e, again <-chan result
		batch("2", func() {
			d = hold("pl-d", "pl-3", 50) // more than pl-3 has (CS-01)
			e = hold("pl-e", "pl-2", 10)
			again = hold("pl-a", "pl-1", 40)
		})
		if r := <-d; !errors.Is(r.err, ledger.ErrInsufficientFunds) {
			t.Errorf("hold short of funds = %+v, want CS-01 insufficient funds", r)
		}
		if r, want := <-e, (result{resp: "pl-e"}); r != want {
			t.Errorf("hold e = %+v, want %+v", r, want)
		}
		if r, want := <-again, (result{resp: "pl-a", replayed: true}); r != want {
			t.Errorf("hold a sent again = %+v, want %+v", r, want)
		}
		pipelined(2)
		if failures, want := s.GroupStats().PipelineFailures, int64(1); db.Dialect() == sqlstore.Postgres && failures != want {
			t.Errorf("pipeline failures = %d, want %d", failures, want)
		}
		if _, err := s.Transfer(ctx, "pl-tr-pl-d"); err == nil {
			t.Error("the refused hold's transfer was kept")
		}
		for acct, want := range map[ledger.AccountID]int64{player("pl-1"): 30, player("pl-2"): 50, player("pl-3"): 10, holdAccount: 120} {
			if a, err := s.Account(ctx, acct); err != nil || a.Balance != want {
				t.Errorf("balance of %s = %d, %v; want %d", acct, a.Balance, err, want)
			}
		}
		// The hold account, which a and b both credited in one pipeline
		// (their postings merged into one statement on PostgreSQL), has
		// every entry numbered and balanced in turn, as if posted one by
		// one in the pipeline's order.
		lines, _, err := s.Statement(ctx, holdAccount, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range lines {
			got = append(got, fmt.Sprintf("%d %s %+d=%d", l.Seq, l.TransferID, l.Amount, l.BalanceAfter))
		}
		if want := []string{"1 pl-tr-pl-a +40=40", "2 pl-tr-pl-b +40=80", "3 pl-tr-pl-c +30=110", "4 pl-tr-pl-e +10=120"}; !slices.Equal(got, want) {
			t.Errorf("hold account's statement %q, want %q", got, want)
		}
		if r, err := store.Audit(ctx, db); err != nil || !r.Clean() {
			t.Errorf("audit = %v, %v; want clean", r.Problems(), err)
		}
	})
}
