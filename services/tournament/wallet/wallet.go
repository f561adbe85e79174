// Package wallet is the tournament desk's adapter to the wallet service:
// it implements desk.Wallet over the generated WalletService client and
// classifies the wallet's errors in one place: a refusal by rpc.Refused's
// rule, the rule the table's wallet adapter follows too, is the wallet's
// (desk.PaymentRefused, nothing moved); anything else is no answer —
// Unauthenticated too: the wallet refused the service's own token, not the
// payment.
package wallet

import (
	"context"
	"fmt"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/rpc"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"github.com/cardroom/cardroom/services/tournament/desk"
	"github.com/cardroom/cardroom/services/tournament/entry"
)

// Client pays a tournament's saga steps through the wallet service.
type Client struct {
	c walletv1.WalletServiceClient
}

var _ desk.Wallet = (*Client)(nil)

// New returns a Client over c, which must be dialled with the service's
// own token (rpc.Options.ServiceToken): the tournament service pays, not
// the player, and the caller's token is dropped before each call.
func New(c walletv1.WalletServiceClient) *Client { return &Client{c: c} }

// Pay asks the wallet for one saga step under its idempotency key.
func (w *Client) Pay(ctx context.Context, p entry.Payment) (desk.Paid, error) {
	ctx = auth.WithToken(ctx, "")
	var (
		// paid is the answer of the kinds that answer with their transfer.
		paid     interface{ GetTransfer() *walletv1.Transfer }
		transfer *walletv1.Transfer
		total    int64
		err      error
	)
	switch p.Kind {
	case entry.PayEntry:
		paid, err = w.c.Enter(ctx, &walletv1.EnterRequest{IdempotencyKey: p.Key, PlayerId: p.PlayerID, EventId: p.EventID,
			Currency: p.Currency, PrizePart: p.PrizePart, Fee: p.Fee, VoucherId: p.VoucherID})
	case entry.PayRebuy:
		paid, err = w.c.Rebuy(ctx, &walletv1.RebuyRequest{IdempotencyKey: p.Key, PlayerId: p.PlayerID, EventId: p.EventID,
			Currency: p.Currency, PrizePart: p.PrizePart, Fee: p.Fee})
	case entry.PayAddOn:
		paid, err = w.c.AddOn(ctx, &walletv1.AddOnRequest{IdempotencyKey: p.Key, PlayerId: p.PlayerID, EventId: p.EventID,
			Currency: p.Currency, PrizePart: p.PrizePart, Fee: p.Fee})
	case entry.PayPrize, entry.PayBounty:
		// A bounty (G-36) leaves the event's pool like a prize, at place 0.
		paid, err = w.c.PayPrize(ctx, &walletv1.PayPrizeRequest{IdempotencyKey: p.Key, PlayerId: p.PlayerID, EventId: p.EventID,
			Currency: p.Currency, Amount: p.Amount, Place: int32(p.Place)})
	case entry.PayVoucher:
		var r *walletv1.IssueVoucherResponse
		r, err = w.c.IssueVoucher(ctx, &walletv1.IssueVoucherRequest{IdempotencyKey: p.Key, PlayerId: p.PlayerID,
			SourceEventId: p.EventID, TargetEventId: p.TargetEventID, Currency: p.Currency, Amount: p.Amount})
		transfer = &walletv1.Transfer{TransferId: r.GetVoucher().GetTransferId()}
	case entry.RefundEntry:
		var r *walletv1.RefundEntryResponse
		r, err = w.c.RefundEntry(ctx, &walletv1.RefundEntryRequest{IdempotencyKey: p.Key, EventId: p.EventID, PlayerId: p.PlayerID,
			TransferId: p.RefundOf, Reason: p.Note})
		transfer, total = r.GetTransfer(), r.GetTransfer().GetAmount()
	case entry.SettlePool:
		paid, err = w.c.SettlePrizePool(ctx, &walletv1.SettlePrizePoolRequest{IdempotencyKey: p.Key, EventId: p.EventID, Currency: p.Currency,
			Amount: p.Amount, PlayerId: p.PlayerID, Reason: p.Note, ToEventId: p.TargetEventID})
	case entry.RefundEvent:
		var r *walletv1.RefundResponse
		r, err = w.c.Refund(ctx, &walletv1.RefundRequest{IdempotencyKey: p.Key, EventId: p.EventID, Reason: p.Note})
		total = r.GetTotal()
	default:
		return desk.Paid{}, &desk.PaymentRefused{Err: fmt.Errorf("payment %s: unknown kind %s", p.Key, p.Kind)}
	}
	switch {
	case err == nil:
		if paid != nil {
			transfer = paid.GetTransfer()
		}
		return desk.Paid{TransferID: transfer.GetTransferId(), Total: total}, nil
	case rpc.Refused(err):
		// Its status (reason, rule) goes back to the caller as it is.
		return desk.Paid{}, &desk.PaymentRefused{Err: fmt.Errorf("wallet %s %s: %w", p.Kind, p.Key, err)}
	}
	return desk.Paid{}, err
}
