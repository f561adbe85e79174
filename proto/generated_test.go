package proto_test

import (
	"os/exec"
	"testing"
)

// TestGeneratedCodeIsFresh makes `make test` fail when someone changed a
// .proto without running `make proto` (or hand-edited generated code): it
// regenerates into a temporary directory and compares. Needs the tools
// modules' dependencies in the module cache; skipped with -short.
func TestGeneratedCodeIsFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("regenerates the protos with buf")
	}
	out, err := exec.CommandContext(t.Context(), "../scripts/proto.sh", "--check").CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/proto.sh --check: %v\n%s", err, out)
	}
}
