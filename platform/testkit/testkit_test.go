package testkit_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
)

func TestRedisPrefixIsCleanedUp(t *testing.T) {
	t.Parallel()
	var prefix string
	t.Run("writer", func(t *testing.T) {
		client, p := testkit.Redis(t)
		prefix = p
		for _, k := range []string{"a", "b", "c"} {
			if err := client.Set(t.Context(), p+k, "v", 0).Err(); err != nil {
				t.Fatal(err)
			}
		}
	})
	client, _ := testkit.Redis(t)
	keys, err := client.Keys(t.Context(), prefix+"*").Result()
	if err != nil || len(keys) != 0 {
		t.Fatalf("keys left under %s: %v, %v", prefix, keys, err)
	}
	if !strings.HasPrefix(prefix, "t_") || !strings.HasSuffix(prefix, ":") {
		t.Fatalf("prefix %q", prefix)
	}
}

func TestPostgresSchemaIsDropped(t *testing.T) {
	t.Parallel()
	var schema string
	t.Run("user", func(t *testing.T) {
		db := testkit.Postgres(t, sqlstore.Options{Service: "kit"})
		schema = db.Schema()
		if _, err := db.SQL().ExecContext(t.Context(), `CREATE TABLE x (id TEXT)`); err != nil {
			t.Fatal(err)
		}
		var where string
		if err := db.SQL().QueryRowContext(t.Context(), `SELECT table_schema FROM information_schema.tables WHERE table_name = 'x' AND table_schema = current_schema()`).Scan(&where); err != nil || where != schema {
			t.Fatalf("table x in %q (%v), want %q", where, err, schema)
		}
	})
	db := testkit.Postgres(t, sqlstore.Options{Service: "kit"})
	var n int
	if err := db.SQL().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = $1`, schema).Scan(&n); err != nil || n != 0 {
		t.Fatalf("schema %s still exists (%d, %v)", schema, n, err)
	}
}

func TestPrivateRedisServerRestartForgetsKeys(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedisServer(t)
	client := srv.Client(t)
	if err := client.Set(t.Context(), "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	srv.Restart()
	n, err := client.Exists(t.Context(), "k").Result()
	if err != nil || n != 0 {
		t.Fatalf("after restart Exists(k) = %d, %v; want 0", n, err)
	}
}

func TestEventuallyReturnsOnceTheConditionHolds(t *testing.T) {
	t.Parallel()
	calls := 0
	testkit.Eventually(t, 5*time.Second, func() error {
		calls++
		if calls < 3 {
			return fmt.Errorf("call %d", calls)
		}
		return nil
	})
	if calls != 3 {
		t.Fatalf("cond called %d times, want 3", calls)
	}
}

func TestEventuallyFailsWithTheLastError(t *testing.T) {
	t.Parallel()
	rec := &failRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		testkit.Eventually(rec, 20*time.Millisecond, func() error { return errors.New("still 3 chips short") })
	}()
	<-done
	if !strings.Contains(rec.msg, "still 3 chips short") {
		t.Fatalf("failure message %q does not carry the condition's error", rec.msg)
	}
}

// failRecorder records Fatalf instead of failing the test, and ends the
// goroutine as Fatalf does.
type failRecorder struct {
	testing.TB
	msg string
}

func (r *failRecorder) Helper() {}

func (r *failRecorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
