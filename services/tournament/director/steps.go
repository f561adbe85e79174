package director

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/cardroom/cardroom/platform/telemetry"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// A step that keeps failing — a table the table service answers Internal
// about, a control it refuses for a reason the director cannot fix — is
// neither repeated at full speed for ever nor left to fail in silence: each
// failure in a row doubles the pause before the next try (from
// RecoverInterval up to MaxBackoff), and from the StuckAfter-th it is
// stuck: logged as an ERROR, counted (cardroom.tournament.stuck_steps) and
// saved, so GetTournament shows it (stuck_steps) until it succeeds.

// StuckAfter is the number of failures in a row that make a step stuck.
const StuckAfter = 3

// MaxBackoff is the longest pause between two tries of a failing step.
const MaxBackoff = 5 * time.Minute

// Step kinds, the metric's attribute.
const (
	// StepRecovery is a tournament's recovery pass (Run).
	StepRecovery = "recovery"
	// StepHandEnd is the handling of a table's hand end.
	StepHandEnd = "hand_end"
)

// ErrBackingOff refuses a try of a failing step before its pause is over;
// the step is tried again later (the event is delivered again).
var ErrBackingOff = errors.New("step failed before: waiting before trying it again")

var stuckSteps = telemetry.NewMeter("github.com/cardroom/cardroom/services/tournament/director").Counter("cardroom.tournament.stuck_steps",
	"{failure}", "Failures of a tournament director's step that had failed before, StuckAfter times or more in a row (a recovery pass, a table's hand end), by kind. The step is shown in the tournament's status (stuck_steps) until it succeeds.")

// failure is a step's failures in a row.
type failure struct {
	kind     string
	attempts int
	since    time.Time
	// next is when the step may be tried again.
	next time.Time
}

func stepKey(id, step string) string { return id + "\x00" + step }

// backoff is the pause after the n-th failure in a row.
func backoff(n int) time.Duration {
	b := RecoverInterval
	for i := 1; i < n && b < MaxBackoff; i++ {
		b *= 2
	}
	return min(b, MaxBackoff)
}

// loadStuck takes up, once per process and tournament, the steps a
// previous process saved stuck, so that their success clears them.
func (d *Director) loadStuck(ctx context.Context, id string) {
	d.mu.Lock()
	done := d.loaded[id]
	d.loaded[id] = true
	d.mu.Unlock()
	if done {
		return
	}
	saved, err := d.store.StuckSteps(ctx, id)
	if err != nil {
		d.mu.Lock()
		delete(d.loaded, id)
		d.mu.Unlock()
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, s := range saved {
		if _, ok := d.failures[stepKey(id, s.Step)]; !ok {
			d.failures[stepKey(id, s.Step)] = &failure{kind: s.Kind, attempts: s.Attempts, since: s.Since, next: s.Last}
		}
	}
}

// waiting reports whether the tournament's step failed last and its pause
// is not over.
func (d *Director) waiting(id, step string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	f := d.failures[stepKey(id, step)]
	return f != nil && d.now().Before(f.next)
}

// settle records how a try of the tournament's step of kind ended: a
// success clears its failures (and its stuck record); a failure counts,
// sets the pause before the next try and, from the StuckAfter-th in a row,
// reports the step stuck. A failure because the process is stopping
// (ctx done) or because the pause was not over does not count.
func (d *Director) settle(ctx context.Context, id, kind, step string, err error) {
	if errors.Is(err, ErrBackingOff) || ctx.Err() != nil {
		return
	}
	d.loadStuck(ctx, id)
	now := d.now()
	key := stepKey(id, step)
	d.mu.Lock()
	f := d.failures[key]
	if err == nil {
		delete(d.failures, key)
		d.mu.Unlock()
		if f != nil && f.attempts >= StuckAfter {
			d.log.InfoContext(ctx, "director: stuck step done", "tournament", id, "step", step, "attempts", f.attempts, "since", f.since)
			if err := d.store.ClearStuckStep(ctx, id, step); err != nil {
				d.log.WarnContext(ctx, "director: stuck step not cleared", "tournament", id, "step", step, "error", err)
			}
		}
		return
	}
	if f == nil {
		f = &failure{kind: kind, since: now}
		d.failures[key] = f
	}
	f.attempts++
	f.next = now.Add(backoff(f.attempts))
	n, since, next := f.attempts, f.since, f.next
	d.mu.Unlock()
	if n < StuckAfter {
		d.log.WarnContext(ctx, "director: step failed; tried again later", "tournament", id, "step", step, "attempt", n,
			"retry_at", next, "error", err)
		return
	}
	d.log.ErrorContext(ctx, "director: step stuck", "tournament", id, "step", step, "attempts", n, "since", since,
		"retry_at", next, "error", err)
	stuckSteps.Add(ctx, 1, metric.WithAttributes(attribute.String("cardroom.step", kind)))
	s := store.StuckStep{Step: step, Kind: kind, Error: err.Error(), Attempts: n, Since: since, Last: now}
	if err := d.store.SaveStuckStep(ctx, id, s); err != nil {
		d.log.WarnContext(ctx, "director: stuck step not saved", "tournament", id, "step", step, "error", err)
	}
}

// handStep names the handling of a table's hand ends as a step.
func handStep(table int) string { return fmt.Sprintf("hand end at table %d", table) }
