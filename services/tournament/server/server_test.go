package server_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/desk"
	"github.com/cardroom/cardroom/services/tournament/server"
	"github.com/cardroom/cardroom/services/tournament/store"
)

var now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func start(t *testing.T) (*testkit.GRPC, tournamentv1.TournamentServiceClient) {
	t.Helper()
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	g := testkit.StartGRPC(t, func(r grpc.ServiceRegistrar) {
		tournamentv1.RegisterTournamentServiceServer(r, server.New(desk.New(desk.Deps{Store: store.New(db), Clock: clock.NewFake(now)})))
	})
	return g, tournamentv1.NewTournamentServiceClient(g.Conn)
}

func newRequest() *tournamentv1.CreateTournamentRequest {
	return &tournamentv1.CreateTournamentRequest{
		Name: "Monday Deepstack", Variant: gamev1.Variant_VARIANT_HOLDEM, Structure: gamev1.Structure_STRUCTURE_NO_LIMIT,
		Currency: "EUR", BuyIn: 5000, Fee: 1100, StartingStack: 20000, StartTime: timestamppb.New(now.Add(6 * time.Hour)),
	}
}

func TestCreateListGet(t *testing.T) {
	t.Parallel()
	g, c := start(t)
	created, err := c.CreateTournament(g.As(t, "floor-1", auth.Floor), newRequest())
	if err != nil {
		t.Fatal(err)
	}
	tr := created.GetTournament()
	if tr.GetTournamentId() == "" || tr.GetState() != tournamentv1.TournamentState_TOURNAMENT_STATE_SCHEDULED ||
		tr.GetBuyIn() != 5000 || tr.GetFee() != 1100 || tr.GetVariant() != gamev1.Variant_VARIANT_HOLDEM ||
		!tr.GetCreateTime().AsTime().Equal(now) {
		t.Fatalf("created %v", tr)
	}

	player := g.As(t, "alice", auth.Player)
	got, err := c.GetTournament(player, &tournamentv1.GetTournamentRequest{TournamentId: tr.GetTournamentId()})
	if err != nil || got.GetTournament().GetName() != "Monday Deepstack" || got.GetTournament().GetStartingStack() != 20000 {
		t.Fatalf("Get = %v, %v", got, err)
	}
	list, err := c.ListTournaments(player, &tournamentv1.ListTournamentsRequest{})
	if err != nil || len(list.GetTournaments()) != 1 || list.GetTournaments()[0].GetTournamentId() != tr.GetTournamentId() {
		t.Fatalf("List = %v, %v", list, err)
	}
}

func TestCreateRefusals(t *testing.T) {
	t.Parallel()
	g, c := start(t)
	past := newRequest()
	past.StartTime = timestamppb.New(now.Add(-time.Hour))
	zero := newRequest()
	zero.BuyIn = 0
	floor := g.As(t, "f", auth.Floor)
	tests := []struct {
		name string
		ctx  context.Context
		req  *tournamentv1.CreateTournamentRequest
		want codes.Code
	}{
		{"no token", t.Context(), newRequest(), codes.Unauthenticated},
		{"player may not create", g.As(t, "alice", auth.Player), newRequest(), codes.PermissionDenied},
		{"start in the past", floor, past, codes.InvalidArgument},
		{"zero prize pool part (TR-04)", floor, zero, codes.InvalidArgument},
	}
	for _, tt := range tests {
		if _, err := c.CreateTournament(tt.ctx, tt.req); status.Code(err) != tt.want {
			t.Errorf("%s: code = %v (%v), want %v", tt.name, status.Code(err), err, tt.want)
		}
	}
	list, err := c.ListTournaments(floor, &tournamentv1.ListTournamentsRequest{})
	if err != nil || len(list.GetTournaments()) != 0 {
		t.Fatalf("refused creates left %v, %v", list, err)
	}
	_, err = c.GetTournament(g.As(t, "alice", auth.Player), &tournamentv1.GetTournamentRequest{TournamentId: "missing"})
	if status.Code(err) != codes.NotFound {
		t.Fatalf("Get(missing) = %v", err)
	}
}
