package lock_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/lock"
)

// These tests move Redis time (miniredis.FastForward) and the locker's time
// (clock.Fake) together, so renewals and expiry are deterministic.

const ttl = 3 * time.Second

func fakeRedis(t *testing.T) (*miniredis.Miniredis, *clock.Fake, *lock.Redis) {
	t.Helper()
	mr := miniredis.RunT(t)
	// No client-side retries, of commands or dials: a refused connection
	// should fail the renewal at once rather than back off in real time.
	client := redis.NewClient(&redis.Options{Addr: mr.Addr(), MaxRetries: -1, DialerRetries: 1, DialTimeout: 100 * time.Millisecond})
	t.Cleanup(func() { client.Close() })
	fake := clock.NewFake(time.Date(2026, 1, 1, 20, 0, 0, 0, time.UTC))
	return mr, fake, lock.NewRedis(client, lock.RedisOptions{Prefix: "p:", TTL: ttl, Clock: fake})
}

// advance moves both clocks forward in steps.
func advance(mr *miniredis.Miniredis, fake *clock.Fake, total, step time.Duration) {
	for d := time.Duration(0); d < total; d += step {
		mr.FastForward(step)
		fake.Advance(step)
	}
}

// TestRenewalKeepsLeasePastTTL also names the holder: renewal compares
// the whole value, holder included, and keeps the holder readable.
func TestRenewalKeepsLeasePastTTL(t *testing.T) {
	t.Parallel()
	mr, fake, anon := fakeRedis(t)
	locker := anon.WithHolder("10.0.0.7:9090")
	l, err := locker.Acquire(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	advance(mr, fake, 4*ttl, 500*time.Millisecond)
	if err := l.Context().Err(); err != nil {
		t.Fatalf("lease ended after %v with renewals: %v", 4*ttl, context.Cause(l.Context()))
	}
	if h, held, err := anon.Holder(t.Context(), "k"); err != nil || !held || h != "10.0.0.7:9090" {
		t.Fatalf("holder after renewals: %q %v %v", h, held, err)
	}
	if !mr.Exists("p:k") || mr.TTL("p:k") <= 0 {
		t.Fatalf("key exists=%v ttl=%v, want a live key", mr.Exists("p:k"), mr.TTL("p:k"))
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if mr.Exists("p:k") {
		t.Fatal("release left the key")
	}
	// After release no renewal brings the key back.
	advance(mr, fake, ttl, 500*time.Millisecond)
	if mr.Exists("p:k") {
		t.Fatal("a renewal recreated the key after release")
	}
}

// TestFailedRenewalCancelsBeforeDeadline: Redis becomes unreachable; the
// holder's context must end before the lease could have expired in Redis
// (acquisition time + TTL), not after.
func TestFailedRenewalCancelsBeforeDeadline(t *testing.T) {
	t.Parallel()
	mr, fake, locker := fakeRedis(t)
	start := fake.Now()
	l, err := locker.Acquire(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	var endedAt time.Time
	mr.Close()
	step := 100 * time.Millisecond
	for at := time.Duration(0); at < ttl; at += step {
		fake.Advance(step)
		if l.Context().Err() != nil {
			endedAt = fake.Now()
			break
		}
	}
	if endedAt.IsZero() {
		t.Fatal("lease still alive at its Redis expiry with Redis unreachable")
	}
	if !endedAt.Before(start.Add(ttl)) {
		t.Fatalf("lease ended at +%v, not before the +%v deadline", endedAt.Sub(start), ttl)
	}
	if cause := context.Cause(l.Context()); !errors.Is(cause, lock.ErrLockLost) {
		t.Fatalf("cause = %v, want ErrLockLost", cause)
	}
}

// TestExpiredLeaseIsLostNotReacquired: the key expires in Redis while the
// holder's clock is behind (a pause); at the next renewal the holder must
// see the loss and end, never set the key again.
func TestExpiredLeaseIsLostNotReacquired(t *testing.T) {
	t.Parallel()
	mr, fake, locker := fakeRedis(t)
	l, err := locker.Acquire(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	mr.FastForward(ttl + time.Millisecond)
	if mr.Exists("p:k") {
		t.Fatal("key did not expire")
	}
	fake.Advance(ttl / 3)
	if cause := context.Cause(l.Context()); !errors.Is(cause, lock.ErrLockLost) {
		t.Fatalf("cause = %v, want ErrLockLost", cause)
	}
	if mr.Exists("p:k") {
		t.Fatal("the lost holder re-created its key")
	}
}

func TestReleaseByNonOwnerIsNoop(t *testing.T) {
	t.Parallel()
	mr, fake, locker := fakeRedis(t)
	a, err := locker.Acquire(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	// A's lease expires in Redis (A is paused: its clock does not move).
	mr.FastForward(ttl + time.Millisecond)
	b, err := locker.TryAcquire(t.Context(), "k")
	if err != nil {
		t.Fatalf("B after A's expiry: %v", err)
	}
	bToken, _ := mr.Get("p:k")
	if err := a.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, _ := mr.Get("p:k"); got != bToken || got == "" {
		t.Fatalf("after A's release the key holds %q, want B's %q", got, bToken)
	}
	// B is unaffected: renewals keep it alive.
	advance(mr, fake, 2*ttl, 500*time.Millisecond)
	if b.Context().Err() != nil {
		t.Fatalf("B's lease ended: %v", context.Cause(b.Context()))
	}
	b.Release(t.Context())
	if mr.Exists("p:k") {
		t.Fatal("B's release left the key")
	}
}

// roundTrips counts the scripts (renewals) a client sends: alone, and in
// pipelines. Other commands (a new connection's handshake) do not count.
type roundTrips struct {
	mu                 sync.Mutex
	commands, pipeline int
	piped              int // commands sent inside pipelines
}

func (r *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (r *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if isScript(cmd) {
			r.mu.Lock()
			r.commands++
			r.mu.Unlock()
		}
		return next(ctx, cmd)
	}
}

func (r *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		scripts := 0
		for _, c := range cmds {
			if isScript(c) {
				scripts++
			}
		}
		if scripts > 0 {
			r.mu.Lock()
			r.pipeline++
			r.piped += scripts
			r.mu.Unlock()
		}
		return next(ctx, cmds)
	}
}

func isScript(cmd redis.Cmder) bool {
	name := cmd.Name()
	return name == "eval" || name == "evalsha"
}

func (r *roundTrips) reset() (commands, pipelines, piped int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	commands, pipelines, piped = r.commands, r.pipeline, r.piped
	r.commands, r.pipeline, r.piped = 0, 0, 0
	return commands, pipelines, piped
}

// TestRenewalsShareOneRoundTrip: a replica holding many leases (a table
// each) renews them all in one pipeline per TTL/3, not one call per lease
// (which starved renewals into LOCK_LOST at 1,000 tables); a lease whose
// key was taken over ends alone, and the others live on.
func TestRenewalsShareOneRoundTrip(t *testing.T) {
	t.Parallel()
	mr := miniredis.RunT(t)
	client := redis.NewClient(&redis.Options{Addr: mr.Addr(), MaxRetries: -1})
	t.Cleanup(func() { client.Close() })
	trips := &roundTrips{}
	client.AddHook(trips)
	fake := clock.NewFake(time.Date(2026, 1, 1, 20, 0, 0, 0, time.UTC))
	locker := lock.NewRedis(client, lock.RedisOptions{Prefix: "p:", TTL: ttl, Clock: fake})
	holder := locker.WithHolder("10.0.0.7:9090")

	const n = 200
	leases := make([]lock.Lease, n)
	for i := range leases {
		l := locker
		if i%2 == 1 {
			l = holder // both holder names share the batch
		}
		var err error
		if leases[i], err = l.TryAcquire(t.Context(), fmt.Sprintf("tables:t%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	trips.reset()
	// Another owner takes table 7's key while its lease still runs.
	mr.Set("p:tables:t7", "someone-else")

	advance(mr, fake, 3*ttl, ttl/3)
	commands, pipelines, piped := trips.reset()
	if commands != 0 || pipelines != 9 || piped != 9*n-8 {
		// 9 batches of n renewals, less table 7's after its first.
		t.Fatalf("3 TTLs of renewals for %d leases: %d single commands, %d pipelines carrying %d commands; want 0, 9, %d",
			n, commands, pipelines, piped, 9*n-8)
	}
	for i, l := range leases {
		cause := context.Cause(l.Context())
		if i == 7 {
			if !errors.Is(cause, lock.ErrLockLost) {
				t.Fatalf("lease 7 (key taken over): cause %v, want ErrLockLost", cause)
			}
			continue
		}
		if cause != nil {
			t.Fatalf("lease %d ended: %v", i, cause)
		}
	}
	if got, _ := mr.Get("p:tables:t7"); got != "someone-else" {
		t.Fatalf("the lost lease touched the new owner's key: %q", got)
	}
}
