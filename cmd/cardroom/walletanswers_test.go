package main

// Tests of the table's reading of the wallet's answers, with the real
// wallet (its bank on SQLite and PostgreSQL) behind real gRPC: a buy-in
// whose commit went through must never be undone, whatever the wallet
// says when the commit is asked again.

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/rpc"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"github.com/cardroom/cardroom/services/table"
	"github.com/cardroom/cardroom/services/wallet"
	"github.com/cardroom/cardroom/services/wallet/bank"
	"github.com/cardroom/cardroom/services/wallet/ledger"
	walletstore "github.com/cardroom/cardroom/services/wallet/store"
)

// lossyWallet is the wallet's client with commits whose answer can be
// lost: the wallet commits, the table hears Unavailable (the wallet cut
// off or killed after committing). It can also cut commits off before
// they reach the wallet (cutCommit), lose the answer of a hold
// (loseHold), and lose the answer of a sit-down (loseSitDown) or cut it
// off (cutSitDown).
type lossyWallet struct {
	walletv1.WalletServiceClient
	loseCommit, cutCommit, loseHold, loseSitDown, cutSitDown atomic.Bool
}

func (w *lossyWallet) SitDown(ctx context.Context, in *walletv1.SitDownRequest, opts ...grpc.CallOption) (*walletv1.SitDownResponse, error) {
	if w.cutSitDown.Load() {
		return nil, status.Error(codes.Unavailable, "the wallet is cut off")
	}
	resp, err := w.WalletServiceClient.SitDown(ctx, in, opts...)
	if err == nil && w.loseSitDown.Load() {
		return nil, status.Error(codes.Unavailable, "the sit-down's answer was lost")
	}
	return resp, err
}

func (w *lossyWallet) HoldBuyIn(ctx context.Context, in *walletv1.HoldBuyInRequest, opts ...grpc.CallOption) (*walletv1.HoldBuyInResponse, error) {
	resp, err := w.WalletServiceClient.HoldBuyIn(ctx, in, opts...)
	if err == nil && w.loseHold.Load() {
		return nil, status.Error(codes.Unavailable, "the hold's answer was lost")
	}
	return resp, err
}

func (w *lossyWallet) CommitHold(ctx context.Context, in *walletv1.CommitHoldRequest, opts ...grpc.CallOption) (*walletv1.CommitHoldResponse, error) {
	if w.cutCommit.Load() {
		return nil, status.Error(codes.Unavailable, "the wallet is cut off")
	}
	resp, err := w.WalletServiceClient.CommitHold(ctx, in, opts...)
	if err == nil && w.loseCommit.Load() {
		return nil, status.Error(codes.Unavailable, "the commit's answer was lost")
	}
	return resp, err
}

// moneyRig is a table service and the real wallet, each on its own
// database of one dialect, the table reaching the wallet over gRPC with
// the service token production gives it.
type moneyRig struct {
	t           *testing.T
	tableDB     *sqlstore.DB
	wallet      *wallet.Service
	walletDB    *sqlstore.DB
	walletClock *clock.Fake
	client      *lossyWallet
	locker      lock.Locker
	tables      *table.Service
	g           *testkit.GRPC
}

// eachMoneyStore runs test in parallel subtests on a money rig over SQLite
// and over PostgreSQL, named name/sqlite and name/postgres (sqlite and
// postgres when name is empty).
func eachMoneyStore(t *testing.T, name string, test func(t *testing.T, r *moneyRig)) {
	t.Helper()
	for _, postgres := range []bool{false, true} {
		sub := "sqlite"
		if postgres {
			sub = "postgres"
		}
		if name != "" {
			sub = name + "/" + sub
		}
		t.Run(sub, func(t *testing.T) {
			t.Parallel()
			test(t, newMoneyRig(t, postgres))
		})
	}
}

func newMoneyRig(t *testing.T, postgres bool) *moneyRig {
	t.Helper()
	open := testkit.SQLite
	if postgres {
		open = testkit.Postgres
	}
	r := &moneyRig{t: t, tableDB: open(t, table.DBOptions()), walletDB: open(t, wallet.StoreOptions("", "")),
		walletClock: clock.NewFake(time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC)), locker: lock.NewLocal()}
	w, err := wallet.New(wallet.Config{IdempotencyRetention: wallet.MinIdempotencyRetention}, wallet.Deps{DB: r.walletDB, Clock: r.walletClock})
	if err != nil {
		t.Fatal(err)
	}
	r.wallet = w
	issuer, verifier := testkit.Keys(t)
	srv := rpc.NewServer(rpc.Options{Verifier: verifier})
	w.Register(srv)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	conn, err := rpc.Dial(lis.Addr().String(), rpc.Options{ServiceToken: issuer.ServiceTokens("cardroom-table", time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = conn.Close()
		rpc.Shutdown(srv, time.Second)
	})
	r.client = &lossyWallet{WalletServiceClient: walletv1.NewWalletServiceClient(conn)}
	r.startTables()
	return r
}

// startTables starts a table service on the rig's database: the first, or
// the next owner of the tables after restartTables.
func (r *moneyRig) startTables() {
	r.t.Helper()
	svc, err := table.New(table.Config{SealKey: sealKeyForTests}, table.Deps{DB: r.tableDB, Clock: clock.NewFake(time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC)),
		Locker: r.locker, Relay: events.NewRelay(r.tableDB, events.NewMemory(events.MemoryOptions{}), events.RelayOptions{}), Wallet: r.client})
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { _ = svc.Close() })
	r.tables, r.g = svc, testkit.StartGRPC(r.t, svc.Register)
}

// restartTables closes the table service and starts its successor, which
// claims the tables and finishes their pending wallet steps.
func (r *moneyRig) restartTables() {
	_ = r.tables.Close()
	r.startTables()
}

var sealKeyForTests = []byte("0123456789abcdef0123456789abcdef")

func (r *moneyRig) floor() context.Context { return r.g.As(r.t, "floor-1", auth.Floor) }

func (r *moneyRig) tableClient() tablev1.TableServiceClient {
	return tablev1.NewTableServiceClient(r.g.Conn)
}

func (r *moneyRig) deposit(player string, amount int64) {
	r.t.Helper()
	ctx := r.t.Context()
	if _, err := r.wallet.Bank().OpenAccount(ctx, "open/"+player, player, "EUR"); err != nil {
		r.t.Fatal(err)
	}
	if _, err := r.wallet.Bank().Deposit(ctx, bank.CashierRequest{Key: "deposit/" + player, Player: player, Currency: "EUR", Amount: amount, Cashier: "cage-1"}); err != nil {
		r.t.Fatal(err)
	}
}

func (r *moneyRig) openTable() string {
	r.t.Helper()
	resp, err := r.tableClient().CreateTable(r.floor(), &tablev1.CreateTableRequest{
		Name: "NL 1/2", Seats: 6, Kind: tablev1.TableKind_TABLE_KIND_CASH, Mode: tablev1.TableMode_TABLE_MODE_DIGITAL,
		Game: &gamev1.Game{Variant: gamev1.Variant_VARIANT_HOLDEM, Structure: gamev1.Structure_STRUCTURE_NO_LIMIT, Stakes: &gamev1.Stakes{SmallBlind: 1, BigBlind: 2}},
	})
	if err != nil {
		r.t.Fatal(err)
	}
	return resp.GetTable().GetTableId()
}

// balance is an account's balance in the wallet's books; an account never
// opened (a table's escrow before its first buy-in) holds nothing.
func (r *moneyRig) balance(id ledger.AccountID) int64 {
	r.t.Helper()
	a, err := r.wallet.Bank().Store().Account(r.t.Context(), id)
	if errors.Is(err, walletstore.ErrAccountNotFound) {
		return 0
	}
	if err != nil {
		r.t.Fatalf("balance of %s: %v", id, err)
	}
	return a.Balance
}

// books checks that the player's money is all accounted for: what the
// wallet holds for them plus the chips the table shows them with equals
// what they deposited, and the table's escrow equals the chips the table
// shows, with no hold left and no wallet step pending.
func (r *moneyRig) books(when, id, player string, deposited int64) {
	r.t.Helper()
	ctx := r.t.Context()
	st, err := r.tableClient().GetTableState(r.floor(), &tablev1.GetTableStateRequest{TableId: id})
	if err != nil {
		r.t.Fatalf("%s: table state: %v", when, err)
	}
	var stack int64
	for _, s := range st.GetState().GetSeats() {
		if s.GetPlayerId() == player {
			stack += s.GetStack() + s.GetPendingChips()
		}
	}
	counts, err := table.CountCash(ctx, r.tableDB)
	if err != nil {
		r.t.Fatal(err)
	}
	var chips int64
	pending := 0
	for _, c := range counts {
		if c.Table == id {
			chips, pending = c.Chips, len(c.Pending)
		}
	}
	wallet := r.balance(ledger.PlayerAccount(player, "EUR"))
	escrow := r.balance(ledger.TableAccount(id, "EUR"))
	held := r.balance(ledger.HoldAccount(id, "EUR"))
	if wallet+stack != deposited || escrow != chips || held != 0 || pending != 0 {
		r.t.Fatalf("%s: %s has %d in the wallet and %d on the table (deposited %d); escrow %d, table chips %d, held %d, pending steps %d",
			when, player, wallet, stack, deposited, escrow, chips, held, pending)
	}
}

// TestSitDownGoneThrough_NeverUndone_CS01: the wallet buys ann's seat but
// the table never hears it, so the sit-down stays a pending step with
// her seat unpaid; when the table's next owner asks again, the wallet no
// longer answers with the request's own response, and the table must
// still count the buy-in as paid: the wallet buys a sitting once, and
// says so however it is asked. A wallet that cannot be reached leaves the
// seat waiting, and the next owner buys it. And a buy-in the wallet
// refuses (CS-01) leaves no seat and moves nothing.
func TestSitDownGoneThrough_NeverUndone_CS01(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// lose makes the first sit-down go unanswered; forget makes the
		// wallet's record of its key unusable before the next owner asks
		// again.
		lose, forget func(t *testing.T, r *moneyRig)
		escrow       int64 // in the table's escrow after the unanswered sit-down
	}{
		// The retry comes after the wallet pruned the key (its retention
		// window passed while the step was pending): the sit-down runs
		// again and finds the sitting bought.
		{"key pruned", func(t *testing.T, r *moneyRig) { r.client.loseSitDown.Store(true) }, func(t *testing.T, r *moneyRig) {
			r.walletClock.Advance(2 * wallet.MinIdempotencyRetention)
			if n, err := r.wallet.Bank().PruneIdempotencyKeys(t.Context()); err != nil || n == 0 {
				t.Fatalf("prune: %d keys, %v", n, err)
			}
		}, 200},
		// The key is recorded with another request hash (as an older
		// wallet would have): IDEMPOTENCY_KEY_REUSED would be a refusal,
		// which the table reads as "nothing moved"; the wallet answers
		// from the sitting's transfer instead.
		{"key recorded otherwise", func(t *testing.T, r *moneyRig) { r.client.loseSitDown.Store(true) }, func(t *testing.T, r *moneyRig) {
			res, err := r.walletDB.SQL().ExecContext(t.Context(),
				`UPDATE idempotency_keys SET request_hash = 'recorded-by-an-older-wallet' WHERE operation = 'SitDown'`)
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := res.RowsAffected(); n != 1 {
				t.Fatalf("%d sit-down keys, want 1", n)
			}
		}, 200},
		// The wallet was never reached: the next owner buys the seat.
		{"wallet cut off", func(t *testing.T, r *moneyRig) { r.client.cutSitDown.Store(true) }, func(*testing.T, *moneyRig) {}, 0},
	}
	for _, tc := range cases {
		eachMoneyStore(t, tc.name, func(t *testing.T, r *moneyRig) {
			r.deposit("ann", 1000)
			id := r.openTable()
			tc.lose(t, r)
			_, err := r.tableClient().Sit(r.floor(), &tablev1.SitRequest{TableId: id, Seat: 0, PlayerId: "ann", Amount: 200, PostNow: true,
				IdempotencyKey: "ann-sits"})
			if status.Code(err) != codes.Unavailable {
				t.Fatalf("sit with the sit-down unanswered: %v, want Unavailable", err)
			}
			r.client.loseSitDown.Store(false)
			r.client.cutSitDown.Store(false)
			if got := r.balance(ledger.PlayerAccount("ann", "EUR")); got != 1000-tc.escrow {
				t.Fatalf("ann's balance after the unanswered sit-down: %d, want %d", got, 1000-tc.escrow)
			}
			if s := r.state(id).GetSeats()[0]; s.GetPlayerId() != "ann" {
				t.Fatalf("ann's seat while her sit-down is unanswered: %v, want hers, unpaid", s)
			}
			tc.forget(t, r)
			r.restartTables() // the next owner finishes the pending sit-down

			if s := r.state(id).GetSeats()[0]; s.GetPlayerId() != "ann" || s.GetStack() != 200 {
				t.Fatalf("ann's seat after the next owner's retry: %v", s)
			}
			r.books("after the retry", id, "ann", 1000)
		})
	}
	eachMoneyStore(t, "refused", func(t *testing.T, r *moneyRig) {
		r.deposit("bea", 100)
		id := r.openTable()
		_, err := r.tableClient().Sit(r.floor(), &tablev1.SitRequest{TableId: id, Seat: 1, PlayerId: "bea", Amount: 200, IdempotencyKey: "bea-sits"})
		if status.Code(err) != codes.FailedPrecondition || reasonOf(err) != "INSUFFICIENT_FUNDS" {
			t.Fatalf("sit-down beyond bea's balance: %v, want FailedPrecondition INSUFFICIENT_FUNDS (CS-01)", err)
		}
		if s := r.state(id).GetSeats()[1]; s.GetPlayerId() != "" {
			t.Fatalf("seat 1 after the refused sit-down: %v, want empty", s)
		}
		r.books("after the refusal", id, "bea", 100)
	})
}

// TestSitDownAnswerLost_SeatGoneGivenBack: the wallet buys ann's seat but
// the table never hears it, and ann leaves before the table asks again.
// The next owner asks, learns the sitting was bought and cashes it out:
// her buy-in comes back to her account, the escrow is empty, and nothing
// is pending. Had it not been bought, asking would buy it and give it
// back at once, so the player's money is never stranded either way.
func TestSitDownAnswerLost_SeatGoneGivenBack(t *testing.T) {
	t.Parallel()
	eachMoneyStore(t, "", func(t *testing.T, r *moneyRig) {
		r.deposit("ann", 1000)
		id := r.openTable()
		r.client.loseSitDown.Store(true)
		_, err := r.tableClient().Sit(r.floor(), &tablev1.SitRequest{TableId: id, Seat: 2, PlayerId: "ann", Amount: 200, IdempotencyKey: "ann-sits"})
		if status.Code(err) != codes.Unavailable {
			t.Fatalf("sit with the sit-down's answer lost: %v, want Unavailable", err)
		}
		r.client.loseSitDown.Store(false)
		if _, err := r.tableClient().Leave(r.floor(), &tablev1.LeaveRequest{TableId: id, Seat: 2}); err != nil {
			t.Fatalf("ann leaves her unpaid seat: %v", err)
		}
		r.restartTables() // the next owner finishes the pending sit-down
		if s := r.state(id).GetSeats()[2]; s.GetPlayerId() != "" {
			t.Fatalf("seat 2 after ann left: %v", s)
		}
		if got := r.balance(ledger.PlayerAccount("ann", "EUR")); got != 1000 {
			t.Fatalf("ann's balance after the give-back: %d, want 1000", got)
		}
		r.books("after the give-back", id, "ann", 1000)
	})
}
