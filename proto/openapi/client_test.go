package openapi_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cardroom/cardroom/proto/openapi"
)

// TestTypedClientGeneratesOffline shows that a typed client can be
// generated from the OpenAPI 3.1 document alone, offline: ogen (a Go
// generator for OpenAPI 3.x, pinned in tools/ogen/go.mod and fetched
// through the Go module proxy like buf and the protoc plugins) writes a
// client for cardroom.openapi.json with every operation in it, and a small
// app that lists tables (closed ones included) through the typed client
// builds with GOPROXY=off. Skipped with -short, like the freshness check.
func TestTypedClientGeneratesOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a code generator and the generated client")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tools := filepath.Join(root, "tools", "ogen")
	app := t.TempDir()
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	run := func(dir string, env []string, name string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), name, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run(tools, env, "go", "tool", "ogen", "-config", "ogen.yml", "-package", "client", "-clean",
		"-target", filepath.Join(app, "client"), filepath.Join(root, "proto", "openapi", "cardroom.openapi.json"))

	// Every operation of the document has its typed method.
	gen, err := os.ReadFile(filepath.Join(app, "client", "oas_client_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	ops := regexp.MustCompile(`"operationId": "([^"]+)"`).FindAllSubmatch(openapi.JSON31(), -1)
	methods := len(regexp.MustCompile(`(?m)^func \(c \*Client\) [A-Z]\w*\(ctx context\.Context`).FindAll(gen, -1))
	if len(ops) == 0 || methods != len(ops) {
		t.Fatalf("%d typed client methods for %d operations", methods, len(ops))
	}

	// The app module requires what tools/ogen requires (the generated
	// code's runtime is ogen's own) and builds with the module proxy off.
	mod, err := os.ReadFile(filepath.Join(tools, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mod = regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(mod, []byte("module example.com/app"))
	mod = regexp.MustCompile(`(?m)^tool .*$`).ReplaceAll(mod, nil)
	sum, err := os.ReadFile(filepath.Join(tools, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"go.mod": mod, "go.sum": sum, "main.go": []byte(appMain)} {
		if err := os.WriteFile(filepath.Join(app, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(app, append(env, "GOPROXY=off"), "go", "build", "-o", os.DevNull, ".")
	if !bytes.Contains(gen, []byte("TableServiceListTables")) {
		t.Fatal("no ListTables in the client")
	}
	t.Logf("ogen: %d operations, each a typed method; the app builds offline", len(ops))
}

// appMain uses the generated client the way an app does: typed request
// parameters, a bearer token, typed fields of the answer.
const appMain = `package main

import (
	"context"
	"fmt"

	"example.com/app/client"
)

type token string

func (t token) Bearer(context.Context, client.OperationName) (client.Bearer, error) {
	return client.Bearer{APIKey: "Bearer " + string(t)}, nil
}

func main() {
	c, err := client.NewClient("http://127.0.0.1:8080", token("dev"))
	if err != nil {
		panic(err)
	}
	res, err := c.TableServiceListTables(context.Background(), client.TableServiceListTablesParams{IncludeClosed: client.NewOptBool(true)})
	if err != nil {
		panic(err)
	}
	for _, t := range res.Tables {
		fmt.Println(t.Name.Or(""), t.Closed.Or(false))
	}
}
`
