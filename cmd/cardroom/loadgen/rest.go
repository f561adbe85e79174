package loadgen

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/cardroom/cardroom/platform/auth"
	faultv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/fault/v1"
)

// REST is a grpc.ClientConnInterface that makes each unary call as the
// REST request the gateway maps it to, read from the method's
// google.api.http option: the generated gRPC clients then drive the REST
// API unchanged, and the bots are the same code over both. The bearer
// token is the one auth.WithToken put in the call's context. A refusal
// comes back as the gRPC status the gateway's error body describes, with
// its reason (ReasonOf), as a gRPC client sees it.
type REST struct {
	// Base is the gateway's URL, "http://127.0.0.1:8080".
	Base   string
	Client *http.Client
}

var _ grpc.ClientConnInterface = (*REST)(nil)

var (
	restRequest  = protojson.MarshalOptions{UseProtoNames: true}
	restResponse = protojson.UnmarshalOptions{DiscardUnknown: true}
)

// Invoke sends method ("/cardroom.table.v1.TableService/Act") as its REST
// request and decodes the answer into reply.
func (r *REST) Invoke(ctx context.Context, method string, args, reply any, _ ...grpc.CallOption) error {
	req, ok := args.(proto.Message)
	if !ok {
		return status.Errorf(codes.Internal, "%s: request %T is not a proto message", method, args)
	}
	hr, err := r.request(ctx, method, req)
	if err != nil {
		return err
	}
	resp, err := r.Client.Do(hr)
	if err != nil {
		return status.Error(codes.Unavailable, err.Error())
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return status.Error(codes.Unavailable, err.Error())
	}
	if resp.StatusCode != http.StatusOK {
		return restError(resp.StatusCode, body)
	}
	if err := restResponse.Unmarshal(body, reply.(proto.Message)); err != nil {
		return status.Errorf(codes.Internal, "%s: decode answer: %v", method, err)
	}
	return nil
}

// NewStream is not supported: the bots read tables by polling.
func (r *REST) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	return nil, status.Error(codes.Unimplemented, "loadgen's REST client makes unary calls only")
}

// request builds the HTTP request of one call from its HTTP rule: path
// parameters from the request's fields, the body ("*" or one field) as
// JSON, and for a request without body the other set fields as the query.
func (r *REST) request(ctx context.Context, method string, req proto.Message) (*http.Request, error) {
	name := protoreflect.FullName(strings.ReplaceAll(strings.TrimPrefix(method, "/"), "/", "."))
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(name)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "%s: %v", method, err)
	}
	md, ok := d.(protoreflect.MethodDescriptor)
	if !ok {
		return nil, status.Errorf(codes.Internal, "%s is not a method", method)
	}
	rule, _ := proto.GetExtension(md.Options(), annotations.E_Http).(*annotations.HttpRule)
	verb, tmpl := httpPattern(rule)
	if verb == "" {
		return nil, status.Errorf(codes.Unimplemented, "%s has no REST route", method)
	}
	m := req.ProtoReflect()
	used := map[string]bool{}
	path, err := expand(tmpl, m, used)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "%s: %v", method, err)
	}
	var body io.Reader
	switch b := rule.GetBody(); b {
	case "":
		q := url.Values{}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if !used[string(fd.Name())] && fd.Kind() != protoreflect.MessageKind && !fd.IsList() && !fd.IsMap() {
				q.Set(string(fd.Name()), scalar(fd, v))
			}
			return true
		})
		if len(q) > 0 {
			path += "?" + q.Encode()
		}
	default:
		msg := req
		if b != "*" {
			msg = m.Get(m.Descriptor().Fields().ByName(protoreflect.Name(b))).Message().Interface()
		}
		data, err := restRequest.Marshal(msg)
		if err != nil {
			return nil, status.Errorf(codes.Internal, "%s: encode request: %v", method, err)
		}
		body = bytes.NewReader(data)
	}
	hr, err := http.NewRequestWithContext(ctx, verb, strings.TrimRight(r.Base, "/")+path, body)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "%s: %v", method, err)
	}
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if tok, ok := auth.TokenFromContext(ctx); ok {
		hr.Header.Set("Authorization", "Bearer "+tok)
	}
	return hr, nil
}

// httpPattern returns the rule's HTTP method and path template.
func httpPattern(rule *annotations.HttpRule) (verb, path string) {
	switch p := rule.GetPattern().(type) {
	case *annotations.HttpRule_Get:
		return http.MethodGet, p.Get
	case *annotations.HttpRule_Post:
		return http.MethodPost, p.Post
	case *annotations.HttpRule_Put:
		return http.MethodPut, p.Put
	case *annotations.HttpRule_Patch:
		return http.MethodPatch, p.Patch
	case *annotations.HttpRule_Delete:
		return http.MethodDelete, p.Delete
	}
	return "", ""
}

// expand fills a path template's {field} parameters from m, noting the
// fields used.
func expand(tmpl string, m protoreflect.Message, used map[string]bool) (string, error) {
	var out strings.Builder
	for {
		open := strings.IndexByte(tmpl, '{')
		if open < 0 {
			out.WriteString(tmpl)
			return out.String(), nil
		}
		end := strings.IndexByte(tmpl[open:], '}')
		if end < 0 {
			return "", fmt.Errorf("bad path template %q", tmpl)
		}
		field, _, _ := strings.Cut(tmpl[open+1:open+end], "=")
		fd := m.Descriptor().Fields().ByName(protoreflect.Name(field))
		if fd == nil {
			return "", fmt.Errorf("path template %q names no field %q", tmpl, field)
		}
		used[field] = true
		out.WriteString(tmpl[:open])
		out.WriteString(url.PathEscape(scalar(fd, m.Get(fd))))
		tmpl = tmpl[open+end+1:]
	}
}

// scalar prints a scalar field's value as a path or query parameter.
func scalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	if fd.Kind() == protoreflect.EnumKind {
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name())
		}
	}
	return v.String()
}

// restError turns the gateway's error body back into the gRPC status it
// was made from, with the reason beside it (ReasonOf reads it).
func restError(httpStatus int, body []byte) error {
	var e faultv1.Error
	if err := protojson.Unmarshal(body, &e); err != nil || e.GetCode() == "" {
		return status.Errorf(codes.Unknown, "HTTP %d: %s", httpStatus, truncate(body))
	}
	c := codes.Unknown
	if n, ok := code.Code_value[e.GetCode()]; ok {
		c = codes.Code(n)
	}
	st := status.New(c, e.GetMessage())
	if e.GetReason() == "" {
		return st.Err()
	}
	return &refusal{st: st, reason: e.GetReason()}
}

// refusal is a REST error body as a client reads it: the status and the
// reason the service sent. Rebuilding a google.rpc.ErrorInfo here would
// make the load generator look like a sender of reasons, which only the
// services are.
type refusal struct {
	st     *status.Status
	reason string
}

func (r *refusal) Error() string { return r.reason + ": " + r.st.Message() }

// GRPCStatus lets status.FromError and status.Code see the refusal's code.
func (r *refusal) GRPCStatus() *status.Status { return r.st }

func truncate(b []byte) string {
	if len(b) > 200 {
		b = b[:200]
	}
	return fmt.Sprintf("%q", b)
}
