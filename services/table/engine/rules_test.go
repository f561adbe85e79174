package engine

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"sort"
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

// testNameID finds rule IDs in test function names (TestX_TP22, TestX_TP_22)
// and in quoted case names ("TP-22 ...").
var (
	testFunc   = regexp.MustCompile(`func (?:Test|Fuzz)(\w+)`)
	funcRuleID = regexp.MustCompile(`(TP|TR)_?(\d\d)`)
	caseRuleID = regexp.MustCompile(`"[^"\n]*?\b(TP|TR)-(\d\d)\b`)
)

// TestEveryEnforceableRuleHasATest fails listing every enforceable rule no
// test in services/table/engine/... names, in a test function name or a
// quoted case name.
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
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, f := range testFunc.FindAllStringSubmatch(string(b), -1) {
			for _, m := range funcRuleID.FindAllStringSubmatch(f[1], -1) {
				named[m[1]+"-"+m[2]] = true
			}
		}
		for _, m := range caseRuleID.FindAllStringSubmatch(string(b), -1) {
			named[m[1]+"-"+m[2]] = true
		}
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
