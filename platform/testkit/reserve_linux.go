package testkit

import (
	"net"
	"strconv"
)

// reserve claims port among every test process on the machine until
// release is called (or the process exits): it binds an abstract Unix
// socket named for the port, which the kernel frees with the descriptor —
// no file is left behind, not even after a kill -9. It reports false when
// another process holds the claim.
func reserve(port int) (release func(), ok bool) {
	l, err := net.Listen("unix", "@cardroom-testkit-port-"+strconv.Itoa(port))
	if err != nil {
		return nil, false
	}
	return func() { _ = l.Close() }, true
}
