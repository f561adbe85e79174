package rpc

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Refused reports whether err, the error of a call a service made to a
// neighbour with its own token (a table's or a tournament's call to the
// wallet), is the neighbour's answer refusing the request: it looked at the
// request, did nothing, and would refuse it again — InvalidArgument,
// FailedPrecondition, NotFound, AlreadyExists, PermissionDenied and
// OutOfRange. The caller settles the step and shows the refusal, whose
// status (reason, rule) is the neighbour's.
//
// Any other error is no answer, and the step may yet go through under the
// same idempotency key: Unavailable, DeadlineExceeded, Canceled and
// Internal (the call may have run); Aborted (the neighbour lost a race: a
// newer epoch, the same key in flight); ResourceExhausted and Unimplemented
// (busy, or a replica of an older version during a roll-out); and
// Unauthenticated — the neighbour refused the service's own token (expired
// before its renewal, a signing key being rolled), not the request, which
// it never looked at; shown to a player it would read as their own session
// ending.
//
// Every adapter to a neighbour classifies with Refused, so that the rule
// lives once.
func Refused(err error) bool {
	switch status.Code(err) {
	case codes.InvalidArgument, codes.FailedPrecondition, codes.NotFound, codes.AlreadyExists, codes.PermissionDenied,
		codes.OutOfRange:
		return true
	}
	return false
}
