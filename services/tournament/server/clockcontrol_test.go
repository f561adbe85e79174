package server_test

import (
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/cardroom/cardroom/platform/auth"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
)

// TestClockControl_TR20 is the floor's clock control (issue 13): add and
// remove time, skip forward and back, go to a row, a break now; each
// audited with who and why; refusals name their reason; players may not.
func TestClockControl_TR20(t *testing.T) {
	t.Parallel()
	f := startWithWallet(t, nil)
	id := f.create(t, nil)
	f.register(t, id, "a")
	f.register(t, id, "b")
	if _, err := f.c.AddClockTime(f.floor, &tournamentv1.AddClockTimeRequest{TournamentId: id, Reason: "early",
		Delta: durationpb.New(time.Minute)}); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("clock control before the start = %v", err)
	}
	f.clk.Advance(6 * time.Hour)
	if _, err := f.c.StartTournament(f.floor, &tournamentv1.StartTournamentRequest{TournamentId: id}); err != nil {
		t.Fatal(err)
	}
	f.clk.Advance(5 * time.Minute) // level 1 (20 minutes), 15 left

	type want struct {
		index     int32
		remaining time.Duration
		brk       bool
	}
	steps := []struct {
		name string
		call func() (*tournamentv1.GetClockResponse, error)
		want want
	}{
		{"add 3 minutes", func() (*tournamentv1.GetClockResponse, error) {
			r, err := f.c.AddClockTime(f.floor, &tournamentv1.AddClockTimeRequest{TournamentId: id, Reason: "dealer change",
				Delta: durationpb.New(3 * time.Minute)})
			return r.GetClock(), err
		}, want{0, 18 * time.Minute, false}},
		{"remove 8 minutes", func() (*tournamentv1.GetClockResponse, error) {
			r, err := f.c.AddClockTime(f.admin, &tournamentv1.AddClockTimeRequest{TournamentId: id, Reason: "clock ran slow",
				Delta: durationpb.New(-8 * time.Minute)})
			return r.GetClock(), err
		}, want{0, 10 * time.Minute, false}},
		{"skip forward", func() (*tournamentv1.GetClockResponse, error) {
			r, err := f.c.SetClockLevel(f.floor, &tournamentv1.SetClockLevelRequest{TournamentId: id, Reason: "announced",
				Target: &tournamentv1.SetClockLevelRequest_Skip{Skip: 1}})
			return r.GetClock(), err
		}, want{1, 20 * time.Minute, false}},
		{"skip back", func() (*tournamentv1.GetClockResponse, error) {
			r, err := f.c.SetClockLevel(f.floor, &tournamentv1.SetClockLevelRequest{TournamentId: id, Reason: "skipped by mistake",
				Target: &tournamentv1.SetClockLevelRequest_Skip{Skip: -1}})
			return r.GetClock(), err
		}, want{0, 15 * time.Minute, false}}, // level 1 keeps the time added and removed
		{"go to level 3", func() (*tournamentv1.GetClockResponse, error) {
			r, err := f.c.SetClockLevel(f.floor, &tournamentv1.SetClockLevelRequest{TournamentId: id, Reason: "turbo finish",
				Target: &tournamentv1.SetClockLevelRequest_LevelIndex{LevelIndex: 2}})
			return r.GetClock(), err
		}, want{2, 20 * time.Minute, false}},
		{"break now", func() (*tournamentv1.GetClockResponse, error) {
			r, err := f.c.StartBreak(f.floor, &tournamentv1.StartBreakRequest{TournamentId: id, Reason: "fire drill",
				Duration: durationpb.New(10 * time.Minute)})
			return r.GetClock(), err
		}, want{2, 10 * time.Minute, true}},
	}
	for _, s := range steps {
		c, err := s.call()
		if err != nil || c.GetLevelIndex() != s.want.index || c.GetRemaining().AsDuration() != s.want.remaining || c.GetLevel().GetBreak() != s.want.brk {
			t.Fatalf("%s: clock %v, %v; want %+v", s.name, c, err, s.want)
		}
		got, err := f.c.GetClock(f.g.As(t, "a", auth.Player), &tournamentv1.GetClockRequest{TournamentId: id})
		if err != nil || got.GetLevelIndex() != s.want.index || got.GetRemaining().AsDuration() != s.want.remaining {
			t.Fatalf("%s: GetClock %v, %v", s.name, got, err)
		}
	}
	// Level 3 was cut at its start, so the break comes first and level 3
	// follows whole.
	f.clk.Advance(10 * time.Minute)
	if c, _ := f.c.GetClock(f.floor, &tournamentv1.GetClockRequest{TournamentId: id}); c.GetLevel().GetBreak() || c.GetLevel().GetBigBlind() != 150 ||
		c.GetRemaining().AsDuration() != 20*time.Minute {
		t.Fatalf("after the break: %v", c)
	}

	_, err := f.c.StartBreak(f.floor, &tournamentv1.StartBreakRequest{TournamentId: id, Reason: "x", Duration: durationpb.New(5 * time.Hour)})
	wantRule(t, err, codes.InvalidArgument, "CLOCK_TIME_OUT_OF_RANGE", "")
	_, err = f.c.SetClockLevel(f.floor, &tournamentv1.SetClockLevelRequest{TournamentId: id, Reason: "x",
		Target: &tournamentv1.SetClockLevelRequest_LevelIndex{LevelIndex: 99}})
	wantRule(t, err, codes.InvalidArgument, "CLOCK_NO_SUCH_LEVEL", "")
	_, err = f.c.AddClockTime(f.floor, &tournamentv1.AddClockTimeRequest{TournamentId: id, Reason: "x", Delta: durationpb.New(-time.Hour)})
	wantRule(t, err, codes.InvalidArgument, "CLOCK_TIME_OUT_OF_RANGE", "")
	if _, err := f.c.AddClockTime(f.floor, &tournamentv1.AddClockTimeRequest{TournamentId: id, Delta: durationpb.New(time.Minute)}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("clock control without a reason = %v", err)
	}
	if _, err := f.c.AddClockTime(f.g.As(t, "a", auth.Player), &tournamentv1.AddClockTimeRequest{TournamentId: id, Reason: "mine",
		Delta: durationpb.New(time.Minute)}); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("a player controlling the clock = %v", err)
	}

	log, err := f.c.ListAudit(f.floor, &tournamentv1.ListAuditRequest{TournamentId: id})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range log.GetRecords() {
		got = append(got, r.GetActor()+":"+r.GetAction())
	}
	wantLog := []string{"floor-1:clock_add_time", "admin-1:clock_add_time", "floor-1:clock_set_level", "floor-1:clock_set_level",
		"floor-1:clock_set_level", "floor-1:clock_start_break"}
	if !slices.Equal(got, wantLog) {
		t.Fatalf("audit %v, want %v", got, wantLog)
	}
	if d := log.GetRecords()[3].GetDetailJson(); d != `{"from_index":1,"level_index":0,"reason":"skipped by mistake","to_index":0}` {
		t.Fatalf("audit detail %s", d)
	}
}
