package wallet_test

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
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"github.com/cardroom/cardroom/services/tournament/desk"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/wallet"
)

// answeringWallet is the wallet service's event side answering every call
// with one canned answer, behind rpc.NewServer: the answer reaches the
// adapter as the wallet's own server sends it (a fault as its status and
// ErrorInfo, any other error masked as Internal), after the server has
// checked the caller's token and role and validated the request. A step
// that goes through is answered with transfer "tr-<kind>" and, for
// refunds, a total of 70.
type answeringWallet struct {
	walletv1.UnimplementedWalletServiceServer

	answer error
	block  bool // answer nothing until the caller gives up

	mu      sync.Mutex
	callers []string // who each call came from
}

func (w *answeringWallet) reply(ctx context.Context, kind string) (*walletv1.Transfer, error) {
	w.mu.Lock()
	c, _ := auth.FromContext(ctx)
	w.callers = append(w.callers, c.String())
	w.mu.Unlock()
	if w.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if w.answer != nil {
		return nil, w.answer
	}
	return &walletv1.Transfer{TransferId: "tr-" + kind, Amount: 70}, nil
}

func (w *answeringWallet) Enter(ctx context.Context, _ *walletv1.EnterRequest) (*walletv1.EnterResponse, error) {
	tr, err := w.reply(ctx, "entry")
	return &walletv1.EnterResponse{Transfer: tr}, err
}

func (w *answeringWallet) Rebuy(ctx context.Context, _ *walletv1.RebuyRequest) (*walletv1.RebuyResponse, error) {
	tr, err := w.reply(ctx, "rebuy")
	return &walletv1.RebuyResponse{Transfer: tr}, err
}

func (w *answeringWallet) AddOn(ctx context.Context, _ *walletv1.AddOnRequest) (*walletv1.AddOnResponse, error) {
	tr, err := w.reply(ctx, "add-on")
	return &walletv1.AddOnResponse{Transfer: tr}, err
}

func (w *answeringWallet) PayPrize(ctx context.Context, in *walletv1.PayPrizeRequest) (*walletv1.PayPrizeResponse, error) {
	kind := "prize"
	if in.GetPlace() == 0 {
		kind = "bounty"
	}
	tr, err := w.reply(ctx, kind)
	return &walletv1.PayPrizeResponse{Transfer: tr}, err
}

func (w *answeringWallet) IssueVoucher(ctx context.Context, _ *walletv1.IssueVoucherRequest) (*walletv1.IssueVoucherResponse, error) {
	tr, err := w.reply(ctx, "voucher")
	return &walletv1.IssueVoucherResponse{Voucher: &walletv1.Voucher{TransferId: tr.GetTransferId()}}, err
}

func (w *answeringWallet) RefundEntry(ctx context.Context, _ *walletv1.RefundEntryRequest) (*walletv1.RefundEntryResponse, error) {
	tr, err := w.reply(ctx, "entry-refund")
	return &walletv1.RefundEntryResponse{Transfer: tr}, err
}

func (w *answeringWallet) SettlePrizePool(ctx context.Context, _ *walletv1.SettlePrizePoolRequest) (*walletv1.SettlePrizePoolResponse, error) {
	tr, err := w.reply(ctx, "pool-settlement")
	return &walletv1.SettlePrizePoolResponse{Transfer: tr}, err
}

func (w *answeringWallet) Refund(ctx context.Context, _ *walletv1.RefundRequest) (*walletv1.RefundResponse, error) {
	tr, err := w.reply(ctx, "refund")
	return &walletv1.RefundResponse{Total: tr.GetAmount()}, err
}

// payments are one saga step of each kind, as the tournament asks them.
var payments = []entry.Payment{
	{Key: "trn/e1/entry/ann/1", Kind: entry.PayEntry, EventID: "e1", PlayerID: "ann", Currency: "USD", PrizePart: 100, Fee: 10},
	{Key: "trn/e1/rebuy/ann/1", Kind: entry.PayRebuy, EventID: "e1", PlayerID: "ann", Currency: "USD", PrizePart: 100, Fee: 10},
	{Key: "trn/e1/add-on/ann", Kind: entry.PayAddOn, EventID: "e1", PlayerID: "ann", Currency: "USD", PrizePart: 100},
	{Key: "trn/e1/prize/1", Kind: entry.PayPrize, EventID: "e1", PlayerID: "ann", Currency: "USD", Amount: 500, Place: 1},
	{Key: "trn/e1/bounty/bob", Kind: entry.PayBounty, EventID: "e1", PlayerID: "ann", Currency: "USD", Amount: 50},
	{Key: "trn/e1/voucher/ann", Kind: entry.PayVoucher, EventID: "e1", TargetEventID: "e2", PlayerID: "ann", Currency: "USD",
		Amount: 110, Place: 1},
	{Key: "trn/e1/entry-refund/ann", Kind: entry.RefundEntry, EventID: "e1", PlayerID: "ann", RefundOf: "tr-entry",
		Note: "late registration closed"},
	{Key: "trn/e1/pool-settlement/1", Kind: entry.SettlePool, EventID: "e1", PlayerID: "ann", Currency: "USD", Amount: 30,
		Note: "disqualified player's chips (TR-34)"},
	{Key: "trn/e1/refund", Kind: entry.RefundEvent, EventID: "e1", Note: "cancelled"},
}

// paid is what each kind's step that goes through answers.
var paid = map[entry.Kind]desk.Paid{
	entry.PayEntry:    {TransferID: "tr-entry"},
	entry.PayRebuy:    {TransferID: "tr-rebuy"},
	entry.PayAddOn:    {TransferID: "tr-add-on"},
	entry.PayPrize:    {TransferID: "tr-prize"},
	entry.PayBounty:   {TransferID: "tr-bounty"},
	entry.PayVoucher:  {TransferID: "tr-voucher"},
	entry.RefundEntry: {TransferID: "tr-entry-refund", Total: 70},
	entry.SettlePool:  {TransferID: "tr-pool-settlement"},
	entry.RefundEvent: {Total: 70},
}

// Outcomes of a step as the desk reads them (desk.Wallet).
const (
	done    = "done"    // nil: the money moved
	refused = "refused" // *desk.PaymentRefused: nothing moved, for good
	pending = "pending" // any other error: no answer, the same key repeats it
)

func outcome(err error) string {
	var r *desk.PaymentRefused
	switch {
	case err == nil:
		return done
	case errors.As(err, &r):
		return refused
	}
	return pending
}

// TestPayClassifiesAnswers: the adapter is the one place the wallet's
// answers become the tournament's outcomes, and each moves money
// differently: a refused entry is not registered and a refused refund is
// recorded as such, while a step with no answer is kept and repeated under
// its key. An answer read as a refusal when the step may have gone through
// loses a payment the wallet made; one read as no answer repeats a step
// that never can. Each answer goes over gRPC from a wallet server built as
// production builds it, to a step of every kind, and the wallet's status
// (its reason and rule) reaches the caller as it is.
func TestPayClassifiesAnswers(t *testing.T) {
	t.Parallel()
	type answerCase struct {
		name   string
		answer error
		block  bool // no answer before the caller's deadline
		down   bool // nothing listens
		want   string
		code   codes.Code
	}
	cases := []answerCase{
		{name: "ok", want: done},
		{name: "insufficient funds", answer: fault.New(fault.Precondition, "INSUFFICIENT_FUNDS", "not enough money"),
			want: refused, code: codes.FailedPrecondition},
		{name: "invalid", answer: fault.Invalidf("fee", "does not match the event's"), want: refused, code: codes.InvalidArgument},
		{name: "not found", answer: fault.NotFoundf("transfer", "no such entry"), want: refused, code: codes.NotFound},
		{name: "key reused", answer: fault.New(fault.Conflict, "IDEMPOTENCY_KEY_REUSED", "the key was used for another request"),
			want: refused, code: codes.AlreadyExists},
		{name: "forbidden", answer: fault.New(fault.Forbidden, "PERMISSION_DENIED", "not for this role"), want: refused,
			code: codes.PermissionDenied},
		{name: "out of range", answer: status.Error(codes.OutOfRange, "the pool holds less"), want: refused, code: codes.OutOfRange},
		// The wallet refused the tournament's own token (expired before
		// its renewal, a key being rolled), not the payment: no answer,
		// repeated; the player must not read a 401 as their own session
		// ending.
		{name: "unauthenticated", answer: fault.New(fault.Unauthenticated, "UNAUTHENTICATED", "token expired"), want: pending,
			code: codes.Unauthenticated},
		{name: "key busy", answer: fault.New(fault.Aborted, "IDEMPOTENCY_KEY_BUSY", "the same key is in flight"), want: pending,
			code: codes.Aborted},
		{name: "fenced out", answer: fault.New(fault.Aborted, "FENCED_OUT", "a newer epoch owns the event"), want: pending,
			code: codes.Aborted},
		{name: "unavailable", answer: fault.New(fault.Unavailable, "UNAVAILABLE", "the database is down"), want: pending,
			code: codes.Unavailable},
		{name: "internal", answer: errors.New("disk full"), want: pending, code: codes.Internal},
		{name: "no answer in time", block: true, want: pending, code: codes.DeadlineExceeded},
		{name: "wallet down", down: true, want: pending, code: codes.Unavailable},
	}
	// Every code as a bare status, read as the table's wallet adapter
	// reads it too: by the one rule (rpc.Refused).
	for code := codes.Canceled; code <= codes.Unauthenticated; code++ {
		sent := code
		if code == codes.Unknown || code == codes.DataLoss {
			sent = codes.Internal // the wallet's server masks them (rpc.ToStatus)
		}
		want := pending
		if rpc.Refused(status.Error(code, "")) {
			want = refused
		}
		cases = append(cases, answerCase{name: "code " + code.String(), answer: status.Error(code, "the wallet's answer"),
			want: want, code: sent})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := &answeringWallet{answer: c.answer, block: c.block}
			w, ctx := serveWallet(t, srv, c.down)
			for _, p := range payments {
				got, err := pay(ctx, w, p, c.block)
				if o := outcome(err); o != c.want {
					t.Errorf("%s: %s (%v), want %s", p.Kind, o, err, c.want)
				}
				if err != nil && status.Code(err) != c.code {
					t.Errorf("%s: code %s (%v), want %s", p.Kind, status.Code(err), err, c.code)
				}
				if want := map[bool]desk.Paid{true: paid[p.Kind]}[c.want == done]; got != want {
					t.Errorf("%s: paid %+v, want %+v", p.Kind, got, want)
				}
			}
			if c.down || c.block {
				return // not every call reached the wallet
			}
			srv.mu.Lock()
			defer srv.mu.Unlock()
			if len(srv.callers) != len(payments) {
				t.Errorf("the wallet was called %d times, want %d (one per step)", len(srv.callers), len(payments))
			}
			for _, who := range srv.callers {
				if who != "tournament as service" {
					t.Errorf("the wallet was called by %q, want the tournament service's own identity", who)
				}
			}
		})
	}
}

// pay pays p; block: giving up after 100 ms.
func pay(ctx context.Context, w *wallet.Client, p entry.Payment, block bool) (desk.Paid, error) {
	if block {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
	}
	return w.Pay(ctx, p)
}

// TestPayRefusesAnUnknownKind: a step of a kind the adapter does not know
// is refused without a call, never sent as another kind's.
func TestPayRefusesAnUnknownKind(t *testing.T) {
	t.Parallel()
	srv := &answeringWallet{}
	w, ctx := serveWallet(t, srv, false)
	for _, k := range []entry.Kind{entry.KindUnspecified, entry.PayBounty + 1} {
		if _, err := w.Pay(ctx, entry.Payment{Key: "trn/e1/x", Kind: k, EventID: "e1"}); outcome(err) != refused {
			t.Errorf("kind %s: %s (%v), want refused", k, outcome(err), err)
		}
	}
	if len(srv.callers) != 0 {
		t.Errorf("the wallet was called %d times, want none", len(srv.callers))
	}
}

// serveWallet serves srv as the wallet and returns the adapter over a
// client dialled as the tournament service dials it: with the service's
// own token for calls whose context carries none. down: the address
// answers nothing (the wallet is not running). The context it returns
// carries a player's token, which the adapter must not pass on.
func serveWallet(t *testing.T, srv walletv1.WalletServiceServer, down bool) (*wallet.Client, context.Context) {
	t.Helper()
	g := testkit.StartGRPC(t, func(r grpc.ServiceRegistrar) { walletv1.RegisterWalletServiceServer(r, srv) })
	conn := g.ServiceConn(t, "tournament")
	if down {
		conn = testkit.Unreachable(t)
	}
	return wallet.New(walletv1.NewWalletServiceClient(conn)), g.As(t, "ann", auth.Player)
}
