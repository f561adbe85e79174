package gateway_test

import (
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"buf.build/go/protovalidate"

	"github.com/cardroom/cardroom/gateway"
	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/rpc"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
)

// TestThroughPlatformServer runs the fake table service behind the real
// platform/rpc server (token check, per-RPC roles from the proto's access
// option, protovalidate, error mapping) and checks what a REST client sees:
// no token 401, wrong role 403, bad input 400 naming the field.
func TestThroughPlatformServer(t *testing.T) {
	t.Parallel()
	key := []byte("gateway-test-signing-key-0123456789abcdef")
	issuer, err := auth.NewIssuer(key, clock.Real{})
	if err != nil {
		t.Fatal(err)
	}
	verifier, err := auth.NewVerifier(key, clock.Real{})
	if err != nil {
		t.Fatal(err)
	}
	validator, err := protovalidate.New()
	if err != nil {
		t.Fatal(err)
	}
	srv := rpc.NewServer(rpc.Options{Verifier: verifier, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	tablev1.RegisterTableServiceServer(srv, &fakeTables{validator: validator})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(func() { rpc.Shutdown(srv, time.Second) })
	// The connection carries a service identity, as the suite's clients
	// do; the gateway must not let anonymous requests borrow it.
	conn, err := rpc.Dial(lis.Addr().String(), rpc.Options{ServiceToken: issuer.ServiceTokens("gateway", time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	hs := httptest.NewServer(gatewayOn(t, conn, gateway.Options{Verifier: verifier}))
	t.Cleanup(hs.Close)
	f := &fixture{srv: hs}

	bearerOf := func(roles ...auth.Role) string {
		tok, err := issuer.Mint("alice", roles, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return "Bearer " + tok
	}
	tests := []struct {
		name, method, path, body, authorization string
		status                                  int
		code, reason, ruleID, field             string
	}{
		{name: "no token", method: "GET", path: "/v1/tables/t1", status: 401, code: "UNAUTHENTICATED", reason: "UNAUTHENTICATED"},
		{name: "token that is not valid gRPC metadata", method: "GET", path: "/v1/tables/t1", authorization: "Bearer caf\u00e9", status: 401, code: "UNAUTHENTICATED", reason: "UNAUTHENTICATED"},
		{name: "bad token", method: "GET", path: "/v1/tables/t1", authorization: "Bearer not-a-jwt", status: 401, code: "UNAUTHENTICATED", reason: "UNAUTHENTICATED"},
		{name: "player may not create tables", method: "POST", path: "/v1/tables", body: validTable, authorization: bearerOf(auth.Player), status: 403, code: "PERMISSION_DENIED", reason: "PERMISSION_DENIED"},
		{
			name: "floor with one seat", method: "POST", path: "/v1/tables", authorization: bearerOf(auth.Floor),
			body:   strings.Replace(validTable, `"seats":9`, `"seats":1`, 1),
			status: 400, code: "INVALID_ARGUMENT", reason: "INVALID_ARGUMENT", field: "seats",
		},
		{name: "floor creates a table", method: "POST", path: "/v1/tables", body: validTable, authorization: bearerOf(auth.Floor), status: 200},
		{name: "player reads a table", method: "GET", path: "/v1/tables/t1", authorization: bearerOf(auth.Player), status: 200},
		{name: "TP-02 status passes through", method: "GET", path: "/v1/tables/closed", authorization: bearerOf(auth.Player), status: 400, code: "FAILED_PRECONDITION", reason: "TABLE_CLOSED", ruleID: "TP-02"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, failed := f.call(t, tt.method, tt.path, tt.body, tt.authorization, tt.status)
			if !failed {
				return
			}
			if got.Code != tt.code || got.Reason != tt.reason || got.RuleID != tt.ruleID || got.Metadata["field"] != tt.field {
				t.Errorf("body %+v, want code %s reason %s rule %q field %q", got, tt.code, tt.reason, tt.ruleID, tt.field)
			}
		})
	}
}
