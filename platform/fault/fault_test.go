package fault

import (
	"errors"
	"fmt"
	"testing"
)

var errBelowMinimum = Rule(Precondition, "CS-03", "BUY_IN_BELOW_MINIMUM", "buy-in below the table minimum")

func TestSentinelMatchesAfterWithAndWrapping(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("buy in to t1: %w", errBelowMinimum.With("min", "400", "max", "1000"))
	if !errors.Is(err, errBelowMinimum) {
		t.Fatal("errors.Is lost the sentinel")
	}
	f, ok := As(err)
	if !ok || f.Meta["min"] != "400" || f.Rule != "CS-03" {
		t.Fatalf("As = %+v, %v", f, ok)
	}
	if errBelowMinimum.Meta != nil {
		t.Fatal("With mutated the sentinel")
	}
	if got := KindOf(err); got != Precondition {
		t.Fatalf("KindOf = %v", got)
	}
	if got := KindOf(errors.New("boom")); got != Internal {
		t.Fatalf("KindOf(plain) = %v", got)
	}
}

func TestErrorString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want string
	}{
		{errBelowMinimum, "buy-in below the table minimum (CS-03 BUY_IN_BELOW_MINIMUM)"},
		{New(NotFound, "ACCOUNT_NOT_FOUND", "no account a1"), "no account a1 (ACCOUNT_NOT_FOUND)"},
		{Invalidf("amount", "must be positive, got %d", -5), "amount: must be positive, got -5 (INVALID_ARGUMENT)"},
		{New(Internal, "", "x").Wrap(errors.New("cause")), "x: cause"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestIsDistinguishesReasonAndRule(t *testing.T) {
	t.Parallel()
	other := Rule(Precondition, "CS-02", "BUY_IN_BELOW_MINIMUM", "limit minimum")
	if errors.Is(other, errBelowMinimum) {
		t.Fatal("different rule matched")
	}
	if errors.Is(New(Precondition, "OTHER", "x"), errBelowMinimum) {
		t.Fatal("different reason matched")
	}
}
