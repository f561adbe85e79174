// Package server is the tournament service's gRPC face: each handler
// translates the request to domain values, makes one call to the desk
// (package desk) and translates its answer back. Authorization by role is
// the platform interceptor's (the (cardroom.auth.v1.access) option); the
// server checks only that a player acts for themselves. The desk's errors
// go back as they are: platform/rpc maps them to gRPC statuses.
package server

import (
	"cmp"
	"context"
	"strings"

	"google.golang.org/protobuf/types/known/timestamppb"

	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/desk"
	"github.com/cardroom/cardroom/services/tournament/event"
)

// DefaultPageSize is the page size when a request leaves it 0.
const DefaultPageSize = 50

// Server implements tournamentv1.TournamentServiceServer over a desk.
type Server struct {
	tournamentv1.UnimplementedTournamentServiceServer
	desk *desk.Desk
}

// New returns a Server over d.
func New(d *desk.Desk) *Server { return &Server{desk: d} }

// CreateTournament schedules a tournament with its published house rules:
// entry policy, structure sheet, payouts (TR-36); what the request leaves
// out takes the defaults.
func (s *Server) CreateTournament(ctx context.Context, req *tournamentv1.CreateTournamentRequest) (*tournamentv1.CreateTournamentResponse, error) {
	e := event.Event{
		Name:          strings.TrimSpace(req.GetName()),
		Game:          strings.TrimPrefix(req.GetVariant().String(), "VARIANT_"),
		Structure:     strings.TrimPrefix(req.GetStructure().String(), "STRUCTURE_"),
		Format:        formatFromProto[req.GetFormat()],
		TargetEventID: req.GetTargetTournamentId(),
		BuyIn:         event.BuyIn{PrizePool: req.GetBuyIn(), Fee: req.GetFee(), Currency: req.GetCurrency()},
		StartingStack: req.GetStartingStack(),
		StartsAt:      req.GetStartTime().AsTime().UTC(),
	}
	rules := rulesFromProto(req)
	rules.Flight, rules.Day2 = multiDayFromProto(req)
	t, err := s.desk.Create(ctx, e, rules)
	if err != nil {
		return nil, err
	}
	return &tournamentv1.CreateTournamentResponse{Tournament: tournamentToProto(t)}, nil
}

// ListTournaments lists tournaments by start time.
func (s *Server) ListTournaments(ctx context.Context, req *tournamentv1.ListTournamentsRequest) (*tournamentv1.ListTournamentsResponse, error) {
	size := int(req.GetPageSize())
	size = cmp.Or(size, DefaultPageSize)
	p, err := s.desk.List(ctx, size, req.GetPageToken())
	if err != nil {
		return nil, err
	}
	resp := &tournamentv1.ListTournamentsResponse{NextPageToken: p.Next}
	for _, e := range p.Events {
		resp.Tournaments = append(resp.Tournaments, toProto(e))
	}
	return resp, nil
}

// GetTournament returns one tournament with its chip count and the steps
// the director is stuck on.
func (s *Server) GetTournament(ctx context.Context, req *tournamentv1.GetTournamentRequest) (*tournamentv1.GetTournamentResponse, error) {
	st, err := s.desk.Tournament(ctx, req.GetTournamentId())
	if err != nil {
		return nil, err
	}
	pb := tournamentToProto(st.Tournament)
	if st.ChipCheck != nil {
		pb.ChipCheck = chipCheckToProto(*st.ChipCheck)
	}
	for _, stuck := range st.Stuck {
		pb.StuckSteps = append(pb.StuckSteps, stuckStepToProto(stuck))
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
