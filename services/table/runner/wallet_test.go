package runner_test

import (
	"errors"
	"testing"

	"github.com/cardroom/cardroom/services/table/runner"
)

// TestNewNeedsAWallet: a runner built without a wallet is refused when it
// is built, not when its first buy-in reaches for the missing wallet; a
// runner of tables without money is built with NoMoney.
func TestNewNeedsAWallet(t *testing.T) {
	t.Parallel()
	if r, err := runner.New(runner.Deps{}); !errors.Is(err, runner.ErrNoWallet) || r != nil {
		t.Fatalf("New without a wallet: %v, %v; want nil, ErrNoWallet", r, err)
	}
	r, err := runner.New(runner.Deps{Wallet: runner.NoMoney{}})
	if err != nil {
		t.Fatalf("New with NoMoney: %v", err)
	}
	r.Close()
}
