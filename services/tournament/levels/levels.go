// Package levels holds a tournament's structure sheet (G-07: blinds,
// antes, level lengths and breaks, published by the house) and its level
// clock. Which level a hand plays is decided by the time the hand started
// (TR-20: a new level takes effect from the next hand). It is pure: every
// question takes the time.
package levels

import (
	"slices"
	"strconv"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
)

// Level is one row of the structure sheet: a playing level or a break.
type Level struct {
	SmallBlind int64 `json:"small_blind,omitempty"`
	BigBlind   int64 `json:"big_blind,omitempty"`
	// Ante is each player's ante; with BigBlindAnte the big blind posts
	// it alone, for the table.
	Ante         int64         `json:"ante,omitempty"`
	BigBlindAnte bool          `json:"big_blind_ante,omitempty"`
	Duration     time.Duration `json:"duration"`
	// Break marks a break: no blinds, no hands.
	Break bool `json:"break,omitempty"`
	// ColorUp names the chip denomination raced off during this break
	// (TR-22); zero when none is.
	ColorUp int64 `json:"color_up,omitempty"`
}

// Sheet is a structure sheet: the levels in order. After the last level
// ends, the last playing level goes on until the event ends.
type Sheet struct {
	Levels []Level `json:"levels"`
}

// Validate checks the sheet: at least one playing level, blinds that never
// go down, positive durations, no two breaks in a row.
func (s Sheet) Validate() error {
	if len(s.Levels) == 0 {
		return fault.Rule(fault.Invalid, "G-07", "STRUCTURE_EMPTY", "a structure sheet needs at least one level").With("field", "levels")
	}
	var last *Level
	playing := 0
	for i := range s.Levels {
		l := &s.Levels[i]
		field := "levels[" + strconv.Itoa(i) + "]"
		if l.Duration <= 0 || l.Duration > 4*time.Hour {
			return fault.Invalidf(field+".duration", "must be between 1ns and 4h, got %s", l.Duration)
		}
		if l.Break {
			if l.SmallBlind != 0 || l.BigBlind != 0 || l.Ante != 0 {
				return fault.Invalidf(field, "a break has no blinds")
			}
			if i > 0 && s.Levels[i-1].Break {
				return fault.Invalidf(field, "two breaks in a row")
			}
			continue
		}
		if l.ColorUp != 0 {
			return fault.Invalidf(field+".color_up", "chips are raced off during breaks")
		}
		playing++
		switch {
		case l.BigBlind <= 0 || l.SmallBlind < 0 || l.SmallBlind > l.BigBlind || l.Ante < 0:
			return fault.Invalidf(field, "needs 0 <= small blind <= big blind, big blind > 0, ante >= 0")
		case last != nil && (l.BigBlind < last.BigBlind || l.SmallBlind < last.SmallBlind):
			return fault.Rule(fault.Invalid, "G-07", "STRUCTURE_BLINDS_DECREASE", field+": blinds never go down").With("field", field)
		}
		last = l
	}
	if playing == 0 {
		return fault.Rule(fault.Invalid, "G-07", "STRUCTURE_EMPTY", "a structure sheet needs at least one playing level").With("field", "levels")
	}
	return nil
}

// DefaultSheet is the structure a new event gets when the house publishes
// none: 20-minute levels from 25/50 and a 15-minute break after every
// fourth level, with the 25s raced off at the second break. It is an
// example of the house's sheet (G-07), not a rule.
func DefaultSheet() Sheet {
	blinds := [][3]int64{{25, 50, 0}, {50, 100, 0}, {75, 150, 0}, {100, 200, 200}, {150, 300, 300}, {200, 400, 400},
		{300, 600, 600}, {400, 800, 800}, {500, 1000, 1000}, {600, 1200, 1200}, {800, 1600, 1600}, {1000, 2000, 2000}}
	var s Sheet
	for i, b := range blinds {
		s.Levels = append(s.Levels, Level{SmallBlind: b[0], BigBlind: b[1], Ante: b[2], BigBlindAnte: b[2] > 0, Duration: 20 * time.Minute})
		if i%4 == 3 && i != len(blinds)-1 {
			brk := Level{Break: true, Duration: 15 * time.Minute}
			if i == 7 {
				brk.ColorUp = 25
			}
			s.Levels = append(s.Levels, brk)
		}
	}
	return s
}

// Clock is an event's level clock: the sheet, when level 1 started, and
// the time it stood still while the director paused it.
type Clock struct {
	Sheet   Sheet
	Started time.Time
	// PausedAt is when the clock was paused; zero while it runs.
	PausedAt time.Time
	// Paused is the total of finished pauses.
	Paused time.Duration
	// Shift is the clock time the floor moved the clock on by (negative:
	// back), going to another row (GoTo).
	Shift time.Duration
	// Changes counts the floor's changes to the clock, for the revision of
	// the schedule the tables get.
	Changes int64
}

// Position is where the clock stands at an instant.
type Position struct {
	// Index is the row of the sheet (0-based), breaks included.
	Index int
	Level Level
	// Remaining is the time left in the row; zero past the last row.
	Remaining time.Duration
	// Overtime is set past the last row: the last playing level goes on.
	Overtime bool
}

// elapsed is the clock time played by t.
func (c Clock) elapsed(t time.Time) time.Duration {
	if !c.PausedAt.IsZero() && t.After(c.PausedAt) {
		t = c.PausedAt
	}
	d := t.Sub(c.Started) - c.Paused + c.Shift
	return max(d, 0)
}

// At returns the row in force at t.
func (c Clock) At(t time.Time) Position {
	d := c.elapsed(t)
	for i, l := range c.Sheet.Levels {
		if d < l.Duration {
			return Position{Index: i, Level: l, Remaining: l.Duration - d}
		}
		d -= l.Duration
	}
	i := c.lastPlaying()
	return Position{Index: i, Level: c.Sheet.Levels[i], Overtime: true}
}

func (c Clock) lastPlaying() int {
	for i := len(c.Sheet.Levels) - 1; i >= 0; i-- {
		if !c.Sheet.Levels[i].Break {
			return i
		}
	}
	return 0
}

// ForHand returns the blinds for a hand that started (first shuffle, or
// the deal in digital play) at handStart (TR-20). A level that comes into
// force during a hand applies from the next hand: the hand keeps the level
// in force when it started. A hand that starts during a break (the
// director let a table finish) plays the last playing level before it.
func (c Clock) ForHand(handStart time.Time) (index int, l Level) {
	p := c.At(handStart)
	i := p.Index
	for i > 0 && c.Sheet.Levels[i].Break {
		i--
	}
	if c.Sheet.Levels[i].Break { // a sheet that opens with a break
		for i < len(c.Sheet.Levels)-1 && c.Sheet.Levels[i].Break {
			i++
		}
	}
	return i, c.Sheet.Levels[i]
}

// Clock failures.
var (
	ErrAlreadyPaused = fault.New(fault.Precondition, "CLOCK_PAUSED", "the clock is already paused")
	ErrNotPaused     = fault.New(fault.Precondition, "CLOCK_RUNNING", "the clock is not paused")
)

// Pause stops the clock at t.
func (c *Clock) Pause(t time.Time) error {
	if !c.PausedAt.IsZero() {
		return ErrAlreadyPaused
	}
	c.PausedAt = t
	return nil
}

// Resume restarts the clock at t; the pause does not count.
func (c *Clock) Resume(t time.Time) error {
	if c.PausedAt.IsZero() {
		return ErrNotPaused
	}
	if t.After(c.PausedAt) {
		c.Paused += t.Sub(c.PausedAt)
	}
	c.PausedAt = time.Time{}
	return nil
}

// Clock control: the floor adds or removes time, goes to any row, or
// starts a break now (issue 13). Each edits the sheet or moves the clock
// by Shift, and counts in Changes so the schedule the tables get has a
// new revision (TR-20: the next hand at every table plays the level then
// in force).

// Clock control failures.
var (
	ErrOvertime   = fault.New(fault.Precondition, "CLOCK_OVERTIME", "the clock is past the last row of the sheet")
	ErrOnBreak    = fault.New(fault.Precondition, "CLOCK_ON_BREAK", "a break is in force already")
	ErrNoSuchRow  = fault.New(fault.Invalid, "CLOCK_NO_SUCH_LEVEL", "no such row of the structure sheet")
	ErrTimeTooBig = fault.New(fault.Invalid, "CLOCK_TIME_OUT_OF_RANGE", "the time would leave the row in force with no time or more than its length allows")
)

// AddTime lengthens the row in force at t by d (shortens it for a
// negative d): the sheet's row changes, so later rows move with it. The
// row keeps at least a second left, so removing time never skips a level
// (going to the next one is GoTo's), and no row runs over 4h.
func (c *Clock) AddTime(t time.Time, d time.Duration) error {
	p := c.At(t)
	if p.Overtime {
		return ErrOvertime
	}
	left := p.Remaining + d
	if d == 0 || left < time.Second || p.Level.Duration+d > 4*time.Hour {
		return ErrTimeTooBig.Withf("%s left in the row, %s asked", p.Remaining, d)
	}
	rows := slices.Clone(c.Sheet.Levels)
	rows[p.Index].Duration += d
	c.Sheet = Sheet{Levels: rows}
	c.Changes++
	return nil
}

// GoTo makes row index (0-based, breaks included) start at t, full
// length, going forward or back.
func (c *Clock) GoTo(t time.Time, index int) error {
	if index < 0 || index >= len(c.Sheet.Levels) {
		return ErrNoSuchRow.Withf("row %d of %d", index, len(c.Sheet.Levels))
	}
	var offset time.Duration
	for _, l := range c.Sheet.Levels[:index] {
		offset += l.Duration
	}
	c.Shift += offset - c.elapsed(t)
	c.Changes++
	return nil
}

// BreakNow starts a break of length d at t. The level in force is cut
// where it stands and resumes after the break with the time it had left,
// so the break takes no playing time from anyone; a level not begun yet
// simply follows the break. The sheet grows by the break (and the rest of
// the cut level), so later rows move down the sheet.
func (c *Clock) BreakNow(t time.Time, d time.Duration) error {
	p := c.At(t)
	switch {
	case p.Overtime:
		return ErrOvertime
	case p.Level.Break:
		return ErrOnBreak
	case d <= 0 || d > 4*time.Hour:
		return ErrTimeTooBig.Withf("a break of %s", d)
	}
	rows := slices.Clone(c.Sheet.Levels[:p.Index])
	played := p.Level.Duration - p.Remaining
	if played > 0 {
		head := p.Level
		head.Duration = played
		rows = append(rows, head)
	}
	rest := p.Level
	rest.Duration = p.Remaining
	rows = append(rows, Level{Break: true, Duration: d}, rest)
	rows = append(rows, c.Sheet.Levels[p.Index+1:]...)
	sheet := Sheet{Levels: rows}
	if err := sheet.Validate(); err != nil {
		return err
	}
	c.Sheet = sheet
	c.Changes++
	return nil
}

// ErrNotFuture refuses an in-play structure change that touches the row
// in force or one already played: management may change an event in play
// (TR-03), but only the levels to come, so no hand changes its blinds
// under the players and the clock stands where it stood.
var ErrNotFuture = fault.Rule(fault.Precondition, "TR-03", "STRUCTURE_CHANGE_NOT_FUTURE",
	"in play only the levels after the one in force may change")

// ChangeFuture replaces the rows after the one in force at t with next's
// (TR-03): next must repeat every row up to and including the one in
// force unchanged. It returns the first row that changed. The change
// counts in Changes, so the tables get the new schedule.
func (c *Clock) ChangeFuture(t time.Time, next Sheet) (int, error) {
	if err := next.Validate(); err != nil {
		return 0, err
	}
	p := c.At(t)
	if p.Overtime {
		return 0, ErrOvertime
	}
	if len(next.Levels) <= p.Index {
		return 0, ErrNotFuture.Withf("the new sheet has %d rows; row %d is in force", len(next.Levels), p.Index)
	}
	for i := 0; i <= p.Index; i++ {
		if next.Levels[i] != c.Sheet.Levels[i] {
			return 0, ErrNotFuture.Withf("row %d changes; row %d is in force", i, p.Index)
		}
	}
	first := p.Index + 1
	for first < len(next.Levels) && first < len(c.Sheet.Levels) && next.Levels[first] == c.Sheet.Levels[first] {
		first++
	}
	c.Sheet = Sheet{Levels: slices.Clone(next.Levels)}
	c.Changes++
	return first, nil
}

// Ahead is what a lobby shows of the sheet past the row in force.
type Ahead struct {
	// Next is the next playing level after the row in force; HasNext is
	// false in the last one (and in overtime).
	Next    Level
	HasNext bool
	// ToBreak is the clock time until the next break starts (zero during
	// a break); HasBreak is false when no break is ahead.
	ToBreak  time.Duration
	HasBreak bool
}

// Ahead returns the next playing level and the time to the next break as
// the clock stands at t (G-07). The times are clock time: while the clock
// is paused they do not run down.
func (c Clock) Ahead(t time.Time) Ahead {
	p := c.At(t)
	var a Ahead
	if p.Overtime {
		return a
	}
	if p.Level.Break {
		a.HasBreak = true
	}
	until := p.Remaining
	for _, l := range c.Sheet.Levels[p.Index+1:] {
		if l.Break && !a.HasBreak {
			a.ToBreak, a.HasBreak = until, true
		}
		if !l.Break && !a.HasNext {
			a.Next, a.HasNext = l, true
		}
		until += l.Duration
	}
	return a
}
