package server

import (
	"context"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"

	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/desk"
)

// StartTournament draws the seats and the buttons, logs both and starts
// the clock (desk.Start).
func (s *Server) StartTournament(ctx context.Context, req *tournamentv1.StartTournamentRequest) (*tournamentv1.StartTournamentResponse, error) {
	st, err := s.desk.Start(ctx, req.GetTournamentId())
	if err != nil {
		return nil, err
	}
	resp := &tournamentv1.StartTournamentResponse{Tournament: tournamentToProto(st.Tournament)}
	for _, seat := range st.Seats {
		resp.Seats = append(resp.Seats, &tournamentv1.SeatAssignment{PlayerId: seat.PlayerID, Table: int32(seat.Table), Seat: int32(seat.Seat)})
	}
	for _, b := range st.Buttons {
		resp.Buttons = append(resp.Buttons, buttonToProto(b))
	}
	return resp, nil
}

func buttonToProto(b desk.Button) *tournamentv1.ButtonDraw {
	pb := &tournamentv1.ButtonDraw{Table: int32(b.Table), Cards: map[int32]string{}, ButtonSeat: int32(b.Winner)}
	for seat, c := range b.Cards {
		pb.Cards[int32(seat)] = c.String()
	}
	return pb
}

func clockToProto(r desk.Reading) *tournamentv1.GetClockResponse {
	return &tournamentv1.GetClockResponse{
		Started: r.Started, LevelIndex: int32(r.Position.Index), Level: levelToProto(r.Position.Level),
		Remaining: durationpb.New(r.Position.Remaining), Paused: r.Paused, Overtime: r.Position.Overtime,
	}
}

// GetClock returns the level in force now (G-07), or the level of a hand
// that started at hand_start_time (TR-20).
func (s *Server) GetClock(ctx context.Context, req *tournamentv1.GetClockRequest) (*tournamentv1.GetClockResponse, error) {
	var hand time.Time
	if req.GetHandStartTime() != nil {
		hand = req.GetHandStartTime().AsTime()
	}
	r, err := s.desk.Clock(ctx, req.GetTournamentId(), hand)
	if err != nil {
		return nil, err
	}
	return clockToProto(r), nil
}

// PauseClock stops the level clock of a running tournament.
func (s *Server) PauseClock(ctx context.Context, req *tournamentv1.PauseClockRequest) (*tournamentv1.PauseClockResponse, error) {
	r, err := s.desk.PauseClock(ctx, req.GetTournamentId(), true, req.GetReason(), actor(ctx))
	if err != nil {
		return nil, err
	}
	return &tournamentv1.PauseClockResponse{Clock: clockToProto(r)}, nil
}

// ResumeClock restarts it.
func (s *Server) ResumeClock(ctx context.Context, req *tournamentv1.ResumeClockRequest) (*tournamentv1.ResumeClockResponse, error) {
	r, err := s.desk.PauseClock(ctx, req.GetTournamentId(), false, req.GetReason(), actor(ctx))
	if err != nil {
		return nil, err
	}
	return &tournamentv1.ResumeClockResponse{Clock: clockToProto(r)}, nil
}

// GetPayouts returns the published structure and the prizes it makes from
// the pool paid so far (TR-36, G-30).
func (s *Server) GetPayouts(ctx context.Context, req *tournamentv1.GetPayoutsRequest) (*tournamentv1.GetPayoutsResponse, error) {
	p, err := s.desk.Payouts(ctx, req.GetTournamentId())
	if err != nil {
		return nil, err
	}
	return payoutsResponse(p), nil
}

func payoutsResponse(p desk.Payouts) *tournamentv1.GetPayoutsResponse {
	return &tournamentv1.GetPayoutsResponse{
		Structure: payoutsToProto(p.Structure), Entrants: int32(p.Entrants), PrizePool: p.PrizePool,
		Prizes: p.Prizes, Locked: p.Locked,
	}
}

// CancelTournament cancels the event and has the wallet refund it (TR-03,
// G-30; desk.Cancel).
func (s *Server) CancelTournament(ctx context.Context, req *tournamentv1.CancelTournamentRequest) (*tournamentv1.CancelTournamentResponse, error) {
	t, refunded, err := s.desk.Cancel(ctx, req.GetTournamentId(), req.GetReason(), actor(ctx))
	if err != nil {
		return nil, err
	}
	return &tournamentv1.CancelTournamentResponse{Tournament: tournamentToProto(t), Refunded: refunded}, nil
}
