package server

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/desk"
)

// UpdateTournament renames, reschedules or replaces the structure sheet
// of a scheduled tournament, or changes the levels to come of a running
// one (TR-03, G-07; desk.Update).
func (s *Server) UpdateTournament(ctx context.Context, req *tournamentv1.UpdateTournamentRequest) (*tournamentv1.UpdateTournamentResponse, error) {
	c := desk.Change{Name: req.GetName(), Reason: req.GetReason(),
		Sheet: rulesFromProto(&tournamentv1.CreateTournamentRequest{Levels: req.GetLevels()}).Sheet}
	if req.GetStartTime() != nil {
		c.StartsAt = req.GetStartTime().AsTime()
	}
	t, err := s.desk.Update(ctx, req.GetTournamentId(), c, actor(ctx))
	if err != nil {
		return nil, err
	}
	return &tournamentv1.UpdateTournamentResponse{Tournament: tournamentToProto(t)}, nil
}

// ListAudit returns the management actions on a tournament.
func (s *Server) ListAudit(ctx context.Context, req *tournamentv1.ListAuditRequest) (*tournamentv1.ListAuditResponse, error) {
	log, err := s.desk.Audit(ctx, req.GetTournamentId())
	if err != nil {
		return nil, err
	}
	resp := &tournamentv1.ListAuditResponse{}
	for _, a := range log {
		resp.Records = append(resp.Records, &tournamentv1.AuditRecord{Seq: int32(a.Seq), Actor: a.Actor, Action: a.Action,
			DetailJson: string(a.Detail), CreateTime: timestamppb.New(a.CreatedAt)})
	}
	return resp, nil
}
