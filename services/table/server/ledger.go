package server

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table/runner"
	"github.com/cardroom/cardroom/services/table/store"
)

// Ledger implements tablev1.CashTableLedgerServiceServer: what the wallet
// asks about the cash tables whose chips it keeps (issued epochs, chip
// counts with the pending wallet steps). Any replica answers, from the
// store.
type Ledger struct {
	tablev1.UnimplementedCashTableLedgerServiceServer
	s *Server
}

// Ledger returns the server of the wallet's questions, over the same store
// and runner as s.
func (s *Server) Ledger() *Ledger { return &Ledger{s: s} }

// GetIssuedEpoch returns the highest fencing epoch issued for a table.
func (l *Ledger) GetIssuedEpoch(ctx context.Context, r *tablev1.GetIssuedEpochRequest) (*tablev1.GetIssuedEpochResponse, error) {
	epoch, err := l.s.runner.IssuedEpoch(ctx, r.GetTableId())
	if err != nil {
		return nil, err
	}
	return &tablev1.GetIssuedEpochResponse{Epoch: epoch}, nil
}

// CountCashChips counts the chips and pending wallet steps of the cash tables.
func (l *Ledger) CountCashChips(ctx context.Context, _ *tablev1.CountCashChipsRequest) (*tablev1.CountCashChipsResponse, error) {
	counts, err := l.s.runner.CountCash(ctx)
	if err != nil {
		return nil, err
	}
	out := &tablev1.CountCashChipsResponse{Tables: make([]*tablev1.CashTableCount, 0, len(counts))}
	for _, c := range counts {
		t := &tablev1.CashTableCount{TableId: c.Table, Currency: c.Currency, Closed: c.Closed, Chips: c.Chips}
		for _, m := range c.Pending {
			pm := &tablev1.PendingMoneyMove{Key: m.Key, Kind: moveKinds[m.Kind], PlayerId: m.Player, Seat: int32(m.Seat), Amount: m.Amount,
				HoldId: m.HoldID, SittingId: m.Sitting, Attempts: int32(m.Attempts), Stuck: m.Attempts >= runner.StuckAfter,
				LastError: m.LastError, CreateTime: timestamppb.New(m.Created)}
			if !m.LastAttempt.IsZero() {
				pm.LastAttemptTime = timestamppb.New(m.LastAttempt)
			}
			t.Pending = append(t.Pending, pm)
		}
		out.Tables = append(out.Tables, t)
	}
	return out, nil
}

var moveKinds = map[string]tablev1.MoneyMoveKind{
	store.MoveBuyIn:   tablev1.MoneyMoveKind_MONEY_MOVE_KIND_BUY_IN,
	store.MoveTopUp:   tablev1.MoneyMoveKind_MONEY_MOVE_KIND_TOP_UP,
	store.MoveCashOut: tablev1.MoneyMoveKind_MONEY_MOVE_KIND_CASH_OUT,
}
