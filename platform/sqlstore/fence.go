package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/telemetry"
)

// ErrFencedOut is returned when a fenced write touched no row: another
// owner has claimed the entity since (its epoch moved on), so this owner's
// view is stale and it must stop. It maps to gRPC Aborted.
var ErrFencedOut = fault.New(fault.Aborted, "FENCED_OUT", "a newer owner holds this entity")

// Fence is an owner's claim on one row of an entity table: the table, the
// row id and the epoch the owner was issued. Writes made through it succeed
// only while the row's epoch still equals Epoch.
type Fence struct {
	Table string
	ID    string
	Epoch int64
}

// ClaimEpoch makes the caller the entity's owner: it bumps the row's epoch
// column and returns the new value as a Fence. Call it in a transaction
// right after taking the entity's lock, before any write. The table needs
// columns id (TEXT primary key) and epoch (BIGINT NOT NULL DEFAULT 0). A
// missing row is a NotFound fault.
func ClaimEpoch(ctx context.Context, tx *Tx, table, id string) (Fence, error) {
	t, err := quoteIdent(table)
	if err != nil {
		return Fence{}, err
	}
	var epoch int64
	err = tx.QueryRowContext(ctx, `UPDATE `+t+` SET epoch = epoch + 1 WHERE id = $1 RETURNING epoch`, id).Scan(&epoch)
	if errors.Is(err, sql.ErrNoRows) {
		return Fence{}, fault.NotFoundf(table, "%s %s not found", table, id).With("id", id)
	}
	if err != nil {
		return Fence{}, fmt.Errorf("claim epoch of %s %s: %w", table, id, err)
	}
	return Fence{Table: table, ID: id, Epoch: epoch}, nil
}

// Update runs UPDATE <table> SET <set> WHERE id = ... AND epoch = ... for
// the fenced row. set may use placeholders $1..$n for args; the id and
// epoch are bound after them. It returns ErrFencedOut when the row's epoch
// has moved on.
func (f Fence) Update(ctx context.Context, tx *Tx, set string, args ...any) error {
	t, err := quoteIdent(f.Table)
	if err != nil {
		return err
	}
	n := len(args)
	query := `UPDATE ` + t + ` SET ` + set + ` WHERE id = $` + strconv.Itoa(n+1) + ` AND epoch = $` + strconv.Itoa(n+2)
	changed, err := Exec(ctx, tx, query, append(args, f.ID, f.Epoch), "update %s %s at epoch %d", f.Table, f.ID, f.Epoch)
	if err != nil || changed > 0 {
		return err
	}
	fencedOut.Add(ctx, 1, metric.WithAttributes(attribute.String("cardroom.lock.entity", f.Table)))
	return fmt.Errorf("update %s %s at epoch %d: %w", f.Table, f.ID, f.Epoch, ErrFencedOut)
}

// Check confirms, inside tx, that the fence still holds, for transactions
// that write other tables (child rows, outbox) on the entity's behalf. It
// is a no-op UPDATE of the fenced row rather than a SELECT so that it also
// takes the row lock: a concurrent ClaimEpoch then waits for, or conflicts
// with, this transaction instead of slipping in between.
func (f Fence) Check(ctx context.Context, tx *Tx) error {
	return f.Update(ctx, tx, "epoch = epoch")
}

// fencedOut counts FENCED_OUT refusals: a write of an owner whose epoch had
// moved on. A few around a takeover are the fencing working; a steady rate
// means two replicas fight over entities.
var fencedOut = telemetry.NewMeter("github.com/cardroom/cardroom/platform/sqlstore").Counter("cardroom.fence.refusals", "{refusal}",
	"Writes refused with FENCED_OUT because a newer owner had claimed the entity, by entity kind.")
