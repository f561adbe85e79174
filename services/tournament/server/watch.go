package server

import (
	"context"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/entry"
)

// watchPoll is how often a clock watch reads the tournament again. The
// tournament lives in the database every replica shares and its level
// turns over by time alone, with no one to announce it, so a watch polls:
// a quarter of a second keeps a pause, a new level or a break on the
// screens well within a second, for three small reads per watcher.
const watchPoll = 250 * time.Millisecond

// WatchClock streams what the tournament clock shows: the whole picture
// first, then again whenever something on it changes other than the time
// running down, until the caller goes away or the server stops.
func (s *Server) WatchClock(req *tournamentv1.WatchClockRequest, stream grpc.ServerStreamingServer[tournamentv1.WatchClockResponse]) error {
	ctx := stream.Context()
	tick := time.NewTicker(watchPoll)
	defer tick.Stop()
	var sent picture
	for first := true; ; first = false {
		p, err := s.picture(ctx, req.GetTournamentId())
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if first || !p.same(sent) {
			if err := stream.Send(p.msg); err != nil {
				return err
			}
			sent = p
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// picture is one reading of the clock and the time it was read at.
type picture struct {
	msg *tournamentv1.WatchClockResponse
	at  time.Time
}

// picture reads the tournament, its entries and its payouts as the clock
// shows them.
func (s *Server) picture(ctx context.Context, id string) (picture, error) {
	t, err := s.store.Load(ctx, id)
	if err != nil {
		return picture{}, err
	}
	ens, err := s.store.Entries(ctx, id)
	if err != nil {
		return picture{}, err
	}
	pay, err := s.payouts(ctx, t)
	if err != nil {
		return picture{}, err
	}
	at := s.now()
	msg := &tournamentv1.WatchClockResponse{Tournament: tournamentToProto(t), Clock: s.clockAt(t, at), Entrants: pay.GetEntrants(), Payouts: pay}
	policy := t.Rules.Entry
	for _, en := range ens {
		if en.Status != entry.Active && en.Status != entry.Busted {
			continue // never paid, or paid back
		}
		if en.Status == entry.Active {
			msg.PlayersLeft++
		}
		msg.ChipsInPlay += t.Event.StartingStack + int64(en.Rebuys)*policy.RebuyChips
		if en.AddOn {
			msg.ChipsInPlay += policy.AddOnChips
		}
	}
	return picture{msg: msg, at: at}, nil
}

// same reports whether p shows what o showed: the same everything, and a
// running level ending at the same moment (its time left differs only by
// the time between the readings).
func (p picture) same(o picture) bool {
	a, b := proto.CloneOf(p.msg), proto.CloneOf(o.msg)
	ca, cb := a.GetClock(), b.GetClock()
	ra, rb := ca.GetRemaining().AsDuration(), cb.GetRemaining().AsDuration()
	ca.Remaining, cb.Remaining = nil, nil
	if !proto.Equal(a, b) {
		return false
	}
	if ca.GetStarted() && !ca.GetPaused() && !ca.GetOvertime() {
		return p.at.Add(ra).Equal(o.at.Add(rb))
	}
	return ra == rb
}
