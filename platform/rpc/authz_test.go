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
		{fullMethod("Settle"), []auth.Role{auth.Service}, false, true},
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
		role    auth.Role // the role the call acts in
		named   string    // cardroom-role metadata; empty = none
	}{
		{name: "no token", method: fullMethod("Ping"), kind: fault.Unauthenticated},
		{name: "not a bearer header", method: fullMethod("Ping"), header: "Basic Zm9vOmJhcg==", kind: fault.Unauthenticated},
		{name: "token signed with another key", method: fullMethod("Ping"), header: "Bearer " + forged, kind: fault.Unauthenticated},
		{name: "wrong role", method: fullMethod("Ping"), header: "Bearer " + mustToken(t, "pat", auth.Player), kind: fault.Forbidden},
		{name: "allowed role", method: fullMethod("Ping"), header: "Bearer " + mustToken(t, "cass", auth.Cashier), ok: true, subject: "cass", role: auth.Cashier},
		{name: "the one allowed role of several", method: fullMethod("Ping"), header: "Bearer " + mustToken(t, "flo", auth.Dealer, auth.Floor), ok: true, subject: "flo", role: auth.Floor},
		{name: "admin passes only rules that name it", method: fullMethod("Ping"), header: "Bearer " + mustToken(t, "root", auth.Admin), kind: fault.Forbidden},
		{name: "admin refused a service-only RPC", method: fullMethod("Settle"), header: "Bearer " + mustToken(t, "root", auth.Admin), kind: fault.Forbidden},
		{name: "admin naming service refused", method: fullMethod("Settle"), header: "Bearer " + mustToken(t, "root", auth.Admin), named: "service", kind: fault.Forbidden},
		{name: "service-only RPC for the service", method: fullMethod("Settle"), header: "Bearer " + mustToken(t, "cardroom-table", auth.Service), ok: true, subject: "cardroom-table", role: auth.Service},
		{name: "player refused a service-only RPC", method: fullMethod("Settle"), header: "Bearer " + mustToken(t, "pat", auth.Player), kind: fault.Forbidden},
		{name: "player+dealer acts as the player", method: fullMethod("Seat"), header: "Bearer " + mustToken(t, "pd", auth.Dealer, auth.Player), ok: true, subject: "pd", role: auth.Player},
		{name: "player+dealer naming dealer acts as the dealer", method: fullMethod("Seat"), header: "Bearer " + mustToken(t, "pd", auth.Player, auth.Dealer), named: "dealer", ok: true, subject: "pd", role: auth.Dealer},
		{name: "player+dealer naming floor refused", method: fullMethod("Seat"), header: "Bearer " + mustToken(t, "pd", auth.Player, auth.Dealer), named: "floor", kind: fault.Forbidden},
		{name: "player+dealer naming dealer on a player route refused", method: fullMethod("Relay"), header: "Bearer " + mustToken(t, "pd", auth.Player, auth.Dealer), named: "dealer", kind: fault.Forbidden},
		{name: "naming no role at all", method: fullMethod("Seat"), header: "Bearer " + mustToken(t, "pd", auth.Player), named: "god", kind: fault.Invalid},
		{name: "undeclared RPC denied even to admin", method: fullMethod("Undeclared"), header: "Bearer " + mustToken(t, "root", auth.Admin), kind: fault.Forbidden},
		{name: "undeclared RPC without token", method: fullMethod("Undeclared"), kind: fault.Unauthenticated},
		{name: "unknown service denied", method: "/cardroom.nosuch.v1.S/M", header: "Bearer " + mustToken(t, "root", auth.Admin), kind: fault.Forbidden},
		{name: "public RPC without token", method: fullMethod("Open"), ok: true},
		{name: "public RPC names a valid caller", method: fullMethod("Open"), header: "Bearer " + mustToken(t, "pat", auth.Player), ok: true, subject: "pat", role: auth.Player},
		{name: "public RPC ignores a bad token", method: fullMethod("Open"), header: "Bearer junk", ok: true},
		{name: "health is public", method: "/grpc.health.v1.Health/Check", ok: true},
		{name: "reflection is public", method: "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			md := metadata.MD{}
			if tt.header != "" {
				md.Append("authorization", tt.header)
			}
			if tt.named != "" {
				md.Append(RoleMetadata, tt.named)
			}
			ctx = metadata.NewIncomingContext(ctx, md)
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
			c, has := auth.FromContext(got)
			if tt.subject == "" {
				if has {
					t.Fatalf("anonymous call has caller %v", c)
				}
				return
			}
			if !has || c.Subject != tt.subject || c.Role != tt.role {
				t.Fatalf("caller = %v, %v; want %s as %s", c, has, tt.subject, tt.role)
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

func TestServiceOnly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		roles  []auth.Role
		public bool
		want   bool
	}{
		{[]auth.Role{auth.Service}, false, true},
		{[]auth.Role{auth.Service, auth.Admin}, false, false},
		{[]auth.Role{auth.Player}, false, false},
		{nil, false, false},
		{[]auth.Role{auth.Service}, true, false},
	}
	for _, tt := range tests {
		if got := ServiceOnly(tt.roles, tt.public); got != tt.want {
			t.Errorf("ServiceOnly(%v, %v) = %v", tt.roles, tt.public, got)
		}
	}
}
