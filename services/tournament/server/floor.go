package server

import (
	"context"
	"slices"
	"strconv"

	"google.golang.org/protobuf/types/known/timestamppb"

	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/balance"
	"github.com/cardroom/cardroom/services/tournament/desk"
)

func handForHandToProto(h balance.HandForHand) *tournamentv1.HandForHand {
	pb := &tournamentv1.HandForHand{Active: h.Active, Round: int32(h.Round)}
	for _, tb := range h.Tables {
		n, _ := strconv.Atoi(tb)
		if slices.Contains(h.Done, tb) {
			pb.Waiting = append(pb.Waiting, int32(n))
		} else {
			pb.Playing = append(pb.Playing, int32(n))
		}
	}
	return pb
}

// SetHandForHand starts hand-for-hand over the tables with players, or
// stops it (G-26), placing knock-outs still waiting for their round.
func (s *Server) SetHandForHand(ctx context.Context, req *tournamentv1.SetHandForHandRequest) (*tournamentv1.SetHandForHandResponse, error) {
	r, err := s.desk.SetHandForHand(ctx, req.GetTournamentId(), req.GetOn())
	if err != nil {
		return nil, err
	}
	return &tournamentv1.SetHandForHandResponse{Finishes: finishesToProto(r.Finishes), HandForHand: handForHandToProto(r.HandForHand)}, nil
}

// ReportHandEnded records a table's hand-for-hand hand (G-26); the last
// table's report ends the round and places its knock-outs (TR-37).
func (s *Server) ReportHandEnded(ctx context.Context, req *tournamentv1.ReportHandEndedRequest) (*tournamentv1.ReportHandEndedResponse, error) {
	r, err := s.desk.ReportHandEnded(ctx, req.GetTournamentId(), int(req.GetTable()))
	if err != nil {
		return nil, err
	}
	return &tournamentv1.ReportHandEndedResponse{NextRound: r.Next, Finishes: finishesToProto(r.Finishes), Finished: r.Finished,
		HandForHand: handForHandToProto(r.HandForHand)}, nil
}

// UpdatePayouts replaces the payout structure until the start (TR-36).
func (s *Server) UpdatePayouts(ctx context.Context, req *tournamentv1.UpdatePayoutsRequest) (*tournamentv1.UpdatePayoutsResponse, error) {
	structure := rulesFromProto(&tournamentv1.CreateTournamentRequest{Payouts: req.GetPayouts()}).Payouts
	t, err := s.desk.UpdatePayouts(ctx, req.GetTournamentId(), structure, actor(ctx))
	if err != nil {
		return nil, err
	}
	return &tournamentv1.UpdatePayoutsResponse{Tournament: tournamentToProto(t)}, nil
}

// ClaimSeat checks the person at an entry's seat (TR-05). A forfeit is
// recorded even though the call reports the refusal.
func (s *Server) ClaimSeat(ctx context.Context, req *tournamentv1.ClaimSeatRequest) (*tournamentv1.ClaimSeatResponse, error) {
	en, err := s.desk.ClaimSeat(ctx, req.GetTournamentId(), req.GetPlayerId(), req.GetPresenterId(), req.GetForfeit())
	if err != nil {
		return nil, err
	}
	return &tournamentv1.ClaimSeatResponse{Entry: entryToProto(en)}, nil
}

// ConfiscateBlinds settles dodged blinds (TR-24) and logs the decision.
func (s *Server) ConfiscateBlinds(ctx context.Context, req *tournamentv1.ConfiscateBlindsRequest) (*tournamentv1.ConfiscateBlindsResponse, error) {
	stack, dead, err := s.desk.ConfiscateBlinds(ctx, req.GetTournamentId(), req.GetPlayerId(), desk.Dodged{Stack: req.GetStack(),
		SmallBlind: req.GetSmallBlind(), BigBlind: req.GetBigBlind(), MissedSmall: req.GetMissedSmall(), MissedBig: req.GetMissedBig()})
	if err != nil {
		return nil, err
	}
	return &tournamentv1.ConfiscateBlindsResponse{Stack: stack, DeadMoney: dead}, nil
}

// ListDraws returns the draw log.
func (s *Server) ListDraws(ctx context.Context, req *tournamentv1.ListDrawsRequest) (*tournamentv1.ListDrawsResponse, error) {
	draws, err := s.desk.Draws(ctx, req.GetTournamentId())
	if err != nil {
		return nil, err
	}
	resp := &tournamentv1.ListDrawsResponse{}
	for _, d := range draws {
		resp.Draws = append(resp.Draws, &tournamentv1.DrawRecord{Seq: int32(d.Seq), Kind: d.Kind, RecordJson: string(d.Record),
			CreateTime: timestamppb.New(d.CreatedAt)})
	}
	return resp, nil
}
