package server_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/cardroom/cardroom/platform/auth"
	seatingv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/seating/v1"
)

// rest serves the seating service's REST mapping (the generated
// grpc-gateway handler the gateway registers) over the real gRPC server.
func (h *harness) rest(t *testing.T) *httptest.Server {
	t.Helper()
	mux := runtime.NewServeMux(runtime.WithMarshalerOption(runtime.MIMEWildcard, &runtime.HTTPBodyMarshaler{
		Marshaler: &runtime.JSONPb{MarshalOptions: protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}},
	}))
	if err := seatingv1.RegisterSeatingServiceHandlerClient(t.Context(), mux, h.c); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func (h *harness) token(t *testing.T, sub string, roles ...auth.Role) string {
	t.Helper()
	tok, err := h.g.Issuer.Mint(sub, roles, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return "Bearer " + tok
}

// call makes one REST call and decodes the JSON answer into out.
func call(t *testing.T, method, url, token, body string, out any) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, url, err, b)
		}
	}
	return resp.StatusCode
}

// TestRESTJoinAcceptAndBoard is the app's flow through the REST mapping:
// join from the app, receive and accept the offer, and watch the board
// stream (newline-delimited JSON) show each step.
func TestRESTJoinAcceptAndBoard(t *testing.T) {
	t.Parallel()
	h := start(t)
	srv := h.rest(t)
	floor, alice := h.token(t, "floor-1", auth.Floor), h.token(t, "alice", auth.Player)

	var created struct {
		Waitlist struct {
			WaitlistID string `json:"waitlist_id"`
			Name       string `json:"name"`
		} `json:"waitlist"`
	}
	game := `{"game": {"variant": "VARIANT_HOLDEM", "structure": "STRUCTURE_NO_LIMIT", "stakes": {"small_blind": 200, "big_blind": 500}}}`
	if code := call(t, "POST", srv.URL+"/v1/waitlists", floor, game, &created); code != 200 || created.Waitlist.Name != "NL Hold'em 2/5" {
		t.Fatalf("POST /v1/waitlists = %d %+v", code, created)
	}
	id := created.Waitlist.WaitlistID

	// The board: one JSON object per line, {"result": WatchBoardResponse}.
	req, err := http.NewRequestWithContext(t.Context(), "GET", srv.URL+"/v1/seating/board", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", alice)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /v1/seating/board = %v, %v", resp, err)
	}
	defer resp.Body.Close()
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	// await reads board lines until one contains every fragment.
	await := func(what string, fragments ...string) {
		t.Helper()
		timeout := time.After(10 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("board closed while waiting for %s", what)
				}
				all := true
				for _, f := range fragments {
					all = all && strings.Contains(l, f)
				}
				if all {
					return
				}
			case <-timeout:
				t.Fatalf("board never showed %s", what)
			}
		}
	}
	await("the snapshot", `"snapshot":true`, id)

	var joined struct {
		Entry struct {
			Position int    `json:"position"`
			SignUp   string `json:"sign_up"`
		} `json:"entry"`
	}
	if code := call(t, "POST", srv.URL+"/v1/waitlists/"+id+"/entries", alice, `{}`, &joined); code != 200 ||
		joined.Entry.Position != 1 || joined.Entry.SignUp != "SIGN_UP_REMOTE" {
		t.Fatalf("join = %d %+v", code, joined)
	}
	await("alice on the list", `"player_id":"alice"`, `"kind":"ENTRY_KIND_WAITING"`)

	// Joining twice: 409 with the reason.
	var refusal map[string]any
	if code := call(t, "POST", srv.URL+"/v1/waitlists/"+id+"/entries", alice, `{}`, &refusal); code != http.StatusConflict ||
		!strings.Contains(mustJSON(t, refusal), "ALREADY_ON_LIST") {
		t.Fatalf("join twice = %d %v", code, refusal)
	}

	h.openTable(t, "t1", 6)
	var offers struct {
		Offers []struct {
			OfferID string `json:"offer_id"`
			TableID string `json:"table_id"`
			State   string `json:"state"`
		} `json:"offers"`
	}
	if code := call(t, "GET", srv.URL+"/v1/seat-offers", alice, "", &offers); code != 200 || len(offers.Offers) != 1 ||
		offers.Offers[0].State != "OFFER_STATE_PENDING" {
		t.Fatalf("GET /v1/seat-offers = %d %+v", code, offers)
	}
	offerID := offers.Offers[0].OfferID
	await("the offer", `"offer_id":"`+offerID+`"`, `"state":"SEAT_STATE_OFFERED"`)

	var accepted struct {
		Offer struct {
			State     string `json:"state"`
			HoldUntil string `json:"hold_until"`
		} `json:"offer"`
	}
	if code := call(t, "POST", srv.URL+"/v1/seat-offers/"+offerID+":accept", alice, `{}`, &accepted); code != 200 ||
		accepted.Offer.State != "OFFER_STATE_ACCEPTED" || accepted.Offer.HoldUntil == "" {
		t.Fatalf("accept = %d %+v", code, accepted)
	}
	await("alice's seat", `"state":"SEAT_STATE_TAKEN"`, `"player_id":"alice"`)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
