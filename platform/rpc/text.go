package rpc

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cardroom/cardroom/platform/fault"
)

// CheckText refuses a request whose string fields — at any depth, in lists
// and in map keys and values — hold a NUL byte or are not valid UTF-8.
// PostgreSQL cannot store either in a text column (it answered such
// requests with 500 "invalid byte sequence"), SQLite stores them silently,
// and neither is ever meant: one check for every RPC, before any handler
// or store sees the request, names the first bad field. The server runs it
// on every request (NewServer) and the gateway on every request it sends,
// so that a path parameter such as %FF is refused with 400 too instead of
// failing to marshal.
func CheckText(m proto.Message) error {
	if m == nil {
		return nil
	}
	return checkMessage(m.ProtoReflect(), "")
}

func checkMessage(m protoreflect.Message, prefix string) error {
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		err = checkField(fd, v, prefix+string(fd.Name()))
		return err == nil
	})
	return err
}

func checkField(fd protoreflect.FieldDescriptor, v protoreflect.Value, path string) error {
	switch {
	case fd.IsMap():
		var err error
		v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
			key := k.String()
			at := path + "[" + strconv.Quote(key) + "]"
			if fd.MapKey().Kind() == protoreflect.StringKind {
				if err = checkString(key, at); err != nil {
					return false
				}
			}
			err = checkValue(fd.MapValue(), mv, at)
			return err == nil
		})
		return err
	case fd.IsList():
		list := v.List()
		for i := range list.Len() {
			if err := checkValue(fd, list.Get(i), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		return nil
	}
	return checkValue(fd, v, path)
}

func checkValue(fd protoreflect.FieldDescriptor, v protoreflect.Value, path string) error {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return checkString(v.String(), path)
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return checkMessage(v.Message(), path+".")
	}
	return nil
}

func checkString(s, path string) error {
	switch {
	case strings.IndexByte(s, 0) >= 0:
		return fault.Invalidf(path, "must not hold a NUL byte")
	case !utf8.ValidString(s):
		return fault.Invalidf(path, "must be valid UTF-8")
	}
	return nil
}

// checkTextUnary and checkTextStream run CheckText on every request the
// server receives.
func checkTextUnary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if m, ok := req.(proto.Message); ok {
		if err := CheckText(m); err != nil {
			return nil, err
		}
	}
	return handler(ctx, req)
}

func checkTextStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	return handler(srv, textCheckedStream{ss})
}

// textCheckedStream checks each message a client streams in.
type textCheckedStream struct{ grpc.ServerStream }

func (s textCheckedStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	if pm, ok := m.(proto.Message); ok {
		return CheckText(pm)
	}
	return nil
}

// TextCheckedConn wraps a client connection so that every request sent on
// it passes CheckText first; a refused request never leaves the process.
// The gateway sends on such connections.
func TextCheckedConn(cc grpc.ClientConnInterface) grpc.ClientConnInterface {
	return textCheckedConn{cc}
}

type textCheckedConn struct{ grpc.ClientConnInterface }

func (c textCheckedConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	if m, ok := args.(proto.Message); ok {
		if err := CheckText(m); err != nil {
			return err
		}
	}
	return c.ClientConnInterface.Invoke(ctx, method, args, reply, opts...)
}

func (c textCheckedConn) NewStream(ctx context.Context, desc *grpc.StreamDesc, method string, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	cs, err := c.ClientConnInterface.NewStream(ctx, desc, method, opts...)
	if err != nil {
		return nil, err
	}
	return textCheckedClientStream{cs}, nil
}

// textCheckedClientStream checks each message sent on a client stream.
type textCheckedClientStream struct{ grpc.ClientStream }

func (s textCheckedClientStream) SendMsg(m any) error {
	if pm, ok := m.(proto.Message); ok {
		if err := CheckText(pm); err != nil {
			// The stream was opened; end it rather than leave it waiting
			// for a request that will not come.
			_ = s.CloseSend()
			return err
		}
	}
	return s.ClientStream.SendMsg(m)
}
