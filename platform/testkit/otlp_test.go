package testkit_test

import (
	"testing"

	"go.opentelemetry.io/otel"

	"github.com/cardroom/cardroom/platform/testkit"
)

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
