package tables_test

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/tournament/director"
	"github.com/cardroom/cardroom/services/tournament/tables"
)

// closer answers CloseTournamentTable with err.
type closer struct {
	tablev1.TournamentTableServiceClient
	err error
}

func (c closer) CloseTournamentTable(context.Context, *tablev1.CloseTournamentTableRequest, ...grpc.CallOption) (*tablev1.CloseTournamentTableResponse, error) {
	return &tablev1.CloseTournamentTableResponse{}, c.err
}

func withReason(code codes.Code, reason string) error {
	st, err := status.New(code, reason).WithDetails(&errdetails.ErrorInfo{Reason: reason, Domain: "table.cardroom"})
	if err != nil {
		panic(err)
	}
	return st.Err()
}

// TestClassify: no answer is ErrUnreachable (the control is repeated);
// a refusal — TABLE_NOT_EMPTY above all — is never retried and carries
// its reason.
func TestClassify(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name        string
		err         error
		unreachable bool
		reason      string
	}{
		{"answered", nil, false, ""},
		{"unavailable", status.Error(codes.Unavailable, "connection refused"), true, ""},
		{"deadline", status.Error(codes.DeadlineExceeded, "slow"), true, ""},
		{"owned elsewhere", withReason(codes.Unavailable, "TABLE_OWNED_ELSEWHERE"), true, ""},
		{"not empty", withReason(codes.FailedPrecondition, "TABLE_NOT_EMPTY"), false, "TABLE_NOT_EMPTY"},
		{"not found", withReason(codes.NotFound, "TABLE_NOT_FOUND"), false, "TABLE_NOT_FOUND"},
		{"key reused", withReason(codes.AlreadyExists, "IDEMPOTENCY_KEY_REUSED"), false, "IDEMPOTENCY_KEY_REUSED"},
		{"refused without detail", status.Error(codes.PermissionDenied, "no"), false, "PermissionDenied"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := tables.New(closer{err: c.err}).Close(t.Context(), "t1")
			if got := errors.Is(err, director.ErrUnreachable); got != c.unreachable {
				t.Fatalf("%v: unreachable %v, want %v", err, got, c.unreachable)
			}
			if got := director.Refusal(err); got != c.reason {
				t.Fatalf("%v: refusal %q, want %q", err, got, c.reason)
			}
		})
	}
}
