package main

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/testkit"
	authv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/auth/v1"
	"github.com/cardroom/cardroom/proto/openapi"
)

// This file is what the reliability suites share (the authorization matrix,
// bad input on every write route): the REST routes as the OpenAPI document
// describes them, each with its access rule from the protos, request bodies
// generated from the document's schemas, and a room whose ids belong to
// other players — the victims a hostile caller names.

// apiDoc is the part of the OpenAPI v2 document the suites read.
type apiDoc struct {
	Paths map[string]map[string]struct {
		OperationID string `json:"operationId"`
		Parameters  []struct {
			Name   string     `json:"name"`
			In     string     `json:"in"`
			Type   string     `json:"type"`
			Format string     `json:"format"`
			Schema *apiSchema `json:"schema"`
		} `json:"parameters"`
	} `json:"paths"`
	Definitions map[string]*apiSchema `json:"definitions"`
}

// apiSchema is a JSON schema of the document.
type apiSchema struct {
	Ref        string                `json:"$ref"`
	Type       string                `json:"type"`
	Format     string                `json:"format"`
	Enum       []string              `json:"enum"`
	Properties map[string]*apiSchema `json:"properties"`
	Items      *apiSchema            `json:"items"`
}

// apiParam is a path or query parameter.
type apiParam struct {
	name, in, typ, format string
}

// apiRoute is one REST route and the RPC behind it.
type apiRoute struct {
	method, path, op string
	params           []apiParam
	body             *apiSchema // nil: the route takes no body
	roles            []auth.Role
	public           bool
	streaming        bool
}

func (r apiRoute) String() string { return r.method + " " + r.path }

// write reports whether the route changes something (anything but GET).
func (r apiRoute) write() bool { return r.method != http.MethodGet }

// allows reports whether the route's access rule names role.
func (r apiRoute) allows(role auth.Role) bool { return slices.Contains(r.roles, role) }

// loadAPI reads every route of the served OpenAPI document, with its access
// rule and streaming from the descriptors of the RPC behind it.
func loadAPI(t *testing.T) (*apiDoc, []apiRoute) {
	t.Helper()
	var doc apiDoc
	if err := json.Unmarshal(openapi.JSON(), &doc); err != nil {
		t.Fatal(err)
	}
	services := map[string]protoreflect.ServiceDescriptor{}
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		if strings.HasPrefix(string(fd.Package()), "cardroom.") {
			for i := range fd.Services().Len() {
				sd := fd.Services().Get(i)
				services[string(sd.Name())] = sd
			}
		}
		return true
	})
	var routes []apiRoute
	for path, ops := range doc.Paths {
		for method, op := range ops {
			svc, name, ok := strings.Cut(op.OperationID, "_")
			sd := services[svc]
			if !ok || sd == nil || sd.Methods().ByName(protoreflect.Name(name)) == nil {
				t.Fatalf("%s %s: operation %q names no RPC", method, path, op.OperationID)
			}
			md := sd.Methods().ByName(protoreflect.Name(name))
			access, _ := proto.GetExtension(md.Options(), authv1.E_Access).(*authv1.Access)
			r := apiRoute{method: strings.ToUpper(method), path: path, op: op.OperationID, public: access.GetPublic(), streaming: md.IsStreamingServer()}
			for _, role := range access.GetRoles() {
				r.roles = append(r.roles, auth.Role(strings.ToLower(strings.TrimPrefix(role.String(), "ROLE_"))))
			}
			for _, p := range op.Parameters {
				if p.In == "body" {
					r.body = p.Schema
					continue
				}
				r.params = append(r.params, apiParam{name: p.Name, in: p.In, typ: p.Type, format: p.Format})
			}
			routes = append(routes, r)
		}
	}
	slices.SortFunc(routes, func(a, b apiRoute) int { return strings.Compare(a.String(), b.String()) })
	if len(routes) < 60 {
		t.Fatalf("the OpenAPI document describes %d routes; want them all", len(routes))
	}
	return &doc, routes
}

// resolve follows s's $ref.
func (d *apiDoc) resolve(s *apiSchema) *apiSchema {
	for s != nil && s.Ref != "" {
		s = d.Definitions[strings.TrimPrefix(s.Ref, "#/definitions/")]
	}
	return s
}

// durationFields are the fields the document types as plain strings that
// hold a google.protobuf.Duration.
var durationFields = []string{"offer_timeout", "short_absence", "long_break", "sit_down_window", "limit", "extend",
	"duration", "late_registration", "rebuy_period", "add_on_window", "delta"}

// oneofOthers are fields the OpenAPI document lists beside another member
// of their oneof; a body with both is malformed, so only the other is sent
// (SetClockLevelRequest.target: level_index, not skip).
var oneofOthers = []string{"skip"}

// value returns a well-formed value of schema s for the field named name,
// naming the victims' ids where the field holds one (ids, by field name).
func (d *apiDoc) value(s *apiSchema, name string, ids map[string]string, depth int) any {
	s = d.resolve(s)
	if s == nil {
		return nil
	}
	if v, ok := ids[name]; ok {
		if s.Type == "integer" {
			n, _ := strconv.Atoi(v)
			return n
		}
		return v
	}
	switch {
	case slices.Contains(oneofOthers, name):
		return nil
	case len(s.Enum) > 0:
		for _, e := range s.Enum {
			if !strings.HasSuffix(e, "_UNSPECIFIED") {
				return e
			}
		}
		return s.Enum[0]
	case name == "game":
		return nlhe50100
	case s.Type == "object" || len(s.Properties) > 0:
		out := map[string]any{}
		if depth > 3 {
			return out
		}
		for k, p := range s.Properties {
			if v := d.value(p, k, ids, depth+1); v != nil {
				out[k] = v
			}
		}
		return out
	case s.Type == "array":
		return []any{}
	case s.Type == "boolean":
		return false
	case s.Type == "integer":
		switch name {
		case "seats", "seats_per_table", "players_at_table":
			return 9
		case "action_seconds":
			return -1
		}
		return 1
	case s.Format == "int64" || s.Format == "uint64":
		switch name {
		case "small_blind":
			return "50"
		case "big_blind":
			return "100"
		case "ante", "bring_in", "small_bet", "big_bet", "expected_sequence":
			return "0"
		}
		return "1000"
	case s.Format == "date-time":
		return time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	case slices.Contains(durationFields, name):
		return "600s"
	case name == "currency":
		return "EUR"
	case name == "idempotency_key", name == "action_id":
		return "key-" + randomID()
	}
	return "matrix"
}

// body returns a well-formed request body for r (nil when it takes none).
func (d *apiDoc) body(r apiRoute, ids map[string]string) map[string]any {
	if r.body == nil {
		return nil
	}
	b, _ := d.value(r.body, "", ids, 0).(map[string]any)
	return b
}

// target returns r's path with the victims' ids in its parameters, and the
// query naming them too.
func (r apiRoute) target(ids map[string]string) string {
	path := r.path
	q := url.Values{}
	for _, p := range r.params {
		v, ok := ids[p.name]
		if !ok {
			switch {
			case p.typ == "integer":
				v = "1"
			case p.typ == "boolean":
				v = "false"
			default:
				continue
			}
		}
		if p.in == "path" {
			path = strings.Replace(path, "{"+p.name+"}", url.PathEscape(v), 1)
		} else if p.in == "query" && p.name != "page_token" {
			q.Set(p.name, v)
		}
	}
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return path
}

// randomID returns a fresh id usable as an idempotency key.
func randomID() string {
	b := make([]byte, 9)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// hostileRoom is a running suite set up with other players' things for a
// hostile caller to name: alice sits at a cash table and is registered in a
// tournament, bob waits on the table's list with a seat offered to him.
type hostileRoom struct {
	*room
	issuer *auth.Issuer
	// ids maps a path parameter or body field name to the victims' value.
	ids map[string]string
}

// newHostileSuite prepares a suite signing with a key the test holds, so it
// can mint any token, good or bad.
func newHostileSuite(t *testing.T, extra ...string) (*suite, []byte) {
	t.Helper()
	key := []byte(randomID() + randomID() + randomID())
	return newSuite(t, append([]string{"CARDROOM_JWT_KEY=" + string(key)}, extra...)...), key
}

// newHostileRoom starts s and sets the room up (see hostileRoom).
func newHostileRoom(t *testing.T, s *suite, key []byte) *hostileRoom {
	t.Helper()
	s.start()
	issuer, err := auth.NewIssuer(key, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := &hostileRoom{issuer: issuer, room: &room{suite: s, t: t, tokens: map[string]string{}}}
	h.floor = h.mint("floor-anna", auth.Floor)
	h.cashier = h.mint("cage-1", auth.Cashier)
	for _, p := range []string{"alice", "bob", "mallory"} {
		h.tokens[p] = h.mint(p, auth.Player)
		h.deposit(p, 100000)
	}
	var deposit struct {
		Transfer struct {
			TransferID string `json:"transfer_id"`
		}
	}
	h.must("POST", "/v1/players/alice/deposits", h.cashier, map[string]any{"idempotency_key": "again", "currency": "EUR", "amount": 1000}, &deposit)
	h.deposits += 1000

	var list struct {
		Waitlist struct {
			ID string `json:"waitlist_id"`
		}
	}
	h.must("POST", "/v1/waitlists", h.floor, map[string]any{"game": nlhe50100, "policy": map[string]any{"offer_timeout": "1800s"}}, &list)
	table := h.createTable("Victims' table", 9)
	h.must("POST", "/v1/tables/"+table+"/seats", h.floor, map[string]any{"seat": 0, "player_id": "alice", "amount": 5000}, nil)
	h.must("POST", "/v1/waitlists/"+list.Waitlist.ID+"/entries", h.tokens["bob"], map[string]any{}, nil)
	var offer string
	testkit.Eventually(t, 20*time.Second, func() error {
		var out struct {
			Offers []struct {
				ID string `json:"offer_id"`
			}
		}
		h.must("GET", "/v1/seat-offers", h.tokens["bob"], nil, &out)
		if len(out.Offers) == 0 {
			return fmt.Errorf("no seat offered to bob yet")
		}
		offer = out.Offers[0].ID
		return nil
	})
	var tournament struct {
		Tournament struct {
			ID string `json:"tournament_id"`
		}
	}
	h.must("POST", "/v1/tournaments", h.floor, map[string]any{"name": "Victims' freezeout", "variant": "VARIANT_HOLDEM",
		"structure": "STRUCTURE_NO_LIMIT", "currency": "EUR", "buy_in": 5000, "fee": 500, "starting_stack": 10000,
		"start_time": time.Now().Add(2 * time.Hour).UTC().Format(time.RFC3339)}, &tournament)
	h.must("POST", "/v1/tournaments/"+tournament.Tournament.ID+"/entries", h.tokens["alice"], map[string]any{"player_id": "alice"}, nil)
	h.ids = map[string]string{
		"player_id": "alice", "owner_id": "alice", "account_id": "player:alice:EUR",
		"table_id": table, "seat": "0", "waitlist_id": list.Waitlist.ID, "offer_id": offer,
		"tournament_id": tournament.Tournament.ID, "transfer_id": deposit.Transfer.TransferID,
		"hand_no": "1", "table": "1",
	}
	return h
}

// mint returns a token for sub with roles, valid for an hour.
func (h *hostileRoom) mint(sub string, roles ...auth.Role) string {
	h.t.Helper()
	tok, err := h.issuer.Mint(sub, roles, time.Hour)
	if err != nil {
		h.t.Fatal(err)
	}
	return tok
}

// victims are the ids a hostile player must never learn from a waitlist or
// the board.
func (h *hostileRoom) victims() []string { return []string{"alice", "bob"} }
