package lock_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
)

var migrations = fstest.MapFS{
	"00001_counters.sql": {Data: []byte(`-- +goose Up
CREATE TABLE counters (id TEXT PRIMARY KEY, epoch BIGINT NOT NULL DEFAULT 0, value BIGINT NOT NULL DEFAULT 0);
`)},
}

func counterDB(t *testing.T, ids ...string) *sqlstore.DB {
	t.Helper()
	db := testkit.Postgres(t, sqlstore.Options{Service: "lock", Migrations: migrations})
	for _, id := range ids {
		if _, err := db.SQL().ExecContext(t.Context(), `INSERT INTO counters (id) VALUES ($1)`, id); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func value(t *testing.T, db *sqlstore.DB, id string) int64 {
	t.Helper()
	var v int64
	if err := db.SQL().QueryRowContext(t.Context(), `SELECT value FROM counters WHERE id = $1`, id).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// incrementUnderLock reads the counter in one transaction and writes it
// back in another: only mutual exclusion (or, failing that, the fence)
// keeps two owners from losing an update.
func incrementUnderLock(ctx context.Context, locker lock.Locker, db *sqlstore.DB, id string) error {
	owner, err := lock.Claim(ctx, locker, db, "counters", id)
	if err != nil {
		return err
	}
	defer owner.Release(context.WithoutCancel(ctx))
	var v int64
	if err := db.SQL().QueryRowContext(ctx, `SELECT value FROM counters WHERE id = $1`, id).Scan(&v); err != nil {
		return err
	}
	return owner.Update(ctx, func(tx *sqlstore.Tx, f sqlstore.Fence) error {
		return f.Update(ctx, tx, "value = $1", v+1)
	})
}

func TestMutualExclusionUnderContention(t *testing.T) {
	t.Parallel()
	client, prefix := testkit.Redis(t)
	lockers := map[string]lock.Locker{
		"redis": lock.NewRedis(client, lock.RedisOptions{Prefix: prefix, TTL: 5 * time.Second, RetryInterval: 2 * time.Millisecond}),
		"local": lock.NewLocal(),
	}
	for name, locker := range lockers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			const workers, each = 8, 5
			db := counterDB(t, "c")
			var wg sync.WaitGroup
			errs := make(chan error, workers*each)
			for range workers {
				wg.Go(func() {
					for range each {
						errs <- incrementUnderLock(t.Context(), locker, db, "c")
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatalf("increment: %v", err)
				}
			}
			if got := value(t, db, "c"); got != workers*each {
				t.Fatalf("counter = %d, want %d", got, workers*each)
			}
		})
	}
}

// TestPausedHolderIsFencedOut: holder A stops the world (its clock, and so
// its renewals and local deadline, stand still, as in a long GC pause or a
// SIGSTOP) while its lease expires in Redis. B takes over; A's late write
// must touch nothing.
func TestPausedHolderIsFencedOut(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	client, prefix := testkit.Redis(t)
	db := counterDB(t, "paused")
	const ttl = 150 * time.Millisecond
	paused := lock.NewRedis(client, lock.RedisOptions{Prefix: prefix, TTL: ttl, Clock: clock.NewFake(time.Now())})
	live := lock.NewRedis(client, lock.RedisOptions{Prefix: prefix, TTL: time.Second, RetryInterval: 5 * time.Millisecond})

	a, err := lock.Claim(ctx, paused, db, "counters", "paused")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Update(ctx, func(tx *sqlstore.Tx, f sqlstore.Fence) error { return f.Update(ctx, tx, "value = 1") }); err != nil {
		t.Fatalf("A's write while it holds the lease: %v", err)
	}
	// B waits for A's key to expire in Redis, then claims epoch 2.
	b, err := lock.Claim(ctx, live, db, "counters", "paused")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release(ctx)
	if b.Fence.Epoch != a.Fence.Epoch+1 {
		t.Fatalf("B's epoch %d, A's %d", b.Fence.Epoch, a.Fence.Epoch)
	}
	if err := b.Update(ctx, func(tx *sqlstore.Tx, f sqlstore.Fence) error { return f.Update(ctx, tx, "value = 2") }); err != nil {
		t.Fatalf("B's write: %v", err)
	}
	// A wakes up still believing it owns the counter: its lease context
	// was never cancelled (its clock stood still), so only the fence stops it.
	if a.Lease.Context().Err() != nil {
		t.Fatal("the paused holder noticed the loss; the test would not exercise the fence")
	}
	err = a.Update(ctx, func(tx *sqlstore.Tx, f sqlstore.Fence) error { return f.Update(ctx, tx, "value = 99") })
	if !errors.Is(err, sqlstore.ErrFencedOut) {
		t.Fatalf("A's late write: %v, want ErrFencedOut", err)
	}
	if got := value(t, db, "paused"); got != 2 {
		t.Fatalf("value = %d, want B's 2", got)
	}
}

// TestRedisLosingKeysNeverLetsTwoOwnersWrite loses the lock's key while A
// holds it — by FLUSHALL and by a restart of a Redis without persistence —
// and checks that once B has claimed the entity, A's writes all fail, and
// that A's lease ends with ErrLockLost instead of quietly re-acquiring.
func TestRedisLosingKeysNeverLetsTwoOwnersWrite(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		lose func(t *testing.T, srv *testkit.RedisServer)
	}{
		{"FLUSHALL", func(t *testing.T, srv *testkit.RedisServer) {
			if err := srv.Client(t).FlushAll(t.Context()).Err(); err != nil {
				t.Fatal(err)
			}
		}},
		{"restart", func(t *testing.T, srv *testkit.RedisServer) { srv.Restart() }},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			srv := testkit.StartRedisServer(t)
			db := counterDB(t, "lost")
			opts := lock.RedisOptions{Prefix: "lock:", TTL: 600 * time.Millisecond, RetryInterval: 5 * time.Millisecond}
			lockerA := lock.NewRedis(srv.Client(t), opts)
			lockerB := lock.NewRedis(srv.Client(t), opts)
			write := func(o *lock.Owner, v int64) error {
				return o.Update(ctx, func(tx *sqlstore.Tx, f sqlstore.Fence) error { return f.Update(ctx, tx, "value = $1", v) })
			}

			a, err := lock.Claim(ctx, lockerA, db, "counters", "lost")
			if err != nil {
				t.Fatal(err)
			}
			if err := write(a, 1); err != nil {
				t.Fatalf("A's first write: %v", err)
			}
			tt.lose(t, srv)

			b, err := lock.Claim(ctx, lockerB, db, "counters", "lost")
			if err != nil {
				t.Fatalf("B after the keys were lost: %v", err)
			}
			defer b.Release(ctx)
			if err := write(b, 2); err != nil {
				t.Fatalf("B's write: %v", err)
			}
			// Whatever A's lease thinks, its write is refused: by the fence if
			// its lease still looks alive, by ErrLockLost if it noticed.
			err = write(a, 99)
			if !errors.Is(err, sqlstore.ErrFencedOut) && !errors.Is(err, lock.ErrLockLost) {
				t.Fatalf("A's write after B claimed: %v, want ErrFencedOut or ErrLockLost", err)
			}
			// A's renewal finds B's token and ends A's lease for good.
			select {
			case <-a.Lease.Context().Done():
			case <-time.After(5 * time.Second):
				t.Fatal("A's lease was not ended after its key was lost")
			}
			if cause := context.Cause(a.Lease.Context()); !errors.Is(cause, lock.ErrLockLost) {
				t.Fatalf("A's lease cause = %v, want ErrLockLost", cause)
			}
			if err := write(a, 98); !errors.Is(err, lock.ErrLockLost) {
				t.Fatalf("A's write after losing: %v, want ErrLockLost", err)
			}
			// A's release must not free B's lock.
			if err := a.Release(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := lockerA.TryAcquire(ctx, "counters:lost"); !errors.Is(err, lock.ErrHeld) {
				t.Fatalf("TryAcquire after A's release: %v, want ErrHeld (B still holds it)", err)
			}
			if got := value(t, db, "lost"); got != 2 {
				t.Fatalf("value = %d, want B's 2", got)
			}
		})
	}
}

func TestRedisTryAcquireAndRelease(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	client, prefix := testkit.Redis(t)
	locker := lock.NewRedis(client, lock.RedisOptions{Prefix: prefix, TTL: 5 * time.Second})
	a, err := locker.TryAcquire(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	if got := client.Exists(ctx, prefix+"k").Val(); got != 1 {
		t.Fatalf("key %sk exists = %d, want 1 (prefix applied)", prefix, got)
	}
	if _, err := locker.TryAcquire(ctx, "k"); !errors.Is(err, lock.ErrHeld) {
		t.Fatalf("second TryAcquire: %v, want ErrHeld", err)
	}
	if err := a.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if cause := context.Cause(a.Context()); !errors.Is(cause, lock.ErrReleased) {
		t.Fatalf("cause after release = %v", cause)
	}
	if err := a.Release(ctx); err != nil {
		t.Fatalf("second release: %v", err)
	}
	b, err := locker.TryAcquire(ctx, "k")
	if err != nil {
		t.Fatalf("TryAcquire after release: %v", err)
	}
	b.Release(ctx)
}

// TestRedisHolderIsReadableWhileHeld: a lease taken by a locker that names
// its holder tells others who holds the key, for as long as it is held;
// the holder changes neither who may release nor who may take the key.
func TestRedisHolderIsReadableWhileHeld(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	client, prefix := testkit.Redis(t)
	anon := lock.NewRedis(client, lock.RedisOptions{Prefix: prefix, TTL: 5 * time.Second})
	named := anon.WithHolder("10.0.0.7:9090")
	for _, tc := range []struct {
		name   string
		locker *lock.Redis
		want   string
	}{{"named", named, "10.0.0.7:9090"}, {"anonymous", anon, ""}} {
		if h, held, err := anon.Holder(ctx, tc.name); err != nil || held || h != "" {
			t.Fatalf("%s before acquiring: holder %q held %v err %v", tc.name, h, held, err)
		}
		l, err := tc.locker.TryAcquire(ctx, tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if h, held, err := named.Holder(ctx, tc.name); err != nil || !held || h != tc.want {
			t.Fatalf("%s while held: holder %q held %v err %v, want %q", tc.name, h, held, err, tc.want)
		}
		if _, err := anon.TryAcquire(ctx, tc.name); !errors.Is(err, lock.ErrHeld) {
			t.Fatalf("%s taken twice: %v", tc.name, err)
		}
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if h, held, err := anon.Holder(ctx, tc.name); err != nil || held || h != "" {
			t.Fatalf("%s after release: holder %q held %v err %v (release must free a named lease)", tc.name, h, held, err)
		}
	}
}

func TestAcquireGivesUpWhenContextEnds(t *testing.T) {
	t.Parallel()
	client, prefix := testkit.Redis(t)
	lockers := map[string]lock.Locker{
		"redis": lock.NewRedis(client, lock.RedisOptions{Prefix: prefix, RetryInterval: time.Millisecond}),
		"local": lock.NewLocal(),
	}
	for name, locker := range lockers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			held, err := locker.Acquire(t.Context(), "busy")
			if err != nil {
				t.Fatal(err)
			}
			defer held.Release(t.Context())
			ctx, cancel := context.WithCancel(t.Context())
			time.AfterFunc(20*time.Millisecond, cancel)
			if _, err := locker.Acquire(ctx, "busy"); !errors.Is(err, context.Canceled) {
				t.Fatalf("Acquire on a held key with a cancelled context: %v", err)
			}
		})
	}
}

func TestLocalReleaseWakesWaiter(t *testing.T) {
	t.Parallel()
	locker := lock.NewLocal()
	a, err := locker.Acquire(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := locker.TryAcquire(t.Context(), "k"); !errors.Is(err, lock.ErrHeld) {
		t.Fatalf("TryAcquire on a held key: %v", err)
	}
	got := make(chan lock.Lease)
	go func() {
		b, err := locker.Acquire(t.Context(), "k")
		if err != nil {
			t.Error(err)
		}
		got <- b
	}()
	a.Release(t.Context())
	b := <-got
	if a.Context().Err() == nil || b.Context().Err() != nil {
		t.Fatalf("after handover: a.Err=%v b.Err=%v", a.Context().Err(), b.Context().Err())
	}
	// A stale release from a must not free b's lock.
	a.Release(t.Context())
	if _, err := locker.TryAcquire(t.Context(), "k"); !errors.Is(err, lock.ErrHeld) {
		t.Fatalf("TryAcquire after a's stale release: %v, want ErrHeld", err)
	}
	b.Release(t.Context())
	c, err := locker.TryAcquire(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	c.Release(t.Context())
}

func TestLocalLeaseEndsWithOwnerContext(t *testing.T) {
	t.Parallel()
	locker := lock.NewLocal()
	ctx, cancel := context.WithCancel(t.Context())
	a, err := locker.Acquire(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	<-a.Context().Done()
	b, err := locker.Acquire(t.Context(), "k")
	if err != nil {
		t.Fatalf("Acquire after the owner's context ended: %v", err)
	}
	b.Release(t.Context())
}

// TestRedisUnreachableIsUnavailable: a lock that cannot be taken because
// Redis does not answer is UNAVAILABLE (503, retry), not an internal error
// whose text ("acquire lock … EOF") names the connection.
func TestRedisUnreachableIsUnavailable(t *testing.T) {
	t.Parallel()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	_ = lis.Close()
	client := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: time.Second})
	t.Cleanup(func() { _ = client.Close() })
	locker := lock.NewRedis(client, lock.RedisOptions{Prefix: "p:", TTL: time.Second})
	for name, call := range map[string]func() error{
		"TryAcquire": func() error { _, err := locker.TryAcquire(t.Context(), "k"); return err },
		"Acquire":    func() error { _, err := locker.Acquire(t.Context(), "k"); return err },
		"Holder":     func() error { _, _, err := locker.Holder(t.Context(), "k"); return err },
	} {
		err := call()
		f, ok := fault.As(err)
		if !ok || f.Kind != fault.Unavailable || f.Reason != "UNAVAILABLE" || !errors.Is(err, lock.ErrUnavailable) {
			t.Errorf("%s with Redis down = %v, want the UNAVAILABLE fault", name, err)
		}
		if f != nil && strings.Contains(f.Message, addr) {
			t.Errorf("%s: the message names the address: %q", name, f.Message)
		}
	}
}
