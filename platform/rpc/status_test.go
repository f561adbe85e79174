package rpc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/recovery"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cardroom/cardroom/platform/fault"
)

var errBelowMinimum = fault.Rule(fault.Precondition, "CS-03", "BUY_IN_BELOW_MINIMUM", "buy-in below the table minimum")

func errorInfo(t *testing.T, err error) *errdetails.ErrorInfo {
	t.Helper()
	st, _ := status.FromError(err)
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info
		}
	}
	t.Fatalf("status %v has no ErrorInfo", st)
	return nil
}

func TestToStatusMapsFaultKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind fault.Kind
		code codes.Code
	}{
		{fault.Invalid, codes.InvalidArgument},
		{fault.Precondition, codes.FailedPrecondition},
		{fault.NotFound, codes.NotFound},
		{fault.Conflict, codes.AlreadyExists},
		{fault.Aborted, codes.Aborted},
		{fault.Forbidden, codes.PermissionDenied},
		{fault.Unauthenticated, codes.Unauthenticated},
		{fault.Unavailable, codes.Unavailable},
	}
	for _, tt := range tests {
		t.Run(tt.kind.String(), func(t *testing.T) {
			t.Parallel()
			err := ToStatus(t.Context(), slog.Default(), "/cardroom.wallet.v1.WalletService/HoldBuyIn", fault.New(tt.kind, "SOME_REASON", "what happened"))
			st, _ := status.FromError(err)
			if st.Code() != tt.code || st.Message() != "what happened" {
				t.Fatalf("status = %v %q, want %v", st.Code(), st.Message(), tt.code)
			}
			info := errorInfo(t, err)
			if info.GetReason() != "SOME_REASON" || info.GetDomain() != "cardroom.wallet" {
				t.Fatalf("ErrorInfo = %v", info)
			}
			if _, ok := info.GetMetadata()[MetaRuleID]; ok {
				t.Fatalf("rule_id set for a fault without a rule: %v", info)
			}
		})
	}
}

func TestToStatusCarriesRuleAndMetadata_CS03(t *testing.T) {
	t.Parallel()
	cause := errors.New("SELECT ... secret table name")
	err := fmt.Errorf("buy in to t1: %w", errBelowMinimum.With("min", "400", "max", "1000").Wrap(cause))
	got := ToStatus(t.Context(), slog.Default(), "/cardroom.table.v1.TableService/Sit", err)
	st, _ := status.FromError(got)
	if st.Code() != codes.FailedPrecondition {
		t.Fatalf("code = %v", st.Code())
	}
	if strings.Contains(st.Message(), "secret") {
		t.Fatalf("message leaks the cause: %q", st.Message())
	}
	info := errorInfo(t, got)
	want := map[string]string{"rule_id": "CS-03", "min": "400", "max": "1000"}
	if info.GetReason() != "BUY_IN_BELOW_MINIMUM" || info.GetDomain() != "cardroom.table" || fmt.Sprint(info.GetMetadata()) != fmt.Sprint(want) {
		t.Fatalf("ErrorInfo = %v", info)
	}
	if errBelowMinimum.Meta != nil {
		t.Fatal("ToStatus mutated the sentinel")
	}
}

func TestToStatusMasksUnexpectedErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		err    error
		logged string
		code   codes.Code
		reason string
	}{
		{"plain error", errors.New("pq: connection refused to 10.0.0.7"), "pq: connection refused to 10.0.0.7", codes.Internal, ReasonInternal},
		{"internal fault", fault.New(fault.Internal, "", "ledger out of balance").Wrap(errors.New("debits 5 != credits 4")), "debits 5 != credits 4", codes.Internal, ReasonInternal},
		{"panic", &recovery.PanicError{Panic: "nil map write", Stack: []byte("goroutine 7 [running]")}, "goroutine 7 [running]", codes.Internal, ReasonInternal},
		{"unknown status", status.Error(codes.Unknown, "mystery"), "mystery", codes.Internal, ReasonInternal},
		// What a gRPC client reports when the service it calls is down or
		// misbehaves: transport text naming internal addresses.
		{"dependency unreachable", fmt.Errorf("hold buy-in: %w", status.Error(codes.Unavailable, `connection error: desc = "transport: Error while dialing: dial tcp 10.0.3.4:9090: connect: connection refused"`)), "10.0.3.4:9090", codes.Unavailable, ReasonUnavailable},
		{"dependency internal error", status.Error(codes.Internal, "grpc: error while marshaling: proto: field wallet.secret_ledger invalid"), "secret_ledger", codes.Internal, ReasonInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var logs bytes.Buffer
			log := slog.New(slog.NewJSONHandler(&logs, nil))
			err := ToStatus(t.Context(), log, "/cardroom.wallet.v1.WalletService/CashOut", tt.err)
			st, _ := status.FromError(err)
			if st.Code() != tt.code {
				t.Fatalf("code = %v, want %v", st.Code(), tt.code)
			}
			info := errorInfo(t, err)
			id := info.GetMetadata()[MetaCorrelationID]
			if len(id) != 16 || info.GetReason() != tt.reason || !strings.Contains(st.Message(), id) {
				t.Fatalf("status %q, ErrorInfo %v: want a correlation id in both", st.Message(), info)
			}
			if strings.Contains(st.Message(), tt.logged) {
				t.Fatalf("message leaks the error: %q", st.Message())
			}
			if !strings.Contains(logs.String(), id) || !strings.Contains(logs.String(), tt.logged) {
				t.Fatalf("log lacks the correlation id or the real error: %s", logs.String())
			}
		})
	}
}

func TestToStatusContextAndPassThrough(t *testing.T) {
	t.Parallel()
	upstream := status.New(codes.FailedPrecondition, "below minimum")
	upstream, _ = upstream.WithDetails(&errdetails.ErrorInfo{Reason: "BUY_IN_BELOW_MINIMUM", Domain: "cardroom.wallet", Metadata: map[string]string{"rule_id": "CS-03"}})
	// An upstream cardroom service already masked its internal error; its
	// correlation ID is what the caller needs to quote.
	upstreamInternal, _ := status.New(codes.Internal, "internal error (correlation id 0123456789abcdef)").
		WithDetails(&errdetails.ErrorInfo{Reason: ReasonInternal, Domain: "cardroom.wallet", Metadata: map[string]string{MetaCorrelationID: "0123456789abcdef"}})
	upstreamUnavailable, _ := status.New(codes.Unavailable, "the wallet is draining").
		WithDetails(&errdetails.ErrorInfo{Reason: ReasonUnavailable, Domain: "cardroom.wallet"})
	tests := []struct {
		name    string
		err     error
		code    codes.Code
		message string // passed through unchanged, when set
	}{
		{"canceled", fmt.Errorf("load: %w", context.Canceled), codes.Canceled, ""},
		{"deadline", fmt.Errorf("load: %w", context.DeadlineExceeded), codes.DeadlineExceeded, ""},
		{"deliberate status", status.Error(codes.NotFound, "no such hand"), codes.NotFound, "no such hand"},
		{"upstream status wrapped", fmt.Errorf("hold buy-in: %w", upstream.Err()), codes.FailedPrecondition, "below minimum"},
		{"upstream masked internal error", upstreamInternal.Err(), codes.Internal, "internal error (correlation id 0123456789abcdef)"},
		{"deliberate unavailable with reason", upstreamUnavailable.Err(), codes.Unavailable, "the wallet is draining"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := ToStatus(t.Context(), slog.Default(), "/cardroom.table.v1.TableService/Sit", tt.err)
			if got := status.Code(err); got != tt.code {
				t.Fatalf("code = %v, want %v", got, tt.code)
			}
			if got := status.Convert(err).Message(); tt.message != "" && got != tt.message {
				t.Fatalf("message = %q, want the upstream's %q", got, tt.message)
			}
		})
	}
	// The upstream service's reason and rule survive the hop.
	err := ToStatus(t.Context(), slog.Default(), "/cardroom.table.v1.TableService/Sit", fmt.Errorf("hold: %w", upstream.Err()))
	if info := errorInfo(t, err); info.GetReason() != "BUY_IN_BELOW_MINIMUM" || info.GetMetadata()["rule_id"] != "CS-03" {
		t.Fatalf("upstream ErrorInfo lost: %v", info)
	}
	if ToStatus(t.Context(), slog.Default(), "/x/y", nil) != nil {
		t.Fatal("nil error became a status")
	}
}

func TestDomain(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"/cardroom.wallet.v1.WalletService/OpenAccount": "cardroom.wallet",
		"/cardroom.table.v1.TableService/Sit":           "cardroom.table",
		"/grpc.health.v1.Health/Check":                  "cardroom",
		"garbage":                                       "cardroom",
	}
	for in, want := range tests {
		if got := Domain(in); got != want {
			t.Errorf("Domain(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestToStatusGivesEveryStatusAReason: statuses gRPC itself makes (or a
// plain server returns) without ErrorInfo still reach the client with a
// reason from the closed list, and gRPC's message-size refusal does not
// tell the client the limit's internals.
func TestToStatusGivesEveryStatusAReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		err     error
		code    codes.Code
		reason  string
		message string // "" keeps the original's
	}{
		{"message over the limit", status.Error(codes.ResourceExhausted, "grpc: received message larger than max (5242880 vs. 4194304)"), codes.ResourceExhausted, ReasonRequestTooLarge, "the request is larger than the limit"},
		{"RPC not served here", status.Error(codes.Unimplemented, "unknown service cardroom.seating.v1.SeatingService"), codes.Unimplemented, ReasonNotImplemented, ""},
		{"the caller's deadline", context.DeadlineExceeded, codes.DeadlineExceeded, ReasonDeadlineExceeded, "deadline exceeded"},
		{"a deadline status", status.Error(codes.DeadlineExceeded, "context deadline exceeded"), codes.DeadlineExceeded, ReasonDeadlineExceeded, ""},
		{"malformed request", status.Error(codes.InvalidArgument, "unexpected EOF"), codes.InvalidArgument, ReasonInvalidArgument, ""},
		{"bare unauthenticated", status.Error(codes.Unauthenticated, "no token"), codes.Unauthenticated, ReasonUnauthenticated, ""},
		{"bare permission denied", status.Error(codes.PermissionDenied, "no"), codes.PermissionDenied, ReasonPermissionDenied, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := ToStatus(t.Context(), slog.New(slog.DiscardHandler), "/cardroom.table.v1.TableService/Sit", tt.err)
			st, _ := status.FromError(err)
			want := tt.message
			if want == "" {
				want = status.Convert(tt.err).Message()
			}
			if st.Code() != tt.code || st.Message() != want {
				t.Fatalf("status = %v %q, want %v %q", st.Code(), st.Message(), tt.code, want)
			}
			if info := errorInfo(t, err); info.GetReason() != tt.reason || info.GetDomain() != "cardroom.table" {
				t.Fatalf("ErrorInfo = %v, want reason %s", info, tt.reason)
			}
		})
	}
}
