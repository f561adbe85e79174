package runner

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/telemetry"
	"github.com/cardroom/cardroom/services/table/dealer"
	"github.com/cardroom/cardroom/services/table/store"
	"github.com/cardroom/cardroom/services/table/tables"
)

var meter = telemetry.NewMeter("github.com/cardroom/cardroom/services/table/runner")

var (
	// handsDealt carries the table id: a replica deals a few dozen tables
	// in its lifetime (the cardinality limit caps a runaway), and the
	// one-table dashboard needs them.
	handsDealt = meter.Counter("cardroom.table.hands", "{hand}",
		"Hands dealt, by table, table kind (cash, tournament), game and betting structure.")
	actionDuration = meter.Duration("cardroom.table.action.duration",
		"Time the table service takes to apply a player's action and store it, by table kind, game and outcome (accepted, refused, failed).")
	seated = meter.Gauge("cardroom.table.players", "{player}", "Players seated at a table the replica deals, by table.")
	// The wallet steps are counted over every table of the room (one
	// query); each replica reports the same numbers, so dashboards take
	// the max over replicas.
	stepsPending = meter.Gauge("cardroom.table.wallet_steps.pending", "{step}",
		"Buy-ins, top-ups and cash-outs the tables recorded that the wallet has not confirmed yet, by kind.")
	stepsOldest = meter.FloatGauge("cardroom.table.wallet_steps.oldest_age", "s",
		"Age of the oldest unconfirmed wallet step, by kind (0: none); a step retried for minutes is stuck.")
)

// gameAttrs are the bounded attributes of a table's game.
func gameAttrs(d tables.Definition) []attribute.KeyValue {
	kind := "cash"
	if d.Kind == tables.Tournament {
		kind = "tournament"
	}
	return []attribute.KeyValue{
		attribute.String("cardroom.table.kind", kind),
		attribute.String("cardroom.game.variant", d.Config.Game.String()),
		attribute.String("cardroom.game.structure", d.Config.Structure.String()),
	}
}

// countHand records a hand dealt and the players seated once it is.
func (t *Table) countHand(ctx context.Context) {
	id := attribute.String("cardroom.table.id", t.id)
	handsDealt.Add(ctx, 1, metric.WithAttributes(append(gameAttrs(t.def), id)...))
	players := 0
	for _, s := range t.dt.Seats() {
		if s.Player != "" {
			players++
		}
	}
	seated.Record(ctx, int64(players), metric.WithAttributes(id))
}

// checkChips counts a hand whose final stacks do not add up to its
// starting stacks (the room takes no rake, so chips only move between
// seats); it should never happen.
func (t *Table) checkChips(ctx context.Context, e *dealer.HandEnded) {
	var start, end int64
	for _, s := range e.Result.Seats {
		start, end = start+s.Start, end+s.Stack
	}
	if start != end {
		telemetry.CountChipMismatches(ctx, "hand", 1)
		t.r.d.Logger.ErrorContext(ctx, "chips not conserved in a hand", "table", t.id, "hand", e.HandNo, "start", start, "end", end)
	}
}

// timeAction records how long applying an action took since start.
func (t *Table) timeAction(ctx context.Context, start time.Time, err error) {
	outcome := "accepted"
	if err != nil {
		outcome = "refused"
		if _, ok := fault.As(err); !ok {
			outcome = "failed"
		}
	}
	actionDuration.Record(ctx, time.Since(start).Seconds(),
		metric.WithAttributes(append(gameAttrs(t.def), attribute.String("cardroom.outcome", outcome))...))
}

// recordWalletSteps records the room's unconfirmed wallet steps.
func (r *Runner) recordWalletSteps(ctx context.Context) {
	steps, err := r.d.Store.PendingMoneySteps(ctx)
	if err != nil {
		r.d.Logger.WarnContext(ctx, "count pending wallet steps", "error", err)
		return
	}
	now := time.Now()
	for _, kind := range []string{store.MoveBuyIn, store.MoveTopUp, store.MoveCashOut} {
		s := steps[kind]
		at := metric.WithAttributes(attribute.String("cardroom.wallet_step.kind", kind))
		stepsPending.Record(ctx, s.Count, at)
		age := 0.0
		if s.Count > 0 {
			age = max(now.Sub(s.Oldest).Seconds(), 0)
		}
		stepsOldest.Record(ctx, age, at)
	}
}

// stuckMoves counts the wallet steps (cash-outs, buy-in commits) that
// became stuck: StuckAfter attempts failed. Its one attribute is the kind
// of step; players and tables are in the log line and the cage's list
// (the wallet's ListStuckCashOuts), never in a metric's labels.
var stuckMoves = meter.Counter("cardroom.table.wallet_steps.stuck", "{step}",
	"Wallet steps of a table (cash-outs, buy-in commits) retried past the stuck limit; their chips wait in the table's escrow.")
