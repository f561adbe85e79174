package store

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/telemetry"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
)

var meter = telemetry.NewMeter("github.com/cardroom/cardroom/services/tournament/store")

// The gauges carry the tournament id: a room runs a few tournaments a day
// and the tournament dashboard follows one (the cardinality limit caps a
// runaway). Each is as of the tournament's last change.
var (
	entrants = meter.Gauge("cardroom.tournament.entrants", "{player}",
		"Entries holding a place in a tournament's field (paying, active, busted or forfeited), by tournament.")
	remaining = meter.Gauge("cardroom.tournament.players.remaining", "{player}",
		"Players still in play in a running tournament, by tournament.")
	level = meter.Gauge("cardroom.tournament.level", "{level}",
		"Row of the structure sheet in force (1-based, breaks counted), by tournament; 0 before the start.")
)

// fields is the field this process last counted per database and
// tournament (fieldKey → [2]int64: entrants, remaining), so that a
// transaction that wrote no entry — most of a running event's: a hand
// with no bust, a clock step — does not count the whole field again
// (issue 10: O(entrants) per hand). Another process's writes show in this
// process's gauges at its next transaction that writes entries.
var fields sync.Map

type fieldKey struct {
	db *sqlstore.DB
	id string
}

// recordGauges reads the field of tournament t inside sqt (only when wrote
// says the transaction changed entries, or this process never counted it)
// and records it once sqt commits.
func recordGauges(ctx context.Context, sqt *sqlstore.Tx, key fieldKey, t Tournament, wrote bool) error {
	id := key.id
	var field, active int64
	last, counted := fields.Load(key)
	if counted && !wrote {
		field, active = last.([2]int64)[0], last.([2]int64)[1]
		counted = false
	} else {
		counted = true
		err := sqt.QueryRowContext(ctx, `SELECT COALESCE(SUM(CASE WHEN status IN ($2, $3, $4, $5) THEN 1 ELSE 0 END), 0),
			COALESCE(SUM(CASE WHEN status = $3 THEN 1 ELSE 0 END), 0) FROM tournament_entries WHERE tournament_id = $1`,
			id, int(entry.Paying), int(entry.Active), int(entry.Busted), int(entry.Forfeited)).Scan(&field, &active)
		if err != nil {
			return fmt.Errorf("count the field of %s: %w", id, err)
		}
	}
	// A finished tournament keeps the level it ended in.
	row := int64(0)
	if !t.Clock.Started.IsZero() {
		at := time.Now()
		if t.Event.Status != event.Running && !t.Clock.PausedAt.IsZero() {
			at = t.Clock.PausedAt
		}
		row = int64(t.Clock.At(at).Index + 1)
	}
	sqt.AfterCommit(func() {
		if counted {
			fields.Store(key, [2]int64{field, active})
		}
		at := metric.WithAttributes(attribute.String("cardroom.tournament.id", id))
		entrants.Record(ctx, field, at)
		remaining.Record(ctx, active, at)
		level.Record(ctx, row, at)
	})
	return nil
}
