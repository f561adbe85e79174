package server

import (
	"context"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/fault"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/desk"
)

// ErrNotYourEntry refuses a player acting for another player's entry.
var ErrNotYourEntry = fault.Rule(fault.Forbidden, "TR-05", "ENTRY_NOT_PERSONAL", "a player may act only for their own entry")

// actFor lets a request acting as a player act only for themselves; one
// acting in any other role the RPC allows (cashier, floor, admin) acts
// for anyone. The role is the one platform/rpc chose for the request, so a
// token that also holds a staff role acts as the player on these routes.
func actFor(ctx context.Context, player string) error {
	c, ok := auth.FromContext(ctx)
	if !ok {
		return fault.New(fault.Unauthenticated, "UNAUTHENTICATED", "no caller")
	}
	if c.Is(auth.Player) && c.Subject != player {
		return ErrNotYourEntry.With("player_id", player)
	}
	return nil
}

// asPlayer returns the caller's subject when the request acts as a player:
// such a caller sees the money of their own entry alone.
func asPlayer(ctx context.Context) (string, bool) {
	c, ok := auth.FromContext(ctx)
	if !ok || !c.Is(auth.Player) {
		return "", false
	}
	return c.Subject, true
}

// actor is the caller's subject for the audit log.
func actor(ctx context.Context) string {
	p, _ := auth.FromContext(ctx)
	return p.Subject
}

// withMoney is the entry with its money.
func withMoney(en desk.Entry) *tournamentv1.Entry {
	pb := entryToProto(en.Entry)
	pb.Paid, pb.RefundTransferId = en.Paid, en.RefundTransferID
	return pb
}

// ListEntries lists the entries in registration order with their money:
// what each player paid, the transfers that paid and refunded it. A
// request acting as a player sees those fields on its own entry only.
func (s *Server) ListEntries(ctx context.Context, req *tournamentv1.ListEntriesRequest) (*tournamentv1.ListEntriesResponse, error) {
	ens, err := s.desk.Entries(ctx, req.GetTournamentId())
	if err != nil {
		return nil, err
	}
	viewer, player := asPlayer(ctx)
	resp := &tournamentv1.ListEntriesResponse{}
	for _, en := range ens {
		pb := withMoney(en)
		if player && en.PlayerID != viewer {
			pb.TransferId, pb.Paid, pb.RefundTransferId = "", 0, ""
		}
		resp.Entries = append(resp.Entries, pb)
	}
	return resp, nil
}

// SettlePrizePool moves what a finished event's prize pool holds beyond
// the prizes paid to a player or the house (TR-34, G-24; desk.SettlePool).
func (s *Server) SettlePrizePool(ctx context.Context, req *tournamentv1.SettlePrizePoolRequest) (*tournamentv1.SettlePrizePoolResponse, error) {
	out, err := s.desk.SettlePool(ctx, req.GetTournamentId(), req.GetPlayerId(), req.GetReason(), actor(ctx))
	if err != nil {
		return nil, err
	}
	return &tournamentv1.SettlePrizePoolResponse{Amount: out.Amount, PlayerId: out.PlayerID, TransferId: out.TransferID}, nil
}

// RegisterPlayer enters a player, paying through the wallet (TR-04,
// G-23; desk.Register).
func (s *Server) RegisterPlayer(ctx context.Context, req *tournamentv1.RegisterPlayerRequest) (*tournamentv1.RegisterPlayerResponse, error) {
	if err := actFor(ctx, req.GetPlayerId()); err != nil {
		return nil, err
	}
	en, err := s.desk.Register(ctx, req.GetTournamentId(), req.GetPlayerId(), req.GetVoucherId())
	if err != nil {
		return nil, err
	}
	return &tournamentv1.RegisterPlayerResponse{Entry: withMoney(en)}, nil
}

// UnregisterPlayer withdraws an entry before the start and refunds it
// (TR-04; desk.Unregister).
func (s *Server) UnregisterPlayer(ctx context.Context, req *tournamentv1.UnregisterPlayerRequest) (*tournamentv1.UnregisterPlayerResponse, error) {
	if err := actFor(ctx, req.GetPlayerId()); err != nil {
		return nil, err
	}
	en, err := s.desk.Unregister(ctx, req.GetTournamentId(), req.GetPlayerId())
	if err != nil {
		return nil, err
	}
	return &tournamentv1.UnregisterPlayerResponse{Entry: withMoney(en)}, nil
}

// Rebuy decides and pays a rebuy (TR-13…TR-16, G-23).
func (s *Server) Rebuy(ctx context.Context, req *tournamentv1.RebuyRequest) (*tournamentv1.RebuyResponse, error) {
	en, chips, err := s.desk.Rebuy(ctx, req.GetTournamentId(), req.GetPlayerId(),
		desk.Purchase{Stack: req.GetStack(), HandsSincePeriodEnd: req.GetHandsSincePeriodEnd()})
	if err != nil {
		return nil, err
	}
	return &tournamentv1.RebuyResponse{Entry: entryToProto(en), Chips: chips}, nil
}

// AddOn decides and pays the add-on, with a rebuy first for an empty
// stack (TR-17, G-23).
func (s *Server) AddOn(ctx context.Context, req *tournamentv1.AddOnRequest) (*tournamentv1.AddOnResponse, error) {
	en, chips, err := s.desk.AddOn(ctx, req.GetTournamentId(), req.GetPlayerId(),
		desk.Purchase{Stack: req.GetStack(), HandsSincePeriodEnd: req.GetHandsSincePeriodEnd(), WithRebuy: req.GetWithRebuy()})
	if err != nil {
		return nil, err
	}
	return &tournamentv1.AddOnResponse{Entry: entryToProto(en), Chips: chips}, nil
}

// LeaveTournament marks the player as gone (TR-35).
func (s *Server) LeaveTournament(ctx context.Context, req *tournamentv1.LeaveTournamentRequest) (*tournamentv1.LeaveTournamentResponse, error) {
	if err := actFor(ctx, req.GetPlayerId()); err != nil {
		return nil, err
	}
	en, err := s.desk.Leave(ctx, req.GetTournamentId(), req.GetPlayerId())
	if err != nil {
		return nil, err
	}
	return &tournamentv1.LeaveTournamentResponse{Entry: entryToProto(en)}, nil
}
