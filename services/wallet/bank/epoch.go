package bank

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/wallet/store"
)

// Epochs tells the bank which fencing epochs the table service issued:
// the wallet takes a table's write only with an epoch a lease holder was
// given, never a caller's own number (docs/ARCHITECTURE.md, "Correctness
// under concurrency").
type Epochs interface {
	// IssuedEpoch returns the highest epoch issued for the table.
	IssuedEpoch(ctx context.Context, table string) (int64, error)
}

// ErrEpochNotIssued refuses a table write whose epoch the table service
// never issued.
var ErrEpochNotIssued = fault.New(fault.Invalid, "EPOCH_NOT_ISSUED", "the epoch is higher than any the table service issued for this table")

// fenced runs a table write, and when its epoch is higher than any known
// issued (store.EpochUnverified, its transaction rolled back), asks the
// table service, records what it issued and runs the write again: once per
// new epoch of a table, so the hot path asks nothing.
func fenced[T any](ctx context.Context, b *Bank, r TableRequest, write func() (T, error)) (T, error) {
	res, err := write()
	var unverified *store.EpochUnverified
	if !errors.As(err, &unverified) {
		return res, err
	}
	if err := b.verifyEpoch(ctx, r.Table, r.Epoch); err != nil {
		var zero T
		return zero, err
	}
	return write()
}

// verifyEpoch asks the table service which epochs it issued for the table
// and records it; an epoch above that is ErrEpochNotIssued. Without an
// Epochs (tests of the wallet alone) the caller's epoch is trusted.
func (b *Bank) verifyEpoch(ctx context.Context, table string, epoch int64) error {
	issued := epoch
	if b.epochs != nil {
		var err error
		if issued, err = b.epochs.IssuedEpoch(ctx, table); err != nil {
			return fmt.Errorf("ask the table service for the epochs of %s: %w", table, err)
		}
	}
	repaired, err := b.store.RecordIssued(ctx, table, issued)
	if err != nil {
		return err
	}
	if repaired > 0 {
		b.log.ErrorContext(ctx, "a table's recorded epoch was never issued; brought back to the issued one", "table", table,
			"recorded", repaired, "issued", issued)
	}
	if epoch > issued {
		return ErrEpochNotIssued.Withf("epoch %d of table %s was never issued (the highest is %d)", epoch, table, issued).
			With("table_id", table, "epoch", strconv.FormatInt(epoch, 10), "issued", strconv.FormatInt(issued, 10))
	}
	return nil
}
