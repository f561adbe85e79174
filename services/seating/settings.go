package seating

import (
	"errors"
	"time"

	"github.com/cardroom/cardroom/platform/gamingday"
	"github.com/cardroom/cardroom/services/seating/room"
	"github.com/cardroom/cardroom/services/seating/waitlist"
)

// Settings are the seating service's own environment variables, read by
// cmd/cardroom with the tags of platform/config (config.Parse) and listed
// in the README from this struct. The four policy timers are the house
// default policy: that of every list opened without one (including the
// lists table.opened opens); the floor sets a list's own with SetPolicy,
// within the same ranges.
type Settings struct {
	// OfferTimeout is how long a player has to answer a seat offer.
	OfferTimeout time.Duration `env:"CARDROOM_SEATING_OFFER_TIMEOUT" envDefault:"3m" doc:"House default time a player has to answer a seat offer before it passes to the next player (10s to 30m)."`
	// SitDownWindow is how long an accepted offer holds the seat.
	SitDownWindow time.Duration `env:"CARDROOM_SEATING_SIT_DOWN_WINDOW" envDefault:"5m" doc:"House default time an accepted seat offer holds the seat for the buy-in and sit-down (1m to 1h)."`
	// ShortAbsence is the seat-hold timer of a short absence (CS-13).
	ShortAbsence time.Duration `env:"CARDROOM_SEATING_SHORT_ABSENCE" envDefault:"15m" doc:"House default seat hold of a short absence before the floor decides (CS-13; 1m to 2h)."`
	// LongBreak is the length of the once-a-gaming-day long break (CS-14).
	LongBreak time.Duration `env:"CARDROOM_SEATING_LONG_BREAK" envDefault:"30m" doc:"House default length of the once-a-gaming-day long break (CS-14; 5m to 3h)."`
	// RemoteSignUp opens the lists seating opens without a policy to
	// players signing up from the app. Off by default: G-21's house
	// default asks a player to be present to go on a list, so players join
	// through the floor unless the house opens remote sign-up.
	RemoteSignUp bool `env:"CARDROOM_SEATING_REMOTE_SIGN_UP" envDefault:"false" doc:"true lets players put themselves on a list from the app on lists opened without a policy; false (the G-21 default: a player must be present to go on a list) takes players only through the floor. The floor sets a list's own with floor_sign_up_only."`
	// SweepInterval is how often the offer, absence and hold timers are
	// checked.
	SweepInterval time.Duration `env:"CARDROOM_SEATING_SWEEP_INTERVAL" envDefault:"1s" doc:"How often seating runs the timers that came due: offer expiry, absences, lapsed seat holds (10ms to 10s)."`
	// BoardPoll is how often the live board looks for other replicas'
	// changes.
	BoardPoll time.Duration `env:"CARDROOM_SEATING_BOARD_POLL" envDefault:"1s" doc:"How often the live seating board looks for changes other replicas made (10ms to 1m)."`
	// GamingDay is the room's gaming day, which CS-14's one long break a
	// day is counted in; the wallet reads the same variables.
	GamingDay gamingday.Config
}

// Config returns the service configuration of the settings. A timer out
// of its range — negative, zero, or absurd like hours typed for minutes —
// is an error (TIMER_OUT_OF_RANGE) naming its variable and the range; all
// of them are reported at once.
func (s Settings) Config() (Config, error) {
	checks := []struct {
		name string
		d    time.Duration
		r    waitlist.Range
	}{
		{"CARDROOM_SEATING_OFFER_TIMEOUT", s.OfferTimeout, waitlist.OfferTimeoutRange},
		{"CARDROOM_SEATING_SIT_DOWN_WINDOW", s.SitDownWindow, waitlist.SitDownWindowRange},
		{"CARDROOM_SEATING_SHORT_ABSENCE", s.ShortAbsence, waitlist.ShortAbsenceRange},
		{"CARDROOM_SEATING_LONG_BREAK", s.LongBreak, waitlist.LongBreakRange},
		{"CARDROOM_SEATING_SWEEP_INTERVAL", s.SweepInterval, room.SweepIntervalRange},
		{"CARDROOM_SEATING_BOARD_POLL", s.BoardPoll, room.BoardPollRange},
	}
	var errs []error
	for _, c := range checks {
		errs = append(errs, c.r.Check(c.name, c.d))
	}
	day, err := s.GamingDay.Day()
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	p := waitlist.DefaultPolicy()
	p.OfferTimeout, p.SitDownWindow, p.ShortAbsence, p.LongBreak = s.OfferTimeout, s.SitDownWindow, s.ShortAbsence, s.LongBreak
	p.FloorSignUpOnly = !s.RemoteSignUp // G-21
	return Config{Defaults: p, GamingDay: day, SweepInterval: s.SweepInterval, BoardPoll: s.BoardPoll}, nil
}
