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
// the table service's own failure (Internal, Unknown) is ErrFailed
// (repeated, backed off, reported when it keeps failing) and not taken
// for a failover; a refusal — TABLE_NOT_EMPTY above all — is never retried
// and carries its reason.
func TestClassify(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name        string
		err         error
		unreachable bool
		failed      bool
		reason      string
	}{
		{"answered", nil, false, false, ""},
		{"unavailable", status.Error(codes.Unavailable, "connection refused"), true, false, ""},
		{"deadline", status.Error(codes.DeadlineExceeded, "slow"), true, false, ""},
		{"owned elsewhere", withReason(codes.Unavailable, "TABLE_OWNED_ELSEWHERE"), true, false, ""},
		{"internal", status.Error(codes.Internal, "bug"), false, true, ""},
		{"unknown", status.Error(codes.Unknown, "panic"), false, true, ""},
		{"not empty", withReason(codes.FailedPrecondition, "TABLE_NOT_EMPTY"), false, false, "TABLE_NOT_EMPTY"},
		{"not found", withReason(codes.NotFound, "TABLE_NOT_FOUND"), false, false, "TABLE_NOT_FOUND"},
		{"key reused", withReason(codes.AlreadyExists, "IDEMPOTENCY_KEY_REUSED"), false, false, "IDEMPOTENCY_KEY_REUSED"},
		{"refused without detail", status.Error(codes.PermissionDenied, "no"), false, false, "PermissionDenied"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := tables.New(closer{err: c.err}).Close(t.Context(), "t1")
			if got := errors.Is(err, director.ErrUnreachable); got != c.unreachable {
				t.Fatalf("%v: unreachable %v, want %v", err, got, c.unreachable)
			}
			if got := errors.Is(err, director.ErrFailed); got != c.failed {
				t.Fatalf("%v: failed %v, want %v", err, got, c.failed)
			}
			if got := director.Refusal(err); got != c.reason {
				t.Fatalf("%v: refusal %q, want %q", err, got, c.reason)
			}
		})
	}
}

// statuser answers GetTournamentTable with err.
type statuser struct {
	tablev1.TournamentTableServiceClient
	err error
}

func (c statuser) GetTournamentTable(context.Context, *tablev1.GetTournamentTableRequest, ...grpc.CallOption) (*tablev1.GetTournamentTableResponse, error) {
	return nil, c.err
}

// TestStatus_ClosedTable: the table service refuses to read a closed
// table (TABLE_CLOSED); the director reads that as a closed table, not as
// a failure (a recovery pass closing the tables left failed on it for
// ever, seen in the cluster freezeout); other errors stay errors.
func TestStatus_ClosedTable(t *testing.T) {
	t.Parallel()
	st, err := tables.New(statuser{err: withReason(codes.FailedPrecondition, "TABLE_CLOSED")}).Status(t.Context(), "t1")
	if err != nil || !st.Closed {
		t.Fatalf("closed table: %+v, %v", st, err)
	}
	if _, err := tables.New(statuser{err: withReason(codes.NotFound, "TABLE_NOT_FOUND")}).Status(t.Context(), "t1"); director.Refusal(err) != "TABLE_NOT_FOUND" {
		t.Fatalf("unknown table: %v", err)
	}
}
