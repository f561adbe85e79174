package auth

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/cardroom/cardroom/platform/clock"
)

var testKey = []byte(strings.Repeat("k", 32))

// newPair returns an issuer and a verifier sharing testKey and a fake clock.
func newPair(t *testing.T) (*clock.Fake, *Issuer, *Verifier) {
	t.Helper()
	clk := clock.NewFake(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	iss, err := NewIssuer(testKey, clk)
	if err != nil {
		t.Fatal(err)
	}
	ver, err := NewVerifier(testKey, clk)
	if err != nil {
		t.Fatal(err)
	}
	return clk, iss, ver
}

func TestMintVerifyRoundTrip(t *testing.T) {
	t.Parallel()
	_, iss, ver := newPair(t)
	tok, err := iss.Mint("alice", []Role{Player, Cashier}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ver.Verify(tok)
	if err != nil {
		t.Fatal(err)
	}
	if p.Subject != "alice" || !slices.Equal(p.Roles, []Role{Player, Cashier}) {
		t.Fatalf("principal = %+v", p)
	}
	if !p.HasRole(Cashier) || p.HasRole(Admin) || p.Name != "" {
		t.Fatalf("HasRole/Name wrong for %v", p)
	}
	if got := p.String(); got != "alice[player, cashier]" {
		t.Fatalf("String() = %q", got)
	}
}

func TestVerifyRejects(t *testing.T) {
	t.Parallel()
	clk, iss, ver := newPair(t)
	start := clk.Now()
	good, err := iss.Mint("bob", []Role{Dealer}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	otherIss, _ := NewIssuer([]byte(strings.Repeat("x", 32)), clk)
	otherKey, _ := otherIss.Mint("bob", []Role{Admin}, time.Minute)

	sign := func(c jwt.Claims, m jwt.SigningMethod, key any) string {
		s, err := jwt.NewWithClaims(m, c).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	reg := func(iss, sub string) jwt.RegisteredClaims {
		return jwt.RegisteredClaims{Issuer: iss, Subject: sub, IssuedAt: jwt.NewNumericDate(start), ExpiresAt: jwt.NewNumericDate(start.Add(time.Minute))}
	}
	tests := []struct {
		name  string
		token string
	}{
		{"garbage", "not.a.token"},
		{"signed with another key", otherKey},
		{"tampered payload", good[:strings.LastIndex(good, ".")] + "x" + good[strings.LastIndex(good, "."):]},
		{"alg none", sign(claims{RegisteredClaims: reg(TokenIssuer, "eve"), Roles: []Role{Admin}}, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType)},
		{"HS512 not accepted", sign(claims{RegisteredClaims: reg(TokenIssuer, "eve"), Roles: []Role{Admin}}, jwt.SigningMethodHS512, testKey)},
		{"wrong issuer", sign(claims{RegisteredClaims: reg("someone-else", "eve"), Roles: []Role{Admin}}, jwt.SigningMethodHS256, testKey)},
		{"no expiry", sign(claims{RegisteredClaims: jwt.RegisteredClaims{Issuer: TokenIssuer, Subject: "eve"}, Roles: []Role{Admin}}, jwt.SigningMethodHS256, testKey)},
		{"no subject", sign(claims{RegisteredClaims: reg(TokenIssuer, ""), Roles: []Role{Admin}}, jwt.SigningMethodHS256, testKey)},
		{"no roles", sign(claims{RegisteredClaims: reg(TokenIssuer, "eve")}, jwt.SigningMethodHS256, testKey)},
		{"unknown role", sign(claims{RegisteredClaims: reg(TokenIssuer, "eve"), Roles: []Role{"god"}}, jwt.SigningMethodHS256, testKey)},
		{"role not spelled as a Role", sign(claims{RegisteredClaims: reg(TokenIssuer, "eve"), Roles: []Role{"ADMIN"}}, jwt.SigningMethodHS256, testKey)},
		{"service mixed with a person's role", sign(claims{RegisteredClaims: reg(TokenIssuer, "eve"), Roles: []Role{Player, Service}}, jwt.SigningMethodHS256, testKey)},
		{"NUL in subject", sign(claims{RegisteredClaims: reg(TokenIssuer, "e\x00ve"), Roles: []Role{Player}}, jwt.SigningMethodHS256, testKey)},
		{"control character in name", sign(claims{RegisteredClaims: reg(TokenIssuer, "eve"), Roles: []Role{Player}, Name: "E\x07ve"}, jwt.SigningMethodHS256, testKey)},
		{"overlong name", sign(claims{RegisteredClaims: reg(TokenIssuer, "eve"), Roles: []Role{Player}, Name: strings.Repeat("é", MaxNameLen+1)}, jwt.SigningMethodHS256, testKey)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := ver.Verify(tt.token)
			if !errors.Is(err, ErrInvalidToken) {
				t.Fatalf("Verify = %+v, %v; want ErrInvalidToken", p, err)
			}
		})
	}
}

func TestVerifyRejectsExpiredToken(t *testing.T) {
	t.Parallel()
	clk, iss, ver := newPair(t)
	tok, err := iss.Mint("carol", []Role{Floor}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute) // within the 5 s leeway: still valid
	if _, err := ver.Verify(tok); err != nil {
		t.Fatalf("at expiry (within leeway): %v", err)
	}
	clk.Advance(6 * time.Second)
	if _, err := ver.Verify(tok); !errors.Is(err, ErrInvalidToken) || !errors.Is(err, jwt.ErrTokenExpired) {
		t.Fatalf("after expiry: %v", err)
	}
}

func TestMintRefusesBadInput(t *testing.T) {
	t.Parallel()
	iss, _ := NewIssuer(testKey, nil)
	tests := []struct {
		name  string
		sub   string
		roles []Role
		ttl   time.Duration
	}{
		{"empty subject", "", []Role{Player}, time.Hour},
		{"no roles", "a", nil, time.Hour},
		{"unknown role", "a", []Role{"god"}, time.Hour},
		{"role not spelled as a Role", "a", []Role{"PLAYER"}, time.Hour},
		{"zero ttl", "a", []Role{Player}, 0},
		{"service with another role", "a", []Role{Service, Admin}, time.Hour},
		{"player with the service role", "a", []Role{Player, Service}, time.Hour},
		{"NUL in subject", "a\x00b", []Role{Player}, time.Hour},
		{"invalid UTF-8 subject", "a\xffb", []Role{Player}, time.Hour},
		{"space in subject", "a b", []Role{Player}, time.Hour},
		{"overlong subject", strings.Repeat("a", MaxSubjectLen+1), []Role{Player}, time.Hour},
	}
	for _, tt := range tests {
		if tok, err := iss.Mint(tt.sub, tt.roles, tt.ttl); err == nil {
			t.Errorf("%s: minted %q", tt.name, tok)
		}
	}
	if _, err := NewIssuer([]byte("short"), nil); err == nil {
		t.Error("NewIssuer accepted a 5-byte key")
	}
	if _, err := NewVerifier([]byte("short"), nil); err == nil {
		t.Error("NewVerifier accepted a 5-byte key")
	}
}

func TestParseRole(t *testing.T) {
	t.Parallel()
	for _, r := range AllRoles {
		got, err := ParseRole(strings.ToUpper(string(r)))
		if err != nil || got != r {
			t.Errorf("ParseRole(%q) = %q, %v", r, got, err)
		}
	}
	if _, err := ParseRole("croupier"); err == nil {
		t.Error("ParseRole accepted croupier")
	}
}

func TestBearerToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		header, want string
		ok           bool
	}{
		{"Bearer abc.def.ghi", "abc.def.ghi", true},
		{"bearer  abc", "abc", true},
		{"Basic dXNlcjpwdw==", "", false},
		{"Bearer ", "", false},
		{"abc", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := BearerToken(tt.header)
		if got != tt.want || ok != tt.ok {
			t.Errorf("BearerToken(%q) = %q, %v; want %q, %v", tt.header, got, ok, tt.want, tt.ok)
		}
	}
}

func TestContextCarriesPrincipalAndToken(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	if _, ok := FromContext(ctx); ok {
		t.Fatal("empty context has a principal")
	}
	if _, ok := TokenFromContext(ctx); ok {
		t.Fatal("empty context has a token")
	}
	ctx = WithToken(NewContext(ctx, Caller{Subject: "dan", Role: Service}), "tok")
	c, ok := FromContext(ctx)
	if !ok || c.Subject != "dan" || !c.Is(Service) || c.Is(Player) {
		t.Fatalf("FromContext = %+v, %v", c, ok)
	}
	if tok, ok := TokenFromContext(ctx); !ok || tok != "tok" {
		t.Fatalf("TokenFromContext = %q, %v", tok, ok)
	}
}

func TestLoadOrCreateKeyPersists(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	k1, err := LoadOrCreateKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(k1) < MinKeyLen {
		t.Fatalf("key is %d bytes", len(k1))
	}
	fi, err := os.Stat(filepath.Join(dir, KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("key mode %v, want 0600", fi.Mode().Perm())
	}
	k2, err := LoadOrCreateKey(dir)
	if err != nil || string(k2) != string(k1) {
		t.Fatalf("second load = %q, %v; want the persisted key", k2, err)
	}
	// A token minted with the persisted key verifies after a "restart".
	iss, _ := NewIssuer(k1, nil)
	ver, _ := NewVerifier(k2, nil)
	tok, _ := iss.Mint("erin", []Role{Admin}, time.Minute)
	if _, err := ver.Verify(tok); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("data dir holds %d entries, want only %s", len(entries), KeyFile)
	}
}

func TestLoadOrCreateKeyConcurrentCallersAgree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const n = 8
	keys := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { keys[i], errs[i] = LoadOrCreateKey(dir) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || string(keys[i]) != string(keys[0]) {
			t.Fatalf("caller %d: %q, %v; caller 0: %q", i, keys[i], errs[i], keys[0])
		}
	}
}

func TestLoadOrCreateKeyRefusesReadableKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, KeyFile), []byte(strings.Repeat("z", 40)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateKey(dir); err == nil || !strings.Contains(err.Error(), "0600") {
		t.Fatalf("LoadOrCreateKey on a 0644 key: %v", err)
	}
}

func TestResolveKeyPrefersConfigured(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	k, err := ResolveKey(strings.Repeat("c", 32), dir)
	if err != nil || string(k) != strings.Repeat("c", 32) {
		t.Fatalf("ResolveKey = %q, %v", k, err)
	}
	if _, err := os.Stat(filepath.Join(dir, KeyFile)); !os.IsNotExist(err) {
		t.Fatalf("configured key still wrote a dev key: %v", err)
	}
	if _, err := ResolveKey("short", dir); err == nil {
		t.Fatal("accepted a short configured key")
	}
	k, err = ResolveKey("", dir)
	if err != nil || len(k) < MinKeyLen {
		t.Fatalf("dev key = %q, %v", k, err)
	}
}

func TestServiceTokensRenewBeforeExpiry(t *testing.T) {
	t.Parallel()
	clk, iss, ver := newPair(t)
	src := iss.ServiceTokens("table", 30*time.Minute)
	t1, err := src(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	p, err := ver.Verify(t1)
	if err != nil || p.Subject != "table" || !slices.Equal(p.Roles, []Role{Service}) {
		t.Fatalf("service token principal = %+v, %v", p, err)
	}
	clk.Advance(10 * time.Minute)
	if t2, _ := src(t.Context()); t2 != t1 {
		t.Fatal("renewed while two thirds of the lifetime were left")
	}
	clk.Advance(11 * time.Minute) // 9 minutes left < 10
	t3, _ := src(t.Context())
	if t3 == t1 {
		t.Fatal("not renewed with less than a third of the lifetime left")
	}
	clk.Advance(15 * time.Minute) // the first token has expired; the renewed one has not
	if _, err := ver.Verify(t3); err != nil {
		t.Fatalf("renewed token: %v", err)
	}
}

func TestMintNamedCarriesTheDisplayName(t *testing.T) {
	t.Parallel()
	_, iss, ver := newPair(t)
	tok, err := iss.MintNamed("p-1", "Anna K.", []Role{Player}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ver.Verify(tok)
	if err != nil || p.Name != "Anna K." || p.Subject != "p-1" {
		t.Fatalf("Verify = %+v, %v", p, err)
	}
	c, err := p.ActAs([]Role{Player}, "")
	if err != nil || c.Name != "Anna K." {
		t.Fatalf("ActAs = %+v, %v", c, err)
	}
	if _, err := iss.MintNamed("p-1", "tab\there", []Role{Player}, time.Hour); err == nil {
		t.Fatal("minted a name with a tab")
	}
}

// TestActAsChoosesOneRole covers the acting-role rule (docs/SECURITY.md):
// the named role when held and allowed, otherwise the least privileged
// role the RPC allows; never a role the RPC does not allow.
func TestActAsChoosesOneRole(t *testing.T) {
	t.Parallel()
	p := func(roles ...Role) Principal { return Principal{Subject: "x", Roles: roles} }
	tests := []struct {
		name    string
		holder  Principal
		allowed []Role
		named   Role
		want    Role
		err     error
	}{
		{"player+dealer on a player route acts as the player", p(Player, Dealer), []Role{Player, Floor, Admin}, "", Player, nil},
		{"player+dealer on a route for both acts as the player", p(Dealer, Player), []Role{Player, Dealer, Floor}, "", Player, nil},
		{"player+dealer naming dealer on a route for both", p(Player, Dealer), []Role{Player, Dealer, Floor}, Dealer, Dealer, nil},
		{"player+dealer naming dealer on a player route", p(Player, Dealer), []Role{Player, Floor}, Dealer, "", ErrRoleNotAllowed},
		{"naming a role the token lacks", p(Player), []Role{Player, Floor}, Floor, "", ErrRoleNotHeld},
		{"dealer-only on a dealer route", p(Dealer), []Role{Dealer, Floor}, "", Dealer, nil},
		{"floor+cashier on a route for both acts as the cashier", p(Floor, Cashier), []Role{Cashier, Floor, Admin}, "", Cashier, nil},
		{"admin does not pass a service-only route", p(Admin), []Role{Service}, "", "", ErrRoleNotAllowed},
		{"admin naming service", p(Admin), []Role{Service}, Service, "", ErrRoleNotHeld},
		{"service on a service route", p(Service), []Role{Service}, "", Service, nil},
		{"no role allowed", p(Player, Dealer), []Role{Cashier}, "", "", ErrRoleNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := tt.holder.ActAs(tt.allowed, tt.named)
			if !errors.Is(err, tt.err) {
				t.Fatalf("ActAs = %+v, %v; want error %v", c, err, tt.err)
			}
			if c.Role != tt.want || (tt.err == nil && c.Subject != "x") {
				t.Fatalf("ActAs = %+v; want role %q", c, tt.want)
			}
		})
	}
}

// TestVerifyRemembersValidTokens: a token verified once is answered from
// memory while it stays valid (no decoding: one allocation, the roles the
// caller may change), each caller gets roles of its own, a remembered
// token is refused with the parser's reason once it expires, and memory
// holds at most two generations of tokens. Not parallel: AllocsPerRun
// counts the whole process's allocations.
func TestVerifyRemembersValidTokens(t *testing.T) {
	clk, iss, ver := newPair(t)
	tok, err := iss.Mint("dave", []Role{Player}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	first, err := ver.Verify(tok)
	if err != nil {
		t.Fatal(err)
	}
	first.Roles[0] = Floor // a caller changing what it got
	if allocs := testing.AllocsPerRun(100, func() {
		p, err := ver.Verify(tok)
		if err != nil || p.Subject != "dave" || !slices.Equal(p.Roles, []Role{Player}) {
			t.Fatalf("remembered token: %+v, %v", p, err)
		}
	}); allocs > 1 {
		t.Fatalf("a remembered token cost %.0f allocations, want at most 1 (decoded again?)", allocs)
	}
	clk.Advance(time.Minute + 6*time.Second)
	if _, err := ver.Verify(tok); !errors.Is(err, ErrInvalidToken) || !errors.Is(err, jwt.ErrTokenExpired) {
		t.Fatalf("remembered token after expiry: %v", err)
	}
	for i := range 2*verifiedTokens + 10 {
		tok, err := iss.Mint(fmt.Sprintf("p%d", i), []Role{Player}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ver.Verify(tok); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(ver.recent) + len(ver.previous); n > 2*verifiedTokens {
		t.Fatalf("%d tokens remembered, want at most %d", n, 2*verifiedTokens)
	}
}
