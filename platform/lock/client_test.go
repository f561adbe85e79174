package lock_test

import (
	"strings"
	"testing"

	"github.com/redis/go-redis/extra/redisotel/v9"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/testkit"
)

// TestRedisClientSpansOmitArguments: every command is a span under the
// caller's span, named for the command, and no span records the
// command's arguments.
func TestRedisClientSpansOmitArguments(t *testing.T) {
	t.Parallel()
	_, prefix := testkit.Redis(t) // cleans up the keys under prefix
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	client, err := lock.NewRedisClient(testkit.RedisURL(t), redisotel.WithTracerProvider(tp))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })

	const secret = "hole-cards-As-Kd"
	ctx, parent := tp.Tracer("test").Start(t.Context(), "request")
	err = client.Set(ctx, prefix+"k", secret, 0).Err()
	parent.End()
	if err != nil {
		t.Fatal(err)
	}
	var set sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == "set" && s.Parent().SpanID() == parent.SpanContext().SpanID() {
			set = s
		}
		for _, kv := range s.Attributes() {
			if strings.Contains(kv.Value.String(), secret) {
				t.Errorf("span %s records an argument: %s=%s", s.Name(), kv.Key, kv.Value.String())
			}
		}
	}
	if set == nil {
		t.Fatal("no set span under the request span")
	}
}
