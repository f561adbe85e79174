package tables_test

import (
	"context"
	"errors"
	"maps"
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
	err    error
	status *tablev1.TournamentTableStatus
}

func (c statuser) GetTournamentTable(context.Context, *tablev1.GetTournamentTableRequest, ...grpc.CallOption) (*tablev1.GetTournamentTableResponse, error) {
	if c.err != nil {
		return nil, c.err
	}
	return &tablev1.GetTournamentTableResponse{Status: c.status}, nil
}

// TestStatus_AllInWithNothingBehind_TR17: a seat dealt into the hand in
// play with nothing behind is all in — its chips are in the pot, not lost
// — which the add-on's decision needs (TR-17: a player who lost every chip
// must rebuy first; one all in waits for the hand's end). A seat with
// chips behind, or one not dealt in with none (busted), is not.
func TestStatus_AllInWithNothingBehind_TR17(t *testing.T) {
	t.Parallel()
	st, err := tables.New(statuser{status: &tablev1.TournamentTableStatus{InHand: true, Seats: []*tablev1.TournamentSeat{
		{Seat: 0, PlayerId: "ann", Stack: 0, InHand: true},
		{Seat: 1, PlayerId: "bob", Stack: 500, InHand: true},
		{Seat: 2, PlayerId: "cat", Stack: 0, PendingChips: 2000},
	}}}).Status(t.Context(), "t1")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, s := range st.Seats {
		got[s.Player] = s.AllIn
	}
	if want := map[string]bool{"ann": true, "bob": false, "cat": false}; !maps.Equal(got, want) {
		t.Fatalf("all in: %v, want %v", got, want)
	}
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

// opener records the OpenTournamentTable request it answers.
type opener struct {
	tablev1.TournamentTableServiceClient
	got *tablev1.OpenTournamentTableRequest
}

func (o *opener) OpenTournamentTable(_ context.Context, req *tablev1.OpenTournamentTableRequest, _ ...grpc.CallOption) (*tablev1.OpenTournamentTableResponse, error) {
	o.got = req
	return &tablev1.OpenTournamentTableResponse{Table: &tablev1.Table{TableId: "t1"}}, nil
}

// TestOpen_LiveEventOpensLiveTables_TP68_TP59: an event dealt live opens
// live tables (the dealer enters the physical cards, TP-68) with no action
// clock of their own (the dealer calls the clock, TP-59); the adapter
// opened every table digital whatever the event said, so a live event's
// moved players were dealt in before they had sat down (TR-23).
func TestOpen_LiveEventOpensLiveTables_TP68_TP59(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		live  bool
		mode  tablev1.TableMode
		clock int32
	}{
		{false, tablev1.TableMode_TABLE_MODE_DIGITAL, 0},
		{true, tablev1.TableMode_TABLE_MODE_LIVE, -1},
	} {
		o := &opener{}
		if _, err := tables.New(o).Open(t.Context(), director.OpenTable{Key: "k", TournamentID: "ev", Name: "T1", Game: "HOLDEM",
			Structure: "NO_LIMIT", Seats: 9, SmallBlind: 25, BigBlind: 50, Live: c.live}); err != nil {
			t.Fatal(err)
		}
		if o.got.GetMode() != c.mode || o.got.GetActionSeconds() != c.clock {
			t.Errorf("live=%v opened %v with action_seconds %d, want %v with %d", c.live, o.got.GetMode(), o.got.GetActionSeconds(), c.mode, c.clock)
		}
	}
}
