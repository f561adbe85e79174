package server

import (
	"context"
	"time"

	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/levels"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// AddClockTime adds time to the row in force, or removes it (issue 13).
func (s *Server) AddClockTime(ctx context.Context, req *tournamentv1.AddClockTimeRequest) (*tournamentv1.AddClockTimeResponse, error) {
	d := req.GetDelta().AsDuration()
	clock, err := s.controlClock(ctx, req.GetTournamentId(), "clock_add_time", req.GetReason(),
		map[string]any{"delta": d.String()}, func(c *levels.Clock, now time.Time) error { return c.AddTime(now, d) })
	if err != nil {
		return nil, err
	}
	return &tournamentv1.AddClockTimeResponse{Clock: clock}, nil
}

// SetClockLevel starts a row of the sheet now: any row, or a step forward
// or back from the row in force (issue 13).
func (s *Server) SetClockLevel(ctx context.Context, req *tournamentv1.SetClockLevelRequest) (*tournamentv1.SetClockLevelResponse, error) {
	detail := map[string]any{}
	clock, err := s.controlClock(ctx, req.GetTournamentId(), "clock_set_level", req.GetReason(), detail, func(c *levels.Clock, now time.Time) error {
		from := c.At(now).Index
		to := int(req.GetLevelIndex())
		if _, ok := req.GetTarget().(*tournamentv1.SetClockLevelRequest_Skip); ok {
			to = from + int(req.GetSkip())
		}
		detail["from_index"], detail["to_index"] = from, to
		return c.GoTo(now, to)
	})
	if err != nil {
		return nil, err
	}
	return &tournamentv1.SetClockLevelResponse{Clock: clock}, nil
}

// StartBreak starts a break now; the level in force resumes after it
// (issue 13).
func (s *Server) StartBreak(ctx context.Context, req *tournamentv1.StartBreakRequest) (*tournamentv1.StartBreakResponse, error) {
	d := req.GetDuration().AsDuration()
	clock, err := s.controlClock(ctx, req.GetTournamentId(), "clock_start_break", req.GetReason(),
		map[string]any{"duration": d.String()}, func(c *levels.Clock, now time.Time) error { return c.BreakNow(now, d) })
	if err != nil {
		return nil, err
	}
	return &tournamentv1.StartBreakResponse{Clock: clock}, nil
}

// controlClock applies one of the floor's clock changes to a running
// tournament, audits it with who and why in the same transaction, and has
// the director send the tables the new schedule (TR-20: their next hand
// plays the level then in force).
func (s *Server) controlClock(ctx context.Context, id, action, reason string, detail map[string]any,
	change func(*levels.Clock, time.Time) error) (*tournamentv1.GetClockResponse, error) {
	now := s.now()
	var out store.Tournament
	err := s.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		if t.Event.Status != event.Running {
			return ErrNotRunning
		}
		if err := change(&t.Clock, now); err != nil {
			return err
		}
		// A break now grows the sheet, which the clock reads from the rules.
		t.Rules.Sheet = t.Clock.Sheet
		detail["reason"] = reason
		detail["level_index"] = t.Clock.At(now).Index
		out = *t
		return tx.AddAudit(actor(ctx), action, detail, now)
	})
	if err != nil {
		return nil, err
	}
	s.drive(ctx, action, id, s.directorLevels)
	return s.clockResponse(out), nil
}
