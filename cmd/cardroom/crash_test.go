package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"syscall"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/testkit"
)

// crashSeed seeds the decks of both runs of the crash test.
const crashSeed = 11

// crashPlayers sit in seats 1–3 with different stacks, so the all-in on
// the turn makes a side pot.
var crashPlayers = []struct {
	name  string
	buyIn int64
}{{"ann", 10000}, {"bob", 7000}, {"cat", 5000}}

// crashScript is hand 2, three-handed, action by action: a raise and two
// calls; a check, a bet and two calls on the flop; then on the turn a
// check, a check, a bet, an all-in and calls; whatever is left is checked
// down. The process is killed after killAfter of these actions.
var crashScript = []plan{
	betTo(300), checkDown, checkDown, // preflop
	checkDown, betTo(600), checkDown, checkDown, // flop
	checkDown, checkDown, betTo(1200), shove, checkDown, checkDown, // turn
}

const killAfter = 8 // the flop's action is closed, the turn dealt, one check made

// betTo bets or raises to amount (the round total).
func betTo(amount int64) plan {
	return func(st tableState, seat int) move {
		for _, k := range []string{"ACTION_KIND_RAISE", "ACTION_KIND_BET"} {
			if l, ok := legalOf(st, k); ok {
				return move{kind: k, amount: min(max(amount, l.Min), l.Max)}
			}
		}
		return checkDown(st, seat)
	}
}

// crashResult is what a run ends with.
type crashResult struct {
	hand     history          // hand 2 as the floor reads it, table id cleared
	wallets  map[string]int64 // every player's wallet after the table closed
	restarts time.Duration    // how long the killed run waited for its table
}

// TestCrashMidHand kills `cardroom all` (SIGKILL) in the middle of a hand,
// on Redis + PostgreSQL and on embedded SQLite, and starts it again on the
// same data. The hand
// goes on from its stored state (same sequence, board, stacks, hole cards
// and player in turn) and ends exactly as an uninterrupted run of the same
// seed and actions (on embedded SQLite) ends it: the same events, cards,
// pots and stacks, the same wallets after cash-out, a clean wallet audit
// and every chip accounted for at each step. The decks come from a stream
// that restarts with the process, so a reshuffle on recovery would deal
// the second hand from the first hand's deck and the histories would differ.
func TestCrashMidHand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	var ref, killedSQL, killedPG crashResult
	t.Run("runs", func(t *testing.T) {
		t.Run("uninterrupted/embedded", func(t *testing.T) {
			t.Parallel()
			ref = crashRun(t, newSeededSuite(t, crashSeed), false)
		})
		t.Run("killed/embedded", func(t *testing.T) {
			t.Parallel()
			killedSQL = crashRun(t, newSeededSuite(t, crashSeed), true)
		})
		t.Run("killed/redis+postgres", func(t *testing.T) {
			t.Parallel()
			killedPG = crashRun(t, newSeededSuite(t, crashSeed,
				"REDIS_URL="+testkit.RedisURL(t),
				"CARDROOM_REDIS_PREFIX="+testkit.RedisPrefix(t),
				"DATABASE_URL="+postgresDatabase(t),
			), true)
		})
	})
	if t.Failed() {
		return
	}
	if !ref.hand.sidePots() || ref.hand.allIns() == 0 || len(ref.hand.board()) != 5 {
		t.Fatalf("hand 2 was meant to end in a showdown with an all-in and a side pot: %+v", ref.hand)
	}
	for name, killed := range map[string]crashResult{"embedded": killedSQL, "redis+postgres": killedPG} {
		if !reflect.DeepEqual(ref.hand, killed.hand) {
			a, _ := json.Marshal(ref.hand)
			b, _ := json.Marshal(killed.hand)
			t.Fatalf("the killed %s run's hand differs from the uninterrupted run's:\nuninterrupted %s\nkilled        %s", name, a, b)
		}
		if !reflect.DeepEqual(ref.wallets, killed.wallets) {
			t.Fatalf("wallets after the night: uninterrupted %v, killed %s run %v", ref.wallets, name, killed.wallets)
		}
		t.Logf("killed %s run: hand 2 identical (%d events, %d pots), wallets %v; the restarted process served the table after %s",
			name, len(ref.hand.Events), len(ref.hand.Pots), ref.wallets, killed.restarts.Round(time.Millisecond))
	}
}

func crashRun(t *testing.T, s *suite, kill bool) crashResult {
	s.start()
	names := make([]string, len(crashPlayers))
	for i, p := range crashPlayers {
		names[i] = p.name
	}
	r := newRoom(t, s, names...)
	for _, p := range crashPlayers {
		r.deposit(p.name, 20000)
	}
	table := r.createTable("Crash", 6)
	for i, p := range crashPlayers {
		// The floor seats players directly (no offer needed).
		r.must("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": i + 1, "player_id": p.name,
			"amount": p.buyIn, "post_now": true}, nil)
	}
	if no := r.playHand(table, checkDown); no != 1 {
		t.Fatalf("played hand %d first", no)
	}
	st := r.waitHand(table)
	// The floor's console sees what the seat in turn may do.
	if st.Hand.HandNo != 2 || len(st.Hand.Legal) == 0 {
		t.Fatalf("hand 2 not under way: %+v", st.Hand)
	}
	for _, s := range st.Seats[1:4] {
		if !s.InHand {
			t.Fatalf("hand 2 is not three-handed: %+v", st.Seats)
		}
	}
	step := 0
	next := func() {
		t.Helper()
		p := plan(checkDown)
		if step < len(crashScript) {
			p = crashScript[step]
		}
		r.act(table, p)
		step++
	}
	for step < killAfter {
		next()
	}
	r.checkChips("mid-hand")
	before := r.state(table, r.floor)
	if !before.live() || before.Hand.HandNo != 2 || before.Hand.Street != "turn" {
		t.Fatalf("not mid-hand on the turn before the kill: %+v", before.Hand)
	}
	own := map[string][]string{}
	for _, p := range names {
		v := r.state(table, r.tokens[p])
		own[p] = v.Seats[v.ViewerSeat].Cards
	}

	var res crashResult
	if kill {
		if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		if err := <-s.waitErr; err == nil {
			t.Fatal("cardroom all exited cleanly on SIGKILL")
		}
		started := time.Now()
		s.start()
		// A lease of the killed process may still hold the table in Redis
		// until it expires: the table answers once this process owns it.
		waitFor(t, "the restarted suite serving the table", 30*time.Second, func() bool {
			code, _ := r.do("GET", "/v1/tables/"+table+"/state", r.floor, nil)
			return code == http.StatusOK
		})
		res.restarts = time.Since(started)
		after := r.state(table, r.floor)
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("the table after the restart differs:\nbefore %+v %+v\nafter  %+v %+v", before, *before.Hand, after, *after.Hand)
		}
		for _, p := range names {
			v := r.state(table, r.tokens[p])
			if got := v.Seats[v.ViewerSeat].Cards; fmt.Sprint(got) != fmt.Sprint(own[p]) || hidden(got) {
				t.Fatalf("%s's hole cards after the restart: %v, before %v", p, got, own[p])
			}
		}
		r.checkChips("after the restart")
		r.auditClean("after the restart")
	}

	// Closing time, then the rest of the hand: everyone is cashed out at its end.
	r.must("POST", "/v1/tables/"+table+":close", r.floor, map[string]any{}, nil)
	for r.state(table, r.floor).live() {
		next()
	}
	res.hand = r.history(table, 2)
	res.hand.TableID = ""
	res.wallets = map[string]int64{}
	for _, p := range names {
		res.wallets[p] = r.balance("player:" + p + ":EUR")
	}
	r.checkChips("closed")
	r.auditClean("closed")
	s.stop()
	return res
}
