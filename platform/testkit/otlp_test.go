package testkit_test

import (
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cardroom/cardroom/platform/testkit"
)

// The sink answers an OTLP exporter's request as a collector that took
// every span, and counts the request.
func TestOTLPSinkAcceptsExports(t *testing.T) {
	t.Parallel()
	sink := testkit.StartOTLPSink(t)
	exp, err := otlptracegrpc.New(t.Context(), otlptracegrpc.WithEndpointURL(sink.Endpoint))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = exp.Shutdown(t.Context()) }()
	spans := tracetest.SpanStubs{{Name: "Act"}, {Name: "table states group commit"}}.Snapshots()
	if err := exp.ExportSpans(t.Context(), spans); err != nil {
		t.Fatalf("export refused: %v", err)
	}
	if sink.Exports() != 1 || sink.Bytes() == 0 {
		t.Fatalf("sink took %d exports, %d bytes; want 1 export with bytes", sink.Exports(), sink.Bytes())
	}
}

// DeployedTelemetry installs providers that record and export: a span
// ended after it adds to the bytes its function reports more than a flush
// of the metrics alone (each flush exports them).
func TestDeployedTelemetryExportsSpans(t *testing.T) {
	exported := testkit.DeployedTelemetry(t, "cardroom-test")
	first := exported()
	metricsOnly := exported() - first
	_, span := otel.Tracer("testkit").Start(t.Context(), "Act")
	if !span.IsRecording() {
		t.Fatal("span not recording: the providers are not the deployed ones")
	}
	span.End()
	if withSpan := exported() - first - metricsOnly; withSpan <= metricsOnly {
		t.Fatalf("a flush with a span exported %d bytes, one without %d: the span was not exported", withSpan, metricsOnly)
	}
}
