package rpc

import (
	"context"
	"testing"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// The tests build their proto fixtures at run time from descriptor text:
// cardroom.auth.v1 as proto/cardroom/auth/v1/auth.proto declares it, and a
// small service using its access option and protovalidate rules. Local
// registries keep them apart from whatever generated code is linked in.

const authFileText = `
name: "cardroom/auth/v1/auth.proto"
package: "cardroom.auth.v1"
dependency: "google/protobuf/descriptor.proto"
syntax: "proto3"
enum_type {
  name: "Role"
  value { name: "ROLE_UNSPECIFIED" number: 0 }
  value { name: "ROLE_PLAYER" number: 1 }
  value { name: "ROLE_DEALER" number: 2 }
  value { name: "ROLE_FLOOR" number: 3 }
  value { name: "ROLE_CASHIER" number: 4 }
  value { name: "ROLE_ADMIN" number: 5 }
  value { name: "ROLE_SERVICE" number: 6 }
}
message_type {
  name: "Access"
  field { name: "roles" number: 1 label: LABEL_REPEATED type: TYPE_ENUM type_name: ".cardroom.auth.v1.Role" json_name: "roles" }
  field { name: "public" number: 2 label: LABEL_OPTIONAL type: TYPE_BOOL json_name: "public" }
}
extension { name: "access" number: 51001 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".cardroom.auth.v1.Access" extendee: ".google.protobuf.MethodOptions" json_name: "access" }
`

const testFileText = `
name: "cardroom/rpctest/v1/rpctest.proto"
package: "cardroom.rpctest.v1"
dependency: "cardroom/auth/v1/auth.proto"
dependency: "buf/validate/validate.proto"
syntax: "proto3"
message_type {
  name: "PingRequest"
  field {
    name: "table_id" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "tableId"
    options { [buf.validate.field] { string { min_len: 1 } } }
  }
  field {
    name: "amount" number: 2 label: LABEL_OPTIONAL type: TYPE_INT64 json_name: "amount"
    options { [buf.validate.field] { int64 { gt: 0 } } }
  }
}
message_type {
  name: "PingResponse"
  field { name: "who" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "who" }
}
service {
  name: "TestService"
  method {
    name: "Ping" input_type: ".cardroom.rpctest.v1.PingRequest" output_type: ".cardroom.rpctest.v1.PingResponse"
    options { [cardroom.auth.v1.access] { roles: [ROLE_CASHIER, ROLE_FLOOR] } }
  }
  method {
    name: "Open" input_type: ".cardroom.rpctest.v1.PingRequest" output_type: ".cardroom.rpctest.v1.PingResponse"
    options { [cardroom.auth.v1.access] { public: true } }
  }
  method {
    name: "Relay" input_type: ".cardroom.rpctest.v1.PingRequest" output_type: ".cardroom.rpctest.v1.PingResponse"
    options { [cardroom.auth.v1.access] { roles: [ROLE_PLAYER, ROLE_SERVICE] } }
  }
  method {
    name: "Settle" input_type: ".cardroom.rpctest.v1.PingRequest" output_type: ".cardroom.rpctest.v1.PingResponse"
    options { [cardroom.auth.v1.access] { roles: [ROLE_SERVICE] } }
  }
  method {
    name: "Seat" input_type: ".cardroom.rpctest.v1.PingRequest" output_type: ".cardroom.rpctest.v1.PingResponse"
    options { [cardroom.auth.v1.access] { roles: [ROLE_PLAYER, ROLE_DEALER, ROLE_FLOOR] } }
  }
  method {
    name: "Watch" input_type: ".cardroom.rpctest.v1.PingRequest" output_type: ".cardroom.rpctest.v1.PingResponse"
    server_streaming: true
    options { [cardroom.auth.v1.access] { roles: [ROLE_PLAYER] } }
  }
  method {
    name: "Undeclared" input_type: ".cardroom.rpctest.v1.PingRequest" output_type: ".cardroom.rpctest.v1.PingResponse"
  }
}
`

// fixture is the test service's descriptors and registries.
type fixture struct {
	files   *protoregistry.Files
	types   *protoregistry.Types
	service protoreflect.ServiceDescriptor
}

// chainResolver finds files in the local registry first, then the global one.
type chainResolver struct{ local *protoregistry.Files }

func (r chainResolver) FindFileByPath(p string) (protoreflect.FileDescriptor, error) {
	if fd, err := r.local.FindFileByPath(p); err == nil {
		return fd, nil
	}
	return protoregistry.GlobalFiles.FindFileByPath(p)
}

func (r chainResolver) FindDescriptorByName(n protoreflect.FullName) (protoreflect.Descriptor, error) {
	if d, err := r.local.FindDescriptorByName(n); err == nil {
		return d, nil
	}
	return protoregistry.GlobalFiles.FindDescriptorByName(n)
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	files := new(protoregistry.Files)
	types := new(protoregistry.Types)
	if err := types.RegisterExtension(validate.E_Field); err != nil {
		t.Fatal(err)
	}
	load := func(text string) protoreflect.FileDescriptor {
		fdp := new(descriptorpb.FileDescriptorProto)
		if err := (prototext.UnmarshalOptions{Resolver: types}).Unmarshal([]byte(text), fdp); err != nil {
			t.Fatal(err)
		}
		fd, err := protodesc.NewFile(fdp, chainResolver{files})
		if err != nil {
			t.Fatal(err)
		}
		if err := files.RegisterFile(fd); err != nil {
			t.Fatal(err)
		}
		return fd
	}
	authFile := load(authFileText)
	if err := types.RegisterExtension(dynamicpb.NewExtensionType(authFile.Extensions().ByName("access"))); err != nil {
		t.Fatal(err)
	}
	testFile := load(testFileText)
	return fixture{files: files, types: types, service: testFile.Services().ByName("TestService")}
}

func (f fixture) method(name string) protoreflect.MethodDescriptor {
	return f.service.Methods().ByName(protoreflect.Name(name))
}

func fullMethod(name string) string { return "/cardroom.rpctest.v1.TestService/" + name }

// request returns a PingRequest.
func (f fixture) request(tableID string, amount int64) *dynamicpb.Message {
	m := dynamicpb.NewMessage(f.method("Ping").Input())
	fields := m.Descriptor().Fields()
	m.Set(fields.ByName("table_id"), protoreflect.ValueOfString(tableID))
	m.Set(fields.ByName("amount"), protoreflect.ValueOfInt64(amount))
	return m
}

func (f fixture) response(who string) *dynamicpb.Message {
	m := dynamicpb.NewMessage(f.method("Ping").Output())
	m.Set(m.Descriptor().Fields().ByName("who"), protoreflect.ValueOfString(who))
	return m
}

func who(m proto.Message) string {
	r := m.ProtoReflect()
	return r.Get(r.Descriptor().Fields().ByName("who")).String()
}

func tableID(m proto.Message) string {
	r := m.ProtoReflect()
	return r.Get(r.Descriptor().Fields().ByName("table_id")).String()
}

// handlerFunc implements every method of the test service.
type handlerFunc func(ctx context.Context, method string, req *dynamicpb.Message) (proto.Message, error)

// serviceDesc is a hand-written grpc.ServiceDesc for the dynamic service,
// standing in for generated _grpc.pb.go code.
func (f fixture) serviceDesc(h handlerFunc) *grpc.ServiceDesc {
	sd := &grpc.ServiceDesc{
		ServiceName: string(f.service.FullName()),
		HandlerType: (*any)(nil),
		Metadata:    f.service.ParentFile().Path(),
	}
	methods := f.service.Methods()
	for i := range methods.Len() {
		md := methods.Get(i)
		name := string(md.Name())
		if md.IsStreamingServer() {
			sd.Streams = append(sd.Streams, grpc.StreamDesc{
				StreamName:    name,
				ServerStreams: true,
				Handler: func(_ any, stream grpc.ServerStream) error {
					in := dynamicpb.NewMessage(md.Input())
					if err := stream.RecvMsg(in); err != nil {
						return err
					}
					out, err := h(stream.Context(), name, in)
					if err != nil {
						return err
					}
					return stream.SendMsg(out)
				},
			})
			continue
		}
		sd.Methods = append(sd.Methods, grpc.MethodDesc{
			MethodName: name,
			Handler: func(srv any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
				in := dynamicpb.NewMessage(md.Input())
				if err := dec(in); err != nil {
					return nil, err
				}
				call := func(ctx context.Context, req any) (any, error) { return h(ctx, name, req.(*dynamicpb.Message)) }
				if interceptor == nil {
					return call(ctx, in)
				}
				return interceptor(ctx, in, &grpc.UnaryServerInfo{Server: srv, FullMethod: fullMethod(name)}, call)
			},
		})
	}
	return sd
}
