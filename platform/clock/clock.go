// Package clock injects time. Rule timers (the 20-minute rule, breaks,
// action clocks, tournament levels) take a Clock so tests drive them with a
// Fake instead of sleeping.
package clock

import (
	"sort"
	"sync"
	"time"
)

// Clock tells the time and makes timers.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// After returns a channel that receives the time once d has passed.
	After(d time.Duration) <-chan time.Time
	// AfterFunc calls f in its own goroutine once d has passed.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call.
type Timer interface {
	// Stop prevents the call; it reports whether the call was still pending.
	Stop() bool
}

// Real is the wall clock.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// After wraps time.After.
func (Real) After(d time.Duration) <-chan time.Time { return time.After(d) }

// AfterFunc wraps time.AfterFunc.
func (Real) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// Fake is a clock that moves only when told to. It is safe for concurrent use.
type Fake struct {
	// mu guards now and waiters.
	mu      sync.Mutex
	now     time.Time
	waiters []*fakeTimer
}

type fakeTimer struct {
	fake    *Fake
	at      time.Time
	fire    func(time.Time)
	stopped bool
}

// NewFake returns a fake clock reading t.
func NewFake(t time.Time) *Fake { return &Fake{now: t} }

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// After returns a channel that receives once Advance passes d.
func (f *Fake) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	f.add(d, func(t time.Time) { ch <- t })
	return ch
}

// AfterFunc runs fn (synchronously, inside Advance) once Advance passes d.
// Running it synchronously keeps tests deterministic: when Advance returns,
// every timer that came due has run.
func (f *Fake) AfterFunc(d time.Duration, fn func()) Timer {
	return f.add(d, func(time.Time) { fn() })
}

func (f *Fake) add(d time.Duration, fire func(time.Time)) *fakeTimer {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := &fakeTimer{fake: f, at: f.now.Add(d), fire: fire}
	f.waiters = append(f.waiters, t)
	return t
}

// Stop cancels the timer.
func (t *fakeTimer) Stop() bool {
	t.fake.mu.Lock()
	defer t.fake.mu.Unlock()
	was := !t.stopped
	t.stopped = true
	for i, w := range t.fake.waiters {
		if w == t {
			t.fake.waiters = append(t.fake.waiters[:i], t.fake.waiters[i+1:]...)
			return was
		}
	}
	return false
}

// Advance moves the clock forward by d and fires, in time order, every
// timer that came due.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	target := f.now.Add(d)
	for {
		sort.SliceStable(f.waiters, func(i, j int) bool { return f.waiters[i].at.Before(f.waiters[j].at) })
		if len(f.waiters) == 0 || f.waiters[0].at.After(target) {
			break
		}
		w := f.waiters[0]
		f.waiters = f.waiters[1:]
		w.stopped = true
		f.now = w.at
		f.mu.Unlock()
		w.fire(w.at)
		f.mu.Lock()
	}
	f.now = target
	f.mu.Unlock()
}

// Set moves the clock to t (which must not be earlier) and fires what came due.
func (f *Fake) Set(t time.Time) {
	f.Advance(t.Sub(f.Now()))
}

// Pending reports how many timers are waiting.
func (f *Fake) Pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.waiters)
}
