package events_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
)

// The service under test owns tables; its consumer side counts the seats
// opened per table.
var migrations = fstest.MapFS{
	"00001_tables.sql": {Data: []byte(`-- +goose Up
CREATE TABLE tables (id TEXT PRIMARY KEY, seats BIGINT NOT NULL);
CREATE TABLE seat_counts (table_id TEXT PRIMARY KEY, opened BIGINT NOT NULL);
`)},
}

var opts = sqlstore.Options{Service: "events", Migrations: migrations, Shared: []sqlstore.MigrationSet{events.Migrations}}

// busKinds makes a fresh bus of each kind for a test.
var busKinds = map[string]func(t *testing.T) events.Bus{
	"memory": func(*testing.T) events.Bus {
		return events.NewMemory(events.MemoryOptions{RetryDelay: 10 * time.Millisecond})
	},
	"redis": func(t *testing.T) events.Bus {
		client, prefix := testkit.Redis(t)
		return events.NewRedisStreams(client, events.RedisStreamsOptions{Prefix: prefix, Block: 50 * time.Millisecond, MinIdle: 100 * time.Millisecond})
	},
}

// eachStoreAndBus runs test with each bus kind on a fresh SQLite and a
// fresh PostgreSQL database.
func eachStoreAndBus(t *testing.T, test func(t *testing.T, db *sqlstore.DB, bus events.Bus)) {
	for name, newBus := range busKinds {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testkit.EachStore(t, opts, func(t *testing.T, db *sqlstore.DB) {
				test(t, db, newBus(t))
			})
		})
	}
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testkit.Eventually(t, 10*time.Second, func() error {
		if !cond() {
			return fmt.Errorf("waiting for %s", what)
		}
		return nil
	})
}

// openTable creates a table and announces a seat in one transaction.
func openTable(t *testing.T, db *sqlstore.DB, id string) events.Event {
	t.Helper()
	ev := events.Event{ID: events.NewID(), Topic: "table.seat_opened", Key: id, Payload: []byte(`{"seat":3}`), Epoch: 7}
	err := db.Tx(t.Context(), func(tx *sqlstore.Tx) error {
		if _, err := tx.ExecContext(t.Context(), `INSERT INTO tables (id, seats) VALUES ($1, 9)`, id); err != nil {
			return err
		}
		return events.Add(t.Context(), tx, ev)
	})
	if err != nil {
		t.Fatalf("open table %s: %v", id, err)
	}
	return ev
}

// countSeats is an idempotent consumer that counts opened seats per table.
func countSeats(db *sqlstore.DB, calls *atomic.Int64) events.Handler {
	h := events.Idempotent(db, "seat-counter", func(ctx context.Context, tx *sqlstore.Tx, ev events.Event) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO seat_counts (table_id, opened) VALUES ($1, 1)
			ON CONFLICT (table_id) DO UPDATE SET opened = seat_counts.opened + 1`, ev.Key)
		return err
	})
	return func(ctx context.Context, ev events.Event) error {
		calls.Add(1)
		return h(ctx, ev)
	}
}

func opened(t *testing.T, db *sqlstore.DB, table string) int64 {
	t.Helper()
	var n int64
	err := db.SQL().QueryRowContext(t.Context(), `SELECT opened FROM seat_counts WHERE table_id = $1`, table).Scan(&n)
	if err != nil {
		return 0
	}
	return n
}

func unpublished(t *testing.T, db *sqlstore.DB) int {
	t.Helper()
	var n int
	if err := db.SQL().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM outbox WHERE published_at IS NULL`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func subscribe(t *testing.T, bus events.Bus, topic, group string, h events.Handler) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := bus.Subscribe(ctx, topic, group, h); err != nil {
			t.Errorf("subscribe: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// failingBus refuses every publish, as a bus that is down would.
type failingBus struct{ events.Bus }

func (failingBus) Publish(context.Context, events.Event) error { return errors.New("bus down") }

// crashAfterPublish publishes, then reports failure, as a relay that
// crashed between publishing and marking the row would behave.
type crashAfterPublish struct{ events.Bus }

func (b crashAfterPublish) Publish(ctx context.Context, ev events.Event) error {
	if err := b.Bus.Publish(ctx, ev); err != nil {
		return err
	}
	return errors.New("crashed before marking published")
}

func TestCrashBetweenCommitAndPublishStillDelivers(t *testing.T) {
	t.Parallel()
	eachStoreAndBus(t, func(t *testing.T, db *sqlstore.DB, bus events.Bus) {
		ev := openTable(t, db, "t-crash")
		// The first process committed but its relay never published: the
		// bus was down, then the process died.
		if n, err := events.NewRelay(db, failingBus{bus}, events.RelayOptions{}).Flush(t.Context()); err == nil || n != 0 {
			t.Fatalf("flush to a failing bus = %d, %v; want 0 and an error", n, err)
		}
		if got := unpublished(t, db); got != 1 {
			t.Fatalf("unpublished rows = %d, want 1", got)
		}
		var calls atomic.Int64
		var got atomic.Value
		subscribe(t, bus, ev.Topic, "seating", func(ctx context.Context, e events.Event) error {
			got.Store(e)
			return countSeats(db, &calls)(ctx, e)
		})
		// A new process starts a relay on the same outbox.
		if n, err := events.NewRelay(db, bus, events.RelayOptions{}).Flush(t.Context()); err != nil || n != 1 {
			t.Fatalf("flush after restart = %d, %v; want 1, nil", n, err)
		}
		eventually(t, "delivery", func() bool { return opened(t, db, "t-crash") == 1 })
		e := got.Load().(events.Event)
		if e.ID != ev.ID || e.Key != ev.Key || string(e.Payload) != string(ev.Payload) || e.Epoch != ev.Epoch {
			t.Fatalf("delivered %+v, want %+v", e, ev)
		}
		if got := unpublished(t, db); got != 0 {
			t.Fatalf("unpublished rows after relay = %d, want 0", got)
		}
	})
}

// failsAfter publishes its first n events, then refuses the rest.
type failsAfter struct {
	events.Bus
	n *atomic.Int64
}

func (b failsAfter) Publish(ctx context.Context, ev events.Event) error {
	if b.n.Add(-1) < 0 {
		return errors.New("bus down")
	}
	return b.Bus.Publish(ctx, ev)
}

// TestRelayMarksWhatItPublishedBeforeAFailure: a round's rows are marked
// published together after they went out; when the bus fails mid-round,
// the rows published before the failure are marked and the rest stay in
// the outbox for the next round, which publishes only those.
func TestRelayMarksWhatItPublishedBeforeAFailure(t *testing.T) {
	t.Parallel()
	eachStoreAndBus(t, func(t *testing.T, db *sqlstore.DB, bus events.Bus) {
		for i := range 5 {
			openTable(t, db, fmt.Sprintf("t-round-%d", i))
		}
		var left atomic.Int64
		left.Store(2)
		if n, err := events.NewRelay(db, failsAfter{bus, &left}, events.RelayOptions{}).Flush(t.Context()); err == nil || n != 2 {
			t.Fatalf("flush to a bus failing after 2 = %d, %v; want 2 and an error", n, err)
		}
		if got := unpublished(t, db); got != 3 {
			t.Fatalf("unpublished rows = %d, want 3", got)
		}
		if n, err := events.NewRelay(db, bus, events.RelayOptions{}).Flush(t.Context()); err != nil || n != 3 {
			t.Fatalf("next round = %d, %v; want 3, nil", n, err)
		}
		if got := unpublished(t, db); got != 0 {
			t.Fatalf("unpublished rows after the next round = %d, want 0", got)
		}
	})
}

func TestRedeliveredEventIsAppliedOnce(t *testing.T) {
	t.Parallel()
	eachStoreAndBus(t, func(t *testing.T, db *sqlstore.DB, bus events.Bus) {
		var calls atomic.Int64
		subscribe(t, bus, "table.seat_opened", "seating", countSeats(db, &calls))
		openTable(t, db, "t-dup")
		// The relay publishes, crashes before marking the row, and the next
		// relay publishes the same event again.
		if _, err := events.NewRelay(db, crashAfterPublish{bus}, events.RelayOptions{}).Flush(t.Context()); err == nil {
			t.Fatal("crashing relay reported success")
		}
		if n, err := events.NewRelay(db, bus, events.RelayOptions{}).Flush(t.Context()); err != nil || n != 1 {
			t.Fatalf("second relay = %d, %v; want 1, nil", n, err)
		}
		eventually(t, "both deliveries", func() bool { return calls.Load() == 2 })
		if got := opened(t, db, "t-dup"); got != 1 {
			t.Fatalf("seats opened = %d after a redelivery, want 1", got)
		}
	})
}

// TestIdempotentConcurrentDuplicates delivers one event to several
// handlers at once, as two relays racing would.
func TestIdempotentConcurrentDuplicates(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, opts, func(t *testing.T, db *sqlstore.DB) {
		var calls atomic.Int64
		h := countSeats(db, &calls)
		ev := events.Event{ID: "e-1", Topic: "table.seat_opened", Key: "t-conc"}
		var wg sync.WaitGroup
		for range 5 {
			wg.Go(func() {
				if err := h(t.Context(), ev); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if got := opened(t, db, "t-conc"); got != 1 {
			t.Fatalf("opened = %d, want 1", got)
		}
		// Another consumer keeps its own record.
		other := events.Idempotent(db, "other", func(ctx context.Context, tx *sqlstore.Tx, ev events.Event) error {
			_, err := tx.ExecContext(ctx, `UPDATE seat_counts SET opened = opened + 10 WHERE table_id = $1`, ev.Key)
			return err
		})
		if err := other(t.Context(), ev); err != nil {
			t.Fatal(err)
		}
		if got := opened(t, db, "t-conc"); got != 11 {
			t.Fatalf("opened = %d, want 11", got)
		}
		// A failed apply is not recorded, so the retry applies it.
		failing := events.Idempotent(db, "flaky", func(context.Context, *sqlstore.Tx, events.Event) error { return errors.New("no") })
		if err := failing(t.Context(), ev); err == nil {
			t.Fatal("failing apply reported success")
		}
		var n int
		if err := db.SQL().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM processed_events WHERE consumer = 'flaky'`).Scan(&n); err != nil || n != 0 {
			t.Fatalf("flaky records = %d, %v; want 0", n, err)
		}
	})
}

// TestRedisStreamsRedeliversUnackedToAnotherConsumer: member a receives
// an event and dies before acknowledging it; member b of the same group
// claims it once it has been idle for MinIdle.
func TestRedisStreamsRedeliversUnackedToAnotherConsumer(t *testing.T) {
	t.Parallel()
	client, prefix := testkit.Redis(t)
	newMember := func(name string) *events.RedisStreams {
		return events.NewRedisStreams(client, events.RedisStreamsOptions{Prefix: prefix, Consumer: name, Block: 50 * time.Millisecond, MinIdle: 100 * time.Millisecond})
	}
	a, b := newMember("a"), newMember("b")
	ev := events.Event{ID: "e-unacked", Topic: "wallet.cashed_out", Key: "acct-1", Payload: []byte("x"), Epoch: 3}
	if err := a.Publish(t.Context(), ev); err != nil {
		t.Fatal(err)
	}

	aCtx, crash := context.WithCancel(t.Context())
	var aGot string
	err := a.Subscribe(aCtx, ev.Topic, "g", func(_ context.Context, e events.Event) error {
		aGot = e.ID
		crash()
		return errors.New("crashed before ack")
	})
	if err != nil || aGot != ev.ID {
		t.Fatalf("member a: err %v, got %q", err, aGot)
	}
	pending, err := client.XPending(t.Context(), a.Stream(ev.Topic), "g").Result()
	if err != nil || pending.Count != 1 || pending.Consumers["a"] != 1 {
		t.Fatalf("pending after a crashed = %+v, %v; want 1 held by a", pending, err)
	}

	got := make(chan events.Event, 1)
	subscribe(t, b, ev.Topic, "g", func(_ context.Context, e events.Event) error {
		got <- e
		return nil
	})
	select {
	case e := <-got:
		if e.ID != ev.ID || e.Key != ev.Key || e.Epoch != 3 || string(e.Payload) != "x" {
			t.Fatalf("b got %+v", e)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("b never received the unacknowledged event")
	}
	eventually(t, "ack by b", func() bool {
		p, err := client.XPending(t.Context(), a.Stream(ev.Topic), "g").Result()
		return err == nil && p.Count == 0
	})
}

func TestMemoryBusGroupsAndRetry(t *testing.T) {
	t.Parallel()
	bus := events.NewMemory(events.MemoryOptions{RetryDelay: 5 * time.Millisecond})
	// Published before any group exists: still delivered (backlog).
	if err := bus.Publish(t.Context(), events.Event{ID: "e1", Topic: "x"}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string][]string{}
	record := func(group string) events.Handler {
		return func(_ context.Context, e events.Event) error {
			mu.Lock()
			defer mu.Unlock()
			seen[group] = append(seen[group], e.ID)
			return nil
		}
	}
	var failures atomic.Int64
	flaky := func(_ context.Context, e events.Event) error {
		if failures.Add(1) <= 2 {
			return errors.New("not yet")
		}
		return record("flaky")(context.Background(), e)
	}
	subscribe(t, bus, "x", "g1", record("g1"))
	subscribe(t, bus, "x", "g2", record("g2"))
	subscribe(t, bus, "x", "flaky", flaky)
	// The queued e1 is retried inside the bus until flaky takes it.
	eventually(t, "every group to see e1", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(seen["g1"]) == 1 && len(seen["g2"]) == 1 && len(seen["flaky"]) == 1
	})
	// Now every group has a member: Publish returns once all handled e2.
	if err := bus.Publish(t.Context(), events.Event{ID: "e2", Topic: "x"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, g := range []string{"g1", "g2", "flaky"} {
		if got := seen[g]; len(got) != 2 || got[0] != "e1" || got[1] != "e2" {
			t.Fatalf("group %s saw %v, want [e1 e2]", g, got)
		}
	}
}

// TestMemoryBusConsumerCrashIsRedelivered: in the embedded mode nothing in
// memory survives, so an event whose handler failed (or whose process died
// mid-handling) must stay unpublished in the outbox and go out again.
func TestMemoryBusConsumerCrashIsRedelivered(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, opts)
	bus := events.NewMemory(events.MemoryOptions{})
	var calls atomic.Int64
	var crashed atomic.Bool
	count := countSeats(db, &calls)
	subscribe(t, bus, "table.seat_opened", "seating", func(ctx context.Context, e events.Event) error {
		if e.Key == "t-crash-consumer" && crashed.CompareAndSwap(false, true) {
			return errors.New("consumer died mid-handling")
		}
		return count(ctx, e)
	})
	// Make sure the member has joined before the event is relayed.
	warm := events.Event{ID: "warm", Topic: "table.seat_opened", Key: "t-warm"}
	if err := bus.Publish(t.Context(), warm); err != nil {
		t.Fatal(err)
	}
	eventually(t, "warm-up", func() bool { return opened(t, db, "t-warm") == 1 })

	openTable(t, db, "t-crash-consumer")
	relay := events.NewRelay(db, bus, events.RelayOptions{})
	if _, err := relay.Flush(t.Context()); err == nil {
		t.Fatal("relay reported success although the consumer failed")
	}
	if got := unpublished(t, db); got != 1 {
		t.Fatalf("unpublished = %d after the consumer failed, want 1", got)
	}
	if n, err := relay.Flush(t.Context()); err != nil || n != 1 {
		t.Fatalf("second flush = %d, %v", n, err)
	}
	if got := opened(t, db, "t-crash-consumer"); got != 1 {
		t.Fatalf("opened = %d, want 1", got)
	}
}

// TestTraceContinuesThroughOutbox: the request's trace covers the relay's
// publish span and the consumer's span.
func TestTraceContinuesThroughOutbox(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, opts, func(t *testing.T, db *sqlstore.DB) {
		client, prefix := testkit.Redis(t)
		for name, newBus := range map[string]func(trace.TracerProvider) events.Bus{
			"memory": func(tp trace.TracerProvider) events.Bus {
				return events.NewMemory(events.MemoryOptions{TracerProvider: tp})
			},
			"redis": func(tp trace.TracerProvider) events.Bus {
				return events.NewRedisStreams(client, events.RedisStreamsOptions{Prefix: prefix, Block: 50 * time.Millisecond, TracerProvider: tp})
			},
		} {
			t.Run(name, func(t *testing.T) {
				rec := tracetest.NewSpanRecorder()
				tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
				testTrace(t, db, newBus(tp), tp, rec)
			})
		}
	})
}

func testTrace(t *testing.T, db *sqlstore.DB, bus events.Bus, tp trace.TracerProvider, rec *tracetest.SpanRecorder) {
	consumed := make(chan trace.SpanContext, 1)
	subscribe(t, bus, "table.hand_ended", "tournament", func(ctx context.Context, _ events.Event) error {
		consumed <- trace.SpanContextFromContext(ctx)
		return nil
	})
	ctx, request := tp.Tracer("test").Start(t.Context(), "request")
	err := db.Tx(ctx, func(tx *sqlstore.Tx) error {
		return events.Add(ctx, tx, events.Event{Topic: "table.hand_ended", Key: "t1"})
	})
	request.End()
	if err != nil {
		t.Fatal(err)
	}
	relay := events.NewRelay(db, bus, events.RelayOptions{TracerProvider: tp})
	if n, err := relay.Flush(context.Background()); err != nil || n != 1 {
		t.Fatalf("flush = %d, %v", n, err)
	}
	var sc trace.SpanContext
	select {
	case sc = <-consumed:
	case <-time.After(10 * time.Second):
		t.Fatal("not consumed")
	}
	if sc.TraceID() != request.SpanContext().TraceID() {
		t.Fatalf("consumer trace %s, request trace %s", sc.TraceID(), request.SpanContext().TraceID())
	}
	var publish sdktrace.ReadOnlySpan
	eventually(t, "spans", func() bool {
		for _, s := range rec.Ended() {
			if s.Name() == "publish table.hand_ended" {
				publish = s
			}
		}
		return publish != nil
	})
	if publish.Parent().SpanID() != request.SpanContext().SpanID() {
		t.Fatalf("publish span's parent %s, want the request span %s", publish.Parent().SpanID(), request.SpanContext().SpanID())
	}
	// The consumer's span is a child of the publish span.
	eventually(t, "consume span", func() bool {
		for _, s := range rec.Ended() {
			if s.Name() == "consume table.hand_ended" && s.SpanContext().SpanID() == sc.SpanID() {
				return s.Parent().SpanID() == publish.SpanContext().SpanID()
			}
		}
		return false
	})
}

// TestRelayRunPublishesOnCommit: Relay.Add wakes a running relay at
// commit, and Run returns nil with the outbox empty when stopped.
func TestRelayRunPublishesOnCommit(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, opts)
	bus := events.NewMemory(events.MemoryOptions{})
	// A long poll interval: only the commit wake-up can explain a prompt
	// delivery.
	relay := events.NewRelay(db, bus, events.RelayOptions{Interval: time.Hour})
	got := make(chan string, 2)
	subscribe(t, bus, "x", "g", func(_ context.Context, e events.Event) error {
		got <- e.ID
		return nil
	})
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- relay.Run(ctx) }()
	add := func(id string) {
		err := db.Tx(t.Context(), func(tx *sqlstore.Tx) error {
			return relay.Add(t.Context(), tx, events.Event{ID: id, Topic: "x"})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	add("woken")
	select {
	case id := <-got:
		if id != "woken" {
			t.Fatalf("got %q", id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("commit did not wake the relay")
	}
	stop()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v", err)
	}
	if n := unpublished(t, db); n != 0 {
		t.Fatalf("unpublished after stop = %d", n)
	}
}

// TestPruneKeepsRecentlyPublishedRows: Prune deletes the rows published
// longer ago than the retention, by the relay's clock, and keeps the rest
// (unpublished ones included).
func TestPruneKeepsRecentlyPublishedRows(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, opts, func(t *testing.T, db *sqlstore.DB) {
		clk := clock.NewFake(time.Date(2026, 11, 30, 20, 0, 0, 0, time.UTC))
		relay := events.NewRelay(db, events.NewMemory(events.MemoryOptions{}), events.RelayOptions{Retention: time.Hour, Clock: clk})
		openTable(t, db, "old")
		if n, err := relay.Flush(t.Context()); err != nil || n != 1 {
			t.Fatalf("flush = %d, %v", n, err)
		}
		clk.Advance(time.Hour + time.Minute)
		openTable(t, db, "recent")
		if n, err := relay.Flush(t.Context()); err != nil || n != 1 {
			t.Fatalf("flush = %d, %v", n, err)
		}
		openTable(t, db, "unpublished")
		if err := relay.Prune(t.Context()); err != nil {
			t.Fatal(err)
		}
		var keys []string
		rows, err := db.SQL().QueryContext(t.Context(), `SELECT event_key FROM outbox ORDER BY seq`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				t.Fatal(err)
			}
			keys = append(keys, k)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(keys, []string{"recent", "unpublished"}) {
			t.Fatalf("outbox after prune holds %v, want [recent unpublished]", keys)
		}
	})
}
