package rpc

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/fault"
)

var testKey = []byte(strings.Repeat("s", 32))

func mustToken(t *testing.T, sub string, roles ...auth.Role) string {
	t.Helper()
	iss, err := auth.NewIssuer(testKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := iss.Mint(sub, roles, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func mustVerifier(t *testing.T) *auth.Verifier {
	t.Helper()
	v, err := auth.NewVerifier(testKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestAccessFromDescriptorsReadsTheMethodOption(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	authorize := AccessFromDescriptors(f.files, f.types)
	tests := []struct {
		method        string
		roles         []auth.Role
		public, known bool
	}{
		{fullMethod("Ping"), []auth.Role{auth.Cashier, auth.Floor}, false, true},
		{fullMethod("Open"), nil, true, true},
		{fullMethod("Relay"), []auth.Role{auth.Player, auth.Service}, false, true},
		{fullMethod("Undeclared"), nil, false, false},
		{fullMethod("NoSuchMethod"), nil, false, false},
		{"/cardroom.nosuch.v1.Service/Ping", nil, false, false},
		{"garbage", nil, false, false},
	}
	for _, tt := range tests {
		for range 2 { // the second lookup comes from the cache
			roles, public, known := authorize(tt.method)
			if !slices.Equal(roles, tt.roles) || public != tt.public || known != tt.known {
				t.Errorf("%s: roles %v public %v known %v; want %v %v %v", tt.method, roles, public, known, tt.roles, tt.public, tt.known)
			}
		}
	}
}

func TestAuthenticatorCheck(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := authenticator{verifier: mustVerifier(t), authorize: AccessFromDescriptors(f.files, f.types)}
	otherIss, _ := auth.NewIssuer([]byte(strings.Repeat("o", 32)), nil)
	forged, _ := otherIss.Mint("mallory", []auth.Role{auth.Admin}, time.Hour)

	tests := []struct {
		name    string
		method  string
		header  string // authorization metadata; empty = none
		kind    fault.Kind
		ok      bool
		subject string
	}{
		{"no token", fullMethod("Ping"), "", fault.Unauthenticated, false, ""},
		{"not a bearer header", fullMethod("Ping"), "Basic Zm9vOmJhcg==", fault.Unauthenticated, false, ""},
		{"token signed with another key", fullMethod("Ping"), "Bearer " + forged, fault.Unauthenticated, false, ""},
		{"wrong role", fullMethod("Ping"), "Bearer " + mustToken(t, "pat", auth.Player), fault.Forbidden, false, ""},
		{"allowed role", fullMethod("Ping"), "Bearer " + mustToken(t, "cass", auth.Cashier), 0, true, "cass"},
		{"one of several roles suffices", fullMethod("Ping"), "Bearer " + mustToken(t, "flo", auth.Dealer, auth.Floor), 0, true, "flo"},
		{"admin may call every declared RPC", fullMethod("Ping"), "Bearer " + mustToken(t, "root", auth.Admin), 0, true, "root"},
		{"undeclared RPC denied even to admin", fullMethod("Undeclared"), "Bearer " + mustToken(t, "root", auth.Admin), fault.Forbidden, false, ""},
		{"undeclared RPC without token", fullMethod("Undeclared"), "", fault.Unauthenticated, false, ""},
		{"unknown service denied", "/cardroom.nosuch.v1.S/M", "Bearer " + mustToken(t, "root", auth.Admin), fault.Forbidden, false, ""},
		{"public RPC without token", fullMethod("Open"), "", 0, true, ""},
		{"public RPC names a valid caller", fullMethod("Open"), "Bearer " + mustToken(t, "pat", auth.Player), 0, true, "pat"},
		{"public RPC ignores a bad token", fullMethod("Open"), "Bearer junk", 0, true, ""},
		{"health is public", "/grpc.health.v1.Health/Check", "", 0, true, ""},
		{"reflection is public", "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", "", 0, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			if tt.header != "" {
				ctx = metadata.NewIncomingContext(ctx, metadata.Pairs("authorization", tt.header))
			}
			got, err := a.check(ctx, tt.method)
			if !tt.ok {
				if f, isFault := fault.As(err); !isFault || f.Kind != tt.kind {
					t.Fatalf("check = %v; want a %v fault", err, tt.kind)
				}
				return
			}
			if err != nil {
				t.Fatalf("check = %v", err)
			}
			p, has := auth.FromContext(got)
			if tt.subject == "" {
				if has {
					t.Fatalf("anonymous call has principal %v", p)
				}
				return
			}
			if !has || p.Subject != tt.subject {
				t.Fatalf("principal = %v, %v; want %s", p, has, tt.subject)
			}
			if tok, _ := auth.TokenFromContext(got); "Bearer "+tok != tt.header {
				t.Fatalf("token in context = %q", tok)
			}
		})
	}
}

func TestAuthenticatorWithoutVerifierRefusesTokens(t *testing.T) {
	t.Parallel()
	a := authenticator{authorize: func(string) ([]auth.Role, bool, bool) { return []auth.Role{auth.Player}, false, true }}
	ctx := metadata.NewIncomingContext(context.Background(), metadata.Pairs("authorization", "Bearer "+mustToken(t, "pat", auth.Player)))
	if _, err := a.check(ctx, "/cardroom.x.v1.S/M"); fault.KindOf(err) != fault.Unauthenticated {
		t.Fatalf("check without verifier = %v", err)
	}
}

// BenchmarkAuthenticatorCheck measures what authentication and
// authorization add to every RPC: one HS256 verification and a cached
// access-rule lookup.
func BenchmarkAuthenticatorCheck(b *testing.B) {
	f := newFixture(b)
	v, err := auth.NewVerifier(testKey, nil)
	if err != nil {
		b.Fatal(err)
	}
	a := authenticator{verifier: v, authorize: AccessFromDescriptors(f.files, f.types)}
	iss, _ := auth.NewIssuer(testKey, nil)
	tok, _ := iss.Mint("cass", []auth.Role{auth.Cashier}, time.Hour)
	ctx := metadata.NewIncomingContext(context.Background(), metadata.Pairs("authorization", "Bearer "+tok))
	for b.Loop() {
		if _, err := a.check(ctx, fullMethod("Ping")); err != nil {
			b.Fatal(err)
		}
	}
}
