module github.com/cardroom/cardroom/tools/protoc/printproto

go 1.26.0

require (
	buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go v1.36.12-20260825204119-511051f7f437.1
	github.com/jhump/protoreflect/v2 v2.0.0
	google.golang.org/genproto/googleapis/api v0.0.0-20261026165753-2ffab32bce7e
	google.golang.org/protobuf v1.36.12
)
