package server

import (
	"context"

	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
)

// AttachTable records which table of the table service plays a tournament
// table (desk.AttachTable).
func (s *Server) AttachTable(ctx context.Context, req *tournamentv1.AttachTableRequest) (*tournamentv1.AttachTableResponse, error) {
	if err := s.desk.AttachTable(ctx, req.GetTournamentId(), int(req.GetTable()), req.GetTableId(), actor(ctx)); err != nil {
		return nil, err
	}
	return &tournamentv1.AttachTableResponse{TournamentId: req.GetTournamentId(), Table: req.GetTable(), TableId: req.GetTableId()}, nil
}
