// Package config is cardroom's configuration: one typed struct read from
// environment variables (12-factor) and validated at start-up, so a typo
// fails fast with the variable's name instead of surfacing later as a
// refused connection. Variables is the same list as data; docs/CONFIG.md
// is generated from it and a test keeps the two from drifting.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"

	"github.com/cardroom/cardroom/platform/auth"
)

// MetricsOff is the CARDROOM_METRICS_ADDR value that serves no /metrics
// endpoint.
const MetricsOff = "off"

// Config is everything a cardroom process reads from its environment. The
// struct tags are the single source of truth: env names the variable,
// envDefault its default, doc its meaning, docDefault how the default
// reads in the documentation when it is not a literal, secret:"true"
// keeps the value out of String, and check:"hostport" makes Validate
// insist on host:port.
type Config struct {
	HTTPAddr string `env:"CARDROOM_HTTP_ADDR" check:"hostport" envDefault:"127.0.0.1:8080" doc:"Listen address (host:port) of the REST gateway."`
	GRPCAddr string `env:"CARDROOM_GRPC_ADDR" check:"hostport" envDefault:"127.0.0.1:9090" doc:"Listen address (host:port) of the gRPC server."`
	// MetricsAddr is not check:"hostport" because "off" is allowed. An
	// empty value cannot mean off: the env library gives an empty variable
	// its default.
	MetricsAddr string `env:"CARDROOM_METRICS_ADDR" envDefault:"127.0.0.1:9464" doc:"Listen address (host:port) of the Prometheus /metrics endpoint every process serves (the OpenTelemetry Prometheus exporter's usual port); off turns it off."`
	DataDir     string `env:"CARDROOM_DATA_DIR" envDefault:"./data" doc:"Directory for the embedded SQLite database and the generated dev signing key."`

	RedisURL    string        `env:"REDIS_URL" docDefault:"(empty: in-process)" doc:"Redis for locks and event streams (redis://, rediss:// or unix://). Empty runs in-process locks and events."`
	LockTTL     time.Duration `env:"CARDROOM_LOCK_TTL" envDefault:"10s" doc:"Lease of a Redis lock on an entity (a table, a list); renewed every third of it. After a crash, another replica takes the entity over once the lease runs out."`
	RedisPrefix string        `env:"CARDROOM_REDIS_PREFIX" envDefault:"cardroom:" doc:"Prefix of every Redis key the suite writes (locks, event streams), so several suites or test runs can share one Redis."`
	DatabaseURL string        `env:"DATABASE_URL" docDefault:"(empty: SQLite)" doc:"PostgreSQL URL (postgres:// or postgresql://). Empty uses embedded SQLite under CARDROOM_DATA_DIR."`

	JWTKey      string     `env:"CARDROOM_JWT_KEY" secret:"true" docDefault:"(empty: generated)" doc:"HS256 signing key for bearer tokens, at least 32 bytes; every process of one suite needs the same key. Empty generates a dev key and persists it (mode 0600) in CARDROOM_DATA_DIR/jwt.key."`
	CORSOrigins []string   `env:"CARDROOM_CORS_ORIGINS" envSeparator:"," docDefault:"(empty: none)" doc:"Comma-separated browser origins the gateway allows (https://app.example.com), or * for any."`
	LogLevel    slog.Level `env:"CARDROOM_LOG_LEVEL" envDefault:"info" doc:"Log level: debug, info, warn or error. Logs are JSON on stderr with trace_id and span_id."`

	DevTokens bool `env:"CARDROOM_DEV_TOKENS" envDefault:"false" doc:"true prints a ready-to-paste token per person's role (player, dealer, floor, cashier, admin; valid 1h, never the service role) at start-up, as make run does. Only with the generated dev key: refused together with CARDROOM_JWT_KEY."`

	Limits Limits

	ShutdownTimeout time.Duration `env:"CARDROOM_SHUTDOWN_TIMEOUT" envDefault:"15s" doc:"How long a stopping process lets in-flight RPCs finish before it cuts them off."`
	TraceFile       string        `env:"CARDROOM_TRACE_FILE" docDefault:"(empty: off)" doc:"Write every finished span as one JSON object per line to this file (tests read it to check that spans share a trace ID)."`

	Endpoints Endpoints

	OTel OTel
}

// Limits bound what one client can make a process hold: request sizes, how
// long a request may take to arrive and to be answered, idle connections,
// concurrent streams. Feeds (the NDJSON watch streams) are exempt from the
// read and write timeouts, which would otherwise cut them.
type Limits struct {
	HTTPMaxBody           int64         `env:"CARDROOM_HTTP_MAX_BODY" envDefault:"1048576" doc:"Largest REST request body in bytes; a larger one is refused with 413 REQUEST_TOO_LARGE before it is read."`
	HTTPReadHeaderTimeout time.Duration `env:"CARDROOM_HTTP_READ_HEADER_TIMEOUT" envDefault:"5s" doc:"How long a client may take to send a request's headers (also a new connection's first request)."`
	HTTPReadTimeout       time.Duration `env:"CARDROOM_HTTP_READ_TIMEOUT" envDefault:"30s" doc:"How long a client may take to send a whole request, body included (slow bodies are cut)."`
	HTTPWriteTimeout      time.Duration `env:"CARDROOM_HTTP_WRITE_TIMEOUT" envDefault:"1m0s" doc:"How long the gateway may take to answer a request, from the end of its headers (feeds are exempt)."`
	HTTPIdleTimeout       time.Duration `env:"CARDROOM_HTTP_IDLE_TIMEOUT" envDefault:"1m0s" doc:"How long an idle keep-alive connection stays open."`
	GRPCMaxMessage        int           `env:"CARDROOM_GRPC_MAX_MESSAGE" envDefault:"4194304" doc:"Largest gRPC message in bytes a server accepts; a larger one is refused (REQUEST_TOO_LARGE through the gateway)."`
	GRPCMaxStreams        uint32        `env:"CARDROOM_GRPC_MAX_STREAMS" envDefault:"10000" doc:"Most concurrent RPCs (streams) on one gRPC connection. The gateway carries every app's feed on one connection per part, so keep it above the feeds you expect."`
	GRPCReflection        bool          `env:"CARDROOM_GRPC_REFLECTION" envDefault:"false" doc:"true registers gRPC server reflection (grpcurl list/describe) on the gRPC port; off by default, as the port may face the network."`
}

// Endpoints are the gRPC addresses at which one part of the suite calls the
// others. When every part runs in one process (cardroom all) they are all
// the local gRPC address; in Kubernetes each names a Service.
type Endpoints struct {
	Table      string `env:"CARDROOM_TABLE_ADDR" check:"hostport" docDefault:"CARDROOM_GRPC_ADDR" doc:"gRPC address of the table service."`
	Tournament string `env:"CARDROOM_TOURNAMENT_ADDR" check:"hostport" docDefault:"CARDROOM_GRPC_ADDR" doc:"gRPC address of the tournament service."`
	Wallet     string `env:"CARDROOM_WALLET_ADDR" check:"hostport" docDefault:"CARDROOM_GRPC_ADDR" doc:"gRPC address of the wallet service."`
	Seating    string `env:"CARDROOM_SEATING_ADDR" check:"hostport" docDefault:"CARDROOM_GRPC_ADDR" doc:"gRPC address of the seating service."`
}

// OTel holds the standard OpenTelemetry variables cardroom documents. The
// OpenTelemetry SDK reads them itself (these and the other OTEL_* variables
// it supports); they are here so that start-up validates them and the
// documentation lists them.
type OTel struct {
	ExporterEndpoint string `env:"OTEL_EXPORTER_OTLP_ENDPOINT" docDefault:"(empty: no export)" doc:"OTLP/gRPC collector endpoint (http://collector:4317). Set: traces and metrics are exported there."`
	ExporterInsecure string `env:"OTEL_EXPORTER_OTLP_INSECURE" docDefault:"false" doc:"true disables TLS to the collector (an http:// endpoint does too)."`
	ServiceName      string `env:"OTEL_SERVICE_NAME" docDefault:"(the part's name)" doc:"Overrides the service.name resource attribute."`
	ResourceAttrs    string `env:"OTEL_RESOURCE_ATTRIBUTES" docDefault:"(empty)" doc:"Extra resource attributes, key=value,key=value (deployment.environment=prod)."`
	TracesSampler    string `env:"OTEL_TRACES_SAMPLER" docDefault:"parentbased_always_on" doc:"Sampler: always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio."`
	TracesSamplerArg string `env:"OTEL_TRACES_SAMPLER_ARG" docDefault:"(empty)" doc:"Sampler argument, the ratio in 0..1 for the traceidratio samplers."`
}

// Address returns the configured endpoint of a service by its short name
// (table, tournament, wallet, seating), and false for an unknown name.
func (e Endpoints) Address(service string) (string, bool) {
	if addr := e.byService()[service]; addr != nil {
		return *addr, true
	}
	return "", false
}

// byService maps each service's short name to its endpoint field, so that
// lookup, defaulting and validation share one list.
func (e *Endpoints) byService() map[string]*string {
	return map[string]*string{"table": &e.Table, "tournament": &e.Tournament, "wallet": &e.Wallet, "seating": &e.Seating}
}

// Embedded reports whether the process runs on embedded state (SQLite,
// in-process locks and events) rather than on PostgreSQL and Redis.
func (c Config) Embedded() bool { return c.RedisURL == "" && c.DatabaseURL == "" }

// String returns the configuration with secrets redacted, for the start-up
// log: secret variables entirely, and the password of any URL (REDIS_URL and
// DATABASE_URL may carry one).
func (c Config) String() string {
	var b strings.Builder
	for _, v := range Variables() {
		val := valueOf(c, v.field)
		switch {
		case val == "":
			continue
		case v.Secret:
			val = "(redacted)"
		case strings.Contains(val, "://"):
			val = redactURL(val)
		}
		fmt.Fprintf(&b, "%s=%s ", v.Name, val)
	}
	return strings.TrimSuffix(b.String(), " ")
}

// Load reads and validates the configuration from the process environment.
func Load() (Config, error) {
	return LoadFrom(env.ToMap(os.Environ()))
}

// LoadFrom reads and validates the configuration from the given variables
// instead of the process environment; tests use it to stay parallel.
func LoadFrom(vars map[string]string) (Config, error) {
	var c Config
	if err := env.ParseWithOptions(&c, env.Options{Environment: vars}); err != nil {
		return Config{}, fmt.Errorf("config: %w", nameVariables(err, Variables()))
	}
	// CORS lists read naturally with spaces after commas.
	origins := c.CORSOrigins[:0]
	for _, o := range c.CORSOrigins {
		if o = strings.TrimSpace(o); o != "" {
			origins = append(origins, o)
		}
	}
	c.CORSOrigins = origins
	for _, addr := range c.Endpoints.byService() {
		if *addr == "" {
			*addr = c.GRPCAddr
		}
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// Validate checks every variable and returns all problems at once, each
// naming its variable.
func (c Config) Validate() error {
	var errs []error
	bad := func(name, value string, err error) {
		errs = append(errs, fmt.Errorf("%s=%q: %w", name, value, err))
	}
	c.validateAddresses(bad)
	if c.JWTKey != "" && len(c.JWTKey) < auth.MinKeyLen {
		// Its length only: the key itself is never shown.
		errs = append(errs, fmt.Errorf("CARDROOM_JWT_KEY: %d bytes, need at least %d", len(c.JWTKey), auth.MinKeyLen))
	}
	c.validateSecurity(bad)
	c.validateLimits(bad)
	c.validateOTel(bad)
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("config: %w", errors.Join(errs...))
}

// badSetting records a setting's name, its value as it may be shown, and
// what is wrong with it.
type badSetting func(name, value string, err error)

// validateAddresses checks where the process listens and what it connects
// to; the URLs are shown with their passwords redacted.
func (c Config) validateAddresses(bad badSetting) {
	for _, v := range Variables() {
		if !v.hostPort {
			continue
		}
		val := valueOf(c, v.field)
		if err := checkHostPort(val); err != nil {
			bad(v.Name, val, err)
		}
	}
	if c.MetricsAddr != MetricsOff {
		if err := checkHostPort(c.MetricsAddr); err != nil {
			bad("CARDROOM_METRICS_ADDR", c.MetricsAddr, err)
		}
	}
	if c.DataDir == "" {
		bad("CARDROOM_DATA_DIR", c.DataDir, errors.New("must not be empty"))
	}
	if c.RedisURL != "" {
		if err := checkURL(c.RedisURL, "redis", "rediss", "unix"); err != nil {
			bad("REDIS_URL", redactURL(c.RedisURL), err)
		}
	}
	if c.DatabaseURL != "" {
		if err := checkURL(c.DatabaseURL, "postgres", "postgresql"); err != nil {
			bad("DATABASE_URL", redactURL(c.DatabaseURL), err)
		}
	}
}

// validateSecurity checks the origins allowed, the lock lease and the dev
// tokens.
func (c Config) validateSecurity(bad badSetting) {
	for _, o := range c.CORSOrigins {
		if err := checkOrigin(o); err != nil {
			bad("CARDROOM_CORS_ORIGINS", o, err)
		}
	}
	if c.LockTTL < 300*time.Millisecond {
		// Renewal runs every third of the lease; below this a loaded
		// process would lose its locks to scheduling hiccups.
		bad("CARDROOM_LOCK_TTL", c.LockTTL.String(), errors.New("must be at least 300ms"))
	}
	if c.DevTokens && c.JWTKey != "" {
		bad("CARDROOM_DEV_TOKENS", "true", errors.New("dev tokens are printed only with the generated dev key, never with CARDROOM_JWT_KEY"))
	}
}

// validateLimits checks the servers' timeouts and sizes.
func (c Config) validateLimits(bad badSetting) {
	for name, d := range map[string]time.Duration{
		"CARDROOM_HTTP_READ_HEADER_TIMEOUT": c.Limits.HTTPReadHeaderTimeout, "CARDROOM_HTTP_READ_TIMEOUT": c.Limits.HTTPReadTimeout,
		"CARDROOM_HTTP_WRITE_TIMEOUT": c.Limits.HTTPWriteTimeout, "CARDROOM_HTTP_IDLE_TIMEOUT": c.Limits.HTTPIdleTimeout,
	} {
		if d <= 0 {
			bad(name, d.String(), errors.New("must be positive"))
		}
	}
	if c.Limits.HTTPMaxBody < 1024 {
		bad("CARDROOM_HTTP_MAX_BODY", strconv.FormatInt(c.Limits.HTTPMaxBody, 10), errors.New("must be at least 1024"))
	}
	if c.Limits.GRPCMaxMessage < 1024 {
		bad("CARDROOM_GRPC_MAX_MESSAGE", strconv.Itoa(c.Limits.GRPCMaxMessage), errors.New("must be at least 1024"))
	}
	if c.Limits.GRPCMaxStreams == 0 {
		bad("CARDROOM_GRPC_MAX_STREAMS", "0", errors.New("must be positive"))
	}
	if c.ShutdownTimeout <= 0 {
		bad("CARDROOM_SHUTDOWN_TIMEOUT", c.ShutdownTimeout.String(), errors.New("must be positive"))
	}
}

// validateOTel checks the OpenTelemetry settings, which the SDK reads
// itself, at start-up.
func (c Config) validateOTel(bad badSetting) {
	if c.OTel.ExporterEndpoint != "" {
		if err := checkURL(c.OTel.ExporterEndpoint, "http", "https"); err != nil {
			bad("OTEL_EXPORTER_OTLP_ENDPOINT", redactURL(c.OTel.ExporterEndpoint), err)
		}
	}
	if s := c.OTel.ExporterInsecure; s != "" {
		if _, err := strconv.ParseBool(s); err != nil {
			bad("OTEL_EXPORTER_OTLP_INSECURE", s, errors.New("want true or false"))
		}
	}
	switch c.OTel.TracesSampler {
	case "", "always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio":
	default:
		bad("OTEL_TRACES_SAMPLER", c.OTel.TracesSampler, errors.New("unknown sampler"))
	}
	if s := c.OTel.TracesSamplerArg; s != "" {
		if r, err := strconv.ParseFloat(s, 64); err != nil || r < 0 || r > 1 {
			bad("OTEL_TRACES_SAMPLER_ARG", s, errors.New("want a ratio in 0..1"))
		}
	}
}

func checkHostPort(s string) error {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return errors.New("want host:port")
	}
	if strings.ContainsAny(host, "/ ") {
		return fmt.Errorf("bad host %q", host)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("bad port %q", port)
	}
	return nil
}

func checkURL(s string, schemes ...string) error {
	u, err := url.Parse(s)
	if err != nil {
		return errors.New("not a URL")
	}
	for _, sch := range schemes {
		if u.Scheme == sch {
			if u.Host == "" && u.Path == "" {
				return errors.New("no host")
			}
			return nil
		}
	}
	return fmt.Errorf("scheme %q, want one of %s", u.Scheme, strings.Join(schemes, ", "))
}

func checkOrigin(o string) error {
	if o == "*" {
		return nil
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("want * or scheme://host[:port]")
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return errors.New("an origin has no path, query or fragment")
	}
	return nil
}

// redactURL hides a password in a URL so that validation errors can show it.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// Parse reads a service's own settings, a struct T with the tags Config
// uses, from vars (nil: the process environment). A value that does not
// parse is an error naming its variable; checking the values read is T's
// business.
func Parse[T any](vars map[string]string) (T, error) {
	var t T
	if vars == nil {
		vars = env.ToMap(os.Environ())
	}
	if err := env.ParseWithOptions(&t, env.Options{Environment: vars}); err != nil {
		var zero T
		return zero, nameVariables(err, VariablesOf[T]())
	}
	return t, nil
}

// nameVariables rewrites the env library's per-field errors so that they
// name the environment variable (one of vars) instead of the Go field.
func nameVariables(err error, vars []Variable) error {
	var agg env.AggregateError
	if !errors.As(err, &agg) {
		return err
	}
	byField := map[string]string{}
	for _, v := range vars {
		byField[v.field[len(v.field)-1]] = v.Name
	}
	errs := make([]error, 0, len(agg.Errors))
	for _, e := range agg.Errors {
		if pe, ok := errors.AsType[env.ParseError](e); ok {
			if name, ok := byField[pe.Name]; ok {
				errs = append(errs, fmt.Errorf("%s: %w", name, pe.Err))
				continue
			}
		}
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

// valueOf returns the field at path in c formatted as its variable would be written.
func valueOf(c Config, path []string) string {
	v := reflect.ValueOf(c)
	for _, name := range path {
		v = v.FieldByName(name)
	}
	switch x := v.Interface().(type) {
	case []string:
		return strings.Join(x, ",")
	case fmt.Stringer:
		return x.String()
	default:
		return fmt.Sprint(x)
	}
}
