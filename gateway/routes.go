package gateway

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/cardroom/cardroom/platform/rpc"
)

// route is what the gateway knows of one REST route, from the descriptors
// of the RPC behind it: who may call it and whether it is a feed.
type route struct {
	// rpc is the full gRPC method, "/cardroom.table.v1.TableService/Sit".
	rpc string
	// public routes need no token.
	public bool
	// serviceOnly routes are the parts' calls to each other: never served.
	serviceOnly bool
	// streaming routes are feeds (server-streaming RPCs).
	streaming bool
	// bound routes come from a google.api.http option; the others are
	// grpc-gateway's default route, registered only if generated.
	bound bool
}

// routes maps "METHOD /path/{template}" to its route.
type routes map[string]route

// routeKey is the key of an HTTP method and a path template as the
// google.api.http option writes it ("/v1/tables/{table_id}:close") or as
// grpc-gateway's Pattern.String prints it ("/v1/tables/{table_id=*}:close").
func routeKey(method, template string) string {
	return method + " " + strings.ReplaceAll(template, "=*}", "}")
}

// routeTable reads every RPC in files that grpc-gateway may route: those
// with a google.api.http binding (and its additional bindings) and, under
// grpc-gateway's default route "POST /package.Service/Method", every other.
// Access rules come from authorize.
func routeTable(files *protoregistry.Files, authorize rpc.Authorizer) routes {
	t := routes{}
	files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		for i := range fd.Services().Len() {
			sd := fd.Services().Get(i)
			for j := range sd.Methods().Len() {
				md := sd.Methods().Get(j)
				full := "/" + string(sd.FullName()) + "/" + string(md.Name())
				roles, public, known := authorize(full)
				r := route{rpc: full, public: known && public, serviceOnly: known && rpc.ServiceOnly(roles, public), streaming: md.IsStreamingServer()}
				t[routeKey(http.MethodPost, full)] = r
				rule, _ := proto.GetExtension(md.Options(), annotations.E_Http).(*annotations.HttpRule)
				r.bound = true
				for _, b := range bindings(rule) {
					t[routeKey(b.method, b.path)] = r
				}
			}
		}
		return true
	})
	return t
}

// binding is one HTTP method and path template of a google.api.http rule.
type binding struct{ method, path string }

// bindings lists rule's binding and its additional bindings.
func bindings(rule *annotations.HttpRule) []binding {
	if rule == nil {
		return nil
	}
	var out []binding
	switch p := rule.GetPattern().(type) {
	case *annotations.HttpRule_Get:
		out = append(out, binding{http.MethodGet, p.Get})
	case *annotations.HttpRule_Post:
		out = append(out, binding{http.MethodPost, p.Post})
	case *annotations.HttpRule_Put:
		out = append(out, binding{http.MethodPut, p.Put})
	case *annotations.HttpRule_Patch:
		out = append(out, binding{http.MethodPatch, p.Patch})
	case *annotations.HttpRule_Delete:
		out = append(out, binding{http.MethodDelete, p.Delete})
	case *annotations.HttpRule_Custom:
		out = append(out, binding{p.Custom.GetKind(), p.Custom.GetPath()})
	}
	for _, extra := range rule.GetAdditionalBindings() {
		out = append(out, bindings(extra)...)
	}
	return out
}

// checkNoServiceOnlyBindings refuses a table in which a service-only RPC of
// a cardroom service is bound to a REST route: the gateway would otherwise
// register it. proto's TestEveryRPCHasHTTPRoute catches the same when the
// .proto is written; this is the gateway refusing to start with such a
// route.
func (t routes) checkNoServiceOnlyBindings() error {
	for _, key := range slices.Sorted(maps.Keys(t)) {
		if r := t[key]; r.bound && r.serviceOnly && strings.HasPrefix(r.rpc, "/cardroom.") {
			return fmt.Errorf("%s is for the service role only but is bound to %s: remove its google.api.http option", r.rpc, key)
		}
	}
	return nil
}
