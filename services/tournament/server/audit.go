package server

import (
	"context"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/levels"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// UpdateTournament renames, reschedules or replaces the structure sheet
// of a scheduled tournament (TR-03, G-07), or changes the levels to come
// of a running one (TR-03, refused for the level in force or one played),
// and audits the change with who and why.
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
	inPlay := false
	err := s.store.Update(ctx, req.GetTournamentId(), func(tx *store.Tx, t *store.Tournament) error {
		if t.Event.Status == event.Running && req.GetName() == "" && req.GetStartTime() == nil && len(sheet.Levels) > 0 {
			// TR-03 in play: the levels to come only, so no hand changes
			// its blinds under the players and the clock stays put.
			index := t.Clock.At(now).Index
			first, err := t.Clock.ChangeFuture(now, sheet)
			if err != nil {
				return err
			}
			t.Rules.Sheet = t.Clock.Sheet
			inPlay = true
			resp.Tournament = tournamentToProto(*t)
			return tx.AddAudit(actor(ctx), "update_structure", map[string]any{"reason": req.GetReason(),
				"level_index": index, "first_changed": first, "levels": len(sheet.Levels)}, now)
		}
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
	if inPlay {
		// The tables' next hands play the new schedule (TR-20).
		s.drive(ctx, "update_structure", req.GetTournamentId(), s.directorLevels)
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
