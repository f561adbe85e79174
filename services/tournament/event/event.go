// Package event holds a tournament's definition and its lifecycle status:
// what is played, what an entry costs (TR-04), the starting stack (TR-08)
// and when it starts. It is pure: no I/O, no clock of its own.
package event

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cardroom/cardroom/platform/fault"
)

// Format is how entries work: a freezeout (TR-18), a rebuy event (TR-13) or
// a satellite whose prizes are entries to a target event (TR-19).
type Format uint8

// Formats.
const (
	FormatUnspecified Format = iota
	Freezeout
	Rebuy
	Satellite
)

// Status is where an event is in its life.
type Status uint8

// Statuses. A running event is Paying once its last player is placed and
// Finished once every prize is paid; Paying comes last only to keep the
// stored numbers of the others.
const (
	StatusUnspecified Status = iota
	Scheduled
	Running
	Finished
	Cancelled
	Paying
)

var statusNames = [...]string{"UNSPECIFIED", "SCHEDULED", "RUNNING", "FINISHED", "CANCELLED", "PAYING"}

// String names the status as the API's TournamentState does, without its
// TOURNAMENT_STATE_ prefix.
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "UNKNOWN"
}

// PlayOver reports whether play has ended: the winner is placed, whether
// or not every prize is paid yet.
func (s Status) PlayOver() bool { return s == Finished || s == Paying }

// BuyIn is the price of an entry, stored as its two parts (TR-04): the share
// that goes to the prize pool and the house fee, in minor units.
type BuyIn struct {
	PrizePool int64
	Fee       int64
	Currency  string
}

// Total is what the player pays.
func (b BuyIn) Total() int64 { return b.PrizePool + b.Fee }

// Event is one tournament.
type Event struct {
	ID            string
	Name          string
	Game          string // the table service's game, e.g. "HOLDEM"
	Structure     string // e.g. "NO_LIMIT"
	Format        Format
	BuyIn         BuyIn
	StartingStack int64 // identical for every entry (TR-08)
	StartsAt      time.Time
	TargetEventID string // satellites only (TR-19)
	Status        Status
	CreatedAt     time.Time
}

// Limits on a definition; amounts are minor units.
const (
	MaxNameLength = 120
	maxAmount     = 1 << 40 // ~ 11 billion euros in cents: absurd beyond this
)

// Validate checks a new event's definition and returns the first problem as
// an Invalid fault naming the field. now is the creation time: an event may
// not start in the past.
func (e Event) Validate(now time.Time) error {
	name := strings.TrimSpace(e.Name)
	switch {
	case name == "":
		return fault.Invalidf("name", "must not be empty")
	case utf8.RuneCountInString(name) > MaxNameLength:
		return fault.Invalidf("name", "longer than %d characters", MaxNameLength)
	case e.Game == "":
		return fault.Invalidf("game", "must be set")
	case e.Structure == "":
		return fault.Invalidf("structure", "must be set")
	case e.Format == FormatUnspecified || e.Format > Satellite:
		return fault.Invalidf("format", "must be freezeout, rebuy or satellite")
	case e.BuyIn.PrizePool <= 0 || e.BuyIn.PrizePool > maxAmount:
		return fault.Invalidf("buy_in.prize_pool", "must be between 1 and %d, got %d", int64(maxAmount), e.BuyIn.PrizePool)
	case e.BuyIn.Fee < 0 || e.BuyIn.Fee > maxAmount:
		return fault.Invalidf("buy_in.fee", "must be between 0 and %d, got %d", int64(maxAmount), e.BuyIn.Fee)
	case len(e.BuyIn.Currency) != 3 || strings.ToUpper(e.BuyIn.Currency) != e.BuyIn.Currency:
		return fault.Invalidf("buy_in.currency", "must be a three-letter ISO 4217 code, got %q", e.BuyIn.Currency)
	case e.StartingStack <= 0 || e.StartingStack > maxAmount:
		return fault.Invalidf("starting_stack", "must be positive, got %d", e.StartingStack)
	case e.StartsAt.IsZero():
		return fault.Invalidf("starts_at", "must be set")
	case e.StartsAt.Before(now):
		return fault.Invalidf("starts_at", "%s is in the past", e.StartsAt.Format(time.RFC3339))
	case e.Format == Satellite && e.TargetEventID == "":
		return fault.Rule(fault.Invalid, "TR-19", "SATELLITE_WITHOUT_TARGET", "target_event_id: a satellite must name the event its prizes enter").With("field", "target_event_id")
	case e.Format != Satellite && e.TargetEventID != "":
		return fault.Invalidf("target_event_id", "only satellites have a target event")
	}
	return nil
}

// ErrNotCancellable is returned when cancelling an event that has already
// finished or was cancelled before (TR-03).
var ErrNotCancellable = fault.Rule(fault.Precondition, "TR-03", "EVENT_NOT_CANCELLABLE", "only a scheduled or running event can be cancelled")

// Cancel moves the event to Cancelled (TR-03: management may cancel events).
func (e *Event) Cancel() error {
	if e.Status != Scheduled && e.Status != Running {
		return ErrNotCancellable
	}
	e.Status = Cancelled
	return nil
}

// ErrNotChangeable refuses changes to an event that has started (TR-03:
// management changes events before play; payouts are locked, TR-36).
var ErrNotChangeable = fault.Rule(fault.Precondition, "TR-03", "EVENT_NOT_CHANGEABLE", "only a scheduled event can be changed")

// Change renames or reschedules a scheduled event (TR-03); an empty name
// or a zero time leaves that field. The result is validated as a new
// definition at now.
func (e *Event) Change(name string, startsAt, now time.Time) error {
	if e.Status != Scheduled || !now.Before(e.StartsAt) {
		return ErrNotChangeable
	}
	next := *e
	if name = strings.TrimSpace(name); name != "" {
		next.Name = name
	}
	if !startsAt.IsZero() {
		next.StartsAt = startsAt
	}
	if err := next.Validate(now); err != nil {
		return err
	}
	*e = next
	return nil
}
