package rpc

import (
	"context"

	"google.golang.org/grpc"

	"github.com/cardroom/cardroom/platform/fault"
)

// ErrShuttingDown ends the server streams a Drainer drains, and refuses new
// ones: the process is stopping, so the client should watch again (through
// the load balancer, it reaches another replica).
var ErrShuttingDown = fault.New(fault.Unavailable, "SHUTTING_DOWN", "the service is stopping; watch again")

// Drainer ends a server's long-lived streams when the process begins to
// stop. A graceful stop waits for every open RPC, and a feed (a table's
// watch, the seating board) never ends by itself: without draining, the
// stop would wait the whole shutdown timeout and the process would keep
// what it holds (a table's lease) all that time. Draining ends the streams
// with ErrShuttingDown while unary calls in flight finish as usual.
type Drainer struct {
	// ctx is cancelled by Drain; each stream's context follows it.
	ctx   context.Context
	drain context.CancelFunc
}

// NewDrainer returns a Drainer that has not drained yet.
func NewDrainer() *Drainer {
	ctx, drain := context.WithCancel(context.Background())
	return &Drainer{ctx: ctx, drain: drain}
}

// Drain ends the open streams and refuses new ones. Calling it again does
// nothing.
func (d *Drainer) Drain() { d.drain() }

// drained reports whether Drain was called.
func (d *Drainer) drained() bool { return d.ctx.Err() != nil }

// stream is the interceptor: the handler's context is cancelled when the
// Drainer drains, and the stream then ends with ErrShuttingDown whatever
// the handler returned for its cancelled context.
func (d *Drainer) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if d.drained() {
		return ErrShuttingDown
	}
	ctx, cancel := context.WithCancel(ss.Context())
	defer cancel()
	stop := context.AfterFunc(d.ctx, cancel)
	defer stop()
	err := handler(srv, &drainedStream{ServerStream: ss, ctx: ctx})
	if d.drained() && ss.Context().Err() == nil {
		return ErrShuttingDown
	}
	return err
}

// drainedStream is a server stream whose context the Drainer cancels.
type drainedStream struct {
	grpc.ServerStream
	ctx context.Context
}

// Context returns the stream's context, cancelled by a drain.
func (s *drainedStream) Context() context.Context { return s.ctx }
