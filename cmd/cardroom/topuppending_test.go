package main

// A top-up waiting for the wallet's commit (G-41) as an app sees it over
// REST.

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cardroom/cardroom/gateway"
	"github.com/cardroom/cardroom/platform/auth"
)

// TestPendingTopUpShownOverREST_G41: ann sits alone at a table and tops up
// 100 while the wallet cannot be reached for the commit. The table state
// an app reads over REST shows the 100 as pending_top_up on her seat
// (before, nothing showed a top-up waiting: not in stack, not in
// pending_chips), and her leave between hands answers left false: she
// stays seated, leaving, until the wallet settles the top-up. Once the
// table's next owner has the commit, her seat is empty and she has every
// chip back in her wallet.
func TestPendingTopUpShownOverREST_G41(t *testing.T) {
	t.Parallel()
	eachMoneyStore(t, "", func(t *testing.T, r *moneyRig) {
		r.deposit("ann", 1000)
		id := r.openTable()
		floor, err := r.g.Issuer.Mint("floor-1", []auth.Role{auth.Floor}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		rest := r.rest()
		rest("POST", "/v1/tables/"+id+"/seats", floor, `{"seat": 0, "player_id": "ann", "amount": "100", "idempotency_key": "ann-sits"}`, &struct{}{})
		r.client.cutCommit.Store(true)
		if code, _ := rest("POST", "/v1/tables/"+id+"/top-ups", floor, `{"player_id": "ann", "amount": "100", "idempotency_key": "ann-tops-up"}`, nil); code != http.StatusServiceUnavailable {
			t.Fatalf("top-up with the commit cut off: %d, want 503", code)
		}
		r.client.cutCommit.Store(false)

		type seat struct {
			PlayerID string `json:"player_id"`
			Stack    string `json:"stack"`
			Pending  string `json:"pending_chips"`
			TopUp    string `json:"pending_top_up"`
			Leaving  bool   `json:"leaving"`
		}
		var st struct {
			State struct{ Seats []seat }
		}
		rest("GET", "/v1/tables/"+id+"/state", floor, "", &st)
		if got := st.State.Seats[0]; got.PlayerID != "ann" || got.Stack != "100" || got.Pending != "0" || got.TopUp != "100" {
			t.Fatalf("G-41: ann's seat with her top-up unsettled: %+v, want stack 100 and pending_top_up 100", got)
		}
		var left struct {
			Left  bool
			Stack string
		}
		rest("POST", "/v1/tables/"+id+"/seats/0:leave", floor, `{}`, &left)
		if left.Left {
			t.Fatalf("G-41: ann left between hands with her top-up unsettled: %+v, want left false", left)
		}
		rest("GET", "/v1/tables/"+id+"/state", floor, "", &st)
		if got := st.State.Seats[0]; got.PlayerID != "ann" || !got.Leaving || got.TopUp != "100" {
			t.Fatalf("G-41: ann's seat after her leave: %+v, want her seated, leaving, the top-up pending", got)
		}

		r.restartTables() // the next owner commits the top-up
		rest = r.rest()
		if floor, err = r.g.Issuer.Mint("floor-1", []auth.Role{auth.Floor}, time.Hour); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "ann cashed out", 10*time.Second, func() bool {
			rest("GET", "/v1/tables/"+id+"/state", floor, "", &st)
			return len(st.State.Seats) > 0 && st.State.Seats[0].PlayerID == ""
		})
		r.books("after the top-up was settled", id, "ann", 1000)
	})
}

// rest returns a REST client of the rig's table service through the
// gateway as production builds it: call(method, path, token, body, out)
// sends body (JSON, "" for none), decodes a 200's body into out (if not
// nil) and returns the status and the body. A status other than 200 fails
// the test when out is not nil.
func (r *moneyRig) rest() func(method, path, token, body string, out any) (int, []byte) {
	r.t.Helper()
	g, err := gateway.New(r.t.Context(), gateway.Options{Verifier: r.g.Verifier,
		Conns: gateway.Conns{Table: r.g.Conn, Tournament: r.g.Conn, Wallet: r.g.Conn, Seating: r.g.Conn}})
	if err != nil {
		r.t.Fatal(err)
	}
	srv := httptest.NewServer(g)
	r.t.Cleanup(srv.Close)
	return func(method, path, token, body string, out any) (int, []byte) {
		r.t.Helper()
		req, err := http.NewRequestWithContext(r.t.Context(), method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			r.t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			r.t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if out != nil {
			if resp.StatusCode != http.StatusOK {
				r.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
			}
			if err := json.Unmarshal(raw, out); err != nil {
				r.t.Fatalf("%s %s: %v in %s", method, path, err, raw)
			}
		}
		return resp.StatusCode, raw
	}
}
