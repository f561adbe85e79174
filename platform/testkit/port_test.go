package testkit

import (
	"net"
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
		_, raw, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatal(err)
		}
		port, err := strconv.Atoi(raw)
		if err != nil {
			t.Fatal(err)
		}
		if port < lo || port >= hi {
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
