package gateway

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"strconv"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/cardroom/cardroom/platform/rpc"
	faultv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/fault/v1"
)

// metaRuleID is the google.rpc.ErrorInfo metadata key of the RULES.md rule
// ID; the error body lifts it to "rule_id".
const metaRuleID = rpc.MetaRuleID

// errorJSON writes every field, so clients can rely on the body's shape.
var errorJSON = protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}

// errorHandler turns a gRPC status (from a service, or one the gateway made
// for a malformed request) into an HTTP status and a cardroom.fault.v1.Error
// JSON body: {"code", "http_status", "message", "reason", "rule_id", "metadata"}.
// The status goes through rpc.ToStatus first, as on every service: what the
// gateway's own gRPC client makes up when a service is down or misbehaves
// carries transport text that names internal addresses, and is masked
// behind a correlation ID that the log ties to the real error.
func errorHandler(log *slog.Logger) runtime.ErrorHandlerFunc {
	return func(ctx context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, r *http.Request, err error) {
		httpStatus := 0
		if custom, ok := errors.AsType[*runtime.HTTPStatusError](err); ok {
			err, httpStatus = custom.Err, custom.HTTPStatus
		}
		method, _ := runtime.RPCMethod(ctx)
		body := errorBody(status.Convert(rpc.ToStatus(ctx, log, method, err)), httpStatus)
		buf, merr := errorJSON.Marshal(body)
		if merr != nil {
			// Cannot happen for this message; keep the status code anyway.
			log.ErrorContext(ctx, "marshal error body", "error", merr)
			buf = []byte(`{"code":"INTERNAL","http_status":500,"message":"failed to marshal error"}`)
		}
		h := w.Header()
		h.Del("Trailer")
		h.Del("Transfer-Encoding")
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(buf)))
		if body.HttpStatus == http.StatusUnauthorized {
			h.Set("WWW-Authenticate", `Bearer realm="cardroom"`)
		}
		w.WriteHeader(int(body.HttpStatus))
		if _, werr := w.Write(buf); werr != nil {
			log.DebugContext(ctx, "write error response", "path", r.URL.Path, "error", werr)
		}
	}
}

// streamErrorHandler masks a server stream's failure the way errorHandler
// masks a unary call's; grpc-gateway writes the result as the stream's last
// line, {"error": google.rpc.Status}.
func streamErrorHandler(log *slog.Logger) runtime.StreamErrorHandlerFunc {
	return func(ctx context.Context, err error) *status.Status {
		method, _ := runtime.RPCMethod(ctx)
		return status.Convert(rpc.ToStatus(ctx, log, method, err))
	}
}

// errorBody builds the JSON error body of st; httpStatus, when not zero,
// overrides the one st's code maps to.
func errorBody(st *status.Status, httpStatus int) *faultv1.Error {
	if httpStatus == 0 {
		httpStatus = runtime.HTTPStatusFromCode(st.Code())
		if info := errorInfo(st); info != nil && info.GetReason() == rpc.ReasonRequestTooLarge {
			// gRPC's ResourceExhausted is 429 ("slow down"); a message over
			// the limit will not pass however slowly it is sent.
			httpStatus = http.StatusRequestEntityTooLarge
		}
	}
	body := &faultv1.Error{
		Code:       code.Code(st.Code()).String(),
		HttpStatus: int32(httpStatus),
		Message:    st.Message(),
		Metadata:   map[string]string{},
	}
	if info := errorInfo(st); info != nil {
		body.Reason = info.GetReason()
		maps.Copy(body.Metadata, info.GetMetadata())
		body.RuleId = body.Metadata[metaRuleID]
		delete(body.Metadata, metaRuleID)
	} else if name := code.Code(st.Code()).String(); isReason(name) {
		// Statuses without ErrorInfo (the gateway's own, for a malformed
		// body or an unknown route) still get a reason when the closed list
		// has one for their code.
		body.Reason = name
	}
	return body
}

func errorInfo(st *status.Status) *errdetails.ErrorInfo {
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info
		}
	}
	return nil
}

// isReason reports whether name is a cardroom.fault.v1.Reason (without the
// REASON_ prefix).
func isReason(name string) bool {
	_, ok := faultv1.Reason_value["REASON_"+name]
	return ok && name != "UNSPECIFIED"
}

// routingErrorHandler keeps the HTTP status of a routing failure (404 for an
// unknown path, 405 for a known path with the wrong method, 400 for a path
// that is not one) and reports it through the same JSON error body, with
// its reason.
func routingErrorHandler(ctx context.Context, mux *runtime.ServeMux, m runtime.Marshaler, w http.ResponseWriter, r *http.Request, httpStatus int) {
	c, reason := codes.Internal, rpc.ReasonInternal
	switch httpStatus {
	case http.StatusBadRequest:
		c, reason = codes.InvalidArgument, rpc.ReasonInvalidArgument
	case http.StatusNotFound:
		c, reason = codes.NotFound, rpc.ReasonRouteNotFound
	case http.StatusMethodNotAllowed:
		c, reason = codes.Unimplemented, rpc.ReasonMethodNotAllowed
	}
	err := &runtime.HTTPStatusError{HTTPStatus: httpStatus, Err: statusWithReason(status.New(c, http.StatusText(httpStatus)), reason)}
	runtime.HTTPError(ctx, mux, m, w, r, err)
}
