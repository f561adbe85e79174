package events

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// MemoryOptions tunes a Memory bus. Zero values take the defaults.
type MemoryOptions struct {
	// RetryDelay is how long a queued event whose handler failed waits
	// before it is delivered again; default 1 s.
	RetryDelay time.Duration
	// Backlog is how many recent events of a topic a consumer group that
	// subscribes later still receives (as a Redis stream keeps them);
	// default 10000.
	Backlog int
	// TracerProvider makes the consumer spans; nil means the global one.
	TracerProvider trace.TracerProvider
}

// Memory is an in-process Bus for the embedded single-process mode. Like
// Redis Streams, each consumer group gets every event of a topic and each
// event goes to one member of the group.
//
// Nothing in memory survives a crash, so Publish does not return until
// every group that has a member has handled the event, and fails when a
// handler failed: the relay then leaves the outbox row unpublished and
// publishes it again later (groups that had succeeded see a duplicate,
// which Idempotent absorbs). Events for a group with no member yet are
// queued for it, like the backlog a new group receives; those are
// best-effort until a member exists.
type Memory struct {
	opts MemoryOptions
	// mu guards topics and everything inside them.
	mu     sync.Mutex
	topics map[string]*memoryTopic
}

var _ Bus = (*Memory)(nil)

type memoryTopic struct {
	backlog []Event
	groups  map[string]*memoryGroup
}

type memoryGroup struct {
	// work hands a published event to one member and carries its result.
	work    chan delivery
	members int
	// queue holds events no member was there to take, and retries.
	queue []Event
	// ready is closed and replaced whenever queue grows, waking members.
	ready chan struct{}
}

type delivery struct {
	ev   Event
	done chan error
}

// NewMemory returns an empty in-process bus.
func NewMemory(opts MemoryOptions) *Memory {
	if opts.RetryDelay <= 0 {
		opts.RetryDelay = time.Second
	}
	if opts.Backlog <= 0 {
		opts.Backlog = 10000
	}
	return &Memory{opts: opts, topics: make(map[string]*memoryTopic)}
}

func (m *Memory) topic(name string) *memoryTopic {
	t, ok := m.topics[name]
	if !ok {
		t = &memoryTopic{groups: make(map[string]*memoryGroup)}
		m.topics[name] = t
	}
	return t
}

// Publish delivers ev to one member of every group of its topic and waits
// for the handlers; see Memory for why.
func (m *Memory) Publish(ctx context.Context, ev Event) error {
	ev.Headers = maps.Clone(ev.Headers)
	m.mu.Lock()
	t := m.topic(ev.Topic)
	t.backlog = append(t.backlog, ev)
	if over := len(t.backlog) - m.opts.Backlog; over > 0 {
		t.backlog = t.backlog[over:]
	}
	names := make([]string, 0, len(t.groups))
	groups := make([]*memoryGroup, 0, len(t.groups))
	for name, g := range t.groups {
		names = append(names, name)
		groups = append(groups, g)
	}
	m.mu.Unlock()

	var errs []error
	for i, g := range groups {
		if err := m.deliver(ctx, g, ev); err != nil {
			errs = append(errs, fmt.Errorf("group %s: %w", names[i], err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("publish event %s: %w", ev.ID, err)
	}
	return nil
}

// deliver hands ev to a member of g and returns its handler's result, or
// queues ev when g has no member.
func (m *Memory) deliver(ctx context.Context, g *memoryGroup, ev Event) error {
	d := delivery{ev: ev, done: make(chan error, 1)}
	for {
		m.mu.Lock()
		if g.members == 0 {
			g.push(ev)
			m.mu.Unlock()
			return nil
		}
		m.mu.Unlock()
		// Members can leave while we wait; look again now and then rather
		// than block on a group that emptied.
		t := time.NewTimer(100 * time.Millisecond)
		select {
		case g.work <- d:
			t.Stop()
			select {
			case err := <-d.done:
				return err
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		case <-t.C:
		}
	}
}

// push queues ev. Callers hold Memory.mu.
func (g *memoryGroup) push(ev Event) {
	g.queue = append(g.queue, ev)
	close(g.ready)
	g.ready = make(chan struct{})
}

// Subscribe consumes topic as a member of group until ctx ends.
func (m *Memory) Subscribe(ctx context.Context, topic, group string, h Handler) error {
	m.mu.Lock()
	t := m.topic(topic)
	g, ok := t.groups[group]
	if !ok {
		// A new group starts from the backlog, as a Redis group created
		// at "0" starts from the start of the stream.
		g = &memoryGroup{work: make(chan delivery), queue: append([]Event(nil), t.backlog...), ready: make(chan struct{})}
		t.groups[group] = g
	}
	g.members++
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		g.members--
		m.mu.Unlock()
	}()
	for {
		m.mu.Lock()
		if len(g.queue) > 0 {
			ev := g.queue[0]
			g.queue = g.queue[1:]
			m.mu.Unlock()
			if err := consume(ctx, m.opts.TracerProvider, "memory", group, ev, h); err != nil {
				time.AfterFunc(m.opts.RetryDelay, func() {
					m.mu.Lock()
					defer m.mu.Unlock()
					g.push(ev)
				})
			}
			continue
		}
		ready := g.ready
		m.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil
		case d := <-g.work:
			d.done <- consume(ctx, m.opts.TracerProvider, "memory", group, d.ev, h)
		case <-ready:
		}
	}
}
