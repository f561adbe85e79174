package gamingday

import (
	"strings"
	"testing"
	"time"
)

// TestDayOf_G20: the gaming day turns over at the cut-off on the local
// wall clock — after midnight is still the evening before (CS-09, CS-14),
// and DST days of 23 and 25 hours turn over at 06:00 too.
func TestDayOf_G20(t *testing.T) {
	t.Parallel()
	hel, err := time.LoadLocation("Europe/Helsinki")
	if err != nil {
		t.Fatal(err)
	}
	d := Day{Location: hel, Cutoff: 6 * time.Hour}
	tests := []struct {
		name  string
		local string
		want  string
	}{
		{"G-20 evening", "2026-11-30 21:00", "2026-11-30"},
		{"G-20 after midnight is still the evening (CS-09, CS-14)", "2026-12-01 05:59", "2026-11-30"},
		{"G-20 the cut-off starts a new day", "2026-12-01 06:00", "2026-12-01"},
		{"G-20 first of the month before the cut-off", "2026-03-01 00:00", "2026-02-28"},
		{"G-20 spring-forward night", "2026-03-29 05:59", "2026-03-28"},
		{"G-20 spring-forward cut-off", "2026-03-29 06:00", "2026-03-29"},
		{"G-20 fall-back night", "2026-10-25 05:59", "2026-10-24"},
		{"G-20 fall-back cut-off", "2026-10-25 06:00", "2026-10-25"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lt, err := time.ParseInLocation("2006-01-02 15:04", tt.local, hel)
			if err != nil {
				t.Fatal(err)
			}
			if got := d.Of(lt.UTC()); got != tt.want {
				t.Errorf("%s → %s, want %s", tt.local, got, tt.want)
			}
		})
	}
	if got := (Day{Cutoff: 6 * time.Hour}).Of(time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)); got != "2026-11-30" {
		t.Errorf("no location (UTC): %s, want 2026-11-30", got)
	}
}

// TestConfigDay_G20: the default is 06:00 in Helsinki; an unknown zone or
// a cut-off that is no time of day is an error naming its variable.
func TestConfigDay_G20(t *testing.T) {
	t.Parallel()
	d, err := Default().Day()
	if err != nil || d.Location.String() != "Europe/Helsinki" || d.Cutoff != 6*time.Hour {
		t.Fatalf("Default().Day() = %v, %v", d, err)
	}
	if s := d.String(); s != "gaming day from 06:00 Europe/Helsinki" {
		t.Errorf("String() = %q", s)
	}
	for _, tt := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"unknown zone", Config{TimeZone: "Mars/Olympus", Cutoff: time.Hour}, "CARDROOM_TIME_ZONE"},
		{"negative cut-off", Config{TimeZone: "UTC", Cutoff: -time.Minute}, "CARDROOM_GAMING_DAY_CUTOFF"},
		{"cut-off of a day or more", Config{TimeZone: "UTC", Cutoff: 24 * time.Hour}, "CARDROOM_GAMING_DAY_CUTOFF"},
	} {
		if _, err := tt.cfg.Day(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error naming %s", tt.name, err, tt.want)
		}
	}
}
