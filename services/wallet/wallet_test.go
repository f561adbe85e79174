package wallet_test

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/config"
	"github.com/cardroom/cardroom/platform/gamingday"
	"github.com/cardroom/cardroom/platform/rpc"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"github.com/cardroom/cardroom/services/wallet"
	"github.com/cardroom/cardroom/services/wallet/bank"
	"github.com/cardroom/cardroom/services/wallet/reconcile"
)

var key = []byte("wallet-test-signing-key-0123456789abcdef")

type client struct {
	walletv1.WalletServiceClient
	t      *testing.T
	issuer *auth.Issuer
}

func (c client) as(subject string, roles ...auth.Role) context.Context {
	tok, err := c.issuer.Mint(subject, roles, time.Hour)
	if err != nil {
		c.t.Fatal(err)
	}
	return metadata.AppendToOutgoingContext(c.t.Context(), "authorization", "Bearer "+tok)
}

// serve runs the wallet behind platform/rpc's server on loopback.
func serve(t *testing.T, db *sqlstore.DB) client {
	t.Helper()
	return serveWith(t, db, nil)
}

// serveWith is serve with the table service's TableService (nil: none).
func serveWith(t *testing.T, db *sqlstore.DB, tableService tablev1.TableServiceClient) client {
	t.Helper()
	clk := clock.NewFake(time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC))
	w, err := wallet.New(wallet.Config{}, wallet.Deps{DB: db, Clock: clk, Tables: quietTables{}, TableService: tableService})
	if err != nil {
		t.Fatal(err)
	}
	verifier, err := auth.NewVerifier(key, clk)
	if err != nil {
		t.Fatal(err)
	}
	issuer, err := auth.NewIssuer(key, clk)
	if err != nil {
		t.Fatal(err)
	}
	srv := rpc.NewServer(rpc.Options{Verifier: verifier})
	w.Register(srv)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(func() { rpc.Shutdown(srv, time.Second) })
	conn, err := rpc.Dial(lis.Addr().String(), rpc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return client{WalletServiceClient: walletv1.NewWalletServiceClient(conn), t: t, issuer: issuer}
}

func errorInfo(t *testing.T, err error) *errdetails.ErrorInfo {
	t.Helper()
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info
		}
	}
	t.Fatalf("no ErrorInfo in %v", err)
	return nil
}

func wantCode(t *testing.T, err error, want codes.Code) {
	t.Helper()
	if status.Code(err) != want {
		t.Fatalf("err = %v, want %v", err, want)
	}
}

// wantReason fails unless err's ErrorInfo reason is want.
func wantReason(t *testing.T, err error, want string) {
	t.Helper()
	if got := errorInfo(t, err).GetReason(); got != want {
		t.Fatalf("reason = %q, want %q (err %v)", got, want, err)
	}
}

var nl = &gamev1.Game{Variant: gamev1.Variant_VARIANT_HOLDEM, Structure: gamev1.Structure_STRUCTURE_NO_LIMIT, Stakes: &gamev1.Stakes{SmallBlind: 200, BigBlind: 500}}

func TestWalletOverGRPC(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, wallet.StoreOptions("", ""), func(t *testing.T, db *sqlstore.DB) {
		c := serve(t, db)
		cashier := c.as("cashier-1", auth.Cashier)
		table := c.as("table-service", auth.Service)
		alice := c.as("alice", auth.Player)

		for _, p := range []string{"alice", "bob"} {
			if _, err := c.OpenAccount(cashier, &walletv1.OpenAccountRequest{OwnerId: p, Currency: "EUR", Kind: walletv1.AccountKind_ACCOUNT_KIND_PLAYER}); err != nil {
				t.Fatal(err)
			}
		}
		_, err := c.OpenAccount(cashier, &walletv1.OpenAccountRequest{OwnerId: "house", Currency: "EUR", Kind: walletv1.AccountKind_ACCOUNT_KIND_HOUSE})
		wantCode(t, err, codes.InvalidArgument)
		// A retry without a key returns the account opened first.
		if _, err := c.OpenAccount(cashier, &walletv1.OpenAccountRequest{OwnerId: "alice", Currency: "EUR", Kind: walletv1.AccountKind_ACCOUNT_KIND_PLAYER}); err != nil {
			t.Fatalf("open retry: %v", err)
		}
		dep, err := c.Deposit(cashier, &walletv1.DepositRequest{IdempotencyKey: "k1", PlayerId: "alice", Currency: "EUR", Amount: 100000})
		if err != nil || dep.GetTransfer().GetBalance() != 100000 || dep.GetTransfer().GetKind() != walletv1.TransferKind_TRANSFER_KIND_DEPOSIT {
			t.Fatalf("deposit = %v, %v", dep, err)
		}

		// Authorization: roles per RPC, and a player sees only their own accounts.
		_, err = c.Deposit(alice, &walletv1.DepositRequest{IdempotencyKey: "k2", PlayerId: "alice", Currency: "EUR", Amount: 100})
		wantCode(t, err, codes.PermissionDenied)
		wantReason(t, err, "PERMISSION_DENIED") // the role check, not a player acting for another
		bal, err := c.GetBalance(alice, &walletv1.GetBalanceRequest{AccountId: "player:alice:EUR"})
		if err != nil || bal.GetBalance() != 100000 {
			t.Fatalf("own balance = %v, %v", bal, err)
		}
		for _, other := range []string{"player:bob:EUR", "cage:EUR", "player:nobody:EUR", "acc_01"} {
			_, err = c.GetBalance(alice, &walletv1.GetBalanceRequest{AccountId: other})
			wantCode(t, err, codes.PermissionDenied)
			wantReason(t, err, "NOT_YOURSELF")
			_, err = c.GetStatement(alice, &walletv1.GetStatementRequest{AccountId: other})
			wantCode(t, err, codes.PermissionDenied)
			wantReason(t, err, "NOT_YOURSELF")
		}
		_, err = c.GetBalance(cashier, &walletv1.GetBalanceRequest{AccountId: "player:nobody:EUR"})
		wantCode(t, err, codes.NotFound)
		st, err := c.GetStatement(alice, &walletv1.GetStatementRequest{AccountId: "player:alice:EUR"})
		if err != nil || len(st.GetLines()) != 1 || st.GetLines()[0].GetAmount() != 100000 {
			t.Fatalf("statement = %v, %v", st, err)
		}

		// Bad input: InvalidArgument before anything is written.
		_, err = c.Deposit(cashier, &walletv1.DepositRequest{IdempotencyKey: "k3", PlayerId: "alice", Currency: "EUR", Amount: 0})
		wantCode(t, err, codes.InvalidArgument)
		_, err = c.Deposit(cashier, &walletv1.DepositRequest{IdempotencyKey: "k4", PlayerId: "alice", Currency: "EUR", Amount: -1})
		wantCode(t, err, codes.InvalidArgument)
		_, err = c.Deposit(cashier, &walletv1.DepositRequest{IdempotencyKey: "k5", PlayerId: "nobody", Currency: "EUR", Amount: 1})
		wantCode(t, err, codes.NotFound)
		_, err = c.Deposit(cashier, &walletv1.DepositRequest{IdempotencyKey: "k1", PlayerId: "alice", Currency: "EUR", Amount: 5})
		wantCode(t, err, codes.AlreadyExists)

		// A player asks what they may buy in for; not for someone else.
		chk, err := c.CheckBuyIn(alice, &walletv1.CheckBuyInRequest{PlayerId: "alice", TableId: "T1", Currency: "EUR", Game: nl})
		if err != nil || chk.GetRange().GetMin() != 20000 || chk.GetRange().GetMax() != 50000 || chk.GetRange().GetRuleId() != "CS-03" {
			t.Fatalf("check = %v, %v", chk, err)
		}
		_, err = c.CheckBuyIn(alice, &walletv1.CheckBuyInRequest{PlayerId: "bob", TableId: "T1", Currency: "EUR", Game: nl})
		wantCode(t, err, codes.PermissionDenied)
		wantReason(t, err, "NOT_YOURSELF")

		// The table service holds a buy-in; a refusal carries rule and range.
		_, err = c.HoldBuyIn(table, &walletv1.HoldBuyInRequest{IdempotencyKey: "h0", TableId: "T1", Epoch: 2, PlayerId: "alice", Currency: "EUR", Game: nl, Amount: 10000})
		wantCode(t, err, codes.FailedPrecondition)
		info := errorInfo(t, err)
		if info.GetReason() != "BUY_IN_BELOW_MINIMUM" || info.GetMetadata()["rule_id"] != "CS-03" || info.GetMetadata()["min"] != "20000" || info.GetMetadata()["max"] != "50000" {
			t.Fatalf("error info = %v", info)
		}
		h, err := c.HoldBuyIn(table, &walletv1.HoldBuyInRequest{IdempotencyKey: "h1", TableId: "T1", Epoch: 2, PlayerId: "alice", Seat: 3, Currency: "EUR", Game: nl, Amount: 40000})
		if err != nil || h.GetHold().GetState() != walletv1.HoldState_HOLD_STATE_HELD || h.GetHold().GetBalance() != 60000 {
			t.Fatalf("hold = %v, %v", h, err)
		}
		_, err = c.CommitHold(table, &walletv1.CommitHoldRequest{IdempotencyKey: "c1", TableId: "T1", Epoch: 1, HoldId: h.GetHold().GetHoldId()})
		wantCode(t, err, codes.Aborted)
		// A commit naming the hold's player (as the table does, so that the
		// wallet may pipeline it) must name the right one.
		_, err = c.CommitHold(table, &walletv1.CommitHoldRequest{IdempotencyKey: "c3", TableId: "T1", Epoch: 2, HoldId: h.GetHold().GetHoldId(), PlayerId: "bob"})
		wantCode(t, err, codes.NotFound)
		_, err = c.CommitHold(table, &walletv1.CommitHoldRequest{IdempotencyKey: "c4", TableId: "T1", Epoch: 2, HoldId: h.GetHold().GetHoldId(), PlayerId: "bad player"})
		wantCode(t, err, codes.InvalidArgument)
		cm, err := c.CommitHold(table, &walletv1.CommitHoldRequest{IdempotencyKey: "c2", TableId: "T1", Epoch: 2, HoldId: h.GetHold().GetHoldId(), PlayerId: "alice"})
		if err != nil || cm.GetHold().GetState() != walletv1.HoldState_HOLD_STATE_COMMITTED || cm.GetHold().GetPlayerId() != "alice" {
			t.Fatalf("commit = %v, %v", cm, err)
		}
		out, err := c.CashOut(table, &walletv1.CashOutRequest{IdempotencyKey: "o1", TableId: "T1", Epoch: 2, PlayerId: "alice", Currency: "EUR", Stack: 40000,
			SittingId: h.GetHold().GetHoldId(), Seat: 3})
		if err != nil || out.GetBalance() != 100000 || out.GetGamingDay() != "2026-11-30" {
			t.Fatalf("cash-out = %v, %v", out, err)
		}
		_, err = c.CashOut(table, &walletv1.CashOutRequest{IdempotencyKey: "o2", TableId: "T1", Epoch: 2, PlayerId: "alice", Currency: "EUR", Stack: 1,
			SittingId: h.GetHold().GetHoldId(), Seat: 3})
		wantCode(t, err, codes.FailedPrecondition)
		if info := errorInfo(t, err); info.GetMetadata()["rule_id"] != "CS-08" {
			t.Fatalf("error info = %v", info)
		}
		// A player cannot hold buy-ins directly.
		_, err = c.HoldBuyIn(alice, &walletv1.HoldBuyInRequest{IdempotencyKey: "h2", TableId: "T1", Epoch: 2, PlayerId: "alice", Currency: "EUR", Game: nl, Amount: 40000})
		wantCode(t, err, codes.PermissionDenied)

		report, err := c.GetCageReport(cashier, &walletv1.GetCageReportRequest{})
		if err != nil || report.GetGamingDay() != "2026-11-30" || len(report.GetLines()) != 1 || report.GetLines()[0].GetDepositTotal() != 100000 {
			t.Fatalf("cage report = %v, %v", report, err)
		}
		audit, err := c.Audit(c.as("admin", auth.Admin), &walletv1.AuditRequest{})
		if err != nil || !audit.GetClean() || audit.GetTransfers() != 4 || len(audit.GetCurrencies()) != 1 {
			t.Fatalf("audit = %v, %v", audit, err)
		}
	})
}

func TestConfigProfile_G20_CS04(t *testing.T) {
	t.Parallel()
	p, err := wallet.Config{}.Profile()
	if err != nil || p.Day.Cutoff != 6*time.Hour || p.Day.Location.String() != "Europe/Helsinki" || p.QuickReturnWaivesMaximum || p.QuickReturnWindow != 20*time.Minute {
		t.Fatalf("default profile = %+v, %v", p, err)
	}
	p, err = wallet.Config{GamingDay: gamingday.Config{Cutoff: 5 * time.Hour, TimeZone: "Europe/Stockholm"}, QuickReturnWaivesMaximum: true, QuickReturnWindow: 30 * time.Minute}.Profile()
	if err != nil || p.Day.Cutoff != 5*time.Hour || p.Day.Location.String() != "Europe/Stockholm" || !p.QuickReturnWaivesMaximum || p.QuickReturnWindow != 30*time.Minute {
		t.Fatalf("configured profile = %+v, %v", p, err)
	}
	for _, bad := range []wallet.Config{
		{GamingDay: gamingday.Config{TimeZone: "Mars/Olympus", Cutoff: time.Hour}},
		{GamingDay: gamingday.Config{TimeZone: "UTC", Cutoff: 25 * time.Hour}},
		{GamingDay: gamingday.Config{TimeZone: "UTC", Cutoff: -time.Hour}},
	} {
		if _, err := bad.Profile(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// TestAuditCommand is what `cardroom wallet audit` runs: open the wallet's
// database and audit it.
func TestAuditCommand(t *testing.T) {
	t.Parallel()
	db, err := sqlstore.Open(t.Context(), wallet.StoreOptions("", t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	w, err := wallet.New(wallet.Config{}, wallet.Deps{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Bank().OpenAccount(t.Context(), "k", "zoe", "EUR"); err != nil {
		t.Fatal(err)
	}
	r, err := wallet.Audit(t.Context(), db, noTables{})
	if err != nil || !r.Clean() || r.Ledger.Accounts != 1 {
		t.Fatalf("audit = %+v, %v", r, err)
	}
	// Without a count of the tables the audit proves less, and says so.
	r, err = wallet.Audit(t.Context(), db, nil)
	if err != nil || r.Clean() || r.TablesReconciled {
		t.Fatalf("audit without the tables = %+v, %v", r, err)
	}
}

// quietTables is a table service that issued epochs up to 100 for every
// table and counts no cash table (the tests here leave no chips on one).
type quietTables struct{}

func (quietTables) GetIssuedEpoch(context.Context, *tablev1.GetIssuedEpochRequest, ...grpc.CallOption) (*tablev1.GetIssuedEpochResponse, error) {
	return &tablev1.GetIssuedEpochResponse{Epoch: 100}, nil
}

func (quietTables) CountCashChips(context.Context, *tablev1.CountCashChipsRequest, ...grpc.CallOption) (*tablev1.CountCashChipsResponse, error) {
	return &tablev1.CountCashChipsResponse{}, nil
}

// noTables is a table service with no cash table.
type noTables struct{}

func (noTables) CountCash(context.Context) ([]reconcile.TableCount, error) { return nil, nil }

func TestConfigIdempotencyRetentionDefaultsToAWeekAndRefusesUnderAnHour(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, wallet.StoreOptions("", ""))
	tests := []struct {
		retention time.Duration
		ok        bool
	}{
		{0, true}, // the default, 168h
		{wallet.MinIdempotencyRetention, true},
		{30 * 24 * time.Hour, true},
		{wallet.MinIdempotencyRetention - time.Second, false},
		{-time.Hour, false},
	}
	for _, tc := range tests {
		_, err := wallet.New(wallet.Config{IdempotencyRetention: tc.retention}, wallet.Deps{DB: db})
		if (err == nil) != tc.ok {
			t.Errorf("retention %s: err = %v, want ok=%v", tc.retention, err, tc.ok)
		}
	}
	for _, v := range config.VariablesOf[wallet.Config]() {
		if v.Name != "CARDROOM_WALLET_IDEMPOTENCY_RETENTION" {
			continue
		}
		if d, err := time.ParseDuration(v.Default); err != nil || d != bank.DefaultIdempotencyRetention {
			t.Fatalf("envDefault %q, want %s (bank.DefaultIdempotencyRetention)", v.Default, bank.DefaultIdempotencyRetention)
		}
		return
	}
	t.Fatal("CARDROOM_WALLET_IDEMPOTENCY_RETENTION is not a wallet setting")
}

// TestHoldPendingOverGRPC checks what the table service sees when it asks
// for a second hold for a player at a table: FailedPrecondition,
// HOLD_PENDING, and the pending hold's ID and expiry in the metadata.
func TestHoldPendingOverGRPC(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, wallet.StoreOptions("", ""), func(t *testing.T, db *sqlstore.DB) {
		c := serve(t, db)
		cashier, table := c.as("cashier-1", auth.Cashier), c.as("table-service", auth.Service)
		if _, err := c.OpenAccount(cashier, &walletv1.OpenAccountRequest{OwnerId: "ida", Currency: "EUR", Kind: walletv1.AccountKind_ACCOUNT_KIND_PLAYER}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Deposit(cashier, &walletv1.DepositRequest{IdempotencyKey: "d", PlayerId: "ida", Currency: "EUR", Amount: 100000}); err != nil {
			t.Fatal(err)
		}
		hold := func(key string) (*walletv1.HoldBuyInResponse, error) {
			return c.HoldBuyIn(table, &walletv1.HoldBuyInRequest{IdempotencyKey: key, TableId: "G1", Epoch: 1, PlayerId: "ida", Seat: 2, Currency: "EUR", Game: nl, Amount: 30000})
		}
		first, err := hold("sit/1")
		if err != nil {
			t.Fatal(err)
		}
		_, err = hold("sit/2")
		wantCode(t, err, codes.FailedPrecondition)
		info := errorInfo(t, err)
		if info.GetReason() != "HOLD_PENDING" || info.GetMetadata()["hold_id"] != first.GetHold().GetHoldId() || info.GetMetadata()["expires_at"] == "" {
			t.Fatalf("error info = %v", info)
		}
		expires, perr := time.Parse(time.RFC3339Nano, info.GetMetadata()["expires_at"])
		if perr != nil || !expires.Equal(first.GetHold().GetExpireTime().AsTime()) {
			t.Fatalf("expires_at = %q (%v), want %v", info.GetMetadata()["expires_at"], perr, first.GetHold().GetExpireTime().AsTime())
		}
		again, err := hold("sit/1")
		if err != nil || again.GetHold().GetHoldId() != first.GetHold().GetHoldId() {
			t.Fatalf("replay = %v, %v", again, err)
		}
	})
}

// TestStoreOptionsSizeEachDialectsPool checks the pool sizes whatever URL
// StoreOptions was given: cmd/cardroom makes the options with an empty URL
// and fills in DATABASE_URL afterwards, which once left the wallet on
// PostgreSQL with SQLite's pool of 4.
func TestStoreOptionsSizeEachDialectsPool(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, wallet.StoreOptions("", ""), func(t *testing.T, db *sqlstore.DB) {
		want := wallet.SQLiteConns
		if db.Dialect() == sqlstore.Postgres {
			want = wallet.PostgresConns
		}
		if got := db.SQL().Stats().MaxOpenConnections; got != want {
			t.Fatalf("pool on %s = %d, want %d", db.Dialect(), got, want)
		}
	})
}

// TestEventMoneyIsServiceOnly_TR04_TR34: an entry refund and a pool
// settlement move an event's money as the tournament decided it, so every
// role but service is refused at the wallet — admin included — and the
// service's calls move the money.
func TestEventMoneyIsServiceOnly_TR04_TR34(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, wallet.StoreOptions("", ""), func(t *testing.T, db *sqlstore.DB) {
		c := serve(t, db)
		cashier, svc := c.as("cashier-1", auth.Cashier), c.as("cardroom-tournament", auth.Service)
		if _, err := c.OpenAccount(cashier, &walletv1.OpenAccountRequest{OwnerId: "alice", Currency: "EUR", Kind: walletv1.AccountKind_ACCOUNT_KIND_PLAYER}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Deposit(cashier, &walletv1.DepositRequest{IdempotencyKey: "d", PlayerId: "alice", Currency: "EUR", Amount: 20000}); err != nil {
			t.Fatal(err)
		}
		var entries []string
		for _, key := range []string{"e1", "e2"} {
			en, err := c.Enter(svc, &walletv1.EnterRequest{IdempotencyKey: key, PlayerId: "alice", EventId: "EV" + key, Currency: "EUR", PrizePart: 5000, Fee: 1000})
			if err != nil {
				t.Fatal(err)
			}
			entries = append(entries, en.GetTransfer().GetTransferId())
		}
		refund := func(ctx context.Context, key string) error {
			_, err := c.RefundEntry(ctx, &walletv1.RefundEntryRequest{IdempotencyKey: key, EventId: "EVe1", PlayerId: "alice", TransferId: entries[0], Reason: "unregistered"})
			return err
		}
		settle := func(ctx context.Context, key string) error {
			_, err := c.SettlePrizePool(ctx, &walletv1.SettlePrizePoolRequest{IdempotencyKey: key, EventId: "EVe2", Currency: "EUR", Amount: 5000, Reason: "withheld"})
			return err
		}
		for _, role := range []auth.Role{auth.Player, auth.Dealer, auth.Floor, auth.Cashier, auth.Admin} {
			ctx := c.as("alice", role)
			wantCode(t, refund(ctx, "r-"+string(role)), codes.PermissionDenied)
			wantCode(t, settle(ctx, "s-"+string(role)), codes.PermissionDenied)
		}
		if err := refund(svc, "r"); err != nil {
			t.Fatal(err)
		}
		if err := settle(svc, "s"); err != nil {
			t.Fatal(err)
		}
		bal, err := c.GetBalance(cashier, &walletv1.GetBalanceRequest{AccountId: "player:alice:EUR"})
		if err != nil || bal.GetBalance() != 20000-6000 {
			t.Fatalf("alice = %v, %v; want one entry refunded", bal, err)
		}
		audit, err := c.Audit(cashier, &walletv1.AuditRequest{})
		if err != nil || !audit.GetClean() {
			t.Fatalf("audit = %v, %v", audit, err)
		}
	})
}

// TestConfigGroupCommitMaxGroupsUpTo64AndOneMeansAlone checks the group
// commit setting: the default and 1-64 are taken (1 commits every request
// in a transaction of its own, the others batch them), anything else is
// refused.
func TestConfigGroupCommitMaxGroupsUpTo64AndOneMeansAlone(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, wallet.StoreOptions("", ""))
	tests := []struct {
		max     int
		ok      bool
		grouped bool
	}{
		{0, true, true}, // the default, 64
		{1, true, false},
		{2, true, true},
		{64, true, true},
		{65, false, false},
		{-1, false, false},
	}
	for i, tc := range tests {
		w, err := wallet.New(wallet.Config{GroupCommitMax: tc.max}, wallet.Deps{DB: db})
		if (err == nil) != tc.ok {
			t.Errorf("group commit max %d: err = %v, want ok=%v", tc.max, err, tc.ok)
		}
		if err != nil {
			continue
		}
		if _, err := w.Bank().OpenAccount(t.Context(), fmt.Sprintf("open-%d", i), fmt.Sprintf("gc%d", i), "EUR"); err != nil {
			t.Fatal(err)
		}
		if grouped := w.Bank().Store().GroupStats().Requests == 1; grouped != tc.grouped {
			t.Errorf("group commit max %d: grouped = %v, want %v", tc.max, grouped, tc.grouped)
		}
	}
}

// TestSitDownOverGRPC buys a seat through the wallet's gRPC server, as the
// table service does: service role only, bad input refused before
// anything is written, a refusal carrying its rule (CS-01, CS-03), the
// buy-in in the player's statement as one transfer of its own kind, and
// the sitting cashed out by the name the table gave it.
func TestSitDownOverGRPC(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, wallet.StoreOptions("", ""), func(t *testing.T, db *sqlstore.DB) {
		c := serve(t, db)
		cashier, table := c.as("cashier-1", auth.Cashier), c.as("table-service", auth.Service)
		if _, err := c.OpenAccount(cashier, &walletv1.OpenAccountRequest{OwnerId: "gus", Currency: "EUR", Kind: walletv1.AccountKind_ACCOUNT_KIND_PLAYER}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Deposit(cashier, &walletv1.DepositRequest{IdempotencyKey: "sd-dep", PlayerId: "gus", Currency: "EUR", Amount: 45000}); err != nil {
			t.Fatal(err)
		}
		req := func(key, sitting string, amount int64) *walletv1.SitDownRequest {
			return &walletv1.SitDownRequest{IdempotencyKey: key, TableId: "SDG", Epoch: 1, PlayerId: "gus", Seat: 5, Currency: "EUR", Game: nl,
				Amount: amount, SittingId: sitting}
		}
		_, err := c.SitDown(c.as("gus", auth.Player), req("sd-0", "sit_g1", 30000))
		wantCode(t, err, codes.PermissionDenied)
		_, err = c.SitDown(table, req("sd-1", "sit/g1", 30000))
		wantCode(t, err, codes.InvalidArgument)
		_, err = c.SitDown(table, req("sd-2", "sit_g1", 10000))
		wantCode(t, err, codes.FailedPrecondition)
		if info := errorInfo(t, err); info.GetMetadata()["rule_id"] != "CS-03" {
			t.Errorf("below the minimum: %v", info)
		}
		_, err = c.SitDown(table, req("sd-3", "sit_g1", 50000))
		wantCode(t, err, codes.FailedPrecondition)
		if info := errorInfo(t, err); info.GetReason() != "INSUFFICIENT_FUNDS" || info.GetMetadata()["rule_id"] != "CS-01" {
			t.Errorf("more than the balance: %v", info)
		}
		sd, err := c.SitDown(table, req("sd-4", "sit_g1", 30000))
		if err != nil || sd.GetSittingId() != "sit_g1" || sd.GetBalance() != 15000 || sd.GetRange().GetRuleId() != "CS-03" {
			t.Fatalf("sit-down = %v, %v", sd, err)
		}
		st, err := c.GetStatement(cashier, &walletv1.GetStatementRequest{AccountId: "player:gus:EUR"})
		if err != nil || len(st.GetLines()) != 2 || st.GetLines()[1].GetKind() != walletv1.TransferKind_TRANSFER_KIND_BUY_IN || st.GetLines()[1].GetAmount() != -30000 {
			t.Fatalf("statement = %v, %v", st, err)
		}
		out, err := c.CashOut(table, &walletv1.CashOutRequest{IdempotencyKey: "sd-out", TableId: "SDG", Epoch: 1, PlayerId: "gus", Currency: "EUR", Stack: 30000,
			SittingId: "sit_g1", Seat: 5})
		if err != nil || out.GetBalance() != 45000 {
			t.Fatalf("cash-out = %v, %v", out, err)
		}
	})
}
