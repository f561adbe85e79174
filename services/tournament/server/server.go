// Package server is the tournament service's gRPC face: it translates
// between proto and the event domain and leaves authorization by role to
// the platform interceptor (the (cardroom.auth.v1.access) option).
package server

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cardroom/cardroom/platform/clock"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/house"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// DefaultPageSize is the page size when a request leaves it 0.
const DefaultPageSize = 50

// Server implements tournamentv1.TournamentServiceServer.
type Server struct {
	tournamentv1.UnimplementedTournamentServiceServer
	store *store.Store
	clock clock.Clock
}

// New returns a Server over s.
func New(s *store.Store, clk clock.Clock) *Server { return &Server{store: s, clock: clk} }

// CreateTournament schedules a freezeout. Rebuy events and satellites get
// their own fields when registration lands.
func (s *Server) CreateTournament(ctx context.Context, req *tournamentv1.CreateTournamentRequest) (*tournamentv1.CreateTournamentResponse, error) {
	// Stored to the millisecond: a tournament reads back as it was created.
	now := s.clock.Now().UTC().Truncate(time.Millisecond)
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	e := event.Event{
		ID:            id.String(),
		Name:          strings.TrimSpace(req.GetName()),
		Game:          strings.TrimPrefix(req.GetVariant().String(), "VARIANT_"),
		Structure:     strings.TrimPrefix(req.GetStructure().String(), "STRUCTURE_"),
		Format:        event.Freezeout,
		BuyIn:         event.BuyIn{PrizePool: req.GetBuyIn(), Fee: req.GetFee(), Currency: req.GetCurrency()},
		StartingStack: req.GetStartingStack(),
		StartsAt:      req.GetStartTime().AsTime().UTC(),
		Status:        event.Scheduled,
		CreatedAt:     now,
	}
	if err := e.Validate(now); err != nil {
		return nil, err
	}
	if err := s.store.Create(ctx, e, house.Rules{}.WithDefaults(e)); err != nil {
		return nil, err
	}
	return &tournamentv1.CreateTournamentResponse{Tournament: toProto(e)}, nil
}

// ListTournaments lists tournaments by start time.
func (s *Server) ListTournaments(ctx context.Context, req *tournamentv1.ListTournamentsRequest) (*tournamentv1.ListTournamentsResponse, error) {
	size := int(req.GetPageSize())
	if size == 0 {
		size = DefaultPageSize
	}
	p, err := s.store.List(ctx, size, req.GetPageToken())
	if err != nil {
		return nil, err
	}
	resp := &tournamentv1.ListTournamentsResponse{NextPageToken: p.Next}
	for _, e := range p.Events {
		resp.Tournaments = append(resp.Tournaments, toProto(e))
	}
	return resp, nil
}

// GetTournament returns one tournament.
func (s *Server) GetTournament(ctx context.Context, req *tournamentv1.GetTournamentRequest) (*tournamentv1.GetTournamentResponse, error) {
	e, err := s.store.Get(ctx, req.GetTournamentId())
	if err != nil {
		return nil, err
	}
	return &tournamentv1.GetTournamentResponse{Tournament: toProto(e)}, nil
}

func toProto(e event.Event) *tournamentv1.Tournament {
	return &tournamentv1.Tournament{
		TournamentId:  e.ID,
		Name:          e.Name,
		Variant:       gamev1.Variant(gamev1.Variant_value["VARIANT_"+e.Game]),
		Structure:     gamev1.Structure(gamev1.Structure_value["STRUCTURE_"+e.Structure]),
		Currency:      e.BuyIn.Currency,
		BuyIn:         e.BuyIn.PrizePool,
		Fee:           e.BuyIn.Fee,
		StartingStack: e.StartingStack,
		StartTime:     timestamppb.New(e.StartsAt),
		State:         stateToProto[e.Status],
		CreateTime:    timestamppb.New(e.CreatedAt),
	}
}

var stateToProto = map[event.Status]tournamentv1.TournamentState{
	event.Scheduled: tournamentv1.TournamentState_TOURNAMENT_STATE_SCHEDULED,
	event.Running:   tournamentv1.TournamentState_TOURNAMENT_STATE_RUNNING,
	event.Finished:  tournamentv1.TournamentState_TOURNAMENT_STATE_FINISHED,
	event.Cancelled: tournamentv1.TournamentState_TOURNAMENT_STATE_CANCELLED,
}
