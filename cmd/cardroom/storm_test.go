package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/testkit"
)

// TestStorm_KillWalletAndTableReplica_CS08 is the money part of issue 9's
// reliability suite: every part in its own process on Redis + PostgreSQL,
// two table replicas, and a storm of sit-downs, top-ups, leaves and hands
// at two tables, during which the wallet is first unreachable from the
// tables (the fault-injecting proxy cuts them off), then killed with
// SIGKILL and started again, and then one table replica is. Every request
// may fail while the faults last; none may lose or double a chip. Once the
// suite has settled, every table's escrow holds exactly the chips the
// table shows, nothing is left in a hold, the wallets and the tables add
// up to the deposits to the chip, the audit reconciles every table, and no
// cash-out is stuck.
func TestStorm_KillWalletAndTableReplica_CS08(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every part of the suite in its own process")
	}
	t.Parallel()
	c := newCluster(t, clusterOptions{tables: 2, env: []string{
		// A hold not committed by the table within the TTL goes back to the
		// player; the faults below last less than it.
		"CARDROOM_WALLET_HOLD_TTL=15s", "CARDROOM_WALLET_SWEEP_INTERVAL=1s",
	}})
	players := []string{"ann", "bob", "cat", "dan", "eve", "fay"}
	r := newRoom(t, c.gateway, players...)
	for _, p := range players {
		r.deposit(p, 100000)
	}
	tables := []string{r.createTable("Storm A", 6), r.createTable("Storm B", 6)}
	rng := rand.New(rand.NewPCG(9, 9))
	var ok, refused int
	reasons := map[string]int{}
	try := func(method, path, token string, body any) apiError {
		code, raw := r.do(method, path, token, body)
		if code == http.StatusOK {
			ok++
			return apiError{}
		}
		refused++
		var e apiError
		_ = json.Unmarshal(raw, &e)
		reasons[e.Reason]++
		return e
	}
	// stateOf reads a table as the floor sees it, or reports that it cannot.
	stateOf := func(table string) (tableState, bool) {
		code, raw := r.do("GET", "/v1/tables/"+table+"/state", r.floor, nil)
		var out struct{ State tableState }
		if code != http.StatusOK || json.Unmarshal(raw, &out) != nil {
			return tableState{}, false
		}
		return out.State, true
	}
	step := func(i int) {
		table := tables[rng.IntN(len(tables))]
		st, up := stateOf(table)
		if !up {
			refused++
			return
		}
		// The player in turn acts (most steps are hands being played).
		if st.live() && st.Hand.ToAct >= 0 && rng.IntN(3) > 0 {
			p := st.Seats[st.Hand.ToAct].PlayerID
			code, raw := r.do("GET", "/v1/tables/"+table+"/state", r.tokens[p], nil)
			var view struct{ State tableState }
			if code != http.StatusOK || json.Unmarshal(raw, &view) != nil || view.State.Hand == nil {
				return
			}
			own := view.State
			m := checkDown(own, st.Hand.ToAct)
			try("POST", "/v1/tables/"+table+"/actions", r.tokens[p], map[string]any{"kind": m.kind, "amount": m.amount,
				"expected_sequence": st.Sequence, "action_id": fmt.Sprintf("storm-%d", i)})
			return
		}
		p := players[rng.IntN(len(players))]
		seat := st.seatOf(p)
		elsewhere := false
		for _, other := range tables {
			if o, up := stateOf(other); other != table && up && o.seatOf(p) >= 0 {
				elsewhere = true
			}
		}
		switch {
		case seat < 0 && elsewhere:
			// G-21: one seat per player; the storm leaves them there.
		case seat < 0:
			free := -1
			for _, s := range st.Seats {
				if s.PlayerID == "" {
					free = s.Seat
				}
			}
			if free >= 0 {
				sit := func(amount int64, key string) apiError {
					return try("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": free, "player_id": p, "amount": amount,
						"post_now": true, "idempotency_key": key})
				}
				// CS-09: back at a table left earlier, with the stack left with.
				if e := sit(10000, fmt.Sprintf("storm-sit-%d", i)); e.Reason == "BUY_IN_BELOW_DEPARTURE_STACK" {
					if least, err := strconv.ParseInt(e.Metadata["min"], 10, 64); err == nil {
						sit(least, fmt.Sprintf("storm-return-%d", i))
					}
				}
			}
		case rng.IntN(2) == 0:
			s := st.Seats[seat]
			if room := 10000 - s.Stack - s.Pending - s.Bet; room > 0 {
				try("POST", "/v1/tables/"+table+"/top-ups", r.tokens[p], map[string]any{"amount": min(room, 1000),
					"idempotency_key": fmt.Sprintf("storm-top-%d", i)})
			}
		default:
			try("POST", fmt.Sprintf("/v1/tables/%s/seats/%d:leave", table, seat), r.tokens[p], map[string]any{})
		}
	}

	// The storm: faults by the clock, requests all along.
	faults := []struct {
		at   time.Duration
		what string
		do   func()
	}{
		{2 * time.Second, "wallet unreachable", c.walletDown},
		{4 * time.Second, "wallet reachable", c.walletUp},
		{6 * time.Second, "wallet killed and restarted", func() { c.kill(c.wallet); c.wallet.start() }},
		{9 * time.Second, "table replica killed and restarted", func() { c.kill(c.tables[0]); c.tables[0].start() }},
	}
	start := time.Now()
	// The faults come by the clock; the storm goes on past the last until
	// enough requests got through, however slow the machine (bounded).
	for i := 0; time.Since(start) < 13*time.Second || (ok < 50 && time.Since(start) < 90*time.Second); i++ {
		if len(faults) > 0 && time.Since(start) >= faults[0].at {
			t.Logf("%s: %s", time.Since(start).Round(time.Millisecond), faults[0].what)
			faults[0].do()
			faults = faults[1:]
		}
		step(i)
	}
	t.Logf("storm: %d requests answered, %d refused or failed %v", ok, refused, reasons)
	if ok < 50 {
		t.Fatalf("the storm got only %d requests through", ok)
	}

	// Settled: the tables answer, their wallet steps are done.
	testkit.Eventually(t, 60*time.Second, func() error {
		for _, id := range tables {
			if _, up := stateOf(id); !up {
				return fmt.Errorf("table %s does not answer yet", id)
			}
		}
		_, err := r.chipsConserved()
		return err
	})
	r.checkChips("after the storm")
	r.auditClean("after the storm")
	c.stop()
}
