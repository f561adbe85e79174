package server_test

import (
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
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
)

// rest serves the generated grpc-gateway mapping (what the gateway
// registers) over the real gRPC server.
func (f *fixture) rest(t *testing.T) *httptest.Server {
	t.Helper()
	mux := runtime.NewServeMux(runtime.WithMarshalerOption(runtime.MIMEWildcard, &runtime.HTTPBodyMarshaler{
		Marshaler: &runtime.JSONPb{MarshalOptions: protojson.MarshalOptions{UseProtoNames: true}},
	}))
	if err := tournamentv1.RegisterTournamentServiceHandlerClient(t.Context(), mux, f.c); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func (f *fixture) bearer(t *testing.T, sub string, roles ...auth.Role) string {
	t.Helper()
	tok, err := f.g.Issuer.Mint(sub, roles, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return "Bearer " + tok
}

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

// TestREST is the desk's day over REST: schedule a rebuy event, players
// register from the app, the floor starts it, everyone reads the clock
// and the payouts; refusals come back as HTTP errors with their reason.
func TestREST(t *testing.T) {
	t.Parallel()
	f := startWithWallet(t, nil)
	srv := f.rest(t)
	floor := f.bearer(t, "floor-1", auth.Floor)
	var created struct {
		Tournament struct {
			TournamentID string `json:"tournament_id"`
			EntryPolicy  struct {
				RebuyPeriod string `json:"rebuy_period"`
			} `json:"entry_policy"`
		} `json:"tournament"`
	}
	body := `{"name":"Wednesday Rebuy","variant":"VARIANT_HOLDEM","structure":"STRUCTURE_NO_LIMIT","currency":"EUR",
		"buy_in":5000,"fee":1100,"starting_stack":10000,"start_time":"` + now.Add(time.Hour).Format(time.RFC3339) + `",
		"format":"TOURNAMENT_FORMAT_REBUY","entry_policy":{"late_registration":"1800s"}}`
	if code := call(t, "POST", srv.URL+"/v1/tournaments", floor, body, &created); code != 200 || created.Tournament.EntryPolicy.RebuyPeriod != "3600s" {
		t.Fatalf("create = %d %+v", code, created)
	}
	id := created.Tournament.TournamentID
	for _, p := range []string{"ann", "bob"} {
		var en struct {
			Entry struct {
				Status string `json:"status"`
			} `json:"entry"`
		}
		if code := call(t, "POST", srv.URL+"/v1/tournaments/"+id+"/entries", f.bearer(t, p, auth.Player), `{"player_id":"`+p+`"}`, &en); code != 200 || en.Entry.Status != "ENTRY_STATUS_ACTIVE" {
			t.Fatalf("register %s = %d %+v", p, code, en)
		}
	}
	var refusal struct {
		Details []struct {
			Reason   string            `json:"reason"`
			Metadata map[string]string `json:"metadata"`
		} `json:"details"`
	}
	if code := call(t, "POST", srv.URL+"/v1/tournaments/"+id+":start", floor, `{}`, &refusal); code != 400 ||
		len(refusal.Details) == 0 || refusal.Details[0].Reason != "TOURNAMENT_NOT_DUE" || refusal.Details[0].Metadata["rule_id"] != "TR-04" {
		t.Fatalf("early start = %d %+v", code, refusal)
	}
	f.clk.Advance(time.Hour)
	var started struct {
		Seats []struct {
			PlayerID string `json:"player_id"`
		} `json:"seats"`
	}
	if code := call(t, "POST", srv.URL+"/v1/tournaments/"+id+":start", floor, `{}`, &started); code != 200 || len(started.Seats) != 2 {
		t.Fatalf("start = %d %+v", code, started)
	}
	var clk struct {
		Started bool `json:"started"`
		Level   struct {
			BigBlind string `json:"big_blind"`
		} `json:"level"`
	}
	if code := call(t, "GET", srv.URL+"/v1/tournaments/"+id+"/clock", f.bearer(t, "ann", auth.Player), "", &clk); code != 200 || !clk.Started || clk.Level.BigBlind != "50" {
		t.Fatalf("clock = %d %+v", code, clk)
	}
	var pay struct {
		PrizePool string   `json:"prize_pool"`
		Prizes    []string `json:"prizes"`
		Locked    bool     `json:"locked"`
	}
	if code := call(t, "GET", srv.URL+"/v1/tournaments/"+id+"/payouts", f.bearer(t, "bob", auth.Player), "", &pay); code != 200 || pay.PrizePool != "10000" || !pay.Locked || len(pay.Prizes) != 1 {
		t.Fatalf("payouts = %d %+v", code, pay)
	}
	// The floor's clock control (issue 13) over REST: each route moves the
	// clock the players read; a bad level is a 400 with its reason.
	moves := []struct{ route, body, bb string }{
		{"clock:addTime", `{"reason":"dealer change","delta":"120s"}`, "50"},
		{"clock:setLevel", `{"reason":"announced","skip":1}`, "100"},
		{"clock:setLevel", `{"reason":"back","level_index":0}`, "50"},
		{"clock:startBreak", `{"reason":"fire drill","duration":"600s"}`, ""},
	}
	for _, m := range moves {
		var got struct {
			Clock struct {
				Level struct {
					BigBlind string `json:"big_blind"`
				} `json:"level"`
			} `json:"clock"`
		}
		if code := call(t, "POST", srv.URL+"/v1/tournaments/"+id+"/"+m.route, floor, m.body, &got); code != 200 || got.Clock.Level.BigBlind != m.bb {
			t.Fatalf("%s %s = %d %+v", m.route, m.body, code, got)
		}
	}
	if code := call(t, "POST", srv.URL+"/v1/tournaments/"+id+"/clock:setLevel", floor, `{"reason":"x","level_index":99}`, &refusal); code != 400 ||
		len(refusal.Details) == 0 || refusal.Details[0].Reason != "CLOCK_NO_SUCH_LEVEL" {
		t.Fatalf("no such level = %d %+v", code, refusal)
	}
	if code := call(t, "POST", srv.URL+"/v1/tournaments/"+id+"/clock:addTime", f.bearer(t, "ann", auth.Player), `{"reason":"x","delta":"60s"}`, nil); code != 403 {
		t.Fatalf("a player adding time over REST = %d, want 403", code)
	}
	if code := call(t, "POST", srv.URL+"/v1/tournaments/"+id+":cancel", floor, `{"reason":"x"}`, nil); code != 403 {
		t.Fatalf("TR-03 floor cancel over REST = %d, want 403", code)
	}
}
