package server

import (
	"context"
	"slices"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cardroom/cardroom/platform/fault"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/flight"
	"github.com/cardroom/cardroom/services/tournament/standings"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// Multi-day failures (issue 13).
var (
	ErrFlightsNotBagged = fault.New(fault.Precondition, "FLIGHTS_NOT_BAGGED", "a Day 2 starts once every one of its flights has bagged its survivors")
	ErrNotADay2         = fault.New(fault.Precondition, "NOT_A_DAY2", "a flight feeds a scheduled Day 2 in its own currency")
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

// checkFlight checks a new flight against the Day 2 it names: a scheduled
// Day 2 in the same currency, and a stop within the flight's sheet.
func (s *Server) checkFlight(ctx context.Context, e event.Event, f *flight.Flight, rows int) error {
	if err := f.Validate(rows); err != nil {
		return err
	}
	d2, err := s.store.Load(ctx, f.Day2)
	if err != nil {
		return err
	}
	if d2.Rules.Day2 == nil || d2.Event.Status != event.Scheduled || d2.Event.BuyIn.Currency != e.BuyIn.Currency {
		return ErrNotADay2.With("day2_tournament_id", f.Day2)
	}
	return nil
}

// seatDay2 gives a Day 2 its field at the start: one active entry per
// player the survivor policy carries (G-34), once every flight has bagged
// (issue 13). The seat draw then seats them as any field.
func seatDay2(tx *store.Tx, t *store.Tournament) error {
	flights, err := tx.Flights()
	if err != nil {
		return err
	}
	live := 0
	for _, f := range flights {
		switch f.Status {
		case event.Cancelled:
			continue
		case event.Finished:
			live++
		default:
			return ErrFlightsNotBagged.With("flight", f.ID)
		}
	}
	if live == 0 {
		return ErrFlightsNotBagged.Withf("no flight has bagged")
	}
	bags, err := tx.Bags()
	if err != nil {
		return err
	}
	kept, _ := flight.Carry(bags, t.Rules.Day2.Survivors)
	for _, b := range kept {
		if err := tx.PutEntry(entry.Entry{EventID: t.Event.ID, PlayerID: b.Player, Status: entry.Active, RegisteredAt: b.BaggedAt}); err != nil {
			return err
		}
	}
	return nil
}

// ListBags lists a flight's bags, or every bag of a Day 2's flights with
// those the survivor policy carries (G-34).
func (s *Server) ListBags(ctx context.Context, req *tournamentv1.ListBagsRequest) (*tournamentv1.ListBagsResponse, error) {
	t, err := s.store.Load(ctx, req.GetTournamentId())
	if err != nil {
		return nil, err
	}
	bags, err := s.store.Bags(ctx, t.Event.ID)
	if err != nil {
		return nil, err
	}
	policy := flight.KeepLarger
	if t.Rules.Day2 != nil {
		policy = t.Rules.Day2.Survivors
	} else if t.Rules.Flight != nil {
		if d2, err := s.store.Load(ctx, t.Rules.Flight.Day2); err == nil && d2.Rules.Day2 != nil {
			all, err := s.store.Bags(ctx, d2.Event.ID)
			if err != nil {
				return nil, err
			}
			// Whether a flight's bag is carried depends on the other flights.
			kept, _ := flight.Carry(all, d2.Rules.Day2.Survivors)
			return bagsResponse(bags, kept), nil
		}
	}
	kept, _ := flight.Carry(bags, policy)
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
