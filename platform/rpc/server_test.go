package rpc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/testkit/poll"
)

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex // guards buf
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testServer is the fixture service served on a loopback port.
type testServer struct {
	f       fixture
	addr    string
	spans   *tracetest.InMemoryExporter
	logs    *syncBuffer
	health  *health.Server
	opts    Options
	client  *grpc.ClientConn // the server's own client, for Relay
	release chan struct{}    // closes to let "slow" calls finish
	started chan struct{}    // receives when a "slow" call is running
	srv     *grpc.Server
}

func startServer(t *testing.T) *testServer {
	t.Helper()
	ts := &testServer{
		f:       newFixture(t),
		spans:   tracetest.NewInMemoryExporter(),
		logs:    &syncBuffer{},
		health:  health.NewServer(),
		release: make(chan struct{}),
		started: make(chan struct{}, 1),
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(ts.spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	iss, err := auth.NewIssuer(testKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts.opts = Options{
		Logger:         slog.New(slog.NewJSONHandler(ts.logs, nil)),
		TracerProvider: tp,
		Propagator:     propagation.TraceContext{},
		Verifier:       mustVerifier(t),
		Authorize:      AccessFromDescriptors(ts.f.files, ts.f.types),
		Health:         ts.health,
		ServiceToken:   iss.ServiceTokens("svc-table", time.Hour),
		Drainer:        NewDrainer(),
	}
	ts.srv = NewServer(ts.opts)
	ts.srv.RegisterService(ts.f.serviceDesc(ts.handle), nil)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.addr = lis.Addr().String()
	ts.client, err = Dial(ts.addr, ts.opts)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- ts.srv.Serve(lis) }()
	t.Cleanup(func() {
		Shutdown(ts.srv, 5*time.Second)
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		ts.client.Close()
	})
	return ts
}

func (ts *testServer) handle(ctx context.Context, method string, req *dynamicpb.Message) (proto.Message, error) {
	subject := "anonymous"
	if p, ok := auth.FromContext(ctx); ok {
		subject = p.Subject
	}
	switch id := tableID(req); id {
	case "fault":
		return nil, errBelowMinimum.With("min", "400", "max", "1000")
	case "panic":
		var seats map[string]int
		seats["secret-seat"] = 1 // nil map write: a real runtime panic
	case "boom":
		return nil, errors.New("database password=hunter2 refused")
	case "slow":
		ts.started <- struct{}{}
		select {
		case <-ts.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case "forward", "forward-as-service":
		if id == "forward-as-service" {
			// The part's own work: no caller token, only the trace.
			ctx = trace.ContextWithSpan(context.Background(), trace.SpanFromContext(ctx))
		}
		out := ts.f.response("")
		if err := ts.client.Invoke(ctx, fullMethod("Relay"), ts.f.request("echo", 1), out); err != nil {
			return nil, err
		}
		return out, nil
	}
	return ts.f.response(subject), nil
}

func (ts *testServer) call(ctx context.Context, method, token, tableID string, amount int64) (string, error) {
	conn, err := Dial(ts.addr, Options{TracerProvider: ts.opts.TracerProvider, Propagator: ts.opts.Propagator})
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if token != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
	}
	out := ts.f.response("")
	if err := conn.Invoke(ctx, fullMethod(method), ts.f.request(tableID, amount), out); err != nil {
		return "", err
	}
	return who(out), nil
}

func TestServerOverLoopback(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	cashier := mustToken(t, "cass", auth.Cashier)
	player := mustToken(t, "pat", auth.Player)
	tests := []struct {
		name    string
		method  string
		token   string
		tableID string
		amount  int64
		code    codes.Code
		who     string
		reason  string
		meta    map[string]string
	}{
		{name: "no token", method: "Ping", tableID: "t1", amount: 5, code: codes.Unauthenticated, reason: ReasonUnauthenticated},
		{name: "bad token", method: "Ping", token: "junk", tableID: "t1", amount: 5, code: codes.Unauthenticated, reason: ReasonUnauthenticated},
		{name: "wrong role", method: "Ping", token: player, tableID: "t1", amount: 5, code: codes.PermissionDenied, reason: ReasonPermissionDenied, meta: map[string]string{"required_roles": "cashier,floor"}},
		{name: "allowed role", method: "Ping", token: cashier, tableID: "t1", amount: 5, code: codes.OK, who: "cass"},
		{name: "undeclared method", method: "Undeclared", token: mustToken(t, "root", auth.Admin), tableID: "t1", amount: 5, code: codes.PermissionDenied, reason: ReasonPermissionDenied},
		{name: "public method without token", method: "Open", tableID: "t1", amount: 5, code: codes.OK, who: "anonymous"},
		{name: "CS-03 fault becomes FailedPrecondition with rule id", method: "Ping", token: cashier, tableID: "fault", amount: 5, code: codes.FailedPrecondition, reason: "BUY_IN_BELOW_MINIMUM", meta: map[string]string{"rule_id": "CS-03", "min": "400", "max": "1000"}},
		{name: "validation names the field", method: "Ping", token: cashier, tableID: "t1", amount: -5, code: codes.InvalidArgument, reason: ReasonInvalidArgument, meta: map[string]string{"field": "amount", "constraint": "int64.gt"}},
		{name: "validation runs after authentication", method: "Ping", tableID: "t1", amount: -5, code: codes.Unauthenticated, reason: ReasonUnauthenticated},
		{name: "token forwarded to the next service", method: "Relay", token: player, tableID: "forward", amount: 1, code: codes.OK, who: "pat"},
		{name: "service token when there is no caller", method: "Relay", token: player, tableID: "forward-as-service", amount: 1, code: codes.OK, who: "svc-table"},
		{name: "NUL in a string is refused before the handler", method: "Ping", token: cashier, tableID: "fa\x00ult", amount: 5, code: codes.InvalidArgument, reason: ReasonInvalidArgument, meta: map[string]string{"field": "table_id"}},
		{name: "admin refused a service-only RPC", method: "Settle", token: mustToken(t, "root", auth.Admin), tableID: "t1", amount: 5, code: codes.PermissionDenied, reason: ReasonPermissionDenied, meta: map[string]string{"required_roles": "service"}},
		{name: "the service calls a service-only RPC", method: "Settle", token: mustToken(t, "cardroom-table", auth.Service), tableID: "t1", amount: 5, code: codes.OK, who: "cardroom-table"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ts.call(t.Context(), tt.method, tt.token, tt.tableID, tt.amount)
			if code := status.Code(err); code != tt.code {
				t.Fatalf("code = %v (%v), want %v", code, err, tt.code)
			}
			if tt.code == codes.OK {
				if got != tt.who {
					t.Fatalf("who = %q, want %q", got, tt.who)
				}
				return
			}
			info := errorInfo(t, err)
			if info.GetReason() != tt.reason || info.GetDomain() != "cardroom.rpctest" {
				t.Fatalf("ErrorInfo = %v, want reason %s", info, tt.reason)
			}
			for k, v := range tt.meta {
				if info.GetMetadata()[k] != v {
					t.Fatalf("ErrorInfo metadata %v, want %s=%s", info.GetMetadata(), k, v)
				}
			}
			if tt.code == codes.InvalidArgument && tt.meta["field"] == "amount" {
				st, _ := status.FromError(err)
				if !strings.Contains(st.Message(), "amount") {
					t.Fatalf("message does not name the field: %q", st.Message())
				}
				var bad *errdetails.BadRequest
				for _, d := range st.Details() {
					if b, ok := d.(*errdetails.BadRequest); ok {
						bad = b
					}
				}
				if len(bad.GetFieldViolations()) != 1 || bad.GetFieldViolations()[0].GetField() != "amount" {
					t.Fatalf("BadRequest = %v", bad)
				}
			}
		})
	}
}

func TestStreamingCallsGoThroughTheSameChain(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	conn, err := Dial(ts.addr, Options{}) // no service token: calls carry only what the test sends
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	player := mustToken(t, "pat", auth.Player)
	tests := []struct {
		name    string
		token   string
		tableID string
		amount  int64
		code    codes.Code
		reason  string
	}{
		{"no token", "", "t1", 5, codes.Unauthenticated, ReasonUnauthenticated},
		{"wrong role", mustToken(t, "cass", auth.Cashier), "t1", 5, codes.PermissionDenied, ReasonPermissionDenied},
		{"invalid request", player, "", 5, codes.InvalidArgument, ReasonInvalidArgument},
		{"CS-03 fault", player, "fault", 5, codes.FailedPrecondition, "BUY_IN_BELOW_MINIMUM"},
		{"panic", player, "panic", 5, codes.Internal, ReasonInternal},
		{"allowed", player, "t1", 5, codes.OK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			if tt.token != "" {
				ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+tt.token)
			}
			stream, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, fullMethod("Watch"))
			if err != nil {
				t.Fatal(err)
			}
			if err := stream.SendMsg(ts.f.request(tt.tableID, tt.amount)); err != nil {
				t.Fatal(err)
			}
			if err := stream.CloseSend(); err != nil {
				t.Fatal(err)
			}
			out := ts.f.response("")
			err = stream.RecvMsg(out)
			if code := status.Code(err); code != tt.code {
				t.Fatalf("code = %v (%v), want %v", code, err, tt.code)
			}
			if tt.code == codes.OK {
				if who(out) != "pat" {
					t.Fatalf("who = %q", who(out))
				}
				return
			}
			if info := errorInfo(t, err); info.GetReason() != tt.reason {
				t.Fatalf("ErrorInfo = %v, want reason %s", info, tt.reason)
			}
		})
	}
}

func TestServerMasksPanicsAndErrors(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	cashier := mustToken(t, "cass", auth.Cashier)
	for _, tc := range []struct{ tableID, secret, logged string }{
		{"panic", "secret-seat", "assignment to entry in nil map"},
		{"boom", "hunter2", "hunter2"},
	} {
		_, err := ts.call(t.Context(), "Ping", cashier, tc.tableID, 5)
		st, _ := status.FromError(err)
		if st.Code() != codes.Internal {
			t.Fatalf("%s: code = %v (%v)", tc.tableID, st.Code(), err)
		}
		id := errorInfo(t, err).GetMetadata()[MetaCorrelationID]
		if id == "" || !strings.Contains(st.Message(), id) || strings.Contains(st.Message(), tc.secret) {
			t.Fatalf("%s: message %q, correlation id %q", tc.tableID, st.Message(), id)
		}
		logs := ts.logs.String()
		if !strings.Contains(logs, id) || !strings.Contains(logs, tc.logged) {
			t.Fatalf("%s: log lacks correlation id %s or %q:\n%s", tc.tableID, id, tc.logged, logs)
		}
	}
	// The server survived the panic.
	if got, err := ts.call(t.Context(), "Ping", cashier, "t1", 5); err != nil || got != "cass" {
		t.Fatalf("after panic: %q, %v", got, err)
	}
}

func TestHealthIsPublicAndSettablePerService(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	ts.health.SetServingStatus("cardroom.rpctest.v1.TestService", healthpb.HealthCheckResponse_NOT_SERVING)
	conn, err := Dial(ts.addr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	hc := healthpb.NewHealthClient(conn)
	for svc, want := range map[string]healthpb.HealthCheckResponse_ServingStatus{
		"":                                healthpb.HealthCheckResponse_SERVING,
		"cardroom.rpctest.v1.TestService": healthpb.HealthCheckResponse_NOT_SERVING,
	} {
		resp, err := hc.Check(t.Context(), &healthpb.HealthCheckRequest{Service: svc})
		if err != nil || resp.GetStatus() != want {
			t.Fatalf("health %q = %v, %v; want %v", svc, resp.GetStatus(), err, want)
		}
	}
}

func TestClientAndServerSpansShareOneTrace(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	if _, err := ts.call(t.Context(), "Ping", mustToken(t, "cass", auth.Cashier), "t1", 5); err != nil {
		t.Fatal(err)
	}
	// The server span ends on the server's goroutine, possibly just after
	// the client has its answer: poll with a deadline.
	var client, server sdktrace.ReadOnlySpan
	poll.Eventually(t, 5*time.Second, func() error {
		for _, s := range ts.spans.GetSpans().Snapshots() {
			if s.Name() != "cardroom.rpctest.v1.TestService/Ping" {
				continue
			}
			switch s.SpanKind() {
			case trace.SpanKindClient:
				client = s
			case trace.SpanKindServer:
				server = s
			}
		}
		if client == nil || server == nil {
			return fmt.Errorf("spans: %v", ts.spans.GetSpans().Snapshots())
		}
		return nil
	})
	if client.SpanContext().TraceID() != server.SpanContext().TraceID() {
		t.Fatalf("client trace %s, server trace %s", client.SpanContext().TraceID(), server.SpanContext().TraceID())
	}
	if server.Parent().SpanID() != client.SpanContext().SpanID() {
		t.Fatalf("server span's parent %s is not the client span %s", server.Parent().SpanID(), client.SpanContext().SpanID())
	}
}

// slowCall starts a call that runs until ts.release closes, waits until
// the handler is running, and returns the call's result channel.
func (ts *testServer) slowCall(t *testing.T) <-chan error {
	t.Helper()
	token := mustToken(t, "cass", auth.Cashier)
	result := make(chan error, 1)
	go func() {
		_, err := ts.call(context.Background(), "Ping", token, "slow", 5)
		result <- err
	}()
	<-ts.started
	return result
}

func TestShutdownLetsInFlightCallsFinish(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	result := ts.slowCall(t)
	stopped := make(chan bool, 1)
	go func() { stopped <- Shutdown(ts.srv, time.Minute) }()
	select {
	case <-stopped:
		t.Fatal("Shutdown returned while a call was in flight")
	case err := <-result:
		t.Fatalf("in-flight call ended before release: %v", err)
	default:
	}
	close(ts.release)
	if err := <-result; err != nil {
		t.Fatalf("in-flight call failed: %v", err)
	}
	if !<-stopped {
		t.Fatal("Shutdown reports it had to cut calls off")
	}
}

func TestShutdownCutsOffCallsAfterGrace(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	result := ts.slowCall(t)
	if Shutdown(ts.srv, 20*time.Millisecond) {
		t.Fatal("Shutdown reports a graceful stop although a call never finished")
	}
	if err := <-result; status.Code(err) == codes.OK {
		t.Fatal("cut-off call succeeded")
	}
}

// TestDrainEndsStreamsSoShutdownIsNotHeldUp: a feed never ends by itself,
// so a graceful stop would wait for it the whole grace period. Drain ends
// the open stream with SHUTTING_DOWN (Unavailable: the client watches
// again, elsewhere), refuses a new one, and leaves unary calls alone — the
// one in flight finishes and new ones are answered — so the graceful stop
// completes as soon as the unary call does.
func TestDrainEndsStreamsSoShutdownIsNotHeldUp(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	conn, err := Dial(ts.addr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	hc := healthpb.NewHealthClient(conn)
	// Bounded, so that a feed the drain fails to end fails the test
	// (DeadlineExceeded) instead of hanging it.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	feed, err := hc.Watch(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := feed.Recv(); err != nil {
		t.Fatalf("first status: %v", err)
	}
	inFlight := ts.slowCall(t)

	ts.opts.Drainer.Drain()
	ts.opts.Drainer.Drain() // a second drain changes nothing
	shuttingDown := func(what string, err error) {
		t.Helper()
		if status.Code(err) != codes.Unavailable || errorInfo(t, err).GetReason() != "SHUTTING_DOWN" {
			t.Fatalf("%s after the drain: %v, want Unavailable SHUTTING_DOWN", what, err)
		}
	}
	_, err = feed.Recv()
	shuttingDown("the open feed", err)
	late, err := hc.Watch(ctx, &healthpb.HealthCheckRequest{})
	if err == nil {
		_, err = late.Recv()
	}
	shuttingDown("a new feed", err)
	if _, err := hc.Check(t.Context(), &healthpb.HealthCheckRequest{}); err != nil {
		t.Fatalf("unary call after the drain: %v", err)
	}

	stopped := make(chan bool, 1)
	go func() { stopped <- Shutdown(ts.srv, time.Minute) }()
	close(ts.release)
	if err := <-inFlight; err != nil {
		t.Fatalf("the unary call in flight at the drain failed: %v", err)
	}
	if !<-stopped {
		t.Fatal("Shutdown had to cut calls off after the drain")
	}
}

// TestServerSpanNamesCallerRequestAndRule: the server span of a refused
// call carries who called, the table the request names and the reason and
// rule that refused it, and none of the request's other fields.
func TestServerSpanNamesCallerRequestAndRule(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	_, err := ts.call(t.Context(), "Ping", mustToken(t, "cass", auth.Cashier), "fault", 5)
	if status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("call: %v", err)
	}
	var attrs map[string]string
	for _, s := range ts.spans.GetSpans() {
		if s.Name == "cardroom.rpctest.v1.TestService/Ping" && s.SpanKind == trace.SpanKindServer {
			attrs = map[string]string{}
			for _, kv := range s.Attributes {
				attrs[string(kv.Key)] = kv.Value.Emit()
			}
		}
	}
	want := map[string]string{"enduser.id": "cass", "enduser.role": "cashier", "cardroom.table.id": "fault",
		"cardroom.reason": "BUY_IN_BELOW_MINIMUM", "cardroom.rule.id": "CS-03"}
	for k, v := range want {
		if attrs[k] != v {
			t.Errorf("server span %s = %q, want %q (all: %v)", k, attrs[k], v, attrs)
		}
	}
	for k := range attrs {
		if strings.Contains(k, "amount") {
			t.Errorf("the request's amount is on the span: %s", k)
		}
	}
}

// TestSpanNamesANeighboursRefusal: a refusal passed on from a neighbour
// as its gRPC status (the wallet's CS-03 answer to the table) names its
// reason and rule on the span too.
func TestSpanNamesANeighboursRefusal(t *testing.T) {
	t.Parallel()
	mem := tracetest.NewInMemoryExporter()
	_, span := sdktrace.NewTracerProvider(sdktrace.WithSyncer(mem)).Tracer("test").Start(t.Context(), "Sit")
	st, err := status.New(codes.FailedPrecondition, "below the minimum").WithDetails(&errdetails.ErrorInfo{
		Reason: "BUY_IN_BELOW_MINIMUM", Domain: "cardroom.wallet", Metadata: map[string]string{"rule_id": "CS-03"}})
	if err != nil {
		t.Fatal(err)
	}
	annotateFault(span, fmt.Errorf("hold buy-in: %w", st.Err()))
	span.End()
	got := map[string]string{}
	for _, kv := range mem.GetSpans()[0].Attributes {
		got[string(kv.Key)] = kv.Value.Emit()
	}
	if got["cardroom.reason"] != "BUY_IN_BELOW_MINIMUM" || got["cardroom.rule.id"] != "CS-03" {
		t.Fatalf("span attributes %v", got)
	}
}

// TestReflectionOnlyWhenAsked: server reflection lists every RPC and
// message to whoever reaches the port, so NewServer registers it only with
// Options.Reflection (CARDROOM_GRPC_REFLECTION).
func TestReflectionOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{false, true} {
		srv := NewServer(Options{Reflection: on, Logger: slog.New(slog.DiscardHandler)})
		_, registered := srv.GetServiceInfo()["grpc.reflection.v1.ServerReflection"]
		srv.Stop()
		if registered != on {
			t.Errorf("Reflection %v: reflection registered = %v", on, registered)
		}
	}
}
