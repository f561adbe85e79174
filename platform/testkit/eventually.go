package testkit

import (
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/testkit/poll"
)

// Eventually polls cond until it returns nil or timeout passes, then fails
// the test with cond's last error (poll.Eventually). It is the one way
// tests wait for an asynchronous effect (an event consumed, a lease taken
// over): a condition with a deadline, never a bare sleep.
func Eventually(t testing.TB, timeout time.Duration, cond func() error) {
	t.Helper()
	poll.Eventually(t, timeout, cond)
}
