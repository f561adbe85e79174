package events

import (
	"context"
	"maps"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// MemoryOptions tunes a Memory bus. Zero values take the defaults.
type MemoryOptions struct {
	// RetryDelay is how long an event whose handler failed waits before it
	// is delivered again; default 1 s.
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
// event goes to one member of the group; failed events are retried. Events
// do not survive the process, which is fine because the outbox does.
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
	queue []Event
	// ready is closed and replaced whenever queue grows, waking members.
	ready chan struct{}
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

// Publish queues ev for every group of its topic.
func (m *Memory) Publish(_ context.Context, ev Event) error {
	ev.Headers = maps.Clone(ev.Headers)
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.topic(ev.Topic)
	t.backlog = append(t.backlog, ev)
	if over := len(t.backlog) - m.opts.Backlog; over > 0 {
		t.backlog = t.backlog[over:]
	}
	for _, g := range t.groups {
		g.push(ev)
	}
	return nil
}

// push adds ev to the queue. Callers hold Memory.mu.
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
		g = &memoryGroup{queue: append([]Event(nil), t.backlog...), ready: make(chan struct{})}
		t.groups[group] = g
	}
	m.mu.Unlock()
	for {
		m.mu.Lock()
		if len(g.queue) == 0 {
			ready := g.ready
			m.mu.Unlock()
			select {
			case <-ctx.Done():
				return nil
			case <-ready:
			}
			continue
		}
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
	}
}
