package server

import (
	"context"

	"github.com/cardroom/cardroom/platform/fault"
)

// Tournament tables are locked (README, "Tournament tables"): only the
// tournament service seats, moves, tops up or removes players there, through
// its controls (TournamentTableService), so that every chip on them is one
// the tournament issued and every entrant has one seat. The cash-game RPCs
// that would change who sits there with what are refused, each with the
// rule that forbids it.

// ErrTournamentTableLocked refuses a cash-game seat change at a tournament
// table.
var ErrTournamentTableLocked = fault.New(fault.Precondition, "TOURNAMENT_TABLE_LOCKED",
	"a tournament table is run by its tournament: it seats, moves, tops up and removes its entrants")

// locked refuses change at a tournament table, naming rule and saying why.
func (s *Server) locked(ctx context.Context, tableID, rule, why string) error {
	def, err := s.runner.Definition(ctx, tableID)
	if err != nil {
		return err
	}
	if !def.Config.Tournament {
		return nil
	}
	return fault.Rule(fault.Precondition, rule, "TOURNAMENT_TABLE_LOCKED", why)
}
