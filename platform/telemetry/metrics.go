package telemetry

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
)

// Meter is the one way a cardroom package makes its instruments: on the
// global meter provider Setup installs (instruments made before Setup run
// take it up once it is installed), named for the package recording, with
// the conventions the dashboards and alerts rely on — OpenTelemetry names
// under "cardroom.", durations in seconds, counts and amounts as integers
// with a {curly} unit. Exported on /metrics they read
// cardroom_<name>_total for counters and cardroom_<name>_seconds_bucket
// for durations.
//
// Attributes must come from small closed sets (a game's variant, a table
// kind, a currency, an outcome): never a player id; a table or tournament
// id only where the instrument says so (a process deals few of them, and
// Setup caps every instrument at CardinalityLimit series).
type Meter struct {
	m metric.Meter
}

// NewMeter returns the meter of the package whose import path is scope.
func NewMeter(scope string) Meter { return Meter{m: otel.Meter(scope)} }

// CardinalityLimit is the most series one instrument keeps per process;
// attribute sets past it are counted in one overflow series
// (otel_metric_overflow="true"), so a label that should have been bounded
// costs memory it cannot exceed.
const CardinalityLimit = 500

// DurationBuckets are the histogram bounds, in seconds, of every duration
// the room records: from a fast action (5 ms) to a stuck wallet call (30 s).
var DurationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// AmountBuckets are the histogram bounds of money amounts in minor units
// (cents): from a 10.00 buy-in to a 100 000.00 cash-out.
var AmountBuckets = []float64{1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 10_000_000}

// Counter makes an integer counter; unit names what is counted, {hand}.
// An instrument that cannot be made (a malformed name) is reported to the
// OpenTelemetry error handler and records nothing, like the SDK itself.
func (m Meter) Counter(name, unit, description string) metric.Int64Counter {
	c, err := m.m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(description))
	report(err)
	return c
}

// Gauge makes an integer gauge: the latest value recorded for each
// attribute set (a waitlist's length, a tournament's level).
func (m Meter) Gauge(name, unit, description string) metric.Int64Gauge {
	g, err := m.m.Int64Gauge(name, metric.WithUnit(unit), metric.WithDescription(description))
	report(err)
	return g
}

// FloatGauge makes a gauge of a float value, such as an age in seconds.
func (m Meter) FloatGauge(name, unit, description string) metric.Float64Gauge {
	g, err := m.m.Float64Gauge(name, metric.WithUnit(unit), metric.WithDescription(description))
	report(err)
	return g
}

// Duration makes a histogram of durations in seconds (unit "s") over
// DurationBuckets; record time.Duration.Seconds().
func (m Meter) Duration(name, description string) metric.Float64Histogram {
	h, err := m.m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(description),
		metric.WithExplicitBucketBoundaries(DurationBuckets...))
	report(err)
	return h
}

// Amounts makes a histogram of money amounts in minor units over
// AmountBuckets: its count is how many, its sum how much.
func (m Meter) Amounts(name, unit, description string) metric.Int64Histogram {
	h, err := m.m.Int64Histogram(name, metric.WithUnit(unit), metric.WithDescription(description),
		metric.WithExplicitBucketBoundaries(AmountBuckets...))
	report(err)
	return h
}

func report(err error) {
	if err != nil {
		otel.Handle(err)
	}
}

// metricsHandler serves reg's metrics in the Prometheus exposition format.
func metricsHandler(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg, EnableOpenMetrics: true})
}
