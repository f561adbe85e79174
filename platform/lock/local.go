package lock

import (
	"context"
	"fmt"
	"sync"
)

// Local is an in-process Locker for the embedded single-process mode. Its
// leases never expire; they end on Release or when the context given to
// Acquire ends.
type Local struct {
	// mu guards held.
	mu   sync.Mutex
	held map[string]*localLease
}

var _ Locker = (*Local)(nil)

// NewLocal returns an empty in-process locker.
func NewLocal() *Local { return &Local{held: make(map[string]*localLease)} }

type localLease struct {
	l        *Local
	key      string
	ctx      context.Context
	cancel   context.CancelCauseFunc
	released chan struct{}
	once     sync.Once
}

// Acquire waits until key is free or ctx is done.
func (l *Local) Acquire(ctx context.Context, key string) (Lease, error) {
	for {
		lease, wait := l.try(ctx, key)
		if lease != nil {
			return lease, nil
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, fmt.Errorf("acquire lock %s: %w", key, context.Cause(ctx))
		}
	}
}

// TryAcquire takes key if it is free and returns ErrHeld otherwise.
func (l *Local) TryAcquire(ctx context.Context, key string) (Lease, error) {
	if lease, _ := l.try(ctx, key); lease != nil {
		return lease, nil
	}
	return nil, ErrHeld.With("key", key)
}

// try returns a new lease, or the channel closed when the holder releases.
func (l *Local) try(ctx context.Context, key string) (*localLease, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if h, ok := l.held[key]; ok {
		countAcquisition(ctx, key, ErrHeld)
		return nil, h.released
	}
	countAcquisition(ctx, key, nil)
	leaseCtx, cancel := context.WithCancelCause(ctx)
	lease := &localLease{l: l, key: key, ctx: leaseCtx, cancel: cancel, released: make(chan struct{})}
	l.held[key] = lease
	// A lease whose owner's context ended frees the key, as an expired
	// Redis lease would.
	context.AfterFunc(leaseCtx, lease.free)
	return lease, nil
}

func (h *localLease) Key() string              { return h.key }
func (h *localLease) Context() context.Context { return h.ctx }

// Release frees the key.
func (h *localLease) Release(context.Context) error {
	h.cancel(ErrReleased)
	h.free()
	return nil
}

func (h *localLease) free() {
	h.once.Do(func() {
		h.l.mu.Lock()
		if h.l.held[h.key] == h {
			delete(h.l.held, h.key)
		}
		h.l.mu.Unlock()
		close(h.released)
	})
}
