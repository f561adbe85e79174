package room

import (
	"context"
	"maps"
	"slices"
	"sync"
)

// Board fans changes of the lists out to the live-board streams. Changes
// made by this process are announced when their transaction commits;
// changes made by other replicas are noticed by polling the versions
// (Room.Run), so every replica's streams see every change.
type Board struct {
	// mu guards watches and versions.
	mu       sync.Mutex
	watches  map[*Watch]struct{}
	versions map[string]int64
}

func newBoard() *Board {
	return &Board{watches: map[*Watch]struct{}{}, versions: map[string]int64{}}
}

// Watch is one subscriber's view of which lists changed since it last
// looked.
type Watch struct {
	board *Board
	wake  chan struct{}
	// mu guards dirty.
	mu    sync.Mutex
	dirty map[string]bool
}

// Watch subscribes to changes; Close it when done.
func (b *Board) Watch() *Watch {
	w := &Watch{board: b, wake: make(chan struct{}, 1), dirty: map[string]bool{}}
	b.mu.Lock()
	b.watches[w] = struct{}{}
	b.mu.Unlock()
	return w
}

// Notify marks lists changed for every watch and wakes them.
func (b *Board) Notify(ids ...string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for w := range b.watches {
		w.mu.Lock()
		for _, id := range ids {
			w.dirty[id] = true
		}
		w.mu.Unlock()
		select {
		case w.wake <- struct{}{}:
		default: // already woken; it will read every dirty id
		}
	}
}

// poll compares the stored versions with the last seen and notifies the
// lists that changed.
func (b *Board) poll(ctx context.Context, versions func(context.Context) (map[string]int64, error)) error {
	now, err := versions(ctx)
	if err != nil {
		return err
	}
	var changed []string
	b.mu.Lock()
	for id, v := range now {
		if b.versions[id] != v {
			changed = append(changed, id)
		}
	}
	b.versions = now
	b.mu.Unlock()
	if len(changed) > 0 {
		b.Notify(changed...)
	}
	return nil
}

// Wake receives when lists changed.
func (w *Watch) Wake() <-chan struct{} { return w.wake }

// Changed returns the lists changed since the last call, sorted.
func (w *Watch) Changed() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	ids := slices.Sorted(maps.Keys(w.dirty))
	clear(w.dirty)
	return ids
}

// Close ends the subscription.
func (w *Watch) Close() {
	w.board.mu.Lock()
	delete(w.board.watches, w)
	w.board.mu.Unlock()
}
