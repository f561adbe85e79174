// Package server is the tournament service's gRPC face: it translates
// between proto and the event domain and leaves authorization by role to
// the platform interceptor (the (cardroom.auth.v1.access) option).
package server

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/timestamppb"

	"math/rand/v2"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/fault"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/desk"
	"github.com/cardroom/cardroom/services/tournament/director"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// DefaultPageSize is the page size when a request leaves it 0.
const DefaultPageSize = 50

// Server implements tournamentv1.TournamentServiceServer over a desk.
type Server struct {
	tournamentv1.UnimplementedTournamentServiceServer
	desk   *desk.Desk
	store  *store.Store
	clock  clock.Clock
	random rand.Source
	log    *slog.Logger
	// director drives the tables; nil leaves them to the floor.
	director *director.Director
}

// New returns a Server over d.
func New(d *desk.Desk) *Server {
	return &Server{desk: d, store: d.Store(), clock: d.Clock(), random: d.Random(), log: d.Logger(), director: d.Director()}
}

func (s *Server) now() time.Time { return s.clock.Now().UTC().Truncate(time.Millisecond) }

// CreateTournament schedules a tournament with its published house rules:
// entry policy, structure sheet, payouts (TR-36); what the request leaves
// out takes the defaults.
func (s *Server) CreateTournament(ctx context.Context, req *tournamentv1.CreateTournamentRequest) (*tournamentv1.CreateTournamentResponse, error) {
	// Stored to the millisecond: a tournament reads back as it was created.
	now := s.now()
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	e := event.Event{
		ID:            id.String(),
		Name:          strings.TrimSpace(req.GetName()),
		Game:          strings.TrimPrefix(req.GetVariant().String(), "VARIANT_"),
		Structure:     strings.TrimPrefix(req.GetStructure().String(), "STRUCTURE_"),
		Format:        formatFromProto[req.GetFormat()],
		TargetEventID: req.GetTargetTournamentId(),
		BuyIn:         event.BuyIn{PrizePool: req.GetBuyIn(), Fee: req.GetFee(), Currency: req.GetCurrency()},
		StartingStack: req.GetStartingStack(),
		StartsAt:      req.GetStartTime().AsTime().UTC(),
		Status:        event.Scheduled,
		CreatedAt:     now,
	}
	if err := e.Validate(now); err != nil {
		return nil, err
	}
	if e.Format == event.Satellite {
		// TR-19: the prizes are entries to the target, which must exist.
		target, err := s.store.Load(ctx, e.TargetEventID)
		if err != nil {
			return nil, err
		}
		if target.Event.BuyIn.Currency != e.BuyIn.Currency {
			return nil, fault.Rule(fault.Invalid, "TR-19", "SATELLITE_CURRENCY", "a satellite pays in its target's currency").With("field", "currency")
		}
	}
	rules := rulesFromProto(req)
	rules.Flight, rules.Day2 = multiDayFromProto(req)
	if err := rules.Validate(e); err != nil {
		return nil, err
	}
	if rules.Flight != nil {
		if err := s.checkFlight(ctx, e, rules.Flight, len(rules.WithDefaults(e).Sheet.Levels)); err != nil {
			return nil, err
		}
	}
	t := store.Tournament{Event: e, Rules: rules.WithDefaults(e)}
	if err := s.store.Create(ctx, e, t.Rules); err != nil {
		return nil, err
	}
	return &tournamentv1.CreateTournamentResponse{Tournament: tournamentToProto(t)}, nil
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
	t, err := s.store.Load(ctx, req.GetTournamentId())
	if err != nil {
		return nil, err
	}
	pb := tournamentToProto(t)
	check, ok, err := s.store.ChipCheck(ctx, t.Event.ID)
	if err != nil {
		return nil, err
	}
	if ok {
		pb.ChipCheck = chipCheckToProto(check)
	}
	stuck, err := s.store.StuckSteps(ctx, t.Event.ID)
	if err != nil {
		return nil, err
	}
	for _, st := range stuck {
		pb.StuckSteps = append(pb.StuckSteps, stuckStepToProto(st))
	}
	return &tournamentv1.GetTournamentResponse{Tournament: pb}, nil
}

func toProto(e event.Event) *tournamentv1.Tournament {
	return &tournamentv1.Tournament{
		TournamentId:       e.ID,
		Name:               e.Name,
		Variant:            gamev1.Variant(gamev1.Variant_value["VARIANT_"+e.Game]),
		Structure:          gamev1.Structure(gamev1.Structure_value["STRUCTURE_"+e.Structure]),
		Currency:           e.BuyIn.Currency,
		BuyIn:              e.BuyIn.PrizePool,
		Fee:                e.BuyIn.Fee,
		StartingStack:      e.StartingStack,
		StartTime:          timestamppb.New(e.StartsAt),
		State:              stateToProto[e.Status],
		CreateTime:         timestamppb.New(e.CreatedAt),
		Format:             formatToProto[e.Format],
		TargetTournamentId: e.TargetEventID,
	}
}

var stateToProto = map[event.Status]tournamentv1.TournamentState{
	event.Scheduled: tournamentv1.TournamentState_TOURNAMENT_STATE_SCHEDULED,
	event.Running:   tournamentv1.TournamentState_TOURNAMENT_STATE_RUNNING,
	event.Finished:  tournamentv1.TournamentState_TOURNAMENT_STATE_FINISHED,
	event.Paying:    tournamentv1.TournamentState_TOURNAMENT_STATE_PAYING,
	event.Cancelled: tournamentv1.TournamentState_TOURNAMENT_STATE_CANCELLED,
}
