// Package events carries state changes between services with at-least-once
// delivery and no losses: a producer writes its events into an outbox table
// in the same SQL transaction as the change (Add), a Relay publishes
// committed rows to a Bus and marks them published, and consumers apply
// each event ID once (Idempotent). A crash anywhere in between leads to a
// redelivery, never to a lost or doubly applied event.
//
// The outbox and processed_events tables belong in every service database
// that uses this package: list Migrations in sqlstore.Options.Shared.
//
// Each event carries the producer's W3C trace context (traceparent and
// tracestate headers), so the relay's publish span and the consumer's span
// continue the trace of the request that caused the event.
package events

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"fmt"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/telemetry"
)

//go:embed migrations
var migrationFiles embed.FS

// Migrations creates the outbox and processed_events tables (one goose
// set, version table goose_events_version, per-dialect files). Services add
// it to sqlstore.Options.Shared.
var Migrations = sqlstore.MigrationSet{Name: "events", FS: sqlstore.Embedded(migrationFiles, "migrations")}

// Event is one fact a service announces.
type Event struct {
	// ID is unique per event; consumers apply each ID once. Add fills in
	// a random one when empty.
	ID string
	// Topic names the kind of event, for example "table.seat_opened".
	Topic string
	// Key is the entity the event is about (a table or account id).
	Key string
	// Payload is the encoded event body (usually protobuf).
	Payload []byte
	// Epoch is the producer's fencing epoch for the entity, so consumers
	// can refuse events from a stale owner.
	Epoch int64
	// Headers carry metadata, notably W3C traceparent/tracestate.
	Headers map[string]string
}

// Handler consumes one event. Returning an error leaves the event to be
// delivered again.
type Handler func(ctx context.Context, ev Event) error

// Bus moves events from publishers to consumer groups.
type Bus interface {
	// Publish hands ev to the bus; when it returns nil the event will be
	// delivered to every consumer group of its topic.
	Publish(ctx context.Context, ev Event) error
	// Subscribe delivers events of topic to h as a member of group until
	// ctx ends, then returns nil. Each event goes to one member of each
	// group; an event whose handler failed, or whose member died before
	// acknowledging it, is delivered again, possibly to another member.
	Subscribe(ctx context.Context, topic, group string, h Handler) error
}

// NewID returns a random event ID.
func NewID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("event id: %v", err))
	}
	return hex.EncodeToString(b[:])
}

// propagator is fixed to W3C trace context so events carry a traceparent
// whatever the process's global propagator is.
var propagator = telemetry.Propagator()

const instrumentation = "github.com/cardroom/cardroom/platform/events"

func tracer(tp trace.TracerProvider) trace.Tracer {
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	return tp.Tracer(instrumentation)
}

// inject writes ctx's trace context into ev's headers.
func inject(ctx context.Context, ev *Event) {
	if ev.Headers == nil {
		ev.Headers = make(map[string]string, 2)
	}
	propagator.Inject(ctx, propagation.MapCarrier(ev.Headers))
}

// Extract returns ctx carrying the trace context in ev's headers.
func Extract(ctx context.Context, ev Event) context.Context {
	return propagator.Extract(ctx, propagation.MapCarrier(ev.Headers))
}

func spanAttrs(system string, ev Event) trace.SpanStartEventOption {
	return trace.WithAttributes(
		attribute.String("messaging.system", system),
		attribute.String("messaging.destination.name", ev.Topic),
		attribute.String("messaging.message.id", ev.ID),
		attribute.String("cardroom.event.key", ev.Key),
		attribute.Int64("cardroom.event.epoch", ev.Epoch),
	)
}

// consume runs h for ev inside a consumer span that continues the
// producer's trace.
func consume(ctx context.Context, tp trace.TracerProvider, system, group string, ev Event, h Handler) error {
	ctx, span := tracer(tp).Start(Extract(ctx, ev), "consume "+ev.Topic,
		trace.WithSpanKind(trace.SpanKindConsumer), spanAttrs(system, ev),
		trace.WithAttributes(attribute.String("messaging.consumer.group.name", group)))
	defer span.End()
	err := h(ctx, ev)
	if err != nil {
		span.RecordError(err)
	}
	return err
}
