package levels

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/fault"
)

var start = time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)

func sheet() Sheet {
	return Sheet{Levels: []Level{
		{SmallBlind: 25, BigBlind: 50, Duration: 20 * time.Minute},
		{SmallBlind: 50, BigBlind: 100, Duration: 20 * time.Minute},
		{Break: true, Duration: 10 * time.Minute, ColorUp: 25},
		{SmallBlind: 100, BigBlind: 200, Ante: 200, BigBlindAnte: true, Duration: 20 * time.Minute},
	}}
}

func TestSheetValidate_G07(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		edit   func(*Sheet)
		reason string
	}{
		{"G-07 valid sheet", func(*Sheet) {}, ""},
		{"G-07 default sheet", func(s *Sheet) { *s = DefaultSheet() }, ""},
		{"G-07 empty", func(s *Sheet) { s.Levels = nil }, "STRUCTURE_EMPTY"},
		{"G-07 only a break", func(s *Sheet) { s.Levels = []Level{{Break: true, Duration: time.Minute}} }, "STRUCTURE_EMPTY"},
		{"G-07 blinds go down", func(s *Sheet) { s.Levels[3].BigBlind = 75; s.Levels[3].SmallBlind = 25 }, "STRUCTURE_BLINDS_DECREASE"},
		{"zero duration", func(s *Sheet) { s.Levels[0].Duration = 0 }, "INVALID_ARGUMENT"},
		{"small blind above big", func(s *Sheet) { s.Levels[0].SmallBlind = 60 }, "INVALID_ARGUMENT"},
		{"break with blinds", func(s *Sheet) { s.Levels[2].BigBlind = 100 }, "INVALID_ARGUMENT"},
		{"two breaks in a row", func(s *Sheet) {
			s.Levels = append(s.Levels[:3], append([]Level{{Break: true, Duration: time.Minute}}, s.Levels[3:]...)...)
		}, "INVALID_ARGUMENT"},
		{"TR-22 colour-up outside a break", func(s *Sheet) { s.Levels[1].ColorUp = 25 }, "INVALID_ARGUMENT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := sheet()
			tt.edit(&s)
			err := s.Validate()
			if tt.reason == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if f, ok := fault.As(err); !ok || f.Reason != tt.reason {
				t.Fatalf("Validate = %v, want %s", err, tt.reason)
			}
		})
	}
}

func TestClockAt(t *testing.T) {
	t.Parallel()
	c := Clock{Sheet: sheet(), Started: start}
	tests := []struct {
		name      string
		at        time.Duration
		index     int
		remaining time.Duration
		brk       bool
		overtime  bool
	}{
		{"before the start is level 1", -time.Minute, 0, 20 * time.Minute, false, false},
		{"level 1", 5 * time.Minute, 0, 15 * time.Minute, false, false},
		{"level 2 begins on the minute", 20 * time.Minute, 1, 20 * time.Minute, false, false},
		{"break", 45 * time.Minute, 2, 5 * time.Minute, true, false},
		{"after the break", 50 * time.Minute, 3, 20 * time.Minute, false, false},
		{"past the sheet: the last level goes on", 3 * time.Hour, 3, 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := c.At(start.Add(tt.at))
			if p.Index != tt.index || p.Remaining != tt.remaining || p.Level.Break != tt.brk || p.Overtime != tt.overtime {
				t.Fatalf("At(+%s) = %+v", tt.at, p)
			}
		})
	}
}

func TestForHand_TR20(t *testing.T) {
	t.Parallel()
	c := Clock{Sheet: sheet(), Started: start}
	tests := []struct {
		name      string
		handStart time.Duration
		wantBB    int64
	}{
		{"TR-20 hand shuffled a second before the level ends plays the old level", 20*time.Minute - time.Second, 50},
		{"TR-20 hand shuffled as the level ends plays the new level", 20 * time.Minute, 100},
		{"TR-20 a table finishing into the break keeps the last level", 41 * time.Minute, 100},
		{"after the break", 51 * time.Minute, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, l := c.ForHand(start.Add(tt.handStart)); l.BigBlind != tt.wantBB {
				t.Fatalf("ForHand(+%s) = %+v, want big blind %d", tt.handStart, l, tt.wantBB)
			}
		})
	}
}

// TestClockPause drives the clock with a fake clock: a ten-minute pause
// pushes every later level back ten minutes.
func TestClockPause(t *testing.T) {
	t.Parallel()
	fake := clock.NewFake(start)
	c := Clock{Sheet: sheet(), Started: fake.Now()}
	fake.Advance(10 * time.Minute)
	if err := c.Pause(fake.Now()); err != nil {
		t.Fatal(err)
	}
	if err := c.Pause(fake.Now()); err == nil {
		t.Fatal("paused twice")
	}
	fake.Advance(10 * time.Minute)
	if p := c.At(fake.Now()); p.Index != 0 || p.Remaining != 10*time.Minute {
		t.Fatalf("paused clock moved: %+v", p)
	}
	if err := c.Resume(fake.Now()); err != nil {
		t.Fatal(err)
	}
	if err := c.Resume(fake.Now()); err == nil {
		t.Fatal("resumed a running clock")
	}
	fake.Set(start.Add(30*time.Minute - time.Nanosecond))
	if p := c.At(fake.Now()); p.Index != 0 {
		t.Fatalf("before +30m, level 1 still runs after the pause: %+v", p)
	}
	fake.Set(start.Add(30 * time.Minute))
	if p := c.At(fake.Now()); p.Index != 1 {
		t.Fatalf("after the pause, level 2 starts at +30m: %+v", p)
	}
}

// TestClockControl covers the floor's clock control (issue 13): add or
// remove time, go to any row forward or back, a break now; each counts as
// a change, and what is refused leaves the clock as it was.
func TestClockControl(t *testing.T) {
	t.Parallel()
	at := start.Add(5 * time.Minute) // level 1, 15 minutes left
	type want struct {
		index     int
		remaining time.Duration
		brk       bool
		rows      int
	}
	tests := []struct {
		name   string
		paused bool
		do     func(c *Clock) error
		want   want
		reason string
	}{
		{"add time", false, func(c *Clock) error { return c.AddTime(at, 3*time.Minute) }, want{0, 18 * time.Minute, false, 4}, ""},
		{"remove time", false, func(c *Clock) error { return c.AddTime(at, -10*time.Minute) }, want{0, 5 * time.Minute, false, 4}, ""},
		{"removing all the time left is skipping", false, func(c *Clock) error { return c.AddTime(at, -15*time.Minute) }, want{}, "CLOCK_TIME_OUT_OF_RANGE"},
		{"add time while paused", true, func(c *Clock) error { return c.AddTime(at, time.Minute) }, want{0, 16 * time.Minute, false, 4}, ""},
		{"go to the level after the break", false, func(c *Clock) error { return c.GoTo(at, 3) }, want{3, 20 * time.Minute, false, 4}, ""},
		{"go to the break", false, func(c *Clock) error { return c.GoTo(at, 2) }, want{2, 10 * time.Minute, true, 4}, ""},
		{"go back to the start of level 1", false, func(c *Clock) error { return c.GoTo(at, 0) }, want{0, 20 * time.Minute, false, 4}, ""},
		{"no such row", false, func(c *Clock) error { return c.GoTo(at, 4) }, want{}, "CLOCK_NO_SUCH_LEVEL"},
		{"break now cuts the level, which resumes after it", false, func(c *Clock) error { return c.BreakNow(at, 15*time.Minute) },
			want{1, 15 * time.Minute, true, 6}, ""},
		{"no break during a break", false, func(c *Clock) error {
			if err := c.GoTo(at, 2); err != nil {
				return err
			}
			return c.BreakNow(at, time.Minute)
		}, want{}, "CLOCK_ON_BREAK"},
		{"no control in overtime", false, func(c *Clock) error { return c.AddTime(start.Add(3*time.Hour), time.Minute) }, want{}, "CLOCK_OVERTIME"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Clock{Sheet: sheet(), Started: start}
			if tt.paused {
				if err := c.Pause(at); err != nil {
					t.Fatal(err)
				}
			}
			before := c
			err := tt.do(&c)
			if tt.reason != "" {
				f, ok := fault.As(err)
				if !ok || f.Reason != tt.reason {
					t.Fatalf("err = %v, want %s", err, tt.reason)
				}
				if tt.name != "no break during a break" && (c.Shift != before.Shift || c.Changes != before.Changes || len(c.Sheet.Levels) != 4) {
					t.Fatalf("a refused change moved the clock: %+v", c)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p := c.At(at)
			if p.Index != tt.want.index || p.Remaining != tt.want.remaining || p.Level.Break != tt.want.brk || len(c.Sheet.Levels) != tt.want.rows {
				t.Fatalf("after: %+v with %d rows, want %+v", p, len(c.Sheet.Levels), tt.want)
			}
			if c.Changes != before.Changes+1 {
				t.Fatalf("Changes = %d, want %d", c.Changes, before.Changes+1)
			}
		})
	}
}

// TestBreakNowKeepsTheLevelsTime_TR20: after a break called 5 minutes
// into level 1, level 1 plays its 15 minutes left, then level 2 as
// sheeted; a hand dealt in the break plays level 1 (the level before it).
func TestBreakNowKeepsTheLevelsTime_TR20(t *testing.T) {
	t.Parallel()
	c := Clock{Sheet: sheet(), Started: start}
	if err := c.BreakNow(start.Add(5*time.Minute), 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		at    time.Duration
		big   int64
		brk   bool
		index int
	}{
		{4 * time.Minute, 50, false, 0},
		{6 * time.Minute, 0, true, 1},
		{15 * time.Minute, 50, false, 2},
		{29 * time.Minute, 50, false, 2},
		{30 * time.Minute, 100, false, 3},
	}
	for _, ch := range checks {
		p := c.At(start.Add(ch.at))
		if p.Index != ch.index || p.Level.BigBlind != ch.big || p.Level.Break != ch.brk {
			t.Fatalf("At(+%s) = %+v", ch.at, p)
		}
	}
	if _, l := c.ForHand(start.Add(7 * time.Minute)); l.BigBlind != 50 {
		t.Fatalf("a hand dealt in the break plays %+v", l)
	}
}

// TestChangeFuture_TR03: in play the levels after the one in force may
// change (the clock stays where it stood, the change counts for the
// tables' schedule); the level in force, one already played or a sheet
// cut short before it is refused with TR-03, leaving the clock as it was.
func TestChangeFuture_TR03(t *testing.T) {
	t.Parallel()
	at := start.Add(25 * time.Minute) // row 1 (level 2), 15 minutes left
	edit := func(f func(rows []Level) []Level) Sheet {
		return Sheet{Levels: f(slices.Clone(sheet().Levels))}
	}
	tests := []struct {
		name   string
		next   Sheet
		first  int
		reason string
		rule   string
	}{
		{"a later level's blinds", edit(func(r []Level) []Level { r[3].SmallBlind, r[3].BigBlind = 150, 300; return r }), 3, "", ""},
		{"a longer break to come", edit(func(r []Level) []Level { r[2].Duration = 30 * time.Minute; return r }), 2, "", ""},
		{"a level added at the end", edit(func(r []Level) []Level { return append(r, Level{SmallBlind: 100, BigBlind: 200, Duration: time.Hour}) }), 4, "", ""},
		{"the level in force", edit(func(r []Level) []Level { r[1].Duration = time.Hour; return r }), 0, "STRUCTURE_CHANGE_NOT_FUTURE", "TR-03"},
		{"a level played", edit(func(r []Level) []Level { r[0].Ante = 5; return r }), 0, "STRUCTURE_CHANGE_NOT_FUTURE", "TR-03"},
		{"the sheet cut before the level in force", edit(func(r []Level) []Level { return r[:1] }), 0, "STRUCTURE_CHANGE_NOT_FUTURE", "TR-03"},
		{"blinds going down", edit(func(r []Level) []Level { r[3].SmallBlind, r[3].BigBlind = 10, 20; return r }), 0, "STRUCTURE_BLINDS_DECREASE", "G-07"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Clock{Sheet: sheet(), Started: start}
			before := c.At(at)
			first, err := c.ChangeFuture(at, tt.next)
			if tt.reason != "" {
				f, ok := fault.As(err)
				if !ok || f.Reason != tt.reason || f.Rule != tt.rule {
					t.Fatalf("err = %v, want %s (%s)", err, tt.reason, tt.rule)
				}
				if c.Changes != 0 || !slices.Equal(c.Sheet.Levels, sheet().Levels) {
					t.Fatalf("a refused change moved the clock: %+v", c)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if first != tt.first || c.Changes != 1 || !slices.Equal(c.Sheet.Levels, tt.next.Levels) {
				t.Fatalf("first = %d (want %d), changes %d, sheet %+v", first, tt.first, c.Changes, c.Sheet)
			}
			if after := c.At(at); after != before {
				t.Fatalf("the clock moved: %+v, was %+v", after, before)
			}
		})
	}
	if _, err := (&Clock{Sheet: sheet(), Started: start}).ChangeFuture(start.Add(3*time.Hour), sheet()); !errors.Is(err, ErrOvertime) {
		t.Fatalf("overtime: %v", err)
	}
}

// TestClockAhead_G07: the lobby's next level and time to the next break
// from the published sheet, through a break, a pause and the last level.
func TestClockAhead_G07(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
	sheet := Sheet{Levels: []Level{
		{SmallBlind: 25, BigBlind: 50, Duration: 20 * time.Minute},
		{SmallBlind: 50, BigBlind: 100, Duration: 20 * time.Minute},
		{Break: true, Duration: 10 * time.Minute},
		{SmallBlind: 100, BigBlind: 200, Duration: 20 * time.Minute},
	}}
	paused := Clock{Sheet: sheet, Started: start, PausedAt: start.Add(5 * time.Minute)}
	for _, tc := range []struct {
		name  string
		clock Clock
		at    time.Duration
		want  Ahead
	}{
		{"level 1: level 2 next, the break after both", Clock{Sheet: sheet, Started: start}, 5 * time.Minute,
			Ahead{Next: sheet.Levels[1], HasNext: true, ToBreak: 35 * time.Minute, HasBreak: true}},
		{"level 2: the break skipped for the next level", Clock{Sheet: sheet, Started: start}, 30 * time.Minute,
			Ahead{Next: sheet.Levels[3], HasNext: true, ToBreak: 10 * time.Minute, HasBreak: true}},
		{"on the break: zero to the break", Clock{Sheet: sheet, Started: start}, 45 * time.Minute,
			Ahead{Next: sheet.Levels[3], HasNext: true, HasBreak: true}},
		{"the last level: nothing ahead", Clock{Sheet: sheet, Started: start}, 55 * time.Minute, Ahead{}},
		{"overtime: nothing ahead", Clock{Sheet: sheet, Started: start}, 90 * time.Minute, Ahead{}},
		{"paused: the time to the break stands still", paused, time.Hour,
			Ahead{Next: sheet.Levels[1], HasNext: true, ToBreak: 35 * time.Minute, HasBreak: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.clock.Ahead(start.Add(tc.at)); got != tc.want {
				t.Fatalf("Ahead = %+v, want %+v", got, tc.want)
			}
		})
	}
}
