package main

import (
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cardroom/cardroom/platform/config"
	"github.com/cardroom/cardroom/platform/gamingday"
	"github.com/cardroom/cardroom/services/seating"
	"github.com/cardroom/cardroom/services/table"
	"github.com/cardroom/cardroom/services/wallet"
)

var update = flag.Bool("update", false, "rewrite README.md's service settings table")

// README markers around the generated service settings table.
const (
	settingsBegin = "<!-- service settings: generated; go test ./cmd/cardroom -update rewrites it -->\n"
	settingsEnd   = "<!-- end of service settings -->"
)

// serviceSettings are the variables the services read beside
// platform/config's, in the order the README lists them: the room's gaming
// day, which seating and the wallet both read, once.
func serviceSettings() []config.Variable {
	all := slices.Concat(config.VariablesOf[gamingday.Config](), config.VariablesOf[table.Settings](),
		config.VariablesOf[seating.Settings](), config.VariablesOf[wallet.Config]())
	seen := map[string]bool{}
	return slices.DeleteFunc(all, func(v config.Variable) bool {
		dup := seen[v.Name]
		seen[v.Name] = true
		return dup
	})
}

// TestReadmeListsServiceSettings keeps the README's table of service
// settings in step with the structs cmd/cardroom parses them into.
func TestReadmeListsServiceSettings(t *testing.T) {
	t.Parallel()
	const path = "../../README.md"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	before, rest, ok := strings.Cut(readme, settingsBegin)
	_, after, ok2 := strings.Cut(rest, settingsEnd)
	if !ok || !ok2 {
		t.Fatalf("README.md lacks the markers %q ... %q", settingsBegin, settingsEnd)
	}
	want := before + settingsBegin + config.TableOf(serviceSettings()) + settingsEnd + after
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if readme != want {
		t.Fatal("README.md's service settings table is stale: run `go test ./cmd/cardroom -update`")
	}
}
