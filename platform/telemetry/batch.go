package telemetry

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// Batch starts the span of work done once for several requests — a group
// commit writing many tables' states, or many transfers, in one
// transaction — so that each request's trace still reaches the SQL done
// for it. The span is a child of the first request's span, so its
// statements show in that trace, and it links to every request's span;
// each request's span links back to it, so the others' traces lead there
// too. base carries the batch's own deadline and cancellation: the
// requests' contexts only lend their spans. End the span when the batch
// is done.
func Batch(base context.Context, name string, requests []context.Context) (context.Context, trace.Span) {
	links := make([]trace.Link, 0, len(requests))
	parent := trace.SpanContext{}
	tp := otel.GetTracerProvider()
	for _, rc := range requests {
		sc := trace.SpanContextFromContext(rc)
		if !sc.IsValid() {
			continue
		}
		if !parent.IsValid() {
			// The requests' own provider: a process has one, a test its own.
			parent, tp = sc, trace.SpanFromContext(rc).TracerProvider()
		}
		links = append(links, trace.Link{SpanContext: sc})
	}
	if parent.IsValid() {
		base = trace.ContextWithSpanContext(base, parent)
	}
	ctx, span := tp.Tracer("github.com/cardroom/cardroom/platform/telemetry").Start(base, name,
		trace.WithLinks(links...), trace.WithAttributes(attribute.Int("cardroom.batch.requests", len(requests))))
	back := trace.Link{SpanContext: span.SpanContext()}
	for _, rc := range requests {
		trace.SpanFromContext(rc).AddLink(back)
	}
	return ctx, span
}
