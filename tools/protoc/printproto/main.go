// Command printproto writes the .proto sources of the third-party files we
// vendor under proto/third_party, printed back from the descriptors compiled
// into the Go packages our generated code imports. No Go module ships these
// files as source, and the buf schema registry is not reachable offline;
// printing them from the same Go packages keeps their go_package options, so
// the generated code imports the existing Go packages.
//
// Usage (from the repository root):
//
//	cd tools/protoc/printproto && GOWORK=off go run . ../../../proto/third_party
package main

import (
	"fmt"
	"os"
	"path/filepath"

	_ "buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"github.com/jhump/protoreflect/v2/protoprint"
	_ "google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// files lists the vendored files; each must be linked in by an import above.
var files = []string{
	"google/api/annotations.proto",
	"google/api/http.proto",
	"google/api/field_behavior.proto",
	"buf/validate/validate.proto",
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: printproto OUTDIR")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "printproto:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	printer := &protoprint.Printer{}
	for _, name := range files {
		fd, err := protoregistry.GlobalFiles.FindFileByPath(name)
		if err != nil {
			return fmt.Errorf("find %s: %w", name, err)
		}
		if err := write(printer, out, fd); err != nil {
			return err
		}
	}
	return nil
}

func write(printer *protoprint.Printer, out string, fd protoreflect.FileDescriptor) error {
	path := filepath.Join(out, fd.Path())
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := printer.PrintProtoFile(fd, f); err != nil {
		f.Close()
		return fmt.Errorf("print %s: %w", fd.Path(), err)
	}
	return f.Close()
}
