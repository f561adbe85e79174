package table_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/testkit"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"github.com/cardroom/cardroom/services/table"
)

// fakeWallet is the wallet's table side in memory: balances, holds, the
// tables' escrow, the sittings bought, idempotent by key, refusing stale
// epochs. It checks what the table asks of it, and of the buy-in rules
// only CS-01 (the wallet's own tests check the rest).
type fakeWallet struct {
	walletv1.WalletServiceClient

	mu            sync.Mutex
	balance       map[string]int64
	escrow        int64
	holds         map[string]*walletv1.Hold
	sittings      map[string]*walletv1.SitDownResponse // bought, by sitting
	keys          map[string]any
	epoch         map[string]int64
	refuseCommit  bool
	commitDown    bool     // CommitHold cannot be reached
	commitLost    bool     // CommitHold commits, but its answer is lost
	refuseSitDown bool     // SitDown refuses a sitting not bought yet
	sitDownDown   bool     // SitDown cannot be reached
	sitDownLost   bool     // SitDown buys the seat, but its answer is lost
	cashOutDown   bool     // CashOut cannot be reached
	tokens        []string // the bearer tokens the calls carried
	cashOuts      map[string]int64
	// beforeSitDown, when set, runs at the start of each SitDown
	// (outside the wallet's lock): a test's way to act while the seat
	// waits for the wallet.
	beforeSitDown func(*walletv1.SitDownRequest)
}

func newFakeWallet(balances map[string]int64) *fakeWallet {
	return &fakeWallet{balance: balances, holds: map[string]*walletv1.Hold{}, sittings: map[string]*walletv1.SitDownResponse{},
		keys: map[string]any{}, epoch: map[string]int64{}, cashOuts: map[string]int64{}}
}

// SitDown buys a sitting once: asked again for it, under any key, it
// answers as the first time and moves nothing. A refusal moves nothing.
func (w *fakeWallet) SitDown(ctx context.Context, in *walletv1.SitDownRequest, _ ...grpc.CallOption) (*walletv1.SitDownResponse, error) {
	if w.beforeSitDown != nil {
		w.beforeSitDown(in)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sitDownDown {
		return nil, status.Error(codes.Unavailable, "wallet down")
	}
	if r, ok := w.keys[in.GetIdempotencyKey()]; ok {
		return r.(*walletv1.SitDownResponse), nil
	}
	if err := w.fence(ctx, in.GetTableId(), in.GetEpoch()); err != nil {
		return nil, err
	}
	resp, ok := w.sittings[in.GetSittingId()]
	if !ok {
		if w.refuseSitDown {
			return nil, status.Error(codes.FailedPrecondition, "buy-in refused")
		}
		if w.balance[in.GetPlayerId()] < in.GetAmount() {
			st, err := status.New(codes.FailedPrecondition, "insufficient funds").WithDetails(&errdetails.ErrorInfo{Reason: "INSUFFICIENT_FUNDS",
				Metadata: map[string]string{"rule_id": "CS-01"}})
			if err != nil {
				return nil, err
			}
			return nil, st.Err()
		}
		w.balance[in.GetPlayerId()] -= in.GetAmount()
		w.escrow += in.GetAmount()
		resp = &walletv1.SitDownResponse{SittingId: in.GetSittingId(), Amount: in.GetAmount(), Balance: w.balance[in.GetPlayerId()]}
		w.sittings[in.GetSittingId()] = resp
	}
	w.keys[in.GetIdempotencyKey()] = resp
	if w.sitDownLost {
		return nil, status.Error(codes.Unavailable, "connection cut after the sit-down")
	}
	return resp, nil
}

func (w *fakeWallet) fence(ctx context.Context, table string, epoch int64) error {
	tok, _ := auth.TokenFromContext(ctx)
	w.tokens = append(w.tokens, tok)
	if epoch < w.epoch[table] {
		return status.Error(codes.Aborted, "stale epoch")
	}
	w.epoch[table] = epoch
	return nil
}

func (w *fakeWallet) HoldBuyIn(ctx context.Context, in *walletv1.HoldBuyInRequest, _ ...grpc.CallOption) (*walletv1.HoldBuyInResponse, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if r, ok := w.keys[in.GetIdempotencyKey()]; ok {
		return r.(*walletv1.HoldBuyInResponse), nil
	}
	if err := w.fence(ctx, in.GetTableId(), in.GetEpoch()); err != nil {
		return nil, err
	}
	if w.balance[in.GetPlayerId()] < in.GetAmount() {
		return nil, status.Error(codes.FailedPrecondition, "insufficient funds")
	}
	w.balance[in.GetPlayerId()] -= in.GetAmount()
	h := &walletv1.Hold{HoldId: fmt.Sprintf("h%d", len(w.holds)+1), State: walletv1.HoldState_HOLD_STATE_HELD, PlayerId: in.GetPlayerId(),
		TableId: in.GetTableId(), Amount: in.GetAmount()}
	w.holds[h.GetHoldId()] = h
	resp := &walletv1.HoldBuyInResponse{Hold: h}
	w.keys[in.GetIdempotencyKey()] = resp
	return resp, nil
}

func (w *fakeWallet) CommitHold(ctx context.Context, in *walletv1.CommitHoldRequest, _ ...grpc.CallOption) (*walletv1.CommitHoldResponse, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.commitDown {
		return nil, status.Error(codes.Unavailable, "wallet down")
	}
	if err := w.fence(ctx, in.GetTableId(), in.GetEpoch()); err != nil {
		return nil, err
	}
	h := w.holds[in.GetHoldId()]
	switch {
	case h == nil:
		return nil, status.Error(codes.NotFound, "no hold")
	case h.GetState() == walletv1.HoldState_HOLD_STATE_COMMITTED:
		return &walletv1.CommitHoldResponse{Hold: h}, nil
	case w.refuseCommit || h.GetState() != walletv1.HoldState_HOLD_STATE_HELD:
		return nil, status.Error(codes.FailedPrecondition, "hold expired")
	}
	h.State = walletv1.HoldState_HOLD_STATE_COMMITTED
	w.escrow += h.GetAmount()
	if w.commitLost {
		return nil, status.Error(codes.Unavailable, "connection cut after the commit")
	}
	return &walletv1.CommitHoldResponse{Hold: h}, nil
}

func (w *fakeWallet) ReleaseHold(ctx context.Context, in *walletv1.ReleaseHoldRequest, _ ...grpc.CallOption) (*walletv1.ReleaseHoldResponse, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.fence(ctx, in.GetTableId(), in.GetEpoch()); err != nil {
		return nil, err
	}
	h := w.holds[in.GetHoldId()]
	if h == nil {
		return nil, status.Error(codes.NotFound, "no hold")
	}
	if h.GetState() != walletv1.HoldState_HOLD_STATE_HELD {
		// As the wallet refuses it: HOLD_NOT_HELD naming the hold's state.
		state := strings.ToLower(strings.TrimPrefix(h.GetState().String(), "HOLD_STATE_"))
		st, err := status.New(codes.FailedPrecondition, "hold is "+state).WithDetails(&errdetails.ErrorInfo{Reason: "HOLD_NOT_HELD",
			Metadata: map[string]string{"hold_id": h.GetHoldId(), "state": state}})
		if err != nil {
			return nil, err
		}
		return nil, st.Err()
	}
	h.State = walletv1.HoldState_HOLD_STATE_RELEASED
	w.balance[h.GetPlayerId()] += h.GetAmount()
	return &walletv1.ReleaseHoldResponse{Hold: h}, nil
}

func (w *fakeWallet) CashOut(ctx context.Context, in *walletv1.CashOutRequest, _ ...grpc.CallOption) (*walletv1.CashOutResponse, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cashOutDown {
		return nil, status.Error(codes.Unavailable, "wallet down")
	}
	if r, ok := w.keys[in.GetIdempotencyKey()]; ok {
		return r.(*walletv1.CashOutResponse), nil
	}
	if err := w.fence(ctx, in.GetTableId(), in.GetEpoch()); err != nil {
		return nil, err
	}
	w.escrow -= in.GetStack()
	w.balance[in.GetPlayerId()] += in.GetStack()
	w.cashOuts[in.GetPlayerId()] += in.GetStack()
	resp := &walletv1.CashOutResponse{Stack: in.GetStack(), Balance: w.balance[in.GetPlayerId()]}
	w.keys[in.GetIdempotencyKey()] = resp
	return resp, nil
}

func (w *fakeWallet) totals() (balances, escrow int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, b := range w.balance {
		balances += b
	}
	return balances, w.escrow
}

// TestPlay_Wallet runs buy-ins (refused, unanswered, answered but the
// answer lost), a top-up during a hand (CS-05), a leave mid-hand and a
// close through the wallet, and checks that chips in wallets plus chips on
// the table always equal the deposits.
func TestPlay_Wallet(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, table.DBOptions())
	w := newFakeWallet(map[string]int64{"ann": 1000, "bob": 1000, "cat": 1000, "dan": 0})
	e := start(t, db, clock.NewFake(t0), seededDecks(5), table.Deps{Wallet: w})
	id := e.open(6, -1)
	e.sit(id, 0, "ann", 200)
	e.sit(id, 1, "bob", 200)
	e.sit(id, 2, "cat", 300)
	conserved := func(when string) {
		t.Helper()
		bal, escrow := w.totals()
		onTable := chips(e.state(id, "ann"))
		if bal+escrow != 3000 || escrow != onTable {
			t.Fatalf("%s: wallets %d + escrow %d (table holds %d) != 3000", when, bal, escrow, onTable)
		}
	}
	conserved("after the buy-ins")
	for _, tok := range w.tokens {
		if tok != "" {
			t.Fatal("the table forwarded a caller's token to the wallet")
		}
	}

	// A player tops up only their own stack.
	_, err := e.c.TopUp(e.player("bob"), &tablev1.TopUpRequest{TableId: id, PlayerId: "ann", Amount: 100, IdempotencyKey: "bob-top-ann"})
	if r, _ := reason(err); status.Code(err) != codes.PermissionDenied || r != "NOT_YOURSELF" {
		t.Fatalf("bob tops up ann: %v, want NOT_YOURSELF", err)
	}
	// CS-05: ann tops up during a hand; the chips wait for the hand's end.
	before := e.state(id, "ann")
	if _, err := e.c.TopUp(e.player("ann"), &tablev1.TopUpRequest{TableId: id, Amount: 100, IdempotencyKey: "ann-top-1"}); err != nil {
		t.Fatal(err)
	}
	mid := e.state(id, "ann")
	if mid.GetSeats()[0].GetPendingChips() != 100 || mid.GetSeats()[0].GetStack() != before.GetSeats()[0].GetStack() {
		t.Fatalf("CS-05 top-up during the hand: %v", mid.GetSeats()[0])
	}
	conserved("after the top-up")
	// bob leaves during the hand: he goes when it ends, with his stack.
	if _, err := e.c.Leave(e.player("bob"), &tablev1.LeaveRequest{TableId: id, Seat: 1}); err != nil {
		t.Fatal(err)
	}
	e.playHands(id, []string{"ann", "cat"}, rand.New(rand.NewPCG(1, 1)), 4)
	st := e.state(id, "ann")
	if st.GetSeats()[1].GetPlayerId() != "" || st.GetSeats()[0].GetPendingChips() != 0 {
		t.Fatalf("after the hand: %v", st)
	}
	if w.cashOuts["bob"] == 0 && w.balance["bob"] != 800 {
		t.Fatalf("bob's cash-out: %d, balance %d", w.cashOuts["bob"], w.balance["bob"])
	}
	conserved("after bob left")

	// CS-01: a sit-down the wallet refuses (dan has no money) leaves no
	// seat and no chips, and the client hears the wallet's rule.
	_, err = e.c.Sit(e.floor(), &tablev1.SitRequest{TableId: id, Seat: 4, PlayerId: "dan", Amount: 100})
	if r, rule := reason(err); status.Code(err) != codes.FailedPrecondition || r != "INSUFFICIENT_FUNDS" || rule != "CS-01" {
		t.Fatalf("sit without the money: %v, want CS-01 INSUFFICIENT_FUNDS", err)
	}
	if s := e.state(id, "ann").GetSeats()[4]; s.GetPlayerId() != "" {
		t.Fatalf("seated without chips: %v", s)
	}
	conserved("after the refused sit-down")

	// A sit-down that cannot be reached leaves the seat unpaid: the player
	// is not dealt in. When they leave before the wallet answers, the
	// wallet is asked again (it buys a sitting at most once, so asking is
	// how the table learns whether it did): it buys the seat now, and the
	// chips are given back at once.
	w.mu.Lock()
	w.sitDownDown = true
	w.mu.Unlock()
	if _, err := e.c.Sit(e.floor(), &tablev1.SitRequest{TableId: id, Seat: 5, PlayerId: "bob", Amount: 100, IdempotencyKey: "bob-again"}); status.Code(err) != codes.Unavailable {
		t.Fatalf("sit with the wallet down: %v", err)
	}
	e.playHands(id, []string{"ann", "cat"}, rand.New(rand.NewPCG(3, 3)), e.state(id, "ann").GetHand().GetHandNo())
	if s := e.state(id, "ann").GetSeats()[5]; s.GetPlayerId() != "bob" || s.GetInHand() {
		t.Fatalf("an unpaid seat: %v", s)
	}
	w.mu.Lock()
	w.sitDownDown = false
	w.mu.Unlock()
	if _, err := e.c.Leave(e.player("bob"), &tablev1.LeaveRequest{TableId: id, Seat: 5}); err != nil {
		t.Fatal(err)
	}
	if bal, escrow := w.totals(); bal+escrow != 3000 || w.balance["bob"] < 100 {
		t.Fatalf("after the unpaid seat left: wallets %d, escrow %d, bob %d", bal, escrow, w.balance["bob"])
	}
	conserved("after the unpaid seat left")

	// The wallet buys the seat but its answer is lost (cut off or killed
	// after the transfer), and the player leaves before the table learns
	// it: asked again, the wallet answers that the sitting is bought
	// (moving nothing), so the chips in escrow are cashed out to the
	// player, ending that sitting.
	w.mu.Lock()
	w.sitDownLost = true
	bobBefore, cashedBefore := w.balance["bob"], w.cashOuts["bob"]
	w.mu.Unlock()
	if _, err := e.c.Sit(e.floor(), &tablev1.SitRequest{TableId: id, Seat: 5, PlayerId: "bob", Amount: 100, IdempotencyKey: "bob-lost"}); status.Code(err) != codes.Unavailable {
		t.Fatalf("sit with the sit-down's answer lost: %v", err)
	}
	w.mu.Lock()
	w.sitDownLost = false
	w.mu.Unlock()
	if _, err := e.c.Leave(e.player("bob"), &tablev1.LeaveRequest{TableId: id, Seat: 5}); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	bobNow, cashed := w.balance["bob"], w.cashOuts["bob"]-cashedBefore
	w.mu.Unlock()
	if bobNow != bobBefore || cashed != 100 {
		t.Fatalf("bob's buy-in whose answer was lost: balance %d, was %d before it; cashed out %d", bobNow, bobBefore, cashed)
	}
	conserved("after the seat whose sit-down answer was lost left")

	// Closing the table cashes everyone out at the end of the hand.
	if _, err := e.c.CloseTable(e.floor(), &tablev1.CloseTableRequest{TableId: id}); err != nil {
		t.Fatal(err)
	}
	e.playHands(id, []string{"ann", "cat"}, rand.New(rand.NewPCG(2, 2)), 1000)
	bal, escrow := w.totals()
	if bal != 3000 || escrow != 0 {
		t.Fatalf("after closing: wallets %d, escrow %d", bal, escrow)
	}
	got, err := e.c.GetTable(e.floor(), &tablev1.GetTableRequest{TableId: id})
	if err != nil || !got.GetTable().GetClosed() {
		t.Fatalf("table not closed: %v %v", got, err)
	}
}

// TestTournamentTable_NoMoney: the tournament service opens a tournament
// table and seats players with tournament chips; the wallet is never asked
// (tournament chips are not money), and an expelled player is not cashed out.
func TestTournamentTable_NoMoney(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, table.DBOptions())
	w := newFakeWallet(map[string]int64{})
	e := start(t, db, clock.NewFake(t0), seededDecks(8), table.Deps{Wallet: w})
	id := e.openTournament("e1", tablev1.TableMode_TABLE_MODE_DIGITAL, &gamev1.Stakes{SmallBlind: 25, BigBlind: 50},
		[]string{"ann", "bob", "cat"}, false, 10000)
	st := e.state(id, "ann")
	if st.GetHand().GetHandNo() != 1 || st.GetSeats()[2].GetPlayerId() != "cat" || st.GetSeats()[2].GetStack() != 10000 {
		t.Fatalf("tournament seats: %v", st)
	}
	// A tournament's chips leave the table only through the tournament.
	tc := tablev1.NewTournamentTableServiceClient(e.g.Conn)
	if _, err := tc.RemoveEntrant(e.g.As(t, "tournament", auth.Service), &tablev1.RemoveEntrantRequest{TableId: id, IdempotencyKey: "out/cat",
		PlayerId: "cat", Reason: tablev1.RemovalReason_REMOVAL_REASON_EXPELLED}); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.tokens) != 0 {
		t.Fatalf("the wallet was called %d times for a tournament table", len(w.tokens))
	}
}

// TestPlay_CashOutAfterRestart: the wallet cannot be reached when a player
// leaves; the table records the cash-out, and the process that runs the
// table next (here after a restart) pays it, once.
func TestPlay_CashOutAfterRestart(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, table.DBOptions())
	w := newFakeWallet(map[string]int64{"ann": 1000, "bob": 1000})
	e := start(t, db, clock.NewFake(t0), seededDecks(9), table.Deps{Wallet: w})
	id := e.open(6, -1)
	e.sit(id, 0, "ann", 200)
	e.sit(id, 1, "bob", 200)
	w.mu.Lock()
	w.cashOutDown = true
	w.mu.Unlock()
	// bob leaves during hand 1: his seat folds or checks in turn, and he
	// goes when the hand ends; ann checks or calls it down.
	if _, err := e.c.Leave(e.player("bob"), &tablev1.LeaveRequest{TableId: id, Seat: 1}); err != nil {
		t.Fatal(err)
	}
	for {
		st := e.state(id, "ann")
		if st.GetHand() == nil {
			break
		}
		kind := tablev1.ActionKind_ACTION_KIND_CALL
		for _, l := range st.GetHand().GetLegal() {
			if l.GetKind() == tablev1.ActionKind_ACTION_KIND_CHECK {
				kind = l.GetKind()
			}
		}
		if _, err := e.c.Act(e.player("ann"), &tablev1.ActRequest{TableId: id, Kind: kind}); err != nil {
			t.Fatal(err)
		}
	}
	var owed int64
	if err := db.SQL().QueryRowContext(t.Context(), `SELECT amount FROM money_moves WHERE kind = 'cash_out' AND player_id = 'bob' AND NOT done`).Scan(&owed); err != nil || owed == 0 {
		t.Fatalf("no pending cash-out for bob: %d %v", owed, err)
	}
	w.mu.Lock()
	w.cashOutDown = false
	w.mu.Unlock()
	// A new process (its own locker) takes the table over and pays.
	e2 := start(t, db, clock.NewFake(t0), seededDecks(9), table.Deps{Wallet: w})
	_ = e2.state(id, "ann")
	w.mu.Lock()
	paid := w.cashOuts["bob"]
	w.mu.Unlock()
	if paid != owed {
		t.Fatalf("bob's cash-out after the restart: %d, owed %d", paid, owed)
	}
	bal, escrow := w.totals()
	if onTable := chips(e2.state(id, "ann")); bal+escrow != 2000 || escrow != onTable {
		t.Fatalf("wallets %d + escrow %d (table %d) != 2000", bal, escrow, onTable)
	}
}

// TestTopUp_CommitFailures_G41: a top-up is still held, then committed: a
// refused commit takes its chips back and returns them to the player; one
// that cannot be reached, or whose answer is lost, leaves the chips
// waiting (G-41) until the retry under the same key commits them, once.
func TestTopUp_CommitFailures_G41(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, table.DBOptions())
	w := newFakeWallet(map[string]int64{"ann": 1000})
	e := start(t, db, clock.NewFake(t0), seededDecks(34), table.Deps{Wallet: w})
	id := e.open(6, -1)
	e.sit(id, 0, "ann", 200)
	topUp := func(key string) error {
		_, err := e.c.TopUp(e.player("ann"), &tablev1.TopUpRequest{TableId: id, Amount: 100, IdempotencyKey: key})
		return err
	}
	check := func(when string, stack, balance int64) {
		t.Helper()
		s := e.state(id, "ann").GetSeats()[0]
		bal, escrow := w.totals()
		if got := s.GetStack() + s.GetPendingChips(); got != stack || bal != balance || escrow != stack {
			t.Fatalf("%s: ann's chips %d, wallet %d, escrow %d; want %d, %d, %d", when, got, bal, escrow, stack, balance, stack)
		}
	}
	set := func(f func()) {
		w.mu.Lock()
		defer w.mu.Unlock()
		f()
	}

	set(func() { w.refuseCommit = true })
	if err := topUp("refused"); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("a top-up whose commit is refused: %v", err)
	}
	check("after the refused commit", 200, 800)

	set(func() { w.refuseCommit, w.commitDown = false, true })
	if err := topUp("down"); status.Code(err) != codes.Unavailable {
		t.Fatalf("a top-up with the wallet down: %v", err)
	}
	set(func() { w.commitDown = false })
	if err := topUp("down"); err != nil {
		t.Fatalf("the retry of the top-up with the wallet back: %v", err)
	}
	check("after the retried commit", 300, 700)

	set(func() { w.commitLost = true })
	if err := topUp("lost"); status.Code(err) != codes.Unavailable {
		t.Fatalf("a top-up whose commit's answer is lost: %v", err)
	}
	set(func() { w.commitLost = false })
	if err := topUp("lost"); err != nil {
		t.Fatalf("the retry of the top-up whose answer was lost: %v", err)
	}
	check("after the commit whose answer was lost", 400, 600)
}
