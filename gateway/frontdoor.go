package gateway

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/rpc"
)

// DefaultMaxBody is the largest request body the gateway reads when
// Options.MaxBody is zero. The largest legitimate request (a tournament
// with its structure sheet and payout table) is a few kilobytes.
const DefaultMaxBody = 1 << 20

// RoleHeader is the HTTP header by which a request names the role it acts
// in, for a token holding several roles the route allows (forwarded to the
// services as rpc.RoleMetadata; see docs/SECURITY.md).
const RoleHeader = "Cardroom-Role"

// frontDoor is what every REST route passes after the mux matched it and
// before its handler reads anything: the route must be one the gateway
// serves (never a service-only RPC), the bearer token must verify (so an
// anonymous client cannot make the gateway read, buffer and decode a body),
// the service identity is refused, feeds are exempted from the server's
// read and write timeouts, and the body is read only up to the limit.
type frontDoor struct {
	routes   routes
	verifier *auth.Verifier
	maxBody  int64
	fail     runtime.ErrorHandlerFunc
	log      *slog.Logger
}

// middleware is the runtime.Middleware form of the front door.
func (d *frontDoor) middleware(next runtime.HandlerFunc) runtime.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, params map[string]string) {
		ctx := r.Context()
		pattern, _ := runtime.HTTPPattern(ctx)
		rt, ok := d.routes[routeKey(r.Method, pattern.String())]
		if !ok || rt.serviceOnly {
			// An RPC the descriptors do not describe, or one only the
			// parts call: as if there were no such route.
			refuse(d.fail, w, r, http.StatusNotFound, status.New(codes.NotFound, http.StatusText(http.StatusNotFound)), rpc.ReasonRouteNotFound)
			return
		}
		if !rt.public {
			if err := d.authenticate(r); err != nil {
				d.fail(ctx, nil, nil, w, r, err)
				return
			}
		}
		if rt.streaming {
			// A feed lasts as long as the client watches: the server's
			// read and write deadlines (set for unary calls) must not cut
			// it. Its request has no body to be slow with.
			rc := http.NewResponseController(w)
			_ = rc.SetReadDeadline(time.Time{})
			_ = rc.SetWriteDeadline(time.Time{})
		}
		if err := d.readBody(r); err != nil {
			if errors.Is(err, errTooLarge) {
				refuse(d.fail, w, r, http.StatusRequestEntityTooLarge,
					status.Newf(codes.ResourceExhausted, "the request body is larger than %d bytes", d.maxBody), rpc.ReasonRequestTooLarge)
				return
			}
			// The client stopped sending (or timed out): nobody to answer.
			d.log.DebugContext(ctx, "read request body", "path", r.URL.Path, "error", err)
			d.fail(ctx, nil, nil, w, r, fault.New(fault.Invalid, rpc.ReasonInvalidArgument, "the request body could not be read"))
			return
		}
		next(w, r, params)
	}
}

// authenticate checks the request's bearer token as every service will,
// and refuses the service identity: the parts call each other over gRPC,
// never through the public gateway.
func (d *frontDoor) authenticate(r *http.Request) error {
	var token string
	for _, v := range r.Header.Values("Authorization") {
		if t, ok := auth.BearerToken(v); ok {
			token = t
			break
		}
	}
	if token == "" {
		return fault.New(fault.Unauthenticated, rpc.ReasonUnauthenticated, "missing bearer token")
	}
	p, err := d.verifier.Verify(token)
	if err != nil {
		return fault.New(fault.Unauthenticated, rpc.ReasonUnauthenticated, "invalid bearer token").Wrap(err)
	}
	if p.HasRole(auth.Service) {
		return fault.New(fault.Forbidden, rpc.ReasonPermissionDenied, "the service identity is not accepted on the public gateway")
	}
	return nil
}

// errTooLarge: the body is over the limit.
var errTooLarge = errors.New("request body too large")

// readBody reads the whole body, at most maxBody bytes, before the handler
// decodes it: a declared length over the limit is refused unread, and a
// body that turns out longer is refused at the first byte over.
func (d *frontDoor) readBody(r *http.Request) error {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	if r.ContentLength > d.maxBody {
		return errTooLarge
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, d.maxBody+1))
	if _, over := errors.AsType[*http.MaxBytesError](err); over {
		return errTooLarge
	}
	if err != nil {
		return err
	}
	if int64(len(b)) > d.maxBody {
		return errTooLarge
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	r.ContentLength = int64(len(b))
	return nil
}

// refuse answers with st (given the reason) and the HTTP status code,
// through fail.
func refuse(fail runtime.ErrorHandlerFunc, w http.ResponseWriter, r *http.Request, code int, st *status.Status, reason string) {
	if code == http.StatusRequestEntityTooLarge {
		// The rest of the body is not read: do not keep the connection.
		w.Header().Set("Connection", "close")
	}
	fail(r.Context(), nil, nil, w, r, &runtime.HTTPStatusError{HTTPStatus: code, Err: statusWithReason(st, reason)})
}

// statusWithReason returns st carrying google.rpc.ErrorInfo{Reason: reason}.
func statusWithReason(st *status.Status, reason string) error {
	withInfo, err := st.WithDetails(&errdetails.ErrorInfo{Reason: reason, Domain: "cardroom.gateway"})
	if err != nil {
		return st.Err()
	}
	return withInfo.Err()
}

// limitBodies bounds every read of a request body, whatever handler makes
// it: the front door reads API bodies itself, this catches the rest.
func limitBodies(h http.Handler, limit int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(w, r.Body, limit)
		}
		h.ServeHTTP(w, r)
	})
}
