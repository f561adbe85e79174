// Command openapi31 reads cardroom's Swagger 2.0 document on standard input
// and writes it as OpenAPI 3.1 on standard output (openapi.Convert31).
// scripts/proto.sh runs it after buf, so `make proto` writes
// proto/openapi/cardroom.openapi.json and `make proto-check` finds it
// stale like the rest of the generated code.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/cardroom/cardroom/proto/openapi"
)

func main() {
	in, err := io.ReadAll(os.Stdin)
	if err == nil {
		var out []byte
		if out, err = openapi.Convert31(in); err == nil {
			_, err = os.Stdout.Write(out)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "openapi31:", err)
		os.Exit(1)
	}
}
