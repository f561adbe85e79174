package waitlist

import (
	"fmt"
	"time"
)

// GamingDay is the house's gaming day (G-20): the "evening" of CS-09 and
// CS-14 runs from one cut-off to the next in the room's time zone, so a
// player still at the table at 02:00 is in the evening that began the day
// before.
type GamingDay struct {
	// Location is the room's time zone.
	Location *time.Location
	// Cutoff is the local time of day the gaming day turns over, for
	// example 6 h for 06:00.
	Cutoff time.Duration
}

// Of names the gaming day t falls in ("2026-11-30"), by its date at the
// start. It compares wall-clock times, so DST days (23 or 25 hours) still
// turn over at the cut-off.
func (d GamingDay) Of(t time.Time) string {
	loc := d.Location
	if loc == nil {
		loc = time.UTC
	}
	lt := t.In(loc)
	y, m, day := lt.Date()
	h, rest := int(d.Cutoff/time.Hour), d.Cutoff%time.Hour
	cut := time.Date(y, m, day, h, int(rest/time.Minute), 0, 0, loc)
	if lt.Before(cut) {
		lt = time.Date(y, m, day-1, 12, 0, 0, 0, loc)
	}
	return lt.Format(time.DateOnly)
}

// Validate checks the cut-off is a time of day.
func (d GamingDay) Validate() error {
	if d.Cutoff < 0 || d.Cutoff >= 24*time.Hour {
		return ErrTimerOutOfRange.Withf("gaming-day cut-off %v is not a time of day", d.Cutoff).With("field", "gaming_day_cutoff")
	}
	return nil
}

// String describes the day's boundary, for logs.
func (d GamingDay) String() string {
	return fmt.Sprintf("gaming day from %02d:%02d %v", int(d.Cutoff/time.Hour), int(d.Cutoff%time.Hour/time.Minute), d.Location)
}
