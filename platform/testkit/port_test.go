package testkit

import (
	"math/rand/v2"
	"net"
	"runtime"
	"strconv"
	"testing"
)

// TestFreeAddrIsBelowTheEphemeralRange checks that a child's port is never
// one the kernel gives an outgoing connection and that no two calls share
// one.
//
// It does not listen on the port again to see that it is still free: the
// port is free when FreeAddr returns it (FreeAddr has just listened there
// itself), and whether it stays free until the child binds it is the
// machine's, not FreeAddr's. Three clean-clone CI runs failed such a check
// with a port taken microseconds after FreeAddr's listen and close — once
// by a listener no process of the run's PID namespace held (no test
// process or child of ours: they are readable here, and claim their ports).
// What FreeAddr does skip is TestFreeAddrSkipsPortsInUse's.
func TestFreeAddrIsBelowTheEphemeralRange(t *testing.T) {
	t.Parallel()
	lo, hi := belowEphemeral()
	seen := map[string]bool{}
	for range 200 {
		addr := FreeAddr(t)
		if seen[addr] {
			t.Fatalf("%s handed out twice", addr)
		}
		seen[addr] = true
		if port := portOf(t, addr); port < lo || port >= hi {
			t.Fatalf("%s outside [%d, %d)", addr, lo, hi)
		}
	}
}

// TestFreeAddrSkipsPortsInUse draws, in turn, a port this process handed
// out before, one somebody listens on and one another test process has
// claimed: FreeAddr must pass over all three.
func TestFreeAddrSkipsPortsInUse(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the claim is an abstract Unix socket, Linux only")
	}
	handed := portOf(t, FreeAddr(t))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	listened := l.Addr().(*net.TCPAddr).Port
	lo, hi := belowEphemeral()
	claimed := lo + rand.IntN(hi-lo)
	release, ok := reserve(claimed)
	for !ok {
		claimed = lo + rand.IntN(hi-lo)
		release, ok = reserve(claimed)
	}
	defer release()
	skip := map[int]bool{handed: true, listened: true, claimed: true}

	drawn := []int{handed, listened, claimed}
	calls := 0
	addr := freeAddrFrom(t, func() int {
		calls++
		if calls <= len(drawn) {
			return drawn[calls-1]
		}
		return lo + rand.IntN(hi-lo)
	}, lo, hi)
	if got := portOf(t, addr); skip[got] {
		t.Fatalf("FreeAddr handed out %d; drew %v (handed out before, listened on, claimed) first", got, drawn)
	}
	if calls <= len(drawn) {
		t.Fatalf("FreeAddr drew %d ports, want more than %d", calls, len(drawn))
	}
}

// TestReserveHoldsAPortUntilReleased checks the machine-wide claim that
// keeps two test processes' FreeAddr from handing one port to two
// children: a held port cannot be claimed again (the kernel refuses the
// name to every process alike) until it is released.
func TestReserveHoldsAPortUntilReleased(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the claim is an abstract Unix socket, Linux only")
	}
	port := portOf(t, FreeAddr(t)) // claimed by this test until it ends
	if _, ok := reserve(port); ok {
		t.Fatalf("port %d claimed twice", port)
	}
	other := port + 1
	release, ok := reserve(other)
	if !ok {
		t.Skipf("port %d is claimed by another test process", other)
	}
	if _, ok := reserve(other); ok {
		t.Fatalf("port %d claimed twice", other)
	}
	release()
	again, ok := reserve(other)
	if !ok {
		t.Fatalf("port %d still claimed after its release", other)
	}
	again()
}

// portOf returns the port of a host:port address.
func portOf(t *testing.T, addr string) int {
	t.Helper()
	_, raw, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(raw)
	if err != nil {
		t.Fatal(err)
	}
	return port
}
