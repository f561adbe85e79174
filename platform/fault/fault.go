// Package fault is the closed vocabulary of failures that cardroom's domain
// packages return. It has no I/O and no dependencies beyond the standard
// library, so pure domain code can use it; platform/rpc is the one place
// that turns a fault into a gRPC status with google.rpc.ErrorInfo.
package fault

import (
	"errors"
	"fmt"
	"maps"
	"strings"
)

// Kind classifies a failure by what the caller can do about it. Each kind
// maps to exactly one gRPC code (see ARCHITECTURE.md, "Errors").
type Kind uint8

// Kinds of failure.
const (
	// Internal is a bug or an unexpected failure; callers see a masked message.
	Internal Kind = iota
	// Invalid is malformed input: InvalidArgument, HTTP 400.
	Invalid
	// Precondition means a rule forbids it now: FailedPrecondition, HTTP 400.
	Precondition
	// NotFound is an unknown entity: NotFound, HTTP 404.
	NotFound
	// Conflict is an idempotency-key reuse with different content, an
	// entity that already exists, or a request at odds with the entity's
	// state (the player is not seated, the offer is no longer open):
	// AlreadyExists, HTTP 409.
	Conflict
	// Aborted is a lost lock or fence: Aborted, HTTP 409. Retrying may work.
	Aborted
	// Forbidden means the caller may not do this: PermissionDenied, HTTP 403.
	Forbidden
	// Unauthenticated means no valid credentials: Unauthenticated, HTTP 401.
	Unauthenticated
	// Unavailable means a dependency is down; retry later: Unavailable, HTTP 503.
	Unavailable
)

var kindNames = [...]string{"internal", "invalid", "precondition", "not_found", "conflict", "aborted", "forbidden", "unauthenticated", "unavailable"}

// String returns the kind's lower-case name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Error is a domain failure: what kind it is, a stable machine-readable
// reason (UPPER_SNAKE, for example BUY_IN_BELOW_MINIMUM), the RULES.md rule
// that decides it when there is one (CS-03), a human message, and metadata
// an app can use to tell the player what they may do instead (for example
// the allowed buy-in range).
type Error struct {
	Kind    Kind
	Reason  string
	Rule    string
	Message string
	Meta    map[string]string
	Err     error
}

// Error returns "message (RULE, REASON): cause".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Message)
	if e.Rule != "" || e.Reason != "" {
		b.WriteString(" (")
		b.WriteString(strings.TrimPrefix(e.Rule+" "+e.Reason, " "))
		b.WriteString(")")
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is matches another *Error by kind and reason, so sentinel faults declared
// once (var ErrBelowMinimum = fault.New(...)) work with errors.Is even after
// With adds metadata.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	return t.Kind == e.Kind && t.Reason == e.Reason && (t.Rule == "" || t.Rule == e.Rule)
}

// New returns a fault with no rule.
func New(kind Kind, reason, message string) *Error {
	return &Error{Kind: kind, Reason: reason, Message: message}
}

// Rule returns a fault decided by the rule with the given RULES.md ID.
func Rule(kind Kind, rule, reason, message string) *Error {
	return &Error{Kind: kind, Rule: rule, Reason: reason, Message: message}
}

// With returns a copy of e with metadata added; e itself is unchanged so
// that package-level sentinels stay immutable.
func (e *Error) With(kv ...string) *Error {
	c := *e
	c.Meta = maps.Clone(e.Meta)
	if c.Meta == nil {
		c.Meta = make(map[string]string, len(kv)/2)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		c.Meta[kv[i]] = kv[i+1]
	}
	return &c
}

// Withf returns a copy of e whose message is formatted from the arguments.
func (e *Error) Withf(format string, args ...any) *Error {
	c := *e
	c.Message = fmt.Sprintf(format, args...)
	return &c
}

// Wrap returns a copy of e with cause err.
func (e *Error) Wrap(err error) *Error {
	c := *e
	c.Err = err
	return &c
}

// Invalidf returns an Invalid fault naming the bad field; the reason is
// INVALID_ARGUMENT and the field is in metadata under "field".
func Invalidf(field, format string, args ...any) *Error {
	return &Error{Kind: Invalid, Reason: "INVALID_ARGUMENT", Message: field + ": " + fmt.Sprintf(format, args...), Meta: map[string]string{"field": field}}
}

// NotFoundf returns a NotFound fault for an entity of the given type.
func NotFoundf(entity, format string, args ...any) *Error {
	return &Error{Kind: NotFound, Reason: strings.ToUpper(entity) + "_NOT_FOUND", Message: fmt.Sprintf(format, args...)}
}

// As returns the first *Error in err's chain, if any.
func As(err error) (*Error, bool) { return errors.AsType[*Error](err) }

// KindOf returns the kind of the first fault in err's chain, or Internal.
func KindOf(err error) Kind {
	if f, ok := As(err); ok {
		return f.Kind
	}
	return Internal
}
