package server_test

import (
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/desk"
	"github.com/cardroom/cardroom/services/tournament/server"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// TestGetTournament_ShowsStuckStepsAndTheFinalRedrawSetting: the
// director's steps that keep failing, as it saved them, are in the
// tournament's status; the house setting that switches the final-table
// redraw off (TR-07) is taken on create and shown.
func TestGetTournament_ShowsStuckStepsAndTheFinalRedrawSetting(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	st := store.New(db)
	g := testkit.StartGRPC(t, func(r grpc.ServiceRegistrar) {
		tournamentv1.RegisterTournamentServiceServer(r, server.New(desk.New(desk.Deps{Store: st, Clock: clock.NewFake(now)})))
	})
	c := tournamentv1.NewTournamentServiceClient(g.Conn)
	floor := g.As(t, "floor-1", auth.Floor)
	for _, off := range []bool{false, true} {
		req := newRequest()
		req.NoFinalRedraw = off
		created, err := c.CreateTournament(floor, req)
		if err != nil {
			t.Fatal(err)
		}
		id := created.GetTournament().GetTournamentId()
		step := store.StuckStep{Step: "hand end at table 2", Kind: "hand_end", Error: "hold: table service failed", Attempts: 4,
			Since: now.Add(time.Minute), Last: now.Add(5 * time.Minute)}
		if err := st.SaveStuckStep(t.Context(), id, step); err != nil {
			t.Fatal(err)
		}
		got, err := c.GetTournament(floor, &tournamentv1.GetTournamentRequest{TournamentId: id})
		if err != nil {
			t.Fatal(err)
		}
		tr := got.GetTournament()
		if tr.GetNoFinalRedraw() != off {
			t.Fatalf("no_final_redraw %v, created with %v", tr.GetNoFinalRedraw(), off)
		}
		if s := tr.GetStuckSteps(); len(s) != 1 || s[0].GetStep() != step.Step || s[0].GetKind() != step.Kind || s[0].GetError() != step.Error ||
			s[0].GetAttempts() != 4 || !s[0].GetFirstFailureTime().AsTime().Equal(step.Since) || !s[0].GetLastFailureTime().AsTime().Equal(step.Last) {
			t.Fatalf("stuck steps %v, saved %+v", s, step)
		}
	}
}
