package screens

import (
	"io/fs"
	"net/http/httptest"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func newHandler(t *testing.T) *Handler {
	t.Helper()
	h, err := New()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestServe(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	cases := []struct {
		name, method, path string
		header             map[string]string
		status             int
		contentType        string
		location           string
	}{
		{name: "index", method: "GET", path: "/room/", status: 200, contentType: "text/html; charset=utf-8"},
		{name: "page", method: "GET", path: "/room/table.html", status: 200, contentType: "text/html; charset=utf-8"},
		{name: "module", method: "GET", path: "/room/js/api.js", status: 200, contentType: "text/javascript; charset=utf-8"},
		{name: "style", method: "GET", path: "/room/room.css", status: 200, contentType: "text/css; charset=utf-8"},
		{name: "head", method: "HEAD", path: "/room/lobby.html", status: 200, contentType: "text/html; charset=utf-8"},
		{name: "no slash", method: "GET", path: "/room", status: 301, location: "/room/"},
		{name: "missing", method: "GET", path: "/room/nope.html", status: 404},
		{name: "directory", method: "GET", path: "/room/js/", status: 404},
		{name: "outside", method: "GET", path: "/roomy", status: 404},
		{name: "post", method: "POST", path: "/room/", status: 405},
		{name: "revalidated", method: "GET", path: "/room/room.css", header: map[string]string{"If-None-Match": h.assets["room.css"].etag}, status: 304},
		{name: "changed", method: "GET", path: "/room/room.css", header: map[string]string{"If-None-Match": `"old"`}, status: 200, contentType: "text/css; charset=utf-8"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest(tc.method, tc.path, nil)
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("%s %s: %d, want %d", tc.method, tc.path, rec.Code, tc.status)
			}
			// Every answer, refusals included, carries the policy.
			if got := rec.Header().Get("Content-Security-Policy"); got != ContentSecurityPolicy {
				t.Errorf("Content-Security-Policy %q", got)
			}
			if got := rec.Header().Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options %q", got)
			}
			if tc.contentType != "" && rec.Header().Get("Content-Type") != tc.contentType {
				t.Errorf("Content-Type %q, want %q", rec.Header().Get("Content-Type"), tc.contentType)
			}
			if tc.location != "" && rec.Header().Get("Location") != tc.location {
				t.Errorf("Location %q, want %q", rec.Header().Get("Location"), tc.location)
			}
			if tc.status == 200 && tc.method == "GET" && rec.Body.Len() == 0 {
				t.Error("empty body")
			}
			if tc.method == "HEAD" && rec.Body.Len() != 0 {
				t.Errorf("HEAD answered %d bytes", rec.Body.Len())
			}
		})
	}
}

// TestPolicyForbidsInlineCode pins what the policy must keep out: no
// inline script or style, no eval, nothing from another origin, no
// framing.
func TestPolicyForbidsInlineCode(t *testing.T) {
	t.Parallel()
	directives := map[string]string{}
	for _, d := range strings.Split(ContentSecurityPolicy, ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), " ")
		directives[name] = value
	}
	want := map[string]string{
		"default-src": "'none'", "script-src": "'self'", "style-src": "'self'", "connect-src": "'self'",
		"frame-ancestors": "'none'", "base-uri": "'none'",
	}
	for name, value := range want {
		if directives[name] != value {
			t.Errorf("%s is %q, want %q", name, directives[name], value)
		}
	}
	if strings.Contains(ContentSecurityPolicy, "unsafe") || strings.Contains(ContentSecurityPolicy, "*") {
		t.Errorf("the policy allows more than this origin: %s", ContentSecurityPolicy)
	}
}

// page is what the test reads of one HTML page.
type page struct {
	ids     map[string]bool
	labels  []string // the for= of every label
	modules []string // module scripts, as paths below static/
	refs    []string // every src and href
	inline  []string // what the policy would block: inline scripts, handlers, style attributes
}

func readPage(t *testing.T, name string, body []byte) page {
	t.Helper()
	p := page{ids: map[string]bool{}}
	z := html.NewTokenizer(strings.NewReader(string(body)))
	inScript := false
	for {
		switch z.Next() {
		case html.ErrorToken:
			return p
		case html.TextToken:
			if inScript && strings.TrimSpace(string(z.Text())) != "" {
				p.inline = append(p.inline, "inline script")
			}
		case html.EndTagToken:
			inScript = false
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			attrs := map[string]string{}
			for _, a := range tok.Attr {
				attrs[a.Key] = a.Val
				if strings.HasPrefix(a.Key, "on") || a.Key == "style" {
					p.inline = append(p.inline, tok.Data+" "+a.Key)
				}
			}
			if id, ok := attrs["id"]; ok {
				if p.ids[id] {
					t.Errorf("%s: id %q twice", name, id)
				}
				p.ids[id] = true
			}
			switch tok.Data {
			case "label":
				p.labels = append(p.labels, attrs["for"])
			case "script":
				inScript = true
				if attrs["type"] != "module" || attrs["src"] == "" {
					p.inline = append(p.inline, "script without a module src")
				} else {
					p.modules = append(p.modules, attrs["src"])
				}
			case "style":
				p.inline = append(p.inline, "style element")
			}
			for _, k := range []string{"src", "href"} {
				if v, ok := attrs[k]; ok {
					p.refs = append(p.refs, v)
				}
			}
		}
	}
}

var (
	importRE = regexp.MustCompile(`(?m)^import [^;]*from '(\./[a-z]+\.js)';`)
	byIDRE   = regexp.MustCompile(`byID\('([A-Za-z0-9_-]+)'\)`)
)

// moduleGraph returns the module and every module it imports, directly
// or not, as paths below static/.
func moduleGraph(t *testing.T, h *Handler, module string) []string {
	t.Helper()
	seen := []string{}
	var visit func(string)
	visit = func(m string) {
		if slices.Contains(seen, m) {
			return
		}
		a, ok := h.assets[m]
		if !ok {
			t.Errorf("module %s is not embedded", m)
			return
		}
		seen = append(seen, m)
		for _, imp := range importRE.FindAllStringSubmatch(string(a.body), -1) {
			visit(path.Join(path.Dir(m), imp[1]))
		}
	}
	visit(module)
	return seen
}

// TestPagesWorkUnderThePolicy reads every page: nothing inline that the
// policy would block, every reference to a file that is served, every
// label bound to a field, and every element the page's modules look up
// by id present in the page.
func TestPagesWorkUnderThePolicy(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	pages, err := fs.Glob(static, "static/*.html")
	if err != nil || len(pages) < 5 {
		t.Fatalf("pages %v, %v", pages, err)
	}
	for _, file := range pages {
		name := strings.TrimPrefix(file, "static/")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := readPage(t, name, h.assets[name].body)
			if len(p.inline) > 0 {
				t.Errorf("inline code the policy blocks: %v", p.inline)
			}
			for _, ref := range p.refs {
				target, _, _ := strings.Cut(ref, "#")
				target, _, _ = strings.Cut(target, "?")
				switch {
				case target == "" || target == "./":
				case strings.Contains(target, ":") || strings.HasPrefix(target, "/"):
					t.Errorf("reference %q leaves the screens", ref)
				default:
					if _, ok := h.assets[target]; !ok {
						t.Errorf("reference %q: no such file", ref)
					}
				}
			}
			for _, id := range p.labels {
				if id == "" || !p.ids[id] {
					t.Errorf("label for %q has no field", id)
				}
			}
			for _, m := range p.modules {
				for _, mod := range moduleGraph(t, h, m) {
					for _, use := range byIDRE.FindAllStringSubmatch(string(h.assets[mod].body), -1) {
						if !p.ids[use[1]] {
							t.Errorf("%s looks up #%s, which %s lacks", mod, use[1], name)
						}
					}
				}
			}
		})
	}
}
