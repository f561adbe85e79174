package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// chipMismatches is one instrument for every service, so one alert covers
// them all: any increase pages.
var chipMismatches = NewMeter("github.com/cardroom/cardroom/platform/telemetry").Counter("cardroom.chips.mismatches", "{mismatch}",
	"Chip-conservation checks that failed, by what was checked (hand: a hand's final stacks against its starting stacks; tournament: the chips in play against those issued). Anything above zero pages.")

// CountChipMismatches adds n failed chip-conservation checks of scope
// (hand, tournament, ...). Callers add 0 at start-up so that the series
// exists, at zero, before anything goes wrong.
func CountChipMismatches(ctx context.Context, scope string, n int64) {
	chipMismatches.Add(ctx, n, metric.WithAttributes(attribute.String("cardroom.chips.scope", scope)))
}
