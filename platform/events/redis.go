package events

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/trace"
)

// RedisStreamsOptions tunes a RedisStreams bus. Zero values take the
// defaults.
type RedisStreamsOptions struct {
	// Prefix is prepended to the topic to name its stream, for example
	// "cardroom:events:".
	Prefix string
	// Consumer names this member within its groups; default
	// "<hostname>-<random>". A member restarted under the same name takes
	// up its own unacknowledged events first.
	Consumer string
	// MaxLen trims each stream to about this many entries; default 100000.
	MaxLen int64
	// Block is how long one XREADGROUP waits for new entries, and so
	// roughly how long Subscribe takes to notice its context ended;
	// default 1 s.
	Block time.Duration
	// MinIdle is how long an entry stays unacknowledged (its member died,
	// or its handler failed) before any member claims it with XAUTOCLAIM;
	// default 30 s.
	MinIdle time.Duration
	// Count is how many entries one read fetches; default 16.
	Count int64
	// TracerProvider makes the consumer spans; nil means the global one.
	TracerProvider trace.TracerProvider
	// Logger reports handler and Redis failures; nil means slog.Default().
	Logger *slog.Logger
}

// RedisStreams is a Bus on Redis Streams: one stream per topic, XADD to
// publish, consumer groups (XREADGROUP, XACK) to consume, and XAUTOCLAIM
// to hand entries a member did not acknowledge to another member.
type RedisStreams struct {
	client redis.UniversalClient
	opts   RedisStreamsOptions
}

var _ Bus = (*RedisStreams)(nil)

// NewRedisStreams returns a bus on client.
func NewRedisStreams(client redis.UniversalClient, opts RedisStreamsOptions) *RedisStreams {
	if opts.Consumer == "" {
		host, _ := os.Hostname()
		var b [4]byte
		_, _ = rand.Read(b[:])
		opts.Consumer = host + "-" + hex.EncodeToString(b[:])
	}
	if opts.MaxLen <= 0 {
		opts.MaxLen = 100000
	}
	if opts.Block <= 0 {
		opts.Block = time.Second
	}
	if opts.MinIdle <= 0 {
		opts.MinIdle = 30 * time.Second
	}
	if opts.Count <= 0 {
		opts.Count = 16
	}
	opts.Logger = cmp.Or(opts.Logger, slog.Default())
	return &RedisStreams{client: client, opts: opts}
}

// Stream returns the stream key of topic.
func (b *RedisStreams) Stream(topic string) string { return b.opts.Prefix + topic }

// Publish appends ev to its topic's stream.
func (b *RedisStreams) Publish(ctx context.Context, ev Event) error {
	headers, err := json.Marshal(ev.Headers)
	if err != nil {
		return fmt.Errorf("publish event %s: %w", ev.ID, err)
	}
	err = b.client.XAdd(ctx, &redis.XAddArgs{
		Stream: b.Stream(ev.Topic),
		MaxLen: b.opts.MaxLen,
		Approx: true,
		Values: []any{"id", ev.ID, "key", ev.Key, "epoch", ev.Epoch, "payload", ev.Payload, "headers", headers},
	}).Err()
	if err != nil {
		return fmt.Errorf("publish event %s to %s: %w", ev.ID, b.Stream(ev.Topic), err)
	}
	return nil
}

// Subscribe consumes topic as member Consumer of group until ctx ends. The
// group is created at the start of the stream when missing, so events
// published before the first subscriber are delivered too. Each round it
// first claims entries left unacknowledged for MinIdle (by any member,
// including itself after a failed handler), then reads new ones.
func (b *RedisStreams) Subscribe(ctx context.Context, topic, group string, h Handler) error {
	stream := b.Stream(topic)
	err := b.client.XGroupCreateMkStream(ctx, stream, group, "0").Err()
	if ctx.Err() != nil {
		return nil
	}
	if err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
		return fmt.Errorf("create consumer group %s on %s: %w", group, stream, err)
	}
	// Entries delivered to this member name before a restart come first.
	if err := b.readOwnPending(ctx, stream, topic, group, h); err != nil && ctx.Err() == nil {
		return err
	}
	for ctx.Err() == nil {
		if err := b.claimIdle(ctx, stream, topic, group, h); err != nil && ctx.Err() == nil {
			b.opts.Logger.ErrorContext(ctx, "claim idle events", "stream", stream, "group", group, "error", err)
		}
		streams, err := b.client.XReadGroup(ctx, &redis.XReadGroupArgs{
			Group:    group,
			Consumer: b.opts.Consumer,
			Streams:  []string{stream, ">"},
			Count:    b.opts.Count,
			Block:    b.opts.Block,
		}).Result()
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, redis.Nil):
			continue
		case err != nil:
			b.opts.Logger.ErrorContext(ctx, "read events", "stream", stream, "group", group, "error", err)
			b.pause(ctx)
			continue
		}
		for _, s := range streams {
			b.handle(ctx, stream, topic, group, s.Messages, h)
		}
	}
	return nil
}

func (b *RedisStreams) readOwnPending(ctx context.Context, stream, topic, group string, h Handler) error {
	streams, err := b.client.XReadGroup(ctx, &redis.XReadGroupArgs{
		Group:    group,
		Consumer: b.opts.Consumer,
		Streams:  []string{stream, "0"},
		Count:    1000,
	}).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("read own pending events of %s: %w", stream, err)
	}
	for _, s := range streams {
		b.handle(ctx, stream, topic, group, s.Messages, h)
	}
	return nil
}

func (b *RedisStreams) claimIdle(ctx context.Context, stream, topic, group string, h Handler) error {
	start := "0-0"
	for {
		msgs, next, err := b.client.XAutoClaim(ctx, &redis.XAutoClaimArgs{
			Stream:   stream,
			Group:    group,
			Consumer: b.opts.Consumer,
			MinIdle:  b.opts.MinIdle,
			Start:    start,
			Count:    b.opts.Count,
		}).Result()
		if err != nil {
			return err
		}
		b.handle(ctx, stream, topic, group, msgs, h)
		if next == "0-0" || next == "" {
			return nil
		}
		start = next
	}
}

// handle runs h on each message and acknowledges the ones it accepted.
// A failed one stays pending until MinIdle passes and it is claimed again.
func (b *RedisStreams) handle(ctx context.Context, stream, topic, group string, msgs []redis.XMessage, h Handler) {
	for _, msg := range msgs {
		if ctx.Err() != nil {
			return
		}
		ev, err := decode(topic, msg)
		if err != nil {
			// An entry we cannot read will never become readable: log and
			// acknowledge it rather than redeliver it forever.
			b.opts.Logger.ErrorContext(ctx, "drop undecodable event", "stream", stream, "entry", msg.ID, "error", err)
		} else if err := consume(ctx, b.opts.TracerProvider, "redis", group, ev, h); err != nil {
			b.opts.Logger.WarnContext(ctx, "event handler failed; will redeliver", "stream", stream, "event", ev.ID, "error", err)
			continue
		}
		if err := b.client.XAck(ctx, stream, group, msg.ID).Err(); err != nil && ctx.Err() == nil {
			b.opts.Logger.ErrorContext(ctx, "ack event", "stream", stream, "entry", msg.ID, "error", err)
		}
	}
}

func decode(topic string, msg redis.XMessage) (Event, error) {
	str := func(k string) string {
		s, _ := msg.Values[k].(string)
		return s
	}
	ev := Event{ID: str("id"), Topic: topic, Key: str("key"), Payload: []byte(str("payload"))}
	if ev.ID == "" {
		return Event{}, fmt.Errorf("entry %s has no event id", msg.ID)
	}
	epoch, err := strconv.ParseInt(str("epoch"), 10, 64)
	if err != nil {
		return Event{}, fmt.Errorf("entry %s epoch: %w", msg.ID, err)
	}
	ev.Epoch = epoch
	if hs := str("headers"); hs != "" && hs != "null" {
		if err := json.Unmarshal([]byte(hs), &ev.Headers); err != nil {
			return Event{}, fmt.Errorf("entry %s headers: %w", msg.ID, err)
		}
	}
	return ev, nil
}

func (b *RedisStreams) pause(ctx context.Context) {
	t := time.NewTimer(b.opts.Block / 4)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
