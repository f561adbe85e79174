package testkit

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// handedOut holds every port FreeAddr gave in this test process.
var handedOut sync.Map

// FreeAddr returns a loopback address for a child process to listen on:
// nobody listens there now, this test process has not handed it out
// before, and the port lies below the kernel's ephemeral range.
//
// The port must be free from the moment it is chosen until the child binds
// it. A port asked of the kernel with ":0" comes from the ephemeral range,
// which is also where every outgoing connection (a child's to Redis or
// PostgreSQL) takes its local port, so under load another process's
// connection took it in between and the child failed "address already in
// use". Below that range only an explicit bind can take a port — and
// another test process's FreeAddr could pick the same port for its own
// child in the seconds before either child binds it, so the port is also
// reserved machine-wide (reserve) until the test ends.
func FreeAddr(t testing.TB) string {
	t.Helper()
	lo, hi := belowEphemeral()
	return freeAddrFrom(t, func() int { return lo + rand.IntN(hi-lo) }, lo, hi)
}

// freeAddrFrom is FreeAddr drawing its candidates from draw, which keeps
// what FreeAddr skips testable with chosen ports.
func freeAddrFrom(t testing.TB, draw func() int, lo, hi int) string {
	t.Helper()
	for range 10000 {
		port := draw()
		if _, taken := handedOut.LoadOrStore(port, true); taken {
			continue
		}
		release, ok := reserve(port)
		if !ok {
			continue // another test process handed it out
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		l, err := net.Listen("tcp", addr)
		if err != nil {
			release()
			continue // someone listens there
		}
		if err := l.Close(); err != nil {
			t.Fatalf("free address %s: %v", addr, err)
		}
		t.Cleanup(release)
		return addr
	}
	t.Fatalf("no free loopback port in [%d, %d)", lo, hi)
	return ""
}

// belowEphemeral returns the ports [lo, hi) under the kernel's ephemeral
// range (Linux's default starts at 32768) and above the well-known and
// commonly configured ones.
func belowEphemeral() (lo, hi int) {
	lo, hi = 10000, 32768
	raw, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return lo, hi
	}
	var first, last int
	if _, err := fmt.Sscan(strings.TrimSpace(string(raw)), &first, &last); err != nil || first <= lo+1000 {
		return lo, hi
	}
	return lo, first
}
