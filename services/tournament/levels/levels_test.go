package levels

import (
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
	if _, ok := c.NextChange(fake.Now()); ok {
		t.Fatal("a paused clock has no next change")
	}
	if err := c.Resume(fake.Now()); err != nil {
		t.Fatal(err)
	}
	if err := c.Resume(fake.Now()); err == nil {
		t.Fatal("resumed a running clock")
	}
	next, ok := c.NextChange(fake.Now())
	if !ok || !next.Equal(start.Add(30*time.Minute)) {
		t.Fatalf("NextChange = %s, %v", next, ok)
	}
	fake.Set(next)
	if p := c.At(fake.Now()); p.Index != 1 {
		t.Fatalf("after the pause, level 2 starts at +30m: %+v", p)
	}
}
