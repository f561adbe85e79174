package store_test

import (
	"context"
	"errors"
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
		store.OnQueued(s, func(n int) { waiting <- n })
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
