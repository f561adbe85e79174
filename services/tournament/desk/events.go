package desk

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/flight"
	"github.com/cardroom/cardroom/services/tournament/house"
	"github.com/cardroom/cardroom/services/tournament/levels"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// Multi-day failures (issue 13).
var (
	ErrFlightsNotBagged = fault.New(fault.Precondition, "FLIGHTS_NOT_BAGGED", "a Day 2 starts once every one of its flights has bagged its survivors")
	ErrNotADay2         = fault.New(fault.Precondition, "NOT_A_DAY2", "a flight feeds a scheduled Day 2 in its own currency")
)

// Create schedules an event with its published house rules: entry
// policy, structure sheet, payouts (TR-36); what rules leave out takes
// the defaults. The desk gives the event its id, creation time and
// status.
func (d *Desk) Create(ctx context.Context, e event.Event, rules house.Rules) (store.Tournament, error) {
	now := d.now()
	id, err := uuid.NewV7()
	if err != nil {
		return store.Tournament{}, err
	}
	e.ID, e.Status, e.CreatedAt = id.String(), event.Scheduled, now
	if err := e.Validate(now); err != nil {
		return store.Tournament{}, err
	}
	if e.Format == event.Satellite {
		// TR-19: the prizes are entries to the target, which must exist.
		target, err := d.store.Load(ctx, e.TargetEventID)
		if err != nil {
			return store.Tournament{}, err
		}
		if target.Event.BuyIn.Currency != e.BuyIn.Currency {
			return store.Tournament{}, fault.Rule(fault.Invalid, "TR-19", "SATELLITE_CURRENCY", "a satellite pays in its target's currency").With("field", "currency")
		}
	}
	if err := rules.Validate(e); err != nil {
		return store.Tournament{}, err
	}
	if rules.Flight != nil {
		if err := d.checkFlight(ctx, e, rules.Flight, len(rules.WithDefaults(e).Sheet.Levels)); err != nil {
			return store.Tournament{}, err
		}
	}
	t := store.Tournament{Event: e, Rules: rules.WithDefaults(e)}
	if err := d.store.Create(ctx, e, t.Rules); err != nil {
		return store.Tournament{}, err
	}
	return t, nil
}

// checkFlight checks a new flight against the Day 2 it names: a scheduled
// Day 2 in the same currency, and a stop within the flight's sheet.
func (d *Desk) checkFlight(ctx context.Context, e event.Event, f *flight.Flight, rows int) error {
	if err := f.Validate(rows); err != nil {
		return err
	}
	d2, err := d.store.Load(ctx, f.Day2)
	if err != nil {
		return err
	}
	if d2.Rules.Day2 == nil || d2.Event.Status != event.Scheduled || d2.Event.BuyIn.Currency != e.BuyIn.Currency {
		return ErrNotADay2.With("day2_tournament_id", f.Day2)
	}
	return nil
}

// List lists events by start time, size a page.
func (d *Desk) List(ctx context.Context, size int, token string) (store.Page, error) {
	return d.store.List(ctx, size, token)
}

// Status is an event as GetTournament shows it: with its last chip count
// (nil before the first) and the steps the director is stuck on.
type Status struct {
	store.Tournament
	ChipCheck *store.ChipCheck
	Stuck     []store.StuckStep
}

// Tournament returns one event with its chip count and stuck steps.
func (d *Desk) Tournament(ctx context.Context, id string) (Status, error) {
	t, err := d.store.Load(ctx, id)
	if err != nil {
		return Status{}, err
	}
	out := Status{Tournament: t}
	check, ok, err := d.store.ChipCheck(ctx, id)
	if err != nil {
		return Status{}, err
	}
	if ok {
		out.ChipCheck = &check
	}
	if out.Stuck, err = d.store.StuckSteps(ctx, id); err != nil {
		return Status{}, err
	}
	return out, nil
}

// Change is a change to an event (TR-03): a new name, a new start (zero:
// kept), a new structure sheet (no levels: kept), and why.
type Change struct {
	Name     string
	StartsAt time.Time
	Sheet    levels.Sheet
	Reason   string
}

// Update renames, reschedules or replaces the structure sheet of a
// scheduled event (TR-03, G-07), or changes the levels to come of a
// running one (TR-03, refused for the level in force or one played), and
// audits the change with who (by) and why.
func (d *Desk) Update(ctx context.Context, id string, c Change, by string) (store.Tournament, error) {
	if len(c.Sheet.Levels) > 0 {
		if err := c.Sheet.Validate(); err != nil {
			return store.Tournament{}, err
		}
	}
	now := d.now()
	var out store.Tournament
	inPlay := false
	err := d.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		if t.Event.Status == event.Running && c.Name == "" && c.StartsAt.IsZero() && len(c.Sheet.Levels) > 0 {
			// TR-03 in play: the levels to come only, so no hand changes
			// its blinds under the players and the clock stays put.
			index := t.Clock.At(now).Index
			first, err := t.Clock.ChangeFuture(now, c.Sheet)
			if err != nil {
				return err
			}
			t.Rules.Sheet = t.Clock.Sheet
			inPlay = true
			out = *t
			return tx.AddAudit(by, "update_structure", map[string]any{"reason": c.Reason,
				"level_index": index, "first_changed": first, "levels": len(c.Sheet.Levels)}, now)
		}
		before := t.Event
		startsAt := before.StartsAt
		if !c.StartsAt.IsZero() {
			startsAt = c.StartsAt.UTC().Truncate(time.Millisecond)
		}
		if err := t.Event.Change(c.Name, startsAt, now); err != nil {
			return err
		}
		detail := map[string]any{"reason": c.Reason}
		if t.Event.Name != before.Name {
			detail["name"] = map[string]string{"from": before.Name, "to": t.Event.Name}
		}
		if !t.Event.StartsAt.Equal(before.StartsAt) {
			detail["start_time"] = map[string]any{"from": before.StartsAt, "to": t.Event.StartsAt}
		}
		if len(c.Sheet.Levels) > 0 {
			t.Rules.Sheet, t.Clock.Sheet = c.Sheet, c.Sheet
			detail["levels"] = len(c.Sheet.Levels)
		}
		out = *t
		return tx.AddAudit(by, "update", detail, now)
	})
	if err != nil {
		return store.Tournament{}, err
	}
	if inPlay {
		// The tables' next hands play the new schedule (TR-20).
		d.drive(ctx, "update_structure", id, d.directorLevels)
	}
	return out, nil
}

// Audit returns the management actions on an event.
func (d *Desk) Audit(ctx context.Context, id string) ([]store.AuditRecord, error) {
	if _, err := d.store.Load(ctx, id); err != nil {
		return nil, err
	}
	return d.store.Audit(ctx, id)
}

// seatDay2 gives a Day 2 its field at the start: one active entry per
// player the survivor policy carries (G-34), once every flight has bagged
// (issue 13). The seat draw then seats them as any field.
func seatDay2(tx *store.Tx, t *store.Tournament) error {
	flights, err := tx.Flights()
	if err != nil {
		return err
	}
	live := 0
	for _, f := range flights {
		switch f.Status {
		case event.Cancelled:
			continue
		case event.Finished:
			live++
		default:
			return ErrFlightsNotBagged.With("flight", f.ID)
		}
	}
	if live == 0 {
		return ErrFlightsNotBagged.Withf("no flight has bagged")
	}
	bags, err := tx.Bags()
	if err != nil {
		return err
	}
	kept, _ := flight.Carry(bags, t.Rules.Day2.Survivors)
	for _, b := range kept {
		if err := tx.PutEntry(entry.Entry{EventID: t.Event.ID, PlayerID: b.Player, Status: entry.Active, RegisteredAt: b.BaggedAt}); err != nil {
			return err
		}
	}
	return nil
}

// Bags returns a flight's bags, or every bag of a Day 2's flights, with
// those the survivor policy carries (G-34).
func (d *Desk) Bags(ctx context.Context, id string) (bags, kept []flight.Bag, err error) {
	t, err := d.store.Load(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	if bags, err = d.store.Bags(ctx, t.Event.ID); err != nil {
		return nil, nil, err
	}
	policy := flight.KeepLarger
	if t.Rules.Day2 != nil {
		policy = t.Rules.Day2.Survivors
	} else if t.Rules.Flight != nil {
		if d2, err := d.store.Load(ctx, t.Rules.Flight.Day2); err == nil && d2.Rules.Day2 != nil {
			all, err := d.store.Bags(ctx, d2.Event.ID)
			if err != nil {
				return nil, nil, err
			}
			// Whether a flight's bag is carried depends on the other flights.
			kept, _ = flight.Carry(all, d2.Rules.Day2.Survivors)
			return bags, kept, nil
		}
	}
	kept, _ = flight.Carry(bags, policy)
	return bags, kept, nil
}
