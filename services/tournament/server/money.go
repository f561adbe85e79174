package server

import (
	"context"
	"strconv"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/fault"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// asPlayer returns the caller's subject when the request acts as a player:
// such a caller sees the money of their own entry alone.
func asPlayer(ctx context.Context) (string, bool) {
	c, ok := auth.FromContext(ctx)
	if !ok || !c.Is(auth.Player) {
		return "", false
	}
	return c.Subject, true
}

// money is what one player has paid into an event and got back.
type money struct {
	paid   int64
	refund string // the last entry refund's transfer
}

// moneyByPlayer sums each player's entries, rebuys and add-ons the wallet
// took, less the entries it refunded (TR-04).
func moneyByPlayer(recs []store.PaymentRecord) map[string]money {
	out := map[string]money{}
	for _, r := range recs {
		m := out[r.PlayerID]
		switch {
		case r.Kind == entry.RefundEntry && r.State == store.PaymentDone:
			m.paid -= r.PrizePart + r.Fee
			m.refund = r.TransferID
		case r.Kind != entry.RefundEntry && (r.State == store.PaymentDone || r.State == store.PaymentWithdrawn):
			m.paid += r.PrizePart + r.Fee
		}
		out[r.PlayerID] = m
	}
	return out
}

// money returns what each player paid into the event and got back.
func (s *Server) money(ctx context.Context, id string) (map[string]money, error) {
	recs, err := s.store.Payments(ctx, id, int(entry.PayEntry), int(entry.PayRebuy), int(entry.PayAddOn), int(entry.RefundEntry))
	if err != nil {
		return nil, err
	}
	return moneyByPlayer(recs), nil
}

// withMoney is the entry with its money; a cancelled event's refund gave
// everything back.
func withMoney(en entry.Entry, paid map[string]money) *tournamentv1.Entry {
	pb := entryToProto(en)
	if m := paid[en.PlayerID]; en.Status != entry.Refunded {
		pb.Paid, pb.RefundTransferId = m.paid, m.refund
	}
	return pb
}

// entryWithMoney answers a request about one entry — the player's own, or
// staff acting on it — with its money.
func (s *Server) entryWithMoney(ctx context.Context, id string, en entry.Entry) (*tournamentv1.Entry, error) {
	paid, err := s.money(ctx, id)
	if err != nil {
		return nil, err
	}
	return withMoney(en, paid), nil
}

// ListEntries lists the entries in registration order with their money:
// what each player paid, the transfers that paid and refunded it. A
// request acting as a player sees those fields on its own entry only.
func (s *Server) ListEntries(ctx context.Context, req *tournamentv1.ListEntriesRequest) (*tournamentv1.ListEntriesResponse, error) {
	id := req.GetTournamentId()
	ens, err := s.store.Entries(ctx, id)
	if err != nil {
		return nil, err
	}
	paid, err := s.money(ctx, id)
	if err != nil {
		return nil, err
	}
	viewer, player := asPlayer(ctx)
	resp := &tournamentv1.ListEntriesResponse{}
	for _, en := range ens {
		pb := withMoney(en, paid)
		if player && en.PlayerID != viewer {
			pb.TransferId, pb.Paid, pb.RefundTransferId = "", 0, ""
		}
		resp.Entries = append(resp.Entries, pb)
	}
	return resp, nil
}

// Settlement failures (TR-34, G-24).
var (
	ErrPrizesNotPaid   = fault.Rule(fault.Precondition, "TR-34", "PRIZES_NOT_PAID", "the pool is settled once the event is over and every prize is paid")
	ErrNothingToSettle = fault.Rule(fault.Precondition, "TR-34", "NOTHING_TO_SETTLE", "the prize pool holds nothing beyond the prizes paid")
)

// SettlePrizePool moves what a finished event's prize pool holds beyond
// the prizes paid — a prize withheld from an expelled player (TR-34), a
// satellite's remainder (G-24) — to a player or the house. The step, its
// amount and the audit record are written in one transaction; the wallet
// is then asked under the step's key. A settlement still pending is
// finished by the same call, never made twice.
func (s *Server) SettlePrizePool(ctx context.Context, req *tournamentv1.SettlePrizePoolRequest) (*tournamentv1.SettlePrizePoolResponse, error) {
	id := req.GetTournamentId()
	now := s.now()
	var pay entry.Payment
	err := s.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		ps, err := tx.PendingPayments("")
		if err != nil {
			return err
		}
		for _, p := range ps {
			if p.Kind == entry.SettlePool {
				pay = p.Payment
				return nil
			}
		}
		if t.Event.Status != event.Finished {
			return ErrPrizesNotPaid.Withf("the tournament is %s", stateToProto[t.Event.Status])
		}
		pool, _, err := tx.Contributions()
		if err != nil {
			return err
		}
		out, settlements, err := tx.PaidOut()
		if err != nil {
			return err
		}
		left := pool - out
		if left <= 0 {
			return ErrNothingToSettle.With("prize_pool", strconv.FormatInt(pool, 10), "paid_out", strconv.FormatInt(out, 10))
		}
		pay = entry.Settlement(t.Event, left, settlements+1, req.GetPlayerId(), req.GetReason())
		if err := tx.AddPayment(pay, 0, now); err != nil {
			return err
		}
		return tx.AddAudit(actor(ctx), "settle_pool", map[string]any{"amount": left, "player_id": pay.PlayerID,
			"reason": pay.Note, "idempotency_key": pay.Key, "prize_pool": pool, "paid_out": out}, now)
	})
	if err != nil {
		return nil, err
	}
	if _, _, err := s.settle(ctx, id, []entry.Payment{pay}); err != nil {
		return nil, err
	}
	resp := &tournamentv1.SettlePrizePoolResponse{Amount: pay.Amount, PlayerId: pay.PlayerID}
	recs, err := s.store.Payments(ctx, id, int(entry.SettlePool))
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if r.Key == pay.Key {
			resp.TransferId = r.TransferID
		}
	}
	return resp, nil
}
