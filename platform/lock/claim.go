package lock

import (
	"context"
	"errors"
	"fmt"

	"github.com/cardroom/cardroom/platform/sqlstore"
)

// Owner is a held lock on an entity plus the fencing epoch claimed under
// it: the lease keeps other well-behaved owners out, the fence makes the
// store refuse this owner's writes once another owner has claimed the
// entity, whatever happened to the lease.
type Owner struct {
	Lease Lease
	Fence sqlstore.Fence
	db    *sqlstore.DB
}

// Claim waits for the lock on the entity row id of table (key
// "<table>:<id>") and claims a new epoch on the row. The row must exist
// and have an epoch column (see sqlstore.ClaimEpoch).
func Claim(ctx context.Context, locker Locker, db *sqlstore.DB, table, id string) (*Owner, error) {
	lease, err := locker.Acquire(ctx, table+":"+id)
	if err != nil {
		return nil, err
	}
	var fence sqlstore.Fence
	err = db.Tx(lease.Context(), func(tx *sqlstore.Tx) (err error) {
		fence, err = sqlstore.ClaimEpoch(lease.Context(), tx, table, id)
		return err
	})
	if err != nil {
		_ = lease.Release(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("claim %s %s: %w", table, id, err)
	}
	return &Owner{Lease: lease, Fence: fence, db: db}, nil
}

// Update runs fn in a transaction that first checks the fence, under a
// context that ends when either ctx or the lease ends. A lost lease is
// ErrLockLost; a lost fence is sqlstore.ErrFencedOut. Both mean: stop, the
// entity has (or may have) a new owner.
func (o *Owner) Update(ctx context.Context, fn func(tx *sqlstore.Tx, fence sqlstore.Fence) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(o.Lease.Context(), func() { cancel(context.Cause(o.Lease.Context())) })
	defer stop()
	if err := context.Cause(o.Lease.Context()); err != nil {
		return lostError(o.Lease.Key(), err)
	}
	err := o.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		if err := o.Fence.Check(ctx, tx); err != nil {
			return err
		}
		return fn(tx, o.Fence)
	})
	if cause := context.Cause(o.Lease.Context()); err != nil && cause != nil {
		return lostError(o.Lease.Key(), cause)
	}
	return err
}

func lostError(key string, cause error) error {
	if errors.Is(cause, ErrLockLost) {
		return fmt.Errorf("update under lock %s: %w", key, cause)
	}
	return fmt.Errorf("update under lock %s: %w: %w", key, ErrLockLost, cause)
}

// Release gives up the lock. The epoch stays; the next owner claims a
// higher one.
func (o *Owner) Release(ctx context.Context) error { return o.Lease.Release(ctx) }
