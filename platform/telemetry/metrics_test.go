package telemetry

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// TestMetricsEndpoint: instruments made through Meter, even before Setup
// runs (as package-level instruments are), appear on the /metrics handler
// under their Prometheus names with their units and attributes, beside the
// Go runtime's; an attribute set past CardinalityLimit lands in the
// overflow series instead of growing the instrument.
func TestMetricsEndpoint(t *testing.T) {
	m := NewMeter("github.com/cardroom/cardroom/platform/telemetry/test")
	hands := m.Counter("cardroom.test.hands", "{hand}", "Hands dealt.")
	latency := m.Duration("cardroom.test.action.duration", "Time to apply an action.")
	waiting := m.Gauge("cardroom.test.waitlist.length", "{player}", "Players waiting.")
	buyIns := m.Amounts("cardroom.test.buy_ins", "{cent}", "Buy-ins.")
	perTable := m.Counter("cardroom.test.per_table", "{hand}", "A label that was not bounded.")

	tel, err := Setup(t.Context(), Options{Service: "table", LogOutput: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tel.Shutdown(context.Background()) }()

	ctx := t.Context()
	game := metric.WithAttributes(attribute.String("cardroom.game.variant", "holdem"))
	hands.Add(ctx, 2, game)
	latency.Record(ctx, (30 * time.Millisecond).Seconds(), game)
	waiting.Record(ctx, 4, game)
	buyIns.Record(ctx, 40_000, metric.WithAttributes(attribute.String("cardroom.currency", "EUR")))
	buyIns.Record(ctx, 10_000, metric.WithAttributes(attribute.String("cardroom.currency", "EUR")))
	for i := range CardinalityLimit + 10 {
		perTable.Add(ctx, 1, metric.WithAttributes(attribute.String("cardroom.table.id", fmt.Sprint(i))))
	}

	rec := httptest.NewRecorder()
	tel.Metrics().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", rec.Code, body)
	}
	text := string(body)
	for _, want := range []string{
		`cardroom_test_hands_total{cardroom_game_variant="holdem",otel_scope_name="github.com/cardroom/cardroom/platform/telemetry/test"`,
		`cardroom_test_action_duration_seconds_bucket{cardroom_game_variant="holdem"`,
		`cardroom_test_waitlist_length{cardroom_game_variant="holdem"`,
		`cardroom_test_buy_ins_sum{cardroom_currency="EUR"`,
		`cardroom_test_per_table_total{otel_metric_overflow="true"`,
		`target_info{`,
		`go_goroutines `,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	for _, want := range []string{`cardroom_test_hands_total{`, `cardroom_test_buy_ins_sum{`, `cardroom_test_buy_ins_count{`, `cardroom_test_waitlist_length{`} {
		if got := sample(text, want); got == "" {
			t.Errorf("no sample %s", want)
		}
	}
	if got := sample(text, `cardroom_test_hands_total{`); got != "2" {
		t.Errorf("hands = %s, want 2", got)
	}
	if got := sample(text, `cardroom_test_buy_ins_sum{`); got != "50000" {
		t.Errorf("buy-in sum = %s, want 50000", got)
	}
	if n := strings.Count(text, "cardroom_test_per_table_total{"); n > CardinalityLimit {
		t.Errorf("the unbounded label made %d series, want at most %d", n, CardinalityLimit)
	}
	if t.Failed() {
		t.Log(text)
	}
}

// sample returns the value of the first sample whose line starts with
// prefix, or "".
func sample(text, prefix string) string {
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, prefix) {
			fields := strings.Fields(line)
			return fields[len(fields)-1]
		}
	}
	return ""
}
