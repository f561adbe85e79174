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
	name := processName(parts, withGateway)
	tel, err := telemetry.Setup(ctx, telemetry.Options{
		Service: name, Version: version(), OTLPEndpoint: cfg.OTel.ExporterEndpoint,
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
	log := slog.Default()

	// /metrics first, so a process stuck starting up can still be scraped.
	var metricsSrv *http.Server
	var metricsLis net.Listener
	if cfg.MetricsAddr != config.MetricsOff {
		if metricsLis, err = net.Listen("tcp", cfg.MetricsAddr); err != nil {
			return fmt.Errorf("listen metrics: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", tel.Metrics())
		metricsSrv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := metricsSrv.Serve(metricsLis); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.ErrorContext(ctx, "metrics endpoint stopped", "error", err)
			}
		}()
		// Last to close: the final scrape may come during the drain.
		defer func() { _ = metricsSrv.Close() }()
	}

	key, err := auth.ResolveKey(cfg.JWTKey, cfg.DataDir)
	if err != nil {
		return fmt.Errorf("signing key: %w", err)
	}
	verifier, err := auth.NewVerifier(key, nil)
	if err != nil {
		return err
	}
	issuer, err := auth.NewIssuer(key, nil)
	if err != nil {
		return err
	}
	env, err := newEnvironment(cfg, log, issuer)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, env.close()) }()

	var (
		grpcSrv  *grpc.Server
		grpcLis  net.Listener
		healthz  = health.NewServer()
		drainer  = rpc.NewDrainer()
		builts   []*built
		dbs      []*sqlstore.DB
		grpcAddr = cfg.GRPCAddr
	)
	defer func() {
		for _, db := range dbs {
			err = errors.Join(err, db.Close())
		}
	}()
	if len(parts) > 0 {
		// Listen first: parts dial each other at this address in `all`.
		if grpcLis, err = net.Listen("tcp", cfg.GRPCAddr); err != nil {
			return fmt.Errorf("listen gRPC: %w", err)
		}
		grpcAddr = grpcLis.Addr().String()
		env.grpcAddr, env.all = grpcAddr, len(parts) == len(allParts)
		grpcSrv = rpc.NewServer(rpc.Options{Logger: log, Verifier: verifier, Health: healthz, Drainer: drainer,
			MaxMessage: cfg.Limits.GRPCMaxMessage, MaxStreams: cfg.Limits.GRPCMaxStreams, Reflection: cfg.Limits.GRPCReflection})
		for _, p := range parts {
			db, err := openDB(ctx, cfg, p)
			if err != nil {
				return err
			}
			dbs = append(dbs, db)
			b, err := p.build(env, db)
			if err != nil {
				return fmt.Errorf("start %s: %w", p.name, err)
			}
			b.Register(grpcSrv)
			builts = append(builts, b)
		}
	}

	// Background loops outlive ctx until the servers have stopped, so that
	// work accepted before the signal still reaches the outbox and the bus.
	loopCtx, stopLoops := context.WithCancel(context.WithoutCancel(ctx))
	defer stopLoops()
	var loops sync.WaitGroup
	for _, b := range builts {
		for _, loop := range b.loops() {
			loops.Go(func() {
				if err := loop(loopCtx); err != nil && !errors.Is(err, context.Canceled) {
					log.ErrorContext(loopCtx, "background loop stopped", "error", err)
				}
			})
		}
	}

	var (
		httpSrv *http.Server
		httpLis net.Listener
		conns   []*grpc.ClientConn
	)
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	if withGateway {
		// One connection per address: in-process parts all share grpcAddr.
		byAddr := map[string]*grpc.ClientConn{}
		dial := func(service string) (*grpc.ClientConn, error) {
			addr := grpcAddr
			if len(parts) == 0 {
				addr, _ = cfg.Endpoints.Address(service)
			}
			if c, ok := byAddr[addr]; ok {
				return c, nil
			}
			// No service token: the gateway only forwards the app's own
			// bearer token, so an anonymous request stays anonymous (401).
			c, err := rpc.Dial(addr, rpc.Options{Logger: log})
			if err != nil {
				return nil, fmt.Errorf("dial %s at %s: %w", service, addr, err)
			}
			byAddr[addr] = c
			conns = append(conns, c)
			return c, nil
		}
		var gc gateway.Conns
		for _, s := range []struct {
			name string
			conn *grpc.ClientConnInterface
		}{{"table", &gc.Table}, {"tournament", &gc.Tournament}, {"wallet", &gc.Wallet}, {"seating", &gc.Seating}} {
			c, err := dial(s.name)
			if err != nil {
				return err
			}
			*s.conn = c
		}
		gw, err := gateway.New(ctx, gateway.Options{Conns: gc, Verifier: verifier, MaxBody: cfg.Limits.HTTPMaxBody,
			CORSOrigins: cfg.CORSOrigins, Logger: log})
		if err != nil {
			return fmt.Errorf("gateway: %w", err)
		}
		if httpLis, err = net.Listen("tcp", cfg.HTTPAddr); err != nil {
			return fmt.Errorf("listen HTTP: %w", err)
		}
		httpSrv = newHTTPServer(gw, cfg.Limits, log)
	}

	serveErr := make(chan error, 2)
	if grpcSrv != nil {
		go func() { serveErr <- grpcSrv.Serve(grpcLis) }()
		for _, p := range parts {
			healthz.SetServingStatus(p.grpcService, healthpb.HealthCheckResponse_SERVING)
		}
	}
	if httpSrv != nil {
		go func() { serveErr <- httpSrv.Serve(httpLis) }()
	}
	printBanner(stdout, cfg, name, grpcLis, httpLis, metricsLis, issuer)
	log.InfoContext(ctx, "started", "process", name, "grpc", addrOf(grpcLis), "http", addrOf(httpLis), "metrics", addrOf(metricsLis))

	select {
	case <-ctx.Done():
		log.InfoContext(ctx, "stopping", "process", name)
	case err := <-serveErr:
		return fmt.Errorf("server stopped: %w", err)
	}

	// Shutdown, in reverse order of dependency.
	healthz.Shutdown() // NOT_SERVING: load balancers stop sending work
	// Feeds (table watches, the seating board, and the gateway's NDJSON
	// streams over them) end now with SHUTTING_DOWN, so the drains below
	// wait only for unary calls and a table's lease is let go promptly.
	drainer.Drain()
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if httpSrv != nil {
		if err := httpSrv.Shutdown(sctx); err != nil {
			log.WarnContext(sctx, "gateway did not drain in time", "error", err)
		}
	}
	if grpcSrv != nil && !rpc.Shutdown(grpcSrv, cfg.ShutdownTimeout) {
		log.WarnContext(sctx, "in-flight RPCs were cut off after the shutdown timeout")
	}
	stopLoops()
	loops.Wait()
	for _, b := range builts {
		err = errors.Join(err, b.Close())
	}
	log.InfoContext(ctx, "stopped", "process", name)
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
