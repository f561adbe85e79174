// Package tables is the wallet's adapter to the table service
// (CashTableLedgerService): which fencing epochs it issued, and its count
// of the cash tables' chips for the audit. It speaks gRPC and classifies
// the table service's errors for the bank.
package tables

import (
	"context"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/fault"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/wallet/ledger"
	"github.com/cardroom/cardroom/services/wallet/reconcile"
)

// Client asks the table service; dial it with the wallet's service token.
type Client struct {
	c tablev1.CashTableLedgerServiceClient
}

// New returns a Client over c.
func New(c tablev1.CashTableLedgerServiceClient) *Client { return &Client{c: c} }

// asWallet drops the caller's bearer token (a cashier's, for the audit),
// so that the call goes out with the wallet's own service token while the
// trace carries on: the table service answers the service role only.
func asWallet(ctx context.Context) context.Context { return auth.WithToken(ctx, "") }

// errUnreachable is the table service not answering: the wallet cannot
// verify an epoch or count the tables now; the caller retries.
var errUnreachable = fault.New(fault.Unavailable, "UNAVAILABLE", "the table service cannot be reached; retry")

func classify(op string, err error) error {
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled, codes.ResourceExhausted, codes.Aborted:
		return errUnreachable.Withf("%s: %v", op, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// IssuedEpoch returns the highest epoch the table service issued for
// table; an unknown table has issued none (0).
func (c *Client) IssuedEpoch(ctx context.Context, table string) (int64, error) {
	resp, err := c.c.GetIssuedEpoch(asWallet(ctx), &tablev1.GetIssuedEpochRequest{TableId: table})
	if status.Code(err) == codes.NotFound {
		return 0, nil
	}
	if err != nil {
		return 0, classify("issued epoch of "+table, err)
	}
	return resp.GetEpoch(), nil
}

var kinds = map[tablev1.MoneyMoveKind]reconcile.MoveKind{
	tablev1.MoneyMoveKind_MONEY_MOVE_KIND_BUY_IN:   reconcile.BuyIn,
	tablev1.MoneyMoveKind_MONEY_MOVE_KIND_TOP_UP:   reconcile.TopUp,
	tablev1.MoneyMoveKind_MONEY_MOVE_KIND_CASH_OUT: reconcile.CashOut,
}

// CountCash returns the table service's count of its cash tables.
func (c *Client) CountCash(ctx context.Context) ([]reconcile.TableCount, error) {
	resp, err := c.c.CountCashChips(asWallet(ctx), &tablev1.CountCashChipsRequest{})
	if err != nil {
		return nil, classify("count the cash tables' chips", err)
	}
	out := make([]reconcile.TableCount, 0, len(resp.GetTables()))
	for _, t := range resp.GetTables() {
		tc := reconcile.TableCount{Table: t.GetTableId(), Currency: ledger.Currency(t.GetCurrency()), Closed: t.GetClosed(), Chips: t.GetChips()}
		for _, m := range t.GetPending() {
			mv := reconcile.Move{Key: m.GetKey(), Kind: kinds[m.GetKind()], Player: m.GetPlayerId(), Seat: int(m.GetSeat()), Amount: m.GetAmount(),
				Hold: m.GetHoldId(), Sitting: m.GetSittingId(), Attempts: int(m.GetAttempts()), Stuck: m.GetStuck(), LastError: m.GetLastError(),
				Created: m.GetCreateTime().AsTime()}
			if m.GetLastAttemptTime() != nil {
				mv.LastAttempt = m.GetLastAttemptTime().AsTime()
			}
			tc.Pending = append(tc.Pending, mv)
		}
		out = append(out, tc)
	}
	return out, nil
}

// Terms are what a cash table plays for, as the table service says: what
// the buy-in check needs so that a client need not send it.
type Terms struct {
	// Currency is the table's currency.
	Currency string
	// Game is the table's game (structure and stakes).
	Game *gamev1.Game
	// Seated is true when the player sits at the table; Stack is then their
	// stack there now plus chips bought during the hand (G-19, CS-07), as
	// the table passes it with a top-up.
	Seated bool
	Stack  int64
}

// Info reads tables from the table service's TableService: GetTable for
// the table's terms (any replica answers, from the store) and, for a
// seated player, GetTableState for the stack now (the owner answers).
type Info struct {
	c tablev1.TableServiceClient
}

// NewInfo returns an Info over c.
func NewInfo(c tablev1.TableServiceClient) *Info { return &Info{c: c} }

// BuyInTerms returns the terms of table for player; found is false for a
// table the table service does not know.
func (i *Info) BuyInTerms(ctx context.Context, table, player string) (t Terms, found bool, err error) {
	ctx = asWallet(ctx)
	resp, err := i.c.GetTable(ctx, &tablev1.GetTableRequest{TableId: table})
	// An id the table service refuses as malformed names no table it has.
	if c := status.Code(err); c == codes.NotFound || c == codes.InvalidArgument {
		return Terms{}, false, nil
	}
	if err != nil {
		return Terms{}, false, classify("read table "+table, err)
	}
	tb := resp.GetTable()
	t = Terms{Currency: tb.GetCurrency(), Game: tb.GetGame()}
	for _, s := range tb.GetSeatMap() {
		t.Seated = t.Seated || s.GetPlayerId() == player
	}
	if !t.Seated {
		return t, true, nil
	}
	// The listing's stacks are those at the start of the hand in progress;
	// the cap is on the stack now (G-19).
	st, err := i.c.GetTableState(ctx, &tablev1.GetTableStateRequest{TableId: table})
	if err != nil {
		return Terms{}, false, classify("read the state of table "+table, err)
	}
	t.Seated = false
	for _, s := range st.GetState().GetSeats() {
		if s.GetPlayerId() == player {
			t.Seated, t.Stack = true, s.GetStack()+s.GetPendingChips()
		}
	}
	return t, true, nil
}
