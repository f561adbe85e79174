// Package rpc builds cardroom's gRPC servers and clients the same way
// everywhere: OpenTelemetry stats handlers, health (and reflection when
// asked), bounded resources, panic recovery, the text check (no NUL, valid
// UTF-8), protovalidate request validation, bearer-token authentication
// with per-RPC authorization from the (cardroom.auth.v1.access) method
// option, and — in ToStatus — the single place where domain errors
// (platform/fault) become gRPC statuses with google.rpc.ErrorInfo.
package rpc

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"buf.build/go/protovalidate"
	grpcvalidate "github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/protovalidate"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/recovery"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc/filters"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/reflection"

	"github.com/cardroom/cardroom/platform/auth"
)

// Options configure NewServer and Dial. Zero values are usable defaults
// except where noted.
type Options struct {
	// Logger receives internal errors and panics (with their correlation
	// IDs). Nil means slog.Default().
	Logger *slog.Logger
	// TracerProvider and Propagator override the global OpenTelemetry ones
	// (tests use them); nil means the globals telemetry.Setup installs.
	TracerProvider trace.TracerProvider
	Propagator     propagation.TextMapPropagator

	// Verifier checks bearer tokens (server). Nil refuses every non-public RPC.
	Verifier *auth.Verifier
	// Authorize gives each RPC's access rule (server). Nil reads the
	// (cardroom.auth.v1.access) option of the registered descriptors.
	Authorize Authorizer
	// Validator validates requests (server). Nil means protovalidate.GlobalValidator.
	Validator protovalidate.Validator
	// Health is registered as the grpc.health.v1 service (server), so the
	// caller can set a status per registered service: the gateway's
	// /healthz asks for each part's own service name and counts a name the
	// server does not know as not ready. Nil registers a fresh one whose
	// overall status is SERVING.
	Health *health.Server
	// ServerOptions are appended to the server's own options.
	ServerOptions []grpc.ServerOption
	// MaxMessage is the largest message the server accepts, in bytes
	// (server); zero means grpc's default of 4 MiB. A larger one is refused
	// with ResourceExhausted, which ToStatus reports as REQUEST_TOO_LARGE.
	MaxMessage int
	// MaxStreams bounds the concurrent RPCs on one connection (server);
	// zero means DefaultMaxStreams.
	MaxStreams uint32
	// Reflection registers gRPC server reflection (server). Off by default:
	// it lists every RPC and message to whoever reaches the port.
	Reflection bool
	// Drainer, when set, ends the server's streams on Drain (server), so
	// that a graceful stop is not held up by feeds that never end.
	Drainer *Drainer

	// ServiceToken supplies the bearer token for outgoing calls whose
	// context carries no caller token (client): the calling service's own
	// identity. Nil sends no token on such calls.
	ServiceToken func(context.Context) (string, error)
	// DialOptions are appended to the client's own options.
	DialOptions []grpc.DialOption
}

func (o Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.Default()
}

func (o Options) otelOptions() []otelgrpc.Option {
	opts := []otelgrpc.Option{
		// Probes and reflection would otherwise fill the trace store.
		otelgrpc.WithFilter(filters.Not(filters.Any(filters.HealthCheck(), filters.ServicePrefix("grpc.reflection.")))),
	}
	if o.TracerProvider != nil {
		opts = append(opts, otelgrpc.WithTracerProvider(o.TracerProvider))
	}
	if o.Propagator != nil {
		opts = append(opts, otelgrpc.WithPropagators(o.Propagator))
	}
	return opts
}

// DefaultMaxStreams is the concurrent RPCs one connection may carry when
// Options.MaxStreams is zero. The gateway carries every app's feed to a part
// on one connection, so it is far above what one client needs.
const DefaultMaxStreams = 10000

// Keep-alive: the server pings a connection idle this long and drops it when
// the ping is not answered in keepaliveTimeout; it closes connections idle
// for maxConnectionIdle; and it closes (GOAWAY too_many_pings) a client that
// pings more often than minPingInterval.
const (
	keepaliveTime     = 30 * time.Second
	keepaliveTimeout  = 10 * time.Second
	maxConnectionIdle = 15 * time.Minute
	minPingInterval   = 10 * time.Second
	// streamWorkers is how many calls the server runs on reused goroutines.
	streamWorkers = 64
)

// NewServer returns a gRPC server with cardroom's interceptor chain, the
// health service and (with Options.Reflection) reflection registered, and
// bounded resources: message size, concurrent streams per connection,
// keep-alive enforcement and idle connections closed. Register services on
// it, then run it with Serve. The interceptors run, outermost first: error
// mapping (ToStatus), draining (when Options.Drainer is set; streams only),
// panic recovery, authentication and authorization, span attributes (who
// called, the table, tournament or player the request names, the refusing
// rule: see annotate), the text check (CheckText: no NUL, valid UTF-8),
// request validation — so a caller without a token learns nothing about the
// request's shape, and a panic anywhere becomes Internal.
func NewServer(o Options) *grpc.Server {
	log := o.logger()
	authorize := o.Authorize
	if authorize == nil {
		authorize = AccessFromDescriptors(nil, nil)
	}
	validator := o.Validator
	validator = cmp.Or(validator, protovalidate.GlobalValidator)
	authn := authenticator{verifier: o.Verifier, authorize: authorize}
	mapErrorsUnary := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		resp, err := handler(ctx, req)
		if err != nil {
			return nil, ToStatus(ctx, log, info.FullMethod, err)
		}
		return resp, nil
	}
	mapErrorsStream := func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		return ToStatus(ss.Context(), log, info.FullMethod, handler(srv, ss))
	}
	streams := []grpc.StreamServerInterceptor{mapErrorsStream}
	if o.Drainer != nil {
		streams = append(streams, o.Drainer.stream)
	}
	streams = append(streams,
		recovery.StreamServerInterceptor(),
		authn.stream,
		annotateStream,
		checkTextStream,
		grpcvalidate.StreamServerInterceptor(validator),
	)
	maxStreams := o.MaxStreams
	maxStreams = cmp.Or(maxStreams, DefaultMaxStreams)
	opts := []grpc.ServerOption{
		grpc.StatsHandler(otelgrpc.NewServerHandler(o.otelOptions()...)),
		grpc.ChainUnaryInterceptor(
			mapErrorsUnary,
			recovery.UnaryServerInterceptor(),
			authn.unary,
			annotate,
			checkTextUnary,
			grpcvalidate.UnaryServerInterceptor(validator),
		),
		grpc.ChainStreamInterceptor(streams...),
		grpc.MaxConcurrentStreams(maxStreams),
		// Calls run on long-lived workers rather than a goroutine each:
		// a new goroutine grows its stack through the interceptors, the
		// handler and the database driver on every call (5 % of the table
		// service's CPU at 1,000 paced tables); a worker's stack has grown
		// already. Calls beyond the workers still get a goroutine each.
		grpc.NumStreamWorkers(streamWorkers),
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: keepaliveTime, Timeout: keepaliveTimeout, MaxConnectionIdle: maxConnectionIdle}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: minPingInterval, PermitWithoutStream: true}),
	}
	if o.MaxMessage > 0 {
		opts = append(opts, grpc.MaxRecvMsgSize(o.MaxMessage))
	}
	srv := grpc.NewServer(append(opts, o.ServerOptions...)...)
	hs := o.Health
	if hs == nil {
		hs = health.NewServer()
	}
	healthpb.RegisterHealthServer(srv, hs)
	if o.Reflection {
		reflection.Register(srv)
	}
	return srv
}

// Shutdown stops srv gracefully: it stops accepting calls and lets
// in-flight RPCs finish for up to grace, then cancels whatever is left.
// It reports whether everything finished within grace.
func Shutdown(srv *grpc.Server, grace time.Duration) bool {
	done := make(chan struct{})
	go func() {
		srv.GracefulStop()
		close(done)
	}()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		srv.Stop() // also makes the pending GracefulStop return
		<-done
		return false
	}
}
