package telemetry

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	collmetric "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	colltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
)

// The tests below that call Setup change process-wide OpenTelemetry and
// slog state, so they do not run in parallel.

func TestSetupTracesLogsAndTraceFile(t *testing.T) {
	mem := tracetest.NewInMemoryExporter()
	traceFile := filepath.Join(t.TempDir(), "spans.jsonl")
	var logs bytes.Buffer
	tel, err := Setup(t.Context(), Options{
		Service:   "wallet",
		Version:   "v1.2.3",
		Exporter:  mem,
		TraceFile: traceFile,
		LogLevel:  slog.LevelDebug,
		LogOutput: &logs,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tel.Shutdown(context.Background()) }()

	ctx, parent := otel.Tracer("test").Start(t.Context(), "gateway")
	ctx, child := otel.Tracer("test").Start(ctx, "wallet.HoldBuyIn")
	slog.DebugContext(ctx, "holding chips", "amount", 400)
	child.End()
	parent.End()
	slog.Info("no span here")

	// The in-memory exporter sees both spans of one trace, with our resource.
	spans := mem.GetSpans()
	if len(spans) != 2 || spans[0].SpanContext.TraceID() != spans[1].SpanContext.TraceID() {
		t.Fatalf("spans = %v", spans)
	}
	attrs := map[string]string{}
	for _, kv := range spans[0].Resource.Attributes() {
		attrs[string(kv.Key)] = kv.Value.String()
	}
	if attrs["service.name"] != "wallet" || attrs["service.version"] != "v1.2.3" {
		t.Fatalf("resource = %v", attrs)
	}

	// The log line carries the child span's IDs; the span-less one none.
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("log lines = %q", lines)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["trace_id"] != child.SpanContext().TraceID().String() || rec["span_id"] != child.SpanContext().SpanID().String() || rec["msg"] != "holding chips" {
		t.Fatalf("log record = %v", rec)
	}
	if strings.Contains(lines[1], "trace_id") {
		t.Fatalf("span-less record has a trace id: %s", lines[1])
	}

	// The trace file already holds both spans, one JSON object per line,
	// before shutdown: the end-to-end test reads it from a running process.
	f, err := os.Open(traceFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var span struct {
			Name        string
			SpanContext struct{ TraceID string }
		}
		if err := json.Unmarshal(sc.Bytes(), &span); err != nil {
			t.Fatalf("trace file line %q: %v", sc.Text(), err)
		}
		if span.SpanContext.TraceID != child.SpanContext().TraceID().String() {
			t.Fatalf("span %s has trace %s", span.Name, span.SpanContext.TraceID)
		}
		names = append(names, span.Name)
	}
	if strings.Join(names, ",") != "wallet.HoldBuyIn,gateway" {
		t.Fatalf("trace file spans = %v", names)
	}

	// W3C trace context and baggage propagate.
	member, _ := baggage.NewMember("player", "p1")
	bag, _ := baggage.New(member)
	carrier := propagation.MapCarrier{}
	otel.GetTextMapPropagator().Inject(baggage.ContextWithBaggage(ctx, bag), carrier)
	if !strings.Contains(carrier["traceparent"], child.SpanContext().TraceID().String()) || carrier["baggage"] != "player=p1" {
		t.Fatalf("propagated headers = %v", carrier)
	}
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}

func TestSetupHonoursOTelServiceName(t *testing.T) {
	t.Setenv("OTEL_SERVICE_NAME", "wallet-canary")
	mem := tracetest.NewInMemoryExporter()
	tel, err := Setup(t.Context(), Options{Service: "wallet", Exporter: mem, LogOutput: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tel.Shutdown(context.Background()) }()
	_, span := otel.Tracer("test").Start(t.Context(), "x")
	span.End()
	spans := mem.GetSpans()
	if len(spans) != 1 {
		t.Fatalf("spans = %v", spans)
	}
	for _, kv := range spans[0].Resource.Attributes() {
		if kv.Key == "service.name" && kv.Value.AsString() != "wallet-canary" {
			t.Fatalf("service.name = %s, want the OTEL_SERVICE_NAME override", kv.Value.AsString())
		}
	}
}

// collector is a minimal OTLP/gRPC receiver.
type collector struct {
	colltrace.UnimplementedTraceServiceServer
	mu    sync.Mutex // guards spans and metrics
	spans []string
	// metrics are the names of the metrics exported, with their service.
	metrics []string
}

func (c *collector) Export(_ context.Context, req *colltrace.ExportTraceServiceRequest) (*colltrace.ExportTraceServiceResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		service := ""
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" {
				service = kv.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				c.spans = append(c.spans, service+"/"+s.GetName())
			}
		}
	}
	return &colltrace.ExportTraceServiceResponse{}, nil
}

type metricsReceiver struct {
	collmetric.UnimplementedMetricsServiceServer
	c *collector
}

func (m metricsReceiver) Export(_ context.Context, req *collmetric.ExportMetricsServiceRequest) (*collmetric.ExportMetricsServiceResponse, error) {
	m.c.mu.Lock()
	defer m.c.mu.Unlock()
	for _, rm := range req.GetResourceMetrics() {
		service := ""
		for _, kv := range rm.GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" {
				service = kv.GetValue().GetStringValue()
			}
		}
		for _, sm := range rm.GetScopeMetrics() {
			for _, mt := range sm.GetMetrics() {
				var sum int64
				for _, dp := range mt.GetSum().GetDataPoints() {
					sum += dp.GetAsInt()
				}
				m.c.metrics = append(m.c.metrics, fmt.Sprintf("%s/%s=%d", service, mt.GetName(), sum))
			}
		}
	}
	return &collmetric.ExportMetricsServiceResponse{}, nil
}

func TestSetupExportsOverOTLP(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	col := &collector{}
	srv := grpc.NewServer()
	colltrace.RegisterTraceServiceServer(srv, col)
	collmetric.RegisterMetricsServiceServer(srv, metricsReceiver{c: col})
	go func() { _ = srv.Serve(lis) }()
	defer srv.Stop()

	tel, err := Setup(t.Context(), Options{Service: "table", OTLPEndpoint: "http://" + lis.Addr().String(), LogOutput: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	_, span := otel.Tracer("test").Start(t.Context(), "table.Sit", trace.WithSpanKind(trace.SpanKindServer))
	span.End()
	NewMeter("test").Counter("cardroom.test.hands", "{hand}", "Hands dealt.").Add(t.Context(), 3)
	// Shutdown flushes the batch span processor and the metric reader.
	if err := tel.Shutdown(t.Context()); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	col.mu.Lock()
	defer col.mu.Unlock()
	if strings.Join(col.spans, ",") != "table/table.Sit" {
		t.Fatalf("collector got spans %v", col.spans)
	}
	if !slices.Contains(col.metrics, "table/cardroom.test.hands=3") {
		t.Fatalf("collector got metrics %v, want table/cardroom.test.hands=3", col.metrics)
	}
}

func TestTraceHandlerKeepsAttrsAndGroups(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := NewLogger(&buf, slog.LevelWarn).With("service", "seating").WithGroup("req")
	tid, _ := trace.TraceIDFromHex("0102030405060708090a0b0c0d0e0f10")
	sid, _ := trace.SpanIDFromHex("0102030405060708")
	ctx := trace.ContextWithSpanContext(t.Context(), trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}))
	log.InfoContext(ctx, "dropped: below level")
	log.WarnContext(ctx, "offer expired", "waitlist", "w1")
	var rec struct {
		Msg     string
		Service string
		Req     map[string]string
	}
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatalf("%v: %s", err, buf.String())
	}
	if rec.Msg != "offer expired" || rec.Service != "seating" || rec.Req["waitlist"] != "w1" ||
		rec.Req["trace_id"] != tid.String() || rec.Req["span_id"] != sid.String() {
		t.Fatalf("record = %+v from %s", rec, buf.String())
	}
}
