package server

import (
	"context"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cardroom/cardroom/platform/auth"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/levels"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// actor is the caller's subject for the audit log.
func actor(ctx context.Context) string {
	p, _ := auth.FromContext(ctx)
	return p.Subject
}

// UpdateTournament renames, reschedules or replaces the structure sheet
// of a scheduled tournament (TR-03, G-07) and audits the change.
func (s *Server) UpdateTournament(ctx context.Context, req *tournamentv1.UpdateTournamentRequest) (*tournamentv1.UpdateTournamentResponse, error) {
	now := s.now()
	var sheet levels.Sheet
	if len(req.GetLevels()) > 0 {
		sheet = rulesFromProto(&tournamentv1.CreateTournamentRequest{Levels: req.GetLevels()}).Sheet
		if err := sheet.Validate(); err != nil {
			return nil, err
		}
	}
	resp := &tournamentv1.UpdateTournamentResponse{}
	err := s.store.Update(ctx, req.GetTournamentId(), func(tx *store.Tx, t *store.Tournament) error {
		before := t.Event
		startsAt := before.StartsAt
		if req.GetStartTime() != nil {
			startsAt = req.GetStartTime().AsTime().UTC().Truncate(time.Millisecond)
		}
		if err := t.Event.Change(req.GetName(), startsAt, now); err != nil {
			return err
		}
		detail := map[string]any{"reason": req.GetReason()}
		if t.Event.Name != before.Name {
			detail["name"] = map[string]string{"from": before.Name, "to": t.Event.Name}
		}
		if !t.Event.StartsAt.Equal(before.StartsAt) {
			detail["start_time"] = map[string]any{"from": before.StartsAt, "to": t.Event.StartsAt}
		}
		if len(sheet.Levels) > 0 {
			t.Rules.Sheet, t.Clock.Sheet = sheet, sheet
			detail["levels"] = len(sheet.Levels)
		}
		resp.Tournament = tournamentToProto(*t)
		return tx.AddAudit(actor(ctx), "update", detail, now)
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// ListAudit returns the management actions on a tournament.
func (s *Server) ListAudit(ctx context.Context, req *tournamentv1.ListAuditRequest) (*tournamentv1.ListAuditResponse, error) {
	if _, err := s.store.Load(ctx, req.GetTournamentId()); err != nil {
		return nil, err
	}
	log, err := s.store.Audit(ctx, req.GetTournamentId())
	if err != nil {
		return nil, err
	}
	resp := &tournamentv1.ListAuditResponse{}
	for _, a := range log {
		resp.Records = append(resp.Records, &tournamentv1.AuditRecord{Seq: int32(a.Seq), Actor: a.Actor, Action: a.Action,
			DetailJson: string(a.Detail), CreateTime: timestamppb.New(a.CreatedAt)})
	}
	return resp, nil
}
