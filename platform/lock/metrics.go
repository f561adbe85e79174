package lock

import (
	"context"
	"errors"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/cardroom/cardroom/platform/telemetry"
)

var meter = telemetry.NewMeter("github.com/cardroom/cardroom/platform/lock")

var (
	acquisitions = meter.Counter("cardroom.lock.acquisitions", "{acquisition}",
		"Attempts to take an entity's lock, by entity kind and outcome (acquired, or held by another owner).")
	lost = meter.Counter("cardroom.lock.lost", "{lease}",
		"Leases that ended without a Release: the renewal failed or another owner holds the key now.")
	takeovers = meter.Counter("cardroom.lock.takeovers", "{takeover}",
		"Entities claimed that an earlier owner had held: after a restart, a crash, a lost lease or a rolling update.")
)

// entityOf is the kind of entity a lock key names ("tables" of
// "tables:t1"): a small closed set, unlike the key.
func entityOf(key string) attribute.KeyValue {
	kind, _, _ := strings.Cut(key, ":")
	return attribute.String("cardroom.lock.entity", kind)
}

func countAcquisition(ctx context.Context, key string, err error) {
	outcome := "acquired"
	switch {
	case err == nil:
	case errors.Is(err, ErrHeld):
		outcome = "held"
	default:
		outcome = "error"
	}
	acquisitions.Add(ctx, 1, metric.WithAttributes(entityOf(key), attribute.String("cardroom.lock.outcome", outcome)))
}

// CountTakeover records that the caller claimed entity (a table) that an
// earlier owner had claimed before it (the caller tells by the epoch).
// Owners that hold their lock for the length of an operation (a
// waitlist's) claim a new epoch each time and do not count.
func CountTakeover(ctx context.Context, entity string) {
	takeovers.Add(ctx, 1, metric.WithAttributes(attribute.String("cardroom.lock.entity", entity)))
}
