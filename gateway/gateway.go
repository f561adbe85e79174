// Package gateway is cardroom's REST/JSON front door: a grpc-gateway mux
// that forwards to the table, tournament, wallet and seating gRPC services,
// plus GET /healthz, GET /openapi.json (Swagger 2.0), GET /openapi3.json (OpenAPI 3.1), the room's screens under /room/
// (package screens), CORS for browser apps, JSON errors
// carrying the gRPC status's reason and rule ID, and an OpenTelemetry HTTP
// span that is the root of each request's trace.
//
// Server-streaming RPCs (WatchTable, WatchBoard, WatchClock) answer newline-delimited
// JSON, one {"result": ...} object per message. A stream that fails ends
// with one {"error": google.rpc.Status} line instead (grpc-gateway's fixed
// shape: numeric code, message, details with the ErrorInfo); when it fails
// before its first message the HTTP status is set from the code as for
// unary calls (401, 403, 404, ...).
package gateway

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/rs/cors"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/cardroom/cardroom/gateway/screens"
	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/rpc"
	seatingv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/seating/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"github.com/cardroom/cardroom/proto/openapi"
)

// Conns holds one gRPC client connection per service. The same connection
// may serve several parts (`cardroom all` serves every service on one
// port). The caller dials them, with its otelgrpc client stats handler so
// the gRPC client span joins the gateway's trace.
//
// Connections may carry a service identity (platform/rpc's
// Options.ServiceToken): the gateway always sets the call's "authorization"
// metadata itself (see anonymousUnlessAuthorized), so it is never replaced
// by a service token.
type Conns struct {
	Table      grpc.ClientConnInterface
	Tournament grpc.ClientConnInterface
	Wallet     grpc.ClientConnInterface
	Seating    grpc.ClientConnInterface
}

// Options configures a Gateway.
type Options struct {
	// Conns are the connections to the four services; all are required.
	Conns Conns
	// Verifier checks bearer tokens before a request's body is read; it is
	// required. The services check the token again and authorize.
	Verifier *auth.Verifier
	// Authorize gives each RPC's access rule; nil reads the
	// (cardroom.auth.v1.access) options of the registered descriptors.
	Authorize rpc.Authorizer
	// MaxBody is the largest request body read, in bytes; zero means
	// DefaultMaxBody. A larger one is refused with 413 unread.
	MaxBody int64
	// CORSOrigins lists the origins browser apps may call from, for example
	// "https://floor.example.com"; "*" allows any. Empty disables CORS.
	CORSOrigins []string
	// Register adds grpc-gateway handlers beyond the four services' (for
	// example a service that only some deployments run). Optional.
	Register []func(context.Context, *runtime.ServeMux) error
	// Checks are extra readiness checks reported by /healthz beside the
	// gRPC health of the four parts, keyed by part name.
	Checks map[string]func(context.Context) error
	// HealthTimeout bounds each readiness check; zero means 2 seconds.
	HealthTimeout time.Duration
	// TracerProvider and Propagator configure the HTTP server span; nil
	// means the otel globals.
	TracerProvider trace.TracerProvider
	Propagator     propagation.TextMapPropagator
	// Logger logs failures to write responses; nil means slog.Default().
	Logger *slog.Logger
}

// Gateway is the REST/JSON gateway, an http.Handler.
type Gateway struct {
	handler http.Handler
}

// ServeHTTP serves a request.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.handler.ServeHTTP(w, r)
}

// New returns a gateway forwarding to the services behind o.Conns. ctx
// bounds nothing that outlives New: the connections belong to the caller.
func New(ctx context.Context, o Options) (*Gateway, error) {
	log := o.Logger
	log = cmp.Or(log, slog.Default())
	if o.Verifier == nil {
		return nil, errors.New("gateway: no token verifier")
	}
	authorize := o.Authorize
	if authorize == nil {
		authorize = rpc.AccessFromDescriptors(nil, nil)
	}
	table := routeTable(protoregistry.GlobalFiles, authorize)
	if err := table.checkNoServiceOnlyBindings(); err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	fail := errorHandler(log)
	door := &frontDoor{routes: table, verifier: o.Verifier, maxBody: o.MaxBody, fail: fail, log: log}
	if door.maxBody <= 0 {
		door.maxBody = DefaultMaxBody
	}
	api := runtime.NewServeMux(
		runtime.WithMarshalerOption(runtime.MIMEWildcard, &runtime.HTTPBodyMarshaler{Marshaler: jsonMarshaler()}),
		runtime.WithErrorHandler(fail),
		runtime.WithStreamErrorHandler(streamErrorHandler(log)),
		runtime.WithRoutingErrorHandler(routingErrorHandler),
		runtime.WithMiddlewares(nameSpan, door.middleware),
		runtime.WithMetadata(forwardedMetadata),
		// Both read a form body before any route is chosen: off, so that
		// nothing reads a body before the front door.
		runtime.WithDisablePathLengthFallback(),
		runtime.WithDisableHTTPMethodOverride(),
	)
	health := &healthHandler{timeout: o.HealthTimeout, log: log}
	if health.timeout <= 0 {
		health.timeout = 2 * time.Second
	}
	if err := register(ctx, o, api, health); err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	root, err := rootHandler(api, health, fail)
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	return &Gateway{handler: outermost(limitBodies(root, door.maxBody), o)}, nil
}

// register puts the four services' REST handlers and o's extra ones on
// api, and a readiness check per service and per o.Checks on health.
func register(ctx context.Context, o Options, api *runtime.ServeMux, health *healthHandler) error {
	parts := []struct {
		name, service string
		conn          grpc.ClientConnInterface
		register      registerFunc
	}{
		{"table", tablev1.TableService_ServiceDesc.ServiceName, o.Conns.Table,
			handlers(tablev1.NewTableServiceClient, tablev1.RegisterTableServiceHandlerClient)},
		{"tournament", tournamentv1.TournamentService_ServiceDesc.ServiceName, o.Conns.Tournament,
			handlers(tournamentv1.NewTournamentServiceClient, tournamentv1.RegisterTournamentServiceHandlerClient)},
		{"wallet", walletv1.WalletService_ServiceDesc.ServiceName, o.Conns.Wallet,
			handlers(walletv1.NewWalletServiceClient, walletv1.RegisterWalletServiceHandlerClient)},
		{"seating", seatingv1.SeatingService_ServiceDesc.ServiceName, o.Conns.Seating,
			handlers(seatingv1.NewSeatingServiceClient, seatingv1.RegisterSeatingServiceHandlerClient)},
	}
	for _, p := range parts {
		if p.conn == nil {
			return fmt.Errorf("no connection for the %s service", p.name)
		}
		// The handlers only keep the client; ctx is not retained by them.
		// Every request leaves through CheckText: a NUL or invalid UTF-8
		// in a path parameter or the body is refused here with 400.
		if err := p.register(ctx, api, rpc.TextCheckedConn(p.conn)); err != nil {
			return fmt.Errorf("register %s: %w", p.name, err)
		}
		health.checks = append(health.checks, grpcHealthCheck(p.name, p.conn, p.service))
	}
	for i, register := range o.Register {
		if err := register(ctx, api); err != nil {
			return fmt.Errorf("extra registration %d: %w", i, err)
		}
	}
	for name, ready := range o.Checks {
		if ready == nil {
			return errors.New("nil check " + name)
		}
		health.checks = append(health.checks, check{part: name, ready: ready})
	}
	return nil
}

// rootHandler serves /healthz, the OpenAPI documents and the room's
// screens itself and everything else through api.
//
// A plain switch rather than http.ServeMux: the mux would set
// Request.Pattern to "/", and otelhttp would then rename the span
// nameSpan gave the route.
func rootHandler(api http.Handler, health *healthHandler, fail runtime.ErrorHandlerFunc) (http.Handler, error) {
	healthz := getOnly(health, fail)
	openapiDoc := getOnly(http.HandlerFunc(serveOpenAPI), fail)
	openapi31Doc := getOnly(http.HandlerFunc(serveOpenAPI31), fail)
	room, err := screens.New()
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/healthz":
			healthz.ServeHTTP(w, r)
		case r.URL.Path == "/openapi.json":
			openapiDoc.ServeHTTP(w, r)
		case r.URL.Path == "/openapi3.json":
			openapi31Doc.ServeHTTP(w, r)
		case strings.HasPrefix(r.URL.Path+"/", screens.Prefix):
			// One span name for every file: the screens are static.
			trace.SpanFromContext(r.Context()).SetName(r.Method + " " + screens.Prefix)
			room.ServeHTTP(w, r)
		default:
			api.ServeHTTP(w, r)
		}
	}), nil
}

// outermost wraps h in what every request meets first: CORS for
// o.CORSOrigins (none: no CORS headers) and the request's span.
func outermost(h http.Handler, o Options) http.Handler {
	if len(o.CORSOrigins) > 0 {
		h = cors.New(cors.Options{
			AllowedOrigins: o.CORSOrigins,
			AllowedMethods: []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete},
			AllowedHeaders: []string{"Authorization", "Content-Type", "Accept", "Traceparent", "Tracestate", RoleHeader},
			MaxAge:         600,
		}).Handler(h)
	}
	otelOpts := []otelhttp.Option{
		// Probes every few seconds would bury the real traces.
		otelhttp.WithFilter(func(r *http.Request) bool { return r.URL.Path != "/healthz" }),
	}
	if o.TracerProvider != nil {
		otelOpts = append(otelOpts, otelhttp.WithTracerProvider(o.TracerProvider))
	}
	if o.Propagator != nil {
		otelOpts = append(otelOpts, otelhttp.WithPropagators(o.Propagator))
	}
	return otelhttp.NewHandler(h, "gateway", otelOpts...)
}

// registerFunc adds one service's REST handlers to mux, calling it over cc.
type registerFunc func(ctx context.Context, mux *runtime.ServeMux, cc grpc.ClientConnInterface) error

// handlers joins a service's generated client constructor and its
// generated handler registration into a registerFunc.
func handlers[C any](newClient func(grpc.ClientConnInterface) C, register func(context.Context, *runtime.ServeMux, C) error) registerFunc {
	return func(ctx context.Context, mux *runtime.ServeMux, cc grpc.ClientConnInterface) error {
		return register(ctx, mux, newClient(cc))
	}
}

// jsonMarshaler writes proto field names (snake_case, as in the OpenAPI
// document) and zero values, so clients see every field; unknown request
// fields are an error (400) rather than silently dropped.
func jsonMarshaler() *runtime.JSONPb {
	return &runtime.JSONPb{
		MarshalOptions:   protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true},
		UnmarshalOptions: protojson.UnmarshalOptions{DiscardUnknown: false},
	}
}

// nameSpan names the HTTP server span after the matched route
// ("POST /v1/tables") instead of the bare handler name, and labels the
// request's metrics with the route.
func nameSpan(next runtime.HandlerFunc) runtime.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, params map[string]string) {
		if pattern, ok := runtime.HTTPPattern(r.Context()); ok {
			// The template as written in the proto: "{table_id=*}" → "{table_id}".
			route := strings.ReplaceAll(pattern.String(), "=*}", "}")
			span := trace.SpanFromContext(r.Context())
			span.SetName(r.Method + " " + route)
			span.SetAttributes(attribute.String("http.route", route))
			// The route (a template, so a bounded label) on the request
			// metrics too: RED per REST route.
			if labeler, ok := otelhttp.LabelerFromContext(r.Context()); ok {
				labeler.Add(attribute.String("http.route", route))
			}
		}
		next(w, r, params)
	}
}

// forwardedMetadata sets the call's "authorization" and "cardroom-role"
// metadata from the HTTP Authorization and Cardroom-Role headers: their
// values that are valid gRPC metadata, or one empty value when there are
// none. The keys are then always present, so per-RPC credentials that fill
// in a service token only when "authorization" is absent (platform/rpc's)
// leave it alone: an anonymous request stays anonymous and gets 401
// instead of running as the service. (grpc-gateway lets this annotator's
// values replace those it copied from the headers, including a client's
// Grpc-Metadata-Authorization and Grpc-Metadata-Cardroom-Role.) Servers
// read the first value that is a bearer token, and ignore an empty role.
func forwardedMetadata(_ context.Context, r *http.Request) metadata.MD {
	return metadata.MD{
		"authorization":  headerValues(r, "Authorization"),
		rpc.RoleMetadata: headerValues(r, RoleHeader),
	}
}

// headerValues returns the values of header that are valid gRPC metadata
// text, or one empty value.
func headerValues(r *http.Request, header string) []string {
	var values []string
	for _, v := range r.Header.Values(header) {
		if printableASCII(v) {
			values = append(values, v)
		}
	}
	if len(values) == 0 {
		values = []string{""}
	}
	return values
}

// printableASCII reports whether v may be sent as gRPC metadata text.
func printableASCII(v string) bool {
	for i := range len(v) {
		if v[i] < 0x20 || v[i] > 0x7e {
			return false
		}
	}
	return true
}

// getOnly refuses methods other than GET and HEAD with 405.
func getOnly(h http.Handler, fail runtime.ErrorHandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			refuse(fail, w, r, http.StatusMethodNotAllowed, status.New(codes.Unimplemented, http.StatusText(http.StatusMethodNotAllowed)), rpc.ReasonMethodNotAllowed)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	trace.SpanFromContext(r.Context()).SetName("GET /openapi.json")
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(openapi.JSON())
}

// serveOpenAPI31 serves the same API as OpenAPI 3.1, for client generators
// that want 3.x (openapi.JSON31).
func serveOpenAPI31(w http.ResponseWriter, r *http.Request) {
	trace.SpanFromContext(r.Context()).SetName("GET /openapi3.json")
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(openapi.JSON31())
}
