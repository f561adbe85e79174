// Package telemetry sets up OpenTelemetry tracing and metrics and JSON
// logging for a cardroom process: one call to Setup at start-up installs
// the global tracer and meter providers and the W3C trace-context and
// baggage propagators that the otelgrpc/otelhttp/redisotel instrumentation
// picks up, and makes slog's default logger write JSON lines carrying the
// trace_id and span_id of the context they are logged with.
package telemetry

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// Options configure Setup. Cmd fills them from platform/config.
type Options struct {
	// Service is the service.name resource attribute (OTEL_SERVICE_NAME
	// overrides it).
	Service string
	// Version is the service.version resource attribute.
	Version string

	// Exporter, when set, receives every span as it ends (synchronously),
	// in addition to any other export. Tests use an in-memory exporter.
	Exporter sdktrace.SpanExporter
	// OTLPEndpoint (OTEL_EXPORTER_OTLP_ENDPOINT), when set, exports traces
	// and metrics over OTLP/gRPC there. The exporters read the other
	// OTEL_EXPORTER_OTLP_* variables themselves.
	OTLPEndpoint string
	// TraceFile (CARDROOM_TRACE_FILE), when set, appends every span as it
	// ends to this file as one JSON object per line.
	TraceFile string

	// LogLevel is the minimum level logged; nil means info.
	LogLevel slog.Leveler
	// LogOutput receives the JSON log lines; nil means os.Stderr.
	LogOutput io.Writer
}

// Telemetry is what Setup installed: Shutdown flushes it, Metrics serves
// its metrics to Prometheus.
type Telemetry struct {
	shutdown func(context.Context) error
	flush    func(context.Context) error
	metrics  http.Handler
}

// Flush exports every span ended and every metric recorded so far, and
// waits for the exporters to take them.
func (t *Telemetry) Flush(ctx context.Context) error { return t.flush(ctx) }

// Shutdown flushes and closes the exporters; call it once, on the way out.
func (t *Telemetry) Shutdown(ctx context.Context) error { return t.shutdown(ctx) }

// Metrics serves every instrument of the process, and the Go runtime's and
// the process's own metrics, in the Prometheus exposition format: mount it
// at /metrics.
func (t *Telemetry) Metrics() http.Handler { return t.metrics }

// Setup installs the global tracer provider, meter provider, propagators
// and default slog logger described by o. Metrics go to a Prometheus
// registry (Telemetry.Metrics) and, with an OTLP endpoint, to the
// collector every 15 s.
func Setup(ctx context.Context, o Options) (_ *Telemetry, err error) {
	var closers []func(context.Context) error
	shutdown := func(ctx context.Context) error {
		var errs []error
		// Reverse order: providers flush into exporters before files close.
		for i := len(closers) - 1; i >= 0; i-- {
			errs = append(errs, closers[i](ctx))
		}
		return errors.Join(errs...)
	}
	defer func() {
		if err != nil {
			_ = shutdown(ctx)
		}
	}()

	out := o.LogOutput
	out = cmp.Or[io.Writer](out, os.Stderr)
	logger := NewLogger(out, o.LogLevel)
	slog.SetDefault(logger)
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		logger.WarnContext(context.Background(), "opentelemetry", "error", err.Error())
	}))

	res, err := resource.New(ctx,
		resource.WithSchemaURL(semconv.SchemaURL),
		resource.WithAttributes(semconv.ServiceName(o.Service), semconv.ServiceVersion(o.Version)),
		resource.WithTelemetrySDK(),
		// Last, so OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win.
		resource.WithFromEnv(),
	)
	if err != nil {
		return nil, fmt.Errorf("telemetry resource: %w", err)
	}

	// No sampler option: the SDK then honours OTEL_TRACES_SAMPLER(_ARG),
	// defaulting to parentbased_always_on.
	tpOpts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	if o.Exporter != nil {
		tpOpts = append(tpOpts, sdktrace.WithSyncer(o.Exporter))
	}
	if o.TraceFile != "" {
		opt, closeFile, err := traceFile(o.TraceFile)
		if err != nil {
			return nil, err
		}
		closers = append(closers, closeFile)
		tpOpts = append(tpOpts, opt)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	prom, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, fmt.Errorf("prometheus exporter: %w", err)
	}
	mpOpts := []sdkmetric.Option{sdkmetric.WithResource(res), sdkmetric.WithReader(prom),
		sdkmetric.WithCardinalityLimit(CardinalityLimit),
		// otelhttp labels server metrics with the request's Host header,
		// which the client chooses: not a bounded label.
		sdkmetric.WithView(sdkmetric.NewView(sdkmetric.Instrument{Name: "http.server.*"},
			sdkmetric.Stream{AttributeFilter: attribute.NewDenyKeysFilter("server.address", "server.port")}))}
	if o.OTLPEndpoint != "" {
		tpOpt, mpOpt, err := otlp(ctx, o.OTLPEndpoint)
		if err != nil {
			return nil, err
		}
		tpOpts, mpOpts = append(tpOpts, tpOpt), append(mpOpts, mpOpt)
	}
	tp := sdktrace.NewTracerProvider(tpOpts...)
	closers = append(closers, tp.Shutdown)
	mp := sdkmetric.NewMeterProvider(mpOpts...)
	closers = append(closers, mp.Shutdown)

	otel.SetTracerProvider(tp)
	otel.SetMeterProvider(mp)
	otel.SetTextMapPropagator(Propagator())
	flush := func(ctx context.Context) error { return errors.Join(tp.ForceFlush(ctx), mp.ForceFlush(ctx)) }
	return &Telemetry{shutdown: shutdown, flush: flush, metrics: metricsHandler(reg)}, nil
}

// traceFile returns the option that writes every span to the file name,
// and what closes the file.
func traceFile(name string) (sdktrace.TracerProviderOption, func(context.Context) error, error) {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("open trace file: %w", err)
	}
	exp, err := stdouttrace.New(stdouttrace.WithWriter(f))
	if err != nil {
		_ = f.Close()
		return nil, nil, fmt.Errorf("trace file exporter: %w", err)
	}
	// Synchronous, so a test reading the file sees a span as soon as the
	// request that produced it has answered.
	return sdktrace.WithSyncer(exp), func(context.Context) error { return f.Close() }, nil
}

// otlp returns the options that export traces (batched) and metrics
// (every 15 s) to the OTLP/gRPC collector at endpoint.
func otlp(ctx context.Context, endpoint string) (sdktrace.TracerProviderOption, sdkmetric.Option, error) {
	texp, err := otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(endpoint))
	if err != nil {
		return nil, nil, fmt.Errorf("otlp trace exporter: %w", err)
	}
	mexp, err := otlpmetricgrpc.New(ctx, otlpmetricgrpc.WithEndpointURL(endpoint))
	if err != nil {
		_ = texp.Shutdown(ctx)
		return nil, nil, fmt.Errorf("otlp metric exporter: %w", err)
	}
	return sdktrace.WithBatcher(texp), sdkmetric.WithReader(sdkmetric.NewPeriodicReader(mexp, sdkmetric.WithInterval(15*time.Second))), nil
}

// Propagator is the W3C trace-context + baggage propagator Setup installs.
func Propagator() propagation.TextMapPropagator {
	return propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
}
