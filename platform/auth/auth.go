// Package auth is cardroom's caller identity: JWT bearer tokens (HS256)
// naming a subject and its roles, the Principal they become once verified,
// and the signing key (configured, or a generated dev key persisted in the
// data dir). Per-RPC authorization lives in platform/rpc; services read
// the caller with FromContext.
package auth

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Role is what a caller may do in the room (ARCHITECTURE.md, Security).
type Role string

// Roles a token can carry.
const (
	// Player acts only for their own seat, waitlist entry and account.
	Player Role = "player"
	// Dealer runs a table's game.
	Dealer Role = "dealer"
	// Floor decides disputes and may override rules.
	Floor Role = "floor"
	// Cashier moves money: buy-ins, cash-outs, account operations.
	Cashier Role = "cashier"
	// Admin administers the room: the RPCs that name it, nothing more.
	Admin Role = "admin"
	// Service is another cardroom part calling on its own behalf. A token
	// with it carries no other role, and the public gateway refuses it.
	Service Role = "service"
)

// AllRoles lists every role, in a stable order.
var AllRoles = []Role{Player, Dealer, Floor, Cashier, Admin, Service}

// ParseRole returns the role named s (case-insensitive).
func ParseRole(s string) (Role, error) {
	r := Role(strings.ToLower(strings.TrimSpace(s)))
	if !slices.Contains(AllRoles, r) {
		return "", fmt.Errorf("unknown role %q (want one of %s)", s, joinRoles(AllRoles))
	}
	return r, nil
}

func joinRoles(rs []Role) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = string(r)
	}
	return strings.Join(s, ", ")
}

// Principal is a verified caller: who they are and what roles they hold.
type Principal struct {
	Subject string
	Roles   []Role
	// Name is the display name the token carries ("name" claim), shown to
	// other players instead of the subject; empty when it has none.
	Name string
}

// HasRole reports whether p holds role r.
func (p Principal) HasRole(r Role) bool { return slices.Contains(p.Roles, r) }

// String returns "subject[role,role]" for logs.
func (p Principal) String() string { return p.Subject + "[" + joinRoles(p.Roles) + "]" }

type callerKey struct{}

// NewContext returns ctx carrying c, the caller a request acts as.
func NewContext(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// FromContext returns the caller that ctx carries, if any: the subject in
// the one role platform/rpc chose for the request. Handlers decide on that
// role alone; the token's other roles are not in the context.
func FromContext(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

type tokenKey struct{}

// WithToken returns ctx carrying the caller's raw bearer token, so that a
// service calling another service on the caller's behalf can forward it
// (platform/rpc does this for every outgoing call).
func WithToken(ctx context.Context, token string) context.Context {
	return context.WithValue(ctx, tokenKey{}, token)
}

// TokenFromContext returns the raw bearer token that ctx carries, if any.
func TokenFromContext(ctx context.Context) (string, bool) {
	t, ok := ctx.Value(tokenKey{}).(string)
	return t, ok && t != ""
}

// BearerToken extracts the token from an Authorization header value
// ("Bearer <token>"; the scheme is case-insensitive).
func BearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}
