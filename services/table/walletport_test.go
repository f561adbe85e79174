package table_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/rpc"
	"github.com/cardroom/cardroom/platform/testkit"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"github.com/cardroom/cardroom/services/table"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/runner"
)

// answeringWallet is the wallet service's table side answering every call
// with one canned answer, behind rpc.NewServer: the answer reaches the
// adapter as the wallet's own server sends it (a fault as its status and
// ErrorInfo, any other error masked as Internal), after the server has
// checked the caller's token and role and validated the request.
type answeringWallet struct {
	walletv1.UnimplementedWalletServiceServer

	answer error // nil: the step is done
	block  bool  // answer nothing until the caller gives up

	mu      sync.Mutex
	callers []string     // who each call came from
	game    *gamev1.Game // the game the hold asked for
	sitDown *walletv1.SitDownRequest
}

func (w *answeringWallet) reply(ctx context.Context) error {
	w.mu.Lock()
	c, _ := auth.FromContext(ctx)
	w.callers = append(w.callers, c.String())
	w.mu.Unlock()
	if w.block {
		<-ctx.Done()
		return ctx.Err()
	}
	return w.answer
}

func (w *answeringWallet) HoldBuyIn(ctx context.Context, in *walletv1.HoldBuyInRequest) (*walletv1.HoldBuyInResponse, error) {
	w.mu.Lock()
	w.game = in.GetGame()
	w.mu.Unlock()
	if err := w.reply(ctx); err != nil {
		return nil, err
	}
	return &walletv1.HoldBuyInResponse{Hold: &walletv1.Hold{HoldId: "hold-1"}}, nil
}

func (w *answeringWallet) SitDown(ctx context.Context, in *walletv1.SitDownRequest) (*walletv1.SitDownResponse, error) {
	w.mu.Lock()
	w.sitDown = in
	w.mu.Unlock()
	if err := w.reply(ctx); err != nil {
		return nil, err
	}
	return &walletv1.SitDownResponse{SittingId: in.GetSittingId(), Amount: in.GetAmount()}, nil
}

func (w *answeringWallet) CommitHold(ctx context.Context, _ *walletv1.CommitHoldRequest) (*walletv1.CommitHoldResponse, error) {
	return &walletv1.CommitHoldResponse{}, w.reply(ctx)
}

func (w *answeringWallet) ReleaseHold(ctx context.Context, _ *walletv1.ReleaseHoldRequest) (*walletv1.ReleaseHoldResponse, error) {
	return &walletv1.ReleaseHoldResponse{}, w.reply(ctx)
}

func (w *answeringWallet) CashOut(ctx context.Context, _ *walletv1.CashOutRequest) (*walletv1.CashOutResponse, error) {
	return &walletv1.CashOutResponse{}, w.reply(ctx)
}

// serveWallet serves srv as the wallet and returns a client dialled as the
// table service dials it: with the service's own token for calls whose
// context carries none. down: the address answers nothing (the wallet is
// not running). The context it returns carries a player's token, which
// the adapter must not pass on (the table's wallet RPCs are for the
// service role).
func serveWallet(t *testing.T, srv walletv1.WalletServiceServer, down bool) (walletv1.WalletServiceClient, context.Context) {
	t.Helper()
	g := testkit.StartGRPC(t, func(r grpc.ServiceRegistrar) { walletv1.RegisterWalletServiceServer(r, srv) })
	conn := g.ServiceConn(t, "table")
	if down {
		conn = testkit.Unreachable(t)
	}
	return walletv1.NewWalletServiceClient(conn), g.As(t, "ann", auth.Player)
}

// Outcomes of a wallet step as the runner reads them.
const (
	stepDone      = "done"      // nil: the step went through
	stepCommitted = "committed" // a release that found the hold committed
	stepRefused   = "refused"   // *runner.WalletRefused: settled, nothing moved
	stepPending   = "pending"   // any other error: no answer, retried
)

func stepOutcome(err error) string {
	var r *runner.WalletRefused
	switch {
	case err == nil:
		return stepDone
	case errors.As(err, &r):
		return stepRefused
	}
	return stepPending
}

func holdNotHeld(state string) error {
	f := fault.New(fault.Precondition, "HOLD_NOT_HELD", "the hold is no longer held").With("hold_id", "hold-1")
	if state != "" {
		f = f.With("state", state)
	}
	return f
}

// TestWalletAdapterClassifiesAnswers: table.Wallet is the one place the
// wallet's answers become the runner's outcomes, and each outcome moves
// money differently — a refused commit undoes the seat (once its release
// says where the chips are), a step with no answer is retried from its
// stored record. So an answer read as a refusal when the step may have gone
// through strands chips in escrow, and one read as no answer retries a
// step that never can. Each answer goes over gRPC from a wallet server
// built as production builds it, to every step. A sit-down's answer reads
// as a hold's does (the one rule, rpc.Refused): a refusal means nothing
// moved, and any other answer may yet have bought the seat.
func TestWalletAdapterClassifiesAnswers(t *testing.T) {
	t.Parallel()
	type answerCase struct {
		name   string
		answer error
		block  bool // no answer before the caller's deadline
		down   bool // nothing listens
		// The outcome of each step; code is the gRPC code every error
		// keeps for the caller (the player learns why).
		hold, commit, release, cashOut string
		code                           codes.Code
	}
	cases := []answerCase{
		{name: "ok", hold: stepDone, commit: stepDone, release: stepDone, cashOut: stepDone},
		{name: "insufficient funds", answer: fault.New(fault.Precondition, "INSUFFICIENT_FUNDS", "not enough money"),
			hold: stepRefused, commit: stepRefused, release: stepRefused, cashOut: stepRefused, code: codes.FailedPrecondition},
		{name: "invalid", answer: fault.Invalidf("amount", "is below the table's minimum buy-in"),
			hold: stepRefused, commit: stepRefused, release: stepRefused, cashOut: stepRefused, code: codes.InvalidArgument},
		{name: "not found", answer: fault.NotFoundf("hold", "hold hold-1 is not at table t1"),
			hold: stepRefused, commit: stepRefused, release: stepRefused, cashOut: stepRefused, code: codes.NotFound},
		{name: "key reused", answer: fault.New(fault.Conflict, "IDEMPOTENCY_KEY_REUSED", "the key was used for another request"),
			hold: stepRefused, commit: stepRefused, release: stepRefused, cashOut: stepRefused, code: codes.AlreadyExists},
		{name: "forbidden", answer: fault.New(fault.Forbidden, "PERMISSION_DENIED", "not this table's"),
			hold: stepRefused, commit: stepRefused, release: stepRefused, cashOut: stepRefused, code: codes.PermissionDenied},
		// A commit answered HOLD_NOT_HELD/committed went through (a retry
		// after the wallet pruned its key); a release finding it so says
		// the chips are in escrow, and one finding it released or expired
		// that they are back with the player.
		{name: "hold committed", answer: holdNotHeld("committed"),
			hold: stepRefused, commit: stepDone, release: stepCommitted, cashOut: stepRefused, code: codes.FailedPrecondition},
		{name: "hold released", answer: holdNotHeld("released"),
			hold: stepRefused, commit: stepRefused, release: stepDone, cashOut: stepRefused, code: codes.FailedPrecondition},
		{name: "hold expired", answer: holdNotHeld("expired"),
			hold: stepRefused, commit: stepRefused, release: stepDone, cashOut: stepRefused, code: codes.FailedPrecondition},
		{name: "hold settled concurrently", answer: holdNotHeld(""),
			hold: stepRefused, commit: stepRefused, release: stepRefused, cashOut: stepRefused, code: codes.FailedPrecondition},
		{name: "hold past its expiry", answer: fault.New(fault.Precondition, "HOLD_EXPIRED", "the hold has expired"),
			hold: stepRefused, commit: stepRefused, release: stepRefused, cashOut: stepRefused, code: codes.FailedPrecondition},
		// Aborted: the wallet lost a race (a newer epoch, the same key in
		// flight); the step may yet go through.
		{name: "fenced out", answer: fault.New(fault.Aborted, "FENCED_OUT", "a newer epoch owns the table"),
			hold: stepPending, commit: stepPending, release: stepPending, cashOut: stepPending, code: codes.Aborted},
		{name: "key busy", answer: fault.New(fault.Aborted, "IDEMPOTENCY_KEY_BUSY", "the same key is in flight"),
			hold: stepPending, commit: stepPending, release: stepPending, cashOut: stepPending, code: codes.Aborted},
		{name: "unavailable", answer: fault.New(fault.Unavailable, "UNAVAILABLE", "the database is down"),
			hold: stepPending, commit: stepPending, release: stepPending, cashOut: stepPending, code: codes.Unavailable},
		{name: "internal", answer: errors.New("disk full"),
			hold: stepPending, commit: stepPending, release: stepPending, cashOut: stepPending, code: codes.Internal},
		// The wallet refused the table's own token (expired before its
		// renewal, a key being rolled), not the step: no answer, retried;
		// the player must not read a 401 as their own session ending.
		{name: "unauthenticated", answer: fault.New(fault.Unauthenticated, "UNAUTHENTICATED", "token expired"),
			hold: stepPending, commit: stepPending, release: stepPending, cashOut: stepPending, code: codes.Unauthenticated},
		{name: "out of range", answer: status.Error(codes.OutOfRange, "the escrow holds less"),
			hold: stepRefused, commit: stepRefused, release: stepRefused, cashOut: stepRefused, code: codes.OutOfRange},
		{name: "no answer in time", block: true,
			hold: stepPending, commit: stepPending, release: stepPending, cashOut: stepPending, code: codes.DeadlineExceeded},
		{name: "wallet down", down: true,
			hold: stepPending, commit: stepPending, release: stepPending, cashOut: stepPending, code: codes.Unavailable},
	}
	// Every code as a bare status, read as the tournament's wallet adapter
	// reads it too: by the one rule (rpc.Refused).
	for code := codes.Canceled; code <= codes.Unauthenticated; code++ {
		sent := code
		if code == codes.Unknown || code == codes.DataLoss {
			sent = codes.Internal // the wallet's server masks them (rpc.ToStatus)
		}
		o := stepPending
		if rpc.Refused(status.Error(code, "")) {
			o = stepRefused
		}
		cases = append(cases, answerCase{name: "code " + code.String(), answer: status.Error(code, "the wallet's answer"),
			hold: o, commit: o, release: o, cashOut: o, code: sent})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := &answeringWallet{answer: c.answer, block: c.block}
			client, ctx := serveWallet(t, srv, c.down)
			if c.block {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 200*time.Millisecond)
				defer cancel()
			}
			w := table.Wallet{Client: client}
			step := runner.Step{Key: "sit/k1", Table: "t1", Epoch: 3}
			holdID, err := w.Hold(ctx, runner.Hold{Step: step, Player: "ann", Seat: 2, Currency: "USD", Amount: 100,
				Game: engine.Config{Game: engine.Holdem, Structure: engine.NoLimit, Stakes: engine.Stakes{SmallBlind: 1, BigBlind: 2}}})
			checkStep(t, "hold", err, c.hold, c.code)
			if wantID := map[bool]string{true: "hold-1"}[err == nil]; holdID != wantID {
				t.Errorf("hold: id %q, want %q", holdID, wantID)
			}
			checkStep(t, "sit down", w.SitDown(ctx, runner.SitDown{Step: step, Player: "ann", Seat: 2, Currency: "USD", Amount: 100,
				Sitting: "sit_1", Game: engine.Config{Game: engine.Holdem, Structure: engine.NoLimit, Stakes: engine.Stakes{SmallBlind: 1, BigBlind: 2}}}),
				c.hold, c.code)
			checkStep(t, "commit", w.Commit(ctx, step, "hold-1", "ann"), c.commit, c.code)
			wasCommitted, err := w.Release(ctx, step, "hold-1")
			got := stepOutcome(err)
			if wasCommitted {
				got = stepCommitted
				if err != nil {
					t.Errorf("release: stepCommitted with an error: %v", err)
				}
			}
			if got != c.release {
				t.Errorf("release: %s (%v), want %s", got, err, c.release)
			}
			checkStep(t, "cash out", w.CashOut(ctx, step, runner.CashOut{Player: "ann", Seat: 2, Currency: "USD", Stack: 140,
				Sitting: "hold-1"}), c.cashOut, c.code)
			if c.down || c.block {
				return // not every call reached the wallet
			}
			srv.mu.Lock()
			defer srv.mu.Unlock()
			for _, who := range srv.callers {
				if who != "table as service" {
					t.Errorf("the wallet was called by %q, want the table service's own identity", who)
				}
			}
			if len(srv.callers) != 5 {
				t.Errorf("the wallet was called %d times, want 5 (one per step)", len(srv.callers))
			}
			if sd := srv.sitDown; sd.GetIdempotencyKey() != "sit/k1" || sd.GetTableId() != "t1" || sd.GetEpoch() != 3 || sd.GetPlayerId() != "ann" ||
				sd.GetSeat() != 2 || sd.GetCurrency() != "USD" || sd.GetAmount() != 100 || sd.GetSittingId() != "sit_1" ||
				sd.GetGame().GetStakes().GetBigBlind() != 2 {
				t.Errorf("the sit-down asked for %v", sd)
			}
			if g := srv.game; g.GetVariant() != gamev1.Variant_VARIANT_HOLDEM || g.GetStructure() != gamev1.Structure_STRUCTURE_NO_LIMIT ||
				g.GetStakes().GetBigBlind() != 2 {
				t.Errorf("the hold asked for game %v, want no-limit hold'em 1/2", g)
			}
		})
	}
}

// checkStep fails unless err is the outcome want and, as an error, keeps the
// wallet's gRPC code.
func checkStep(t *testing.T, step string, err error, want string, code codes.Code) {
	t.Helper()
	if got := stepOutcome(err); got != want {
		t.Errorf("%s: %s (%v), want %s", step, got, err, want)
	}
	if err != nil && status.Code(err) != code {
		t.Errorf("%s: code %s (%v), want %s", step, status.Code(err), err, code)
	}
}
