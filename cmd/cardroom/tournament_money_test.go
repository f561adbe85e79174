package main

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// moneyEntry is an entry as ListEntries returns it, money fields included.
type moneyEntry struct {
	PlayerID         string `json:"player_id"`
	Status           string `json:"status"`
	TransferID       string `json:"transfer_id"`
	RefundTransferID string `json:"refund_transfer_id"`
	Paid             int64  `json:"paid,string"`
	Reentries        int    `json:"reentries"`
	Table            int    `json:"table"`
}

// entriesAs lists a tournament's entries as the token's holder sees them.
func (r *room) entriesAs(id, token string) map[string]moneyEntry {
	r.t.Helper()
	var out struct {
		Entries []moneyEntry `json:"entries"`
	}
	r.must("GET", "/v1/tournaments/"+id+"/entries", token, nil, &out)
	m := map[string]moneyEntry{}
	for _, en := range out.Entries {
		m[en.PlayerID] = en
	}
	return m
}

// tournamentState reads a tournament's state as the floor; a part being
// restarted answers "" until it is back.
func (r *room) tournamentState(id string) string {
	r.t.Helper()
	code, raw := r.do("GET", "/v1/tournaments/"+id, r.floor, nil)
	if code != http.StatusOK {
		return ""
	}
	var got struct {
		Tournament struct {
			State string `json:"state"`
		}
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		r.t.Fatalf("tournament %s: decode %s: %v", id, raw, err)
	}
	return got.Tournament.State
}

// TestTournamentMoneyFlows_TR04_G23_TR34 plays a tournament's money over
// REST on a cluster — every part its own process, on PostgreSQL and Redis:
//
//   - TR-04: a player unregisters before the start and the wallet refunds the
//     entry, prize part and fee, once (no cage step); a second unregistration
//     moves nothing;
//   - ListEntries shows a player the money of their own entry only; the floor
//     sees everyone's;
//   - G-23: a busted player re-enters during late registration — a new
//     entry, paid in full — and is refused with the rule past the event's limit;
//   - TR-34: the player in second place is expelled: the winner's prize is
//     paid while the wallet is down, so the event reads PAYING until the
//     tournament process, killed and restarted, pays it from its resume loop
//     (Service.Run) and reads FINISHED; the withheld second prize is then
//     settled by the floor's audited SettlePrizePool step into the house's
//     account.
//
// Afterwards the ledger audit is clean and the players' wallets, the house
// fees and the prize pool add up to the deposits.
func TestTournamentMoneyFlows_TR04_G23_TR34(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every part of the suite in its own process")
	}
	t.Parallel()
	c := newCluster(t, clusterOptions{})
	players := []string{"ann", "bob", "cat", "dan", "eve"}
	r := newRoom(t, c.gateway, players...)
	for _, p := range players {
		r.deposit(p, 100000)
	}
	const prizePart, fee = 5000, 1000
	var created struct {
		Tournament struct {
			ID string `json:"tournament_id"`
		}
	}
	r.must("POST", "/v1/tournaments", r.floor, map[string]any{"name": "Money Night", "variant": "VARIANT_HOLDEM",
		"structure": "STRUCTURE_NO_LIMIT", "currency": "EUR", "buy_in": prizePart, "fee": fee, "starting_stack": 1000,
		"start_time":   time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano),
		"entry_policy": map[string]any{"late_registration": "7200s", "reentry": true, "max_reentries": 1},
		"payouts":      map[string]any{"unit": 100, "tiers": []any{map[string]any{"shares": []int{6000, 4000}}}}}, &created)
	id := created.Tournament.ID
	entries := "/v1/tournaments/" + id + "/entries"
	for _, p := range players {
		r.must("POST", entries, r.tokens[p], map[string]any{"player_id": p}, nil)
	}

	// A player sees their own money and nobody else's; the floor sees all.
	for viewer, token := range map[string]string{"ann": r.tokens["ann"], "bob": r.tokens["bob"], "": r.floor} {
		for p, en := range r.entriesAs(id, token) {
			mine := viewer == "" || viewer == p
			if shown := en.TransferID != "" && en.Paid == prizePart+fee; shown != mine {
				t.Fatalf("%q sees %s's money = %v (%+v), want %v", viewer, p, shown, en, mine)
			}
		}
	}

	// TR-04: eve withdraws before the start; the wallet refunds her entry.
	r.must("POST", entries+"/eve:unregister", r.tokens["eve"], map[string]any{}, nil)
	eve := r.entriesAs(id, r.tokens["eve"])["eve"]
	if eve.Status != "ENTRY_STATUS_UNREGISTERED" || eve.RefundTransferID == "" || eve.Paid != 0 || r.balance("player:eve:EUR") != 100000 {
		t.Fatalf("TR-04 refund: %+v, balance %d", eve, r.balance("player:eve:EUR"))
	}
	if code, e := r.refused("POST", entries+"/eve:unregister", r.tokens["eve"], map[string]any{}); code != http.StatusBadRequest || e.Reason != "ENTRY_NOT_ACTIVE" {
		t.Fatalf("second unregistration: %d %+v", code, e)
	}
	if got := r.balance("player:eve:EUR"); got != 100000 {
		t.Fatalf("eve refunded twice: %d", got)
	}

	if started := r.startTournament(id); len(started.Seats) != 4 {
		t.Fatalf("draw %+v, want the four entries left", started.Seats)
	}
	knockOut := func(player string, hand int) {
		t.Helper()
		r.must("POST", "/v1/tournaments/"+id+":recordKnockouts", r.floor, map[string]any{
			"knockouts": []any{map[string]any{"player_id": player, "table": 1, "hand": hand}}}, nil)
	}

	// G-23: dan is out and enters again during late registration.
	knockOut("dan", 1)
	var again struct {
		Entry moneyEntry `json:"entry"`
	}
	r.must("POST", entries, r.tokens["dan"], map[string]any{"player_id": "dan"}, &again)
	if again.Entry.Status != "ENTRY_STATUS_ACTIVE" || again.Entry.Reentries != 1 || again.Entry.Table == 0 || again.Entry.Paid != 2*(prizePart+fee) {
		t.Fatalf("G-23 re-entry: %+v", again.Entry)
	}
	knockOut("dan", 2)
	if code, e := r.refused("POST", entries, r.tokens["dan"], map[string]any{"player_id": "dan"}); code != http.StatusBadRequest ||
		e.Reason != "REENTRY_LIMIT_REACHED" || e.RuleID != "G-23" {
		t.Fatalf("second re-entry: %d %+v", code, e)
	}
	knockOut("cat", 3)

	// TR-34: bob, second, is expelled while the wallet is down: ann wins and
	// her prize waits; the event reads PAYING.
	c.kill(c.wallet)
	var pen struct {
		Finish struct {
			Place   int  `json:"place"`
			Removed bool `json:"removed"`
		}
	}
	r.must("POST", entries+"/bob:penalize", r.floor, map[string]any{"type": "PENALTY_TYPE_EXPULSION", "reason": "chip dumping"}, &pen)
	if pen.Finish.Place != 2 || !pen.Finish.Removed {
		t.Fatalf("TR-34 expulsion: %+v", pen)
	}
	if got := r.tournamentState(id); got != "TOURNAMENT_STATE_PAYING" {
		t.Fatalf("state with the winner's prize pending = %s, want PAYING", got)
	}
	if code, e := r.refused("POST", "/v1/tournaments/"+id+":settlePool", r.floor, map[string]any{"reason": "too early"}); code != http.StatusBadRequest ||
		e.Reason != "PRIZES_NOT_PAID" || e.RuleID != "TR-34" {
		t.Fatalf("settlement before the prizes: %d %+v", code, e)
	}

	// The wallet is back; the tournament process is killed and restarted,
	// and its resume loop pays the prize: FINISHED.
	c.wallet.start()
	tournament := c.others[1]
	c.kill(tournament)
	tournament.start()
	waitFor(t, "the resumed prize and FINISHED", 30*time.Second, func() bool { return r.tournamentState(id) == "TOURNAMENT_STATE_FINISHED" })
	pool := int64(5 * prizePart) // four entries and dan's re-entry
	first, second := pool*6000/10000, pool*4000/10000
	if got := r.balance("player:ann:EUR"); got != 100000-prizePart-fee+first {
		t.Fatalf("ann = %d, want her prize of %d", got, first)
	}

	// The withheld second prize goes to the house, by the floor's step.
	var settled struct {
		Amount     int64  `json:"amount,string"`
		TransferID string `json:"transfer_id"`
	}
	r.must("POST", "/v1/tournaments/"+id+":settlePool", r.floor, map[string]any{"reason": "second prize withheld from an expelled player (TR-34)"}, &settled)
	if settled.Amount != second || settled.TransferID == "" {
		t.Fatalf("settlement %+v, want %d", settled, second)
	}
	if code, e := r.refused("POST", "/v1/tournaments/"+id+":settlePool", r.floor, map[string]any{"reason": "again"}); code != http.StatusBadRequest || e.Reason != "NOTHING_TO_SETTLE" {
		t.Fatalf("second settlement: %d %+v", code, e)
	}
	if code, _ := r.refused("POST", "/v1/tournaments/"+id+":settlePool", r.tokens["ann"], map[string]any{"reason": "mine"}); code != http.StatusForbidden {
		t.Fatalf("a player settling the pool: %d", code)
	}
	var audit struct {
		Records []struct {
			Actor  string `json:"actor"`
			Action string `json:"action"`
		}
	}
	r.must("GET", "/v1/tournaments/"+id+"/audit", r.floor, nil, &audit)
	if n := len(audit.Records); n == 0 || audit.Records[n-1].Action != "settle_pool" || audit.Records[n-1].Actor != "floor-anna" {
		t.Fatalf("audit log %+v", audit.Records)
	}

	// The books: every wallet, the house and the pool add up to the deposits.
	want := map[string]int64{
		"player:ann:EUR":            100000 - prizePart - fee + first,
		"player:bob:EUR":            100000 - prizePart - fee,
		"player:cat:EUR":            100000 - prizePart - fee,
		"player:dan:EUR":            100000 - 2*(prizePart+fee),
		"player:eve:EUR":            100000,
		"house_fees:EUR":            5*fee + second,
		"prize_pool:" + id + ":EUR": 0,
	}
	var sum int64
	for account, amount := range want {
		if got := r.balance(account); got != amount {
			t.Errorf("%s = %d, want %d", account, got, amount)
		}
		sum += amount
	}
	if sum != r.deposits {
		t.Fatalf("wallets, house and pool hold %d, deposits %d", sum, r.deposits)
	}
	if en := r.entriesAs(id, r.floor); en["dan"].Paid != 2*(prizePart+fee) || en["eve"].Paid != 0 || en["ann"].Paid != prizePart+fee {
		t.Fatalf("paid per entry: %+v", en)
	}
	r.auditClean("after the tournament's money")
	t.Logf("pool %d: first %d paid after a restart, second %d withheld and settled to the house %s",
		pool, first, second, strconv.Quote(settled.TransferID))
	c.stop()
}
