package gateway

import (
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/cardroom/cardroom/platform/auth"
)

// TestRouteTableRefusesServiceOnlyBindings: a cardroom RPC only the service
// role may call, bound to a REST route, stops the gateway from starting;
// the same RPC without a binding is in the table (grpc-gateway's default
// route) as service-only, which the front door answers 404.
func TestRouteTableRefusesServiceOnlyBindings(t *testing.T) {
	t.Parallel()
	file := func(bound bool) *protoregistry.Files {
		opts := &descriptorpb.MethodOptions{}
		if bound {
			proto.SetExtension(opts, annotations.E_Http, &annotations.HttpRule{Pattern: &annotations.HttpRule_Post{Post: "/v1/holds"}, Body: "*"})
		}
		fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
			Name: proto.String("cardroom/holdtest/v1/holdtest.proto"), Package: proto.String("cardroom.holdtest.v1"), Syntax: proto.String("proto3"),
			Dependency: []string{"google/protobuf/empty.proto"},
			Service: []*descriptorpb.ServiceDescriptorProto{{Name: proto.String("HoldService"), Method: []*descriptorpb.MethodDescriptorProto{{
				Name: proto.String("Hold"), InputType: proto.String(".google.protobuf.Empty"), OutputType: proto.String(".google.protobuf.Empty"), Options: opts,
			}}}},
		}, protoregistry.GlobalFiles)
		if err != nil {
			t.Fatal(err)
		}
		files := new(protoregistry.Files)
		if err := files.RegisterFile(fd); err != nil {
			t.Fatal(err)
		}
		return files
	}
	serviceOnly := func(string) ([]auth.Role, bool, bool) { return []auth.Role{auth.Service}, false, true }
	players := func(string) ([]auth.Role, bool, bool) { return []auth.Role{auth.Player, auth.Service}, false, true }

	if err := routeTable(file(true), serviceOnly).checkNoServiceOnlyBindings(); err == nil || !strings.Contains(err.Error(), "HoldService/Hold") {
		t.Errorf("a bound service-only RPC: %v, want the gateway refused to start naming it", err)
	}
	if err := routeTable(file(true), players).checkNoServiceOnlyBindings(); err != nil {
		t.Errorf("a bound RPC players may call: %v", err)
	}
	table := routeTable(file(false), serviceOnly)
	if err := table.checkNoServiceOnlyBindings(); err != nil {
		t.Errorf("an unbound service-only RPC: %v", err)
	}
	if r, ok := table[routeKey("POST", "/cardroom.holdtest.v1.HoldService/Hold")]; !ok || !r.serviceOnly || r.bound {
		t.Errorf("default route of an unbound service-only RPC = %+v, %v", r, ok)
	}
}
