package rpc

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestRefusedSplitsEveryCode: each gRPC code is either a neighbour's
// refusal, settled and shown, or no answer, retried under the same key. A
// code read as a refusal when the call may have gone through (or was
// never looked at) loses a step the neighbour made; one read as no answer
// retries a step that never can. The table's and the tournament's wallet
// adapters both follow this rule (their tests check them against it).
func TestRefusedSplitsEveryCode(t *testing.T) {
	t.Parallel()
	refused := map[codes.Code]bool{
		codes.InvalidArgument: true, codes.FailedPrecondition: true, codes.NotFound: true, codes.AlreadyExists: true,
		codes.PermissionDenied: true, codes.OutOfRange: true,
	}
	for c := codes.OK; c <= codes.Unauthenticated; c++ {
		err := status.Error(c, "answer")
		if got := Refused(err); got != refused[c] {
			t.Errorf("Refused(%s) = %v, want %v", c, got, refused[c])
		}
		if got := Refused(fmt.Errorf("wallet hold: %w", err)); got != refused[c] {
			t.Errorf("Refused(wrapped %s) = %v, want %v", c, got, refused[c])
		}
	}
	for _, err := range []error{nil, errors.New("dial: connection refused"), context.DeadlineExceeded} {
		if Refused(err) {
			t.Errorf("Refused(%v) = true, want false", err)
		}
	}
}
