package server

import (
	"context"
	"strconv"

	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/chiprace"
	"github.com/cardroom/cardroom/services/tournament/desk"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/standings"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// RecordKnockouts places knocked-out players (TR-37) and finishes the
// tournament when one is left.
func (s *Server) RecordKnockouts(ctx context.Context, req *tournamentv1.RecordKnockoutsRequest) (*tournamentv1.RecordKnockoutsResponse, error) {
	var kos []desk.Knockout
	for _, k := range req.GetKnockouts() {
		kos = append(kos, desk.Knockout{Knockout: standings.Knockout{PlayerID: k.GetPlayerId(), TableID: strconv.Itoa(int(k.GetTable())),
			Hand: k.GetHand(), StartStack: k.GetStartStack()}, DeclinedRebuy: k.GetDeclinedRebuy(), EliminatedBy: k.GetEliminatedBy()})
	}
	out, err := s.desk.RecordKnockouts(ctx, req.GetTournamentId(), kos, actor(ctx))
	if err != nil {
		return nil, err
	}
	resp := &tournamentv1.RecordKnockoutsResponse{Finishes: finishesToProto(out.Finishes), Finished: out.Finished, Deferred: out.Deferred}
	if out.Finished {
		resp.Prizes = prizesToProto(out.Prizes)
	}
	return resp, nil
}

var prizeStates = map[store.PaymentState]tournamentv1.PrizeState{
	store.PaymentPending: tournamentv1.PrizeState_PRIZE_STATE_PENDING,
	store.PaymentDone:    tournamentv1.PrizeState_PRIZE_STATE_PAID,
	store.PaymentFailed:  tournamentv1.PrizeState_PRIZE_STATE_REFUSED,
}

func prizesToProto(recs []store.PaymentRecord) []*tournamentv1.Prize {
	var out []*tournamentv1.Prize
	for _, r := range recs {
		out = append(out, &tournamentv1.Prize{PlayerId: r.PlayerID, Place: int32(r.Place), Amount: r.Amount,
			Voucher: r.Kind == entry.PayVoucher, TargetTournamentId: r.TargetEventID, State: prizeStates[r.State], TransferId: r.TransferID,
			Deal: r.Note == desk.DealNote})
	}
	return out
}

func bountiesToProto(recs []store.PaymentRecord) []*tournamentv1.BountyPayment {
	var out []*tournamentv1.BountyPayment
	for _, r := range recs {
		out = append(out, &tournamentv1.BountyPayment{PlayerId: r.PlayerID, KnockedOutPlayerId: r.Note, Amount: r.Amount,
			HeadAdded: r.Chips, State: prizeStates[r.State], TransferId: r.TransferID})
	}
	return out
}

func finishToProto(f standings.Finish) *tournamentv1.Finish {
	return &tournamentv1.Finish{PlayerId: f.PlayerID, Place: int32(f.Place), Shared: int32(f.Shared), Removed: f.Removed}
}

func finishesToProto(fs []standings.Finish) []*tournamentv1.Finish {
	var out []*tournamentv1.Finish
	for _, f := range fs {
		out = append(out, finishToProto(f))
	}
	return out
}

// GetResults returns the places, winner first, and the prizes.
func (s *Server) GetResults(ctx context.Context, req *tournamentv1.GetResultsRequest) (*tournamentv1.GetResultsResponse, error) {
	res, err := s.desk.Results(ctx, req.GetTournamentId())
	if err != nil {
		return nil, err
	}
	resp := &tournamentv1.GetResultsResponse{Finishes: finishesToProto(res.Finishes), Prizes: prizesToProto(res.Prizes),
		Bounties: bountiesToProto(res.Bounties)}
	// The prizes are public (TR-36); the transfers that paid them are the
	// winners' own, as on ListEntries.
	if viewer, player := asPlayer(ctx); player {
		for _, p := range resp.Prizes {
			if p.GetPlayerId() != viewer {
				p.TransferId = ""
			}
		}
		for _, b := range resp.Bounties {
			if b.GetPlayerId() != viewer {
				b.TransferId = ""
			}
		}
	}
	return resp, nil
}

// PayPrizes repeats the prize steps still pending, and those the wallet
// refused, under their own keys (desk.PayPrizes).
func (s *Server) PayPrizes(ctx context.Context, req *tournamentv1.PayPrizesRequest) (*tournamentv1.PayPrizesResponse, error) {
	prizes, err := s.desk.PayPrizes(ctx, req.GetTournamentId())
	if err != nil {
		return nil, err
	}
	return &tournamentv1.PayPrizesResponse{Prizes: prizesToProto(prizes)}, nil
}

var penaltyFromProto = map[tournamentv1.PenaltyType]standings.PenaltyType{
	tournamentv1.PenaltyType_PENALTY_TYPE_WARNING:          standings.Warning,
	tournamentv1.PenaltyType_PENALTY_TYPE_MISSED_HANDS:     standings.MissedHands,
	tournamentv1.PenaltyType_PENALTY_TYPE_DEAD_HAND:        standings.DeadHand,
	tournamentv1.PenaltyType_PENALTY_TYPE_DISQUALIFICATION: standings.Disqualification,
	tournamentv1.PenaltyType_PENALTY_TYPE_EXPULSION:        standings.Expulsion,
}

// IssuePenalty records a penalty against the player's history (TR-32,
// TR-33, G-27); disqualification and expulsion place the player (TR-34).
func (s *Server) IssuePenalty(ctx context.Context, req *tournamentv1.IssuePenaltyRequest) (*tournamentv1.IssuePenaltyResponse, error) {
	p := standings.Penalty{Type: penaltyFromProto[req.GetType()], Reason: req.GetReason(), IssuedBy: actor(ctx),
		Hand: req.GetHand(), Rounds: int(req.GetRounds()), Override: req.GetOverride()}
	out, err := s.desk.IssuePenalty(ctx, req.GetTournamentId(), req.GetPlayerId(), p, int(req.GetPlayersAtTable()))
	if err != nil {
		return nil, err
	}
	resp := &tournamentv1.IssuePenaltyResponse{HandsToMiss: int32(out.HandsToMiss), History: int32(out.History)}
	if out.Finish != nil {
		resp.Finish = finishToProto(*out.Finish)
	}
	return resp, nil
}

// ReportHandStarted counts a hand for the missed-hand penalties of the
// players dealt in (TR-33) and names those who sit it out: penalised
// players and players who left (TR-35).
func (s *Server) ReportHandStarted(ctx context.Context, req *tournamentv1.ReportHandStartedRequest) (*tournamentv1.ReportHandStartedResponse, error) {
	out, err := s.desk.HandStarted(ctx, req.GetTournamentId(), int(req.GetTable()), req.GetPlayerIds())
	if err != nil {
		return nil, err
	}
	return &tournamentv1.ReportHandStartedResponse{SittingOut: out}, nil
}

// BalanceTables balances (TR-23, G-25) or breaks a table and records the
// new seats.
func (s *Server) BalanceTables(ctx context.Context, req *tournamentv1.BalanceTablesRequest) (*tournamentv1.BalanceTablesResponse, error) {
	buttons := map[int]int{}
	for _, b := range req.GetButtons() {
		buttons[int(b.GetTable())] = int(b.GetButtonSeat())
	}
	out, err := s.desk.BalanceTables(ctx, req.GetTournamentId(), int(req.GetBreakTable()), buttons)
	if err != nil {
		return nil, err
	}
	resp := &tournamentv1.BalanceTablesResponse{}
	for _, n := range out.Halted {
		resp.Halted = append(resp.Halted, int32(n))
	}
	for _, m := range out.Moves {
		from, _ := strconv.Atoi(m.FromTable)
		to, _ := strconv.Atoi(m.ToTable)
		resp.Moves = append(resp.Moves, &tournamentv1.Move{PlayerId: m.PlayerID, FromTable: int32(from), FromSeat: int32(m.FromSeat),
			ToTable: int32(to), ToSeat: int32(m.ToSeat), RuleId: m.Rule})
	}
	if out.FinalButton != nil {
		resp.FinalTableButton = buttonToProto(*out.FinalButton)
	}
	return resp, nil
}

// RaceChips runs a chip race at one table (TR-22, G-08) and logs it.
func (s *Server) RaceChips(ctx context.Context, req *tournamentv1.RaceChipsRequest) (*tournamentv1.RaceChipsResponse, error) {
	race := chiprace.Race{Removed: req.GetRemoved(), Into: req.GetInto(), Lowest: req.GetLowest()}
	for _, c := range req.GetSeats() {
		race.Players = append(race.Players, chiprace.Player{Seat: int(c.GetSeat()), PlayerID: c.GetPlayerId(), Stack: c.GetStack(), Chips: c.GetChips()})
	}
	results, err := s.desk.RaceChips(ctx, req.GetTournamentId(), int(req.GetTable()), race)
	if err != nil {
		return nil, err
	}
	resp := &tournamentv1.RaceChipsResponse{}
	for _, r := range results {
		pb := &tournamentv1.ChipRaceResult{Seat: int32(r.Seat), PlayerId: r.PlayerID, Won: r.Won, Stack: r.Stack}
		for _, c := range r.Cards {
			pb.Cards = append(pb.Cards, c.String())
		}
		resp.Results = append(resp.Results, pb)
	}
	return resp, nil
}
