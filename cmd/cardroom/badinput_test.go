package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/testkit"
)

// TestBadInputOnEveryWriteRoute sends every write route of the OpenAPI
// document, on SQLite and on PostgreSQL, bodies and paths made bad one field
// at a time from the document's schemas — NUL bytes, invalid UTF-8, huge,
// overflowing and negative numbers, overlong strings, wrong JSON types,
// unknown enum values, missing fields — and malformed bodies, as a caller
// the route allows (so the request reaches validation and the store). No
// answer is 5xx, and a refused request changes nothing the API shows:
// tables, seats and stacks, waitlists, offers, absences, tournaments and
// entries, balances and the ledger's counts.
func TestBadInputOnEveryWriteRoute(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		s, key := newHostileSuite(t)
		fuzzWriteRoutes(t, newHostileRoom(t, s, key))
	})
	t.Run("redis+postgres", func(t *testing.T) {
		t.Parallel()
		s, key := newHostileSuite(t, "REDIS_URL="+testkit.RedisURL(t), "CARDROOM_REDIS_PREFIX="+testkit.RedisPrefix(t),
			"DATABASE_URL="+postgresDatabase(t))
		fuzzWriteRoutes(t, newHostileRoom(t, s, key))
	})
}

// badRequest is one malformed request of a route.
type badRequest struct {
	what   string
	target string
	body   []byte // nil sends none
}

// lastRoutes change the room so much that the routes after them would meet
// a different room (a closed table, a cancelled tournament): they go last.
var lastRoutes = regexp.MustCompile(`_(Close|Cancel|Break|Leave|Unregister|Withdraw|Reverse|Start|Pay|Decide)`)

func fuzzWriteRoutes(t *testing.T, h *hostileRoom) {
	doc, routes := loadAPI(t)
	routes = slices.DeleteFunc(routes, func(r apiRoute) bool { return !r.write() })
	sort.SliceStable(routes, func(i, j int) bool {
		return !lastRoutes.MatchString(routes[i].op) && lastRoutes.MatchString(routes[j].op)
	})
	callers := map[auth.Role]identity{}
	for _, role := range []auth.Role{auth.Floor, auth.Cashier, auth.Admin, auth.Dealer} {
		callers[role] = identity{name: string(role), authorization: "Bearer " + h.mint("staff-"+string(role), role), roles: []auth.Role{role}}
	}
	callers[auth.Player] = identity{name: "alice", authorization: "Bearer " + h.tokens["alice"], roles: []auth.Role{auth.Player}}

	var sent, refused, accepted int
	unimplemented := map[string]bool{}
	for _, r := range routes {
		var who identity
		for _, role := range []auth.Role{auth.Floor, auth.Cashier, auth.Admin, auth.Dealer, auth.Player} {
			if r.allows(role) {
				who = callers[role]
				break
			}
		}
		if who.name == "" {
			t.Fatalf("%s: no role of the suite's people may call it", r)
		}
		// Send them all (eight at a time) and see which the route refuses;
		// a route that accepted none must not have changed the room. One
		// that accepted some (a field it does not require left out, a long
		// reason) is sent its refused ones again, one at a time, on the
		// room as they left it.
		var mu sync.Mutex // guards the counts and unimplemented
		send := func(bad badRequest) (refusedIt bool) {
			code, raw := h.sendRaw(r, bad.target, who, bad.body)
			mu.Lock()
			defer mu.Unlock()
			sent++
			switch {
			case notImplemented(code, raw):
				unimplemented[r.String()] = true
			case code >= 500:
				t.Errorf("%s %s (%s): %d %s", r, bad.what, bad.target, code, raw)
			case code < 300:
				accepted++
			default:
				refused++
				return true
			}
			return false
		}
		bads := badRequests(doc, r, h.ids)
		before := h.fingerprint()
		refusedAt := make([]bool, len(bads))
		work := make(chan int)
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for i := range work {
					refusedAt[i] = send(bads[i])
				}
			})
		}
		for i := range bads {
			work <- i
		}
		close(work)
		wg.Wait()
		var refusals []badRequest
		for i, bad := range bads {
			if refusedAt[i] {
				refusals = append(refusals, bad)
			}
		}
		if len(refusals) < len(bads) {
			// What an accepted request did reaches the other parts by event
			// (a table opened shows on seating's board a moment later):
			// the room is compared once it has stopped changing.
			before = h.settled(t)
			again := refusals
			refusals = nil
			for _, bad := range again {
				if send(bad) {
					refusals = append(refusals, bad)
				} else {
					before = h.settled(t) // accepted on the changed room
				}
			}
		}
		if after := h.fingerprint(); after != before {
			t.Errorf("%s: refused requests changed the room:\n%s", r, diffLines(before, after))
			for _, bad := range refusals { // name the culprit
				before := h.fingerprint()
				send(bad)
				if after := h.fingerprint(); after != before {
					t.Errorf("%s %s was refused but changed the room:\n%s", r, bad.what, diffLines(before, after))
				}
			}
		}
	}
	if len(unimplemented) > 0 {
		t.Logf("routes whose RPC is not served yet (501 NOT_IMPLEMENTED): %v", slices.Sorted(maps.Keys(unimplemented)))
	}
	t.Logf("%d write routes, %d bad requests: %d refused, %d accepted", len(routes), sent, refused, accepted)
	if refused < sent*3/4 {
		t.Errorf("only %d of %d bad requests were refused", refused, sent)
	}
}

// badRequests returns r's bad requests: each parameter and each body field
// made bad in every way its type allows, and malformed bodies.
func badRequests(doc *apiDoc, r apiRoute, ids map[string]string) []badRequest {
	target := r.target(ids)
	body := doc.body(r, ids)
	if mk, ok := matrixBodies[r.op]; ok {
		body = mk(ids)
	}
	encode := func(b map[string]any) []byte {
		if b == nil {
			return nil
		}
		return mustJSON(b)
	}
	var out []badRequest
	for _, p := range r.params {
		if p.in != "path" {
			continue
		}
		values := []string{"%00", "a%00b", "%FF", "a%C3%28", strings.Repeat("a", 300), "%2E%2E%2F%2E%2E"}
		if p.typ == "integer" || p.format == "int64" {
			values = append(values, "-1", "99999999999999999999", "-9223372036854775809", "1e400", "abc")
		}
		for _, v := range values {
			bad := r.target(withPlaceholder(ids, p.name))
			out = append(out, badRequest{what: "path " + p.name + "=" + v, target: strings.Replace(bad, "%01", v, 1), body: encode(body)})
		}
	}
	if r.body == nil {
		return out
	}
	for _, raw := range []string{"", "null", "[]", "{", `"x"`, "123", `{"unknown_field":1}`} {
		out = append(out, badRequest{what: "body " + raw, target: target, body: []byte(raw)})
	}
	schema := doc.resolve(r.body)
	for _, name := range slices.Sorted(maps.Keys(schema.Properties)) {
		field := doc.resolve(schema.Properties[name])
		for what, v := range badValues(field) {
			b := maps.Clone(body)
			b[name] = v
			out = append(out, badRequest{what: name + ": " + what, target: target, body: encode(b)})
		}
		if _, ok := body[name]; ok {
			b := maps.Clone(body)
			delete(b, name)
			out = append(out, badRequest{what: name + ": missing", target: target, body: encode(b)})
		}
	}
	return out
}

// withPlaceholder returns ids with name's value a placeholder ("\x01", %01 in a path)
// that the caller replaces with the bad value as it should be sent.
func withPlaceholder(ids map[string]string, name string) map[string]string {
	out := maps.Clone(ids)
	out[name] = "\x01"
	return out
}

// badValues returns the bad values for a field of schema s, by what they
// are. Raw JSON values are json.RawMessage (invalid UTF-8 cannot be
// written otherwise).
func badValues(s *apiSchema) map[string]any {
	wrongTypes := map[string]any{"an object": map[string]any{"x": 1}, "a list": []any{1}}
	var out map[string]any
	switch {
	case s == nil:
		return wrongTypes
	case len(s.Enum) > 0:
		out = map[string]any{"an unknown enum name": "NOT_A_VALUE", "an unknown enum number": 12345, "an empty enum": ""}
	case s.Type == "string" && (s.Format == "int64" || s.Format == "uint64"):
		out = map[string]any{
			"int64 max": "9223372036854775807", "int64 min": "-9223372036854775808", "over int64": "9223372036854775808",
			"under int64": "-9223372036854775809", "negative": "-1", "not a number": "abc", "a fraction": "1.5",
			"huge as a number": json.RawMessage("1e400"),
		}
	case s.Type == "string":
		out = map[string]any{
			"a NUL byte": "a\x00b", "only NUL": "\x00", "invalid UTF-8": json.RawMessage("\"a\xffb\""),
			"a truncated UTF-8 sequence": json.RawMessage("\"\xe2\x82\""), "overlong": strings.Repeat("x", 100_000),
			"a number": 123,
		}
	case s.Type == "integer":
		out = map[string]any{"over int32": int64(1) << 31, "under int32": -(int64(1) << 31) - 1, "huge": json.RawMessage("1e30"),
			"negative": -1, "a fraction": 1.5, "a string": "abc"}
	case s.Type == "boolean":
		out = map[string]any{"a string": "yes", "a number": 2}
	case s.Type == "array":
		out = map[string]any{"an object": map[string]any{}, "a string": "x", "a NUL element": []any{"\x00"}, "a null element": []any{nil}}
		return out
	default:
		out = map[string]any{"a string": "x", "a number": 1}
		return out
	}
	for k, v := range wrongTypes {
		out[k] = v
	}
	return out
}

// sendRaw makes one request with a raw body as who.
func (h *hostileRoom) sendRaw(r apiRoute, target string, who identity, body []byte) (int, []byte) {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(h.t.Context(), r.method, h.base+target, rd)
	if err != nil {
		// A target net/http will not even send (the test's own doing).
		h.t.Fatalf("%s %s: %v", r, target, err)
	}
	req.Header.Set("Authorization", who.authorization)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", r, target, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatalf("%s %s: %v", r, target, err)
	}
	return resp.StatusCode, raw
}

// settled is the room's fingerprint once it has not changed for half a
// second: the effects of accepted requests that travel by event have
// arrived.
func (h *hostileRoom) settled(t *testing.T) string {
	t.Helper()
	fp, changed := h.fingerprint(), time.Now()
	testkit.Eventually(t, 30*time.Second, func() error {
		if now := h.fingerprint(); now != fp {
			fp, changed = now, time.Now()
		}
		if time.Since(changed) < 500*time.Millisecond {
			return errors.New("the room is still changing")
		}
		return nil
	})
	return fp
}

// fingerprint is everything the API shows about the room, read as staff,
// without the fields that move with the clock: two equal fingerprints mean
// no request in between changed the room.
func (h *hostileRoom) fingerprint() string {
	h.t.Helper()
	read := func(path, token string) (string, map[string]any) {
		code, raw := h.do("GET", path, token, nil)
		if code == http.StatusNotFound { // an account never used
			return path + " not found", nil
		}
		if code != http.StatusOK {
			h.t.Errorf("fingerprint: GET %s: %d %s", path, code, raw)
			return path + " failed", nil
		}
		var v map[string]any
		if err := json.Unmarshal(raw, &v); err != nil {
			h.t.Errorf("fingerprint: GET %s: %v", path, err)
		}
		return path + " " + stable(v), v
	}
	// The lists first, then everything they name, read side by side.
	type get struct{ path, token string }
	var gets []get
	_, tables := read("/v1/tables?page_size=100", h.floor)
	_, lists := read("/v1/waitlists?page_size=100", h.floor)
	_, tournaments := read("/v1/tournaments?page_size=100", h.floor)
	for _, tbl := range list(tables, "tables") {
		id := tbl["table_id"].(string)
		gets = append(gets, get{"/v1/tables/" + id + "/state", h.floor}, get{"/v1/tables/" + id + "/rulings", h.floor},
			get{"/v1/accounts/table:" + id + ":EUR/balance", h.cashier})
	}
	for _, wl := range list(lists, "waitlists") {
		id := wl["waitlist_id"].(string)
		gets = append(gets, get{"/v1/waitlists/" + id, h.floor}, get{"/v1/waitlists/" + id + "/decisions", h.floor})
	}
	for _, tn := range list(tournaments, "tournaments") {
		id := tn["tournament_id"].(string)
		gets = append(gets, get{"/v1/tournaments/" + id, h.floor}, get{"/v1/tournaments/" + id + "/entries", h.floor},
			get{"/v1/tournaments/" + id + "/audit", h.floor})
	}
	for _, p := range []string{"alice", "bob", "mallory"} {
		gets = append(gets, get{"/v1/seat-offers?player_id=" + p, h.floor}, get{"/v1/accounts/player:" + p + ":EUR/balance", h.cashier})
	}
	gets = append(gets, get{"/v1/seating/absences", h.floor}, get{"/v1/audit", h.cashier})
	lines := make([]string, len(gets))
	var wg sync.WaitGroup
	for i, g := range gets {
		wg.Go(func() { lines[i], _ = read(g.path, g.token) })
	}
	wg.Wait()
	lines = append(lines, stable(tables), stable(lists), stable(tournaments))
	return strings.Join(lines, "\n")
}

// list returns v[key] as a list of objects.
func list(v map[string]any, key string) []map[string]any {
	items, _ := v[key].([]any)
	out := make([]map[string]any, 0, len(items))
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// volatile are the fields that change with the clock alone.
var volatile = regexp.MustCompile(`(_time|estimated_wait|remaining|elapsed|overdue|server_now)$`)

// stable returns v as JSON without its volatile fields.
func stable(v any) string {
	var strip func(v any) any
	strip = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			out := map[string]any{}
			for k, e := range x {
				if !volatile.MatchString(k) {
					out[k] = strip(e)
				}
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = strip(e)
			}
			return out
		}
		return v
	}
	return string(mustJSON(strip(v)))
}

// diffLines returns the lines of b that are not in a, and the reverse.
func diffLines(a, b string) string {
	as, bs := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for _, l := range as {
		if !slices.Contains(bs, l) {
			out = append(out, "- "+l)
		}
	}
	for _, l := range bs {
		if !slices.Contains(as, l) {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}
