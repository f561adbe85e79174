package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"testing"
	"time"
)

// pkoEntrants is the field of the PKO run. Issue 13 shows it with 100;
// the default keeps `make test` within its time on a small machine
// (go test -run TestTournamentPKODeal -pko.entrants=100 -pko.time=40m
// plays the full field).
var (
	pkoEntrants = flag.Int("pko.entrants", 27, "entrants in TestTournamentPKODeal")
	pkoTime     = flag.Duration("pko.time", 8*time.Minute, "how long TestTournamentPKODeal's bots may play to three left")
)

// TestTournamentPKODeal_G36_G37_TR38: a progressive knockout (PKO) event
// on a cluster (every part its own process on PostgreSQL and Redis) played
// by bots over REST until exactly three players are left — the floor
// pausing the clock hand by hand from four, so that no hand starts while
// the deal is talked about (TR-20) — then a deal by ICM:
// the players read the calculator with their stacks from the tables, the
// floor proposes, a player cannot answer for another, the floor cannot
// confirm before everyone agreed, every player agrees, the floor confirms,
// and the prizes are paid from the agreed amounts (TR-38). Checked: every
// knock-out's head went to the winners of the pots the player was in,
// half in cash and half on the winner's head (G-36); the heads of the
// players in the deal are paid to them (G-37); bounties paid equal the
// bounty pool and prizes paid equal the prize pool, to the cent; each
// player's wallet moved by exactly their prizes and bounties, and their
// history shows their place, prize and bounties (issue 13); every step is
// in the audit log; the ledger audit is clean.
func TestTournamentPKODeal_G36_G37_TR38(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every part of the suite in its own process")
	}
	t.Parallel()
	c := newCluster(t, clusterOptions{tables: 1, bin: seededBinary, env: []string{"CARDROOM_TEST_DECK_SEED=20261213",
		"CARDROOM_TABLE_HAND_PAUSE=0s", "CARDROOM_TABLE_ACTION_TIMEOUT=10s"}})
	n := *pkoEntrants
	var players []string
	for i := range n {
		players = append(players, fmt.Sprintf("k%03d", i+1))
	}
	r := newRoom(t, c.gateway, players...)
	const deposit, prizePart, bountyPart, fee, stack = 10000, 1000, 400, 100, 1000
	for _, p := range players {
		r.deposit(p, deposit)
	}
	sheet := []map[string]any{
		{"small_blind": 25, "big_blind": 50, "duration": "20s"},
		{"small_blind": 50, "big_blind": 100, "duration": "20s"},
		{"small_blind": 100, "big_blind": 200, "duration": "20s"},
		{"small_blind": 200, "big_blind": 400, "duration": "600s"},
	}
	var created struct {
		Tournament struct {
			ID     string `json:"tournament_id"`
			Bounty struct {
				Amount      int64 `json:"amount,string"`
				Progressive bool  `json:"progressive"`
			} `json:"bounty"`
		}
	}
	r.must("POST", "/v1/tournaments", r.floor, map[string]any{"name": "Sunday PKO", "variant": "VARIANT_HOLDEM",
		"structure": "STRUCTURE_NO_LIMIT", "currency": "EUR", "buy_in": prizePart, "fee": fee, "starting_stack": stack,
		"start_time": time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano), "levels": sheet, "seats_per_table": 9,
		"bounty":  map[string]any{"amount": bountyPart, "progressive": true},
		"payouts": map[string]any{"unit": 1, "tiers": []any{map[string]any{"shares": []int{4000, 2500, 1500, 1200, 800}}}}}, &created)
	id := created.Tournament.ID
	if b := created.Tournament.Bounty; b.Amount != bountyPart || !b.Progressive {
		t.Fatalf("bounty %+v", b)
	}
	base := "/v1/tournaments/" + id
	for _, p := range players {
		r.must("POST", base+"/entries", r.tokens[p], map[string]any{"player_id": p}, nil)
	}
	r.startTournament(id)
	var payouts struct {
		Pool int64 `json:"prize_pool,string"`
	}
	r.must("GET", base+"/payouts", r.floor, nil, &payouts)
	if want := int64(n * (prizePart - bountyPart)); payouts.Pool != want {
		t.Fatalf("prize pool %d, want %d: the bounties are not the structure's (G-36)", payouts.Pool, want)
	}

	active := func() []string {
		var out []string
		for p, en := range r.entriesAs(id, r.floor) {
			if en.Status == "ENTRY_STATUS_ACTIVE" {
				out = append(out, p)
			}
		}
		return out
	}
	// The bots play push-fold until the final table, then one against one:
	// at most one all-in is called in a hand, so at most one player goes
	// out in it. From four left the floor plays toward the deal hand by
	// hand: it pauses the clock, which stops the tables after the hand in
	// play (TR-20); the bots finish that hand; once the tables are at rest
	// and the books agree with them, three left is the deal, four resumes
	// the clock for one more hand.
	rng := rand.New(rand.NewPCG(13, 38))
	bot, endgame := pushFold(rng), oneCaller(rng)
	deadline := time.Now().Add(*pkoTime)
	actions := 0
	for left := active(); len(left) > 4; left = active() {
		if time.Now().After(deadline) {
			t.Fatalf("%d left after %d actions", len(left), actions)
		}
		play := bot
		if len(left) <= 9 {
			play = endgame
		}
		r.actOrAwait(func() []string { return tournamentTablesOf(t, r, id) }, play, &actions, func() bool { return len(active()) <= 4 })
	}
	// atRest plays out the hands in play and returns the players at the
	// tables once none deals and the books have the same players in.
	atRest := func() []string {
		var seated []string
		waitFor(t, "the tables at rest, the books agreeing", 2*time.Minute, func() bool {
			seated = nil
			live := false
			for _, tb := range tournamentTablesOf(t, r, id) {
				st := r.state(tb, r.floor)
				if st.Closed {
					continue
				}
				live = live || st.live()
				for _, s := range st.Seats {
					if s.PlayerID != "" && s.Stack > 0 {
						seated = append(seated, s.PlayerID)
					}
				}
			}
			if live {
				r.actAt(tournamentTablesOf(t, r, id), endgame, &actions)
				return false
			}
			books := active()
			slices.Sort(books)
			slices.Sort(seated)
			return slices.Equal(books, seated)
		})
		return seated
	}
	handNo := func() (n int64) {
		for _, tb := range tournamentTablesOf(t, r, id) {
			if st := r.state(tb, r.floor); !st.Closed && st.Hand != nil {
				n = max(n, st.Hand.HandNo)
			}
		}
		return n
	}
	var left []string
	for {
		r.must("POST", base+"/clock:pause", r.floor, map[string]any{"reason": "deal talk"}, nil)
		left = atRest()
		if len(left) != 4 || time.Now().After(deadline) {
			break
		}
		last := handNo()
		r.must("POST", base+"/clock:resume", r.floor, map[string]any{"reason": "four left: one more hand"}, nil)
		waitFor(t, "the next hand dealt", time.Minute, func() bool { return handNo() > last })
	}
	if len(left) != 3 {
		t.Fatalf("%d left after %d actions, want three for the deal: %v", len(left), actions, left)
	}
	var proposed struct {
		Deal deal `json:"deal"`
	}
	r.must("POST", base+"/deal:propose", r.floor, map[string]any{"method": "DEAL_METHOD_ICM", "reason": "three left"}, &proposed)
	proposal := proposed.Deal
	t.Logf("%d entrants, %d actions; deal at %d players: %+v", n, actions, len(left), proposal.Players)
	if len(proposal.Players) != 3 {
		t.Fatalf("deal for %+v, %d left", proposal.Players, len(left))
	}

	// The calculator the players read: the stacks the tables hold, ICM
	// over the prizes left — what the floor proposed.
	var calc struct {
		Players []struct {
			PlayerID string `json:"player_id"`
			Stack    int64  `json:"stack,string"`
			ICM      int64  `json:"icm,string"`
			ChipChop int64  `json:"chip_chop,string"`
		} `json:"players"`
		Prizes []json.Number `json:"prizes"`
	}
	r.must("GET", base+"/deal:calculate", r.tokens[left[0]], nil, &calc)
	var chips, prizesLeft int64
	for i, q := range calc.Players {
		p := proposal.Players[i]
		if q.PlayerID != p.PlayerID || q.Stack != p.Stack || q.ICM != p.Amount {
			t.Fatalf("calculator %+v, proposal %+v", q, p)
		}
		chips += q.Stack
	}
	for _, p := range calc.Prizes {
		v, err := p.Int64()
		if err != nil {
			t.Fatal(err)
		}
		prizesLeft += v
	}
	if chips != int64(n*stack) {
		t.Fatalf("the deal's stacks hold %d chips, %d issued", chips, n*stack)
	}
	var agreed int64
	for _, p := range proposal.Players {
		agreed += p.Amount
	}
	if agreed != prizesLeft {
		t.Fatalf("ICM shares %d of %d left (TR-38)", agreed, prizesLeft)
	}

	// TR-38: every player answers for themselves; the floor confirms last.
	agree := func(token, player string) (int, apiError) {
		code, raw := r.do("POST", base+"/deal:agree", token, map[string]any{"deal_id": proposal.ID, "player_id": player, "agree": true})
		var e apiError
		_ = json.Unmarshal(raw, &e)
		return code, e
	}
	if code, e := agree(r.tokens[left[0]], left[1]); code != http.StatusForbidden {
		t.Fatalf("%s answered for %s: %d %+v", left[0], left[1], code, e)
	}
	for i, p := range proposal.Players {
		if i == len(proposal.Players)-1 {
			if code, e := r.refused("POST", base+"/deal:confirm", r.floor, map[string]any{"deal_id": proposal.ID}); code != http.StatusBadRequest ||
				e.Reason != "DEAL_NOT_AGREED" || e.RuleID != "TR-38" {
				t.Fatalf("confirm before %s agreed: %d %+v", p.PlayerID, code, e)
			}
		}
		if code, e := agree(r.tokens[p.PlayerID], p.PlayerID); code != http.StatusOK {
			t.Fatalf("%s agrees: %d %+v", p.PlayerID, code, e)
		}
	}
	var confirmed struct {
		Deal deal `json:"deal"`
	}
	r.must("POST", base+"/deal:confirm", r.floor, map[string]any{"deal_id": proposal.ID, "reason": "all agreed"}, &confirmed)
	if confirmed.Deal.State != "DEAL_STATE_CONFIRMED" {
		t.Fatalf("deal %+v", confirmed.Deal)
	}

	type paid struct {
		PlayerID   string `json:"player_id"`
		KnockedOut string `json:"knocked_out_player_id"`
		Place      int    `json:"place"`
		Amount     int64  `json:"amount,string"`
		HeadAdded  int64  `json:"head_added,string"`
		Deal       bool   `json:"deal"`
		State      string `json:"state"`
	}
	var results struct {
		Finishes []struct {
			PlayerID string `json:"player_id"`
			Place    int    `json:"place"`
		}
		Prizes   []paid `json:"prizes"`
		Bounties []paid `json:"bounties"`
	}
	waitFor(t, "every prize and bounty paid", 30*time.Second, func() bool {
		r.must("GET", base+"/results", r.floor, nil, &results)
		for _, p := range append(append([]paid{}, results.Prizes...), results.Bounties...) {
			if p.State != "PRIZE_STATE_PAID" {
				return false
			}
		}
		return r.tournamentState(id) == "TOURNAMENT_STATE_FINISHED"
	})
	if len(results.Finishes) != n {
		t.Fatalf("%d places for %d entrants", len(results.Finishes), n)
	}

	// The money: prizes = prize pool, bounties = bounty pool, to the cent.
	got := map[string]int64{}
	var prizes, bounties int64
	inDeal := map[string]int64{}
	for _, p := range proposal.Players {
		inDeal[p.PlayerID] = p.Amount
	}
	for _, p := range results.Prizes {
		prizes += p.Amount
		got[p.PlayerID] += p.Amount
		if want, ok := inDeal[p.PlayerID]; ok != p.Deal || (ok && p.Amount != want) {
			t.Errorf("prize %+v; the deal gave %d (TR-38)", p, want)
		}
	}
	heads := map[string]int64{}     // what each player added to their own head (G-36)
	collected := map[string]int64{} // the heads the players in the deal collected (G-37)
	knockedOut := map[string]bool{}
	for _, b := range results.Bounties {
		bounties += b.Amount
		got[b.PlayerID] += b.Amount
		if b.KnockedOut == b.PlayerID {
			// G-37: a player in the deal collects their own head.
			if _, ok := inDeal[b.PlayerID]; !ok {
				t.Errorf("%s collected their own head without being in the deal: %+v", b.PlayerID, b)
			}
			collected[b.PlayerID] += b.Amount
			continue
		}
		knockedOut[b.KnockedOut] = true
		heads[b.PlayerID] += b.HeadAdded
		// G-36: progressive — the cash is at least the half on the head.
		if b.Amount < b.HeadAdded || b.Amount > b.HeadAdded+1 {
			t.Errorf("PKO split %+v: cash is half the share, the odd cent to cash", b)
		}
	}
	for p := range inDeal {
		// G-36: a PKO head is the bounty and half of every head won.
		if collected[p] != bountyPart+heads[p] {
			t.Errorf("%s collected a head of %d: bounty %d + %d added", p, collected[p], bountyPart, heads[p])
		}
	}
	if len(knockedOut) != n-len(left) {
		t.Errorf("%d knocked-out players' heads paid, %d knocked out", len(knockedOut), n-len(left))
	}
	if prizes != payouts.Pool || bounties != int64(n*bountyPart) {
		t.Fatalf("prizes paid %d of pool %d, bounties paid %d of %d", prizes, payouts.Pool, bounties, n*bountyPart)
	}
	for _, p := range players {
		if bal := r.balance("player:" + p + ":EUR"); bal != deposit-prizePart-fee+got[p] {
			t.Errorf("%s's wallet %d: paid in %d, won %d", p, bal, prizePart+fee, got[p])
		}
	}

	// Each player's history (issue 13), read by the player, shows the
	// event with their place, prize and bounty cash as the results have
	// them; together they are both pools.
	want := map[string]playerEvent{}
	for _, f := range results.Finishes {
		want[f.PlayerID] = playerEvent{ID: id, Place: f.Place}
	}
	for _, list := range []struct {
		paid   []paid
		amount func(*playerEvent) *int64
	}{{results.Prizes, func(h *playerEvent) *int64 { return &h.Prize }}, {results.Bounties, func(h *playerEvent) *int64 { return &h.Bounties }}} {
		for _, p := range list.paid {
			h := want[p.PlayerID]
			*list.amount(&h) += p.Amount
			want[p.PlayerID] = h
		}
	}
	var inHistory int64
	for _, p := range players {
		var hist struct {
			Events []playerEvent `json:"events"`
		}
		r.must("GET", "/v1/players/"+p+"/tournament-history", r.tokens[p], nil, &hist)
		if len(hist.Events) != 1 || hist.Events[0] != want[p] {
			t.Errorf("%s's history %+v, the results say %+v", p, hist.Events, want[p])
			continue
		}
		inHistory += hist.Events[0].Prize + hist.Events[0].Bounties
	}
	if inHistory != payouts.Pool+int64(n*bountyPart) {
		t.Errorf("the players' histories hold %d, the pools %d", inHistory, payouts.Pool+int64(n*bountyPart))
	}

	// Every step is in the audit log: a bounty record per knock-out, the
	// deal's proposal, each answer and the confirmation.
	var audit struct {
		Records []struct {
			Action string `json:"action"`
			Actor  string `json:"actor"`
		}
	}
	r.must("GET", base+"/audit", r.floor, nil, &audit)
	count := map[string]int{}
	for _, rec := range audit.Records {
		count[rec.Action]++
	}
	if count["bounty"] != n-len(left) || count["deal_proposed"] != 1 || count["deal_answer"] != len(left) || count["deal_confirmed"] != 1 {
		t.Fatalf("audit %v", count)
	}
	r.auditClean("after the PKO and its deal")
}

// playerEvent is a player's part in one event as their history shows it
// over REST (GET /v1/players/{id}/tournament-history).
type playerEvent struct {
	ID       string `json:"tournament_id"`
	Place    int    `json:"place"`
	Prize    int64  `json:"prize,string"`
	Bounties int64  `json:"bounties,string"`
}

// deal is a deal proposal as REST shows it.
type deal struct {
	ID      int    `json:"deal_id"`
	State   string `json:"state"`
	Players []struct {
		PlayerID string `json:"player_id"`
		Stack    int64  `json:"stack,string"`
		Amount   int64  `json:"amount,string"`
		Agreed   bool   `json:"agreed"`
	} `json:"players"`
}

// oneCaller is a push-fold bot under which at most one all-in is called in
// a hand, so at most one player goes out in it: a player shoves only when
// nobody is all in, calls a shove only when nobody else is in for it yet,
// and otherwise checks or folds.
func oneCaller(rng *rand.Rand) plan {
	return func(st tableState, seat int) move {
		var most int64
		allIn := false
		for _, s := range st.Seats {
			if s.Seat != seat && s.InHand && !s.Folded {
				most = max(most, s.Bet)
				allIn = allIn || s.AllIn
			}
		}
		if _, ok := legalOf(st, "ACTION_KIND_CHECK"); ok {
			return move{kind: "ACTION_KIND_CHECK"}
		}
		if !allIn {
			if rng.IntN(5) < 2 {
				return shove(st, seat)
			}
			return move{kind: "ACTION_KIND_FOLD"}
		}
		in := 0 // the others in for the most: the shover, and any caller
		for _, s := range st.Seats {
			if s.Seat != seat && s.InHand && !s.Folded && (s.AllIn || s.Bet == most) {
				in++
			}
		}
		if in == 1 && rng.IntN(2) == 0 {
			return checkDown(st, seat)
		}
		return move{kind: "ACTION_KIND_FOLD"}
	}
}
