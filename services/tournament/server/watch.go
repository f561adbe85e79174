package server

import (
	"context"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/desk"
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
	return poll(stream.Context(), func(ctx context.Context) (picture, error) {
		p, err := s.desk.Picture(ctx, req.GetTournamentId())
		if err != nil {
			return picture{}, err
		}
		return pictureOf(p), nil
	}, picture.same, func(p picture) error { return stream.Send(p.msg) })
}

// poll reads a feed's view every watchPoll and sends it first and again
// whenever same says it changed, until ctx ends (the caller went away or
// the server stops: no error) or a read fails.
func poll[V any](ctx context.Context, read func(context.Context) (V, error), same func(V, V) bool, send func(V) error) error {
	tick := time.NewTicker(watchPoll)
	defer tick.Stop()
	var sent V
	for first := true; ; first = false {
		v, err := read(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if first || !same(v, sent) {
			if err := send(v); err != nil {
				return err
			}
			sent = v
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

// pictureOf is what the clock shows of the desk's picture.
func pictureOf(p desk.Picture) picture {
	msg := &tournamentv1.WatchClockResponse{Tournament: tournamentToProto(p.Tournament), Clock: clockToProto(p.Clock),
		Entrants: int32(p.Payouts.Entrants), Payouts: payoutsResponse(p.Payouts), PlayersLeft: int32(p.PlayersLeft), ChipsInPlay: p.ChipsInPlay}
	return picture{msg: msg, at: p.At}
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
	return p.running() == o.running() && sameDeadline(p.running(), p.at, ra, o.at, rb)
}

// running reports whether the clock's times run down between readings.
func (p picture) running() bool {
	c := p.msg.GetClock()
	return c.GetStarted() && !c.GetPaused() && !c.GetOvertime()
}

// sameDeadline reports whether a time left a read at at and b read at bt
// name the same moment: for a running clock, the same end; otherwise the
// same time left.
func sameDeadline(running bool, at time.Time, a time.Duration, bt time.Time, b time.Duration) bool {
	if running {
		return at.Add(a).Equal(bt.Add(b))
	}
	return a == b
}
