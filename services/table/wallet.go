package table

import (
	"context"
	"fmt"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/rpc"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"github.com/cardroom/cardroom/services/table/runner"
	"github.com/cardroom/cardroom/services/table/tablepb"
)

// Wallet is the runner's wallet over the wallet service's gRPC client, and
// the one place its answers are classified: a refusal by rpc.Refused's rule
// is the wallet's answer (runner.WalletRefused); any other error is no
// answer — Aborted too: the wallet lost a race (a newer owner's epoch, a
// request under the same key still in flight) and the step may yet go
// through.
type Wallet struct {
	Client walletv1.WalletServiceClient
}

var _ runner.Wallet = Wallet{}

// serviceContext drops the caller's bearer token, so that calls to the
// wallet go out with the table service's own identity (the wallet's table
// RPCs are for the service role) while the trace carries on.
func serviceContext(ctx context.Context) context.Context { return auth.WithToken(ctx, "") }

// Escrow is true: a cash table's chips are money in the wallet's escrow.
func (Wallet) Escrow() bool { return true }

// SitDown buys a seat in one call. Its refusals are the wallet's buy-in
// rules (CS-01 and the rest) and name them as a refused hold did.
func (w Wallet) SitDown(ctx context.Context, s runner.SitDown) error {
	_, err := w.Client.SitDown(serviceContext(ctx), &walletv1.SitDownRequest{IdempotencyKey: s.Key, TableId: s.Table, Epoch: s.Epoch,
		PlayerId: s.Player, Seat: int32(s.Seat), Currency: s.Currency, Game: tablepb.GameToProto(s.Game), Amount: s.Amount, SittingId: s.Sitting})
	return classify(err)
}

// Hold holds a buy-in or top-up.
func (w Wallet) Hold(ctx context.Context, h runner.Hold) (string, error) {
	resp, err := w.Client.HoldBuyIn(serviceContext(ctx), &walletv1.HoldBuyInRequest{IdempotencyKey: h.Key, TableId: h.Table, Epoch: h.Epoch,
		PlayerId: h.Player, Seat: int32(h.Seat), Currency: h.Currency, Game: tablepb.GameToProto(h.Game), Stack: h.Stack, Amount: h.Amount, SittingId: h.Sitting})
	return resp.GetHold().GetHoldId(), classify(err)
}

// Commit commits a hold, naming its player (which lets the wallet
// pipeline the commit with other buy-ins). One committed before is
// committed: the retry came after the wallet forgot the commit's key
// (pruned), ran again and found the hold committed; nothing else commits
// a table's hold.
func (w Wallet) Commit(ctx context.Context, s runner.Step, holdID, player string) error {
	_, err := w.Client.CommitHold(serviceContext(ctx), &walletv1.CommitHoldRequest{IdempotencyKey: s.Key, TableId: s.Table, Epoch: s.Epoch,
		HoldId: holdID, PlayerId: player})
	if holdState(err) == "committed" {
		return nil
	}
	return classify(err)
}

// Release releases a hold; the wallet's refusal naming the hold released,
// expired or committed is that answer.
func (w Wallet) Release(ctx context.Context, s runner.Step, holdID string) (committed bool, err error) {
	_, err = w.Client.ReleaseHold(serviceContext(ctx), &walletv1.ReleaseHoldRequest{IdempotencyKey: s.Key, TableId: s.Table, Epoch: s.Epoch,
		HoldId: holdID})
	switch holdState(err) {
	case "committed":
		return true, nil
	case "released", "expired":
		return false, nil
	}
	return false, classify(err)
}

// CashOut pays a stack out of the table's escrow.
func (w Wallet) CashOut(ctx context.Context, s runner.Step, c runner.CashOut) error {
	_, err := w.Client.CashOut(serviceContext(ctx), &walletv1.CashOutRequest{IdempotencyKey: s.Key, TableId: s.Table, Epoch: s.Epoch,
		PlayerId: c.Player, Currency: c.Currency, Stack: c.Stack, SittingId: c.Sitting, Seat: int32(c.Seat)})
	return classify(err)
}

func classify(err error) error {
	if rpc.Refused(err) {
		r := &runner.WalletRefused{Err: err}
		if b, merr := protojson.Marshal(status.Convert(err).Proto()); merr == nil {
			r.Record = string(b)
		}
		return r
	}
	return err
}

// Refused is the wallet's refusal kept as classify recorded it: the
// status the wallet answered, rule and reason with it.
func (Wallet) Refused(record string) error {
	var st spb.Status
	if err := protojson.Unmarshal([]byte(record), &st); err != nil {
		return fmt.Errorf("read the wallet's refusal kept with a buy-in: %w", err)
	}
	return status.ErrorProto(&st)
}

// holdState is the state the wallet names when it refuses to settle a hold
// that is no longer held (HOLD_NOT_HELD), or "".
func holdState(err error) string {
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetReason() == "HOLD_NOT_HELD" {
			return info.GetMetadata()["state"]
		}
	}
	return ""
}
