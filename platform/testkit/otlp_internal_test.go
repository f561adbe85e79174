package testkit

import (
	"testing"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// The sink answers an OTLP exporter's request as a collector that took
// every span, and counts the request's bytes.
func TestOTLPSinkAcceptsExports(t *testing.T) {
	t.Parallel()
	sink, stop, err := startOTLPSink()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	exp, err := otlptracegrpc.New(t.Context(), otlptracegrpc.WithEndpointURL(sink.endpoint))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = exp.Shutdown(t.Context()) }()
	spans := tracetest.SpanStubs{{Name: "Act"}, {Name: "table states group commit"}}.Snapshots()
	if err := exp.ExportSpans(t.Context(), spans); err != nil {
		t.Fatalf("export refused: %v", err)
	}
	if n := sink.bytes.Load(); n == 0 {
		t.Fatal("the sink counted no bytes for an export it accepted")
	}
}
