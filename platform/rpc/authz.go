package rpc

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/fault"
)

// Authorizer says who may call a method: the roles allowed (the caller acts
// in one of them, see auth.Principal.ActAs), whether it is public (no token
// needed), and whether the method declares a rule at all. Methods that do
// not (known == false) are denied to every caller, so a forgotten
// annotation fails closed. No role passes a rule that does not name it:
// admin included.
type Authorizer func(fullMethod string) (allowed []auth.Role, public bool, known bool)

// AccessExtension is the full name of the proto method option that carries
// each RPC's access rule (proto/cardroom/auth/v1/auth.proto).
const AccessExtension = "cardroom.auth.v1.access"

// alwaysPublic are the infrastructure services every server exposes without
// a token: load balancers and Kubernetes probe health, grpcurl reflects.
var alwaysPublic = []string{
	"/grpc.health.v1.Health/",
	"/grpc.reflection.v1.ServerReflection/",
	"/grpc.reflection.v1alpha.ServerReflection/",
}

func isAlwaysPublic(fullMethod string) bool {
	return slices.ContainsFunc(alwaysPublic, func(p string) bool { return strings.HasPrefix(fullMethod, p) })
}

// AccessFromDescriptors returns an Authorizer that reads each method's
// (cardroom.auth.v1.access) option from the descriptors in files, resolving
// the option with types; nil means the global registries, where generated
// code registers itself. It reads the option reflectively (fields "roles"
// and "public"; enum values ROLE_PLAYER … map to auth roles), so platform
// does not import the generated proto package. Results are cached per
// method.
func AccessFromDescriptors(files *protoregistry.Files, types *protoregistry.Types) Authorizer {
	files = cmp.Or(files, protoregistry.GlobalFiles)
	types = cmp.Or(types, protoregistry.GlobalTypes)
	type rule struct {
		roles         []auth.Role
		public, known bool
	}
	var cache sync.Map // full method → rule
	return func(fullMethod string) ([]auth.Role, bool, bool) {
		if r, ok := cache.Load(fullMethod); ok {
			r := r.(rule)
			return r.roles, r.public, r.known
		}
		roles, public, known := lookupAccess(files, types, fullMethod)
		cache.Store(fullMethod, rule{roles, public, known})
		return roles, public, known
	}
}

func lookupAccess(files *protoregistry.Files, types *protoregistry.Types, fullMethod string) ([]auth.Role, bool, bool) {
	opts, ok := methodOptions(files, fullMethod)
	if !ok {
		return nil, false, false
	}
	xt, err := types.FindExtensionByName(AccessExtension)
	if err != nil {
		return nil, false, false
	}
	if !proto.HasExtension(opts, xt) {
		// The options may have been parsed before the extension was
		// registered, leaving it among the unknown fields: parse again.
		b, err := proto.Marshal(opts)
		if err != nil {
			return nil, false, false
		}
		opts = &descriptorpb.MethodOptions{}
		if err := (proto.UnmarshalOptions{Resolver: types}).Unmarshal(b, opts); err != nil || !proto.HasExtension(opts, xt) {
			return nil, false, false
		}
	}
	access, ok := proto.GetExtension(opts, xt).(proto.Message)
	if !ok {
		return nil, false, false
	}
	roles, public := readAccess(access.ProtoReflect())
	return roles, public, true
}

// methodOptions returns the options of the method fullMethod
// ("/package.Service/Method") names in files.
func methodOptions(files *protoregistry.Files, fullMethod string) (*descriptorpb.MethodOptions, bool) {
	svcName, methodName, ok := strings.Cut(strings.TrimPrefix(fullMethod, "/"), "/")
	if !ok {
		return nil, false
	}
	d, err := files.FindDescriptorByName(protoreflect.FullName(svcName))
	if err != nil {
		return nil, false
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if !ok {
		return nil, false
	}
	md := sd.Methods().ByName(protoreflect.Name(methodName))
	if md == nil {
		return nil, false
	}
	opts, ok := md.Options().(*descriptorpb.MethodOptions)
	return opts, ok && opts != nil
}

// readAccess reads an access option's roles (ROLE_PLAYER → auth.Player;
// unknown ones skipped) and whether it is public, by field name, so that
// the platform needs no generated code of the proto module.
func readAccess(m protoreflect.Message) (roles []auth.Role, public bool) {
	fields := m.Descriptor().Fields()
	if f := fields.ByName("public"); f != nil && f.Kind() == protoreflect.BoolKind {
		public = m.Get(f).Bool()
	}
	f := fields.ByName("roles")
	if f == nil || !f.IsList() || f.Kind() != protoreflect.EnumKind {
		return nil, public
	}
	list := m.Get(f).List()
	for i := range list.Len() {
		v := f.Enum().Values().ByNumber(list.Get(i).Enum())
		if v == nil {
			continue
		}
		if r, err := auth.ParseRole(strings.TrimPrefix(string(v.Name()), "ROLE_")); err == nil {
			roles = append(roles, r)
		}
	}
	return roles, public
}

// authenticator checks the bearer token of each call and enforces the
// method's access rule.
type authenticator struct {
	verifier  *auth.Verifier
	authorize Authorizer
}

// RoleMetadata is the incoming metadata key (the gateway fills it from the
// HTTP header Cardroom-Role) by which a request names the role it acts in,
// for a token that holds several roles the RPC allows.
const RoleMetadata = "cardroom-role"

// ServiceOnly reports whether an access rule admits the service role alone:
// such an RPC is one part of the suite calling another, is never routed by
// the public gateway, and is refused to every other role at the service.
func ServiceOnly(roles []auth.Role, public bool) bool {
	return !public && len(roles) > 0 && !slices.ContainsFunc(roles, func(r auth.Role) bool { return r != auth.Service })
}

// check returns the context the handler runs with: carrying the Caller —
// the token's subject in the one role chosen for this request
// (auth.Principal.ActAs) — and the raw token (forwarded on outgoing calls).
// This is the request's only authorization decision on roles; handlers
// read the chosen role and never the token's others. Failures are faults;
// ToStatus turns them into Unauthenticated / PermissionDenied.
func (a authenticator) check(ctx context.Context, fullMethod string) (context.Context, error) {
	if isAlwaysPublic(fullMethod) {
		return ctx, nil
	}
	allowed, public, known := a.authorize(fullMethod)
	token, hasToken := bearerFromMetadata(ctx)
	if known && public {
		// A valid token on a public RPC still names the caller; a bad one
		// is ignored rather than refused, as the RPC needs none.
		if hasToken && a.verifier != nil {
			if p, err := a.verifier.Verify(token); err == nil {
				if c, err := p.ActAs(p.Roles, ""); err == nil {
					ctx = withCaller(ctx, c, token)
				}
			}
		}
		return ctx, nil
	}
	if !hasToken {
		return ctx, fault.New(fault.Unauthenticated, ReasonUnauthenticated, "missing bearer token")
	}
	if a.verifier == nil {
		return ctx, fault.New(fault.Unauthenticated, ReasonUnauthenticated, "this server accepts no tokens")
	}
	p, err := a.verifier.Verify(token)
	if err != nil {
		return ctx, fault.New(fault.Unauthenticated, ReasonUnauthenticated, "invalid bearer token").Wrap(err)
	}
	if !known {
		return ctx, fault.New(fault.Forbidden, ReasonPermissionDenied, "no access rule is declared for "+fullMethod)
	}
	named, err := namedRole(ctx)
	if err != nil {
		return ctx, err
	}
	c, err := p.ActAs(allowed, named)
	if err != nil {
		msg := "caller's roles may not call " + fullMethod
		if errors.Is(err, auth.ErrRoleNotHeld) {
			msg = "the token does not carry the role " + string(named) + " that the request names"
		}
		return ctx, fault.New(fault.Forbidden, ReasonPermissionDenied, msg).
			With("required_roles", joinRoles(allowed)).Wrap(err)
	}
	return withCaller(ctx, c, token), nil
}

// namedRole returns the role the request names in RoleMetadata, if any.
// Several different values, or a value that is no role, are malformed.
func namedRole(ctx context.Context) (auth.Role, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	var named auth.Role
	for _, v := range md.Get(RoleMetadata) {
		if strings.TrimSpace(v) == "" {
			continue
		}
		r, err := auth.ParseRole(v)
		if err != nil || (named != "" && r != named) {
			return "", fault.Invalidf(RoleMetadata, "names one role: %s", joinRoles(auth.AllRoles))
		}
		named = r
	}
	return named, nil
}

func withCaller(ctx context.Context, c auth.Caller, token string) context.Context {
	trace.SpanFromContext(ctx).SetAttributes(attribute.String("enduser.id", c.Subject))
	return auth.WithToken(auth.NewContext(ctx, c), token)
}

func joinRoles(rs []auth.Role) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = string(r)
	}
	return strings.Join(s, ",")
}

// bearerFromMetadata reads "authorization: Bearer <token>" from the call's
// incoming metadata (grpc-gateway forwards the HTTP header there).
func bearerFromMetadata(ctx context.Context) (string, bool) {
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get("authorization") {
		if tok, ok := auth.BearerToken(v); ok {
			return tok, true
		}
	}
	return "", false
}

func (a authenticator) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	ctx, err := a.check(ctx, info.FullMethod)
	if err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

func (a authenticator) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	ctx, err := a.check(ss.Context(), info.FullMethod)
	if err != nil {
		return err
	}
	return handler(srv, &contextStream{ServerStream: ss, ctx: ctx})
}

// contextStream is a server stream whose Context carries the caller.
type contextStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *contextStream) Context() context.Context { return s.ctx }
