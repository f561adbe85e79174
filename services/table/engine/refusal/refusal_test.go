package refusal

import (
	"errors"
	"fmt"
	"testing"

	"github.com/cardroom/cardroom/platform/fault"
)

// TestFault_ServerInconsistenciesAreInternal: a refusal, wrapped as it
// travels, is found by fault.As as the fault clients get, with no call to
// convert it.
func TestFault_ServerInconsistenciesAreInternal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		err      error
		kind     fault.Kind
		reason   string
		rule     string
		internal bool
	}{
		{"deck too short", &Error{Reason: DeckTooShort, Msg: "need 9 cards"}, fault.Internal, "", "", true},
		{"bad player count", &Error{Reason: BadPlayerCount, Msg: "11 players"}, fault.Internal, "", "", true},
		{"bad table", &Error{Reason: BadTable, Msg: "11 seats"}, fault.Internal, "", "", true},
		{"bad situation", &Error{Rule: "TP-31", Reason: BadSituation, Msg: "chip unit"}, fault.Internal, "", "", true},
		{"bad out-of-turn case", &Error{Reason: BadOutOfTurnCase, Msg: "no seat"}, fault.Internal, "", "", true},
		{"TP-46 out of turn stays a refusal", &Error{Rule: "TP-46", Reason: OutOfTurn, Msg: "not your turn"},
			fault.Precondition, "OUT_OF_TURN", "TP-46", false},
		{"TP-22 raise below minimum stays a refusal", &Error{Rule: "TP-22", Reason: RaiseBelowMinimum, Msg: "too small", Min: 4, Max: 100},
			fault.Precondition, "RAISE_BELOW_MINIMUM", "TP-22", false},
		{"negative amount stays invalid", &Error{Reason: NegativeAmount, Msg: "negative"}, fault.Invalid, "NEGATIVE_AMOUNT", "", false},
		{"TP-20 straddle stays a refusal", &Error{Rule: "TP-20", Reason: StraddleShort, Msg: "short"},
			fault.Precondition, "STRADDLE_STACK_TOO_SHORT", "TP-20", false},
		{"TP-31 live entry stays invalid", &Error{Rule: "TP-31", Reason: NotChipMultiple, Msg: "odd chips", Malformed: true},
			fault.Invalid, "NOT_CHIP_UNIT_MULTIPLE", "TP-31", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := fmt.Errorf("start hand: %w", tt.err)
			f, ok := fault.As(err)
			if !ok || f.Kind != tt.kind {
				t.Fatalf("%v = %v (kind %v), want kind %v", tt.err, err, fault.KindOf(err), tt.kind)
			}
			if tt.internal {
				// The detail stays in the chain for the log.
				if !errors.Is(err, tt.err) {
					t.Fatalf("the cause is lost: %v", err)
				}
				return
			}
			if f.Reason != tt.reason || f.Rule != tt.rule {
				t.Fatalf("%v = reason %q rule %q, want %q %q", tt.err, f.Reason, f.Rule, tt.reason, tt.rule)
			}
		})
	}
}
