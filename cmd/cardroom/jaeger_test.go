package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/testkit"
)

// jaegerEnv names the Jaeger binary the traces test runs; make test-traces
// builds it from tools/jaeger and sets it.
const jaegerEnv = "CARDROOM_JAEGER"

// jaeger is a Jaeger process on free loopback ports.
type jaeger struct {
	otlp, query string
}

// startJaeger runs the Jaeger binary with tools/jaeger/config.yaml on free
// loopback ports until the test ends.
func startJaeger(t *testing.T, bin string) *jaeger {
	t.Helper()
	j := &jaeger{otlp: freeAddr(t), query: freeAddr(t)}
	health := freeAddr(t)
	cmd := exec.Command(bin, "--config", "../../tools/jaeger/config.yaml")
	cmd.Env = append(os.Environ(), "JAEGER_OTLP_ADDR="+j.otlp, "JAEGER_QUERY_ADDR="+j.query,
		"JAEGER_QUERY_GRPC_ADDR="+freeAddr(t), "JAEGER_HEALTH_ADDR="+health)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	waitFor(t, "Jaeger healthy", 60*time.Second, func() bool {
		resp, err := http.Get("http://" + health + "/status")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return j
}

// jaegerTrace is one trace as Jaeger's query API (/api/traces) answers it.
type jaegerTrace struct {
	TraceID   string       `json:"traceID"`
	Spans     []jaegerSpan `json:"spans"`
	Processes map[string]struct {
		ServiceName string `json:"serviceName"`
	} `json:"processes"`
}

// jaegerSpan is one span of a jaegerTrace.
type jaegerSpan struct {
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	Tags          []struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	} `json:"tags"`
}

// traces asks Jaeger's query API for the traces of service matching the
// operation and tags (either may be empty).
func (j *jaeger) traces(t *testing.T, operation string, tags map[string]string) []jaegerTrace {
	t.Helper()
	q := url.Values{"service": {"cardroom"}, "limit": {"100"}, "lookback": {"1h"}}
	if operation != "" {
		q.Set("operation", operation)
	}
	if len(tags) > 0 {
		b, _ := json.Marshal(tags)
		q.Set("tags", string(b))
	}
	resp, err := http.Get("http://" + j.query + "/api/traces?" + q.Encode())
	if err != nil {
		t.Fatalf("Jaeger query: %v", err)
	}
	defer resp.Body.Close()
	var out struct {
		Data []jaegerTrace `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("Jaeger query: %d: %v", resp.StatusCode, err)
	}
	return out.Data
}

// tag returns a span's tag value as text, or "".
func (tr jaegerTrace) tag(op, key string) string {
	for _, sp := range tr.Spans {
		if sp.OperationName != op {
			continue
		}
		for _, kv := range sp.Tags {
			if kv.Key == key {
				return fmt.Sprint(kv.Value)
			}
		}
	}
	return ""
}

// twoCards matches text holding two cards ("As Kd", "AsKd"): what a hole
// card leak would look like.
var twoCards = regexp.MustCompile(`\b[2-9TJQKA][cdhs]\s?[2-9TJQKA][cdhs]\b`)

// TestTracesInJaeger_CS03: the suite on Redis and PostgreSQL exports its
// traces over OTLP to a real Jaeger; a buy-in made over REST is one trace
// in Jaeger's query API holding the gateway's HTTP span, the table's Sit,
// the wallet's SitDown, SQL and Redis spans, and the attributes an
// SRE searches by (the player, the table, the caller); a buy-in refused by
// CS-03 is found by its rule id. No span carries cards.
func TestTracesInJaeger_CS03(t *testing.T) {
	bin := os.Getenv(jaegerEnv)
	if bin == "" {
		t.Skip("make test-traces builds Jaeger and runs this test (" + jaegerEnv + " names the binary)")
	}
	t.Parallel()
	j := startJaeger(t, bin)
	s := newSuite(t,
		"REDIS_URL="+testkit.RedisURL(t),
		"CARDROOM_REDIS_PREFIX="+testkit.RedisPrefix(t),
		"DATABASE_URL="+postgresDatabase(t),
		"OTEL_EXPORTER_OTLP_ENDPOINT=http://"+j.otlp,
		"OTEL_BSP_SCHEDULE_DELAY=100", // spans reach Jaeger within the test's patience
	)
	s.start()
	r := newRoom(t, s, "ann")
	r.deposit("ann", 20000)
	table := r.createTable("Traced", 6)

	// CS-03: below the table's minimum buy-in.
	if code, e := r.refused("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": 0, "player_id": "ann",
		"amount": tableMin - 100}); code != 400 || e.RuleID != "CS-03" {
		t.Fatalf("a buy-in below the minimum: %d %+v", code, e)
	}
	r.must("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": 0, "player_id": "ann", "amount": tableMin}, nil)

	const sitRoute = "POST /v1/tables/{table_id}/seats"
	const sit, sitDown = "cardroom.table.v1.TableService/Sit", "cardroom.wallet.v1.WalletService/SitDown"
	var buyIn jaegerTrace
	waitFor(t, "the buy-in's trace in Jaeger", 60*time.Second, func() bool {
		for _, tr := range j.traces(t, sitRoute, nil) {
			if slices.ContainsFunc(tr.Spans, func(sp jaegerSpan) bool { return sp.OperationName == sitDown }) {
				buyIn = tr
				return true
			}
		}
		return false
	})
	ops := map[string]int{}
	var sql, redis int
	for _, sp := range buyIn.Spans {
		ops[sp.OperationName]++
		for _, kv := range sp.Tags {
			switch {
			case kv.Key == "db.system.name" && (kv.Value == "postgresql" || kv.Value == "sqlite"):
				sql++
			case kv.Key == "db.system" && kv.Value == "redis", kv.Key == "db.system.name" && kv.Value == "redis":
				redis++
			}
			if text := fmt.Sprint(kv.Value); twoCards.MatchString(text) || strings.Contains(kv.Key, "hole") {
				t.Errorf("span %s carries %s=%s", sp.OperationName, kv.Key, text)
			}
		}
	}
	for _, op := range []string{sitRoute, sit, sitDown} {
		if ops[op] == 0 {
			t.Errorf("the buy-in's trace %s has no %s span (has %v)", buyIn.TraceID, op, ops)
		}
	}
	if sql == 0 || redis == 0 {
		t.Errorf("the buy-in's trace %s has %d SQL and %d Redis spans, want both", buyIn.TraceID, sql, redis)
	}
	for key, want := range map[string]string{"cardroom.table.id": table, "cardroom.player.id": "ann", "enduser.id": "floor-anna"} {
		if got := buyIn.tag(sit, key); got != want {
			t.Errorf("the table's Sit span: %s = %q, want %q", key, got, want)
		}
	}
	if got := buyIn.tag(sitDown, "cardroom.table.id"); got != table {
		t.Errorf("the wallet's SitDown span: cardroom.table.id = %q, want %q", got, table)
	}

	// The refusal is found by its rule, as an SRE would search for it.
	var refused []jaegerTrace
	waitFor(t, "the CS-03 refusal in Jaeger", 30*time.Second, func() bool {
		refused = j.traces(t, "", map[string]string{"cardroom.rule.id": "CS-03"})
		return len(refused) > 0
	})
	if got := refused[0].tag(sit, "cardroom.reason"); got == "" {
		t.Errorf("the refused Sit span has no cardroom.reason")
	}
	t.Logf("buy-in trace %s: %d spans (%d SQL, %d Redis) over %d services; CS-03 refusal trace %s",
		buyIn.TraceID, len(buyIn.Spans), sql, redis, len(buyIn.Processes), refused[0].TraceID)
}
