package server

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/balance"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/standings"
	"github.com/cardroom/cardroom/services/tournament/store"
)

func handForHandToProto(h balance.HandForHand) *tournamentv1.HandForHand {
	pb := &tournamentv1.HandForHand{Active: h.Active, Round: int32(h.Round)}
	for _, tb := range h.Tables {
		n, _ := strconv.Atoi(tb)
		if slices.Contains(h.Done, tb) {
			pb.Waiting = append(pb.Waiting, int32(n))
		} else {
			pb.Playing = append(pb.Playing, int32(n))
		}
	}
	return pb
}

// SetHandForHand starts hand-for-hand over the tables with players, or
// stops it (G-26), placing knock-outs still waiting for their round.
func (s *Server) SetHandForHand(ctx context.Context, req *tournamentv1.SetHandForHandRequest) (*tournamentv1.SetHandForHandResponse, error) {
	id := req.GetTournamentId()
	price, err := s.seatPrice(ctx, id)
	if err != nil {
		return nil, err
	}
	now := s.now()
	resp := &tournamentv1.SetHandForHandResponse{}
	var pays []entry.Payment
	err = s.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		resp.Finishes, pays = nil, nil
		if t.Event.Status != event.Running {
			return ErrNotRunning
		}
		if !req.GetOn() {
			fs, ps, err := placePending(tx, t, price, now)
			if err != nil {
				return err
			}
			pays = ps
			for _, f := range fs {
				resp.Finishes = append(resp.Finishes, finishToProto(f))
			}
			t.HandForHand.Stop()
		} else {
			ens, err := tx.Entries()
			if err != nil {
				return err
			}
			var ids []string
			for _, n := range slices.Sorted(maps.Keys(tables(ens, t.Rules.SeatsPerTable, nil))) {
				ids = append(ids, strconv.Itoa(n))
			}
			t.HandForHand.Start(ids)
			t.HandForHand.Since = now
		}
		resp.HandForHand = handForHandToProto(t.HandForHand)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.desk.PayAll(ctx, id, pays)
	if !req.GetOn() {
		// The tables waiting for the round deal again (G-26); those it
		// cannot reach now are let go by the director's recovery pass.
		s.drive(ctx, "hand-for-hand off", id, s.director.EndHandForHand)
	}
	return resp, nil
}

// ReportHandEnded records a table's hand-for-hand hand (G-26); the last
// table's report ends the round and places its knock-outs (TR-37).
func (s *Server) ReportHandEnded(ctx context.Context, req *tournamentv1.ReportHandEndedRequest) (*tournamentv1.ReportHandEndedResponse, error) {
	id := req.GetTournamentId()
	price, err := s.seatPrice(ctx, id)
	if err != nil {
		return nil, err
	}
	now := s.now()
	resp := &tournamentv1.ReportHandEndedResponse{}
	var pays []entry.Payment
	err = s.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		resp.Finishes, resp.Finished, pays = nil, false, nil
		next, fs, ps, err := handEnded(tx, t, int(req.GetTable()), price, now)
		if err != nil {
			return err
		}
		resp.NextRound, pays = next, ps
		for _, f := range fs {
			resp.Finishes = append(resp.Finishes, finishToProto(f))
		}
		resp.Finished = t.Event.Status.PlayOver()
		resp.HandForHand = handForHandToProto(t.HandForHand)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.desk.PayAll(ctx, id, pays)
	return resp, nil
}

// handEnded records that a table finished its hand-for-hand hand (G-26);
// when it was the round's last table, the round's knock-outs are placed
// (TR-37). ReportHandEnded (the floor) and the table.hand_ended consumer
// (the tables) both end a table's hand through it.
func handEnded(tx *store.Tx, t *store.Tournament, table int, price int64, now time.Time) (next bool, fs []standings.Finish, pays []entry.Payment, err error) {
	next, err = t.HandForHand.HandEnded(strconv.Itoa(table))
	if err != nil || !next {
		return next, nil, nil, err
	}
	fs, pays, err = placePending(tx, t, price, now)
	return next, fs, pays, err
}

// UpdatePayouts replaces the payout structure until the start (TR-36).
func (s *Server) UpdatePayouts(ctx context.Context, req *tournamentv1.UpdatePayoutsRequest) (*tournamentv1.UpdatePayoutsResponse, error) {
	now := s.now()
	structure := rulesFromProto(&tournamentv1.CreateTournamentRequest{Payouts: req.GetPayouts()}).Payouts
	if err := structure.Validate(); err != nil {
		return nil, err
	}
	resp := &tournamentv1.UpdatePayoutsResponse{}
	err := s.store.Update(ctx, req.GetTournamentId(), func(tx *store.Tx, t *store.Tournament) error {
		if err := standings.CheckChange(t.Event, now); err != nil {
			return err
		}
		detail := map[string]any{"from": t.Rules.Payouts, "to": structure}
		t.Rules.Payouts = structure
		resp.Tournament = tournamentToProto(*t)
		return tx.AddAudit(actor(ctx), "update_payouts", detail, now)
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// ClaimSeat checks the person at an entry's seat (TR-05). A forfeit is
// recorded even though the call reports the refusal.
func (s *Server) ClaimSeat(ctx context.Context, req *tournamentv1.ClaimSeatRequest) (*tournamentv1.ClaimSeatResponse, error) {
	var claimErr error
	var en entry.Entry
	err := s.store.Update(ctx, req.GetTournamentId(), func(tx *store.Tx, _ *store.Tournament) error {
		cur, err := tx.Entry(req.GetPlayerId())
		if err != nil {
			return err
		}
		if cur == nil {
			return entry.ErrNotRegistered.Withf("%s has no entry", req.GetPlayerId())
		}
		en = *cur
		claimErr = entry.Claim(&en, req.GetPresenterId(), req.GetForfeit())
		if en.Status == entry.Forfeited {
			en.Table, en.Seat = 0, 0
			return tx.PutEntry(en)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if claimErr != nil {
		return nil, claimErr
	}
	return &tournamentv1.ClaimSeatResponse{Entry: entryToProto(en)}, nil
}

// ConfiscateBlinds settles dodged blinds (TR-24) and logs the decision.
func (s *Server) ConfiscateBlinds(ctx context.Context, req *tournamentv1.ConfiscateBlindsRequest) (*tournamentv1.ConfiscateBlindsResponse, error) {
	now := s.now()
	resp := &tournamentv1.ConfiscateBlindsResponse{}
	err := s.store.Update(ctx, req.GetTournamentId(), func(tx *store.Tx, t *store.Tournament) error {
		if t.Event.Status != event.Running {
			return ErrNotRunning
		}
		en, err := tx.Entry(req.GetPlayerId())
		if err != nil {
			return err
		}
		if en == nil || en.Status != entry.Active {
			return entry.ErrEntryNotActive.Withf("%s is not in play", req.GetPlayerId())
		}
		resp.Stack, resp.DeadMoney = balance.DodgedBlinds(req.GetStack(), req.GetSmallBlind(), req.GetBigBlind(), req.GetMissedSmall(), req.GetMissedBig())
		return tx.AddDraw("confiscation", map[string]any{"player_id": en.PlayerID, "table": en.Table, "seat": en.Seat,
			"stack": resp.Stack, "dead_money": resp.DeadMoney, "rule_id": "TR-24"}, now)
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// ListDraws returns the draw log.
func (s *Server) ListDraws(ctx context.Context, req *tournamentv1.ListDrawsRequest) (*tournamentv1.ListDrawsResponse, error) {
	if _, err := s.store.Load(ctx, req.GetTournamentId()); err != nil {
		return nil, err
	}
	draws, err := s.store.Draws(ctx, req.GetTournamentId())
	if err != nil {
		return nil, err
	}
	resp := &tournamentv1.ListDrawsResponse{}
	for _, d := range draws {
		resp.Draws = append(resp.Draws, &tournamentv1.DrawRecord{Seq: int32(d.Seq), Kind: d.Kind, RecordJson: string(d.Record),
			CreateTime: timestamppb.New(d.CreatedAt)})
	}
	return resp, nil
}
