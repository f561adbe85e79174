package rpc

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"buf.build/go/protovalidate"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/recovery"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/cardroom/cardroom/platform/fault"
)

// Reasons the platform itself puts in google.rpc.ErrorInfo. They are the
// cardroom.fault.v1.Reason names without the REASON_ prefix.
const (
	ReasonInternal         = "INTERNAL"
	ReasonInvalidArgument  = "INVALID_ARGUMENT"
	ReasonUnauthenticated  = "UNAUTHENTICATED"
	ReasonPermissionDenied = "PERMISSION_DENIED"
	ReasonUnavailable      = "UNAVAILABLE"
	// ReasonRequestTooLarge: a gRPC message or REST body over the limit.
	ReasonRequestTooLarge = "REQUEST_TOO_LARGE"
	// ReasonRouteNotFound and ReasonMethodNotAllowed: the gateway's
	// routing failures (404, 405).
	ReasonRouteNotFound    = "ROUTE_NOT_FOUND"
	ReasonMethodNotAllowed = "METHOD_NOT_ALLOWED"
	// ReasonNotImplemented: the process reached does not serve the RPC.
	ReasonNotImplemented = "NOT_IMPLEMENTED"
	// ReasonDeadlineExceeded: the request's own deadline ran out.
	ReasonDeadlineExceeded = "DEADLINE_EXCEEDED"
)

// Metadata keys the platform puts in google.rpc.ErrorInfo.
const (
	MetaRuleID        = "rule_id"
	MetaCorrelationID = "correlation_id"
	MetaField         = "field"
	MetaConstraint    = "constraint"
)

var kindCodes = map[fault.Kind]codes.Code{
	fault.Invalid:         codes.InvalidArgument,
	fault.Precondition:    codes.FailedPrecondition,
	fault.NotFound:        codes.NotFound,
	fault.Conflict:        codes.AlreadyExists,
	fault.Aborted:         codes.Aborted,
	fault.Forbidden:       codes.PermissionDenied,
	fault.Unauthenticated: codes.Unauthenticated,
	fault.Unavailable:     codes.Unavailable,
}

// CodeOf returns the gRPC code a fault kind maps to; Internal for Internal
// and for unknown kinds.
func CodeOf(k fault.Kind) codes.Code {
	if c, ok := kindCodes[k]; ok {
		return c
	}
	return codes.Internal
}

// Domain returns the google.rpc.ErrorInfo domain of a method:
// "/cardroom.wallet.v1.WalletService/OpenAccount" → "cardroom.wallet".
// Methods outside the cardroom packages get "cardroom".
func Domain(fullMethod string) string {
	svc, _, _ := strings.Cut(strings.TrimPrefix(fullMethod, "/"), "/")
	parts := strings.Split(svc, ".")
	if len(parts) >= 3 && parts[0] == "cardroom" {
		return parts[0] + "." + parts[1]
	}
	return "cardroom"
}

// ToStatus turns an error returned by a handler into the gRPC status error
// the caller sees. It is the one place where that happens:
//
//   - a *fault.Error anywhere in the chain becomes the code of its Kind with
//     google.rpc.ErrorInfo{Reason, Domain, Metadata: {"rule_id": Rule, ...Meta}}
//     and the fault's message (never its cause);
//   - context.Canceled and context.DeadlineExceeded become Canceled and
//     DeadlineExceeded;
//   - a gRPC status passes through (a deliberate status, or one from a
//     service this one called); an InvalidArgument from request validation
//     gains an ErrorInfo naming the field;
//   - anything else — panics, fault.Internal, and statuses without
//     ErrorInfo that a gRPC client makes up from transport failures
//     (Unavailable, Internal, Unknown, DataLoss: their text names internal
//     addresses) — becomes Internal (Unavailable stays Unavailable, so the
//     caller retries) with a fresh correlation ID, which is logged with the
//     real error and is the only thing the caller learns.
func ToStatus(ctx context.Context, log *slog.Logger, fullMethod string, err error) error {
	if err == nil {
		return nil
	}
	domain := Domain(fullMethod)
	if f, ok := fault.As(err); ok && f.Kind != fault.Internal {
		return faultStatus(f, domain).Err()
	}
	switch {
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, "request canceled")
	case errors.Is(err, context.DeadlineExceeded):
		return withReason(status.New(codes.DeadlineExceeded, "deadline exceeded"), ReasonDeadlineExceeded, domain).Err()
	}
	if panicked, ok := errors.AsType[*recovery.PanicError](err); ok {
		return mask(ctx, log, fullMethod, domain, codes.Internal, err, panicked).Err()
	}
	var withStatus interface{ GRPCStatus() *status.Status }
	if !errors.As(err, &withStatus) {
		return mask(ctx, log, fullMethod, domain, codes.Internal, err, nil).Err()
	}
	// The status itself, not status.FromError's copy whose message is
	// prefixed with our own wrapping context.
	st := withStatus.GRPCStatus()
	switch code := st.Code(); {
	case code == codes.InvalidArgument:
		return withFieldInfo(st, domain).Err()
	case code == codes.OK, code == codes.Unknown:
		return mask(ctx, log, fullMethod, domain, codes.Internal, err, nil).Err()
	case hasErrorInfo(st):
		return st.Err()
	case code == codes.Unavailable:
		return mask(ctx, log, fullMethod, domain, codes.Unavailable, err, nil).Err()
	case code == codes.Internal, code == codes.DataLoss:
		return mask(ctx, log, fullMethod, domain, codes.Internal, err, nil).Err()
	case code == codes.ResourceExhausted:
		// gRPC's own message-size refusal, whose text names the limit
		// ("received message larger than max (5242880 vs. 4194304)").
		log.DebugContext(ctx, "rpc refused: message too large", "method", fullMethod, "error", err.Error())
		return withReason(status.New(codes.ResourceExhausted, "the request is larger than the limit"), ReasonRequestTooLarge, domain).Err()
	}
	// Statuses that gRPC or a plain server made without ErrorInfo still
	// get the reason their code always has.
	switch st.Code() {
	case codes.Unauthenticated:
		return withReason(st, ReasonUnauthenticated, domain).Err()
	case codes.PermissionDenied:
		return withReason(st, ReasonPermissionDenied, domain).Err()
	case codes.Unimplemented:
		return withReason(st, ReasonNotImplemented, domain).Err()
	case codes.DeadlineExceeded:
		return withReason(st, ReasonDeadlineExceeded, domain).Err()
	}
	return st.Err()
}

// withReason returns st with an ErrorInfo of reason prepended to its details.
func withReason(st *status.Status, reason, domain string) *status.Status {
	info, err := anypb.New(&errdetails.ErrorInfo{Reason: reason, Domain: domain})
	if err != nil {
		return st // cannot happen for this message
	}
	p := st.Proto()
	p.Details = append([]*anypb.Any{info}, p.GetDetails()...)
	return status.FromProto(p)
}

func faultStatus(f *fault.Error, domain string) *status.Status {
	msg := f.Message
	msg = cmp.Or(msg, f.Reason)
	st := status.New(CodeOf(f.Kind), msg)
	info := &errdetails.ErrorInfo{Reason: f.Reason, Domain: domain, Metadata: maps.Clone(f.Meta)}
	if info.Reason == "" {
		info.Reason = strings.ToUpper(st.Code().String())
	}
	if f.Rule != "" {
		if info.Metadata == nil {
			info.Metadata = map[string]string{}
		}
		info.Metadata[MetaRuleID] = f.Rule
	}
	return mustDetails(st, info)
}

// mask logs err (or the panic) under a fresh correlation ID and returns a
// status of code that carries only that ID.
func mask(ctx context.Context, log *slog.Logger, fullMethod, domain string, code codes.Code, err error, panicked *recovery.PanicError) *status.Status {
	id := CorrelationID()
	attrs := []any{"method", fullMethod, MetaCorrelationID, id}
	switch {
	case panicked != nil:
		log.ErrorContext(ctx, "rpc handler panicked", append(attrs, "panic", panicked.Panic, "stack", string(panicked.Stack))...)
	case code == codes.Unavailable:
		log.WarnContext(ctx, "rpc failed: a dependency is unavailable", append(attrs, "error", err.Error())...)
	default:
		log.ErrorContext(ctx, "rpc failed with an internal error", append(attrs, "error", err.Error())...)
	}
	reason, what := ReasonInternal, "internal error"
	if code == codes.Unavailable {
		reason, what = ReasonUnavailable, "temporarily unavailable, retry later"
	}
	st := status.New(code, what+" (correlation id "+id+")")
	return mustDetails(st, &errdetails.ErrorInfo{Reason: reason, Domain: domain, Metadata: map[string]string{MetaCorrelationID: id}})
}

func hasErrorInfo(st *status.Status) bool {
	return slices.ContainsFunc(st.Details(), func(d any) bool {
		_, ok := d.(*errdetails.ErrorInfo)
		return ok
	})
}

// withFieldInfo adds ErrorInfo (reason INVALID_ARGUMENT, metadata "field"
// and "constraint") and google.rpc.BadRequest to a protovalidate failure,
// so REST callers get the same reason/metadata shape as for domain faults.
func withFieldInfo(st *status.Status, domain string) *status.Status {
	if hasErrorInfo(st) {
		return st // already described
	}
	var violations *validate.Violations
	for _, d := range st.Details() {
		if v, ok := d.(*validate.Violations); ok {
			violations = v
		}
	}
	if violations == nil || len(violations.GetViolations()) == 0 {
		// A malformed request (a JSON body the gateway could not decode)
		// rather than one a rule refused: the reason still says so.
		return withReason(st, ReasonInvalidArgument, domain)
	}
	bad := &errdetails.BadRequest{}
	for _, v := range violations.GetViolations() {
		bad.FieldViolations = append(bad.FieldViolations, &errdetails.BadRequest_FieldViolation{
			Field:       protovalidate.FieldPathString(v.GetField()),
			Description: v.GetMessage(),
			Reason:      v.GetRuleId(),
		})
	}
	first := violations.GetViolations()[0]
	info := &errdetails.ErrorInfo{
		Reason: ReasonInvalidArgument,
		Domain: domain,
		Metadata: map[string]string{
			MetaField:      protovalidate.FieldPathString(first.GetField()),
			MetaConstraint: first.GetRuleId(),
		},
	}
	// Rebuild rather than append so that ErrorInfo comes first: clients
	// (and the gateway) that read only the first detail get the reason.
	out := status.New(st.Code(), st.Message())
	return mustDetails(out, info, bad, violations)
}

func mustDetails(st *status.Status, details ...protoadapt.MessageV1) *status.Status {
	withDetails, err := st.WithDetails(details...)
	if err != nil {
		// Only possible for a nil or non-proto detail, which we never pass.
		return st
	}
	return withDetails
}

// CorrelationID returns a fresh random ID that ties a masked error the
// caller sees to the log line holding the real one.
func CorrelationID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
