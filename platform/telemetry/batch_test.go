package telemetry

import (
	"context"
	"slices"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// TestBatchReachesEveryRequestsTrace: the span of work done once for
// several requests (a group commit) is a child of the first request's
// span, so the SQL under it is in that trace, links to every request's
// span, and every request's span links back to it — no request's trace
// ends at the door of its write.
func TestBatchReachesEveryRequestsTrace(t *testing.T) {
	t.Parallel()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	tr := tp.Tracer("test")
	var requests []context.Context
	var ends []func(...trace.SpanEndOption)
	for _, name := range []string{"Act table 1", "Act table 2", "Act table 3"} {
		ctx, span := tr.Start(t.Context(), name)
		requests = append(requests, ctx)
		ends = append(ends, span.End)
	}
	ctx, batch := Batch(context.Background(), "group commit", append(requests, context.Background()))
	_, sql := tr.Start(ctx, "UPDATE tables")
	sql.End()
	batch.End()
	for _, end := range ends {
		end()
	}

	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range spans.GetSpans().Snapshots() {
		byName[s.Name()] = s
	}
	b, first := byName["group commit"], byName["Act table 1"]
	if b == nil || b.Parent().SpanID() != first.SpanContext().SpanID() {
		t.Fatalf("the batch span's parent is %v, want the first request's span %v", b.Parent(), first.SpanContext())
	}
	if got := byName["UPDATE tables"]; got.SpanContext().TraceID() != first.SpanContext().TraceID() {
		t.Fatal("the batch's SQL is not in the first request's trace")
	}
	var linked []string
	for _, l := range b.Links() {
		for name, s := range byName {
			if s.SpanContext().SpanID() == l.SpanContext.SpanID() {
				linked = append(linked, name)
			}
		}
	}
	slices.Sort(linked)
	if want := []string{"Act table 1", "Act table 2", "Act table 3"}; !slices.Equal(linked, want) {
		t.Fatalf("the batch links to %v, want %v (a request without a span adds none)", linked, want)
	}
	for _, name := range []string{"Act table 2", "Act table 3"} {
		s := byName[name]
		if len(s.Links()) != 1 || s.Links()[0].SpanContext.SpanID() != b.SpanContext().SpanID() {
			t.Fatalf("%s links to %v, want the batch span", name, s.Links())
		}
	}
}
