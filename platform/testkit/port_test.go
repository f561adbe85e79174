package testkit

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
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
			holders := socketsOn(portOf(t, addr))
			if !errors.Is(err, syscall.EADDRINUSE) || slices.ContainsFunc(holders, func(h string) bool { return strings.HasPrefix(h, "LISTEN") }) {
				t.Fatalf("%s is not free: %v (sockets on it: %v)", addr, err, holders)
			}
			// Two clean-clone CI runs failed here, the port taken in the
			// microseconds after FreeAddr's own listen and close, and by
			// nothing that listens. Say what held it, for the next look.
			t.Logf("%s taken after FreeAddr checked it, by no listener: %v", addr, holders)
			continue
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

// socketsOn describes the TCP sockets bound to a loopback port on Linux,
// each as its state, its inode and the command of the process holding it:
// what FreeAddr cannot see when a port is taken between its check and a
// bind.
func socketsOn(port int) []string {
	states := map[string]string{"01": "ESTABLISHED", "02": "SYN_SENT", "03": "SYN_RECV", "04": "FIN_WAIT1", "05": "FIN_WAIT2",
		"06": "TIME_WAIT", "07": "CLOSE", "08": "CLOSE_WAIT", "09": "LAST_ACK", "0A": "LISTEN", "0B": "CLOSING"}
	var out []string
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(raw), "\n")[1:] {
			fields := strings.Fields(line)
			if len(fields) < 10 || !strings.HasSuffix(fields[1], fmt.Sprintf(":%04X", port)) {
				continue
			}
			out = append(out, fmt.Sprintf("%s inode %s %s", states[fields[3]], fields[9], ownerOf(fields[9])))
		}
	}
	return out
}

// ownerOf finds the command of the process holding socket inode, if this
// process may read its descriptors.
func ownerOf(inode string) string {
	fds, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	for _, fd := range fds {
		if link, err := os.Readlink(fd); err == nil && link == "socket:["+inode+"]" {
			pid := strings.Split(fd, "/")[2]
			cmd, _ := os.ReadFile("/proc/" + pid + "/cmdline")
			return "pid " + pid + " " + strings.Join(strings.Fields(strings.ReplaceAll(string(cmd), "\x00", " ")), " ")
		}
	}
	return "(no process)"
}
