package testkit

import (
	"context"
	"crypto/rand"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/rpc"
)

// GRPC is a real gRPC server on a loopback port, built by rpc.NewServer
// exactly as production builds it (authentication, per-RPC roles,
// validation, error mapping), and a client connection to it.
type GRPC struct {
	Conn   *grpc.ClientConn
	Issuer *auth.Issuer
	// Verifier checks the Issuer's tokens, for a REST gateway in front of
	// the server.
	Verifier *auth.Verifier
}

// Keys returns a token issuer and a verifier sharing a fresh random
// signing key: what several servers of one test (replicas of a service)
// need to accept the same tokens.
func Keys(t testing.TB) (*auth.Issuer, *auth.Verifier) {
	t.Helper()
	key := make([]byte, auth.MinKeyLen)
	_, _ = rand.Read(key)
	verifier, err := auth.NewVerifier(key, clock.Real{})
	if err != nil {
		t.Fatal(err)
	}
	issuer, err := auth.NewIssuer(key, clock.Real{})
	if err != nil {
		t.Fatal(err)
	}
	return issuer, verifier
}

// StartGRPC starts a server with the services that register adds and stops
// it when the test ends.
func StartGRPC(t testing.TB, register func(grpc.ServiceRegistrar)) *GRPC {
	t.Helper()
	issuer, verifier := Keys(t)
	srv := rpc.NewServer(rpc.Options{Verifier: verifier})
	register(srv)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(func() { rpc.Shutdown(srv, time.Second) })
	return &GRPC{Conn: dial(t, lis.Addr().String(), rpc.Options{}), Issuer: issuer, Verifier: verifier}
}

// ServiceConn returns a connection to the server as another part dials
// it: a call whose context carries no token goes with a service token for
// subject sub (rpc.Options.ServiceToken).
func (g *GRPC) ServiceConn(t testing.TB, sub string) *grpc.ClientConn {
	t.Helper()
	return dial(t, g.Conn.Target(), rpc.Options{ServiceToken: g.Issuer.ServiceTokens(sub, time.Hour)})
}

// Unreachable returns a connection to an address nothing listens on: a
// neighbour that is down.
func Unreachable(t testing.TB) *grpc.ClientConn {
	t.Helper()
	return dial(t, FreeAddr(t), rpc.Options{})
}

// dial connects to target and closes the connection when the test ends
// (before a server StartGRPC started stops).
func dial(t testing.TB, target string, o rpc.Options) *grpc.ClientConn {
	t.Helper()
	conn, err := rpc.Dial(target, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// As returns a context that calls as subject sub with the given roles.
func (g *GRPC) As(t testing.TB, sub string, roles ...auth.Role) context.Context {
	t.Helper()
	tok, err := g.Issuer.Mint(sub, roles, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return auth.WithToken(t.Context(), tok)
}
