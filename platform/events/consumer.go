package events

import (
	"context"
	"fmt"
	"time"

	"github.com/cardroom/cardroom/platform/sqlstore"
)

// Apply changes a consumer's state for one event, inside the transaction
// that also records the event as processed.
type Apply func(ctx context.Context, tx *sqlstore.Tx, ev Event) error

// Idempotent returns a Handler that applies each event ID at most once for
// the named consumer: apply runs in one transaction with the insert of
// (consumer, event ID) into processed_events, and an event already recorded
// is accepted without running apply. A redelivery — after a relay crash, a
// lost acknowledgement or a second relay — therefore changes nothing. A
// failed apply rolls back the record too, so the event is retried.
func Idempotent(db *sqlstore.DB, consumer string, apply Apply) Handler {
	return func(ctx context.Context, ev Event) error {
		err := db.Tx(ctx, func(tx *sqlstore.Tx) error {
			n, err := sqlstore.Exec(ctx, tx,
				`INSERT INTO processed_events (consumer, event_id, processed_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
				[]any{consumer, ev.ID, time.Now().UnixMilli()}, "record as processed")
			if err != nil || n == 0 {
				return err // n == 0: seen before
			}
			return apply(ctx, tx, ev)
		})
		if err != nil {
			return fmt.Errorf("%s: apply event %s (%s): %w", consumer, ev.ID, ev.Topic, err)
		}
		return nil
	}
}
