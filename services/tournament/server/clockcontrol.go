package server

import (
	"context"

	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
)

// AddClockTime adds time to the row in force, or removes it (issue 13).
func (s *Server) AddClockTime(ctx context.Context, req *tournamentv1.AddClockTimeRequest) (*tournamentv1.AddClockTimeResponse, error) {
	r, err := s.desk.AddClockTime(ctx, req.GetTournamentId(), req.GetDelta().AsDuration(), req.GetReason(), actor(ctx))
	if err != nil {
		return nil, err
	}
	return &tournamentv1.AddClockTimeResponse{Clock: clockToProto(r)}, nil
}

// SetClockLevel starts a row of the sheet now: any row, or a step forward
// or back from the row in force (issue 13).
func (s *Server) SetClockLevel(ctx context.Context, req *tournamentv1.SetClockLevelRequest) (*tournamentv1.SetClockLevelResponse, error) {
	index, relative := int(req.GetLevelIndex()), false
	if _, ok := req.GetTarget().(*tournamentv1.SetClockLevelRequest_Skip); ok {
		index, relative = int(req.GetSkip()), true
	}
	r, err := s.desk.SetClockLevel(ctx, req.GetTournamentId(), index, relative, req.GetReason(), actor(ctx))
	if err != nil {
		return nil, err
	}
	return &tournamentv1.SetClockLevelResponse{Clock: clockToProto(r)}, nil
}

// StartBreak starts a break now; the level in force resumes after it
// (issue 13).
func (s *Server) StartBreak(ctx context.Context, req *tournamentv1.StartBreakRequest) (*tournamentv1.StartBreakResponse, error) {
	r, err := s.desk.StartBreak(ctx, req.GetTournamentId(), req.GetDuration().AsDuration(), req.GetReason(), actor(ctx))
	if err != nil {
		return nil, err
	}
	return &tournamentv1.StartBreakResponse{Clock: clockToProto(r)}, nil
}
