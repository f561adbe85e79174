package auth

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"

	"github.com/cardroom/cardroom/platform/clock"
)

// TokenIssuer is the "iss" claim of every cardroom token; Verify refuses
// tokens from any other issuer even when they share the key.
const TokenIssuer = "cardroom"

// MinKeyLen is the shortest HS256 key accepted: RFC 7518 §3.2 asks for a
// key at least as long as the hash output.
const MinKeyLen = 32

// ErrInvalidToken is returned (wrapped with the detail) for any token that
// does not verify: bad signature, expired, wrong issuer, malformed, unknown
// role or no subject.
var ErrInvalidToken = errors.New("invalid token")

// claims is the JWT payload: the registered claims plus the roles and
// the optional display name.
type claims struct {
	jwt.RegisteredClaims
	Roles []Role `json:"roles"`
	Name  string `json:"name,omitempty"`
}

// MaxNameLen is the longest display name a token may carry, in characters.
const MaxNameLen = 40

// Issuer mints signed tokens.
type Issuer struct {
	key   []byte
	clock clock.Clock
}

// NewIssuer returns an issuer signing with key. A nil clock means real time.
func NewIssuer(key []byte, clk clock.Clock) (*Issuer, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	return &Issuer{key: key, clock: orReal(clk)}, nil
}

func checkKey(key []byte) error {
	if len(key) < MinKeyLen {
		return fmt.Errorf("signing key is %d bytes, need at least %d", len(key), MinKeyLen)
	}
	return nil
}

func orReal(clk clock.Clock) clock.Clock {
	if clk == nil {
		return clock.Real{}
	}
	return clk
}

// checkRoles refuses an empty role list and any role that is not exactly
// one of AllRoles: a token saying "ADMIN" would verify but match no
// authorization rule, so it is refused rather than minted or accepted.
// The service role stands alone: it is a part of the suite, not a person,
// and a person's token must never carry it.
func checkRoles(roles []Role) error {
	if len(roles) == 0 {
		return errors.New("no roles")
	}
	for _, r := range roles {
		if !slices.Contains(AllRoles, r) {
			return fmt.Errorf("unknown role %q (want one of %s)", r, joinRoles(AllRoles))
		}
	}
	if slices.Contains(roles, Service) && len(roles) > 1 {
		return fmt.Errorf("the %s role is never combined with another (got %s)", Service, joinRoles(roles))
	}
	return nil
}

// MaxSubjectLen is the longest subject a token may carry, in bytes.
const MaxSubjectLen = 128

// checkSubject refuses an empty subject and one that could not be stored
// or shown as it is: the subject becomes the player's id in every service.
func checkSubject(sub string) error {
	if sub == "" {
		return errors.New("no subject")
	}
	if len(sub) > MaxSubjectLen {
		return fmt.Errorf("subject is %d bytes, at most %d", len(sub), MaxSubjectLen)
	}
	if !utf8.ValidString(sub) {
		return errors.New("subject is not valid UTF-8")
	}
	for _, r := range sub {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return fmt.Errorf("subject holds the character %U", r)
		}
	}
	return nil
}

// checkName refuses a display name that is too long or holds anything but
// printable text: it is shown to other players.
func checkName(name string) error {
	if !utf8.ValidString(name) || utf8.RuneCountInString(name) > MaxNameLen {
		return fmt.Errorf("display name must be valid UTF-8 of at most %d characters", MaxNameLen)
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return fmt.Errorf("display name holds the unprintable character %U", r)
		}
	}
	return nil
}

// Mint returns a signed token for subject sub with the given roles, valid
// for ttl from now.
func (i *Issuer) Mint(sub string, roles []Role, ttl time.Duration) (string, error) {
	return i.MintNamed(sub, "", roles, ttl)
}

// MintNamed is Mint with a display name (empty for none) that other
// players see instead of the subject (waitlists, the seating board).
func (i *Issuer) MintNamed(sub, name string, roles []Role, ttl time.Duration) (string, error) {
	if err := cmp.Or(checkSubject(sub), checkRoles(roles), checkName(name)); err != nil {
		return "", fmt.Errorf("mint token: %w", err)
	}
	if ttl <= 0 {
		return "", fmt.Errorf("mint token: ttl %v is not positive", ttl)
	}
	now := i.clock.Now()
	c := claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    TokenIssuer,
			Subject:   sub,
			IssuedAt:  jwt.NewNumericDate(now),
			NotBefore: jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
		},
		Roles: roles,
		Name:  name,
	}
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(i.key)
	if err != nil {
		return "", fmt.Errorf("mint token: %w", err)
	}
	return s, nil
}

// Verifier checks tokens and turns them into Principals. It remembers the
// tokens that verified (by their whole text, signature included) for as
// long as they stay valid, so that a player's next call with the same token
// costs a map lookup and a clock reading instead of a base64 and JSON
// decode and an HMAC: every call to every service verifies its token.
type Verifier struct {
	key    []byte
	parser *jwt.Parser
	now    func() time.Time

	mu       sync.Mutex
	recent   map[string]verified // guarded by mu
	previous map[string]verified // the generation before recent; guarded by mu
}

// verified is a token that verified: its principal and the times between
// which it stays valid (the parser's checks of nbf, iat and exp, with the
// leeway).
type verified struct {
	p        Principal
	from, to time.Time
}

const (
	// tokenLeeway tolerates small clock differences between processes.
	tokenLeeway = 5 * time.Second
	// verifiedTokens is how many verified tokens one generation of the
	// cache holds; two generations are kept (at most twice this many, a
	// few megabytes), the older dropped as a whole when the newer fills.
	verifiedTokens = 4096
)

// NewVerifier returns a verifier for tokens signed with key. A nil clock
// means real time.
func NewVerifier(key []byte, clk clock.Clock) (*Verifier, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	return &Verifier{
		key: key,
		now: orReal(clk).Now,
		parser: jwt.NewParser(
			// Pinning the algorithm closes the "alg: none" and key-confusion holes.
			jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
			jwt.WithIssuer(TokenIssuer),
			jwt.WithExpirationRequired(),
			jwt.WithIssuedAt(),
			jwt.WithTimeFunc(orReal(clk).Now),
			jwt.WithLeeway(tokenLeeway),
		),
	}, nil
}

// Verify checks token's signature, issuer and lifetime and returns the
// caller it names. Every failure wraps ErrInvalidToken.
func (v *Verifier) Verify(token string) (Principal, error) {
	now := v.now()
	if p, ok := v.known(token, now); ok {
		return p, nil
	}
	var c claims
	if _, err := v.parser.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return v.key, nil }); err != nil {
		return Principal{}, fmt.Errorf("%w: %w", ErrInvalidToken, err)
	}
	if err := cmp.Or(checkSubject(c.Subject), checkRoles(c.Roles), checkName(c.Name)); err != nil {
		return Principal{}, fmt.Errorf("%w: %w", ErrInvalidToken, err)
	}
	p := Principal{Subject: c.Subject, Roles: c.Roles, Name: c.Name}
	v.remember(token, p, &c)
	return p, nil
}

// known returns the principal of a token that verified before and is
// still valid at now. One that is no longer valid is verified again, so
// that it is refused with the parser's reason.
func (v *Verifier) known(token string, now time.Time) (Principal, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	k, ok := v.recent[token]
	if !ok {
		if k, ok = v.previous[token]; ok {
			v.keep(token, k)
		}
	}
	if !ok || now.Before(k.from) || !now.Before(k.to) {
		return Principal{}, false
	}
	p := k.p
	p.Roles = slices.Clone(p.Roles) // the caller's to change
	return p, true
}

// remember keeps a token that verified, with the times the parser would
// accept it between: from the later of nbf and iat, less the leeway, to
// exp plus the leeway (exp is required).
func (v *Verifier) remember(token string, p Principal, c *claims) {
	k := verified{p: Principal{Subject: p.Subject, Roles: slices.Clone(p.Roles), Name: p.Name}, to: c.ExpiresAt.Add(tokenLeeway)}
	for _, t := range []*jwt.NumericDate{c.NotBefore, c.IssuedAt} {
		if t != nil && t.Add(-tokenLeeway).After(k.from) {
			k.from = t.Add(-tokenLeeway)
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.keep(token, k)
}

// keep adds k to the newer generation, starting a new one when it is full.
// The caller holds mu.
func (v *Verifier) keep(token string, k verified) {
	if len(v.recent) >= verifiedTokens {
		v.previous, v.recent = v.recent, nil
	}
	if v.recent == nil {
		v.recent = make(map[string]verified, verifiedTokens)
	}
	v.recent[token] = k
}

// ServiceTokens returns a token source for outgoing calls a part makes on
// its own behalf (rpc.Options.ServiceToken): tokens for subject sub with
// the service role, valid for ttl, minted on first use and again once less
// than a third of the lifetime is left.
func (i *Issuer) ServiceTokens(sub string, ttl time.Duration) func(context.Context) (string, error) {
	var (
		mu      sync.Mutex // guards token and expires
		token   string
		expires time.Time
	)
	return func(context.Context) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		now := i.clock.Now()
		if token != "" && expires.Sub(now) > ttl/3 {
			return token, nil
		}
		t, err := i.Mint(sub, []Role{Service}, ttl)
		if err != nil {
			return "", err
		}
		token, expires = t, now.Add(ttl)
		return token, nil
	}
}
