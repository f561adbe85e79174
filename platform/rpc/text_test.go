package rpc

import (
	"context"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/cardroom/cardroom/platform/fault"
)

func TestCheckTextFindsEveryString(t *testing.T) {
	t.Parallel()
	nested := func(s string) proto.Message {
		return &structpb.Struct{Fields: map[string]*structpb.Value{
			"seats": structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{
				structpb.NewStringValue("fine"),
				structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"name": structpb.NewStringValue(s)}}),
			}}),
		}}
	}
	tests := []struct {
		name  string
		msg   proto.Message
		field string // "" means accepted
	}{
		{"plain text", nested("Anna Kärkkäinen ♠"), ""},
		{"nil message", nil, ""},
		{"NUL deep in a list in a map", nested("a\x00b"), `fields["seats"].list_value.values[1].struct_value.fields["name"].string_value`},
		{"invalid UTF-8 deep in a list in a map", nested("a\xffb"), `fields["seats"].list_value.values[1].struct_value.fields["name"].string_value`},
		{"NUL in a map key", &structpb.Struct{Fields: map[string]*structpb.Value{"k\x00": structpb.NewNullValue()}}, `fields["k\x00"]`},
		{"top-level string", structpb.NewStringValue("\x00"), "string_value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := CheckText(tt.msg)
			if tt.field == "" {
				if err != nil {
					t.Fatalf("CheckText = %v", err)
				}
				return
			}
			f, ok := fault.As(err)
			if !ok || f.Kind != fault.Invalid || f.Reason != ReasonInvalidArgument || f.Meta[MetaField] != tt.field {
				t.Fatalf("CheckText = %v (meta %v), want INVALID_ARGUMENT naming %s", err, f.Meta, tt.field)
			}
		})
	}
}

// recordingConn is a ClientConnInterface that records whether a call left.
type recordingConn struct{ invoked, streamed bool }

func (c *recordingConn) Invoke(context.Context, string, any, any, ...grpc.CallOption) error {
	c.invoked = true
	return nil
}

func (c *recordingConn) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	c.streamed = true
	return nil, nil
}

func TestTextCheckedConnKeepsBadRequestsIn(t *testing.T) {
	t.Parallel()
	inner := &recordingConn{}
	cc := TextCheckedConn(inner)
	err := cc.Invoke(t.Context(), "/x.S/M", structpb.NewStringValue("a\x00"), &structpb.Value{})
	if fault.KindOf(err) != fault.Invalid || inner.invoked {
		t.Fatalf("Invoke = %v, invoked %v; want INVALID_ARGUMENT and no call", err, inner.invoked)
	}
	if err := cc.Invoke(t.Context(), "/x.S/M", structpb.NewStringValue("ok"), &structpb.Value{}); err != nil || !inner.invoked {
		t.Fatalf("Invoke of a good request = %v, invoked %v", err, inner.invoked)
	}
}
