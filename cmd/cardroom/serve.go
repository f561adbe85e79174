package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/cardroom/cardroom/gateway"
	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/config"
	"github.com/cardroom/cardroom/platform/rpc"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/telemetry"
)

// devTokenTTL is how long the tokens printed at start-up
// (CARDROOM_DEV_TOKENS) stay valid.
const devTokenTTL = time.Hour

// serviceTokenTTL is the lifetime of the tokens a part mints for its own
// calls to other parts; they are renewed when a third of it is left.
const serviceTokenTTL = time.Hour

// serve runs parts on one gRPC server and, with withGateway, the REST
// gateway in front of them (or, with no parts, in front of the services at
// the configured addresses) until ctx ends; then it shuts down in reverse
// order: gateway, in-flight RPCs, background loops (the outbox drains),
// leases, databases, telemetry.
func serve(ctx context.Context, cfg config.Config, parts []part, withGateway bool, stdout io.Writer) (err error) {
	p := &process{cfg: cfg, parts: parts, name: processName(parts, withGateway), healthz: health.NewServer(), drainer: rpc.NewDrainer()}
	tel, err := telemetry.Setup(ctx, telemetry.Options{
		Service: p.name, Version: version(), OTLPEndpoint: cfg.OTel.ExporterEndpoint,
		TraceFile: cfg.TraceFile, LogLevel: cfg.LogLevel,
	})
	if err != nil {
		return fmt.Errorf("telemetry: %w", err)
	}
	defer func() {
		tctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = errors.Join(err, tel.Shutdown(tctx))
	}()
	p.log = slog.Default()

	// /metrics first, so a process stuck starting up can still be scraped;
	// last to close: the final scrape may come during the drain.
	closeMetrics, err := p.serveMetrics(ctx, tel)
	if err != nil {
		return err
	}
	defer closeMetrics()

	verifier, issuer, err := signing(cfg)
	if err != nil {
		return err
	}
	env, err := newEnvironment(cfg, p.log, issuer)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, env.close()) }()
	defer func() { err = errors.Join(err, p.close()) }()
	if len(parts) > 0 {
		if err := p.buildParts(ctx, env, verifier); err != nil {
			return err
		}
	}
	p.startLoops(ctx)
	if withGateway {
		if err := p.openGateway(ctx, verifier); err != nil {
			return err
		}
	}

	serveErr := p.start()
	printBanner(stdout, cfg, p.name, p.grpcLis, p.httpLis, p.metricsLis, issuer)
	p.log.InfoContext(ctx, "started", "process", p.name, "grpc", addrOf(p.grpcLis), "http", addrOf(p.httpLis),
		"metrics", addrOf(p.metricsLis))
	select {
	case <-ctx.Done():
		p.log.InfoContext(ctx, "stopping", "process", p.name)
	case err := <-serveErr:
		return fmt.Errorf("server stopped: %w", err)
	}
	err = p.shutdown()
	p.log.InfoContext(ctx, "stopped", "process", p.name)
	return err
}

// process is what serve runs: its listeners and servers, its parts and
// their databases, the parts' background loops and the gateway's
// connections.
type process struct {
	cfg     config.Config
	parts   []part
	name    string
	log     *slog.Logger
	healthz *health.Server
	drainer *rpc.Drainer

	metricsLis net.Listener

	grpcSrv *grpc.Server
	grpcLis net.Listener
	builts  []*built
	dbs     []*sqlstore.DB

	loops     sync.WaitGroup
	stopLoops context.CancelFunc

	httpSrv *http.Server
	httpLis net.Listener
	conns   []*grpc.ClientConn
}

// serveMetrics serves /metrics at the configured address (none when it is
// off) and returns what closes it.
func (p *process) serveMetrics(ctx context.Context, tel *telemetry.Telemetry) (closeMetrics func(), err error) {
	if p.cfg.MetricsAddr == config.MetricsOff {
		return func() {}, nil
	}
	if p.metricsLis, err = net.Listen("tcp", p.cfg.MetricsAddr); err != nil {
		return nil, fmt.Errorf("listen metrics: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", tel.Metrics())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(p.metricsLis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			p.log.ErrorContext(ctx, "metrics endpoint stopped", "error", err)
		}
	}()
	return func() { _ = srv.Close() }, nil
}

// signing returns the verifier of bearer tokens and the issuer of the
// parts' own, both with the suite's signing key.
func signing(cfg config.Config) (*auth.Verifier, *auth.Issuer, error) {
	key, err := auth.ResolveKey(cfg.JWTKey, cfg.DataDir)
	if err != nil {
		return nil, nil, fmt.Errorf("signing key: %w", err)
	}
	verifier, err := auth.NewVerifier(key, nil)
	if err != nil {
		return nil, nil, err
	}
	issuer, err := auth.NewIssuer(key, nil)
	if err != nil {
		return nil, nil, err
	}
	return verifier, issuer, nil
}

// buildParts listens for gRPC and builds every part on one server, each
// with its own database.
func (p *process) buildParts(ctx context.Context, env *environment, verifier *auth.Verifier) error {
	// Listen first: parts dial each other at this address in `all`.
	lis, err := net.Listen("tcp", p.cfg.GRPCAddr)
	if err != nil {
		return fmt.Errorf("listen gRPC: %w", err)
	}
	p.grpcLis = lis
	env.grpcAddr, env.all = lis.Addr().String(), len(p.parts) == len(allParts)
	l := p.cfg.Limits
	p.grpcSrv = rpc.NewServer(rpc.Options{Logger: p.log, Verifier: verifier, Health: p.healthz, Drainer: p.drainer,
		MaxMessage: l.GRPCMaxMessage, MaxStreams: l.GRPCMaxStreams, Reflection: l.GRPCReflection})
	for _, pt := range p.parts {
		db, err := openDB(ctx, p.cfg, pt)
		if err != nil {
			return err
		}
		p.dbs = append(p.dbs, db)
		b, err := pt.build(env, db)
		if err != nil {
			return fmt.Errorf("start %s: %w", pt.name, err)
		}
		b.Register(p.grpcSrv)
		p.builts = append(p.builts, b)
	}
	return nil
}

// startLoops starts the parts' background loops. They outlive ctx until
// the servers have stopped, so that work accepted before the signal still
// reaches the outbox and the bus.
func (p *process) startLoops(ctx context.Context) {
	loopCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	p.stopLoops = stop
	for _, b := range p.builts {
		for _, loop := range b.loops() {
			p.loops.Go(func() {
				if err := loop(loopCtx); err != nil && !errors.Is(err, context.Canceled) {
					p.log.ErrorContext(loopCtx, "background loop stopped", "error", err)
				}
			})
		}
	}
}

// openGateway builds the REST gateway over connections to the services —
// this process's own gRPC address when it runs parts, the configured
// addresses otherwise — and listens for HTTP.
func (p *process) openGateway(ctx context.Context, verifier *auth.Verifier) error {
	var gc gateway.Conns
	byAddr := map[string]*grpc.ClientConn{} // in-process parts all share one address
	for _, s := range []struct {
		name string
		conn *grpc.ClientConnInterface
	}{{"table", &gc.Table}, {"tournament", &gc.Tournament}, {"wallet", &gc.Wallet}, {"seating", &gc.Seating}} {
		addr := addrOf(p.grpcLis)
		if p.grpcLis == nil {
			addr, _ = p.cfg.Endpoints.Address(s.name)
		}
		if byAddr[addr] == nil {
			// No service token: the gateway only forwards the app's own
			// bearer token, so an anonymous request stays anonymous (401).
			c, err := rpc.Dial(addr, rpc.Options{Logger: p.log})
			if err != nil {
				return fmt.Errorf("dial %s at %s: %w", s.name, addr, err)
			}
			byAddr[addr] = c
			p.conns = append(p.conns, c)
		}
		*s.conn = byAddr[addr]
	}
	gw, err := gateway.New(ctx, gateway.Options{Conns: gc, Verifier: verifier, MaxBody: p.cfg.Limits.HTTPMaxBody,
		CORSOrigins: p.cfg.CORSOrigins, Logger: p.log})
	if err != nil {
		return fmt.Errorf("gateway: %w", err)
	}
	if p.httpLis, err = net.Listen("tcp", p.cfg.HTTPAddr); err != nil {
		return fmt.Errorf("listen HTTP: %w", err)
	}
	p.httpSrv = newHTTPServer(gw, p.cfg.Limits, p.log)
	return nil
}

// start serves gRPC and HTTP, reports the parts serving, and returns where
// a server that stops by itself says why.
func (p *process) start() <-chan error {
	serveErr := make(chan error, 2)
	if p.grpcSrv != nil {
		go func() { serveErr <- p.grpcSrv.Serve(p.grpcLis) }()
		for _, pt := range p.parts {
			p.healthz.SetServingStatus(pt.grpcService, healthpb.HealthCheckResponse_SERVING)
		}
	}
	if p.httpSrv != nil {
		go func() { serveErr <- p.httpSrv.Serve(p.httpLis) }()
	}
	return serveErr
}

// shutdown stops the process in reverse order of dependency: health, feeds,
// the gateway, in-flight RPCs, the background loops, then the parts.
func (p *process) shutdown() (err error) {
	p.healthz.Shutdown() // NOT_SERVING: load balancers stop sending work
	// Feeds (table watches, the seating board, and the gateway's NDJSON
	// streams over them) end now with SHUTTING_DOWN, so the drains below
	// wait only for unary calls and a table's lease is let go promptly.
	p.drainer.Drain()
	sctx, cancel := context.WithTimeout(context.Background(), p.cfg.ShutdownTimeout)
	defer cancel()
	if p.httpSrv != nil {
		if err := p.httpSrv.Shutdown(sctx); err != nil {
			p.log.WarnContext(sctx, "gateway did not drain in time", "error", err)
		}
	}
	if p.grpcSrv != nil && !rpc.Shutdown(p.grpcSrv, p.cfg.ShutdownTimeout) {
		p.log.WarnContext(sctx, "in-flight RPCs were cut off after the shutdown timeout")
	}
	p.endLoops()
	for _, b := range p.builts {
		err = errors.Join(err, b.Close())
	}
	return err
}

// endLoops stops the background loops and waits for them to return.
func (p *process) endLoops() {
	if p.stopLoops != nil {
		p.stopLoops()
	}
	p.loops.Wait()
}

// close lets go of what the process holds whether or not it started: the
// background loops (stopped and waited for, so none outlives its
// database), the gateway's connections and the parts' databases.
func (p *process) close() (err error) {
	p.endLoops()
	for _, c := range p.conns {
		_ = c.Close()
	}
	for _, db := range p.dbs {
		err = errors.Join(err, db.Close())
	}
	return err
}

// newHTTPServer returns the gateway's HTTP server, bounded so that no
// client can hold it: headers and bodies must arrive in time (slow ones are
// cut), answers must be written in time, idle keep-alive connections are
// closed, and headers are at most 64 KiB. The gateway lifts the read and
// write deadlines for feeds, which last as long as the client watches.
func newHTTPServer(h http.Handler, l config.Limits, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: l.HTTPReadHeaderTimeout,
		ReadTimeout:       l.HTTPReadTimeout,
		WriteTimeout:      l.HTTPWriteTimeout,
		IdleTimeout:       l.HTTPIdleTimeout,
		MaxHeaderBytes:    64 << 10,
		// Connection-level failures (TLS noise, a client closing while a
		// timeout cut it) are not the operator's concern at error level.
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
}

func processName(parts []part, withGateway bool) string {
	switch {
	case len(parts) > 1:
		return "cardroom"
	case len(parts) == 1:
		return "cardroom-" + parts[0].name
	default:
		return "cardroom-gateway"
	}
}

func addrOf(l net.Listener) string {
	if l == nil {
		return ""
	}
	return l.Addr().String()
}

// printBanner tells a developer where the suite listens and, with
// CARDROOM_DEV_TOKENS (make run sets it), gives a ready-to-paste token per
// person's role, valid for devTokenTTL. Never the service role: that
// identity is the parts' own, and the public gateway refuses it anyway.
// Configuration refuses dev tokens with a configured (production) key.
func printBanner(w io.Writer, cfg config.Config, name string, grpcLis, httpLis, metricsLis net.Listener, issuer *auth.Issuer) {
	fmt.Fprintf(w, "%s is ready\n", name)
	if httpLis != nil {
		fmt.Fprintf(w, "  REST:  http://%s  (OpenAPI: /openapi.json, 3.1: /openapi3.json, health: /healthz)\n", httpLis.Addr())
	}
	if grpcLis != nil {
		fmt.Fprintf(w, "  gRPC:  %s\n", grpcLis.Addr())
	}
	if metricsLis != nil {
		fmt.Fprintf(w, "  metrics: http://%s/metrics\n", metricsLis.Addr())
	}
	if cfg.OTel.ExporterEndpoint != "" {
		fmt.Fprintf(w, "  OTLP:  traces and metrics to %s\n", cfg.OTel.ExporterEndpoint)
	}
	if !cfg.DevTokens || cfg.JWTKey != "" {
		return
	}
	fmt.Fprintf(w, "  dev tokens (valid %s; curl -H \"Authorization: Bearer $TOKEN\"):\n", devTokenTTL)
	for _, role := range auth.AllRoles {
		if role == auth.Service {
			continue
		}
		tok, err := issuer.Mint("dev-"+string(role), []auth.Role{role}, devTokenTTL)
		if err != nil {
			continue
		}
		fmt.Fprintf(w, "    %-8s %s\n", role, tok)
	}
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "dev"
}
