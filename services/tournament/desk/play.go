package desk

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/tournament/draw"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/levels"
	"github.com/cardroom/cardroom/services/tournament/standings"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// Start failures.
var (
	ErrNotScheduled  = fault.New(fault.Precondition, "TOURNAMENT_NOT_SCHEDULED", "only a scheduled tournament can start")
	ErrNotDue        = fault.Rule(fault.Precondition, "TR-04", "TOURNAMENT_NOT_DUE", "a tournament starts at its published start time: players may register until then")
	ErrTooFewEntries = fault.Rule(fault.Precondition, "TR-06", "NOT_ENOUGH_ENTRIES", "a tournament needs at least two paid entries to start")
	ErrNotRunning    = fault.New(fault.Precondition, "TOURNAMENT_NOT_RUNNING", "the tournament is not running")
)

// seatLog is the seat draw as logged (TR-06).
type seatLog struct {
	Seats []draw.Seat `json:"seats"`
}

// buttonLog is one table's button draw as logged (TR-07, G-28).
type buttonLog struct {
	Table  int               `json:"table"`
	Cards  map[string]string `json:"cards"`
	Winner int               `json:"button_seat"`
}

// Started is a started event with its seat and button draws.
type Started struct {
	Tournament store.Tournament
	Seats      []draw.Seat
	Buttons    []Button
}

// Start draws the seats and the buttons, logs both and starts the clock,
// in one transaction; a Day 2 takes its field from its flights' bags
// first. The director then opens and seats the tables.
func (d *Desk) Start(ctx context.Context, id string) (Started, error) {
	now := d.now()
	var res Started
	err := d.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		res = Started{}
		if t.Event.Status != event.Scheduled {
			return ErrNotScheduled
		}
		if now.Before(t.Event.StartsAt) {
			return ErrNotDue.With("start_time", t.Event.StartsAt.Format("2006-01-02T15:04:05Z07:00"))
		}
		if t.Rules.Day2 != nil {
			if err := seatDay2(tx, t); err != nil {
				return err
			}
		}
		ens, err := tx.Entries()
		if err != nil {
			return err
		}
		var players []string
		byPlayer := map[string]entry.Entry{}
		for _, en := range ens {
			switch en.Status {
			case entry.Paying:
				return entry.ErrPaymentInFlight.Withf("%s's entry payment has not settled", en.PlayerID)
			case entry.Active:
				players = append(players, en.PlayerID)
				byPlayer[en.PlayerID] = en
			}
		}
		if len(players) < 2 {
			return ErrTooFewEntries
		}
		if res.Seats, err = draw.Seats(players, t.Rules.SeatsPerTable, d.random); err != nil {
			return err
		}
		if err := tx.AddDraw("seats", seatLog{Seats: res.Seats}, now); err != nil {
			return err
		}
		tables := map[int][]int{}
		for _, st := range res.Seats {
			en := byPlayer[st.PlayerID]
			en.Table, en.Seat = st.Table, st.Seat
			if err := tx.PutEntry(en); err != nil {
				return err
			}
			tables[st.Table] = append(tables[st.Table], st.Seat)
		}
		for _, n := range slices.Sorted(maps.Keys(tables)) {
			b, err := draw.Button(tables[n], d.random)
			if err != nil {
				return err
			}
			button := Button{Table: n, ButtonResult: b}
			if err := tx.AddDraw("button", button.log(), now); err != nil {
				return err
			}
			res.Buttons = append(res.Buttons, button)
		}
		t.Event.Status = event.Running
		t.Clock.Started = now
		res.Tournament = *t
		return nil
	})
	if err != nil {
		return Started{}, err
	}
	d.drive(ctx, "start", id, func(ctx context.Context, id string) error { return d.director.Start(ctx, id) })
	return res, nil
}

// directorLevels has the director send the tables the schedule again
// (TR-20).
func (d *Desk) directorLevels(ctx context.Context, id string) error {
	return d.director.SyncLevels(ctx, id)
}

// Reading is what the clock shows: whether it started, the row in force
// and its time left, and whether it is paused.
type Reading struct {
	Started  bool
	Position levels.Position
	Paused   bool
}

// ClockAt is the event's clock as it reads at at; before the start it
// shows level 1, full length.
func ClockAt(t store.Tournament, at time.Time) Reading {
	started := !t.Clock.Started.IsZero()
	c := t.Clock
	if !started {
		c.Started = at
	}
	return Reading{Started: started, Position: c.At(at), Paused: !t.Clock.PausedAt.IsZero()}
}

// Clock returns the level in force now (G-07), or, with hand not zero,
// the level of a hand that started then (TR-20).
func (d *Desk) Clock(ctx context.Context, id string, hand time.Time) (Reading, error) {
	t, err := d.store.Load(ctx, id)
	if err != nil {
		return Reading{}, err
	}
	if hand.IsZero() {
		return ClockAt(t, d.now()), nil
	}
	if t.Clock.Started.IsZero() {
		return Reading{}, ErrNotRunning
	}
	i, l := t.Clock.ForHand(hand)
	p := t.Clock.At(hand)
	if p.Index != i {
		// The hand plays the level before a break it ran into.
		p = levels.Position{Index: i, Level: l}
	}
	return Reading{Started: true, Position: p, Paused: !t.Clock.PausedAt.IsZero()}, nil
}

// PauseClock stops (pause) or restarts the level clock of a running
// event and audits it with who and why in the same transaction (issue
// 13), as the floor's other clock controls; the tables get the schedule
// again.
func (d *Desk) PauseClock(ctx context.Context, id string, pause bool, reason, by string) (Reading, error) {
	action := "clock_resume"
	if pause {
		action = "clock_pause"
	}
	return d.controlClock(ctx, id, action, reason, by, map[string]any{}, false, func(c *levels.Clock, now time.Time) error {
		if pause {
			return c.Pause(now)
		}
		return c.Resume(now)
	})
}

// controlClock applies one of the floor's clock changes to a running
// event, audits it with who and why in the same transaction (sheet: the
// change may grow the sheet, which the clock reads from the rules), and
// has the director send the tables the new schedule (TR-20: their next
// hand plays the level then in force).
func (d *Desk) controlClock(ctx context.Context, id, action, reason, by string, detail map[string]any, sheet bool,
	change func(*levels.Clock, time.Time) error) (Reading, error) {
	out, err := running(ctx, d, id, func(tx *store.Tx, t *store.Tournament, now time.Time) (store.Tournament, error) {
		if err := change(&t.Clock, now); err != nil {
			return store.Tournament{}, err
		}
		if sheet {
			t.Rules.Sheet = t.Clock.Sheet
		}
		detail["reason"] = reason
		detail["level_index"] = t.Clock.At(now).Index
		return *t, tx.AddAudit(by, action, detail, now)
	})
	if err != nil {
		return Reading{}, err
	}
	d.drive(ctx, action, id, d.directorLevels)
	return ClockAt(out, d.now()), nil
}

// AddClockTime adds time to the row in force, or removes it (issue 13).
func (d *Desk) AddClockTime(ctx context.Context, id string, delta time.Duration, reason, by string) (Reading, error) {
	return d.controlClock(ctx, id, "clock_add_time", reason, by, map[string]any{"delta": delta.String()}, true,
		func(c *levels.Clock, now time.Time) error { return c.AddTime(now, delta) })
}

// SetClockLevel starts a row of the sheet now: index, or, relative, the
// row index rows from the one in force (issue 13).
func (d *Desk) SetClockLevel(ctx context.Context, id string, index int, relative bool, reason, by string) (Reading, error) {
	detail := map[string]any{}
	return d.controlClock(ctx, id, "clock_set_level", reason, by, detail, true, func(c *levels.Clock, now time.Time) error {
		from := c.At(now).Index
		to := index
		if relative {
			to = from + index
		}
		detail["from_index"], detail["to_index"] = from, to
		return c.GoTo(now, to)
	})
}

// StartBreak starts a break now; the level in force resumes after it
// (issue 13).
func (d *Desk) StartBreak(ctx context.Context, id string, length time.Duration, reason, by string) (Reading, error) {
	return d.controlClock(ctx, id, "clock_start_break", reason, by, map[string]any{"duration": length.String()}, true,
		func(c *levels.Clock, now time.Time) error { return c.BreakNow(now, length) })
}

// Payouts is the published structure and the prizes it makes from the
// pool paid so far (TR-36, G-30); Locked once it may not change.
type Payouts struct {
	Structure standings.Structure
	Entrants  int
	PrizePool int64
	Prizes    []int64
	Locked    bool
}

// Payouts returns the event's payouts.
func (d *Desk) Payouts(ctx context.Context, id string) (Payouts, error) {
	t, err := d.store.Load(ctx, id)
	if err != nil {
		return Payouts{}, err
	}
	return d.payouts(ctx, t)
}

// payouts is Payouts of a loaded event.
func (d *Desk) payouts(ctx context.Context, t store.Tournament) (Payouts, error) {
	pool, entrants, err := d.store.Contributions(ctx, t.Event.ID)
	if err != nil {
		return Payouts{}, err
	}
	// G-36: the bounties are on the entrants' heads, not in the prizes.
	pool = t.Rules.PrizePool(pool, entrants)
	prizes := t.Rules.Payouts.Prizes(entrants, pool)
	if t.Event.Format == event.Satellite {
		// TR-19: whole seats in the target event, the remainder in cash (G-24).
		price, err := d.seatPrice(ctx, t.Event.ID)
		if err != nil || price <= 0 {
			return Payouts{}, err
		}
		prizes = nil
		for _, a := range standings.SatelliteAwards(placeholders(int(pool/price)+1), pool, price) {
			prizes = append(prizes, a.Amount)
		}
	}
	return Payouts{Structure: t.Rules.Payouts, Entrants: entrants, PrizePool: pool, Prizes: prizes,
		Locked: standings.CheckChange(t.Event, d.now()) != nil}, nil
}

// placeholders are n finishers in places 1..n, for showing what each
// place would be paid.
func placeholders(n int) []standings.Finish {
	out := make([]standings.Finish, n)
	for i := range out {
		out[i] = standings.Finish{PlayerID: strconv.Itoa(i + 1), Place: i + 1, Shared: 1}
	}
	return out
}
