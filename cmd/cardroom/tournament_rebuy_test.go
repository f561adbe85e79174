package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"testing"
	"time"

	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
)

// rebuyLong plays the rebuy event with its full field and slower levels.
var rebuyLong = flag.Bool("rebuy-long", false, "play the rebuy tournament test's long form: 120 entrants, slower levels")

// rebuyEvent is the shape of the rebuy event the test plays.
type rebuyEvent struct {
	early, late int // entrants before the start and late (G-23)
	sheet       []map[string]any
	lateReg     time.Duration // late registration after the start (G-23)
	rebuyPeriod time.Duration // TR-13
	maxRebuys   int           // each player's (G-23)
	addOnWindow time.Duration // after the rebuy period (G-23)
}

func leanRebuyEvent() rebuyEvent {
	// Late registration runs 15 s from the published start: the late
	// entrants ask once the start has answered, and opening the tables
	// took more than 9 s on a loaded machine. It still closes in level 2,
	// long before the field nears the bubble.
	//
	// Eight rebuys each: the bots rebuy whenever broke and, one time in
	// two, below the starting stack, about one every three seconds each
	// while the period lasts. With two, most had used both early in level
	// 2, and from then every player who went broke was out: on a fast
	// run the field played down to its last player with chips about 13 s
	// after the start, before the break (16 s), and no add-on was taken.
	// With eight, a player who goes broke may still rebuy (TR-13, TR-16)
	// or is held for the add-on with a rebuy (TR-17, G-42) until its
	// window closes, so most of the field reaches the break.
	return rebuyEvent{early: 45, late: 15, lateReg: 15 * time.Second, rebuyPeriod: 12 * time.Second, maxRebuys: 8, addOnWindow: 20 * time.Second,
		sheet: []map[string]any{
			{"small_blind": 25, "big_blind": 50, "duration": "8s"},
			{"small_blind": 50, "big_blind": 100, "duration": "8s"},
			{"break": true, "duration": "6s"},
			// After the break the levels are short: the event runs by
			// default in make test, so it plays down fast.
			{"small_blind": 100, "big_blind": 200, "duration": "6s"},
			{"small_blind": 200, "big_blind": 400, "duration": "6s"},
			{"small_blind": 400, "big_blind": 800, "duration": "6s"},
			{"small_blind": 800, "big_blind": 1600, "duration": "6s"},
			{"small_blind": 1500, "big_blind": 3000, "duration": "600s"},
		}}
}

func longRebuyEvent() rebuyEvent {
	// The rebuy period is about twice the lean one's, and so are the
	// rebuys.
	return rebuyEvent{early: 90, late: 30, lateReg: 20 * time.Second, rebuyPeriod: 25 * time.Second, maxRebuys: 16, addOnWindow: 35 * time.Second,
		sheet: []map[string]any{
			{"small_blind": 25, "big_blind": 50, "duration": "15s"},
			{"small_blind": 50, "big_blind": 100, "duration": "15s"},
			{"break": true, "duration": "15s"},
			{"small_blind": 100, "big_blind": 200, "duration": "15s"},
			{"small_blind": 200, "big_blind": 400, "duration": "15s"},
			{"small_blind": 400, "big_blind": 800, "duration": "15s"},
			{"small_blind": 800, "big_blind": 1600, "duration": "15s"},
			{"small_blind": 1500, "big_blind": 3000, "duration": "600s"},
		}}
}

// TestTournamentDirectorRebuy_TR13_TR14_TR15_TR16_TR17_TR20_TR23_G23_G26:
// a 60-entrant rebuy event (-rebuy-long: 120) with late registration on a
// cluster (every part its own process on PostgreSQL and Redis, two table
// replicas) with 8-second levels, a break, then 6-second levels. The floor creates and starts
// it; the cage pays what the
// players ask for. 15 players register after the start (G-23) and are
// seated by the tournament; players rebuy when busted or below the
// starting stack while the period and their table's last rebuy hand last
// (TR-13…TR-16), and every other player takes the add-on at the break
// (TR-17, with a rebuy when broke); bots play to one winner over REST.
// Checked: the chips at the tables and in transit equal the chips issued
// (entries, rebuys, add-ons) whenever counted, the director's count after
// every hand never differed (its status and mismatch metric), and the
// books' entries agree; every hand played the level in force at its start
// and none started in a break (TR-20, G-07); the director went
// hand-for-hand exactly when the field stood at 13 with 12 places paid
// once late registration had closed (not when two players went out in
// one hand, leaving no bubble hand, nor while registration was open) and
// dealt its rounds together (G-26, G-39, G-23); every balancing move took the player due the big blind
// (TR-23); the prizes paid equal the pool of entries, rebuys and add-ons;
// the ledger audit is clean.
func TestTournamentDirectorRebuy_TR13_TR14_TR15_TR16_TR17_TR20_TR23_G23_G26(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every part of the suite in its own process")
	}
	t.Parallel()
	ev := leanRebuyEvent()
	if *rebuyLong {
		ev = longRebuyEvent()
	}
	began := time.Now()
	c := newCluster(t, clusterOptions{tables: 2, bin: seededBinary, env: []string{"CARDROOM_TEST_DECK_SEED=20261202",
		"CARDROOM_TABLE_HAND_PAUSE=0s", "CARDROOM_TABLE_ACTION_TIMEOUT=10s", "CARDROOM_LOCK_TTL=5s"}})
	var players []string
	for i := range ev.early + ev.late {
		players = append(players, fmt.Sprintf("p%03d", i+1))
	}
	r := newRoom(t, c.gateway, players...)
	const stack, rebuyChips, addOnChips = 1000, 1000, 2000
	maxRebuys := ev.maxRebuys
	for _, p := range players {
		// The entry and its fee, every rebuy and the add-on, each 1,000
		// to the pool (TR-14, TR-17), and some to spare.
		r.deposit(p, 1100+int64(maxRebuys+1)*1000+900)
	}
	var created struct {
		Tournament struct {
			ID string `json:"tournament_id"`
		}
	}
	r.must("POST", "/v1/tournaments", r.floor, map[string]any{"name": "Director Rebuy", "variant": "VARIANT_HOLDEM",
		"structure": "STRUCTURE_NO_LIMIT", "currency": "EUR", "buy_in": 1000, "fee": 100, "starting_stack": stack,
		"start_time": time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano), "levels": ev.sheet, "seats_per_table": 9,
		"format": "TOURNAMENT_FORMAT_REBUY", "entry_policy": map[string]any{
			"late_registration": ev.lateReg.String(), "rebuy_period": ev.rebuyPeriod.String(), "last_rebuy_hands": 1,
			"max_rebuys": maxRebuys, "add_on": true, "add_on_window": ev.addOnWindow.String()},
		"payouts": map[string]any{"unit": 100, "tiers": []any{map[string]any{"shares": []int{2500, 1600, 1200, 1000, 800, 700, 600, 500, 400, 300, 200, 200}}}}}, &created)
	id := created.Tournament.ID
	t.Cleanup(func() {
		if t.Failed() {
			// What the books and the tables say, to find out why.
			_, audit := r.do("GET", "/v1/tournaments/"+id+"/audit", r.floor, nil)
			_, ens := r.do("GET", "/v1/tournaments/"+id+"/entries", r.floor, nil)
			t.Logf("audit: %s\nentries: %s", audit, ens)
			for _, tb := range tournamentTablesOf(t, r, id) {
				_, st := r.do("GET", "/v1/tables/"+tb+"/state", r.floor, nil)
				t.Logf("table %s: %s", tb, st)
			}
		}
	})
	register := func(p string) {
		t.Helper()
		var out struct {
			Entry struct {
				Status string `json:"status"`
			}
		}
		r.must("POST", "/v1/tournaments/"+id+"/entries", r.tokens[p], map[string]any{"player_id": p}, &out)
		if out.Entry.Status != "ENTRY_STATUS_ACTIVE" {
			t.Fatalf("%s's entry: %s", p, out.Entry.Status)
		}
	}
	for _, p := range players[:ev.early] {
		register(p)
	}
	if started := r.startTournament(id); len(started.Seats) != ev.early {
		t.Fatalf("draw %+v", started.Seats)
	}
	var draws struct {
		Draws []struct {
			Kind string    `json:"kind"`
			At   time.Time `json:"create_time"`
		}
	}
	r.must("GET", "/v1/tournaments/"+id+"/draws", r.floor, nil, &draws)
	clockStart := draws.Draws[0].At // the seat draw is logged at the start: level 1 starts then
	// Late registration closes ev.lateReg after the published start
	// (G-23); until then there is no bubble (G-39).
	var published struct {
		Tournament struct {
			Start time.Time `json:"start_time"`
		}
	}
	r.must("GET", "/v1/tournaments/"+id, r.floor, nil, &published)
	regCloses := published.Tournament.Start.Add(ev.lateReg)

	// What the cage has issued: a stack per entry, the rebuys' and the
	// add-ons' chips (TR-08, TR-14, TR-17).
	entries, rebuys, addOns := ev.early, map[string]int{}, map[string]bool{}
	issued := func() int64 {
		n := int64(entries) * stack
		for _, k := range rebuys {
			n += int64(k) * rebuyChips
		}
		return n + int64(len(addOns))*addOnChips
	}
	tc, svc := tournamentTables(t, c.tables[0].grpcAddr(), c.gateway.token("cardroom-tournament", "service"))
	// lateInFlight is set while late entries are being paid and seated:
	// their chips reach the tables before the answers reach the test, so
	// no count is made meanwhile.
	lateInFlight := false
	count := func(when string) {
		t.Helper()
		if lateInFlight {
			return
		}
		n, err := tc.CountTournamentChips(svc, &tablev1.CountTournamentChipsRequest{TournamentId: id})
		if err != nil {
			t.Fatalf("%s: count chips: %v", when, err)
		}
		if n.GetTotal() != issued() {
			t.Fatalf("%s: %d chips at the tables and in transit, %d issued (%d entries, rebuys %v, %d add-ons)",
				when, n.GetTotal(), issued(), entries, rebuys, len(addOns))
		}
	}
	tables := tournamentTablesOf(t, r, id)
	count("after the start")

	// money pays what the players at the tables ask the cage for: a
	// rebuy when broke, or below the starting stack one time in two,
	// while the period lasts (TR-13, TR-15, TR-16); the add-on at the
	// break, every other player (TR-17, with a rebuy when broke). Only
	// players out of the hand in play ask.
	rng := rand.New(rand.NewPCG(3, 4))
	rebuyAsked, addOnAsked, addOnsAtBreak := 0, 0, 0
	breakLevel := slices.IndexFunc(ev.sheet, func(row map[string]any) bool { return row["break"] == true })
	// phase reads the tournament's clock: the rebuys are asked for in the
	// levels before the break and the add-on from the break on, until the
	// event says its window closed, as the event's own fast clock runs
	// them, whatever time the test's rounds take. The add-on opens at a
	// table once it has played its last rebuy hand (TR-16, TR-17); on a
	// slow machine that may be after the break (no hand is dealt in it),
	// so the window runs past the break.
	addOnClosed := false
	const (
		rebuyPhase = iota
		breakPhase
		laterPhase
	)
	phase := func() int {
		var clock struct {
			Index int `json:"level_index"`
			Level struct {
				Break bool `json:"break"`
			} `json:"level"`
		}
		r.must("GET", "/v1/tournaments/"+id+"/clock", r.floor, nil, &clock)
		switch {
		case clock.Level.Break:
			return breakPhase
		case clock.Index < breakLevel:
			return rebuyPhase
		}
		return laterPhase
	}
	typedIn := false // a rebuy asked with a stack the table does not hold
	money := func(now int) {
		t.Helper()
		for _, tb := range tables {
			st := r.state(tb, r.floor)
			if st.Closed {
				continue
			}
			for _, s := range st.Seats {
				p := s.PlayerID
				if p == "" || (st.live() && s.InHand && !s.Folded) {
					continue
				}
				// A rebuy or add-on bought during a hand is the player's,
				// behind from the next hand (TR-15 counts it).
				chips := s.Stack + s.Pending
				switch {
				case now == rebuyPhase && chips >= 2*stack && !typedIn:
					// TR-15: the cage typing in a short stack for a player
					// whose table holds more is not believed: the table's
					// stack decides. (Twice the starting stack: no blind
					// posted meanwhile takes it below.)
					code, e := r.refused("POST", "/v1/tournaments/"+id+"/entries/"+p+":rebuy", r.cashier, map[string]any{"stack": 0})
					if e.Reason == "REBUY_PERIOD_OVER" {
						continue // TR-16: over at that table meanwhile
					}
					typedIn = true
					if code != http.StatusBadRequest || e.Reason != "REBUY_NOT_ALLOWED" || e.RuleID != "TR-15" {
						t.Fatalf("TR-15: %s's rebuy with the stack typed in as 0, %d at the table: %d %+v", p, chips, code, e)
					}
				case now == rebuyPhase && chips < stack && rebuys[p] < maxRebuys && (chips == 0 || rng.IntN(2) == 0):
					rebuyAsked++
					code, body := r.do("POST", "/v1/tournaments/"+id+"/entries/"+p+":rebuy", r.cashier, map[string]any{"stack": chips})
					if code == http.StatusOK {
						rebuys[p]++
						count(fmt.Sprintf("after %s's rebuy %d", p, rebuys[p]))
						continue
					}
					var e apiError
					_ = json.Unmarshal(body, &e)
					// The period and the table's last rebuy hand (TR-16)
					// may end between the read and the ask.
					if e.Reason != "REBUY_PERIOD_OVER" {
						t.Fatalf("%s's rebuy at stack %d: %d %s", p, chips, code, body)
					}
				case now != rebuyPhase && !addOnClosed && !addOns[p] && slices.Index(players, p)%2 == 0 &&
					(chips > 0 || rebuys[p] < maxRebuys):
					addOnAsked++
					code, body := r.do("POST", "/v1/tournaments/"+id+"/entries/"+p+":addOn", r.cashier,
						map[string]any{"stack": chips, "with_rebuy": chips == 0})
					if code == http.StatusOK {
						addOns[p] = true
						if chips == 0 {
							rebuys[p]++
						}
						if now == breakPhase {
							addOnsAtBreak++
						}
						count(fmt.Sprintf("after %s's add-on", p))
						continue
					}
					var e apiError
					_ = json.Unmarshal(body, &e)
					if (e.Reason == "ADD_ON_AFTER_HAND" || e.Reason == "REBUY_BEFORE_ADD_ON") && e.RuleID == "TR-17" && chips > 0 {
						// The stack changed between the read and the ask:
						// a hand started and the player is all in, nothing
						// behind (asked again once it ends), or lost every
						// chip. The table's stack decides (TR-17); the
						// add-on is asked again on a later read.
						continue
					}
					// Not open yet where the table has not played its last
					// rebuy hand (TR-16, TR-17); closed at the window's end.
					if e.Reason != "ADD_ON_NOT_OPEN" && e.Reason != "ADD_ON_CLOSED" {
						t.Fatalf("%s's add-on at stack %d: %d %s", p, chips, code, body)
					}
					addOnClosed = e.Reason == "ADD_ON_CLOSED"
				}
			}
		}
	}

	// Late registration (G-23): every late entrant asks at once after the
	// start, each in a request of their own, while the bots play. An entry
	// is taken while registration is open; one refused REGISTRATION_CLOSED
	// must have been answered after the close the event names (its
	// closed_at), so however slowly the machine seats them, the test
	// checks the rule rather than a speed.
	type lateAnswer struct {
		player string
		code   int
		body   []byte
		at     time.Time
	}
	lateAnswers := make(chan lateAnswer, ev.late)
	lateAsked := time.Since(clockStart) // for the message if none is taken
	lateInFlight = true
	for _, p := range players[ev.early:] {
		go func() {
			code, body, err := c.gateway.requestErr("POST", "/v1/tournaments/"+id+"/entries", r.tokens[p], map[string]any{"player_id": p})
			if err != nil {
				code, body = 0, []byte(err.Error())
			}
			lateAnswers <- lateAnswer{player: p, code: code, body: body, at: time.Now()}
		}()
	}
	late, lateAnswered := 0, 0
	lateAnswer1 := func(a lateAnswer) {
		t.Helper()
		lateAnswered++
		if a.code == http.StatusOK {
			var out struct {
				Entry struct {
					Status string `json:"status"`
				}
			}
			if err := json.Unmarshal(a.body, &out); err != nil || out.Entry.Status != "ENTRY_STATUS_ACTIVE" {
				t.Fatalf("%s's late entry: %s", a.player, a.body)
			}
			late++
			entries++
			return
		}
		var e apiError
		_ = json.Unmarshal(a.body, &e)
		closed, err := time.Parse(time.RFC3339, e.Metadata["closed_at"])
		if a.code != http.StatusBadRequest || e.Reason != "REGISTRATION_CLOSED" || err != nil {
			t.Fatalf("%s's late entry: %d %s", a.player, a.code, a.body)
		}
		// closed_at is to the second, rounded down: the answer came after it.
		if a.at.Before(closed) {
			t.Fatalf("%s's late entry refused at %s, before registration closed at %s: %s", a.player, a.at.Format(time.StampMilli), closed, a.body)
		}
	}

	bot := pushFold(rand.New(rand.NewPCG(1, 2)))
	deadline := time.Now().Add(8 * time.Minute)
	// The bots play as fast as the tables deal: when nobody could act,
	// the loop waits for the next tick.
	pace := time.NewTicker(20 * time.Millisecond)
	defer pace.Stop()
	actions, chipChecks := 0, 0
	for round := 0; ; round++ {
		if time.Now().After(deadline) {
			t.Fatalf("no winner after %d actions", actions)
		}
		for lateInFlight {
			select {
			case a := <-lateAnswers:
				lateAnswer1(a)
				if lateAnswered == ev.late {
					lateInFlight = false
					count(fmt.Sprintf("after %d of %d late entrants registered", late, ev.late))
					tables = tournamentTablesOf(t, r, id)
				}
				continue
			default:
			}
			break
		}
		if round%2 == 0 && !addOnClosed {
			money(phase())
		}
		if round%20 == 0 {
			var got struct {
				Tournament struct {
					State     string `json:"state"`
					ChipCheck *struct {
						Issued   int64     `json:"chips_issued,string"`
						Counted  int64     `json:"chips_counted,string"`
						Mismatch int64     `json:"mismatch,string"`
						At       time.Time `json:"counted_at"`
					} `json:"chip_check"`
				}
			}
			r.must("GET", "/v1/tournaments/"+id, r.floor, nil, &got)
			if got.Tournament.State != "TOURNAMENT_STATE_RUNNING" {
				break
			}
			tables = tournamentTablesOf(t, r, id)
			count(fmt.Sprintf("after %d actions", actions))
			if cc := got.Tournament.ChipCheck; cc != nil {
				if cc.Counted != cc.Issued || cc.Mismatch != 0 || cc.At.IsZero() {
					t.Fatalf("after %d actions: status chip check %+v", actions, *cc)
				}
				chipChecks++
			}
			r.auditClean(fmt.Sprintf("during the rebuy event, after %d actions", actions))
		}
		var acted bool
		if acted, _ = r.actAt(tables, bot, &actions); !acted {
			<-pace.C // the next hand is dealt when the director has handled the last
		}
	}
	for lateInFlight {
		lateAnswer1(<-lateAnswers)
		lateInFlight = lateAnswered < ev.late
	}
	// The late entrants ask seconds inside the window (the start answers
	// within it even on a loaded machine): none taken means late
	// registration did not work.
	if late == 0 {
		t.Fatalf("none of %d late entrants registered while late registration was open (%s from the start, asked %s after the seat draw)",
			ev.late, ev.lateReg, lateAsked.Round(time.Millisecond))
	}
	if !typedIn {
		t.Error("TR-15: no rebuy was asked with a stack the table does not hold")
	}
	if len(rebuys) == 0 || len(addOns) == 0 {
		t.Fatalf("rebuys %v (%d asked), add-ons %d (%d asked, %d at the break)", rebuys, rebuyAsked, len(addOns), addOnAsked, addOnsAtBreak)
	}
	// When the director played hand for hand (G-26, G-39): checked below,
	// against the hands that knocked out the players on the bubble.
	var audit struct {
		Records []struct {
			Action string    `json:"action"`
			At     time.Time `json:"create_time"`
			Detail string    `json:"detail_json"`
		}
	}
	r.must("GET", "/v1/tournaments/"+id+"/audit", r.floor, nil, &audit)
	var h4hOn, h4hOff time.Time
	h4hAt := -1 // the players left when it started
	for _, rec := range audit.Records {
		switch rec.Action {
		case "hand_for_hand_on":
			h4hOn = rec.At
			var on struct {
				PlayersLeft int `json:"players_left"`
			}
			if err := json.Unmarshal([]byte(rec.Detail), &on); err != nil {
				t.Fatal(err)
			}
			h4hAt = on.PlayersLeft
		case "hand_for_hand_off":
			h4hOff = rec.At
		}
	}
	if h4hOff.IsZero() {
		h4hOff = time.Now()
	}

	n := ev.early + late
	var results struct {
		Finishes []finish
		Prizes   []struct {
			Amount int64  `json:"amount,string"`
			State  string `json:"state"`
		}
	}
	waitFor(t, "every prize paid", 30*time.Second, func() bool {
		r.must("GET", "/v1/tournaments/"+id+"/results", r.floor, nil, &results)
		for _, p := range results.Prizes {
			if p.State != "PRIZE_STATE_PAID" {
				return false
			}
		}
		return len(results.Finishes) == n && len(results.Prizes) > 0
	})
	nRebuys := 0
	for _, k := range rebuys {
		nRebuys += k
	}
	var payouts struct {
		Pool   int64    `json:"prize_pool,string"`
		Prizes []string `json:"prizes"` // each place's prize: the places paid
	}
	r.must("GET", "/v1/tournaments/"+id+"/payouts", r.floor, nil, &payouts)
	var paid int64
	for _, p := range results.Prizes {
		paid += p.Amount
	}
	if pool := int64(n+nRebuys+len(addOns)) * 1000; paid != payouts.Pool || payouts.Pool != pool {
		t.Fatalf("prizes paid %d, pool %d; %d entries, %d rebuys and %d add-ons make %d", paid, payouts.Pool, n, nRebuys, len(addOns), pool)
	}
	count("at the end")

	// The books agree with the cage: every entry's stack, rebuys and add-on.
	var listed struct {
		Entries []struct {
			PlayerID  string `json:"player_id"`
			Rebuys    int    `json:"rebuys"`
			AddOn     bool   `json:"add_on"`
			Reentries int    `json:"reentries"`
		}
	}
	r.must("GET", "/v1/tournaments/"+id+"/entries", r.floor, nil, &listed)
	var books int64
	for _, en := range listed.Entries {
		books += int64(1+en.Reentries)*stack + int64(en.Rebuys)*rebuyChips
		if en.AddOn {
			books += addOnChips
		}
		if en.Rebuys != rebuys[en.PlayerID] || en.AddOn != addOns[en.PlayerID] {
			t.Errorf("%s: the books have %d rebuys and add-on %v, the cage paid %d and %v", en.PlayerID, en.Rebuys, en.AddOn,
				rebuys[en.PlayerID], addOns[en.PlayerID])
		}
	}
	if len(listed.Entries) != n || books != issued() {
		t.Errorf("the books list %d entries worth %d chips; %d entered, %d issued", len(listed.Entries), books, n, issued())
	}
	var status struct {
		Tournament struct {
			StuckSteps []map[string]any `json:"stuck_steps"`
		}
	}
	r.must("GET", "/v1/tournaments/"+id, r.floor, nil, &status)
	if len(status.Tournament.StuckSteps) != 0 {
		t.Errorf("director steps left stuck: %v", status.Tournament.StuckSteps)
	}
	if chipChecks == 0 {
		t.Fatal("the status never showed the director's chip count while the event ran")
	}
	// The director counted after every hand: none differed.
	if v, _ := c.others[1].scrape().sum("cardroom_chips_mismatches_total", `cardroom_chips_scope="tournament"`); v != 0 {
		t.Errorf("the director's chip count after a hand differed %v times", v)
	}
	r.auditClean("after the rebuy event")

	tables = tournamentTablesOf(t, r, id)
	hands := handsOf(svc, t, tc, tables)
	checkLevels(t, hands, clockStart, ev.sheet)
	stood, byClock := checkBubble(t, hands, results.Finishes, len(payouts.Prizes), regCloses, h4hOn, h4hAt)
	rounds, h4hHands := 0, 0
	if !h4hOn.IsZero() {
		rounds = checkHandForHand(t, hands, h4hOn, h4hOff)
		// The round hands: those that ended while it was on (a round that
		// bursts the bubble, or leaves the final table, may be the only
		// one: its hands are checked against those in play at the start).
		for _, hs := range hands {
			for _, h := range hs {
				if end := h.GetEndTime().AsTime(); end.After(h4hOn) && !end.After(h4hOff) {
					h4hHands++
				}
			}
		}
	}
	balancing, breaking := checkMoves(svc, t, r, id, tc, hands)
	total := 0
	for _, hs := range hands {
		total += len(hs)
	}
	t.Logf("%d entrants (%d late), %d rebuys, %d add-ons (%d at the break); %d hands, %d actions, %d hands in hand-for-hand (%d checked against the others), %d balancing moves, %d moves breaking tables; %s",
		n, late, nRebuys, len(addOns), addOnsAtBreak, total, actions, h4hHands, rounds, balancing, breaking, time.Since(began).Round(time.Second))
	if stood && !h4hOn.IsZero() && h4hHands == 0 && !byClock {
		t.Error("G-26: hand-for-hand started and no hand was played in it")
	}
}

// finish is a player's place in the results: players given the same
// place share it, knocked out in one step (TR-37).
type finish struct {
	PlayerID string `json:"player_id"`
	Place    int    `json:"place"`
}

// checkBubble checks when the director went hand for hand by itself
// (G-39): exactly when the field stood, between hands, at one more than
// the places paid once late registration had closed (at closes, G-23) —
// that is, unless the step that took the field below paid+2 also took it
// to paid or below (two or more out in one hand, placed by TR-37), which
// leaves no bubble hand to play, or the field stood there only while
// registration was open: while entries still come in there is no bubble,
// and a field that went below paid+1 before the close never stood on one
// (G-39, G-23). Hand-for-hand never starts before the close. The field is
// followed step by step in the order of the places (the last out is
// placed best): a step is the players out in one hand, its knock-out hand
// being the last hand that dealt them in, or placed together — players
// out at different tables in one hand-for-hand round, and players held
// for a rebuy knocked out together by the clock once their tables could
// no longer deal (G-42), long after the hands that left them without
// chips. Thirteen players or more sit at two tables of nine at least. It
// reports whether the field stood on the bubble, and whether the step that
// took it off the bubble was the clock's (G-42): players held at tables
// that could not deal, none dealt in a hand since hand for hand started,
// so its round ended with no hand played (G-39).
func checkBubble(t *testing.T, hands map[string][]*tablev1.HandEnded, finishes []finish, paid int, closes, on time.Time, at int) (bool, bool) {
	t.Helper()
	if paid < 9 {
		t.Fatalf("%d places paid", paid)
	}
	lastHand := func(p string) (string, time.Time) {
		var last *tablev1.HandEnded
		for _, hs := range hands {
			for _, h := range hs {
				if slices.ContainsFunc(h.GetStacks(), func(s *tablev1.SeatStack) bool { return s.GetPlayerId() == p }) &&
					(last == nil || h.GetEndTime().AsTime().After(last.GetEndTime().AsTime())) {
					last = h
				}
			}
		}
		if last == nil {
			t.Fatalf("%s was dealt no hand", p)
		}
		return fmt.Sprintf("hand %d at %s", last.GetHandNo(), last.GetTableId()), last.GetEndTime().AsTime()
	}
	type step struct {
		hands   []string
		place   int // the best place in the step
		players []string
		last    time.Time // when the last of its hands ended
	}
	var steps []*step
	byPlace := slices.Clone(finishes)
	slices.SortStableFunc(byPlace, func(a, b finish) int { return b.Place - a.Place })
	for _, f := range byPlace {
		if f.Place == 1 {
			continue // the winner
		}
		hand, end := lastHand(f.PlayerID)
		// Out in the same hand: placed next to each other (TR-37 orders them
		// by their stacks). A player held for a rebuy whose last hand it was
		// and whom the clock knocked out later (G-42) is placed far above,
		// with the others of that later step: not this hand's.
		if n := len(steps); n > 0 && (steps[n-1].place == f.Place || (f.Place == steps[n-1].place-1 && slices.Contains(steps[n-1].hands, hand))) {
			s := steps[n-1]
			s.place, s.players, s.last = f.Place, append(s.players, f.PlayerID), latest(s.last, end)
			if !slices.Contains(s.hands, hand) {
				s.hands = append(s.hands, hand)
			}
			continue
		}
		steps = append(steps, &step{hands: []string{hand}, place: f.Place, players: []string{f.PlayerID}, last: end})
	}
	// The field stood on the bubble from the end of the step that took it
	// to paid+1 until the next step's hands ended. A stand that ended
	// before registration closed was no bubble (G-23): the hand that ended
	// it may have been handled after the close, though, when the director
	// reads the field as it last stood between hands (G-39, G-42) and may
	// start hand-for-hand; one that lasted to the close or later is the
	// bubble. (A step the clock made, G-42, is dated by its players' last
	// hands: it may have come later.)
	left, stood, passed, byClock, during := len(finishes), "", "", false, ""
	for _, s := range steps {
		before := left
		if before == paid+1 {
			byClock = !on.IsZero() && s.last.Before(on)
			if s.last.Before(closes) {
				during, stood = stood, ""
			}
		}
		left = s.place - 1
		what := s.hands[0]
		if len(s.hands) > 1 {
			what = fmt.Sprintf("%d players placed together (last dealt in %v)", len(s.players), s.hands)
		}
		switch {
		case left == paid+1:
			stood = fmt.Sprintf("%s ended %s (%v out)", what, s.last.Format(time.StampMilli), s.players)
		case before > paid+1 && left <= paid:
			passed = fmt.Sprintf("%s took the field from %d to %d (%v out)", what, before, left, s.players)
		}
	}
	if !on.IsZero() && on.Before(closes) {
		t.Errorf("G-39, G-23: hand for hand started at %s, %s before late registration closed", on.Format(time.StampMilli), closes.Sub(on))
	}
	switch {
	case stood != "" && on.IsZero():
		t.Errorf("G-39: the field stood at %d with %d places paid after %s and the event never went hand for hand", paid+1, paid, stood)
	case stood == "" && during == "" && !on.IsZero():
		t.Errorf("G-39: hand for hand at %d players left, but the field never stood at %d: %s", at, paid+1, passed)
	case !on.IsZero() && at != paid+1:
		t.Errorf("G-39: hand for hand started at %d players left, want %d (after %s%s)", at, paid+1, stood, during)
	}
	if during != "" {
		t.Logf("G-23: the field stood at %d with %d places paid only while late registration was open, after %s: no bubble", paid+1, paid, during)
	}
	t.Logf("the bubble (%d places paid, registration closed %s): stood after %q, passed in one hand: %q; hand for hand from %s (%d left)",
		paid, closes.Format(time.StampMilli), stood, passed, on.Format(time.StampMilli), at)
	return stood != "" || !on.IsZero(), byClock
}

// latest is the later of two times.
func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// checkHandForHand checks that while hand for hand (from on to off) the
// tables dealt together (G-26): a table's first hand in it started only
// once every hand begun at another table before hand for hand started had
// ended (every table finishes the hand it is playing and waits), and a
// later one only once every hand another table had begun before the
// table's last one ended was over. A bubble that bursts in the first
// round leaves only first hands to check. It returns how many hands it
// checked.
func checkHandForHand(t *testing.T, hands map[string][]*tablev1.HandEnded, on, off time.Time) int {
	t.Helper()
	checked := 0
	for a, hs := range hands {
		for i, h := range hs {
			start := h.GetStartTime().AsTime()
			if start.Before(on) || !start.Before(off) {
				continue
			}
			// The other tables' hands that must be over before h starts:
			// begun in [from, until).
			from, until, what := time.Time{}, on, "before hand for hand started"
			if i > 0 && !hs[i-1].GetStartTime().AsTime().Before(on) {
				from, until, what = on, hs[i-1].GetEndTime().AsTime(), fmt.Sprintf("before hand %d there ended", hs[i-1].GetHandNo())
			}
			checked++
			for b, others := range hands {
				if b == a {
					continue
				}
				for _, x := range others {
					xs := x.GetStartTime().AsTime()
					if xs.Before(from) || !xs.Before(until) {
						continue
					}
					if x.GetEndTime().AsTime().After(start) {
						t.Errorf("G-26 hand for hand: hand %d at %s started while hand %d at %s, begun %s, was still on",
							h.GetHandNo(), a, x.GetHandNo(), b, what)
					}
				}
			}
		}
	}
	return checked
}

// requestErr is request for another goroutine than the test's: it
// returns what fails instead of failing the test.
func (s *suite) requestErr(method, path, token string, body any) (int, []byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return 0, nil, err
	}
	req, err := http.NewRequest(method, s.base+path, bytes.NewReader(b))
	if err != nil {
		return 0, nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp.StatusCode, raw, err
}
