package lock

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/extra/redisotel/v9"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/metric"

	"github.com/cardroom/cardroom/platform/clock"
)

// NewRedisClient opens a client for a redis:// or rediss:// URL with
// OpenTelemetry tracing, so each command is a span under the caller's span.
// It records metrics too (command durations, the connection pool).
// Spans name the command but do not record it with its arguments (event
// payloads, which can hold cards, travel as XADD arguments); tracing
// options are applied after that default.
func NewRedisClient(url string, tracing ...redisotel.TracingOption) (*redis.Client, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("parse Redis URL: %w", err)
	}
	client := redis.NewClient(opts)
	tracing = append([]redisotel.TracingOption{redisotel.WithDBStatement(false)}, tracing...)
	if err := redisotel.InstrumentTracing(client, tracing...); err != nil {
		client.Close()
		return nil, fmt.Errorf("trace Redis client: %w", err)
	}
	// Command durations and the connection pool, for the platform dashboard.
	if err := redisotel.InstrumentMetrics(client); err != nil {
		client.Close()
		return nil, fmt.Errorf("measure Redis client: %w", err)
	}
	return client, nil
}

// Compare-and-delete and compare-and-pexpire: only the token's owner may
// release or extend, so a holder whose key expired and was taken by another
// can neither free nor prolong the new owner's lock.
var (
	releaseScript = redis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`)
	renewScript   = redis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`)
)

// RedisOptions tunes a Redis locker. Zero values take the defaults.
type RedisOptions struct {
	// Prefix is prepended to every key, for example "cardroom:table:lock:".
	Prefix string
	// TTL is the lease time in Redis; default 10 s. The lease is renewed
	// every TTL/3.
	TTL time.Duration
	// Margin is how long before the local lease deadline (the time the
	// last successful SET or renewal was sent, plus TTL) the lease context
	// is cancelled when renewals have not succeeded: time for the holder to
	// stop writing and for clock drift. Default TTL/10.
	Margin time.Duration
	// RetryInterval is the mean wait between attempts while Acquire waits
	// for a held lock; default 50 ms, jittered.
	RetryInterval time.Duration
	// Clock drives renewals and the local deadline; default the real clock.
	Clock clock.Clock
	// Holder names the holder in the lease's value (for example the
	// holder's gRPC address, so that other replicas can forward requests
	// for the entity to it), readable by anyone with (*Redis).Holder while
	// the lease lasts. It must not contain a space. Empty names nobody.
	Holder string
}

// holderSep separates the random token from the holder in a lease's value
// ("<token> <holder>"). Tokens are hex, so the first space is the
// separator. Release and renewal compare the whole value, so the holder
// changes nothing about who may free or extend the lock.
const holderSep = " "

// Redis is a Locker backed by Redis leases.
type Redis struct {
	client  redis.UniversalClient
	opts    RedisOptions
	renewer *renewer
}

var _ Locker = (*Redis)(nil)

// NewRedis returns a locker using client.
func NewRedis(client redis.UniversalClient, opts RedisOptions) *Redis {
	if opts.TTL <= 0 {
		opts.TTL = 10 * time.Second
	}
	if opts.Margin <= 0 {
		opts.Margin = max(opts.TTL/10, time.Millisecond)
	}
	if opts.RetryInterval <= 0 {
		opts.RetryInterval = 50 * time.Millisecond
	}
	opts.Clock = cmp.Or[clock.Clock](opts.Clock, clock.Real{})
	return &Redis{client: client, opts: opts, renewer: &renewer{client: client, opts: opts, leases: map[*redisLease]struct{}{}}}
}

// WithHolder returns a locker on the same Redis keys whose leases name
// holder (see RedisOptions.Holder); r itself is unchanged.
func (r *Redis) WithHolder(holder string) *Redis {
	opts := r.opts
	opts.Holder = holder
	// The same renewer: the leases of every holder name on this client are
	// renewed in one round trip.
	return &Redis{client: r.client, opts: opts, renewer: r.renewer}
}

// Holder reads who holds the lock on key: held is false when nobody does;
// holder is empty when the lease names nobody (a locker without Holder).
// The answer is a snapshot: the lease may end right after.
func (r *Redis) Holder(ctx context.Context, key string) (holder string, held bool, err error) {
	v, err := r.client.Get(ctx, r.opts.Prefix+key).Result()
	if errors.Is(err, redis.Nil) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read lock %s: %w", key, unavailable(ctx, err))
	}
	_, holder, _ = strings.Cut(v, holderSep)
	return holder, true, nil
}

// Acquire waits for the lock on key, polling at RetryInterval.
func (r *Redis) Acquire(ctx context.Context, key string) (Lease, error) {
	for {
		l, err := r.TryAcquire(ctx, key)
		if !errors.Is(err, ErrHeld) {
			return l, err
		}
		wait := r.opts.RetryInterval/2 + rand.N(r.opts.RetryInterval)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("acquire lock %s: %w", key, context.Cause(ctx))
		case <-t.C:
		}
	}
}

// unavailable classifies a Redis client error: the caller's own context
// ending stays what it is; anything else (refused or dropped connection,
// a timeout against a frozen Redis) is ErrUnavailable.
func unavailable(ctx context.Context, err error) error {
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return err
	}
	return ErrUnavailable.Wrap(err)
}

// TryAcquire takes the lock on key with SET NX PX, or returns ErrHeld.
func (r *Redis) TryAcquire(ctx context.Context, key string) (Lease, error) {
	token, err := newToken()
	if err != nil {
		return nil, err
	}
	if r.opts.Holder != "" {
		token += holderSep + r.opts.Holder
	}
	// The local deadline counts from before the request was sent, so it
	// can only be earlier than the expiry Redis computes.
	sent := r.opts.Clock.Now()
	ok, err := r.client.SetNX(ctx, r.opts.Prefix+key, token, r.opts.TTL).Result()
	if err != nil {
		countAcquisition(ctx, key, err)
		return nil, fmt.Errorf("acquire lock %s: %w", key, unavailable(ctx, err))
	}
	if !ok {
		countAcquisition(ctx, key, ErrHeld)
		return nil, ErrHeld.With("key", key)
	}
	countAcquisition(ctx, key, nil)
	leaseCtx, cancel := context.WithCancelCause(ctx)
	l := &redisLease{r: r, key: key, token: token, ctx: leaseCtx, cancel: cancel}
	l.mu.Lock()
	l.extend(sent)
	l.mu.Unlock()
	r.renewer.add(l)
	// If the caller's context ends first, stop renewing; the key expires
	// on its own unless the caller releases it.
	context.AfterFunc(leaseCtx, func() { l.end(context.Cause(leaseCtx)) })
	return l, nil
}

type redisLease struct {
	r      *Redis
	key    string
	token  string
	ctx    context.Context
	cancel context.CancelCauseFunc

	// mu guards ended and deadline.
	mu       sync.Mutex
	ended    bool
	deadline clock.Timer
}

func (l *redisLease) Key() string              { return l.key }
func (l *redisLease) Context() context.Context { return l.ctx }

// extend moves the local deadline to sent+TTL-Margin. Callers hold mu.
func (l *redisLease) extend(sent time.Time) {
	if l.deadline != nil {
		l.deadline.Stop()
	}
	left := sent.Add(l.r.opts.TTL - l.r.opts.Margin).Sub(l.r.opts.Clock.Now())
	l.deadline = l.r.opts.Clock.AfterFunc(max(left, 0), func() {
		l.end(ErrLockLost.Withf("lock %s: renewal did not succeed before the lease deadline", l.key))
	})
}

// renewer renews every live lease of a locker together: one pipelined
// round trip every TTL/3 instead of one script call per lease. A replica
// owning a thousand tables otherwise sends 300 renewals a second, each
// waiting for a pooled connection behind the tables' own commands; on a
// starved machine enough of them came late for leases to be lost
// (LOCK_LOST) although Redis was up. Batching keeps each lease's own
// answer: a key that expired or changed owner ends that lease only.
type renewer struct {
	client redis.UniversalClient
	opts   RedisOptions

	// mu guards leases and timer. It is never held across a Redis call.
	mu     sync.Mutex
	leases map[*redisLease]struct{}
	timer  clock.Timer // the next batch; nil when no lease is held
}

// add puts l into the next batch, arming the batch timer when l is the
// only lease. A lease taken just before a batch is renewed early, never
// late: its deadline is a full TTL after its acquisition.
func (rn *renewer) add(l *redisLease) {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	rn.leases[l] = struct{}{}
	if rn.timer == nil {
		rn.timer = rn.opts.Clock.AfterFunc(rn.opts.TTL/3, rn.renew)
	}
}

// remove takes an ended lease out of the batches.
func (rn *renewer) remove(l *redisLease) {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	delete(rn.leases, l)
}

// renew sends one renewal per live lease in one pipeline, applies each
// answer to its lease, and arms the next batch: after TTL/3, or soon
// (TTL/10) when any renewal failed for want of an answer, so that a brief
// Redis outage costs no lease whose local deadline has not passed.
func (rn *renewer) renew() {
	rn.mu.Lock()
	batch := slices.Collect(maps.Keys(rn.leases))
	rn.mu.Unlock()

	opts := rn.opts
	sent := opts.Clock.Now()
	ctx, cancel := context.WithTimeout(context.Background(), opts.TTL/3)
	cmds, pipeErr := rn.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, l := range batch {
			// EVAL, not EVALSHA: a pipeline cannot fall back on NOSCRIPT,
			// and Redis caches the compiled script by its text anyway.
			renewScript.Eval(ctx, p, []string{opts.Prefix + l.key}, l.token, opts.TTL.Milliseconds())
		}
		return nil
	})
	cancel()

	retry := false
	for i, l := range batch {
		var n int64
		err := pipeErr
		if i < len(cmds) {
			n, err = cmds[i].(*redis.Cmd).Int64()
		}
		if l.applyRenewal(sent, n, err) {
			retry = true
		}
	}

	rn.mu.Lock()
	defer rn.mu.Unlock()
	rn.timer = nil
	if len(rn.leases) == 0 {
		return
	}
	next := opts.TTL / 3
	if retry {
		next = max(opts.TTL/10, time.Millisecond)
	}
	rn.timer = opts.Clock.AfterFunc(next, rn.renew)
}

// applyRenewal records one renewal's answer and reports whether it should
// be retried soon (Redis did not answer it).
func (l *redisLease) applyRenewal(sent time.Time, n int64, err error) (retry bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return false
	}
	switch {
	case err != nil:
		// Redis is unreachable or slow: try again soon; the local deadline
		// ends the lease if no renewal gets through in time.
		return true
	case n == 0:
		// The key expired or belongs to another owner now. Never take it
		// back: the holder must find out and re-acquire with a new epoch.
		l.endLocked(ErrLockLost.Withf("lock %s: taken over or expired", l.key))
	default:
		l.extend(sent)
	}
	return false
}

func (l *redisLease) end(cause error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.endLocked(cause)
}

// endLocked stops the timers and cancels the context (a no-op when it has
// already ended). Callers hold mu.
func (l *redisLease) endLocked(cause error) {
	if l.ended {
		return
	}
	l.ended = true
	l.r.renewer.remove(l)
	l.deadline.Stop()
	l.cancel(cause)
	if errors.Is(cause, ErrLockLost) {
		lost.Add(context.WithoutCancel(l.ctx), 1, metric.WithAttributes(entityOf(l.key)))
	}
}

// Release cancels the lease context and deletes the key if it still holds
// this lease's token.
func (l *redisLease) Release(ctx context.Context) error {
	l.end(ErrReleased)
	if err := releaseScript.Run(ctx, l.r.client, []string{l.r.opts.Prefix + l.key}, l.token).Err(); err != nil {
		return fmt.Errorf("release lock %s: %w", l.key, err)
	}
	return nil
}
