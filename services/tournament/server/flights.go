package server

import (
	"context"
	"slices"

	"google.golang.org/protobuf/types/known/timestamppb"

	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/flight"
	"github.com/cardroom/cardroom/services/tournament/standings"
	"github.com/cardroom/cardroom/services/tournament/store"
)

var survivorsFromProto = map[tournamentv1.SurvivorPolicy]flight.Policy{
	tournamentv1.SurvivorPolicy_SURVIVOR_POLICY_UNSPECIFIED: flight.KeepLarger,
	tournamentv1.SurvivorPolicy_SURVIVOR_POLICY_KEEP_LARGER: flight.KeepLarger,
	tournamentv1.SurvivorPolicy_SURVIVOR_POLICY_KEEP_FIRST:  flight.KeepFirst,
	tournamentv1.SurvivorPolicy_SURVIVOR_POLICY_KEEP_LAST:   flight.KeepLast,
}

// multiDayFromProto reads a new event's flight or Day 2 settings.
func multiDayFromProto(req *tournamentv1.CreateTournamentRequest) (*flight.Flight, *flight.Day2) {
	var f *flight.Flight
	var d *flight.Day2
	if p := req.GetFlight(); p != nil {
		f = &flight.Flight{Day2: p.GetDay2TournamentId(), StopLevel: int(p.GetStopLevelIndex()), StopPlayers: int(p.GetStopPlayers())}
	}
	if p := req.GetDay2(); p != nil {
		d = &flight.Day2{Survivors: survivorsFromProto[p.GetSurvivors()]}
	}
	return f, d
}

func multiDayToProto(pb *tournamentv1.Tournament, t store.Tournament) {
	if f := t.Rules.Flight; f != nil {
		pb.Flight = &tournamentv1.Flight{Day2TournamentId: f.Day2, StopLevelIndex: int32(f.StopLevel), StopPlayers: int32(f.StopPlayers)}
	}
	if d := t.Rules.Day2; d != nil {
		pb.Day2 = &tournamentv1.Day2{}
		for k, v := range survivorsFromProto {
			if v == d.Survivors && k != tournamentv1.SurvivorPolicy_SURVIVOR_POLICY_UNSPECIFIED {
				pb.Day2.Survivors = k
			}
		}
		if d.Survivors == "" {
			pb.Day2.Survivors = tournamentv1.SurvivorPolicy_SURVIVOR_POLICY_KEEP_LARGER
		}
	}
}

// ListBags lists a flight's bags, or every bag of a Day 2's flights with
// those the survivor policy carries (G-34).
func (s *Server) ListBags(ctx context.Context, req *tournamentv1.ListBagsRequest) (*tournamentv1.ListBagsResponse, error) {
	bags, kept, err := s.desk.Bags(ctx, req.GetTournamentId())
	if err != nil {
		return nil, err
	}
	return bagsResponse(bags, kept), nil
}

func bagsResponse(bags, kept []flight.Bag) *tournamentv1.ListBagsResponse {
	resp := &tournamentv1.ListBagsResponse{}
	for _, b := range bags {
		carried := slices.ContainsFunc(kept, func(k flight.Bag) bool { return k.Flight == b.Flight && k.Player == b.Player })
		resp.Bags = append(resp.Bags, &tournamentv1.Bag{FlightTournamentId: b.Flight, PlayerId: b.Player, Chips: b.Chips,
			Table: int32(b.Table), Seat: int32(b.Seat), BagTime: timestamppb.New(b.BaggedAt), Carried: carried})
		resp.ChipsBagged += b.Chips
		if carried {
			resp.ChipsCarried += b.Chips
		}
	}
	return resp
}

// GetPlayerHistory returns a player's events, latest first (issue 13;
// desk.PlayerHistory). A player reads their own history only.
func (s *Server) GetPlayerHistory(ctx context.Context, req *tournamentv1.GetPlayerHistoryRequest) (*tournamentv1.GetPlayerHistoryResponse, error) {
	if err := actFor(ctx, req.GetPlayerId()); err != nil {
		return nil, err
	}
	hist, err := s.desk.PlayerHistory(ctx, req.GetPlayerId())
	if err != nil {
		return nil, err
	}
	resp := &tournamentv1.GetPlayerHistoryResponse{}
	for _, h := range hist {
		pe := &tournamentv1.PlayerEvent{TournamentId: h.Event.ID, Name: h.Event.Name, StartTime: timestamppb.New(h.Event.StartsAt),
			State: stateToProto[h.Event.Status], Entry: withMoney(h.Entry), Place: int32(h.Place), Prize: h.Prize, Bounties: h.Bounties, Bagged: h.Bagged}
		for _, p := range h.Penalties {
			pe.Penalties = append(pe.Penalties, &tournamentv1.PlayerPenalty{Type: penaltyTypeToProto[p.Type], Reason: p.Reason,
				IssuedBy: p.IssuedBy, HandsToMiss: int32(p.HandsToMiss), IssueTime: timestamppb.New(p.Issued)})
		}
		resp.Events = append(resp.Events, pe)
	}
	return resp, nil
}

var penaltyTypeToProto = func() map[standings.PenaltyType]tournamentv1.PenaltyType {
	out := map[standings.PenaltyType]tournamentv1.PenaltyType{}
	for k, v := range penaltyFromProto {
		out[v] = k
	}
	return out
}()
