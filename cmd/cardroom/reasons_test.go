package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	faultv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/fault/v1"
)

// This file keeps cardroom.fault.v1.Reason (proto/cardroom/fault/v1/fault.proto)
// the closed list ARCHITECTURE.md promises: every reason a client can see
// is in the enum, every enum value is sent by some code, and
// docs/REASONS.md lists them all.
//
// The reasons are found in the non-test Go sources with go/ast, by
// following the values that reach google.rpc.ErrorInfo:
//
//   - the reason argument of fault.New and fault.Rule (faults of kind
//     fault.Internal are masked as INTERNAL, so theirs never reach a client);
//   - fault.NotFoundf's entity, upper-cased, plus "_NOT_FOUND";
//   - fault.Invalidf, which is always INVALID_ARGUMENT;
//   - the Reason of every google.rpc.ErrorInfo built outside platform/fault.
//
// A field followed to its values loses those an earlier guard
// `if m[x.F] { ...; return }` has returned for (see unguarded): refusal.Error.Fault
// returns fault.Internal for the engine's reasons in its serverFaults map
// before it names a player's refusal, so those reasons never reach a client.
//
// An argument is followed to its values: literals, constants (also in
// other packages), conversions, local variables (every assignment), the
// parameters of a function (the arguments at every call of it), and the
// field of a struct (every constant of the field's named string type, such
// as engine.Reason, or the field in every composite literal of the struct,
// such as buyin's refusal). An argument the scan cannot follow fails the
// test, so that a new way of making a reason cannot slip past it.

const (
	repoRoot     = "../.."
	faultPkg     = "github.com/cardroom/cardroom/platform/fault"
	errdetailPkg = "google.golang.org/genproto/googleapis/rpc/errdetails"
	reasonsDoc   = "../../docs/REASONS.md"
	faultProto   = "../../proto/cardroom/fault/v1/fault.proto"
)

// notSent are reasons the scan finds that cannot reach a client, each with
// why. The test fails when the scan stops finding one, so the list cannot
// rot.
var notSent = map[string]string{
	// sqlstore.ClaimEpoch reports a missing row as NotFoundf(<SQL table>).
	"TABLES_NOT_FOUND":    "the table runner reads the table first (TABLE_NOT_FOUND) and table rows are never deleted",
	"WAITLISTS_NOT_FOUND": "seating's store.Locked turns a NotFound from lock.Claim into WAITLIST_NOT_FOUND",
}

// TestErrorReasonsAreInTheClosedList fails when code sends a reason that
// cardroom.fault.v1.Reason lacks, or when the enum holds a reason no code
// sends. It reports every missing and every unused reason at once.
func TestErrorReasonsAreInTheClosedList(t *testing.T) {
	t.Parallel()
	sc := scanRepo(t)
	for _, p := range sc.problems {
		t.Errorf("cannot follow a reason: %s", p)
	}
	for r, why := range notSent {
		if _, ok := sc.reasons[r]; !ok {
			t.Errorf("notSent lists %s (%s), but no code makes it any more: remove it", r, why)
		}
		delete(sc.reasons, r)
	}
	var missing []string
	for r, sites := range sc.reasons {
		if _, ok := faultv1.Reason_value["REASON_"+r]; !ok || r == "UNSPECIFIED" {
			missing = append(missing, fmt.Sprintf("%s (%s)", r, firstSites(sites)))
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("%d reasons are sent but not in cardroom.fault.v1.Reason (proto/cardroom/fault/v1/fault.proto):\n\t%s",
			len(missing), strings.Join(missing, "\n\t"))
	}
	var unused []string
	for name := range faultv1.Reason_value {
		r := strings.TrimPrefix(name, "REASON_")
		if r == "UNSPECIFIED" {
			continue
		}
		if _, ok := sc.reasons[r]; !ok {
			unused = append(unused, name)
		}
	}
	slices.Sort(unused)
	if len(unused) > 0 {
		t.Errorf("%d cardroom.fault.v1.Reason values are sent by no code; remove them (reserve the number):\n\t%s",
			len(unused), strings.Join(unused, "\n\t"))
	}
	if testing.Verbose() {
		var all []string
		for r, sites := range sc.reasons {
			all = append(all, r+": "+firstSites(sites))
		}
		slices.Sort(all)
		t.Logf("%d reasons:\n%s", len(all), strings.Join(all, "\n"))
	}
}

// keptBlock are reasons whose numbers stay outside their block: numbered
// before the blocks were kept to (TABLE_NOT_FOUND), or numbered for one
// service before another sent it too (AMOUNT_NOT_POSITIVE, the wallet's,
// which the table's BAD_AMOUNT became; NEGATIVE_AMOUNT, the table's, which
// the wallet sends for a negative fee; SHUTTING_DOWN, the table's, which
// platform/rpc now ends every server's feeds with; SEATED_AT_ANOTHER_TABLE,
// the table's, which seating sends for an offer to a player seated in
// another game).
var keptBlock = map[string]bool{"TABLE_NOT_FOUND": true, "AMOUNT_NOT_POSITIVE": true, "NEGATIVE_AMOUNT": true, "SHUTTING_DOWN": true, "SEATED_AT_ANOTHER_TABLE": true}

// TestErrorReasonsAreInTheirServicesBlock checks each reason's number: a
// reason one service alone sends is in that service's hundred block, one
// the platform or several services send is in 0-99.
func TestErrorReasonsAreInTheirServicesBlock(t *testing.T) {
	t.Parallel()
	sc := scanRepo(t)
	for r, sites := range sc.reasons {
		n, ok := faultv1.Reason_value["REASON_"+r]
		if !ok || keptBlock[r] {
			continue // TestErrorReasonsAreInTheClosedList reports it
		}
		owners := map[string]bool{}
		for _, site := range sites {
			owner := "general"
			if rest, ok := strings.CutPrefix(site, "services/"); ok {
				owner, _, _ = strings.Cut(rest, "/")
			}
			owners[owner] = true
		}
		want := "general"
		if len(owners) == 1 {
			for o := range owners {
				want = o
			}
		}
		if got := blockOf(n); got != want {
			t.Errorf("REASON_%s = %d is in the %s block; sent by %s, it belongs in the %s block", r, n, got, firstSites(sites), want)
		}
	}
}

// TestReasonScanFollowsEveryKindOfSource checks the scanner itself on a
// small made-up package, so that a scan finding nothing cannot pass.
func TestReasonScanFollowsEveryKindOfSource(t *testing.T) {
	t.Parallel()
	const src = `package demo

import (
	"github.com/cardroom/cardroom/platform/fault"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
)

type Reason string

const (
	ReasonA Reason = "FROM_TYPED_CONST"
	ReasonB Reason = "GUARDED_INTERNAL"
	plain          = "FROM_CONST"
)

var masked = map[string]bool{string(ReasonB): true}

type refusal struct{ rule, reason string }

type ruleErr struct{ Reason Reason }

var errX = fault.New(fault.Precondition, "FROM_LITERAL", "x")
var errI = fault.New(fault.Internal, "MASKED", "never sent")

func refuse(reason string) error { return fault.Rule(fault.Precondition, "TP-1", reason, "x") }

func use(e error) error {
	_ = refuse("FROM_CALL_SITE")
	_ = refuse(plain)
	r := refusal{"CS-1", "FROM_POSITIONAL"}
	r = refusal{reason: "FROM_KEYED"}
	_ = fault.New(fault.Invalid, r.reason, "x")
	var re *ruleErr
	if masked[string(re.Reason)] {
		return fault.New(fault.Internal, string(re.Reason), "x")
	}
	_ = fault.New(fault.Invalid, string(re.Reason), "x")
	_ = fault.NotFoundf("seat", "no seat")
	_ = fault.Invalidf("field", "bad")
	why := "FROM_LOCAL"
	if e != nil {
		why = "FROM_OTHER_ASSIGNMENT"
	}
	_ = &errdetails.ErrorInfo{Reason: why}
	return errX
}

func bad(s string) error { return fault.New(fault.Invalid, s+"_X", "x") }
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "demo.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	sc := newScanner()
	if err := sc.loadDir(dir, "example.com/demo"); err != nil {
		t.Fatal(err)
	}
	sc.collect()
	var got []string
	for r := range sc.reasons {
		got = append(got, r)
	}
	slices.Sort(got)
	want := []string{"FROM_CALL_SITE", "FROM_CONST", "FROM_KEYED", "FROM_LITERAL", "FROM_LOCAL", "FROM_OTHER_ASSIGNMENT",
		"FROM_POSITIONAL", "FROM_TYPED_CONST", "INVALID_ARGUMENT", "SEAT_NOT_FOUND"}
	if !slices.Equal(got, want) {
		t.Errorf("reasons = %v, want %v", got, want)
	}
	if len(sc.problems) != 1 || !strings.Contains(sc.problems[0], `s + "_X"`) {
		t.Errorf("problems = %q, want one about s + \"_X\"", sc.problems)
	}
}

// TestReasonsDocIsCurrent keeps docs/REASONS.md, generated from the
// comments in fault.proto, in step with it; -update rewrites it.
func TestReasonsDocIsCurrent(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(faultProto)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := parseReasons(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(faultv1.Reason_value) {
		t.Fatalf("fault.proto lists %d reasons, the generated code %d: run `make proto`", len(entries), len(faultv1.Reason_value))
	}
	for _, e := range entries {
		if n, ok := faultv1.Reason_value[e.name]; !ok || n != e.number {
			t.Errorf("%s = %d in fault.proto, %d (%v) in the generated code: run `make proto`", e.name, e.number, n, ok)
		}
		if e.comment == "" {
			t.Errorf("%s has no comment in fault.proto", e.name)
		}
		if e.number > 0 && blockOf(e.number) == "" {
			t.Errorf("%s = %d is outside the blocks 0-99 and 100-499", e.name, e.number)
		}
	}
	want := reasonsMarkdown(entries)
	if *update {
		if err := os.WriteFile(reasonsDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(reasonsDoc)
	if err != nil || string(got) != want {
		t.Fatalf("docs/REASONS.md is stale (%v): run `go test ./cmd/cardroom -run TestReasonsDocIsCurrent -update`", err)
	}
}

// reasonEntry is one value of enum Reason as fault.proto declares it.
type reasonEntry struct {
	name    string
	number  int32
	comment string
}

var (
	enumRe  = regexp.MustCompile(`(?s)enum Reason \{(.*?)\n\}`)
	valueRe = regexp.MustCompile(`^(REASON_[A-Z0-9_]+) = (\d+);$`)
)

// parseReasons reads enum Reason's values and their leading comments from
// fault.proto's text; the comment's first words repeat the value's name and
// are dropped.
func parseReasons(proto string) ([]reasonEntry, error) {
	m := enumRe.FindStringSubmatch(proto)
	if m == nil {
		return nil, fmt.Errorf("no enum Reason in %s", faultProto)
	}
	var out []reasonEntry
	var comment []string
	for line := range strings.SplitSeq(m[1], "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "//"):
			comment = append(comment, strings.TrimSpace(strings.TrimPrefix(line, "//")))
		case valueRe.MatchString(line):
			v := valueRe.FindStringSubmatch(line)
			n, err := strconv.ParseInt(v[2], 10, 32)
			if err != nil {
				return nil, err
			}
			text := strings.Join(comment, " ")
			text = strings.TrimPrefix(text, v[1]+" ")
			out = append(out, reasonEntry{name: v[1], number: int32(n), comment: text})
			comment = nil
		default:
			comment = nil // blank lines and reserved statements end a comment
		}
	}
	return out, nil
}

// blockOf names the hundred block a reason number is in.
func blockOf(n int32) string {
	switch n / 100 {
	case 0:
		return "general"
	case 1:
		return "wallet"
	case 2:
		return "table"
	case 3:
		return "seating"
	case 4:
		return "tournament"
	}
	return ""
}

func reasonsMarkdown(entries []reasonEntry) string {
	var b strings.Builder
	b.WriteString("# Error reasons\n\n")
	b.WriteString("<!-- Generated from proto/cardroom/fault/v1/fault.proto by `go test ./cmd/cardroom -run TestReasonsDocIsCurrent -update`; do not edit. -->\n\n")
	b.WriteString("Every error a cardroom service or the REST gateway returns carries one of these reasons: in\n")
	b.WriteString("`google.rpc.ErrorInfo.reason` over gRPC and in `reason` of the JSON error body over REST\n")
	b.WriteString("(`cardroom.fault.v1.Error`). The list is closed: `cardroom.fault.v1.Reason` declares it, and\n")
	b.WriteString("`TestErrorReasonsAreInTheClosedList` (cmd/cardroom) fails when code sends a reason the enum\n")
	b.WriteString("lacks or the enum holds one no code sends. The wire reason is the enum value's name without\n")
	b.WriteString("`REASON_`. A rule ID named here is the RULES.md rule that always goes with the reason; other\n")
	b.WriteString("reasons carry the deciding rule, when there is one, in `rule_id`.\n\n")
	b.WriteString("| reason | number | block | meaning |\n|---|---|---|---|\n")
	for _, e := range entries {
		if e.number == 0 {
			continue
		}
		fmt.Fprintf(&b, "| `%s` | %d | %s | %s |\n", strings.TrimPrefix(e.name, "REASON_"), e.number, blockOf(e.number),
			strings.ReplaceAll(meaning(e.comment), "|", `\|`))
	}
	return b.String()
}

// meaning turns "means the seat is taken." into "The seat is taken.".
func meaning(comment string) string {
	for _, verb := range []string{"means ", "is "} {
		if rest, ok := strings.CutPrefix(comment, verb); ok {
			return strings.ToUpper(rest[:1]) + rest[1:]
		}
	}
	return comment
}

// scanner holds the parsed non-test Go sources of the workspace's modules
// and what it found in them.
type scanner struct {
	fset *token.FileSet
	pkgs map[string]*srcPkg // by import path
	// reasons maps each reason that reaches a client to where it comes from.
	reasons  map[string][]string
	problems []string
	// following guards against cycles (a function passing its parameter
	// to itself).
	following map[string]bool
}

type srcPkg struct {
	path  string
	files []*srcFile
}

type srcFile struct {
	pkg     *srcPkg
	name    string
	ast     *ast.File
	imports map[string]string // local name → import path
}

// scope is where an expression is: its file and the nodes enclosing it.
type scope struct {
	file  *srcFile
	stack []ast.Node
}

func newScanner() *scanner {
	return &scanner{fset: token.NewFileSet(), pkgs: map[string]*srcPkg{}, reasons: map[string][]string{}, following: map[string]bool{}}
}

// scanRepo parses every module of go.work and collects the reasons.
func scanRepo(t *testing.T) *scanner {
	t.Helper()
	work, err := os.ReadFile(filepath.Join(repoRoot, "go.work"))
	if err != nil {
		t.Fatal(err)
	}
	sc := newScanner()
	uses := regexp.MustCompile(`(?m)^\s*(\./[^\s)]+)\s*$`).FindAllStringSubmatch(string(work), -1)
	if len(uses) == 0 {
		t.Fatal("go.work uses no modules")
	}
	for _, u := range uses {
		dir := filepath.Join(repoRoot, u[1])
		mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindSubmatch(mod)
		if m == nil {
			t.Fatalf("%s/go.mod has no module line", dir)
		}
		if err := sc.loadModule(dir, string(m[1])); err != nil {
			t.Fatal(err)
		}
	}
	if len(sc.pkgs) < 20 {
		t.Fatalf("parsed only %d packages", len(sc.pkgs))
	}
	sc.collect()
	if len(sc.reasons) < 20 {
		t.Fatalf("found only %d reasons", len(sc.reasons))
	}
	return sc
}

// loadModule parses the packages under dir, skipping nested modules,
// testdata and hidden directories.
func (sc *scanner) loadModule(dir, modPath string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if p != dir {
			if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		return sc.loadDir(p, strings.TrimSuffix(modPath+"/"+filepath.ToSlash(rel), "/."))
	})
}

// loadDir parses the non-test, non-generated Go files of one directory.
func (sc *scanner) loadDir(dir, importPath string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		path := filepath.Join(dir, n)
		f, err := parser.ParseFile(sc.fset, path, nil, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			continue
		}
		pkg := sc.pkgs[importPath]
		if pkg == nil {
			pkg = &srcPkg{path: importPath}
			sc.pkgs[importPath] = pkg
		}
		sf := &srcFile{pkg: pkg, name: path, ast: f, imports: map[string]string{}}
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			local := ip[strings.LastIndex(ip, "/")+1:]
			if im.Name != nil {
				local = im.Name.Name
			}
			sf.imports[local] = ip
		}
		pkg.files = append(pkg.files, sf)
	}
	return nil
}

// collect walks every file for the calls and literals that make reasons.
func (sc *scanner) collect() {
	for _, pkg := range sc.sortedPkgs() {
		if pkg.path == faultPkg {
			continue // its constructors take the reason from their callers
		}
		for _, f := range pkg.files {
			ast.PreorderStack(f.ast, nil, func(n ast.Node, stack []ast.Node) bool {
				s := scope{file: f, stack: stack}
				switch n := n.(type) {
				case *ast.CallExpr:
					sc.collectCall(s, n)
				case *ast.CompositeLit:
					if sc.isType(f, n.Type, errdetailPkg, "ErrorInfo") {
						for _, el := range n.Elts {
							if kv, ok := el.(*ast.KeyValueExpr); ok && isIdent(kv.Key, "Reason") {
								sc.add(s, kv.Value, "", "")
							}
						}
					}
				}
				return true
			})
		}
	}
}

func (sc *scanner) sortedPkgs() []*srcPkg {
	var out []*srcPkg
	for _, p := range sc.pkgs {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *srcPkg) int { return strings.Compare(a.path, b.path) })
	return out
}

func (sc *scanner) collectCall(s scope, call *ast.CallExpr) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || !sc.isPkg(s.file, sel.X, faultPkg) {
		return
	}
	arg := func(i int) ast.Expr {
		if i < len(call.Args) {
			return call.Args[i]
		}
		return nil
	}
	masked := func() bool {
		k, ok := arg(0).(*ast.SelectorExpr)
		return ok && k.Sel.Name == "Internal" && sc.isPkg(s.file, k.X, faultPkg)
	}
	switch sel.Sel.Name {
	case "New":
		if !masked() {
			sc.add(s, arg(1), "", "")
		}
	case "Rule":
		if !masked() {
			sc.add(s, arg(2), "", "")
		}
	case "NotFoundf":
		sc.add(s, arg(0), "", "_NOT_FOUND")
	case "Invalidf":
		sc.reasons["INVALID_ARGUMENT"] = appendSite(sc.reasons["INVALID_ARGUMENT"], sc.site(call))
	}
}

// add records the values of e, upper-cased and suffixed for NotFoundf.
func (sc *scanner) add(s scope, e ast.Expr, prefix, suffix string) {
	if e == nil {
		sc.problems = append(sc.problems, sc.pos(s.stack)+": missing argument")
		return
	}
	vals, ok := sc.values(s, e)
	if !ok {
		return
	}
	for _, v := range vals {
		if suffix != "" {
			v = strings.ToUpper(v) + suffix
		}
		if v == "" {
			sc.problems = append(sc.problems, sc.site(e)+": empty reason (the client would get the gRPC code's name)")
			continue
		}
		sc.reasons[prefix+v] = appendSite(sc.reasons[prefix+v], sc.site(e))
	}
}

// firstSites lists up to three of a reason's sites.
func firstSites(sites []string) string {
	if len(sites) > 3 {
		return strings.Join(sites[:3], ", ") + fmt.Sprintf(" and %d more", len(sites)-3)
	}
	return strings.Join(sites, ", ")
}

func appendSite(sites []string, site string) []string {
	if slices.Contains(sites, site) {
		return sites
	}
	return append(sites, site)
}

// site is "dir/file.go:line" relative to the repository.
func (sc *scanner) site(n ast.Node) string {
	p := sc.fset.Position(n.Pos())
	name := p.Filename
	if rel, err := filepath.Rel(repoRoot, name); err == nil && !strings.HasPrefix(rel, "..") {
		name = filepath.ToSlash(rel)
	}
	return name + ":" + strconv.Itoa(p.Line)
}

func (sc *scanner) pos(stack []ast.Node) string {
	if len(stack) == 0 {
		return "?"
	}
	return sc.site(stack[len(stack)-1])
}

func (sc *scanner) fail(e ast.Expr, why string) ([]string, bool) {
	sc.problems = append(sc.problems, fmt.Sprintf("%s: %s: %s", sc.site(e), exprString(e), why))
	return nil, false
}

// values returns every string value e can have, or false (and a problem)
// when the scan cannot tell.
func (sc *scanner) values(s scope, e ast.Expr) ([]string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			v, err := strconv.Unquote(e.Value)
			if err == nil {
				return []string{v}, true
			}
		}
	case *ast.ParenExpr:
		return sc.values(s, e.X)
	case *ast.CallExpr:
		// A conversion such as string(re.Reason) or Reason("X").
		if len(e.Args) == 1 && (isIdent(e.Fun, "string") || sc.isTypeName(s.file, e.Fun)) {
			return sc.values(s, e.Args[0])
		}
	case *ast.Ident:
		return sc.identValues(s, e)
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			if ip, ok := s.file.imports[x.Name]; ok && !sc.isLocal(s, x.Name) {
				return sc.constValues(ip, e.Sel.Name, e)
			}
		}
		return sc.fieldValues(s, e)
	}
	return sc.fail(e, "not a literal, constant, conversion, variable, parameter or field")
}

// identValues follows a local variable, a parameter, or a package constant.
func (sc *scanner) identValues(s scope, id *ast.Ident) ([]string, bool) {
	for i := len(s.stack) - 1; i >= 0; i-- {
		var ft *ast.FuncType
		var body *ast.BlockStmt
		var decl *ast.FuncDecl
		switch fn := s.stack[i].(type) {
		case *ast.FuncDecl:
			ft, body, decl = fn.Type, fn.Body, fn
		case *ast.FuncLit:
			ft, body = fn.Type, fn.Body
		default:
			continue
		}
		if idx, ok := paramIndex(ft, id.Name); ok {
			if decl == nil || decl.Recv != nil {
				return sc.fail(id, "a parameter of a function literal or method")
			}
			return sc.callSiteValues(s.file.pkg, decl.Name.Name, idx, id)
		}
		if vals, found, ok := sc.localValues(s, body, id); found {
			return vals, ok
		}
	}
	return sc.constValues(s.file.pkg.path, id.Name, id)
}

// paramIndex returns the position of parameter name in ft.
func paramIndex(ft *ast.FuncType, name string) (int, bool) {
	i := 0
	for _, field := range ft.Params.List {
		if len(field.Names) == 0 {
			i++
		}
		for _, n := range field.Names {
			if n.Name == name {
				return i, true
			}
			i++
		}
	}
	return 0, false
}

// localValues follows every assignment to a variable declared in body.
// found is false when body declares no such variable.
func (sc *scanner) localValues(s scope, body *ast.BlockStmt, id *ast.Ident) (vals []string, found, ok bool) {
	if body == nil {
		return nil, false, false
	}
	ok = true
	assign := func(lhs, rhs []ast.Expr, at ast.Node) {
		for i, l := range lhs {
			if !isIdent(l, id.Name) {
				continue
			}
			found = true
			if len(rhs) != len(lhs) {
				_, ok = sc.fail(id, "assigned from a call with several results")
				return
			}
			inner := scope{file: s.file, stack: append(slices.Clone(s.stack), at)}
			v, vok := sc.values(inner, rhs[i])
			vals, ok = append(vals, v...), ok && vok
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			assign(n.Lhs, n.Rhs, n)
		case *ast.ValueSpec:
			var lhs []ast.Expr
			for _, name := range n.Names {
				lhs = append(lhs, name)
			}
			if len(n.Values) > 0 {
				assign(lhs, n.Values, n)
			} else if slices.ContainsFunc(lhs, func(l ast.Expr) bool { return isIdent(l, id.Name) }) {
				found = true // var x T: only later assignments give it values
			}
		}
		return true
	})
	return vals, found, ok
}

// callSiteValues follows parameter idx of function name in pkg to the
// argument at every call of it in the workspace.
func (sc *scanner) callSiteValues(pkg *srcPkg, name string, idx int, at ast.Expr) ([]string, bool) {
	key := pkg.path + "." + name + "#" + strconv.Itoa(idx)
	if sc.following[key] {
		return nil, true
	}
	sc.following[key] = true
	defer delete(sc.following, key)
	var vals []string
	ok, calls := true, 0
	for _, p := range sc.sortedPkgs() {
		for _, f := range p.files {
			ast.PreorderStack(f.ast, nil, func(n ast.Node, stack []ast.Node) bool {
				call, isCall := n.(*ast.CallExpr)
				if !isCall {
					return true
				}
				switch fun := call.Fun.(type) {
				case *ast.Ident:
					if p != pkg || fun.Name != name {
						return true
					}
				case *ast.SelectorExpr:
					if fun.Sel.Name != name || !sc.isPkg(f, fun.X, pkg.path) {
						return true
					}
				default:
					return true
				}
				calls++
				if idx >= len(call.Args) {
					_, ok = sc.fail(call, "too few arguments")
					return true
				}
				v, vok := sc.values(scope{file: f, stack: append(stack, call)}, call.Args[idx])
				vals, ok = append(vals, v...), ok && vok
				return true
			})
		}
	}
	if calls == 0 {
		return vals, ok // an unused function sends nothing
	}
	return vals, ok
}

// constValues follows the package-level constant name of package path.
func (sc *scanner) constValues(path, name string, at ast.Expr) ([]string, bool) {
	pkg := sc.pkgs[path]
	if pkg == nil {
		return sc.fail(at, "in a package outside the workspace")
	}
	for _, f := range pkg.files {
		for _, d := range f.ast.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if n.Name == name && i < len(vs.Values) {
						return sc.values(scope{file: f, stack: []ast.Node{g}}, vs.Values[i])
					}
				}
			}
		}
	}
	return sc.fail(at, "not a constant of "+path)
}

// fieldValues follows x.f where x is a variable or parameter of struct
// type T: to every constant of f's named type, or to f in every composite
// literal of T.
func (sc *scanner) fieldValues(s scope, e *ast.SelectorExpr) ([]string, bool) {
	x, ok := e.X.(*ast.Ident)
	if !ok {
		return sc.fail(e, "a field of something other than a variable")
	}
	tf, tname, ok := sc.varType(s, x)
	if !ok {
		return sc.fail(e, "cannot tell the type of "+x.Name)
	}
	tpkg := sc.typePkg(tf, tname)
	if tpkg == nil {
		return sc.fail(e, "type outside the workspace")
	}
	spec, specFile := sc.typeSpec(tpkg, tname.Sel())
	st, ok := spec.(*ast.StructType)
	if !ok {
		return sc.fail(e, "not a struct field")
	}
	pos := 0
	for _, field := range st.Fields.List {
		for _, n := range field.Names {
			if n.Name != e.Sel.Name {
				pos++
				continue
			}
			if tpkg.path == faultPkg {
				// A fault's own reason (platform/rpc building ErrorInfo
				// from it): the fault calls are scanned themselves.
				return nil, true
			}
			if isIdent(field.Type, "string") {
				return sc.unguarded(s, e)(sc.literalFieldValues(tpkg, tname.Sel(), n.Name, pos, e))
			}
			if ft, ok := field.Type.(*ast.Ident); ok {
				return sc.unguarded(s, e)(sc.typedConstValues(specFile.pkg, ft.Name, e))
			}
			return sc.fail(e, "field of a type that is not a string")
		}
		if len(field.Names) == 0 {
			pos++
		}
	}
	return sc.fail(e, "no such field")
}

// unguarded drops from the values of the field x.F at s those an earlier
// guard has already returned for: a statement `if m[x.F] { ... return }`
// (or m[string(x.F)]), with no init or else, in a block enclosing s and
// before the statement holding s, where m is a package-level map literal
// whose values are all true. Such values never reach s. This is how
// refusal.Error.Fault turns the refusals of input the service built itself
// (serverFaults) into fault.Internal before it names a player's refusal:
// the guard's own body is scanned like any code, so its fault.Internal
// masks them there, and they are not counted as sent at the field.
func (sc *scanner) unguarded(s scope, e *ast.SelectorExpr) func([]string, bool) ([]string, bool) {
	drop := map[string]bool{}
	ok := true
	for i, n := range s.stack {
		block, isBlock := n.(*ast.BlockStmt)
		if !isBlock || i+1 >= len(s.stack) {
			continue
		}
		for _, st := range block.List {
			if st == s.stack[i+1] {
				break
			}
			ifs, isIf := st.(*ast.IfStmt)
			if !isIf || ifs.Init != nil || ifs.Else != nil || !endsInReturn(ifs.Body) {
				continue
			}
			idx, isIdx := ifs.Cond.(*ast.IndexExpr)
			if !isIdx || !sameField(idx.Index, e) {
				continue
			}
			m, isM := idx.X.(*ast.Ident)
			if !isM {
				continue
			}
			keys, kok := sc.trueMapKeys(s.file.pkg, m)
			ok = ok && kok
			for _, k := range keys {
				drop[k] = true
			}
		}
	}
	return func(vals []string, vok bool) ([]string, bool) {
		return slices.DeleteFunc(vals, func(v string) bool { return drop[v] }), vok && ok
	}
}

func isMapType(e ast.Expr) bool {
	_, ok := e.(*ast.MapType)
	return ok
}

// endsInReturn reports whether a block's last statement is a return.
func endsInReturn(b *ast.BlockStmt) bool {
	if len(b.List) == 0 {
		return false
	}
	_, ok := b.List[len(b.List)-1].(*ast.ReturnStmt)
	return ok
}

// sameField reports whether idx is x.F or string(x.F) for e = x.F.
func sameField(idx ast.Expr, e *ast.SelectorExpr) bool {
	if c, ok := idx.(*ast.CallExpr); ok && len(c.Args) == 1 && isIdent(c.Fun, "string") {
		idx = c.Args[0]
	}
	sel, ok := idx.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != e.Sel.Name {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && isIdent(e.X, x.Name)
}

// trueMapKeys returns the keys of the package-level map literal m of pkg;
// every value must be the constant true, or the guard would not hold.
func (sc *scanner) trueMapKeys(pkg *srcPkg, m *ast.Ident) ([]string, bool) {
	for _, f := range pkg.files {
		for _, d := range f.ast.Decls {
			g, isG := d.(*ast.GenDecl)
			if !isG || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if n.Name != m.Name || i >= len(vs.Values) {
						continue
					}
					cl, isCL := vs.Values[i].(*ast.CompositeLit)
					if !isCL || !isMapType(cl.Type) {
						return sc.fail(m, "a guard on something other than a map literal")
					}
					var keys []string
					ok := true
					for _, el := range cl.Elts {
						kv, isKV := el.(*ast.KeyValueExpr)
						if !isKV || !isIdent(kv.Value, "true") {
							return sc.fail(m, "a guard map with a value other than true")
						}
						k, kok := sc.values(scope{file: f, stack: []ast.Node{g}}, kv.Key)
						keys, ok = append(keys, k...), ok && kok
					}
					return keys, ok
				}
			}
		}
	}
	return sc.fail(m, "a guard on something other than a package-level map")
}

// typeName is a possibly qualified type name as written in a file.
type typeName struct{ qual, name string }

// Sel returns the unqualified name.
func (t typeName) Sel() string { return t.name }

// varType finds how the variable x is declared in the enclosing functions:
// var x T, var x *T, x T as a parameter, or x := T{...} / &T{...}.
func (sc *scanner) varType(s scope, x *ast.Ident) (*srcFile, typeName, bool) {
	for i := len(s.stack) - 1; i >= 0; i-- {
		var ft *ast.FuncType
		var body ast.Node
		switch fn := s.stack[i].(type) {
		case *ast.FuncDecl:
			ft, body = fn.Type, fn.Body
			if fn.Recv != nil {
				for _, f := range fn.Recv.List {
					for _, n := range f.Names {
						if n.Name == x.Name {
							tn, ok := typeNameOf(f.Type)
							return s.file, tn, ok
						}
					}
				}
			}
		case *ast.FuncLit:
			ft, body = fn.Type, fn.Body
		default:
			continue
		}
		for _, f := range ft.Params.List {
			for _, n := range f.Names {
				if n.Name == x.Name {
					tn, ok := typeNameOf(f.Type)
					return s.file, tn, ok
				}
			}
		}
		var found typeName
		var ok bool
		ast.Inspect(body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for _, name := range n.Names {
					if name.Name == x.Name && n.Type != nil {
						found, ok = typeNameOf(n.Type)
					}
				}
			case *ast.AssignStmt:
				if n.Tok == token.DEFINE && len(n.Lhs) == len(n.Rhs) {
					for j, l := range n.Lhs {
						if isIdent(l, x.Name) {
							r := n.Rhs[j]
							if u, isU := r.(*ast.UnaryExpr); isU && u.Op == token.AND {
								r = u.X
							}
							if cl, isCL := r.(*ast.CompositeLit); isCL {
								found, ok = typeNameOf(cl.Type)
							}
						}
					}
				}
			}
			return true
		})
		if ok {
			return s.file, found, true
		}
	}
	return nil, typeName{}, false
}

func typeNameOf(e ast.Expr) (typeName, bool) {
	if st, ok := e.(*ast.StarExpr); ok {
		e = st.X
	}
	switch e := e.(type) {
	case *ast.Ident:
		return typeName{name: e.Name}, true
	case *ast.SelectorExpr:
		if q, ok := e.X.(*ast.Ident); ok {
			return typeName{qual: q.Name, name: e.Sel.Name}, true
		}
	}
	return typeName{}, false
}

func (sc *scanner) typePkg(f *srcFile, t typeName) *srcPkg {
	if t.qual == "" {
		return f.pkg
	}
	return sc.pkgs[f.imports[t.qual]]
}

func (sc *scanner) typeSpec(pkg *srcPkg, name string) (ast.Expr, *srcFile) {
	for _, f := range pkg.files {
		for _, d := range f.ast.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, spec := range g.Specs {
					if ts := spec.(*ast.TypeSpec); ts.Name.Name == name {
						return ts.Type, f
					}
				}
			}
		}
	}
	return nil, nil
}

// typedConstValues returns every constant of the named type in pkg.
func (sc *scanner) typedConstValues(pkg *srcPkg, typ string, at ast.Expr) ([]string, bool) {
	if t, _ := sc.typeSpec(pkg, typ); !isIdent(t, "string") {
		return sc.fail(at, "field of type "+typ+", not a string type")
	}
	var vals []string
	ok := true
	for _, f := range pkg.files {
		for _, d := range f.ast.Decls {
			g, isG := d.(*ast.GenDecl)
			if !isG || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				if !isIdent(vs.Type, typ) {
					continue
				}
				for _, v := range vs.Values {
					got, vok := sc.values(scope{file: f, stack: []ast.Node{g}}, v)
					vals, ok = append(vals, got...), ok && vok
				}
			}
		}
	}
	if len(vals) == 0 {
		return sc.fail(at, "type "+typ+" has no constants")
	}
	return vals, ok
}

// literalFieldValues returns field (at position pos) of every composite
// literal of struct type name, declared in pkg, anywhere in the workspace.
func (sc *scanner) literalFieldValues(pkg *srcPkg, name, field string, pos int, at ast.Expr) ([]string, bool) {
	var vals []string
	ok := true
	for _, p := range sc.sortedPkgs() {
		for _, f := range p.files {
			ast.PreorderStack(f.ast, nil, func(n ast.Node, stack []ast.Node) bool {
				cl, isCL := n.(*ast.CompositeLit)
				if !isCL || cl.Type == nil {
					return true
				}
				tn, tok := typeNameOf(cl.Type)
				if !tok || tn.name != name || sc.typePkg(f, tn) != pkg {
					return true
				}
				s := scope{file: f, stack: append(stack, cl)}
				for i, el := range cl.Elts {
					var v ast.Expr
					if kv, isKV := el.(*ast.KeyValueExpr); isKV {
						if isIdent(kv.Key, field) {
							v = kv.Value
						}
					} else if i == pos {
						v = el
					}
					if v != nil {
						got, vok := sc.values(s, v)
						vals, ok = append(vals, got...), ok && vok
					}
				}
				return true
			})
		}
	}
	if len(vals) == 0 {
		return sc.fail(at, "no literal of "+name+" sets "+field)
	}
	return vals, ok
}

// isLocal reports whether name is declared as a parameter or variable in
// the functions enclosing s, shadowing an import.
func (sc *scanner) isLocal(s scope, name string) bool {
	for _, n := range s.stack {
		var ft *ast.FuncType
		switch fn := n.(type) {
		case *ast.FuncDecl:
			ft = fn.Type
		case *ast.FuncLit:
			ft = fn.Type
		default:
			continue
		}
		if _, ok := paramIndex(ft, name); ok {
			return true
		}
	}
	return false
}

// isPkg reports whether e names the import path in f.
func (sc *scanner) isPkg(f *srcFile, e ast.Expr, path string) bool {
	id, ok := e.(*ast.Ident)
	return ok && f.imports[id.Name] == path
}

// isType reports whether e is the qualified type path.name in f.
func (sc *scanner) isType(f *srcFile, e ast.Expr, path, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == name && sc.isPkg(f, sel.X, path)
}

// isTypeName reports whether e names a type of the workspace (a conversion).
func (sc *scanner) isTypeName(f *srcFile, e ast.Expr) bool {
	tn, ok := typeNameOf(e)
	if !ok {
		return false
	}
	if _, isStar := e.(*ast.StarExpr); isStar {
		return false
	}
	pkg := sc.typePkg(f, tn)
	if pkg == nil {
		return false
	}
	t, _ := sc.typeSpec(pkg, tn.name)
	return t != nil
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

func exprString(e ast.Expr) string {
	var b strings.Builder
	switch e := e.(type) {
	case *ast.BinaryExpr:
		return exprString(e.X) + " " + e.Op.String() + " " + exprString(e.Y)
	case *ast.Ident:
		return e.Name
	case *ast.BasicLit:
		return e.Value
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	case *ast.CallExpr:
		b.WriteString(exprString(e.Fun) + "(")
		for i, a := range e.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(exprString(a))
		}
		return b.String() + ")"
	}
	return fmt.Sprintf("%T", e)
}
