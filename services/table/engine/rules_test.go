package engine

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// rulesFile lists the TP rules (and TR-21) whose RULES.md Software line
// makes them enforced, assisted or configurable: the rules the table
// engine and its subpackages must prove with tests.
const rulesFile = "testdata/rules.txt"

var (
	ruleHeading  = regexp.MustCompile(`^#### ((?:TP|TR)-\d+) (.*)$`)
	softwareLine = regexp.MustCompile(`^- Software: (.*)$`)
	softClass    = regexp.MustCompile(`\b(enforced|assisted|configurable)\b`)
)

// rulesMarkdown is the house rules in the repository (docs/RULES.md).
const rulesMarkdown = "../../../docs/RULES.md"

// TestRulesListMatchesRulesMarkdown checks that testdata/rules.txt is what
// docs/RULES.md lists, so a rule added there cannot go untested unseen.
// UPDATE_RULES=1 go test -run TestRulesListMatchesRulesMarkdown rewrites it.
func TestRulesListMatchesRulesMarkdown(t *testing.T) {
	t.Parallel()
	f, err := os.Open(rulesMarkdown)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out strings.Builder
	out.WriteString("# Generated from RULES.md by TestGenerateRulesList: TP rules whose Software line is\n")
	out.WriteString("# enforced, assisted or configurable, plus TR-21 (dead button). ID<TAB>class<TAB>title\n")
	var id, title string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := ruleHeading.FindStringSubmatch(line); m != nil {
			id, title = m[1], m[2]
			continue
		}
		m := softwareLine.FindStringSubmatch(line)
		if m == nil || id == "" {
			continue
		}
		if strings.HasPrefix(id, "TR-") && id != "TR-21" {
			id = ""
			continue
		}
		if c := softClass.FindStringSubmatch(m[1]); c != nil {
			out.WriteString(id + "\t" + c[1] + "\t" + title + "\n")
		}
		id = ""
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("UPDATE_RULES") != "" {
		if err := os.WriteFile(rulesFile, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(have) != out.String() {
		t.Errorf("%s is not what %s lists; rerun with UPDATE_RULES=1", rulesFile, rulesMarkdown)
	}
}

func loadRules(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ids = append(ids, strings.SplitN(line, "\t", 2)[0])
	}
	return ids
}

// Rule IDs count where a test names what it proves: in a test function's
// name (TestX_TP22, TestX_TP_22) and in a string of the test's code (a
// subtest or case name, "TP-22 ...", or the rule a case expects). A string
// inside a failure or log message (t.Fatalf("... TP-22 ...")) names
// nothing, nor does a comment.
var (
	funcRuleID   = regexp.MustCompile(`(TP|TR)_?(\d\d)`)
	stringRuleID = regexp.MustCompile(`\b(TP|TR)-(\d\d)\b`)
	// messageCalls are the testing.TB methods whose arguments are a
	// message.
	messageCalls = map[string]bool{"Fatal": true, "Fatalf": true, "Error": true, "Errorf": true,
		"Log": true, "Logf": true, "Skip": true, "Skipf": true}
)

// namedRules returns the rule IDs the tests of one file name.
func namedRules(path string) (map[string]bool, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	named := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if name := n.Name.Name; strings.HasPrefix(name, "Test") || strings.HasPrefix(name, "Fuzz") {
				for _, m := range funcRuleID.FindAllStringSubmatch(name, -1) {
					named[m[1]+"-"+m[2]] = true
				}
			}
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && messageCalls[sel.Sel.Name] {
				return false
			}
		case *ast.BasicLit:
			if n.Kind != token.STRING {
				return true
			}
			text, err := strconv.Unquote(n.Value)
			if err != nil {
				return true
			}
			for _, m := range stringRuleID.FindAllStringSubmatch(text, -1) {
				named[m[1]+"-"+m[2]] = true
			}
		}
		return true
	})
	return named, nil
}

func TestNamedRulesIgnoresMessages(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x_test.go")
	src := `package x

import "testing"

// TP-03 in a comment names nothing.
func TestSomething_TP01(t *testing.T) {
	t.Run("TP-02 a case", func(t *testing.T) {})
	cases := []struct{ name, rule string }{{"a case", "TP-04"}}
	_ = cases
	t.Fatalf("TP-05 in a failure message names nothing: %s", "TP-06")
	t.Errorf("TP-07")
	t.Logf("TR-08")
}
`
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := namedRules(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"TP-01": true, "TP-02": true, "TP-04": true}
	if !maps.Equal(got, want) {
		t.Fatalf("namedRules = %v, want %v", got, want)
	}
}

// TestEveryEnforceableRuleHasATest fails listing every enforceable rule no
// test in services/table/engine/... names (namedRules).
func TestEveryEnforceableRuleHasATest(t *testing.T) {
	t.Parallel()
	named := map[string]bool{}
	err := filepath.Walk(".", func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() || !strings.HasSuffix(path, "_test.go") || filepath.Base(path) == "rules_test.go" {
			return nil
		}
		ids, err := namedRules(path)
		if err != nil {
			return err
		}
		maps.Copy(named, ids)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rules := loadRules(t)
	if len(rules) < 50 {
		t.Fatalf("%s lists only %d rules", rulesFile, len(rules))
	}
	var missing []string
	for _, id := range rules {
		if !named[id] {
			missing = append(missing, id)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d enforceable rules have no test naming them: %s", len(missing), strings.Join(missing, " "))
	}
}
