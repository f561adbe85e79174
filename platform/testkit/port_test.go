package testkit

import (
	"net"
	"runtime"
	"strconv"
	"testing"
)

// TestFreeAddrIsBelowTheEphemeralRange checks what keeps a child's port
// its own until it binds it: the port is never one the kernel gives an
// outgoing connection, nobody listens there, and no two calls share it.
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
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatalf("%s is not free: %v", addr, err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
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
