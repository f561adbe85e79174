package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"buf.build/go/protovalidate"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc/filters"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/cardroom/cardroom/gateway"
	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/testkit/poll"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	seatingv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/seating/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
)

// fakeTables is a tiny TableService whose answers depend on the table ID,
// so each test case can ask for the failure it wants to see mapped.
type fakeTables struct {
	tablev1.UnimplementedTableServiceServer
	validator protovalidate.Validator
	// release, when set, is what WatchTable waits for between its first
	// and its second message.
	release chan struct{}
}

// WatchTable sends the table's state, waits for release (or the end of
// the call), then sends it again with the next sequence number.
func (f *fakeTables) WatchTable(req *tablev1.WatchTableRequest, stream grpc.ServerStreamingServer[tablev1.WatchTableResponse]) error {
	send := func(seq int64) error {
		return stream.Send(&tablev1.WatchTableResponse{State: &tablev1.TableState{TableId: req.GetTableId(), Sequence: seq}})
	}
	if err := send(1); err != nil {
		return err
	}
	select {
	case <-f.release:
	case <-stream.Context().Done():
		return nil
	}
	return send(2)
}

func withInfo(c codes.Code, msg, reason string, meta map[string]string) error {
	st, err := status.New(c, msg).WithDetails(&errdetails.ErrorInfo{Reason: reason, Domain: "cardroom.table", Metadata: meta})
	if err != nil {
		panic(err)
	}
	return st.Err()
}

func (f *fakeTables) CreateTable(_ context.Context, req *tablev1.CreateTableRequest) (*tablev1.CreateTableResponse, error) {
	// What platform/rpc does for every service: validate, and name the
	// first failing field in ErrorInfo.
	if err := f.validator.Validate(req); err != nil {
		var verr *protovalidate.ValidationError
		meta := map[string]string{}
		if errors.As(err, &verr) && len(verr.Violations) > 0 {
			meta["field"] = protovalidate.FieldPathString(verr.Violations[0].Proto.GetField())
		}
		return nil, withInfo(codes.InvalidArgument, err.Error(), "INVALID_ARGUMENT", meta)
	}
	return &tablev1.CreateTableResponse{Table: &tablev1.Table{
		TableId: "t1", Name: req.GetName(), Game: req.GetGame(), Seats: req.GetSeats(), Kind: req.GetKind(), Mode: req.GetMode(),
	}}, nil
}

func (f *fakeTables) GetTable(ctx context.Context, req *tablev1.GetTableRequest) (*tablev1.GetTableResponse, error) {
	switch req.GetTableId() {
	case "missing":
		return nil, withInfo(codes.NotFound, "table missing not found", "TABLE_NOT_FOUND", nil)
	case "closed":
		return nil, withInfo(codes.FailedPrecondition, "the floor closed this table", "TABLE_CLOSED", map[string]string{"rule_id": "TP-02", "closed_by": "floor-1"})
	case "anonymous":
		return nil, status.Error(codes.Unauthenticated, "no bearer token")
	case "private":
		return nil, status.Error(codes.PermissionDenied, "floor role required")
	case "busy":
		return nil, withInfo(codes.Aborted, "lost the table lock", "FENCE_LOST", nil)
	}
	// Echo the caller's token (or, for table "role", the role it names) so
	// the test sees what the gateway forwarded.
	md, _ := metadata.FromIncomingContext(ctx)
	echo := "authorization"
	if req.GetTableId() == "role" {
		echo = "cardroom-role"
	}
	return &tablev1.GetTableResponse{Table: &tablev1.Table{
		TableId: req.GetTableId(), Name: strings.Join(md.Get(echo), ","), Seats: 9,
	}}, nil
}

// serviceNames are the gRPC service names of the four parts, under which
// each part reports its health.
var serviceNames = []string{
	tablev1.TableService_ServiceDesc.ServiceName,
	tournamentv1.TournamentService_ServiceDesc.ServiceName,
	walletv1.WalletService_ServiceDesc.ServiceName,
	seatingv1.SeatingService_ServiceDesc.ServiceName,
}

// fixture is a real gRPC server on a loopback port behind a gateway.
type fixture struct {
	health *health.Server
	spans  *tracetest.SpanRecorder
	srv    *httptest.Server
}

func newFixture(t *testing.T, opts gateway.Options) *fixture {
	t.Helper()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	prop := propagation.TraceContext{}
	validator, err := protovalidate.New()
	if err != nil {
		t.Fatal(err)
	}

	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(grpc.StatsHandler(otelgrpc.NewServerHandler(otelgrpc.WithTracerProvider(tp), otelgrpc.WithPropagators(prop),
		otelgrpc.WithFilter(filters.Not(filters.HealthCheck())))))
	tablev1.RegisterTableServiceServer(gs, &fakeTables{validator: validator})
	hs := health.NewServer()
	healthpb.RegisterHealthServer(gs, hs)
	// As cmd/cardroom does for every part it runs.
	for _, svc := range serviceNames {
		hs.SetServingStatus(svc, healthpb.HealthCheckResponse_SERVING)
	}
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)

	conn, err := grpc.NewClient(lis.Addr().String(),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		// Like platform/rpc's clients: health probes make no spans.
		grpc.WithStatsHandler(otelgrpc.NewClientHandler(otelgrpc.WithTracerProvider(tp), otelgrpc.WithPropagators(prop),
			otelgrpc.WithFilter(filters.Not(filters.HealthCheck())))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })

	// One server holds every service here, as in `cardroom all`; only the
	// table service is implemented.
	opts.TracerProvider = tp
	opts.Propagator = prop
	srv := httptest.NewServer(gatewayOn(t, conn, opts))
	t.Cleanup(srv.Close)
	return &fixture{health: hs, spans: spans, srv: srv}
}

// testKey signs the tokens of the tests that do not bring their own.
var testKey = []byte("gateway-shared-test-key-0123456789abcdef")

// bearer returns an Authorization header value for sub with roles, signed
// with testKey.
func bearer(t *testing.T, sub string, roles ...auth.Role) string {
	t.Helper()
	iss, err := auth.NewIssuer(testKey, clock.Real{})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := iss.Mint(sub, roles, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return "Bearer " + tok
}

// gatewayOn returns a gateway whose four parts are all served behind conn,
// as in `cardroom all`; without opts.Verifier it checks tokens signed with
// testKey.
func gatewayOn(t *testing.T, conn grpc.ClientConnInterface, opts gateway.Options) *gateway.Gateway {
	t.Helper()
	opts.Conns = gateway.Conns{Table: conn, Tournament: conn, Wallet: conn, Seating: conn}
	if opts.Verifier == nil {
		v, err := auth.NewVerifier(testKey, clock.Real{})
		if err != nil {
			t.Fatal(err)
		}
		opts.Verifier = v
	}
	gw, err := gateway.New(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return gw
}

type response struct {
	status int
	header http.Header
	body   string
}

// do makes a request. Without an "Authorization" entry in header it sends
// a floor token signed with testKey; an empty entry sends none.
func (f *fixture) do(t *testing.T, method, path, body string, header map[string]string) response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, f.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if _, ok := header["Authorization"]; !ok {
		req.Header.Set("Authorization", bearer(t, "floor-1", auth.Floor))
	}
	for k, v := range header {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// call makes a request with the Authorization header authorization (none
// when empty), requires status, and returns the error body when the status
// is not 200 (failed).
func (f *fixture) call(t *testing.T, method, path, body, authorization string, status int) (got errorBody, failed bool) {
	t.Helper()
	resp := f.do(t, method, path, body, map[string]string{"Authorization": authorization})
	if resp.status != status {
		t.Fatalf("status %d, want %d; body %s", resp.status, status, resp.body)
	}
	if status == http.StatusOK {
		return errorBody{}, false
	}
	if err := json.Unmarshal([]byte(resp.body), &got); err != nil {
		t.Fatalf("body %q: %v", resp.body, err)
	}
	return got, true
}

// errorBody is the gateway's JSON error (cardroom.fault.v1.Error).
type errorBody struct {
	Code       string            `json:"code"`
	HTTPStatus int               `json:"http_status"`
	Message    string            `json:"message"`
	Reason     string            `json:"reason"`
	RuleID     string            `json:"rule_id"`
	Metadata   map[string]string `json:"metadata"`
}

const validTable = `{"name":"Table 1","game":{"variant":"VARIANT_HOLDEM","structure":"STRUCTURE_NO_LIMIT","stakes":{"small_blind":"100","big_blind":"200"}},"seats":9,"kind":"TABLE_KIND_CASH","mode":"TABLE_MODE_DIGITAL"}`

func TestErrorsBecomeJSON(t *testing.T) {
	t.Parallel()
	f := newFixture(t, gateway.Options{})
	tests := []struct {
		name, method, path, body string
		status                   int
		want                     errorBody
		messageHas               string
	}{
		{
			name: "InvalidArgument names the field", method: "POST", path: "/v1/tables",
			body:   strings.Replace(validTable, `"seats":9`, `"seats":1`, 1),
			status: 400, want: errorBody{Code: "INVALID_ARGUMENT", HTTPStatus: 400, Reason: "INVALID_ARGUMENT", Metadata: map[string]string{"field": "seats"}},
			messageHas: "seats",
		},
		{
			name: "malformed JSON is InvalidArgument", method: "POST", path: "/v1/tables", body: `{"name":`,
			status: 400, want: errorBody{Code: "INVALID_ARGUMENT", HTTPStatus: 400, Reason: "INVALID_ARGUMENT", Metadata: map[string]string{}},
		},
		{
			name: "unknown JSON field is InvalidArgument", method: "POST", path: "/v1/tables", body: `{"nmae":"typo"}`,
			status: 400, want: errorBody{Code: "INVALID_ARGUMENT", HTTPStatus: 400, Reason: "INVALID_ARGUMENT", Metadata: map[string]string{}},
			messageHas: "nmae",
		},
		{
			name: "TP-02 FailedPrecondition carries reason and rule_id", method: "GET", path: "/v1/tables/closed",
			status: 400, want: errorBody{Code: "FAILED_PRECONDITION", HTTPStatus: 400, Message: "the floor closed this table", Reason: "TABLE_CLOSED", RuleID: "TP-02", Metadata: map[string]string{"closed_by": "floor-1"}},
		},
		{
			name: "Unauthenticated is 401", method: "GET", path: "/v1/tables/anonymous",
			status: 401, want: errorBody{Code: "UNAUTHENTICATED", HTTPStatus: 401, Message: "no bearer token", Reason: "UNAUTHENTICATED", Metadata: map[string]string{}},
		},
		{
			name: "PermissionDenied is 403", method: "GET", path: "/v1/tables/private",
			status: 403, want: errorBody{Code: "PERMISSION_DENIED", HTTPStatus: 403, Message: "floor role required", Reason: "PERMISSION_DENIED", Metadata: map[string]string{}},
		},
		{
			name: "NotFound is 404", method: "GET", path: "/v1/tables/missing",
			status: 404, want: errorBody{Code: "NOT_FOUND", HTTPStatus: 404, Message: "table missing not found", Reason: "TABLE_NOT_FOUND", Metadata: map[string]string{}},
		},
		{
			name: "Aborted is 409", method: "GET", path: "/v1/tables/busy",
			status: 409, want: errorBody{Code: "ABORTED", HTTPStatus: 409, Message: "lost the table lock", Reason: "FENCE_LOST", Metadata: map[string]string{}},
		},
		{
			name: "unknown route is 404", method: "GET", path: "/v1/nowhere",
			status: 404, want: errorBody{Code: "NOT_FOUND", HTTPStatus: 404, Message: "Not Found", Reason: "ROUTE_NOT_FOUND", Metadata: map[string]string{}},
		},
		{
			name: "wrong method is 405", method: "DELETE", path: "/v1/tables",
			status: 405, want: errorBody{Code: "UNIMPLEMENTED", HTTPStatus: 405, Message: "Method Not Allowed", Reason: "METHOD_NOT_ALLOWED", Metadata: map[string]string{}},
		},
		{
			name: "wrong method on /healthz is 405", method: "POST", path: "/healthz",
			status: 405, want: errorBody{Code: "UNIMPLEMENTED", HTTPStatus: 405, Message: "Method Not Allowed", Reason: "METHOD_NOT_ALLOWED", Metadata: map[string]string{}},
		},
		{
			name: "unimplemented RPC is 501", method: "GET", path: "/v1/waitlists",
			status: 501, want: errorBody{Code: "UNIMPLEMENTED", HTTPStatus: 501, Reason: "NOT_IMPLEMENTED", Metadata: map[string]string{}},
			messageHas: "SeatingService",
		},
		{
			name: "service-only wallet route does not exist", method: "POST", path: "/v1/tables/t1/cash-outs", body: `{"player_id":"p","stack":"1"}`,
			status: 404, want: errorBody{Code: "NOT_FOUND", HTTPStatus: 404, Message: "Not Found", Reason: "ROUTE_NOT_FOUND", Metadata: map[string]string{}},
		},
		{
			name: "service-only RPC on grpc-gateway's default route does not exist", method: "POST", path: "/cardroom.wallet.v1.WalletService/HoldBuyIn", body: `{}`,
			status: 404, want: errorBody{Code: "NOT_FOUND", HTTPStatus: 404, Message: "Not Found", Reason: "ROUTE_NOT_FOUND", Metadata: map[string]string{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp := f.do(t, tt.method, tt.path, tt.body, nil)
			if resp.status != tt.status {
				t.Fatalf("status = %d, want %d; body %s", resp.status, tt.status, resp.body)
			}
			if ct := resp.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
			var got errorBody
			if err := json.Unmarshal([]byte(resp.body), &got); err != nil {
				t.Fatalf("body %q: %v", resp.body, err)
			}
			if !strings.Contains(got.Message, tt.messageHas) {
				t.Errorf("message %q does not contain %q", got.Message, tt.messageHas)
			}
			if tt.want.Message == "" {
				tt.want.Message = got.Message // checked by messageHas
			}
			if got.Code != tt.want.Code || got.HTTPStatus != tt.want.HTTPStatus || got.Message != tt.want.Message ||
				got.Reason != tt.want.Reason || got.RuleID != tt.want.RuleID || !equalMaps(got.Metadata, tt.want.Metadata) {
				t.Errorf("body = %+v, want %+v", got, tt.want)
			}
			if tt.status == 401 && resp.header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestForwardsRequestsAndAuthorization(t *testing.T) {
	t.Parallel()
	f := newFixture(t, gateway.Options{})

	resp := f.do(t, "POST", "/v1/tables", validTable, nil)
	if resp.status != 200 {
		t.Fatalf("create: status %d, body %s", resp.status, resp.body)
	}
	var created struct {
		Table struct {
			TableID string `json:"table_id"`
			Seats   int    `json:"seats"`
			Game    struct {
				Variant string `json:"variant"`
				Stakes  struct {
					BigBlind string `json:"big_blind"`
					Ante     string `json:"ante"`
				} `json:"stakes"`
			} `json:"game"`
		} `json:"table"`
	}
	if err := json.Unmarshal([]byte(resp.body), &created); err != nil {
		t.Fatal(err)
	}
	tbl := created.Table
	// snake_case names, int64 as strings, zero values present.
	if tbl.TableID != "t1" || tbl.Seats != 9 || tbl.Game.Variant != gamev1.Variant_VARIANT_HOLDEM.String() || tbl.Game.Stakes.BigBlind != "200" || tbl.Game.Stakes.Ante != "0" {
		t.Errorf("created = %+v from %s", tbl, resp.body)
	}

	token := bearer(t, "pat", auth.Player)
	resp = f.do(t, "GET", "/v1/tables/t7", "", map[string]string{"Authorization": token})
	var got struct {
		Table struct {
			TableID string `json:"table_id"`
			Name    string `json:"name"`
		} `json:"table"`
	}
	if err := json.Unmarshal([]byte(resp.body), &got); err != nil {
		t.Fatalf("get: status %d body %q: %v", resp.status, resp.body, err)
	}
	// The fake echoes the authorization metadata it received as the name.
	if resp.status != 200 || got.Table.TableID != "t7" || got.Table.Name != token {
		t.Errorf("get: status %d table %+v, want t7 named after the forwarded bearer token", resp.status, got.Table)
	}
}

func TestHealthzFollowsBackendHealth(t *testing.T) {
	t.Parallel()
	var extraDown error
	f := newFixture(t, gateway.Options{Checks: map[string]func(context.Context) error{
		"events": func(context.Context) error { return extraDown },
	}})
	get := func(t *testing.T) (int, healthReport) {
		t.Helper()
		resp := f.do(t, "GET", "/healthz", "", nil)
		return resp.status, decodeHealth(t, resp.body)
	}
	steps := []struct {
		name        string
		change      func()
		status      int
		wantFailing []string
		wantParts   map[string]string
	}{
		{"all serving", func() {}, 200, nil, map[string]string{"table": "ok", "events": "ok"}},
		{"table not serving", func() {
			f.health.SetServingStatus(tablev1.TableService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_NOT_SERVING)
		}, 503, []string{"table"}, map[string]string{"table": "not_serving", "wallet": "ok"}},
		{"table back", func() {
			f.health.SetServingStatus(tablev1.TableService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
		}, 200, nil, nil},
		{"server shutting down", f.health.Shutdown, // every service NOT_SERVING
			503, []string{"seating", "table", "tournament", "wallet"}, map[string]string{"wallet": "not_serving"}},
		{"server back, extra check down", func() {
			f.health.Resume()
			extraDown = errors.New("bus at 10.0.0.7:6379 unreachable")
		}, 503, []string{"events"}, map[string]string{"events": "failing"}},
		{"all back", func() { extraDown = nil }, 200, nil, nil},
	}
	// Steps run in order: each changes the backend, then reads /healthz.
	for _, s := range steps {
		s.change()
		status, r := get(t)
		if status != s.status || !slices.Equal(r.Failing, s.wantFailing) {
			t.Fatalf("%s: status %d failing %v (parts %v), want %d %v", s.name, status, r.Failing, r.Parts, s.status, s.wantFailing)
		}
		if len(r.Parts) != 5 {
			t.Fatalf("%s: parts %v, want table, tournament, wallet, seating, events", s.name, r.Parts)
		}
		for part, want := range s.wantParts {
			if r.Parts[part] != want {
				t.Fatalf("%s: parts[%s] = %q, want %q", s.name, part, r.Parts[part], want)
			}
		}
		if s.status == 200 && r.Status != "ok" || s.status == 503 && r.Status != "unavailable" {
			t.Fatalf("%s: status field %q", s.name, r.Status)
		}
	}
	for _, s := range f.spans.Ended() {
		if s.SpanKind() == trace.SpanKindServer || s.SpanKind() == trace.SpanKindClient {
			t.Errorf("healthz made span %q, want none (probes would bury real traces)", s.Name())
		}
	}
}

// healthReport is the /healthz body.
type healthReport struct {
	Status  string            `json:"status"`
	Parts   map[string]string `json:"parts"`
	Failing []string          `json:"failing"`
}

func decodeHealth(t *testing.T, body string) healthReport {
	t.Helper()
	var r healthReport
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("healthz body %q: %v", body, err)
	}
	return r
}

// healthz serves one /healthz request on a gateway whose four parts are
// all behind conn.
func healthz(t *testing.T, conn grpc.ClientConnInterface) (int, string) {
	t.Helper()
	gw := gatewayOn(t, conn, gateway.Options{})
	rec := httptest.NewRecorder()
	gw.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), "GET", "/healthz", nil))
	return rec.Code, rec.Body.String()
}

// serveLoopback serves a plain gRPC server, with the services register
// adds, on a loopback port until the test ends, and returns a connection
// to it.
func serveLoopback(t *testing.T, register func(*grpc.Server)) *grpc.ClientConn {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	register(gs)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// unreachable returns a connection to a loopback port nobody listens on,
// and that address.
func unreachable(t *testing.T) (*grpc.ClientConn, string) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	_ = lis.Close()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn, addr
}

// TestBackendDownIsMasked: the gRPC client's own error for a service it
// cannot reach names the service's address; a REST client gets 503 with a
// correlation ID instead.
func TestBackendDownIsMasked(t *testing.T) {
	t.Parallel()
	conn, addr := unreachable(t)
	gw := gatewayOn(t, conn, gateway.Options{})
	rec := httptest.NewRecorder()
	req := httptest.NewRequestWithContext(t.Context(), "GET", "/v1/tables/t1", nil)
	req.Header.Set("Authorization", bearer(t, "pat", auth.Player))
	gw.ServeHTTP(rec, req)
	var got errorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatalf("body %q: %v", rec.Body, err)
	}
	id := got.Metadata["correlation_id"]
	if rec.Code != 503 || got.Code != "UNAVAILABLE" || got.Reason != "UNAVAILABLE" || id == "" || !strings.Contains(got.Message, id) {
		t.Errorf("status %d body %+v, want 503 UNAVAILABLE with a correlation id", rec.Code, got)
	}
	if strings.Contains(rec.Body.String(), addr) || strings.Contains(rec.Body.String(), "dial") {
		t.Errorf("body leaks the transport error: %s", rec.Body)
	}
}

func TestHealthzUnreachableBackend(t *testing.T) {
	t.Parallel()
	conn, addr := unreachable(t)
	code, body := healthz(t, conn)
	r := decodeHealth(t, body)
	if code != 503 || !slices.Equal(r.Failing, []string{"seating", "table", "tournament", "wallet"}) || r.Parts["table"] != "unreachable" {
		t.Errorf("status %d body %s, want 503 naming all four parts unreachable", code, body)
	}
	// The public report does not tell the internet where the parts live.
	if strings.Contains(body, addr) || strings.Contains(body, "127.0.0.1") {
		t.Errorf("healthz body leaks the backend address: %s", body)
	}
}

// TestHealthzPartNotRegisteredIsNotReady: a server that is up (server-wide
// SERVING) but does not run a part's service must not make that part
// ready.
func TestHealthzPartNotRegisteredIsNotReady(t *testing.T) {
	t.Parallel()
	conn := serveLoopback(t, func(gs *grpc.Server) {
		hs := health.NewServer() // server-wide SERVING
		hs.SetServingStatus(tablev1.TableService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
		healthpb.RegisterHealthServer(gs, hs)
	})
	code, body := healthz(t, conn)
	r := decodeHealth(t, body)
	if code != 503 || !slices.Equal(r.Failing, []string{"seating", "tournament", "wallet"}) ||
		r.Parts["table"] != "ok" || r.Parts["wallet"] != "not_registered" {
		t.Errorf("status %d body %s, want 503 with only table ready and the others not_registered", code, body)
	}
}

func TestNewRequiresEveryConnection(t *testing.T) {
	t.Parallel()
	v, err := auth.NewVerifier(testKey, clock.Real{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = gateway.New(t.Context(), gateway.Options{Verifier: v})
	if err == nil || !strings.Contains(err.Error(), "table") {
		t.Errorf("New without connections = %v, want an error naming the table service", err)
	}
	conn, _ := unreachable(t)
	_, err = gateway.New(t.Context(), gateway.Options{Conns: gateway.Conns{Table: conn, Tournament: conn, Wallet: conn, Seating: conn}})
	if err == nil || !strings.Contains(err.Error(), "verifier") {
		t.Errorf("New without a verifier = %v, want an error naming it", err)
	}
}

func TestOpenAPIDocumentCoversAllServices(t *testing.T) {
	t.Parallel()
	f := newFixture(t, gateway.Options{})
	resp := f.do(t, "GET", "/openapi.json", "", nil)
	if resp.status != 200 || resp.header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, Content-Type %q", resp.status, resp.header.Get("Content-Type"))
	}
	var doc struct {
		Swagger string                    `json:"swagger"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal([]byte(resp.body), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Swagger != "2.0" {
		t.Errorf("swagger = %q", doc.Swagger)
	}
	for path, method := range map[string]string{
		"/v1/tables":                        "post",
		"/v1/tables/{table_id}":             "get",
		"/v1/tournaments":                   "post",
		"/v1/tournaments/{tournament_id}":   "get",
		"/v1/accounts":                      "post",
		"/v1/accounts/{account_id}/balance": "get",
		"/v1/waitlists":                     "get",
	} {
		if _, ok := doc.Paths[path][method]; !ok {
			t.Errorf("openapi.json has no %s %s", method, path)
		}
	}
}

func TestCORS(t *testing.T) {
	t.Parallel()
	f := newFixture(t, gateway.Options{CORSOrigins: []string{"https://floor.example.com"}})
	tests := []struct {
		name, method, origin string
		header               map[string]string
		status               int
		allowOrigin          string
		allowHeadersHas      string
	}{
		{
			name: "preflight from an allowed origin", method: "OPTIONS", origin: "https://floor.example.com",
			header: map[string]string{"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization,content-type"},
			status: 204, allowOrigin: "https://floor.example.com", allowHeadersHas: "authorization",
		},
		{
			name: "preflight from another origin", method: "OPTIONS", origin: "https://evil.example.com",
			header: map[string]string{"Access-Control-Request-Method": "POST"},
			status: 204, allowOrigin: "",
		},
		{name: "simple request from an allowed origin", method: "GET", origin: "https://floor.example.com", status: 200, allowOrigin: "https://floor.example.com"},
		{name: "simple request from another origin", method: "GET", origin: "https://evil.example.com", status: 200, allowOrigin: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := map[string]string{"Origin": tt.origin}
			for k, v := range tt.header {
				h[k] = v
			}
			resp := f.do(t, tt.method, "/v1/tables/t1", "", h)
			if resp.status != tt.status {
				t.Fatalf("status %d, want %d; body %s", resp.status, tt.status, resp.body)
			}
			if got := resp.header.Get("Access-Control-Allow-Origin"); got != tt.allowOrigin {
				t.Errorf("Access-Control-Allow-Origin = %q, want %q", got, tt.allowOrigin)
			}
			if got := strings.ToLower(resp.header.Get("Access-Control-Allow-Headers")); !strings.Contains(got, tt.allowHeadersHas) {
				t.Errorf("Access-Control-Allow-Headers = %q, want it to contain %q", got, tt.allowHeadersHas)
			}
			if tt.method == "OPTIONS" && tt.allowOrigin != "" && !strings.Contains(resp.header.Get("Access-Control-Allow-Methods"), "POST") {
				t.Errorf("Access-Control-Allow-Methods = %q", resp.header.Get("Access-Control-Allow-Methods"))
			}
		})
	}

	// Without configured origins the gateway sends no CORS headers at all.
	plain := newFixture(t, gateway.Options{})
	resp := plain.do(t, "GET", "/v1/tables/t1", "", map[string]string{"Origin": "https://floor.example.com"})
	if got := resp.header.Get("Access-Control-Allow-Origin"); got != "" {
		t.Errorf("CORS disabled: Access-Control-Allow-Origin = %q", got)
	}
}

func TestTraceStartsAtTheGateway(t *testing.T) {
	t.Parallel()
	f := newFixture(t, gateway.Options{})
	resp := f.do(t, "GET", "/v1/tables/t1", "", nil)
	if resp.status != 200 {
		t.Fatalf("status %d body %s", resp.status, resp.body)
	}
	// The gRPC server span ends on the server's goroutine, possibly just
	// after the gateway has its answer: poll with a deadline.
	var httpSpan, clientSpan, serverSpan sdktrace.ReadOnlySpan
	poll.Eventually(t, 5*time.Second, func() error {
		for _, s := range f.spans.Ended() {
			switch {
			case s.SpanKind() == trace.SpanKindServer && s.Name() == "GET /v1/tables/{table_id}":
				httpSpan = s
			case s.SpanKind() == trace.SpanKindClient && s.Name() == "cardroom.table.v1.TableService/GetTable":
				clientSpan = s
			case s.SpanKind() == trace.SpanKindServer && s.Name() == "cardroom.table.v1.TableService/GetTable":
				serverSpan = s
			}
		}
		if httpSpan == nil || clientSpan == nil || serverSpan == nil {
			var names []string
			for _, s := range f.spans.Ended() {
				names = append(names, s.SpanKind().String()+" "+s.Name())
			}
			return fmt.Errorf("spans %v, want the HTTP server span, the gRPC client span and the gRPC server span", names)
		}
		return nil
	})
	if httpSpan.Parent().IsValid() {
		t.Errorf("HTTP span has parent %v, want it to be the root", httpSpan.Parent())
	}
	if clientSpan.Parent().SpanID() != httpSpan.SpanContext().SpanID() {
		t.Errorf("gRPC client span's parent %v, want the HTTP span %v", clientSpan.Parent().SpanID(), httpSpan.SpanContext().SpanID())
	}
	if serverSpan.SpanContext().TraceID() != httpSpan.SpanContext().TraceID() {
		t.Errorf("gRPC server span in trace %v, want %v", serverSpan.SpanContext().TraceID(), httpSpan.SpanContext().TraceID())
	}
}

// TestOpenAPI31DocumentDescribesEveryField: GET /openapi3.json serves the
// API as OpenAPI 3.1 with the same operations as the Swagger 2.0 document,
// and every schema property, every parameter and every operation a client
// meets carries a description, so an app can be written from the document
// alone. Every $ref resolves.
func TestOpenAPI31DocumentDescribesEveryField(t *testing.T) {
	t.Parallel()
	f := newFixture(t, gateway.Options{})
	resp := f.do(t, "GET", "/openapi3.json", "", nil)
	if resp.status != 200 || resp.header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, Content-Type %q", resp.status, resp.header.Get("Content-Type"))
	}
	var doc struct {
		OpenAPI    string                               `json:"openapi"`
		Paths      map[string]map[string]map[string]any `json:"paths"`
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal([]byte(resp.body), &doc); err != nil {
		t.Fatal(err)
	}
	var v2 struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal([]byte(f.do(t, "GET", "/openapi.json", "", nil).body), &v2); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" || len(doc.Paths) != len(v2.Paths) || len(doc.Components.Schemas) < 100 {
		t.Fatalf("openapi %q, %d paths (Swagger 2.0: %d), %d schemas", doc.OpenAPI, len(doc.Paths), len(v2.Paths), len(doc.Components.Schemas))
	}
	var missing []string
	described := func(where string, x any) {
		if m, _ := x.(map[string]any); strings.TrimSpace(fmt.Sprint(m["description"])) == "" || m["description"] == nil {
			missing = append(missing, where)
		}
	}
	for name, s := range doc.Components.Schemas {
		props, _ := s["properties"].(map[string]any)
		for p, ps := range props {
			described("schema "+name+"."+p, ps)
		}
	}
	operations := 0
	for path, ops := range doc.Paths {
		for method, op := range ops {
			operations++
			if op["summary"] == nil && op["description"] == nil {
				missing = append(missing, method+" "+path)
			}
			ps, _ := op["parameters"].([]any)
			for _, p := range ps {
				pm, _ := p.(map[string]any)
				described(fmt.Sprintf("%s %s parameter %v", method, path, pm["name"]), p)
			}
			if _, ok := v2.Paths[path][method]; !ok {
				t.Errorf("%s %s is not in the Swagger 2.0 document", method, path)
			}
		}
	}
	if len(missing) > 0 {
		t.Fatalf("%d fields without a description, e.g. %v", len(missing), missing[:min(len(missing), 10)])
	}
	for _, ref := range regexp.MustCompile(`"\$ref": ?"#/components/schemas/([^"]+)"`).FindAllStringSubmatch(resp.body, -1) {
		if _, ok := doc.Components.Schemas[ref[1]]; !ok {
			t.Fatalf("$ref to %s, which is not in components.schemas", ref[1])
		}
	}
	if strings.Contains(resp.body, "#/definitions/") {
		t.Fatal("a $ref still points at Swagger 2.0 definitions")
	}
	t.Logf("%d operations, %d schemas, every field described", operations, len(doc.Components.Schemas))
}
