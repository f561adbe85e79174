package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/cardroom/cardroom/platform/rpc"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table/runner"
)

// ForwardedHeader marks a call that a replica forwarded to the table's
// owner; its value is the forwarding replica's address. A call carrying it
// is served where it lands and never forwarded again: if that replica no
// longer owns the table it answers TABLE_OWNED_ELSEWHERE and the client
// retries, rather than replicas bouncing the call between them.
const ForwardedHeader = "x-cardroom-forwarded-by"

// Holders tells who holds a table's lock: the address the holder
// advertises, empty when it advertises none; held is false when nobody
// holds it. *lock.Redis implements it.
type Holders interface {
	// Holder reads the holder of the lock on key (runner.LockKey).
	Holder(ctx context.Context, key string) (holder string, held bool, err error)
}

// ForwardConfig is what a Forwarder needs.
type ForwardConfig struct {
	// Self is the address this replica advertises with its leases; a
	// table whose holder is Self is served here.
	Self string
	// Holders reads the lock holders; nil (the in-process lock of the
	// embedded mode) serves every call here.
	Holders Holders
	// Runner is this process's runner: a table it runs is
	// served here without asking Redis.
	Runner *runner.Runner
	// Dial configures the connections to the owners (tests set tracing).
	// ServiceToken is ignored: a forwarded call carries the caller's token.
	Dial   rpc.Options
	Logger *slog.Logger
}

// Forwarder sends table calls that reach a replica which does not run the
// table to the replica that does, over one pooled connection per owner,
// so that any replica serves any table. The caller's token, deadline and
// trace travel with the call; the owner checks the token and filters what
// the caller may see (hole cards) as if the caller had called it directly.
type Forwarder struct {
	c ForwardConfig

	mu    sync.Mutex // guards conns
	conns map[string]*grpc.ClientConn
}

// NewForwarder returns a Forwarder; Close it to close its connections.
func NewForwarder(c ForwardConfig) *Forwarder {
	c.Logger = cmp.Or(c.Logger, slog.Default())
	c.Dial.ServiceToken = nil
	return &Forwarder{c: c, conns: map[string]*grpc.ClientConn{}}
}

// servedByAnyReplica are the calls that read only the store: any replica
// answers them as well as the owner, and CreateTable has no owner yet.
var servedByAnyReplica = map[string]bool{
	tablev1.TableService_CreateTable_FullMethodName:     true,
	tablev1.TableService_ListTables_FullMethodName:      true,
	tablev1.TableService_GetTable_FullMethodName:        true,
	tablev1.TableService_ListRulings_FullMethodName:     true,
	tablev1.TableService_GetHandHistory_FullMethodName:  true,
	tablev1.TableService_ListPlayerHands_FullMethodName: true,

	tablev1.TournamentTableService_ListHandResults_FullMethodName: true,
}

// Desc returns desc with every call about one table (a request with a
// table_id, except the store reads above) routed through the forwarder.
// Routing runs inside the server's interceptors, so a call is
// authenticated, authorized and validated before it is forwarded, and
// again by the owner.
func (f *Forwarder) Desc(desc *grpc.ServiceDesc) *grpc.ServiceDesc {
	d := *desc
	d.Methods = slices.Clone(desc.Methods)
	d.Streams = slices.Clone(desc.Streams)
	for i, m := range d.Methods {
		full := "/" + desc.ServiceName + "/" + m.MethodName
		in, out, ok := messageTypes(desc.ServiceName, m.MethodName)
		if !ok || servedByAnyReplica[full] || !hasTableID(in) {
			continue
		}
		orig := m.Handler
		d.Methods[i].Handler = func(srv any, ctx context.Context, dec func(any) error, next grpc.UnaryServerInterceptor) (any, error) {
			return orig(srv, ctx, dec, func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
				route := func(ctx context.Context, req any) (any, error) {
					owner, ok := f.owner(ctx, req)
					if !ok {
						return h(ctx, req)
					}
					return f.unary(ctx, owner, full, req, out.New().Interface())
				}
				if next == nil {
					return route(ctx, req)
				}
				return next(ctx, req, info, route)
			})
		}
	}
	for i, s := range d.Streams {
		full := "/" + desc.ServiceName + "/" + s.StreamName
		in, out, ok := messageTypes(desc.ServiceName, s.StreamName)
		// Only server streams (one request, then responses) name their
		// table up front.
		if !ok || s.ClientStreams || !s.ServerStreams || servedByAnyReplica[full] || !hasTableID(in) {
			continue
		}
		orig := s.Handler
		d.Streams[i].Handler = func(srv any, ss grpc.ServerStream) error {
			req := in.New().Interface()
			if err := ss.RecvMsg(req); err != nil {
				return err
			}
			owner, ok := f.owner(ss.Context(), req)
			if !ok {
				return orig(srv, &replayStream{ServerStream: ss, first: req})
			}
			return f.stream(ss, owner, full, req, out)
		}
	}
	return &d
}

// messageTypes finds a method's request and response types in the
// registry the generated code fills.
func messageTypes(service, method string) (in, out protoreflect.MessageType, ok bool) {
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(service + "." + method))
	if err != nil {
		return nil, nil, false
	}
	md, isMethod := d.(protoreflect.MethodDescriptor)
	if !isMethod {
		return nil, nil, false
	}
	in, errIn := protoregistry.GlobalTypes.FindMessageByName(md.Input().FullName())
	out, errOut := protoregistry.GlobalTypes.FindMessageByName(md.Output().FullName())
	return in, out, errIn == nil && errOut == nil
}

func hasTableID(t protoreflect.MessageType) bool {
	fd := t.Descriptor().Fields().ByName("table_id")
	return fd != nil && fd.Kind() == protoreflect.StringKind && !fd.IsList()
}

// owner returns the address of the replica to forward req to, or false to
// serve it here: the call was forwarded already, this process runs the
// table, nobody holds it (this replica claims it, as without forwarding),
// the holder advertises no address (an older replica: the claim waits and
// answers TABLE_OWNED_ELSEWHERE, as before), or the holder is this replica.
func (f *Forwarder) owner(ctx context.Context, req any) (string, bool) {
	if f == nil || f.c.Holders == nil {
		return "", false
	}
	if md, _ := metadata.FromIncomingContext(ctx); len(md.Get(ForwardedHeader)) > 0 {
		return "", false
	}
	r, ok := req.(interface{ GetTableId() string })
	if !ok || r.GetTableId() == "" {
		return "", false
	}
	id := r.GetTableId()
	if f.c.Runner.Runs(id) {
		return "", false
	}
	holder, held, err := f.c.Holders.Holder(ctx, runner.LockKey(id))
	if err != nil {
		// Redis is unreachable: the claim here reports it as it would
		// without forwarding.
		f.c.Logger.WarnContext(ctx, "read table owner", "table", id, "error", err)
		return "", false
	}
	if !held || holder == "" || holder == f.c.Self {
		return "", false
	}
	return holder, true
}

// outgoing is the context of a forwarded call: the caller's context (its
// deadline, its span, whose trace the client handler propagates) with the
// caller's authorization header and the forwarded mark as metadata.
func (f *Forwarder) outgoing(ctx context.Context, owner string) context.Context {
	md, _ := metadata.FromIncomingContext(ctx)
	out := metadata.MD{}
	if auth := md.Get("authorization"); len(auth) > 0 {
		out.Set("authorization", auth...)
	}
	self := f.c.Self
	self = cmp.Or(self, "unknown")
	out.Set(ForwardedHeader, self)
	trace.SpanFromContext(ctx).SetAttributes(attribute.String("cardroom.table.forwarded_to", owner))
	return metadata.NewOutgoingContext(ctx, out)
}

func (f *Forwarder) unary(ctx context.Context, owner, method string, req, reply any) (any, error) {
	conn, err := f.conn(owner)
	if err != nil {
		return nil, err
	}
	if err := conn.Invoke(f.outgoing(ctx, owner), method, req, reply); err != nil {
		return nil, f.failed(err)
	}
	return reply, nil
}

func (f *Forwarder) stream(ss grpc.ServerStream, owner, method string, req any, out protoreflect.MessageType) error {
	conn, err := f.conn(owner)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ss.Context())
	defer cancel()
	cs, err := conn.NewStream(f.outgoing(ctx, owner), &grpc.StreamDesc{ServerStreams: true}, method)
	if err != nil {
		return f.failed(err)
	}
	// A SendMsg that meets the end of the stream (io.EOF) leaves the
	// reason to RecvMsg below.
	if err := cs.SendMsg(req); err != nil && !errors.Is(err, io.EOF) {
		return f.failed(err)
	}
	if err := cs.CloseSend(); err != nil {
		return f.failed(err)
	}
	for {
		m := out.New().Interface()
		if err := cs.RecvMsg(m); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			if ss.Context().Err() != nil {
				return nil // the caller went away
			}
			return f.failed(err)
		}
		if err := ss.SendMsg(m); err != nil {
			return err
		}
	}
}

// failed maps a forwarded call's error. The owner's own answers (statuses
// with ErrorInfo) pass through unchanged. An owner that cannot be reached
// (it stopped, its address is stale) is TABLE_OWNED_ELSEWHERE, which
// clients retry: once the lease has run out, the retry claims the table.
func (f *Forwarder) failed(err error) error {
	if st, ok := status.FromError(err); ok && st.Code() == codes.Unavailable && !hasReason(st) {
		return runner.ErrOwnedElsewhere.Wrap(err)
	}
	return err
}

func hasReason(st *status.Status) bool {
	return slices.ContainsFunc(st.Details(), func(d any) bool {
		i, ok := d.(interface{ GetReason() string })
		return ok && i.GetReason() != ""
	})
}

// conn returns the pooled connection to owner. Connections are kept: one
// that carries no call for a while goes idle (gRPC's idle timeout) and
// holds no socket, so an owner that went away costs only its map entry.
func (f *Forwarder) conn(owner string) (*grpc.ClientConn, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.conns[owner]; ok {
		return c, nil
	}
	c, err := rpc.Dial(owner, f.c.Dial)
	if err != nil {
		return nil, fmt.Errorf("dial table owner %s: %w", owner, err)
	}
	f.conns[owner] = c
	return c, nil
}

// Close closes the connections to the owners.
func (f *Forwarder) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	var errs []error
	for owner, c := range f.conns {
		errs = append(errs, c.Close())
		delete(f.conns, owner)
	}
	return errors.Join(errs...)
}

// replayStream hands the handler the request the forwarder already read.
type replayStream struct {
	grpc.ServerStream
	first any
}

func (s *replayStream) RecvMsg(m any) error {
	if s.first == nil {
		return s.ServerStream.RecvMsg(m)
	}
	dst, ok := m.(proto.Message)
	src, ok2 := s.first.(proto.Message)
	if !ok || !ok2 {
		return fmt.Errorf("replay %T into %T", s.first, m)
	}
	s.first = nil
	proto.Reset(dst)
	proto.Merge(dst, src)
	return nil
}
