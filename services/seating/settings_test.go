package seating_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/config"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/seating"
	"github.com/cardroom/cardroom/services/seating/room"
	"github.com/cardroom/cardroom/services/seating/waitlist"
)

// settingsFrom reads the settings as cmd/cardroom does and turns them
// into the service's configuration.
func settingsFrom(vars map[string]string) (seating.Config, error) {
	s, err := config.Parse[seating.Settings](vars)
	if err != nil {
		return seating.Config{}, err
	}
	return s.Config()
}

// TestSettings_DefaultsAreTheHouseDefaults: with nothing set, the
// variables' defaults make the house default policy and the loops' 1 s;
// remote sign-up is closed (G-21) until CARDROOM_SEATING_REMOTE_SIGN_UP
// opens it.
func TestSettings_DefaultsAreTheHouseDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := settingsFrom(map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	house := waitlist.DefaultPolicy()
	house.FloorSignUpOnly = true // G-21: a player must be present to go on a list
	if cfg.Defaults != house || cfg.SweepInterval != time.Second || cfg.BoardPoll != time.Second {
		t.Fatalf("defaults %+v", cfg)
	}
	if d := cfg.GamingDay; d.Location.String() != "Europe/Helsinki" || d.Cutoff != 6*time.Hour {
		t.Fatalf("G-20 default gaming day %v, want 06:00 Europe/Helsinki", d)
	}
	open, err := settingsFrom(map[string]string{"CARDROOM_SEATING_REMOTE_SIGN_UP": "true"})
	if err != nil || open.Defaults.FloorSignUpOnly {
		t.Fatalf("CARDROOM_SEATING_REMOTE_SIGN_UP=true: %+v, %v", open.Defaults, err)
	}
}

// TestSettings_SetTimers: values in range reach the default policy (the
// one table.opened lists get) and the loops; the rest of the policy stays
// the house's.
func TestSettings_SetTimers(t *testing.T) {
	t.Parallel()
	cfg, err := settingsFrom(map[string]string{
		"CARDROOM_SEATING_OFFER_TIMEOUT": "90s", "CARDROOM_SEATING_SIT_DOWN_WINDOW": "2m",
		"CARDROOM_SEATING_SHORT_ABSENCE": "10m", "CARDROOM_SEATING_LONG_BREAK": "45m",
		"CARDROOM_SEATING_SWEEP_INTERVAL": "250ms", "CARDROOM_SEATING_BOARD_POLL": "5s",
		"CARDROOM_TIME_ZONE": "Europe/Stockholm", "CARDROOM_GAMING_DAY_CUTOFF": "5h30m",
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := cfg.GamingDay; d.Location.String() != "Europe/Stockholm" || d.Cutoff != 5*time.Hour+30*time.Minute {
		t.Fatalf("G-20 gaming day %v, want 05:30 Europe/Stockholm", d)
	}
	want := waitlist.DefaultPolicy()
	want.OfferTimeout, want.SitDownWindow, want.ShortAbsence, want.LongBreak = 90*time.Second, 2*time.Minute, 10*time.Minute, 45*time.Minute
	want.FloorSignUpOnly = true // G-21, CARDROOM_SEATING_REMOTE_SIGN_UP unset
	if cfg.Defaults != want || cfg.SweepInterval != 250*time.Millisecond || cfg.BoardPoll != 5*time.Second {
		t.Fatalf("config %+v", cfg)
	}
	db := testkit.SQLite(t, seating.DBOptions())
	if _, err := seating.New(cfg, seating.Deps{DB: db, Locker: lock.NewLocal()}); err != nil {
		t.Fatalf("New with the settings: %v", err)
	}
}

// TestSettings_TimerOutOfRangeFailsNamingTheVariable: a negative, zero,
// unreadable or absurd timer (hours typed for minutes) stops start-up with
// an error naming the variable, using SetPolicy's ranges for the policy's
// timers.
func TestSettings_TimerOutOfRangeFailsNamingTheVariable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, value string
	}{
		{"CARDROOM_SEATING_OFFER_TIMEOUT", "-3m"},
		{"CARDROOM_SEATING_OFFER_TIMEOUT", "0s"},
		{"CARDROOM_SEATING_OFFER_TIMEOUT", "3h"},
		{"CARDROOM_SEATING_OFFER_TIMEOUT", "three minutes"},
		{"CARDROOM_SEATING_SIT_DOWN_WINDOW", "5h"},
		{"CARDROOM_SEATING_SIT_DOWN_WINDOW", "-1s"},
		{"CARDROOM_SEATING_SHORT_ABSENCE", "15h"},
		{"CARDROOM_SEATING_SHORT_ABSENCE", "30s"},
		{"CARDROOM_SEATING_LONG_BREAK", "30h"},
		{"CARDROOM_SEATING_LONG_BREAK", "-30m"},
		{"CARDROOM_SEATING_SWEEP_INTERVAL", "-1s"},
		{"CARDROOM_SEATING_SWEEP_INTERVAL", "1ms"},
		{"CARDROOM_SEATING_SWEEP_INTERVAL", "1m"},
		{"CARDROOM_SEATING_BOARD_POLL", "0s"},
		{"CARDROOM_SEATING_BOARD_POLL", "1h"},
		{"CARDROOM_GAMING_DAY_CUTOFF", "25h"},
		{"CARDROOM_GAMING_DAY_CUTOFF", "-1h"},
		{"CARDROOM_TIME_ZONE", "Nowhere/Else"},
	}
	for _, tc := range tests {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			t.Parallel()
			_, err := settingsFrom(map[string]string{tc.name: tc.value})
			if err == nil || !strings.Contains(err.Error(), tc.name) {
				t.Fatalf("%s=%s: %v, want an error naming the variable", tc.name, tc.value, err)
			}
		})
	}
	// Every bad variable is reported at once.
	_, err := settingsFrom(map[string]string{"CARDROOM_SEATING_OFFER_TIMEOUT": "-1m", "CARDROOM_SEATING_LONG_BREAK": "24h"})
	if err == nil || !strings.Contains(err.Error(), "CARDROOM_SEATING_OFFER_TIMEOUT") || !strings.Contains(err.Error(), "CARDROOM_SEATING_LONG_BREAK") {
		t.Fatalf("two bad variables: %v", err)
	}
	// The service refuses the same mistakes when wired without Settings.
	db := testkit.SQLite(t, seating.DBOptions())
	for _, cfg := range []seating.Config{{SweepInterval: -time.Second}, {BoardPoll: time.Hour}} {
		if _, err := seating.New(cfg, seating.Deps{DB: db, Locker: lock.NewLocal()}); !errors.Is(err, waitlist.ErrTimerOutOfRange) {
			t.Errorf("New(%+v) = %v, want TIMER_OUT_OF_RANGE", cfg, err)
		}
	}
}

// TestSettings_DocsMatchTheRanges keeps each variable's documented range
// and default in step with the ranges the service checks and the house
// default policy.
func TestSettings_DocsMatchTheRanges(t *testing.T) {
	t.Parallel()
	p := waitlist.DefaultPolicy()
	want := map[string]struct {
		def time.Duration
		r   waitlist.Range
	}{
		"CARDROOM_SEATING_OFFER_TIMEOUT":   {p.OfferTimeout, waitlist.OfferTimeoutRange},
		"CARDROOM_SEATING_SIT_DOWN_WINDOW": {p.SitDownWindow, waitlist.SitDownWindowRange},
		"CARDROOM_SEATING_SHORT_ABSENCE":   {p.ShortAbsence, waitlist.ShortAbsenceRange},
		"CARDROOM_SEATING_LONG_BREAK":      {p.LongBreak, waitlist.LongBreakRange},
		"CARDROOM_SEATING_SWEEP_INTERVAL":  {time.Second, room.SweepIntervalRange},
		"CARDROOM_SEATING_BOARD_POLL":      {time.Second, room.BoardPollRange},
	}
	var vars []config.Variable
	for _, v := range config.VariablesOf[seating.Settings]() {
		// The gaming day's are the room's (platform/gamingday's tests).
		// Remote sign-up is a switch, not a timer (TestSettings_DefaultsAreTheHouseDefaults).
		if strings.HasPrefix(v.Name, "CARDROOM_SEATING_") && v.Name != "CARDROOM_SEATING_REMOTE_SIGN_UP" {
			vars = append(vars, v)
		}
	}
	if len(vars) != len(want) {
		t.Fatalf("%d variables, want %d", len(vars), len(want))
	}
	for _, v := range vars {
		w, ok := want[v.Name]
		if !ok {
			t.Errorf("unexpected variable %s", v.Name)
			continue
		}
		if d, err := time.ParseDuration(v.Default); err != nil || d != w.def {
			t.Errorf("%s defaults to %q, want %s", v.Name, v.Default, w.def)
		}
		if r := short(w.r.Min) + " to " + short(w.r.Max); !strings.Contains(v.Meaning, r) {
			t.Errorf("%s's doc %q does not give its range %s", v.Name, v.Meaning, r)
		}
	}
}

// short writes a duration as the docs do: 30m, not 30m0s.
func short(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
