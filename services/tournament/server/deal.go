package server

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/deal"
)

var dealMethods = map[tournamentv1.DealMethod]deal.Method{
	tournamentv1.DealMethod_DEAL_METHOD_ICM:       deal.MethodICM,
	tournamentv1.DealMethod_DEAL_METHOD_CHIP_CHOP: deal.MethodChipChop,
	tournamentv1.DealMethod_DEAL_METHOD_CUSTOM:    deal.MethodCustom,
}

var dealStates = map[deal.State]tournamentv1.DealState{
	deal.Proposed:  tournamentv1.DealState_DEAL_STATE_PROPOSED,
	deal.Declined:  tournamentv1.DealState_DEAL_STATE_DECLINED,
	deal.Confirmed: tournamentv1.DealState_DEAL_STATE_CONFIRMED,
}

func dealToProto(d deal.Proposal) *tournamentv1.Deal {
	pb := &tournamentv1.Deal{DealId: int32(d.ID), State: dealStates[d.State], Prizes: d.Prizes, ProposedBy: d.ProposedBy,
		ConfirmedBy: d.ConfirmedBy, CreateTime: timestamppb.New(d.Created)}
	for m, v := range dealMethods {
		if v == d.Method {
			pb.Method = m
		}
	}
	if !d.Confirmed.IsZero() {
		pb.ConfirmTime = timestamppb.New(d.Confirmed)
	}
	for _, p := range d.Players {
		dp := &tournamentv1.DealPlayer{PlayerId: p.PlayerID, Stack: p.Stack, Amount: p.Amount, Agreed: p.Agreed, Declined: p.Declined}
		if !p.Answered.IsZero() {
			dp.AnswerTime = timestamppb.New(p.Answered)
		}
		pb.Players = append(pb.Players, dp)
	}
	return pb
}

// CalculateDeal shows ICM and the chip chop for the players still in,
// with their stacks as the tables hold them now (TR-38).
func (s *Server) CalculateDeal(ctx context.Context, req *tournamentv1.CalculateDealRequest) (*tournamentv1.CalculateDealResponse, error) {
	q, err := s.desk.CalculateDeal(ctx, req.GetTournamentId())
	if err != nil {
		return nil, err
	}
	resp := &tournamentv1.CalculateDealResponse{Prizes: q.Prizes, IcmAvailable: q.ICM != nil}
	for i, p := range q.Players {
		quote := &tournamentv1.DealQuote{PlayerId: p.PlayerID, Stack: p.Stack, ChipChop: q.ChipChop[i]}
		if q.ICM != nil {
			quote.Icm = q.ICM[i]
		}
		resp.Players = append(resp.Players, quote)
	}
	return resp, nil
}

// ProposeDeal holds the tables and records a proposal over the prizes
// left (TR-38; desk.ProposeDeal).
func (s *Server) ProposeDeal(ctx context.Context, req *tournamentv1.ProposeDealRequest) (*tournamentv1.ProposeDealResponse, error) {
	custom := map[string]int64{}
	for _, sh := range req.GetShares() {
		custom[sh.GetPlayerId()] = sh.GetAmount()
	}
	d, err := s.desk.ProposeDeal(ctx, req.GetTournamentId(), dealMethods[req.GetMethod()], custom, req.GetReason(), actor(ctx))
	if err != nil {
		return nil, err
	}
	return &tournamentv1.ProposeDealResponse{Deal: dealToProto(d)}, nil
}

// AgreeDeal records a player's answer; a refusal lets the tables deal
// again.
func (s *Server) AgreeDeal(ctx context.Context, req *tournamentv1.AgreeDealRequest) (*tournamentv1.AgreeDealResponse, error) {
	if err := actFor(ctx, req.GetPlayerId()); err != nil {
		return nil, err
	}
	d, err := s.desk.AgreeDeal(ctx, req.GetTournamentId(), int(req.GetDealId()), req.GetPlayerId(), req.GetAgree(), actor(ctx))
	if err != nil {
		return nil, err
	}
	return &tournamentv1.AgreeDealResponse{Deal: dealToProto(d)}, nil
}

// ConfirmDeal confirms a deal every player agreed to and pays it (TR-38,
// G-37; desk.ConfirmDeal).
func (s *Server) ConfirmDeal(ctx context.Context, req *tournamentv1.ConfirmDealRequest) (*tournamentv1.ConfirmDealResponse, error) {
	d, err := s.desk.ConfirmDeal(ctx, req.GetTournamentId(), int(req.GetDealId()), req.GetReason(), actor(ctx))
	if err != nil {
		return nil, err
	}
	return &tournamentv1.ConfirmDealResponse{Deal: dealToProto(d)}, nil
}

// GetDeal returns the last proposal.
func (s *Server) GetDeal(ctx context.Context, req *tournamentv1.GetDealRequest) (*tournamentv1.GetDealResponse, error) {
	d, ok, err := s.desk.Deal(ctx, req.GetTournamentId())
	if err != nil || !ok {
		return &tournamentv1.GetDealResponse{}, err
	}
	return &tournamentv1.GetDealResponse{Deal: dealToProto(d)}, nil
}
