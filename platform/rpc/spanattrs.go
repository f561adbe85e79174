package rpc

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/fault"
)

// spanFields are the request fields copied onto the server span, so that
// an SRE finds a table's, a tournament's or a player's traces by
// attribute. Only these identifiers: a request's other fields (amounts,
// actions, a dealer's card entries) never become attributes.
var spanFields = map[protoreflect.Name]string{
	"table_id":      "cardroom.table.id",
	"tournament_id": "cardroom.tournament.id",
	"waitlist_id":   "cardroom.waitlist.id",
	"offer_id":      "cardroom.offer.id",
	"player_id":     "cardroom.player.id",
	"account_id":    "cardroom.account.id",
	"hold_id":       "cardroom.hold.id",
}

// annotate is the server interceptor that names on the RPC's span who
// called (enduser.id, enduser.role), what the request is about (the
// spanFields of the request) and, when the call is refused with a fault,
// its reason and deciding rule (cardroom.reason, cardroom.rule.id).
func annotate(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	span := trace.SpanFromContext(ctx)
	annotateCaller(ctx, span)
	annotateRequest(span, req)
	resp, err := handler(ctx, req)
	annotateFault(span, err)
	return resp, err
}

func annotateStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	span := trace.SpanFromContext(ss.Context())
	annotateCaller(ss.Context(), span)
	err := handler(srv, &annotatedStream{ServerStream: ss, span: span})
	annotateFault(span, err)
	return err
}

// annotatedStream annotates the span with the stream's first request.
type annotatedStream struct {
	grpc.ServerStream
	span trace.Span
	seen bool
}

func (s *annotatedStream) RecvMsg(m any) error {
	err := s.ServerStream.RecvMsg(m)
	if err == nil && !s.seen {
		s.seen = true
		annotateRequest(s.span, m)
	}
	return err
}

func annotateCaller(ctx context.Context, span trace.Span) {
	if !span.IsRecording() {
		return
	}
	c, ok := auth.FromContext(ctx)
	if !ok {
		return
	}
	// The role the request acts in (auth.Principal.ActAs), not every role
	// the token holds: that is the role the handler decided on.
	span.SetAttributes(attribute.String("enduser.id", c.Subject), attribute.String("enduser.role", string(c.Role)))
}

func annotateRequest(span trace.Span, req any) {
	m, ok := req.(proto.Message)
	if !ok || !span.IsRecording() {
		return
	}
	msg := m.ProtoReflect()
	fields := msg.Descriptor().Fields()
	for i := range fields.Len() {
		f := fields.Get(i)
		key, ok := spanFields[f.Name()]
		if !ok || f.Kind() != protoreflect.StringKind || f.IsList() || !msg.Has(f) {
			continue
		}
		span.SetAttributes(attribute.String(key, msg.Get(f).String()))
	}
}

// annotateFault names the reason and rule of a refusal: a fault of this
// service, or a neighbour's refusal passed on as its gRPC status (the
// wallet's CS-03 answer to the table's Sit).
func annotateFault(span trace.Span, err error) {
	if err == nil || !span.IsRecording() {
		return
	}
	var reason, rule string
	if f, ok := fault.As(err); ok {
		reason, rule = f.Reason, f.Rule
	} else if withStatus := (interface{ GRPCStatus() *status.Status })(nil); errors.As(err, &withStatus) {
		for _, d := range withStatus.GRPCStatus().Details() {
			if info, ok := d.(*errdetails.ErrorInfo); ok {
				reason, rule = info.GetReason(), info.GetMetadata()["rule_id"]
			}
		}
	}
	if reason != "" {
		span.SetAttributes(attribute.String("cardroom.reason", reason))
	}
	if rule != "" {
		span.SetAttributes(attribute.String("cardroom.rule.id", rule))
	}
}
