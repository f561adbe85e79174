package server

import (
	"context"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/fault"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"github.com/cardroom/cardroom/services/tournament/entry"
)

// ErrPaymentPending tells the caller that the wallet did not answer; the
// step is recorded and the same call finishes it.
var ErrPaymentPending = fault.New(fault.Unavailable, "PAYMENT_PENDING", "the wallet did not answer; repeat the request to finish the payment")

// outcome is the wallet's answer to one step.
type outcome struct {
	done       bool // the money moved
	refused    bool // the wallet refused for good; nothing moved
	transferID string
	total      int64 // refunds
	err        error
}

// serviceContext drops the caller's token so the wallet client sends the
// service's own: the tournament service pays, not the player.
func serviceContext(ctx context.Context) context.Context { return auth.WithToken(ctx, "") }

// pay asks the wallet for one saga step under its idempotency key. With
// no wallet the step succeeds at once (tests without money).
func (s *Server) pay(ctx context.Context, p entry.Payment) outcome {
	if s.wallet == nil {
		return outcome{done: true}
	}
	ctx = serviceContext(ctx)
	var (
		transfer *walletv1.Transfer
		total    int64
		err      error
	)
	switch p.Kind {
	case entry.PayEntry:
		var r *walletv1.EnterResponse
		r, err = s.wallet.Enter(ctx, &walletv1.EnterRequest{IdempotencyKey: p.Key, PlayerId: p.PlayerID, EventId: p.EventID,
			Currency: p.Currency, PrizePart: p.PrizePart, Fee: p.Fee, VoucherId: p.VoucherID})
		transfer = r.GetTransfer()
	case entry.PayRebuy:
		var r *walletv1.RebuyResponse
		r, err = s.wallet.Rebuy(ctx, &walletv1.RebuyRequest{IdempotencyKey: p.Key, PlayerId: p.PlayerID, EventId: p.EventID,
			Currency: p.Currency, PrizePart: p.PrizePart, Fee: p.Fee})
		transfer = r.GetTransfer()
	case entry.PayAddOn:
		var r *walletv1.AddOnResponse
		r, err = s.wallet.AddOn(ctx, &walletv1.AddOnRequest{IdempotencyKey: p.Key, PlayerId: p.PlayerID, EventId: p.EventID,
			Currency: p.Currency, PrizePart: p.PrizePart, Fee: p.Fee})
		transfer = r.GetTransfer()
	case entry.PayPrize, entry.PayBounty:
		// A bounty (G-36) leaves the event's pool like a prize, at place 0.
		var r *walletv1.PayPrizeResponse
		r, err = s.wallet.PayPrize(ctx, &walletv1.PayPrizeRequest{IdempotencyKey: p.Key, PlayerId: p.PlayerID, EventId: p.EventID,
			Currency: p.Currency, Amount: p.Amount, Place: int32(p.Place)})
		transfer = r.GetTransfer()
	case entry.PayVoucher:
		var r *walletv1.IssueVoucherResponse
		r, err = s.wallet.IssueVoucher(ctx, &walletv1.IssueVoucherRequest{IdempotencyKey: p.Key, PlayerId: p.PlayerID,
			SourceEventId: p.EventID, TargetEventId: p.TargetEventID, Currency: p.Currency, Amount: p.Amount})
		transfer = &walletv1.Transfer{TransferId: r.GetVoucher().GetTransferId()}
	case entry.RefundEntry:
		var r *walletv1.RefundEntryResponse
		r, err = s.wallet.RefundEntry(ctx, &walletv1.RefundEntryRequest{IdempotencyKey: p.Key, EventId: p.EventID, PlayerId: p.PlayerID,
			TransferId: p.RefundOf, Reason: p.Note})
		transfer, total = r.GetTransfer(), r.GetTransfer().GetAmount()
	case entry.SettlePool:
		var r *walletv1.SettlePrizePoolResponse
		r, err = s.wallet.SettlePrizePool(ctx, &walletv1.SettlePrizePoolRequest{IdempotencyKey: p.Key, EventId: p.EventID, Currency: p.Currency,
			Amount: p.Amount, PlayerId: p.PlayerID, Reason: p.Note, ToEventId: p.TargetEventID})
		transfer = r.GetTransfer()
	case entry.RefundEvent:
		var r *walletv1.RefundResponse
		r, err = s.wallet.Refund(ctx, &walletv1.RefundRequest{IdempotencyKey: p.Key, EventId: p.EventID, Reason: p.Note})
		total = r.GetTotal()
	default:
		return outcome{refused: true, err: fmt.Errorf("payment %s: unknown kind %s", p.Key, p.Kind)}
	}
	if err == nil {
		return outcome{done: true, transferID: transfer.GetTransferId(), total: total}
	}
	switch status.Code(err) {
	case codes.InvalidArgument, codes.FailedPrecondition, codes.NotFound, codes.PermissionDenied, codes.AlreadyExists,
		codes.OutOfRange, codes.Unauthenticated:
		// The wallet decided: nothing moved. Its status (reason, rule) goes
		// back to the caller as it is.
		return outcome{refused: true, err: fmt.Errorf("wallet %s %s: %w", p.Kind, p.Key, err)}
	}
	return outcome{err: ErrPaymentPending.Wrap(err).With("idempotency_key", p.Key)}
}
