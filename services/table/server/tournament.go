package server

import (
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
)

// Tournament implements tablev1.TournamentTableServiceServer: the
// tournament service's controls of its tables (README, "Tournament
// tables").
type Tournament struct {
	tablev1.UnimplementedTournamentTableServiceServer
	s *Server
}

// Tournament returns the server of the tournament controls, over the same
// store and runner as s.
func (s *Server) Tournament() *Tournament { return &Tournament{s: s} }
