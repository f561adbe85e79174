package store_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/wallet/buyin"
	"github.com/cardroom/cardroom/services/wallet/ledger"
	"github.com/cardroom/cardroom/services/wallet/store"
)

var now = time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC)

// TestContract runs the store's one contract suite on SQLite and on real
// PostgreSQL, with each request in a transaction of its own and with
// requests group-committed (the wallet's default).
func TestContract(t *testing.T) {
	t.Parallel()
	for _, mode := range []struct {
		name string
		open func(db *sqlstore.DB) *store.Store
	}{
		{"each", store.New},
		{"grouped", func(db *sqlstore.DB) *store.Store { return store.NewGrouped(db, store.GroupCommit{}) }},
	} {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			contract(t, mode.open)
		})
	}
}

func contract(t *testing.T, open func(db *sqlstore.DB) *store.Store) {
	testkit.EachStore(t, sqlstore.Options{Service: store.ServiceName, Migrations: store.Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		tests := []struct {
			name string
			run  func(t *testing.T, s *store.Store)
		}{
			{"post moves balances and writes entries", testPost},
			{"post refuses without writing", testPostRefusals},
			{"idempotent runs once and replays", testIdempotent},
			{"a failed request keeps no key", testIdempotentFailure},
			{"holds settle once", testHoldSettlesOnce},
			{"table epochs only go up", testEpochs},
			{"presence reads sitting and departures", testPresence},
			{"one hold pending per player and table", testOneHoldPending},
			{"audit finds a tampered balance", testAuditDetects},
			{"a key row posts the key with the transfer", testKeyRow},
			{"fenced presence opens the hold account and locks the balance", testFencedPresenceLocks},
			{"each unique violation maps to its error", testViolationsMap},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				// Subtests share one database, so they run one after another
				// and each uses its own account names.
				tc.run(t, open(db))
			})
		}
	})
}

func mustPost(t *testing.T, s *store.Store, tr ledger.Transfer) store.Balances {
	t.Helper()
	var b store.Balances
	err := s.Update(t.Context(), now, func(tx *store.Tx) error {
		for _, e := range tr.Entries {
			if err := tx.EnsureAccount(t.Context(), e.Account); err != nil {
				return err
			}
		}
		var err error
		b, err = tx.Post(t.Context(), tr, store.Posting{GamingDay: "2026-11-30"})
		return err
	})
	if err != nil {
		t.Fatalf("post %s: %v", tr.ID, err)
	}
	return b
}

func build(t *testing.T, id string, kind ledger.TransferKind, moves ...ledger.Move) ledger.Transfer {
	t.Helper()
	tr, err := ledger.Build(id, kind, "EUR", now, map[string]string{"test": id}, moves...)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func testPost(t *testing.T, s *store.Store) {
	cage, p := ledger.CageAccount("EUR"), ledger.PlayerAccount("post-p", "EUR")
	b := mustPost(t, s, build(t, "post-1", ledger.Deposit, ledger.Move{From: cage, To: p, Amount: 700}))
	if b[p] != 700 {
		t.Fatalf("balances = %v", b)
	}
	tr, err := s.Transfer(t.Context(), "post-1")
	if err != nil || tr.Amount() != 700 || tr.Kind != ledger.Deposit || tr.Meta["test"] != "post-1" || len(tr.Entries) != 2 {
		t.Fatalf("transfer = %+v, %v", tr, err)
	}
	lines, _, err := s.Statement(t.Context(), p, 0, 10)
	if err != nil || len(lines) != 1 || lines[0].Seq != 1 || lines[0].BalanceAfter != 700 {
		t.Fatalf("statement = %+v, %v", lines, err)
	}
}

func testPostRefusals(t *testing.T, s *store.Store) {
	ctx := t.Context()
	cage, p, q := ledger.CageAccount("EUR"), ledger.PlayerAccount("ref-p", "EUR"), ledger.PlayerAccount("ref-q", "EUR")
	mustPost(t, s, build(t, "ref-1", ledger.Deposit, ledger.Move{From: cage, To: p, Amount: 100}))
	usd := ledger.PlayerAccount("ref-p", "USD")
	if err := s.Update(ctx, now, func(tx *store.Tx) error { return tx.EnsureAccount(ctx, usd) }); err != nil {
		t.Fatal(err)
	}
	before, err := s.Audit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		tr   ledger.Transfer
		kind fault.Kind
	}{
		{"overdraw", build(t, "ref-2", ledger.BuyInHold, ledger.Move{From: p, To: q, Amount: 101}), fault.Precondition},
		{"unknown account", build(t, "ref-3", ledger.Deposit, ledger.Move{From: cage, To: ledger.PlayerAccount("ghost", "EUR"), Amount: 1}), fault.NotFound},
		{"overflow", build(t, "ref-4", ledger.Deposit, ledger.Move{From: cage, To: p, Amount: math.MaxInt64}), fault.Invalid},
		{"same id twice", build(t, "ref-1", ledger.Deposit, ledger.Move{From: cage, To: p, Amount: 1}), fault.Conflict},
		{"currency of another account", ledger.Transfer{ID: "ref-5", Kind: ledger.Deposit, Currency: "EUR", CreatedAt: now,
			Entries: []ledger.Entry{{Account: cage, Amount: -5}, {Account: usd, Amount: 5}}}, fault.Invalid},
		{"unbalanced", ledger.Transfer{ID: "ref-6", Kind: ledger.Deposit, Currency: "EUR", CreatedAt: now,
			Entries: []ledger.Entry{{Account: cage, Amount: -5}, {Account: p, Amount: 6}}}, fault.Internal},
	}
	for _, tc := range tests {
		err := s.Update(ctx, now, func(tx *store.Tx) error {
			_, err := tx.Post(ctx, tc.tr, store.Posting{GamingDay: "2026-11-30"})
			return err
		})
		if err == nil || fault.KindOf(err) != tc.kind {
			t.Errorf("%s: err = %v (kind %v), want %v", tc.name, err, fault.KindOf(err), tc.kind)
		}
	}
	after, err := s.Audit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Transfers != before.Transfers || after.Entries != before.Entries || !after.Clean() {
		t.Fatalf("refusals wrote: transfers %d→%d entries %d→%d, problems %v", before.Transfers, after.Transfers, before.Entries, after.Entries, after.Problems())
	}
	if a, _ := s.Account(ctx, p); a.Balance != 100 {
		t.Fatalf("balance = %d, want 100", a.Balance)
	}
}

func testIdempotent(t *testing.T, s *store.Store) {
	ctx := t.Context()
	var runs sync.Map
	call := func(body string) ([]byte, bool, error) {
		return s.Idempotent(ctx, store.Request{Key: "idem-1", Operation: "Op", Body: []byte(body)}, now, func(tx *store.Tx) ([]byte, error) {
			runs.Store(body, true)
			tr := build(t, "idem-tr-"+body, ledger.Deposit, ledger.Move{From: ledger.CageAccount("EUR"), To: ledger.PlayerAccount("idem-p", "EUR"), Amount: 5})
			for _, e := range tr.Entries {
				if err := tx.EnsureAccount(ctx, e.Account); err != nil {
					return nil, err
				}
			}
			if _, err := tx.Post(ctx, tr, store.Posting{GamingDay: "d"}); err != nil {
				return nil, err
			}
			return []byte("response-" + body), nil
		})
	}
	var wg sync.WaitGroup
	results := make([]string, 50)
	for i := range results {
		wg.Go(func() {
			resp, _, err := call("a")
			if err != nil {
				t.Errorf("call %d: %v", i, err)
			}
			results[i] = string(resp)
		})
	}
	wg.Wait()
	for i, r := range results {
		if r != "response-a" {
			t.Fatalf("response %d = %q", i, r)
		}
	}
	resp, replayed, err := call("a")
	if err != nil || !replayed || string(resp) != "response-a" {
		t.Fatalf("replay = %q %v %v", resp, replayed, err)
	}
	_, _, err = call("b")
	if !errors.Is(err, store.ErrKeyReused) || fault.KindOf(err) != fault.Conflict {
		t.Fatalf("reuse = %v", err)
	}
	if a, _ := s.Account(ctx, ledger.PlayerAccount("idem-p", "EUR")); a.Balance != 5 {
		t.Fatalf("balance = %d, want 5 (applied once)", a.Balance)
	}
}

func testIdempotentFailure(t *testing.T, s *store.Store) {
	ctx := t.Context()
	boom := fault.New(fault.Precondition, "BOOM", "boom")
	_, _, err := s.Idempotent(ctx, store.Request{Key: "idem-f", Operation: "Op", Body: []byte("x")}, now, func(tx *store.Tx) ([]byte, error) {
		return nil, boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	resp, replayed, err := s.Idempotent(ctx, store.Request{Key: "idem-f", Operation: "Op", Body: []byte("y")}, now, func(tx *store.Tx) ([]byte, error) {
		return []byte("ok"), nil
	})
	if err != nil || replayed || string(resp) != "ok" {
		t.Fatalf("key after failure = %q %v %v", resp, replayed, err)
	}
	if _, _, err := s.Idempotent(ctx, store.Request{Key: strings.Repeat("k", 301), Operation: "Op"}, now, nil); fault.KindOf(err) != fault.Invalid {
		t.Fatalf("long key = %v", err)
	}
}

func testHoldSettlesOnce(t *testing.T, s *store.Store) {
	ctx := t.Context()
	p, hold := ledger.PlayerAccount("hold-p", "EUR"), ledger.HoldAccount("HT", "EUR")
	mustPost(t, s, build(t, "hold-dep", ledger.Deposit, ledger.Move{From: ledger.CageAccount("EUR"), To: p, Amount: 100}))
	mustPost(t, s, build(t, "hold-tr", ledger.BuyInHold, ledger.Move{From: p, To: hold, Amount: 100}))
	h := store.Hold{ID: "h-1", Player: "hold-p", Table: "HT", Currency: "EUR", Amount: 100, Structure: buyin.NoLimit, HoldTransfer: "hold-tr", ExpiresAt: now.Add(time.Minute), CreatedAt: now}
	if err := s.Update(ctx, now, func(tx *store.Tx) error { return tx.InsertHold(ctx, h) }); err != nil {
		t.Fatal(err)
	}
	expired, err := s.ExpiredHolds(ctx, now.Add(time.Minute), 10)
	if err != nil || len(expired) != 1 || expired[0].ID != "h-1" || expired[0].State != store.Held {
		t.Fatalf("expired = %+v, %v", expired, err)
	}
	settle := func(state store.HoldState) bool {
		var ok bool
		if err := s.Update(ctx, now, func(tx *store.Tx) (err error) {
			ok, err = tx.SettleHold(ctx, "h-1", state, "hold-dep")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !settle(store.Committed) || settle(store.Released) {
		t.Fatal("a hold settled twice")
	}
	if expired, _ := s.ExpiredHolds(ctx, now.Add(time.Hour), 10); len(expired) != 0 {
		t.Fatalf("settled hold still listed: %+v", expired)
	}
	// Leave the books balanced: the held chips go to the table.
	mustPost(t, s, build(t, "hold-commit", ledger.BuyInCommit, ledger.Move{From: hold, To: ledger.TableAccount("HT", "EUR"), Amount: 100}))
}

func testEpochs(t *testing.T, s *store.Store) {
	ctx := t.Context()
	observe := func(epoch int64) error {
		return s.Update(ctx, now, func(tx *store.Tx) error { return tx.ObserveTableEpoch(ctx, "ET", epoch) })
	}
	// An epoch the table service is not known to have issued is neither
	// taken nor recorded, for a new table or a known one.
	var unverified *store.EpochUnverified
	if err := observe(3); !errors.As(err, &unverified) || unverified.Epoch != 3 {
		t.Fatalf("epoch 3 before any was issued: %v, want unverified", err)
	}
	if _, err := s.RecordIssued(ctx, "ET", 8); err != nil {
		t.Fatal(err)
	}
	if err := observe(9); !errors.As(err, &unverified) {
		t.Fatalf("epoch 9 with 8 issued: %v, want unverified", err)
	}
	for _, tc := range []struct {
		epoch  int64
		fenced bool
	}{{3, false}, {3, false}, {2, true}, {7, false}, {6, true}, {7, false}} {
		err := observe(tc.epoch)
		if got := errors.Is(err, sqlstore.ErrFencedOut); got != tc.fenced || (!tc.fenced && err != nil) {
			t.Fatalf("epoch %d: %v, want fenced=%v", tc.epoch, err, tc.fenced)
		}
		if tc.fenced && fault.KindOf(err) != fault.Aborted {
			t.Fatalf("epoch %d: kind %v, want aborted", tc.epoch, fault.KindOf(err))
		}
	}
	if fault.KindOf(observe(0)) != fault.Invalid {
		t.Fatal("epoch 0 accepted")
	}
	// FencedPresence applies the same fence (one statement on PostgreSQL).
	fencedPresence := func(epoch int64) error {
		return s.Update(ctx, now, func(tx *store.Tx) error {
			_, err := tx.FencedPresence(ctx, "ET", epoch, "nobody", "EUR", "2026-11-30", ledger.HoldAccount("ET", "EUR"))
			return err
		})
	}
	for _, tc := range []struct {
		epoch  int64
		fenced bool
	}{{7, false}, {6, true}, {8, false}, {7, true}} {
		err := fencedPresence(tc.epoch)
		if got := errors.Is(err, sqlstore.ErrFencedOut); got != tc.fenced || (!tc.fenced && err != nil) {
			t.Fatalf("fenced presence at epoch %d: %v, want fenced=%v", tc.epoch, err, tc.fenced)
		}
	}
	if err := fencedPresence(1); fault.KindOf(err) != fault.Aborted {
		t.Fatalf("fenced presence kind = %v", fault.KindOf(err))
	}
}

func testPresence(t *testing.T, s *store.Store) {
	ctx := t.Context()
	err := s.Update(ctx, now, func(tx *store.Tx) error {
		if err := tx.OpenSitting(ctx, store.Sitting{ID: "sit-pa", Player: "pres", Table: "PA", Seat: 4, Currency: "EUR", Structure: buyin.PotLimit, Since: now}); err != nil {
			return err
		}
		for i, d := range []buyin.Departure{
			{Table: "PB", Structure: buyin.NoLimit, Stack: 300, At: now},
			{Table: "PC", Structure: buyin.NoLimit, Stack: 400, At: now.Add(time.Minute)},
		} {
			if err := tx.RecordDeparture(ctx, "dep-"+string(rune('a'+i)), "pres", "EUR", "2026-11-30", d); err != nil {
				return err
			}
		}
		return tx.RecordDeparture(ctx, "dep-old", "pres", "EUR", "2026-11-29", buyin.Departure{Table: "PB", Structure: buyin.NoLimit, Stack: 999, At: now.Add(-24 * time.Hour)})
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(ctx, now, func(tx *store.Tx) error {
		p, err := tx.Presence(ctx, "pres", "PA", "EUR", "2026-11-30")
		if err != nil {
			return err
		}
		if !p.Seated || p.Sitting.ID != "sit-pa" || p.Sitting.Seat != 4 || p.Sitting.Structure != buyin.PotLimit || len(p.Departures) != 2 {
			t.Errorf("presence = %+v", p)
		}
		p, err = tx.Presence(ctx, "pres", "PB", "EUR", "2026-11-30")
		if err != nil {
			return err
		}
		if p.Seated || len(p.Departures) != 2 {
			t.Errorf("presence at PB = %+v", p)
		}
		// A second sitting of the player at the table is refused while the
		// first is open (its cash-out has not arrived: CS-09).
		err = tx.OpenSitting(ctx, store.Sitting{ID: "sit-pa-2", Player: "pres", Table: "PA", Seat: 2, Currency: "EUR", Structure: buyin.PotLimit, Since: now})
		if !errors.Is(err, store.ErrCashOutPending) {
			t.Errorf("second sitting while the first is open: %v, want CASH_OUT_PENDING", err)
		}
		// Only the sitting named is closed: another name closes nothing.
		if _, ok, err := tx.CloseSitting(ctx, "PA", "sit-pa-2", "pres"); err != nil || ok {
			t.Errorf("close of a sitting never opened = %v %v", ok, err)
		}
		if s, ok, err := tx.CloseSitting(ctx, "PA", "sit-pa", "pres"); err != nil || !ok || s.Seat != 4 || s.ID != "sit-pa" {
			t.Errorf("close = %+v %v %v", s, ok, err)
		}
		if _, ok, err := tx.CloseSitting(ctx, "PA", "sit-pa", "pres"); err != nil || ok {
			t.Errorf("second close = %v %v", ok, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// testAuditDetects proves the audit can fail: a balance changed behind the
// ledger's back (the schema allows a non-negative value) is reported, and
// putting it back makes the audit clean again.
func testAuditDetects(t *testing.T, s *store.Store) {
	ctx := context.Background()
	p := ledger.PlayerAccount("audit-p", "EUR")
	mustPost(t, s, build(t, "audit-dep", ledger.Deposit, ledger.Move{From: ledger.CageAccount("EUR"), To: p, Amount: 50}))
	r, err := s.Audit(ctx)
	if err != nil || !r.Clean() {
		t.Fatalf("audit before tampering: %v %v", r.Problems(), err)
	}
	if _, err := s.DB().SQL().ExecContext(ctx, `UPDATE accounts SET balance = balance + 7 WHERE id = $1`, string(p)); err != nil {
		t.Fatal(err)
	}
	r, err = s.Audit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Clean() || len(r.Mismatches) != 1 || r.Mismatches[0].Account != p || r.Mismatches[0].Balance != 57 || r.Mismatches[0].EntrySum.Cmp(ledger.WideOf(50)) != 0 {
		t.Fatalf("tampered audit = %+v", r)
	}
	if _, err := s.DB().SQL().ExecContext(ctx, `UPDATE accounts SET balance = balance - 7 WHERE id = $1`, string(p)); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Audit(ctx); err != nil || !r.Clean() {
		t.Fatalf("audit after repair: %v %v", r.Problems(), err)
	}
}

// testOneHoldPending proves holds_one_pending: a second hold held for the
// same player and table is refused by the database itself (what a request
// that raced past the bank's check meets) as HOLD_PENDING, with nothing
// of its transfer written; a settled hold does not count; Presence names
// the pending hold.
func testOneHoldPending(t *testing.T, s *store.Store) {
	ctx := t.Context()
	p := ledger.PlayerAccount("pend-p", "EUR")
	mustPost(t, s, build(t, "pend-dep", ledger.Deposit, ledger.Move{From: ledger.CageAccount("EUR"), To: p, Amount: 300}))
	holdAt := func(id, table string) error {
		hold := ledger.HoldAccount(table, "EUR")
		tr := build(t, "tr-"+id, ledger.BuyInHold, ledger.Move{From: p, To: hold, Amount: 100})
		h := store.Hold{ID: id, Player: "pend-p", Table: table, Currency: "EUR", Amount: 100, Structure: buyin.NoLimit,
			HoldTransfer: tr.ID, ExpiresAt: now.Add(time.Minute), CreatedAt: now}
		return s.Update(ctx, now, func(tx *store.Tx) error {
			if err := tx.EnsureAccount(ctx, hold); err != nil {
				return err
			}
			_, err := tx.Post(ctx, tr, store.Posting{GamingDay: "2026-11-30"}, store.HoldRow(h))
			return err
		})
	}
	pending := func(table string) *store.PendingHold {
		var got *store.PendingHold
		if err := s.Read(ctx, now, func(tx *store.Tx) error {
			pr, err := tx.Presence(ctx, "pend-p", table, "EUR", "2026-11-30")
			got = pr.Pending
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if err := holdAt("pend-1", "PT1"); err != nil {
		t.Fatal(err)
	}
	if got := pending("PT1"); got == nil || got.ID != "pend-1" || !got.ExpiresAt.Equal(now.Add(time.Minute)) {
		t.Fatalf("pending at PT1 = %+v", got)
	}
	if got := pending("PT2"); got != nil {
		t.Fatalf("pending at PT2 = %+v", got)
	}
	before, err := s.Audit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = holdAt("pend-2", "PT1")
	if !errors.Is(err, store.ErrHoldPending) || fault.KindOf(err) != fault.Precondition {
		t.Fatalf("second hold at PT1: %v, want HOLD_PENDING", err)
	}
	if after, err := s.Audit(ctx); err != nil || after.Transfers != before.Transfers || after.Entries != before.Entries {
		t.Fatalf("refused hold wrote: transfers %d→%d entries %d→%d, %v", before.Transfers, after.Transfers, before.Entries, after.Entries, err)
	}
	if h, ok, err := s.PendingHold(ctx, "pend-p", "PT1"); err != nil || !ok || h.ID != "pend-1" {
		t.Fatalf("pending hold = %+v %v %v", h, ok, err)
	}
	if err := holdAt("pend-3", "PT2"); err != nil {
		t.Fatalf("a hold at another table: %v", err)
	}
	// Once settled, the first hold no longer counts.
	if err := s.Update(ctx, now, func(tx *store.Tx) error {
		if ok, err := tx.SettleHold(ctx, "pend-1", store.Released, "pend-rel"); err != nil || !ok {
			return fmt.Errorf("settle: %v %w", ok, err)
		}
		_, err := tx.Post(ctx, build(t, "pend-rel", ledger.BuyInRelease, ledger.Move{From: ledger.HoldAccount("PT1", "EUR"), To: p, Amount: 100}), store.Posting{GamingDay: "2026-11-30"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := pending("PT1"); got != nil {
		t.Fatalf("pending after release = %+v", got)
	}
	if _, ok, err := s.PendingHold(ctx, "pend-p", "PT1"); err != nil || ok {
		t.Fatalf("pending hold after release: %v %v", ok, err)
	}
	if err := holdAt("pend-4", "PT1"); err != nil {
		t.Fatalf("a hold after the first was released: %v", err)
	}
}

// TestPruneIdempotencyKeysDeletesOnlyKeysOlderThanTheCutoffInBatches
// proves the store's prune step: a batch deletes at most its size, oldest
// first, never a key recorded at or after the cutoff, and never a
// transfer or entry.
func TestPruneIdempotencyKeysDeletesOnlyKeysOlderThanTheCutoffInBatches(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: store.ServiceName, Migrations: store.Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := store.New(db)
		deposit := func(key string, at time.Time) {
			t.Helper()
			_, _, err := s.Idempotent(ctx, store.Request{Key: key, Operation: "Deposit", Body: []byte(key)}, at, func(tx *store.Tx) ([]byte, error) {
				tr, err := ledger.Build("tr-"+key, ledger.Deposit, "EUR", at, nil, ledger.Move{From: ledger.CageAccount("EUR"), To: ledger.PlayerAccount("prune-p", "EUR"), Amount: 1})
				if err != nil {
					return nil, err
				}
				for _, e := range tr.Entries {
					if err := tx.EnsureAccount(ctx, e.Account); err != nil {
						return nil, err
					}
				}
				_, err = tx.Post(ctx, tr, store.Posting{GamingDay: "2026-11-30"})
				return []byte("ok"), err
			})
			if err != nil {
				t.Fatalf("deposit %s: %v", key, err)
			}
		}
		cutoff := now.Add(time.Hour)
		for i := range 5 {
			deposit(fmt.Sprintf("old-%d", i), now.Add(time.Duration(i)*time.Minute))
		}
		deposit("at-cutoff", cutoff)
		deposit("new", cutoff.Add(time.Minute))
		keys := func() []string {
			rows, err := db.SQL().QueryContext(ctx, `SELECT key FROM idempotency_keys ORDER BY key`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var out []string
			for rows.Next() {
				var k string
				if err := rows.Scan(&k); err != nil {
					t.Fatal(err)
				}
				out = append(out, k)
			}
			return out
		}
		before, err := s.Audit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []struct {
			n    int
			keys string
		}{
			{2, "at-cutoff new old-2 old-3 old-4"}, // the two oldest first
			{2, "at-cutoff new old-4"},
			{1, "at-cutoff new"},
			{0, "at-cutoff new"},
		} {
			n, err := s.PruneIdempotencyKeys(ctx, cutoff, 2)
			if err != nil || n != want.n || strings.Join(keys(), " ") != want.keys {
				t.Fatalf("prune = %d, %v; keys %v; want %d, %s", n, err, keys(), want.n, want.keys)
			}
		}
		after, err := s.Audit(ctx)
		if err != nil || !after.Clean() || after.Transfers != before.Transfers || after.Entries != before.Entries || after.Transfers != 7 {
			t.Fatalf("audit after pruning = %+v, %v (before %d transfers, %d entries)", after, err, before.Transfers, before.Entries)
		}
		if _, err := s.PruneIdempotencyKeys(ctx, cutoff, 0); err == nil {
			t.Fatal("a batch of 0 was accepted")
		}
	})
}

// testKeyRow: on PostgreSQL a transfer posted with KeyRow records the
// idempotency key and its response in the transfer's statement; a later
// request under the key runs, fails on the key inside Post, rolls back and
// is answered from the stored key like any duplicate. SQLite hands out no
// key row (Idempotent inserts the key itself).
func testKeyRow(t *testing.T, s *store.Store) {
	ctx := t.Context()
	p := ledger.PlayerAccount("keyrow-p", "EUR")
	runs := 0
	call := func(body string) ([]byte, bool, error) {
		return s.Idempotent(ctx, store.Request{Key: "keyrow-1", Operation: "Op", Body: []byte(body)}, now, func(tx *store.Tx) ([]byte, error) {
			runs++
			tr := build(t, fmt.Sprintf("keyrow-tr-%d", runs), ledger.Deposit, ledger.Move{From: ledger.CageAccount("EUR"), To: p, Amount: 5})
			for _, e := range tr.Entries {
				if err := tx.EnsureAccount(ctx, e.Account); err != nil {
					return nil, err
				}
			}
			resp := []byte("response-" + body)
			row, ok := tx.KeyRow(resp)
			if ok != (s.DB().Dialect() == sqlstore.Postgres) {
				t.Errorf("KeyRow ok = %v on %s", ok, s.DB().Dialect())
			}
			if _, again := tx.KeyRow(resp); ok && again {
				t.Error("a second KeyRow in one transaction")
			}
			var with []store.Row
			if ok {
				with = append(with, row)
			}
			if _, err := tx.Post(ctx, tr, store.Posting{GamingDay: "d"}, with...); err != nil {
				return nil, err
			}
			if got, recorded := tx.RecordedResponse(); recorded != ok || (ok && string(got) != string(resp)) {
				t.Errorf("RecordedResponse = %q %v", got, recorded)
			}
			return []byte("ignored when recorded"), nil
		})
	}
	want := "response-a"
	if s.DB().Dialect() != sqlstore.Postgres {
		want = "ignored when recorded"
	}
	for i, replay := range []bool{false, true, true} {
		resp, replayed, err := call("a")
		if err != nil || replayed != replay || string(resp) != want {
			t.Fatalf("call %d = %q %v %v, want %q replayed=%v", i, resp, replayed, err, want, replay)
		}
	}
	if _, _, err := call("b"); !errors.Is(err, store.ErrKeyReused) {
		t.Fatalf("reuse = %v", err)
	}
	if a, _ := s.Account(ctx, p); a.Balance != 5 {
		t.Fatalf("balance = %d, want 5 (applied once)", a.Balance)
	}
}

// testFencedPresenceLocks: FencedPresence opens the table's hold and
// escrow accounts;
// on PostgreSQL it also reports the player's balance and holds the
// player's and the hold account's rows locked until the transaction ends.
func testFencedPresenceLocks(t *testing.T, s *store.Store) {
	ctx := t.Context()
	p, hold := ledger.PlayerAccount("lock-p", "EUR"), ledger.HoldAccount("LT", "EUR")
	mustPost(t, s, build(t, "lock-dep", ledger.Deposit, ledger.Move{From: ledger.CageAccount("EUR"), To: p, Amount: 1234}))
	if _, err := s.RecordIssued(ctx, "LT", 1); err != nil {
		t.Fatal(err)
	}
	pg := s.DB().Dialect() == sqlstore.Postgres
	err := s.Update(ctx, now, func(tx *store.Tx) error {
		pres, err := tx.FencedPresence(ctx, "LT", 1, "lock-p", "EUR", "2026-11-30", hold)
		if err != nil {
			return err
		}
		if pres.BalanceLocked != pg || (pg && pres.Balance != 1234) {
			t.Errorf("presence balance = %d locked=%v on %s", pres.Balance, pres.BalanceLocked, s.DB().Dialect())
		}
		if !pg {
			return nil
		}
		for _, id := range []ledger.AccountID{p} {
			_, err := s.DB().SQL().ExecContext(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE NOWAIT`, string(id))
			if !strings.Contains(fmt.Sprint(err), "55P03") {
				t.Errorf("%s not locked during the transaction: %v", id, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []ledger.AccountID{hold, ledger.TableAccount("LT", "EUR")} {
		if _, err := s.Account(ctx, id); err != nil {
			t.Fatalf("%s not opened by the table's first presence read: %v", id, err)
		}
	}
	// With a hold held for the player at the table (expired or not) nothing
	// is locked: the buy-in may release it first, in the sweeper's lock
	// order.
	mustPost(t, s, build(t, "lock-hold-tr", ledger.BuyInHold, ledger.Move{From: p, To: hold, Amount: 34}))
	err = s.Update(ctx, now, func(tx *store.Tx) error {
		if err := tx.InsertHold(ctx, store.Hold{ID: "lock-hold", Player: "lock-p", Table: "LT", Currency: "EUR", Amount: 34,
			Structure: buyin.NoLimit, HoldTransfer: "lock-hold-tr", ExpiresAt: now, CreatedAt: now}); err != nil {
			return err
		}
		pres, err := tx.FencedPresence(ctx, "LT", 1, "lock-p", "EUR", "2026-11-30", hold)
		if err != nil {
			return err
		}
		if pres.BalanceLocked || pres.Pending == nil || pres.Pending.ID != "lock-hold" {
			t.Errorf("presence with a held hold = %+v", pres)
		}
		if pg {
			if _, err := s.DB().SQL().ExecContext(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE NOWAIT`, string(p)); err != nil {
				t.Errorf("player's row locked while a hold is held: %v", err)
			}
		}
		// Roll back: the hold is only for this check.
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatal(err)
	}
	if pg {
		// Known open now: the next presence locks both rows.
		err := s.Update(ctx, now, func(tx *store.Tx) error {
			if _, err := tx.FencedPresence(ctx, "LT", 1, "lock-p", "EUR", "2026-11-30", hold); err != nil {
				return err
			}
			for _, id := range []ledger.AccountID{p, hold} {
				_, err := s.DB().SQL().ExecContext(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE NOWAIT`, string(id))
				if !strings.Contains(fmt.Sprint(err), "55P03") {
					t.Errorf("%s not locked during the transaction: %v", id, err)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// errRollback ends a transaction a test wants undone.
var errRollback = errors.New("roll back")

// testViolationsMap: Post tells the unique violations apart by constraint
// (PostgreSQL names it; on SQLite it is the row's table and the extended
// result code, SQLITE_CONSTRAINT_UNIQUE or _PRIMARYKEY), so each maps to
// its own error, and another violation in the same table does not pass
// for it.
func testViolationsMap(t *testing.T, s *store.Store) {
	ctx := t.Context()
	cage, p := ledger.CageAccount("EUR"), ledger.PlayerAccount("viol-p", "EUR")
	post := func(tr ledger.Transfer, with ...store.Row) error {
		return s.Update(ctx, now, func(tx *store.Tx) error {
			for _, e := range tr.Entries {
				if err := tx.EnsureAccount(ctx, e.Account); err != nil {
					return err
				}
			}
			_, err := tx.Post(ctx, tr, store.Posting{GamingDay: "2026-11-30"}, with...)
			return err
		})
	}
	hold := func(trID, id, table string) (ledger.Transfer, store.Row) {
		tr := build(t, trID, ledger.BuyInHold, ledger.Move{From: p, To: ledger.HoldAccount(table, "EUR"), Amount: 10})
		return tr, store.HoldRow(store.Hold{ID: id, Player: "viol-p", Table: table, Currency: "EUR", Amount: 10, Structure: buyin.NoLimit,
			HoldTransfer: tr.ID, ExpiresAt: now.Add(time.Minute), CreatedAt: now})
	}
	deposit := func(id string) ledger.Transfer {
		return build(t, id, ledger.Deposit, ledger.Move{From: cage, To: p, Amount: 100})
	}
	keyRow := store.Row{Table: "idempotency_keys", Columns: []string{"key", "operation", "request_hash", "response", "created_at"},
		Values: []any{"viol-key", "Op", "hash", []byte("response"), now.UnixMilli()}}
	mustPost(t, s, deposit("viol-dep"))
	mustPost(t, s, deposit("viol-reversed"))
	mustPost(t, s, ledger.Reverse(deposit("viol-reversed"), "viol-rev-1", now, nil))
	for _, setup := range []error{post(hold("viol-tr-1", "viol-h1", "VT1")), post(deposit("viol-k1"), keyRow)} {
		if setup != nil {
			t.Fatal(setup)
		}
	}
	for _, tc := range []struct {
		name   string
		err    error
		is     error  // the error it maps to, or
		reason string // the fault it maps to
	}{
		{"a second pending hold at a table (holds_one_pending)", post(hold("viol-tr-2", "viol-h2", "VT1")), store.ErrHoldPending, ""},
		{"a taken idempotency key (idempotency_keys_pkey)", post(deposit("viol-k2"), keyRow), store.ErrKeyTaken, ""},
		{"a hold's id again, at another table (holds_pkey)", post(hold("viol-tr-3", "viol-h1", "VT2")), nil, "TRANSFER_EXISTS"},
		{"a transfer's id again (transfers_pkey)", post(deposit("viol-dep")), nil, "TRANSFER_EXISTS"},
		{"a second reversal (transfers_reverses_key)", post(ledger.Reverse(deposit("viol-reversed"), "viol-rev-2", now, nil)), nil, "ALREADY_REVERSED"},
	} {
		f, isFault := fault.As(tc.err)
		switch {
		case tc.is != nil && !errors.Is(tc.err, tc.is):
			t.Errorf("%s: %v, want %v", tc.name, tc.err, tc.is)
		case tc.is == nil && (!isFault || f.Reason != tc.reason):
			t.Errorf("%s: %v, want %s", tc.name, tc.err, tc.reason)
		case tc.is == nil && (errors.Is(tc.err, store.ErrHoldPending) || errors.Is(tc.err, store.ErrKeyTaken)):
			t.Errorf("%s: %v, taken for another violation", tc.name, tc.err)
		}
	}
}
