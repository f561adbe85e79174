package auth

import (
	"errors"
	"fmt"
	"slices"
)

// Caller is who one request acts as: the token's subject in exactly one of
// its roles. platform/rpc chooses the role once per request (Principal.ActAs)
// from the roles the RPC allows, so a token holding player and dealer acts
// as the player on a player's route and never carries the dealer's powers
// into it.
type Caller struct {
	Subject string
	Role    Role
	// Name is the token's display name, if any (Principal.Name).
	Name string
}

// Is reports whether c acts in role r.
func (c Caller) Is(r Role) bool { return c.Role == r }

// String returns "subject as role" for logs.
func (c Caller) String() string { return c.Subject + " as " + string(c.Role) }

// Precedence orders the roles from the least to the most privileged: when a
// request does not name the role it acts in and the RPC allows several of
// the token's roles, it acts in the first of them in this order.
var Precedence = []Role{Player, Dealer, Cashier, Floor, Admin, Service}

// Why ActAs finds no role to act in.
var (
	// ErrRoleNotHeld: the request names a role its token does not carry.
	ErrRoleNotHeld = errors.New("the token does not carry the role the request names")
	// ErrRoleNotAllowed: none of the candidate roles may call the RPC.
	ErrRoleNotAllowed = errors.New("the role may not call this RPC")
)

// ActAs chooses the role p acts in on an RPC that allowed admits. A request
// that names a role (named != "") acts in it when p holds it and allowed
// admits it, and is refused otherwise; one that names none acts in the
// least privileged of p's roles that allowed admits (Precedence). The
// choice never depends on the request's content (whose seat, whose
// account): that is for the handler, which sees only the chosen role.
func (p Principal) ActAs(allowed []Role, named Role) (Caller, error) {
	c := Caller{Subject: p.Subject, Name: p.Name}
	if named != "" {
		switch {
		case !p.HasRole(named):
			return Caller{}, fmt.Errorf("act as %s: %w", named, ErrRoleNotHeld)
		case !slices.Contains(allowed, named):
			return Caller{}, fmt.Errorf("act as %s: %w", named, ErrRoleNotAllowed)
		}
		c.Role = named
		return c, nil
	}
	for _, r := range Precedence {
		if p.HasRole(r) && slices.Contains(allowed, r) {
			c.Role = r
			return c, nil
		}
	}
	return Caller{}, fmt.Errorf("act as any of %s: %w", joinRoles(p.Roles), ErrRoleNotAllowed)
}
