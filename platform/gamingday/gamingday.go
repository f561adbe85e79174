// Package gamingday holds the house's gaming day (RULES.md G-20): the
// "evening" that CS-09's one night, one stack and CS-14's one long break a
// day are counted in runs from one cut-off to the next in the room's time
// zone, so a player still at the table at 02:00 is in the evening that
// began the day before. The wallet and seating count the same days, so
// both read one Config.
package gamingday

import (
	"cmp"
	"fmt"
	"time"
)

// Day is a room's gaming day: where one ends and the next begins.
type Day struct {
	// Location is the room's time zone; nil means UTC.
	Location *time.Location
	// Cutoff is the local time of day the gaming day turns over, as a
	// duration after midnight (6h for 06:00).
	Cutoff time.Duration
}

// Of names the gaming day t falls in ("2026-11-30"): the calendar date on
// which that gaming day began. It compares the local wall clock with the
// cut-off, so a DST day of 23 or 25 hours still turns over at the cut-off.
func (d Day) Of(t time.Time) string {
	loc := d.Location
	loc = cmp.Or(loc, time.UTC)
	lt := t.In(loc)
	y, m, day := lt.Date()
	sinceMidnight := time.Duration(lt.Hour())*time.Hour + time.Duration(lt.Minute())*time.Minute +
		time.Duration(lt.Second())*time.Second + time.Duration(lt.Nanosecond())
	if sinceMidnight < d.Cutoff {
		day--
	}
	return time.Date(y, m, day, 12, 0, 0, 0, time.UTC).Format(time.DateOnly)
}

// Validate checks that the cut-off is a time of day.
func (d Day) Validate() error {
	if d.Cutoff < 0 || d.Cutoff >= 24*time.Hour {
		return fmt.Errorf("gaming-day cut-off %v is not a time of day (0 to 24h)", d.Cutoff)
	}
	return nil
}

// String describes the day's boundary, for logs.
func (d Day) String() string {
	loc := d.Location
	loc = cmp.Or(loc, time.UTC)
	return fmt.Sprintf("gaming day from %02d:%02d %v", int(d.Cutoff/time.Hour), int(d.Cutoff%time.Hour/time.Minute), loc)
}

// Config is the room's gaming day as environment variables, with
// platform/config's tags; the wallet's and seating's settings embed it, so
// both count the same days.
type Config struct {
	// TimeZone is the room's IANA time zone.
	TimeZone string `env:"CARDROOM_TIME_ZONE" envDefault:"Europe/Helsinki" doc:"IANA time zone of the room, for the gaming day (RULES.md G-20), which the wallet (CS-09) and seating (CS-14) both count in."`
	// Cutoff is when the gaming day ends, as a time of day.
	Cutoff time.Duration `env:"CARDROOM_GAMING_DAY_CUTOFF" envDefault:"6h" doc:"Time of day (as a duration after local midnight) when the gaming day ends (RULES.md G-20; 0 to 24h)."`
}

// Default is the house default: 06:00 in Helsinki.
func Default() Config { return Config{TimeZone: "Europe/Helsinki", Cutoff: 6 * time.Hour} }

// Day loads the time zone and checks the cut-off; the error names the
// variable at fault.
func (c Config) Day() (Day, error) {
	loc, err := time.LoadLocation(c.TimeZone)
	if err != nil {
		return Day{}, fmt.Errorf("CARDROOM_TIME_ZONE %q: %w", c.TimeZone, err)
	}
	d := Day{Location: loc, Cutoff: c.Cutoff}
	if err := d.Validate(); err != nil {
		return Day{}, fmt.Errorf("CARDROOM_GAMING_DAY_CUTOFF: %w", err)
	}
	return d, nil
}
