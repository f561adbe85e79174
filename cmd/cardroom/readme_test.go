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
	generatedSection(t, "../../README.md", settingsBegin, settingsEnd, config.TableOf(serviceSettings()),
		"README.md's service settings table is stale: run `go test ./cmd/cardroom -update`")
}

// generatedSection checks that the file at path holds content between the
// markers begin and end, or with -update writes it there.
func generatedSection(t *testing.T, path, begin, end, content, stale string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	before, rest, ok := strings.Cut(doc, begin)
	_, after, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		t.Fatalf("%s lacks the markers %q ... %q", path, begin, end)
	}
	want := before + begin + content + end + after
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if doc != want {
		t.Fatal(stale)
	}
}
