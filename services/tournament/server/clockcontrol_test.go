package server_test

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
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

// TestInPlayStructureChange_TR03: a running event's levels to come change
// (admin, audited with who and why, the clock stays put and shows the new
// level when it comes); the level in force or one played is refused with
// TR-03, as is a rename in play; pausing and resuming the clock is
// audited too (issue 13).
func TestInPlayStructureChange_TR03(t *testing.T) {
	t.Parallel()
	f := startWithWallet(t, nil)
	id := f.create(t, nil)
	f.register(t, id, "a")
	f.register(t, id, "b")
	f.clk.Advance(6 * time.Hour)
	if _, err := f.c.StartTournament(f.floor, &tournamentv1.StartTournamentRequest{TournamentId: id}); err != nil {
		t.Fatal(err)
	}
	f.clk.Advance(25 * time.Minute) // row 1 in force
	got, err := f.c.GetTournament(f.floor, &tournamentv1.GetTournamentRequest{TournamentId: id})
	if err != nil {
		t.Fatal(err)
	}
	rows := got.GetTournament().GetLevels()
	before, _ := f.c.GetClock(f.floor, &tournamentv1.GetClockRequest{TournamentId: id})
	if before.GetLevelIndex() != 1 || len(rows) < 3 {
		t.Fatalf("clock %v over %d rows", before, len(rows))
	}
	change := func(i int, f func(l *tournamentv1.Level)) []*tournamentv1.Level {
		out := make([]*tournamentv1.Level, len(rows))
		for j, l := range rows {
			out[j] = proto.Clone(l).(*tournamentv1.Level)
		}
		f(out[i])
		return out
	}
	longer := change(2, func(l *tournamentv1.Level) {
		l.Duration = durationpb.New(l.GetDuration().AsDuration() + 10*time.Minute)
	})
	if _, err := f.c.UpdateTournament(f.floor, &tournamentv1.UpdateTournamentRequest{TournamentId: id, Levels: longer, Reason: "x"}); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("TR-03 the floor changing the structure = %v", err)
	}
	up, err := f.c.UpdateTournament(f.admin, &tournamentv1.UpdateTournamentRequest{TournamentId: id, Levels: longer, Reason: "field is deep"})
	if err != nil || !proto.Equal(up.GetTournament().GetLevels()[2], longer[2]) {
		t.Fatalf("TR-03 future level change = %v, %v", up, err)
	}
	after, _ := f.c.GetClock(f.floor, &tournamentv1.GetClockRequest{TournamentId: id})
	if after.GetLevelIndex() != 1 || after.GetRemaining().AsDuration() != before.GetRemaining().AsDuration() {
		t.Fatalf("TR-03 the clock moved: %v, was %v", after, before)
	}
	rows = up.GetTournament().GetLevels()
	for _, bad := range [][]*tournamentv1.Level{
		change(1, func(l *tournamentv1.Level) { l.Duration = durationpb.New(time.Hour) }),
		change(0, func(l *tournamentv1.Level) { l.Ante = 5 }),
	} {
		_, err = f.c.UpdateTournament(f.admin, &tournamentv1.UpdateTournamentRequest{TournamentId: id, Levels: bad, Reason: "oops"})
		wantRule(t, err, codes.FailedPrecondition, "STRUCTURE_CHANGE_NOT_FUTURE", "TR-03")
	}
	_, err = f.c.UpdateTournament(f.admin, &tournamentv1.UpdateTournamentRequest{TournamentId: id, Name: "x", Levels: longer, Reason: "y"})
	wantRule(t, err, codes.FailedPrecondition, "EVENT_NOT_CHANGEABLE", "TR-03")

	if _, err := f.c.PauseClock(f.floor, &tournamentv1.PauseClockRequest{TournamentId: id, Reason: "medical"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.ResumeClock(f.admin, &tournamentv1.ResumeClockRequest{TournamentId: id, Reason: "all clear"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.ResumeClock(f.admin, &tournamentv1.ResumeClockRequest{TournamentId: id, Reason: "twice"}); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("resume twice = %v", err)
	}
	log, err := f.c.ListAudit(f.floor, &tournamentv1.ListAuditRequest{TournamentId: id})
	if err != nil {
		t.Fatal(err)
	}
	var acts []string
	for _, r := range log.GetRecords() {
		acts = append(acts, r.GetActor()+":"+r.GetAction()+":"+r.GetDetailJson())
	}
	want := []string{
		`admin-1:update_structure:{"first_changed":2,"level_index":1,"levels":` + strconv.Itoa(len(rows)) + `,"reason":"field is deep"}`,
		`floor-1:clock_pause:{"level_index":1,"reason":"medical"}`,
		`admin-1:clock_resume:{"level_index":1,"reason":"all clear"}`,
	}
	if !slices.Equal(acts, want) {
		t.Fatalf("audit\n%v\nwant\n%v", acts, want)
	}
}
