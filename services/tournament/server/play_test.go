package server_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/random"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"github.com/cardroom/cardroom/services/tournament/desk"
	"github.com/cardroom/cardroom/services/tournament/server"
	"github.com/cardroom/cardroom/services/tournament/store"
	"github.com/cardroom/cardroom/services/tournament/wallet"
)

// fakeWallet is the wallet's tournament side in memory: balances, the
// event pools, and idempotency by key.
type fakeWallet struct {
	walletv1.WalletServiceClient
	mu        sync.Mutex
	balance   map[string]int64
	pool      map[string]int64
	house     int64
	keys      map[string]string  // key -> transfer id
	calls     map[string]int     // key -> calls
	down      int                // the next calls that fail Unavailable
	paid      map[string][]paid  // event -> contributions, for Refund
	entries   map[string]entered // entry transfer id -> entry, for RefundEntry
	refunded  map[string]bool    // entry transfer ids refunded
	tokenLeak bool               // a caller's token reached the wallet
}

// entered is one entry the fake took.
type entered struct {
	player, event string
	prize, fee    int64
}

func newFakeWallet(balances map[string]int64) *fakeWallet {
	return &fakeWallet{balance: balances, pool: map[string]int64{}, keys: map[string]string{}, calls: map[string]int{}, paid: map[string][]paid{},
		entries: map[string]entered{}, refunded: map[string]bool{}}
}

type paid struct {
	player string
	amount int64
}

type contribution struct {
	player, event, key string
	prize, fee         int64
}

func (w *fakeWallet) contribute(ctx context.Context, c contribution) (*walletv1.Transfer, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := auth.TokenFromContext(ctx); ok {
		w.tokenLeak = true
	}
	w.calls[c.key]++
	if w.down > 0 {
		w.down--
		return nil, status.Error(codes.Unavailable, "wallet down")
	}
	if id, ok := w.keys[c.key]; ok {
		return &walletv1.Transfer{TransferId: id}, nil
	}
	if w.balance[c.player] < c.prize+c.fee {
		st, _ := status.New(codes.FailedPrecondition, "insufficient funds").WithDetails(&errdetails.ErrorInfo{Reason: "INSUFFICIENT_FUNDS", Domain: "cardroom.wallet"})
		return nil, st.Err()
	}
	w.balance[c.player] -= c.prize + c.fee
	w.pool[c.event] += c.prize
	w.house += c.fee
	id := fmt.Sprintf("tr-%d", len(w.keys)+1)
	w.keys[c.key] = id
	w.paid[c.event] = append(w.paid[c.event], paid{c.player, c.prize + c.fee})
	return &walletv1.Transfer{TransferId: id}, nil
}

func (w *fakeWallet) Enter(ctx context.Context, in *walletv1.EnterRequest, _ ...grpc.CallOption) (*walletv1.EnterResponse, error) {
	tr, err := w.contribute(ctx, contribution{in.GetPlayerId(), in.GetEventId(), in.GetIdempotencyKey(), in.GetPrizePart(), in.GetFee()})
	if err == nil {
		w.mu.Lock()
		w.entries[tr.GetTransferId()] = entered{in.GetPlayerId(), in.GetEventId(), in.GetPrizePart(), in.GetFee()}
		w.mu.Unlock()
	}
	return &walletv1.EnterResponse{Transfer: tr}, err
}

// RefundEntry reverses one entry, once, as the wallet does (TR-04).
func (w *fakeWallet) RefundEntry(ctx context.Context, in *walletv1.RefundEntryRequest, _ ...grpc.CallOption) (*walletv1.RefundEntryResponse, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := auth.TokenFromContext(ctx); ok {
		w.tokenLeak = true
	}
	w.calls[in.GetIdempotencyKey()]++
	if w.down > 0 {
		w.down--
		return nil, status.Error(codes.Unavailable, "wallet down")
	}
	if id, ok := w.keys[in.GetIdempotencyKey()]; ok {
		return &walletv1.RefundEntryResponse{Transfer: &walletv1.Transfer{TransferId: id}}, nil
	}
	en, ok := w.entries[in.GetTransferId()]
	if !ok || en.player != in.GetPlayerId() || en.event != in.GetEventId() {
		return nil, status.Error(codes.FailedPrecondition, "not this player's entry")
	}
	if w.refunded[in.GetTransferId()] {
		return nil, status.Error(codes.FailedPrecondition, "already reversed")
	}
	w.refunded[in.GetTransferId()] = true
	w.balance[en.player] += en.prize + en.fee
	w.pool[en.event] -= en.prize
	w.house -= en.fee
	id := fmt.Sprintf("tr-%d", len(w.keys)+1)
	w.keys[in.GetIdempotencyKey()] = id
	return &walletv1.RefundEntryResponse{Transfer: &walletv1.Transfer{TransferId: id, Amount: en.prize + en.fee}}, nil
}

// SettlePrizePool moves the rest of a pool to a player or the house.
func (w *fakeWallet) SettlePrizePool(ctx context.Context, in *walletv1.SettlePrizePoolRequest, _ ...grpc.CallOption) (*walletv1.SettlePrizePoolResponse, error) {
	to := in.GetPlayerId()
	if to == "" {
		to = "house"
	}
	tr, err := w.payOut(in.GetIdempotencyKey(), to, in.GetEventId(), in.GetAmount())
	if err == nil && in.GetToEventId() != "" {
		// A flight's pool moved into its Day 2's pool (issue 13).
		w.mu.Lock()
		w.balance[to] -= in.GetAmount()
		w.pool[in.GetToEventId()] += in.GetAmount()
		w.mu.Unlock()
	}
	return &walletv1.SettlePrizePoolResponse{Transfer: tr}, err
}

func (w *fakeWallet) Rebuy(ctx context.Context, in *walletv1.RebuyRequest, _ ...grpc.CallOption) (*walletv1.RebuyResponse, error) {
	tr, err := w.contribute(ctx, contribution{in.GetPlayerId(), in.GetEventId(), in.GetIdempotencyKey(), in.GetPrizePart(), in.GetFee()})
	return &walletv1.RebuyResponse{Transfer: tr}, err
}

func (w *fakeWallet) AddOn(ctx context.Context, in *walletv1.AddOnRequest, _ ...grpc.CallOption) (*walletv1.AddOnResponse, error) {
	tr, err := w.contribute(ctx, contribution{in.GetPlayerId(), in.GetEventId(), in.GetIdempotencyKey(), in.GetPrizePart(), in.GetFee()})
	return &walletv1.AddOnResponse{Transfer: tr}, err
}

// Refund gives every contribution to the event back, fee included.
func (w *fakeWallet) Refund(ctx context.Context, in *walletv1.RefundRequest, _ ...grpc.CallOption) (*walletv1.RefundResponse, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls[in.GetIdempotencyKey()]++
	if w.down > 0 {
		w.down--
		return nil, status.Error(codes.Unavailable, "wallet down")
	}
	var total int64
	for _, p := range w.paid[in.GetEventId()] {
		w.balance[p.player] += p.amount
		total += p.amount
	}
	w.paid[in.GetEventId()] = nil
	w.pool[in.GetEventId()] = 0
	return &walletv1.RefundResponse{Total: total}, nil
}

// PayPrize credits the winner from the event's pool.
func (w *fakeWallet) PayPrize(ctx context.Context, in *walletv1.PayPrizeRequest, _ ...grpc.CallOption) (*walletv1.PayPrizeResponse, error) {
	tr, err := w.payOut(in.GetIdempotencyKey(), in.GetPlayerId(), in.GetEventId(), in.GetAmount())
	return &walletv1.PayPrizeResponse{Transfer: tr}, err
}

// IssueVoucher takes a seat's value from the satellite's pool.
func (w *fakeWallet) IssueVoucher(ctx context.Context, in *walletv1.IssueVoucherRequest, _ ...grpc.CallOption) (*walletv1.IssueVoucherResponse, error) {
	tr, err := w.payOut(in.GetIdempotencyKey(), "voucher:"+in.GetPlayerId()+":"+in.GetTargetEventId(), in.GetSourceEventId(), in.GetAmount())
	return &walletv1.IssueVoucherResponse{Voucher: &walletv1.Voucher{TransferId: tr.GetTransferId(), PlayerId: in.GetPlayerId()}}, err
}

func (w *fakeWallet) payOut(key, to, event string, amount int64) (*walletv1.Transfer, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls[key]++
	if w.down > 0 {
		w.down--
		return nil, status.Error(codes.Unavailable, "wallet down")
	}
	if id, ok := w.keys[key]; ok {
		return &walletv1.Transfer{TransferId: id}, nil
	}
	if w.pool[event] < amount {
		return nil, status.Error(codes.FailedPrecondition, "pool too small")
	}
	w.pool[event] -= amount
	w.balance[to] += amount
	id := fmt.Sprintf("tr-%d", len(w.keys)+1)
	w.keys[key] = id
	return &walletv1.Transfer{TransferId: id}, nil
}

func (w *fakeWallet) get(player string) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.balance[player]
}

type fixture struct {
	g     *testkit.GRPC
	c     tournamentv1.TournamentServiceClient
	clk   *clock.Fake
	w     *fakeWallet
	floor context.Context
	admin context.Context
	// dk is the desk behind the server, where a test plays the director's
	// part (startWithBus).
	dk *desk.Desk
}

func startWithWallet(t *testing.T, w *fakeWallet) *fixture {
	t.Helper()
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	clk := clock.NewFake(now)
	g := testkit.StartGRPC(t, func(r grpc.ServiceRegistrar) {
		deps := desk.Deps{Store: store.New(db), Clock: clk, Random: random.Seeded(11)}
		if w != nil {
			deps.Wallet = wallet.New(w)
		}
		tournamentv1.RegisterTournamentServiceServer(r, server.New(desk.New(deps)))
	})
	return &fixture{g: g, c: tournamentv1.NewTournamentServiceClient(g.Conn), clk: clk, w: w,
		floor: g.As(t, "floor-1", auth.Floor), admin: g.As(t, "admin-1", auth.Admin)}
}

func (f *fixture) create(t *testing.T, edit func(*tournamentv1.CreateTournamentRequest)) string {
	t.Helper()
	req := newRequest()
	if edit != nil {
		edit(req)
	}
	resp, err := f.c.CreateTournament(f.floor, req)
	if err != nil {
		t.Fatal(err)
	}
	return resp.GetTournament().GetTournamentId()
}

func (f *fixture) register(t *testing.T, id, player string) *tournamentv1.Entry {
	t.Helper()
	resp, err := f.c.RegisterPlayer(f.g.As(t, player, auth.Player), &tournamentv1.RegisterPlayerRequest{TournamentId: id, PlayerId: player})
	if err != nil {
		t.Fatalf("register %s: %v", player, err)
	}
	return resp.GetEntry()
}

// wantRule fails unless err has the gRPC code and carries the reason and
// rule in google.rpc.ErrorInfo.
func wantRule(t *testing.T, err error, code codes.Code, reason, rule string) {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != code {
		t.Fatalf("code = %v (%v), want %v", st.Code(), err, code)
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			if info.GetReason() != reason || info.GetMetadata()["rule_id"] != rule {
				t.Fatalf("ErrorInfo = %v, want %s %s", info, reason, rule)
			}
			return
		}
	}
	t.Fatalf("no ErrorInfo in %v", err)
}

func TestRegister_TR04_TR05(t *testing.T) {
	t.Parallel()
	f := startWithWallet(t, newFakeWallet(map[string]int64{"ann": 20000, "bob": 3000}))
	id := f.create(t, nil)

	en := f.register(t, id, "ann")
	if en.GetStatus() != tournamentv1.EntryStatus_ENTRY_STATUS_ACTIVE || en.GetTransferId() == "" || f.w.get("ann") != 20000-6100 {
		t.Fatalf("TR-04 entry %v, balance %d", en, f.w.get("ann"))
	}
	if f.w.tokenLeak {
		t.Fatal("the player's token reached the wallet; the service must call with its own")
	}
	_, err := f.c.RegisterPlayer(f.g.As(t, "ann", auth.Player), &tournamentv1.RegisterPlayerRequest{TournamentId: id, PlayerId: "ann"})
	wantRule(t, err, codes.AlreadyExists, "ALREADY_REGISTERED", "")
	_, err = f.c.RegisterPlayer(f.g.As(t, "ann", auth.Player), &tournamentv1.RegisterPlayerRequest{TournamentId: id, PlayerId: "bob"})
	wantRule(t, err, codes.PermissionDenied, "ENTRY_NOT_PERSONAL", "TR-05")
	// bob cannot pay: the wallet's refusal comes back as it is, and no entry is left.
	_, err = f.c.RegisterPlayer(f.g.As(t, "bob", auth.Player), &tournamentv1.RegisterPlayerRequest{TournamentId: id, PlayerId: "bob"})
	wantRule(t, err, codes.FailedPrecondition, "INSUFFICIENT_FUNDS", "")
	// bob tops up at the cage and tries again: the refused step is retried.
	f.w.mu.Lock()
	f.w.balance["bob"] += 5000
	f.w.mu.Unlock()
	if en := f.register(t, id, "bob"); en.GetStatus() != tournamentv1.EntryStatus_ENTRY_STATUS_ACTIVE || f.w.get("bob") != 8000-6100 {
		t.Fatalf("bob after topping up: %v, balance %d", en, f.w.get("bob"))
	}
	// The cage registers anyone.
	if _, err := f.c.RegisterPlayer(f.g.As(t, "cage", auth.Cashier), &tournamentv1.RegisterPlayerRequest{TournamentId: id, PlayerId: "cat"}); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("cashier registering cat (no money) = %v", err)
	}

	list, err := f.c.ListEntries(f.floor, &tournamentv1.ListEntriesRequest{TournamentId: id})
	if err != nil || len(list.GetEntries()) != 2 || list.GetEntries()[0].GetPlayerId() != "ann" || list.GetEntries()[1].GetPlayerId() != "bob" {
		t.Fatalf("ListEntries = %v, %v", list, err)
	}

	// TR-04: withdrawn before the start, the entry is refunded by the
	// wallet, prize part and fee, with the service's identity.
	un, err := f.c.UnregisterPlayer(f.g.As(t, "ann", auth.Player), &tournamentv1.UnregisterPlayerRequest{TournamentId: id, PlayerId: "ann"})
	if err != nil || un.GetEntry().GetStatus() != tournamentv1.EntryStatus_ENTRY_STATUS_UNREGISTERED || un.GetEntry().GetTransferId() != en.GetTransferId() {
		t.Fatalf("Unregister = %v, %v", un, err)
	}
	if f.w.get("ann") != 20000 || !f.w.refunded[en.GetTransferId()] || f.w.calls["trn/"+id+"/ann/entry-refund/1"] != 1 || f.w.tokenLeak {
		t.Fatalf("TR-04 refund: balance %d, refunded %v, calls %v", f.w.get("ann"), f.w.refunded, f.w.calls)
	}
	_, err = f.c.UnregisterPlayer(f.g.As(t, "ann", auth.Player), &tournamentv1.UnregisterPlayerRequest{TournamentId: id, PlayerId: "ann"})
	wantRule(t, err, codes.FailedPrecondition, "ENTRY_NOT_ACTIVE", "")
	if f.w.get("ann") != 20000 {
		t.Fatalf("a second unregistration moved money: %d", f.w.get("ann"))
	}
	pay, err := f.c.GetPayouts(f.floor, &tournamentv1.GetPayoutsRequest{TournamentId: id})
	// Only bob's entry is left in the pool.
	if err != nil || pay.GetPrizePool() != 5000 || pay.GetEntrants() != 1 || pay.GetLocked() {
		t.Fatalf("payouts after unregistering = %v, %v", pay, err)
	}
	// Registering again is a new entry with a new key.
	again := f.register(t, id, "ann")
	if again.GetTransferId() == en.GetTransferId() || f.w.get("ann") != 20000-6100 {
		t.Fatalf("re-registration %v, balance %d", again, f.w.get("ann"))
	}

	// TR-04: after the start, no registration and no withdrawal.
	f.clk.Advance(6 * time.Hour)
	_, err = f.c.RegisterPlayer(f.g.As(t, "dan", auth.Player), &tournamentv1.RegisterPlayerRequest{TournamentId: id, PlayerId: "dan"})
	wantRule(t, err, codes.FailedPrecondition, "REGISTRATION_CLOSED", "TR-04")
	_, err = f.c.UnregisterPlayer(f.g.As(t, "ann", auth.Player), &tournamentv1.UnregisterPlayerRequest{TournamentId: id, PlayerId: "ann"})
	wantRule(t, err, codes.FailedPrecondition, "UNREGISTER_AFTER_START", "TR-04")
}

// TestRegister_WalletDownThenRetry: the wallet does not answer; the entry
// waits as paying; the same request finishes it with the same key, and
// the money moves once.
func TestRegister_WalletDownThenRetry(t *testing.T) {
	t.Parallel()
	w := newFakeWallet(map[string]int64{"ann": 10000})
	f := startWithWallet(t, w)
	id := f.create(t, nil)
	w.down = 1
	ctx := f.g.As(t, "ann", auth.Player)
	_, err := f.c.RegisterPlayer(ctx, &tournamentv1.RegisterPlayerRequest{TournamentId: id, PlayerId: "ann"})
	wantRule(t, err, codes.Unavailable, "PAYMENT_PENDING", "")
	list, _ := f.c.ListEntries(f.floor, &tournamentv1.ListEntriesRequest{TournamentId: id})
	if len(list.GetEntries()) != 1 || list.GetEntries()[0].GetStatus() != tournamentv1.EntryStatus_ENTRY_STATUS_PAYING {
		t.Fatalf("entries while the wallet is down: %v", list)
	}
	_, err = f.c.UnregisterPlayer(ctx, &tournamentv1.UnregisterPlayerRequest{TournamentId: id, PlayerId: "ann"})
	wantRule(t, err, codes.Aborted, "ENTRY_PAYMENT_IN_FLIGHT", "")
	en := f.register(t, id, "ann")
	key := "trn/" + id + "/ann/entry/1"
	if en.GetStatus() != tournamentv1.EntryStatus_ENTRY_STATUS_ACTIVE || w.calls[key] != 2 || w.get("ann") != 3900 {
		t.Fatalf("after retry: %v, calls %v, balance %d", en, w.calls, w.get("ann"))
	}
}

func TestStart_TR06_TR07_Clock_TR20(t *testing.T) {
	t.Parallel()
	f := startWithWallet(t, nil)
	id := f.create(t, func(r *tournamentv1.CreateTournamentRequest) {
		r.SeatsPerTable = 6
		r.Levels = []*tournamentv1.Level{
			{SmallBlind: 25, BigBlind: 50, Duration: durationpb.New(20 * time.Minute)},
			{Break: true, Duration: durationpb.New(10 * time.Minute), ColorUp: 25},
			{SmallBlind: 50, BigBlind: 100, Duration: durationpb.New(20 * time.Minute)},
		}
	})
	for i := range 10 {
		f.register(t, id, fmt.Sprintf("p%02d", i))
	}
	_, err := f.c.StartTournament(f.floor, &tournamentv1.StartTournamentRequest{TournamentId: id})
	wantRule(t, err, codes.FailedPrecondition, "TOURNAMENT_NOT_DUE", "TR-04")
	clk, err := f.c.GetClock(f.floor, &tournamentv1.GetClockRequest{TournamentId: id})
	if err != nil || clk.GetStarted() || clk.GetLevel().GetBigBlind() != 50 || clk.GetRemaining().AsDuration() != 20*time.Minute {
		t.Fatalf("clock before the start = %v, %v", clk, err)
	}
	f.clk.Advance(6 * time.Hour)
	if _, err := f.c.StartTournament(f.g.As(t, "p00", auth.Player), &tournamentv1.StartTournamentRequest{TournamentId: id}); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("player starting = %v", err)
	}
	st, err := f.c.StartTournament(f.floor, &tournamentv1.StartTournamentRequest{TournamentId: id})
	if err != nil {
		t.Fatal(err)
	}
	if st.GetTournament().GetState() != tournamentv1.TournamentState_TOURNAMENT_STATE_RUNNING || len(st.GetSeats()) != 10 || len(st.GetButtons()) != 2 {
		t.Fatalf("TR-06 start = %v", st)
	}
	perTable := map[int32]int{}
	for _, s := range st.GetSeats() {
		perTable[s.GetTable()]++
	}
	if perTable[1] != 5 || perTable[2] != 5 {
		t.Fatalf("TR-06 tables %v, want 5 and 5", perTable)
	}
	for _, b := range st.GetButtons() {
		best := ""
		if len(b.GetCards()) != 5 {
			t.Fatalf("TR-07 button draw %v", b)
		}
		// G-28: the winner's card is the highest by rank, then suit.
		rank := func(c string) int {
			return 4*indexOf("23456789TJQKA", c[0]) + indexOf("cdhs", c[1])
		}
		for _, c := range b.GetCards() {
			if best == "" || rank(c) > rank(best) {
				best = c
			}
		}
		if b.GetCards()[b.GetButtonSeat()] != best {
			t.Fatalf("G-28 button to seat %d with %s, best %s", b.GetButtonSeat(), b.GetCards()[b.GetButtonSeat()], best)
		}
	}
	list, _ := f.c.ListEntries(f.floor, &tournamentv1.ListEntriesRequest{TournamentId: id})
	for i, e := range list.GetEntries() {
		if e.GetTable() == 0 || e.GetSeat() == 0 {
			t.Fatalf("entry %d not seated: %v", i, e)
		}
	}
	if _, err := f.c.StartTournament(f.floor, &tournamentv1.StartTournamentRequest{TournamentId: id}); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("started twice: %v", err)
	}

	// The clock runs from the start: level 1, the break, level 2; a pause stops it.
	steps := []struct {
		advance time.Duration
		bb      int64
		brk     bool
	}{{5 * time.Minute, 50, false}, {15 * time.Minute, 0, true}, {10 * time.Minute, 100, false}}
	for _, s := range steps {
		f.clk.Advance(s.advance)
		c, err := f.c.GetClock(f.g.As(t, "p01", auth.Player), &tournamentv1.GetClockRequest{TournamentId: id})
		if err != nil || !c.GetStarted() || c.GetLevel().GetBigBlind() != s.bb || c.GetLevel().GetBreak() != s.brk {
			t.Fatalf("G-07 clock at +%s: %v, %v", s.advance, c, err)
		}
	}
	p, err := f.c.PauseClock(f.floor, &tournamentv1.PauseClockRequest{TournamentId: id})
	if err != nil || !p.GetClock().GetPaused() {
		t.Fatalf("pause = %v, %v", p, err)
	}
	f.clk.Advance(time.Hour)
	r, err := f.c.ResumeClock(f.floor, &tournamentv1.ResumeClockRequest{TournamentId: id})
	if err != nil || r.GetClock().GetPaused() || r.GetClock().GetRemaining().AsDuration() != 20*time.Minute || r.GetClock().GetLevelIndex() != 2 {
		t.Fatalf("resume = %v, %v", r, err)
	}
}

func indexOf(s string, b byte) int {
	for i := range len(s) {
		if s[i] == b {
			return i
		}
	}
	return -1
}

func TestLateRegistration_G23(t *testing.T) {
	t.Parallel()
	f := startWithWallet(t, nil)
	id := f.create(t, func(r *tournamentv1.CreateTournamentRequest) {
		r.EntryPolicy = &tournamentv1.EntryPolicy{LateRegistration: durationpb.New(time.Hour)}
	})
	for _, p := range []string{"a", "b", "c"} {
		f.register(t, id, p)
	}
	f.clk.Advance(6 * time.Hour)
	if _, err := f.c.StartTournament(f.floor, &tournamentv1.StartTournamentRequest{TournamentId: id}); err != nil {
		t.Fatal(err)
	}
	f.clk.Advance(59 * time.Minute)
	late := f.register(t, id, "late")
	if late.GetTable() != 1 || late.GetSeat() == 0 {
		t.Fatalf("G-23 late entry not seated: %v", late)
	}
	list, _ := f.c.ListEntries(f.floor, &tournamentv1.ListEntriesRequest{TournamentId: id})
	for _, e := range list.GetEntries() {
		if e.GetPlayerId() != "late" && e.GetSeat() == late.GetSeat() {
			t.Fatalf("late entry given %s's seat", e.GetPlayerId())
		}
	}
	f.clk.Advance(time.Minute)
	_, err := f.c.RegisterPlayer(f.g.As(t, "later", auth.Player), &tournamentv1.RegisterPlayerRequest{TournamentId: id, PlayerId: "later"})
	wantRule(t, err, codes.FailedPrecondition, "REGISTRATION_CLOSED", "TR-04")
}

func TestRebuyAddOn_TR13_TR17(t *testing.T) {
	t.Parallel()
	w := newFakeWallet(map[string]int64{"ann": 100000, "bob": 100000})
	f := startWithWallet(t, w)
	id := f.create(t, func(r *tournamentv1.CreateTournamentRequest) {
		r.Format = tournamentv1.TournamentFormat_TOURNAMENT_FORMAT_REBUY
		r.EntryPolicy = &tournamentv1.EntryPolicy{AddOn: true, MaxRebuys: 2}
	})
	got, err := f.c.GetTournament(f.floor, &tournamentv1.GetTournamentRequest{TournamentId: id})
	p := got.GetTournament().GetEntryPolicy()
	if err != nil || p.GetRebuyPeriod().AsDuration() != time.Hour || p.GetRebuyPrice() != 5000 || p.GetRebuyChips() != 20000 ||
		p.GetAddOnChips() != 40000 || p.GetLastRebuyHands() != 3 {
		t.Fatalf("TR-13 TR-14 TR-16 TR-17 published defaults = %v, %v", p, err)
	}
	f.register(t, id, "ann")
	f.register(t, id, "bob")
	floor := f.floor
	_, err = f.c.Rebuy(floor, &tournamentv1.RebuyRequest{TournamentId: id, PlayerId: "ann", Stack: 0})
	wantRule(t, err, codes.FailedPrecondition, "REBUY_PERIOD_OVER", "TR-16")
	f.clk.Advance(6 * time.Hour)
	if _, err := f.c.StartTournament(floor, &tournamentv1.StartTournamentRequest{TournamentId: id}); err != nil {
		t.Fatal(err)
	}
	f.clk.Advance(10 * time.Minute)
	_, err = f.c.Rebuy(floor, &tournamentv1.RebuyRequest{TournamentId: id, PlayerId: "ann", Stack: 20000})
	wantRule(t, err, codes.FailedPrecondition, "REBUY_NOT_ALLOWED", "TR-15")
	if _, err := f.c.Rebuy(f.g.As(t, "ann", auth.Player), &tournamentv1.RebuyRequest{TournamentId: id, PlayerId: "ann", Stack: 0}); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("a player's own rebuy request (stack unverified) = %v", err)
	}
	rb, err := f.c.Rebuy(floor, &tournamentv1.RebuyRequest{TournamentId: id, PlayerId: "ann", Stack: 0})
	if err != nil || rb.GetChips() != 20000 || rb.GetEntry().GetRebuys() != 1 || w.get("ann") != 100000-6100-5000 {
		t.Fatalf("TR-14 rebuy = %v, %v, balance %d", rb, err, w.get("ann"))
	}
	// Add-on: not during the last rebuy hands, then with a rebuy for an empty stack.
	f.clk.Advance(55 * time.Minute)
	_, err = f.c.AddOn(floor, &tournamentv1.AddOnRequest{TournamentId: id, PlayerId: "ann", Stack: 100, HandsSincePeriodEnd: 2})
	wantRule(t, err, codes.FailedPrecondition, "ADD_ON_NOT_OPEN", "TR-17")
	_, err = f.c.AddOn(floor, &tournamentv1.AddOnRequest{TournamentId: id, PlayerId: "ann", Stack: 0, HandsSincePeriodEnd: 3})
	wantRule(t, err, codes.FailedPrecondition, "REBUY_BEFORE_ADD_ON", "TR-17")
	ao, err := f.c.AddOn(floor, &tournamentv1.AddOnRequest{TournamentId: id, PlayerId: "ann", Stack: 0, HandsSincePeriodEnd: 3, WithRebuy: true})
	if err != nil || ao.GetChips() != 60000 || ao.GetEntry().GetRebuys() != 2 || !ao.GetEntry().GetAddOn() || w.get("ann") != 100000-6100-3*5000 {
		t.Fatalf("TR-17 add-on with rebuy = %v, %v, balance %d", ao, err, w.get("ann"))
	}
	_, err = f.c.Rebuy(floor, &tournamentv1.RebuyRequest{TournamentId: id, PlayerId: "ann", Stack: 0, HandsSincePeriodEnd: 1})
	wantRule(t, err, codes.FailedPrecondition, "REBUY_LIMIT_REACHED", "G-23")
	pay, err := f.c.GetPayouts(f.g.As(t, "bob", auth.Player), &tournamentv1.GetPayoutsRequest{TournamentId: id})
	if err != nil || pay.GetPrizePool() != 2*5000+3*5000 || pay.GetEntrants() != 2 || !pay.GetLocked() || len(pay.GetPrizes()) != 1 || pay.GetPrizes()[0] != 25000 {
		t.Fatalf("TR-36 payouts = %v, %v", pay, err)
	}
}

func TestFreezeout_TR18(t *testing.T) {
	t.Parallel()
	f := startWithWallet(t, nil)
	id := f.create(t, nil)
	f.register(t, id, "ann")
	f.register(t, id, "bob")
	f.clk.Advance(6 * time.Hour)
	if _, err := f.c.StartTournament(f.floor, &tournamentv1.StartTournamentRequest{TournamentId: id}); err != nil {
		t.Fatal(err)
	}
	_, err := f.c.Rebuy(f.floor, &tournamentv1.RebuyRequest{TournamentId: id, PlayerId: "ann"})
	wantRule(t, err, codes.FailedPrecondition, "REBUY_NOT_ALLOWED", "TR-18")
	_, err = f.c.CreateTournament(f.floor, func() *tournamentv1.CreateTournamentRequest {
		r := newRequest()
		r.StartTime = timestamppb.New(f.clk.Now().Add(time.Hour))
		r.EntryPolicy = &tournamentv1.EntryPolicy{RebuyPeriod: durationpb.New(time.Hour)}
		return r
	}())
	wantRule(t, err, codes.InvalidArgument, "FREEZEOUT_HAS_NO_REBUYS", "TR-18")
}

func TestCancel_TR03_G30(t *testing.T) {
	t.Parallel()
	w := newFakeWallet(map[string]int64{"ann": 10000, "bob": 10000})
	f := startWithWallet(t, w)
	id := f.create(t, nil)
	f.register(t, id, "ann")
	f.register(t, id, "bob")
	req := &tournamentv1.CancelTournamentRequest{TournamentId: id, Reason: "storm"}
	if _, err := f.c.CancelTournament(f.floor, req); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("TR-03 floor cancelling = %v", err)
	}
	w.down = 1
	_, err := f.c.CancelTournament(f.admin, req)
	wantRule(t, err, codes.Unavailable, "PAYMENT_PENDING", "")
	// The repeat finishes the refund under the same key.
	resp, err := f.c.CancelTournament(f.admin, &tournamentv1.CancelTournamentRequest{TournamentId: id, Reason: "another reason"})
	if err != nil || resp.GetRefunded() != 12200 || resp.GetTournament().GetState() != tournamentv1.TournamentState_TOURNAMENT_STATE_CANCELLED {
		t.Fatalf("TR-03 cancel = %v, %v", resp, err)
	}
	if w.get("ann") != 10000 || w.get("bob") != 10000 || w.calls["trn/"+id+"/refund"] != 2 {
		t.Fatalf("G-30 balances after refund: ann %d bob %d, calls %v", w.get("ann"), w.get("bob"), w.calls)
	}
	list, _ := f.c.ListEntries(f.floor, &tournamentv1.ListEntriesRequest{TournamentId: id})
	for _, e := range list.GetEntries() {
		if e.GetStatus() != tournamentv1.EntryStatus_ENTRY_STATUS_REFUNDED {
			t.Fatalf("entry after cancel: %v", e)
		}
	}
	_, err = f.c.CancelTournament(f.admin, req)
	wantRule(t, err, codes.FailedPrecondition, "EVENT_NOT_CANCELLABLE", "TR-03")
	_, err = f.c.RegisterPlayer(f.g.As(t, "cat", auth.Player), &tournamentv1.RegisterPlayerRequest{TournamentId: id, PlayerId: "cat"})
	wantRule(t, err, codes.FailedPrecondition, "REGISTRATION_CLOSED", "TR-04")
}

// TestLastRebuyHands_TR16: the tables report their hands; after the
// rebuy period each table's three last rebuy hands close rebuys there and
// open the add-on, without the caller counting.
func TestLastRebuyHands_TR16(t *testing.T) {
	t.Parallel()
	f := startWithWallet(t, nil)
	id := f.running(t, []string{"a", "b"}, func(r *tournamentv1.CreateTournamentRequest) {
		r.Format = tournamentv1.TournamentFormat_TOURNAMENT_FORMAT_REBUY
		r.EntryPolicy = &tournamentv1.EntryPolicy{AddOn: true}
	})
	dealer := f.g.As(t, "dealer", auth.Dealer)
	hand := func() {
		t.Helper()
		if _, err := f.c.ReportHandStarted(dealer, &tournamentv1.ReportHandStartedRequest{TournamentId: id, Table: 1, PlayerIds: []string{"a", "b"}}); err != nil {
			t.Fatal(err)
		}
	}
	hand() // inside the period: not counted
	f.clk.Advance(time.Hour)
	for i := range 3 {
		if _, err := f.c.Rebuy(f.floor, &tournamentv1.RebuyRequest{TournamentId: id, PlayerId: "a", Stack: 0}); err != nil {
			t.Fatalf("TR-16 rebuy in last rebuy hand %d: %v", i+1, err)
		}
		hand()
	}
	_, err := f.c.Rebuy(f.floor, &tournamentv1.RebuyRequest{TournamentId: id, PlayerId: "a", Stack: 0})
	wantRule(t, err, codes.FailedPrecondition, "REBUY_PERIOD_OVER", "TR-16")
	if _, err := f.c.AddOn(f.floor, &tournamentv1.AddOnRequest{TournamentId: id, PlayerId: "b", Stack: 5000}); err != nil {
		t.Fatalf("TR-17 add-on after the last rebuy hand: %v", err)
	}
	// After the last rebuy hand a player with no chips may still take the
	// add-on with a rebuy (TR-17); once its window has closed a bust is final.
	ko := &tournamentv1.RecordKnockoutsRequest{TournamentId: id, Knockouts: []*tournamentv1.Knockout{{PlayerId: "a", Table: 1}}}
	_, err = f.c.RecordKnockouts(f.floor, ko)
	wantRule(t, err, codes.FailedPrecondition, "REBUY_STILL_OPEN", "TR-13")
	f.clk.Advance(15 * time.Minute)
	if _, err := f.c.RecordKnockouts(f.floor, &tournamentv1.RecordKnockoutsRequest{TournamentId: id, Knockouts: []*tournamentv1.Knockout{{PlayerId: "a", Table: 1}}}); err != nil {
		t.Fatalf("TR-16 knock-out after the rebuys: %v", err)
	}
}

// TestKnockoutDuringRebuys_TR13: a bust while rebuys are open is refused
// unless the player declined the rebuy.
func TestKnockoutDuringRebuys_TR13(t *testing.T) {
	t.Parallel()
	f := startWithWallet(t, nil)
	id := f.running(t, []string{"a", "b", "c"}, func(r *tournamentv1.CreateTournamentRequest) {
		r.Format = tournamentv1.TournamentFormat_TOURNAMENT_FORMAT_REBUY
	})
	req := &tournamentv1.RecordKnockoutsRequest{TournamentId: id, Knockouts: []*tournamentv1.Knockout{{PlayerId: "c", Table: 1}}}
	_, err := f.c.RecordKnockouts(f.floor, req)
	wantRule(t, err, codes.FailedPrecondition, "REBUY_STILL_OPEN", "TR-13")
	req.Knockouts[0].DeclinedRebuy = true
	if r, err := f.c.RecordKnockouts(f.floor, req); err != nil || r.GetFinishes()[0].GetPlace() != 3 {
		t.Fatalf("declined rebuy: %v, %v", r, err)
	}
}
