package config

import (
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite docs/CONFIG.md from the Config struct")

// Markdown returns the variables as the Markdown document docs/CONFIG.md.
func Markdown() string {
	var b strings.Builder
	b.WriteString("# Configuration\n\n")
	b.WriteString("Every cardroom process reads these environment variables at start-up and refuses to\n")
	b.WriteString("start, naming the variable, when one is invalid. Generated from `platform/config`\n")
	b.WriteString("(`go test ./config -update` in `platform/` rewrites this file).\n\n")
	b.WriteString(Table())
	b.WriteString("\nWhen `OTEL_EXPORTER_OTLP_ENDPOINT` is set, the OpenTelemetry exporters also honour the other\n")
	b.WriteString("standard `OTEL_EXPORTER_OTLP_*` variables (`_HEADERS`, `_TIMEOUT`, `_COMPRESSION`, `_CERTIFICATE`),\n")
	b.WriteString("and the SDK honours `OTEL_BSP_*` for batching.\n")
	return b.String()
}

// Table returns the Markdown table of every variable with its default and
// meaning, as docs/CONFIG.md and the README show it.
func Table() string { return TableOf(Variables()) }

func TestLoadDefaults(t *testing.T) {
	t.Parallel()
	c, err := LoadFrom(map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		HTTPAddr:        "127.0.0.1:8080",
		GRPCAddr:        "127.0.0.1:9090",
		MetricsAddr:     "127.0.0.1:9464",
		DataDir:         "./data",
		RedisPrefix:     "cardroom:",
		LockTTL:         10 * time.Second,
		LogLevel:        slog.LevelInfo,
		ShutdownTimeout: 15 * time.Second,
		Endpoints:       Endpoints{Table: "127.0.0.1:9090", Tournament: "127.0.0.1:9090", Wallet: "127.0.0.1:9090", Seating: "127.0.0.1:9090"},
		Limits: Limits{
			HTTPMaxBody: 1 << 20, HTTPReadHeaderTimeout: 5 * time.Second, HTTPReadTimeout: 30 * time.Second,
			HTTPWriteTimeout: time.Minute, HTTPIdleTimeout: time.Minute, GRPCMaxMessage: 4 << 20, GRPCMaxStreams: 10000,
		},
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("defaults = %+v\nwant %+v", c, want)
	}
	if len(c.CORSOrigins) != 0 || !c.Embedded() {
		t.Fatalf("CORS %v embedded %v", c.CORSOrigins, c.Embedded())
	}
}

func TestLoadOverrides(t *testing.T) {
	t.Parallel()
	c, err := LoadFrom(map[string]string{
		"CARDROOM_HTTP_ADDR":          ":8081",
		"CARDROOM_GRPC_ADDR":          "0.0.0.0:9999",
		"CARDROOM_DATA_DIR":           "/var/lib/cardroom",
		"REDIS_URL":                   "redis://127.0.0.1:6379/0",
		"DATABASE_URL":                "postgres://postgres@127.0.0.1:5432/test",
		"CARDROOM_JWT_KEY":            strings.Repeat("k", 32),
		"CARDROOM_CORS_ORIGINS":       "https://app.example.com, http://localhost:5173",
		"CARDROOM_LOG_LEVEL":          "debug",
		"CARDROOM_SHUTDOWN_TIMEOUT":   "3s",
		"CARDROOM_WALLET_ADDR":        "wallet:9090",
		"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4317",
		"OTEL_TRACES_SAMPLER":         "traceidratio",
		"OTEL_TRACES_SAMPLER_ARG":     "0.25",
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPAddr != ":8081" || c.GRPCAddr != "0.0.0.0:9999" || c.DataDir != "/var/lib/cardroom" {
		t.Errorf("addrs/dir = %q %q %q", c.HTTPAddr, c.GRPCAddr, c.DataDir)
	}
	if c.Embedded() {
		t.Error("Embedded() with Redis and PostgreSQL set")
	}
	if !slices.Equal(c.CORSOrigins, []string{"https://app.example.com", "http://localhost:5173"}) {
		t.Errorf("CORS = %q", c.CORSOrigins)
	}
	if c.LogLevel != slog.LevelDebug || c.ShutdownTimeout != 3*time.Second {
		t.Errorf("level %v timeout %v", c.LogLevel, c.ShutdownTimeout)
	}
	// An unset endpoint falls back to the local gRPC address, a set one wins.
	if w, _ := c.Endpoints.Address("wallet"); w != "wallet:9090" {
		t.Errorf("wallet = %q", w)
	}
	if tb, _ := c.Endpoints.Address("table"); tb != "0.0.0.0:9999" {
		t.Errorf("table = %q", tb)
	}
	if _, ok := c.Endpoints.Address("bank"); ok {
		t.Error("unknown service has an address")
	}
	if c.OTel.ExporterEndpoint != "http://collector:4317" || c.OTel.TracesSampler != "traceidratio" {
		t.Errorf("otel = %+v", c.OTel)
	}
	if s := c.String(); strings.Contains(s, "kkkk") || !strings.Contains(s, "CARDROOM_JWT_KEY=(redacted)") {
		t.Errorf("String() leaks or drops the key: %s", s)
	}
}

func TestStringRedactsSecrets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, variable, value, secret, shown string
	}{
		{"signing key", "CARDROOM_JWT_KEY", strings.Repeat("k", 32), "kkkk", "CARDROOM_JWT_KEY=(redacted)"},
		{"Redis password", "REDIS_URL", "redis://:hunter2@redis:6379/0", "hunter2", "REDIS_URL=redis://:xxxxx@redis:6379/0"},
		{"PostgreSQL password", "DATABASE_URL", "postgres://cardroom:hunter2@db:5432/room", "hunter2", "DATABASE_URL=postgres://cardroom:xxxxx@db:5432/room"},
		{"URL without password shown as is", "DATABASE_URL", "postgres://cardroom@db:5432/room", "", "DATABASE_URL=postgres://cardroom@db:5432/room"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := LoadFrom(map[string]string{tt.variable: tt.value})
			if err != nil {
				t.Fatal(err)
			}
			s := c.String()
			if tt.secret != "" && strings.Contains(s, tt.secret) || !strings.Contains(s, tt.shown) {
				t.Errorf("String() = %s; want %s and not %q", s, tt.shown, tt.secret)
			}
		})
	}
	for _, v := range Variables() {
		if v.Secret != (v.Name == "CARDROOM_JWT_KEY") {
			t.Errorf("%s: Secret = %v", v.Name, v.Secret)
		}
	}
}

func TestLoadRejectsBadValuesNamingTheVariable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, variable, value string
	}{
		{"http addr without port", "CARDROOM_HTTP_ADDR", "localhost"},
		{"grpc addr bad port", "CARDROOM_GRPC_ADDR", "127.0.0.1:99999"},
		{"metrics addr without port", "CARDROOM_METRICS_ADDR", "metrics"},
		{"endpoint not host:port", "CARDROOM_SEATING_ADDR", "http://seating"},
		{"table endpoint without port", "CARDROOM_TABLE_ADDR", "table"},
		{"tournament endpoint without port", "CARDROOM_TOURNAMENT_ADDR", "tournament"},
		{"wallet endpoint bad port", "CARDROOM_WALLET_ADDR", "wallet:http"},
		{"redis wrong scheme", "REDIS_URL", "http://127.0.0.1:6379"},
		{"database wrong scheme", "DATABASE_URL", "mysql://db/x"},
		{"short jwt key", "CARDROOM_JWT_KEY", "short"},
		{"cors origin with path", "CARDROOM_CORS_ORIGINS", "https://app.example.com/login"},
		{"cors origin no scheme", "CARDROOM_CORS_ORIGINS", "app.example.com"},
		{"unknown log level", "CARDROOM_LOG_LEVEL", "loud"},
		{"unparsable duration", "CARDROOM_SHUTDOWN_TIMEOUT", "soon"},
		{"zero duration", "CARDROOM_SHUTDOWN_TIMEOUT", "0s"},
		{"lock lease too short to renew", "CARDROOM_LOCK_TTL", "100ms"},
		{"otlp endpoint no scheme", "OTEL_EXPORTER_OTLP_ENDPOINT", "collector"},
		{"otlp insecure not bool", "OTEL_EXPORTER_OTLP_INSECURE", "maybe"},
		{"unknown sampler", "OTEL_TRACES_SAMPLER", "sometimes"},
		{"sampler ratio out of range", "OTEL_TRACES_SAMPLER_ARG", "1.5"},
		{"zero read timeout", "CARDROOM_HTTP_READ_TIMEOUT", "0s"},
		{"negative idle timeout", "CARDROOM_HTTP_IDLE_TIMEOUT", "-1s"},
		{"tiny body limit", "CARDROOM_HTTP_MAX_BODY", "10"},
		{"tiny message limit", "CARDROOM_GRPC_MAX_MESSAGE", "10"},
		{"no streams", "CARDROOM_GRPC_MAX_STREAMS", "0"},
		{"dev tokens with a configured key", "CARDROOM_DEV_TOKENS", "true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			vars := map[string]string{tt.variable: tt.value}
			if tt.variable == "CARDROOM_DEV_TOKENS" {
				vars["CARDROOM_JWT_KEY"] = strings.Repeat("k", 32)
			}
			_, err := LoadFrom(vars)
			if err == nil {
				t.Fatalf("%s=%q accepted", tt.variable, tt.value)
			}
			if !strings.Contains(err.Error(), tt.variable) {
				t.Fatalf("error does not name %s: %v", tt.variable, err)
			}
		})
	}
}

func TestValidateReportsEveryProblemAndHidesPasswords(t *testing.T) {
	t.Parallel()
	_, err := LoadFrom(map[string]string{
		"CARDROOM_HTTP_ADDR": "nope",
		"DATABASE_URL":       "mysql://user:hunter2@db/x",
	})
	if err == nil {
		t.Fatal("accepted")
	}
	msg := err.Error()
	for _, want := range []string{"CARDROOM_HTTP_ADDR", "DATABASE_URL"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %s: %s", want, msg)
		}
	}
	if strings.Contains(msg, "hunter2") {
		t.Errorf("error leaks the password: %s", msg)
	}
}

func TestVariablesCoverEveryField(t *testing.T) {
	t.Parallel()
	vars := Variables()
	seen := map[string]bool{}
	for _, v := range vars {
		if seen[v.Name] {
			t.Errorf("%s listed twice", v.Name)
		}
		seen[v.Name] = true
		if v.Meaning == "" {
			t.Errorf("%s has no meaning", v.Name)
		}
	}
	for _, name := range []string{"CARDROOM_HTTP_ADDR", "CARDROOM_GRPC_ADDR", "CARDROOM_DATA_DIR", "REDIS_URL", "DATABASE_URL", "CARDROOM_JWT_KEY", "CARDROOM_CORS_ORIGINS", "CARDROOM_LOG_LEVEL", "CARDROOM_TRACE_FILE", "CARDROOM_WALLET_ADDR", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_SERVICE_NAME", "OTEL_TRACES_SAMPLER"} {
		if !seen[name] {
			t.Errorf("%s missing from Variables()", name)
		}
	}
	// Every variable's documented literal default is what Load really uses.
	c, err := LoadFrom(map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vars {
		if v.Default == "" || strings.HasPrefix(v.Default, "(") || v.Default == "CARDROOM_GRPC_ADDR" {
			continue
		}
		got := valueOf(c, v.field)
		if v.Name == "CARDROOM_LOG_LEVEL" {
			got = strings.ToLower(got)
		}
		if v.Name == "OTEL_EXPORTER_OTLP_INSECURE" || v.Name == "OTEL_TRACES_SAMPLER" {
			continue // defaults applied by the SDK, not by Load
		}
		if got != v.Default {
			t.Errorf("%s: documented default %q, Load gives %q", v.Name, v.Default, got)
		}
	}
}

// README markers around the generated variable table.
const (
	readmeBegin = "<!-- config table: generated; go test ./config -update in platform/ rewrites it -->\n"
	readmeEnd   = "<!-- end of config table -->"
)

// TestReadmeTableMatchesStruct keeps the README's variable table from
// drifting, like TestConfigDocMatchesStruct for docs/CONFIG.md.
func TestReadmeTableMatchesStruct(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "..", "README.md")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	before, rest, ok := strings.Cut(readme, readmeBegin)
	_, after, ok2 := strings.Cut(rest, readmeEnd)
	if !ok || !ok2 {
		t.Fatalf("README.md lacks the config table markers %q ... %q", readmeBegin, readmeEnd)
	}
	want := before + readmeBegin + Table() + readmeEnd + after
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if readme != want {
		t.Fatalf("README.md's config table is stale: run `go test ./config -update` in platform/")
	}
}

// TestConfigDocMatchesStruct keeps docs/CONFIG.md from drifting: run
// `go test ./config -update` after changing Config.
func TestConfigDocMatchesStruct(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "..", "docs", "CONFIG.md")
	want := Markdown()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./config -update in platform/)", err)
	}
	if string(got) != want {
		t.Fatalf("docs/CONFIG.md is stale: run `go test ./config -update` in platform/")
	}
}

func TestVariablesOfAnotherStruct(t *testing.T) {
	t.Parallel()
	type serviceSettings struct {
		HoldTTL time.Duration `env:"X_HOLD_TTL" envDefault:"2m" doc:"How long a hold lasts."`
		Inner   struct {
			Key string `env:"X_KEY" docDefault:"(empty: generated)" doc:"A key | with a pipe."`
		}
	}
	vars := VariablesOf[serviceSettings]()
	if len(vars) != 2 || vars[0].Name != "X_HOLD_TTL" || vars[0].Default != "2m" || vars[1].Default != "(empty: generated)" {
		t.Fatalf("VariablesOf = %+v", vars)
	}
	want := "| Variable | Default | Meaning |\n|---|---|---|\n" +
		"| `X_HOLD_TTL` | `2m` | How long a hold lasts. |\n" +
		"| `X_KEY` | (empty: generated) | A key \\| with a pipe. |\n"
	if got := TableOf(vars); got != want {
		t.Fatalf("TableOf =\n%s\nwant\n%s", got, want)
	}
}

// TestParseNamesTheVariable: a service's settings read with Parse name
// the variable of a value that does not parse, not the Go field.
func TestParseNamesTheVariable(t *testing.T) {
	t.Parallel()
	type settings struct {
		Offer time.Duration `env:"X_OFFER_TIMEOUT" envDefault:"3m" doc:"Offer time."`
		Sweep time.Duration `env:"X_SWEEP_INTERVAL" envDefault:"1s" doc:"Sweep."`
	}
	got, err := Parse[settings](map[string]string{"X_SWEEP_INTERVAL": "250ms"})
	if err != nil || got.Offer != 3*time.Minute || got.Sweep != 250*time.Millisecond {
		t.Fatalf("Parse = %+v, %v", got, err)
	}
	_, err = Parse[settings](map[string]string{"X_OFFER_TIMEOUT": "three minutes"})
	if err == nil || !strings.Contains(err.Error(), "X_OFFER_TIMEOUT") || strings.Contains(err.Error(), `"Offer"`) {
		t.Fatalf("unparsable duration: %v, want the variable named", err)
	}
}

// TestMetricsOffAndEmpty: "off" turns the /metrics endpoint off; an empty
// value cannot, since the env library gives an empty variable its default,
// so it keeps the default address rather than silently meaning off.
func TestMetricsOffAndEmpty(t *testing.T) {
	t.Parallel()
	for value, want := range map[string]string{"off": MetricsOff, "": "127.0.0.1:9464", "127.0.0.1:0": "127.0.0.1:0"} {
		c, err := LoadFrom(map[string]string{"CARDROOM_METRICS_ADDR": value})
		if err != nil {
			t.Fatalf("CARDROOM_METRICS_ADDR=%q: %v", value, err)
		}
		if c.MetricsAddr != want {
			t.Errorf("CARDROOM_METRICS_ADDR=%q gives %q, want %q", value, c.MetricsAddr, want)
		}
	}
}
