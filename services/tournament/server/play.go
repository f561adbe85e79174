package server

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/cardroom/cardroom/platform/fault"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/draw"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/levels"
	"github.com/cardroom/cardroom/services/tournament/standings"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// Start failures.
var (
	ErrNotScheduled  = fault.New(fault.Precondition, "TOURNAMENT_NOT_SCHEDULED", "only a scheduled tournament can start")
	ErrNotDue        = fault.Rule(fault.Precondition, "TR-04", "TOURNAMENT_NOT_DUE", "a tournament starts at its published start time: players may register until then")
	ErrTooFewEntries = fault.Rule(fault.Precondition, "TR-06", "NOT_ENOUGH_ENTRIES", "a tournament needs at least two paid entries to start")
	ErrNotRunning    = fault.New(fault.Precondition, "TOURNAMENT_NOT_RUNNING", "the tournament is not running")
)

// seatLog is the seat draw as logged (TR-06).
type seatLog struct {
	Seats []draw.Seat `json:"seats"`
}

// buttonLog is one table's button draw as logged (TR-07, G-28).
type buttonLog struct {
	Table  int               `json:"table"`
	Cards  map[string]string `json:"cards"`
	Winner int               `json:"button_seat"`
}

// StartTournament draws the seats and the buttons, logs both and starts
// the clock, in one transaction.
func (s *Server) StartTournament(ctx context.Context, req *tournamentv1.StartTournamentRequest) (*tournamentv1.StartTournamentResponse, error) {
	now := s.now()
	resp := &tournamentv1.StartTournamentResponse{}
	err := s.store.Update(ctx, req.GetTournamentId(), func(tx *store.Tx, t *store.Tournament) error {
		resp.Seats, resp.Buttons = nil, nil
		if t.Event.Status != event.Scheduled {
			return ErrNotScheduled
		}
		if now.Before(t.Event.StartsAt) {
			return ErrNotDue.With("start_time", t.Event.StartsAt.Format("2006-01-02T15:04:05Z07:00"))
		}
		if t.Rules.Day2 != nil {
			if err := seatDay2(tx, t); err != nil {
				return err
			}
		}
		ens, err := tx.Entries()
		if err != nil {
			return err
		}
		var players []string
		byPlayer := map[string]entry.Entry{}
		for _, en := range ens {
			switch en.Status {
			case entry.Paying:
				return entry.ErrPaymentInFlight.Withf("%s's entry payment has not settled", en.PlayerID)
			case entry.Active:
				players = append(players, en.PlayerID)
				byPlayer[en.PlayerID] = en
			}
		}
		if len(players) < 2 {
			return ErrTooFewEntries
		}
		seats, err := draw.Seats(players, t.Rules.SeatsPerTable, s.random)
		if err != nil {
			return err
		}
		if err := tx.AddDraw("seats", seatLog{Seats: seats}, now); err != nil {
			return err
		}
		tables := map[int][]int{}
		for _, st := range seats {
			en := byPlayer[st.PlayerID]
			en.Table, en.Seat = st.Table, st.Seat
			if err := tx.PutEntry(en); err != nil {
				return err
			}
			tables[st.Table] = append(tables[st.Table], st.Seat)
			resp.Seats = append(resp.Seats, &tournamentv1.SeatAssignment{PlayerId: st.PlayerID, Table: int32(st.Table), Seat: int32(st.Seat)})
		}
		for _, n := range slices.Sorted(maps.Keys(tables)) {
			b, err := draw.Button(tables[n], s.random)
			if err != nil {
				return err
			}
			bl := buttonLog{Table: n, Cards: map[string]string{}, Winner: b.Winner}
			pb := &tournamentv1.ButtonDraw{Table: int32(n), Cards: map[int32]string{}, ButtonSeat: int32(b.Winner)}
			for seat, c := range b.Cards {
				bl.Cards[strconv.Itoa(seat)] = c.String()
				pb.Cards[int32(seat)] = c.String()
			}
			if err := tx.AddDraw("button", bl, now); err != nil {
				return err
			}
			resp.Buttons = append(resp.Buttons, pb)
		}
		t.Event.Status = event.Running
		t.Clock.Started = now
		resp.Tournament = tournamentToProto(*t)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.drive(ctx, "start", req.GetTournamentId(), s.directorStart)
	return resp, nil
}

func (s *Server) directorStart(ctx context.Context, id string) error {
	return s.director.Start(ctx, id)
}

// directorSettle has the director balance or break tables that no hand's
// end will (TR-23, G-25): the floor took players out of play between hands.
func (s *Server) directorSettle(ctx context.Context, id string) error {
	return s.director.Settle(ctx, id)
}

func (s *Server) directorLevels(ctx context.Context, id string) error {
	return s.director.SyncLevels(ctx, id)
}

// drive has the director carry a committed change to the tables. What
// the table service does not take now, the director's recovery pass
// finishes (director.Run), so the change stands either way.
func (s *Server) drive(ctx context.Context, what, id string, step func(context.Context, string) error) {
	if s.director == nil {
		return
	}
	if err := step(ctx, id); err != nil {
		s.log.WarnContext(ctx, "tournament: tables not driven yet", "step", what, "tournament", id, "error", err)
	}
}

func (s *Server) clockResponse(t store.Tournament) *tournamentv1.GetClockResponse {
	return s.clockAt(t, s.now())
}

// clockAt is the clock as it reads at at.
func (s *Server) clockAt(t store.Tournament, at time.Time) *tournamentv1.GetClockResponse {
	started := !t.Clock.Started.IsZero()
	c := t.Clock
	if !started {
		// Before the start the clock shows level 1, full length.
		c.Started = at
	}
	p := c.At(at)
	return s.position(t, started, p)
}

func (s *Server) position(t store.Tournament, started bool, p levels.Position) *tournamentv1.GetClockResponse {
	return &tournamentv1.GetClockResponse{
		Started: started, LevelIndex: int32(p.Index), Level: levelToProto(p.Level),
		Remaining: durationpb.New(p.Remaining), Paused: !t.Clock.PausedAt.IsZero(), Overtime: p.Overtime,
	}
}

// GetClock returns the level in force now (G-07), or the level of a hand
// that started at hand_start_time (TR-20).
func (s *Server) GetClock(ctx context.Context, req *tournamentv1.GetClockRequest) (*tournamentv1.GetClockResponse, error) {
	t, err := s.store.Load(ctx, req.GetTournamentId())
	if err != nil {
		return nil, err
	}
	if req.GetHandStartTime() == nil {
		return s.clockResponse(t), nil
	}
	if t.Clock.Started.IsZero() {
		return nil, ErrNotRunning
	}
	at := req.GetHandStartTime().AsTime()
	i, l := t.Clock.ForHand(at)
	p := t.Clock.At(at)
	if p.Index != i {
		// The hand plays the level before a break it ran into.
		p = levels.Position{Index: i, Level: l}
	}
	return s.position(t, true, p), nil
}

// PauseClock stops the level clock of a running tournament.
func (s *Server) PauseClock(ctx context.Context, req *tournamentv1.PauseClockRequest) (*tournamentv1.PauseClockResponse, error) {
	t, err := s.updateClock(ctx, req.GetTournamentId(), true, req.GetReason())
	if err != nil {
		return nil, err
	}
	s.drive(ctx, "pause", req.GetTournamentId(), s.directorLevels)
	return &tournamentv1.PauseClockResponse{Clock: s.clockResponse(t)}, nil
}

// ResumeClock restarts it.
func (s *Server) ResumeClock(ctx context.Context, req *tournamentv1.ResumeClockRequest) (*tournamentv1.ResumeClockResponse, error) {
	t, err := s.updateClock(ctx, req.GetTournamentId(), false, req.GetReason())
	if err != nil {
		return nil, err
	}
	s.drive(ctx, "resume", req.GetTournamentId(), s.directorLevels)
	return &tournamentv1.ResumeClockResponse{Clock: s.clockResponse(t)}, nil
}

// updateClock pauses or resumes the clock and audits it with who and why
// in the same transaction (issue 13), as the floor's other clock controls.
func (s *Server) updateClock(ctx context.Context, id string, pause bool, reason string) (store.Tournament, error) {
	now := s.now()
	var out store.Tournament
	err := s.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		if t.Event.Status != event.Running {
			return ErrNotRunning
		}
		action := "clock_resume"
		var err error
		if pause {
			action, err = "clock_pause", t.Clock.Pause(now)
		} else {
			err = t.Clock.Resume(now)
		}
		if err != nil {
			return err
		}
		out = *t
		return tx.AddAudit(actor(ctx), action, map[string]any{"reason": reason, "level_index": t.Clock.At(now).Index}, now)
	})
	return out, err
}

// GetPayouts returns the published structure and the prizes it makes from
// the pool paid so far (TR-36, G-30).
func (s *Server) GetPayouts(ctx context.Context, req *tournamentv1.GetPayoutsRequest) (*tournamentv1.GetPayoutsResponse, error) {
	t, err := s.store.Load(ctx, req.GetTournamentId())
	if err != nil {
		return nil, err
	}
	return s.payouts(ctx, t)
}

// payouts is GetPayouts of a loaded tournament.
func (s *Server) payouts(ctx context.Context, t store.Tournament) (*tournamentv1.GetPayoutsResponse, error) {
	pool, entrants, err := s.store.Contributions(ctx, t.Event.ID)
	if err != nil {
		return nil, err
	}
	// G-36: the bounties are on the entrants' heads, not in the prizes.
	pool = t.Rules.PrizePool(pool, entrants)
	prizes := t.Rules.Payouts.Prizes(entrants, pool)
	if t.Event.Format == event.Satellite {
		// TR-19: whole seats in the target event, the remainder in cash (G-24).
		price, err := s.seatPrice(ctx, t.Event.ID)
		if err != nil || price <= 0 {
			return nil, err
		}
		prizes = nil
		for _, a := range standings.SatelliteAwards(placeholders(int(pool/price)+1), pool, price) {
			prizes = append(prizes, a.Amount)
		}
	}
	return &tournamentv1.GetPayoutsResponse{
		Structure: payoutsToProto(t.Rules.Payouts), Entrants: int32(entrants), PrizePool: pool,
		Prizes: prizes, Locked: standings.CheckChange(t.Event, s.now()) != nil,
	}, nil
}

// placeholders are n finishers in places 1..n, for showing what each
// place would be paid.
func placeholders(n int) []standings.Finish {
	out := make([]standings.Finish, n)
	for i := range out {
		out[i] = standings.Finish{PlayerID: strconv.Itoa(i + 1), Place: i + 1, Shared: 1}
	}
	return out
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
