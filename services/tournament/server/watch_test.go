package server_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/cardroom/cardroom/platform/auth"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
)

// TestWatchClock_G07: the clock's feed sends the whole picture, then one
// message for each change of it — an entry, the start, a break beginning
// as time runs (G-07), a pause and a resume — and nothing while only the
// time left runs down.
func TestWatchClock_G07(t *testing.T) {
	t.Parallel()
	f := startWithWallet(t, newFakeWallet(map[string]int64{"p00": 10000, "p01": 10000, "p02": 10000}))
	id := f.create(t, func(r *tournamentv1.CreateTournamentRequest) {
		r.Levels = []*tournamentv1.Level{
			{SmallBlind: 25, BigBlind: 50, Duration: durationpb.New(20 * time.Minute)},
			{Break: true, Duration: durationpb.New(10 * time.Minute)},
			{SmallBlind: 50, BigBlind: 100, Ante: 100, BigBlindAnte: true, Duration: durationpb.New(20 * time.Minute)},
		}
	})
	f.register(t, id, "p00")
	f.register(t, id, "p01")

	ctx, cancel := context.WithTimeout(f.g.As(t, "wall", auth.Player), 30*time.Second)
	defer cancel()
	feed, err := f.c.WatchClock(ctx, &tournamentv1.WatchClockRequest{TournamentId: id})
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		started, paused, brk bool
		index, left          int32
		remaining            time.Duration
	}
	// next reads the feed up to the picture of step. The fake clock's
	// moves wake the feed too, so a picture of the state before the step
	// may come first (the 6 h before the start did, under load); any other
	// picture is wrong.
	var prev *want
	next := func(step string, w want) *tournamentv1.WatchClockResponse {
		t.Helper()
		var m *tournamentv1.WatchClockResponse
		for {
			var err error
			if m, err = feed.Recv(); err != nil {
				t.Fatalf("%s: %v", step, err)
			}
			c := m.GetClock()
			got := want{c.GetStarted(), c.GetPaused(), c.GetLevel().GetBreak(), c.GetLevelIndex(), m.GetPlayersLeft(), c.GetRemaining().AsDuration()}
			if got == w {
				break
			}
			if prev == nil || got != *prev {
				t.Fatalf("%s: clock %+v, want %+v (%v)", step, got, w, m)
			}
		}
		prev = &w
		entrants := m.GetEntrants()
		if m.GetTournament().GetName() != "Monday Deepstack" || len(m.GetTournament().GetLevels()) != 3 ||
			m.GetPayouts().GetEntrants() != entrants || m.GetPayouts().GetPrizePool() != int64(entrants)*5000 ||
			m.GetChipsInPlay() != int64(entrants)*20000 {
			t.Fatalf("%s: %d entrants: %v", step, entrants, m)
		}
		return m
	}
	next("the first picture", want{left: 2, remaining: 20 * time.Minute})
	f.register(t, id, "p02")
	if m := next("an entry", want{left: 3, remaining: 20 * time.Minute}); m.GetEntrants() != 3 || len(m.GetPayouts().GetPrizes()) == 0 {
		t.Fatalf("after the third entry: %v", m)
	}
	f.clk.Advance(6 * time.Hour)
	if _, err := f.c.StartTournament(f.floor, &tournamentv1.StartTournamentRequest{TournamentId: id}); err != nil {
		t.Fatal(err)
	}
	next("the start", want{started: true, left: 3, remaining: 20 * time.Minute})
	f.clk.Advance(20 * time.Minute)
	next("the break", want{started: true, brk: true, index: 1, left: 3, remaining: 10 * time.Minute})
	f.clk.Advance(4 * time.Minute)
	if _, err := f.c.PauseClock(f.floor, &tournamentv1.PauseClockRequest{TournamentId: id}); err != nil {
		t.Fatal(err)
	}
	next("the pause", want{started: true, paused: true, brk: true, index: 1, left: 3, remaining: 6 * time.Minute})
	f.clk.Advance(time.Hour)
	if _, err := f.c.ResumeClock(f.floor, &tournamentv1.ResumeClockRequest{TournamentId: id}); err != nil {
		t.Fatal(err)
	}
	next("the resume", want{started: true, brk: true, index: 1, left: 3, remaining: 6 * time.Minute})
	f.clk.Advance(6 * time.Minute)
	if m := next("level 2", want{started: true, index: 2, left: 3, remaining: 20 * time.Minute}); m.GetClock().GetLevel().GetAnte() != 100 {
		t.Fatalf("level 2: %v", m)
	}
}

// TestWatchClockRefusals: the feed answers as GetClock does for a
// tournament that does not exist and a caller with no token.
func TestWatchClockRefusals(t *testing.T) {
	t.Parallel()
	f := startWithWallet(t, nil)
	tests := []struct {
		ctx  context.Context
		id   string
		want codes.Code
	}{
		{f.g.As(t, "wall", auth.Player), "missing", codes.NotFound},
		{t.Context(), "missing", codes.Unauthenticated},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.want), func(t *testing.T) {
			feed, err := f.c.WatchClock(tt.ctx, &tournamentv1.WatchClockRequest{TournamentId: tt.id})
			if err == nil {
				_, err = feed.Recv()
			}
			if status.Code(err) != tt.want {
				t.Fatalf("WatchClock(%s) = %v, want %v", tt.id, err, tt.want)
			}
		})
	}
}
