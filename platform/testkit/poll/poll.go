// Package poll is how tests wait for an asynchronous effect: a condition
// polled until it holds or a deadline passes. It imports nothing of ours,
// so any test can use it — the tests of a package that testkit itself
// imports (rpc), and modules that must not take testkit's database and
// Redis drivers (the gateway). testkit.Eventually is the same wait.
package poll

import (
	"testing"
	"time"
)

// Eventually polls cond until it returns nil or timeout passes, then fails
// the test with cond's last error: a condition with a deadline, never a
// bare sleep. The poll interval starts at 5 ms and doubles up to 100 ms so
// quick effects are seen quickly and slow ones do not spin.
func Eventually(t testing.TB, timeout time.Duration, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	wait := 5 * time.Millisecond
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %v", timeout, err)
		}
		timer := time.NewTimer(wait)
		<-timer.C
		wait = min(2*wait, 100*time.Millisecond)
	}
}
