// Package lock gives one owner at a time the right to mutate an entity (a
// table, tournament, account or waitlist). A Locker hands out Leases; a
// lease's Context is cancelled as soon as the lease may no longer be held,
// so work done under it stops.
//
// A lease alone is not safety: a holder can pause past its lease, or Redis
// can forget its keys, and two processes then both believe they own the
// entity. Safety comes from the fencing epoch that the SQL store issues
// (ARCHITECTURE.md, "Correctness under concurrency"): after acquiring, the
// owner calls sqlstore.ClaimEpoch and makes every write conditional on that
// epoch. Claim does both steps.
//
// Two implementations share the interface: Redis (SET NX PX lease with a
// random token, compare-and-delete release, renewal every TTL/3 in one
// pipeline for all of a locker's leases) for
// several replicas — a lease may also name its holder, for example the
// address other replicas forward requests for the entity to (Holder) — and
// Local for the single-process embedded mode.
package lock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/cardroom/cardroom/platform/fault"
)

// Faults a lock reports. All map to gRPC Aborted: the caller may retry the
// whole operation.
var (
	// ErrLockLost ends a lease whose renewal failed or whose key now
	// belongs to someone else. It is the cause of the lease context.
	ErrLockLost = fault.New(fault.Aborted, "LOCK_LOST", "the lock on this entity was lost")
	// ErrHeld is TryAcquire's answer when another owner holds the lock.
	ErrHeld = fault.New(fault.Aborted, "LOCK_HELD", "another owner holds the lock on this entity")
	// ErrReleased is the cause of a lease context after Release.
	ErrReleased = errors.New("lease released")
	// ErrUnavailable is the answer when the lock service (Redis) cannot be
	// reached or does not answer: the caller retries later (503). The
	// client's error is its cause, for the log; it names addresses.
	ErrUnavailable = fault.New(fault.Unavailable, "UNAVAILABLE", "locks cannot be taken now; retry later")
)

// Locker hands out exclusive leases on keys.
type Locker interface {
	// Acquire waits until it holds the lock on key or ctx is done.
	Acquire(ctx context.Context, key string) (Lease, error)
	// TryAcquire takes the lock on key if it is free and returns ErrHeld
	// otherwise.
	TryAcquire(ctx context.Context, key string) (Lease, error)
}

// Lease is a held lock. A lease that ended stays ended: a lock is never
// re-acquired behind the holder's back, the holder must Acquire again (and
// claim a new epoch).
type Lease interface {
	// Key is the locked key as given to Acquire.
	Key() string
	// Context is derived from the context given to Acquire and is
	// cancelled when the lease ends; context.Cause tells why (ErrLockLost,
	// ErrReleased, or the parent's cause).
	Context() context.Context
	// Release ends the lease and frees the lock if this lease still holds
	// it; releasing a lease that was lost never touches the new owner's
	// lock. Release is idempotent.
	Release(ctx context.Context) error
}

// newToken returns a random lease token, unique across processes.
func newToken() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("lease token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}
