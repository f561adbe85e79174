package events

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/telemetry"
)

// Add writes ev to the outbox inside tx, the transaction that makes the
// change the event announces: both commit or neither does. It records the
// trace context of ctx in the event headers and fills in a missing ID.
func Add(ctx context.Context, tx *sqlstore.Tx, ev Event) error {
	if ev.Topic == "" {
		return errors.New("add event: empty topic")
	}
	if ev.ID == "" {
		ev.ID = NewID()
	}
	if ev.Payload == nil {
		ev.Payload = []byte{}
	}
	inject(ctx, &ev)
	headers, err := json.Marshal(ev.Headers)
	if err != nil {
		return fmt.Errorf("add event %s: %w", ev.ID, err)
	}
	err = tx.Exec(ctx,
		`INSERT INTO outbox (id, topic, event_key, payload, epoch, headers, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		ev.ID, ev.Topic, ev.Key, ev.Payload, ev.Epoch, string(headers), time.Now().UnixMilli())
	if err != nil {
		return fmt.Errorf("add event %s to outbox: %w", ev.ID, err)
	}
	return nil
}

// RelayOptions tunes a Relay. Zero values take the defaults.
type RelayOptions struct {
	// Interval is how often Run polls the outbox when nothing woke it;
	// default 250 ms.
	Interval time.Duration
	// BatchSize caps the rows published per round; default 100.
	BatchSize int
	// Retention is how long published rows are kept before Run prunes
	// them; default 24 h.
	Retention time.Duration
	// Clock drives polling, stamps published rows and decides which are
	// old enough to prune; default the real clock.
	Clock clock.Clock
	// TracerProvider makes the publish spans; nil means the global one.
	TracerProvider trace.TracerProvider
	// Logger reports publish failures; nil means slog.Default().
	Logger *slog.Logger
}

// Relay publishes committed outbox rows to a bus and marks them published.
// It is safe to run one relay per replica: a row published by two relays,
// or published again after a crash before it was marked, reaches consumers
// twice, which Idempotent absorbs.
type Relay struct {
	db   *sqlstore.DB
	bus  Bus
	opts RelayOptions
	wake chan struct{}
}

// NewRelay returns a relay from db's outbox to bus.
func NewRelay(db *sqlstore.DB, bus Bus, opts RelayOptions) *Relay {
	if opts.Interval <= 0 {
		opts.Interval = 250 * time.Millisecond
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 100
	}
	if opts.Retention <= 0 {
		opts.Retention = 24 * time.Hour
	}
	opts.Clock = cmp.Or[clock.Clock](opts.Clock, clock.Real{})
	opts.Logger = cmp.Or(opts.Logger, slog.Default())
	return &Relay{db: db, bus: bus, opts: opts, wake: make(chan struct{}, 1)}
}

// Add is events.Add plus a wake-up of the relay once tx commits, so the
// event goes out at once instead of at the next poll.
func (r *Relay) Add(ctx context.Context, tx *sqlstore.Tx, ev Event) error {
	if err := Add(ctx, tx, ev); err != nil {
		return err
	}
	tx.AfterCommit(r.Notify)
	return nil
}

// Notify wakes Run for an immediate round.
func (r *Relay) Notify() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Run publishes until ctx ends, then makes one last round (so a clean
// shutdown drains the outbox) and returns nil.
func (r *Relay) Run(ctx context.Context) error {
	lastPrune := time.Time{}
	for {
		if _, err := r.Flush(ctx); err != nil && ctx.Err() == nil {
			r.opts.Logger.ErrorContext(ctx, "outbox relay", "error", err)
		}
		if now := r.opts.Clock.Now(); now.Sub(lastPrune) > time.Hour {
			lastPrune = now
			if err := r.Prune(ctx); err != nil && ctx.Err() == nil {
				r.opts.Logger.ErrorContext(ctx, "outbox prune", "error", err)
			}
		}
		select {
		case <-ctx.Done():
			drain, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			_, err := r.Flush(drain)
			cancel()
			if err != nil {
				r.opts.Logger.ErrorContext(drain, "outbox relay drain", "error", err)
			}
			return nil
		case <-r.wake:
		case <-r.opts.Clock.After(r.opts.Interval):
		}
	}
}

type outboxRow struct {
	seq     int64
	ev      Event
	headers string
	created time.Time
}

// Flush publishes every unpublished row now, oldest first, and returns how
// many it published. It stops at the first publish failure, leaving that
// row and the later ones for the next round.
func (r *Relay) Flush(ctx context.Context) (int, error) {
	total := 0
	for first := true; ; first = false {
		rows, err := r.pending(ctx)
		if err != nil {
			return total, err
		}
		if first {
			r.recordLag(ctx, rows)
		}
		n, err := r.publishAll(ctx, rows)
		total += n
		if err != nil {
			return total, err
		}
		if len(rows) < r.opts.BatchSize {
			return total, nil
		}
	}
}

func (r *Relay) pending(ctx context.Context) ([]outboxRow, error) {
	return sqlstore.Collect(ctx, r.db.SQL(), "read outbox",
		`SELECT seq, id, topic, event_key, payload, epoch, headers, created_at FROM outbox WHERE published_at IS NULL ORDER BY seq LIMIT $1`,
		[]any{r.opts.BatchSize}, func(q sqlstore.Scanner) (outboxRow, error) {
			var row outboxRow
			var created int64
			if err := q.Scan(&row.seq, &row.ev.ID, &row.ev.Topic, &row.ev.Key, &row.ev.Payload, &row.ev.Epoch, &row.headers, &created); err != nil {
				return row, err
			}
			row.created = time.UnixMilli(created)
			if err := json.Unmarshal([]byte(row.headers), &row.ev.Headers); err != nil {
				return row, fmt.Errorf("row %d headers: %w", row.seq, err)
			}
			return row, nil
		})
}

// publishAll publishes rows in order until one fails, then marks those
// it published with one statement (one commit for the round, not one per
// event), and returns how many it published and marked.
func (r *Relay) publishAll(ctx context.Context, rows []outboxRow) (int, error) {
	var sent []outboxRow
	var pubErr error
	for _, row := range rows {
		if pubErr = r.publish(ctx, row); pubErr != nil {
			break
		}
		sent = append(sent, row)
	}
	if err := r.markPublished(ctx, sent); err != nil {
		// Published but not marked: they go out again next round,
		// which at-least-once allows.
		return 0, errors.Join(pubErr, err)
	}
	return len(sent), pubErr
}

// markPublished stamps rows as published. The rows are named one by one:
// a range of seqs could take in a row committed late with a lower seq
// (seqs are taken before commit), never published.
func (r *Relay) markPublished(ctx context.Context, rows []outboxRow) error {
	if len(rows) == 0 {
		return nil
	}
	args := make([]any, 0, len(rows)+1)
	args = append(args, r.opts.Clock.Now().UnixMilli())
	var in strings.Builder
	for i, row := range rows {
		if i > 0 {
			in.WriteString(", ")
		}
		in.WriteString("$" + strconv.Itoa(i+2))
		args = append(args, row.seq)
	}
	if _, err := r.db.SQL().ExecContext(ctx, `UPDATE outbox SET published_at = $1 WHERE seq IN (`+in.String()+`)`, args...); err != nil {
		return fmt.Errorf("mark %d events published: %w", len(rows), err)
	}
	for _, row := range rows {
		published.Add(ctx, 1, metric.WithAttributes(attribute.String("messaging.destination.name", row.ev.Topic)))
	}
	return nil
}

// publish sends one row inside a producer span that continues the trace of
// the transaction that wrote it; publishAll marks it published.
func (r *Relay) publish(ctx context.Context, row outboxRow) error {
	ev := row.ev
	pctx, span := tracer(r.opts.TracerProvider).Start(Extract(ctx, ev), "publish "+ev.Topic,
		trace.WithSpanKind(trace.SpanKindProducer), spanAttrs("cardroom", ev))
	defer span.End()
	// Consumers continue from this span.
	ev.Headers = maps.Clone(ev.Headers)
	inject(pctx, &ev)
	if err := r.bus.Publish(pctx, ev); err != nil {
		span.SetStatus(codes.Error, err.Error())
		return fmt.Errorf("publish event %s: %w", ev.ID, err)
	}
	return nil
}

var (
	outboxMeter = telemetry.NewMeter(instrumentation)
	lag         = outboxMeter.FloatGauge("cardroom.outbox.lag", "s",
		"Age of the oldest event not yet published, per service outbox, as of the relay's last round (0: all published).")
	published = outboxMeter.Counter("cardroom.outbox.published", "{event}", "Events the outbox relays published, by topic.")
)

// recordLag records the age of the oldest unpublished row (rows come
// oldest first). The row was stamped with the real clock by Add.
func (r *Relay) recordLag(ctx context.Context, rows []outboxRow) {
	age := 0.0
	if len(rows) > 0 {
		age = max(time.Since(rows[0].created).Seconds(), 0)
	}
	lag.Record(ctx, age, metric.WithAttributes(attribute.String("cardroom.outbox", r.db.Service())))
}

// Prune deletes rows published longer ago than the retention.
func (r *Relay) Prune(ctx context.Context) error {
	cutoff := r.opts.Clock.Now().Add(-r.opts.Retention).UnixMilli()
	_, err := sqlstore.Exec(ctx, r.db.SQL(), `DELETE FROM outbox WHERE published_at IS NOT NULL AND published_at < $1`, []any{cutoff}, "prune outbox")
	return err
}
