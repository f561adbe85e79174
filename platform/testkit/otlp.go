package testkit

import (
	"context"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"

	"github.com/cardroom/cardroom/platform/telemetry"
)

// otlpSink is an OTLP/gRPC collector that takes every export and keeps
// only its size. A benchmark whose process sets up telemetry with the sink
// as its endpoint pays for its spans and metrics what a deployed process
// pays — recorded, batched, serialized and sent over TCP — while the
// sink never decodes them, so a collector's work does not count against
// the process measured.
type otlpSink struct {
	// endpoint is the sink's address as OTEL_EXPORTER_OTLP_ENDPOINT
	// takes it.
	endpoint string
	bytes    atomic.Int64
}

// startOTLPSink starts a sink and returns what stops it.
func startOTLPSink() (*otlpSink, func(), error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	s := &otlpSink{endpoint: "http://" + lis.Addr().String()}
	// Every method is unknown to a server with no services registered, so
	// one handler answers the trace and the metric exports alike; the raw
	// codec hands it the request's bytes undecoded.
	srv := grpc.NewServer(grpc.ForceServerCodec(rawCodec{}), grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
		var m rawMessage
		if err := stream.RecvMsg(&m); err != nil {
			return err
		}
		s.bytes.Add(int64(m.n))
		// An empty message is an empty Export*ServiceResponse: all
		// accepted.
		return stream.SendMsg(&rawMessage{})
	}))
	go func() { _ = srv.Serve(lis) }()
	return s, srv.Stop, nil
}

// deployed is the process's telemetry as DeployedTelemetry set it up.
var deployed struct {
	once sync.Once
	sink *otlpSink
	tel  *telemetry.Telemetry
	err  error
}

// DeployedTelemetry sets the process's telemetry up as a deployed
// service has it (telemetry.Setup with an OTLP endpoint): every call
// traced with the deployment's sampler (parentbased_always_on, unless
// OTEL_TRACES_SAMPLER says otherwise), its SQL and Redis spans with it,
// the metrics recorded, and both exported over OTLP/gRPC — to a sink in
// this process that only counts bytes (otlpSink). CARDROOM_TRACE_FILE, as
// in the service, also writes every span to a file. A benchmark calls it
// before it builds what it measures, to be measured as deployed rather
// than with the no-op providers every test runs with.
//
// It is set up once a process and stays for the process's life: the
// instruments a package makes at its start take up the first providers
// installed, for good. The returned function flushes the exporters and
// returns the bytes exported since the call.
func DeployedTelemetry(t testing.TB, service string) (exported func() int64) {
	t.Helper()
	deployed.once.Do(func() {
		var sink *otlpSink
		if sink, _, deployed.err = startOTLPSink(); deployed.err != nil {
			return
		}
		deployed.sink = sink
		deployed.tel, deployed.err = telemetry.Setup(context.Background(), telemetry.Options{Service: service,
			OTLPEndpoint: sink.endpoint, TraceFile: os.Getenv("CARDROOM_TRACE_FILE")})
	})
	if deployed.err != nil {
		t.Fatal(deployed.err)
	}
	from := deployed.sink.bytes.Load()
	return func() int64 {
		if err := deployed.tel.Flush(context.Background()); err != nil {
			t.Error(err)
		}
		return deployed.sink.bytes.Load() - from
	}
}

// rawMessage is a request's length, or an empty answer.
type rawMessage struct{ n int }

// rawCodec reads a message as its length and writes nothing.
type rawCodec struct{}

func (rawCodec) Marshal(any) ([]byte, error) { return nil, nil }

func (rawCodec) Unmarshal(data []byte, v any) error {
	v.(*rawMessage).n = len(data)
	return nil
}

func (rawCodec) Name() string { return "proto" }
