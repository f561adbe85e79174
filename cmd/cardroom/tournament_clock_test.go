package main

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
)

// clockShown is the tournament clock as REST shows it.
type clockShown struct {
	Index int `json:"level_index"`
	Level struct {
		BigBlind int64 `json:"big_blind,string"`
		Break    bool  `json:"break"`
	} `json:"level"`
	Remaining string `json:"remaining"`
}

func (c clockShown) left(t *testing.T) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(c.Remaining)
	if err != nil {
		t.Fatalf("clock remaining %q: %v", c.Remaining, err)
	}
	return d
}

// TestTournamentClockControl_TR20_G07: the floor's clock control reaches
// the tables, over REST on a cluster (every part its own process). With
// two tables in play the floor goes to a level, skips one back, adds and
// removes time and starts a break now; each change is audited with who
// made it and why. The bots hold still while the floor acts (every table
// waiting on a player), so the next hand at every table is the first one
// dealt after the change, and it plays the level the clock then shows
// (TR-20, G-07); the break lets the hands in play finish and deals none
// until it is over, when the level in force before it resumes.
func TestTournamentClockControl_TR20_G07(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every part of the suite in its own process")
	}
	t.Parallel()
	c := newCluster(t, clusterOptions{tables: 1, bin: seededBinary, env: []string{"CARDROOM_TEST_DECK_SEED=20261220",
		"CARDROOM_TABLE_HAND_PAUSE=0s", "CARDROOM_TABLE_ACTION_TIMEOUT=120s"}})
	var players []string
	for i := range 12 {
		players = append(players, fmt.Sprintf("c%02d", i+1))
	}
	r := newRoom(t, c.gateway, players...)
	for _, p := range players {
		r.deposit(p, 10000)
	}
	sheet := []map[string]any{
		{"small_blind": 25, "big_blind": 50, "duration": "600s"},
		{"small_blind": 50, "big_blind": 100, "duration": "600s"},
		{"small_blind": 100, "big_blind": 200, "duration": "600s"},
		{"small_blind": 200, "big_blind": 400, "duration": "600s"},
	}
	var created struct {
		Tournament struct {
			ID string `json:"tournament_id"`
		}
	}
	r.must("POST", "/v1/tournaments", r.floor, map[string]any{"name": "Clock Control", "variant": "VARIANT_HOLDEM",
		"structure": "STRUCTURE_NO_LIMIT", "currency": "EUR", "buy_in": 1000, "fee": 100, "starting_stack": 10000,
		"start_time": time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano), "levels": sheet, "seats_per_table": 6,
		"payouts": map[string]any{"unit": 100, "tiers": []any{map[string]any{"shares": []int{6000, 4000}}}}}, &created)
	id := created.Tournament.ID
	base := "/v1/tournaments/" + id
	for _, p := range players {
		r.must("POST", base+"/entries", r.tokens[p], map[string]any{"player_id": p}, nil)
	}
	r.startTournament(id)
	tables := tournamentTablesOf(t, r, id)
	if len(tables) != 2 {
		t.Fatalf("tables for 12 entrants at six seats: %v", tables)
	}
	tc, svc := tournamentTables(t, c.tables[0].grpcAddr(), c.gateway.token("cardroom-tournament", "service"))

	// The bots fold to the big blind: the stacks dwarf the blinds, so
	// nobody goes out and the two tables stay as drawn.
	fold := func(st tableState, _ int) move {
		if _, ok := legalOf(st, "ACTION_KIND_CHECK"); ok {
			return move{kind: "ACTION_KIND_CHECK"}
		}
		return move{kind: "ACTION_KIND_FOLD"}
	}
	actions := 0
	// waiting returns each table's hand in play once every table is in a
	// hand waiting on a player: no hand can start until a bot acts.
	waiting := func() map[string]int64 {
		t.Helper()
		out := map[string]int64{}
		waitFor(t, "every table waiting on a player", time.Minute, func() bool {
			for _, tb := range tables {
				st := r.state(tb, r.floor)
				if !st.live() || st.Hand.ToAct < 0 {
					return false
				}
				out[tb] = st.Hand.HandNo
			}
			return true
		})
		return out
	}
	// playTo has the bots play until every table has finished hand no+1.
	playTo := func(what string, in map[string]int64) {
		t.Helper()
		waitFor(t, what, 2*time.Minute, func() bool {
			done := true
			for _, tb := range tables {
				st := r.state(tb, r.floor)
				if st.Hand == nil || st.Hand.HandNo < in[tb]+2 {
					done = false
				}
			}
			if !done {
				r.actAt(tables, fold, &actions)
			}
			return done
		})
	}
	// firstAfter checks the first hand each table dealt after a change:
	// it played the row the clock showed (TR-20).
	firstAfter := func(what string, in map[string]int64, clock clockShown) map[string]*tablev1.HandEnded {
		t.Helper()
		out := map[string]*tablev1.HandEnded{}
		for tb, hs := range handsOf(svc, t, tc, tables) {
			for _, h := range hs {
				if h.GetHandNo() != in[tb]+1 {
					continue
				}
				out[tb] = h
				if int(h.GetLevel()) != clock.Index+1 || h.GetStakes().GetBigBlind() != clock.Level.BigBlind {
					t.Errorf("%s: hand %d at %s played level %d, big blind %d; the clock shows row %d, big blind %d",
						what, h.GetHandNo(), tb, h.GetLevel(), h.GetStakes().GetBigBlind(), clock.Index+1, clock.Level.BigBlind)
				}
			}
		}
		if len(out) != len(tables) {
			t.Fatalf("%s: first hands after it %v", what, out)
		}
		return out
	}
	control := func(verb string, body map[string]any) clockShown {
		t.Helper()
		var resp struct {
			Clock clockShown `json:"clock"`
		}
		r.must("POST", base+"/clock:"+verb, r.floor, body, &resp)
		return resp.Clock
	}
	var clock clockShown
	r.must("GET", base+"/clock", r.floor, nil, &clock)
	if clock.Index != 0 || clock.Level.BigBlind != 50 {
		t.Fatalf("clock at the start %+v", clock)
	}

	// A level change starts its row full length; time added or removed
	// moves what is left of the row in force by as much.
	steps := []struct {
		verb  string
		body  map[string]any
		index int
		bb    int64
		delta time.Duration // 0: a new row, full length
	}{
		{"setLevel", map[string]any{"level_index": 2, "reason": "running behind the schedule"}, 2, 200, 0},
		{"setLevel", map[string]any{"skip": -1, "reason": "one level too far"}, 1, 100, 0},
		{"addTime", map[string]any{"delta": "300s", "reason": "late start"}, 1, 100, 300 * time.Second},
		{"addTime", map[string]any{"delta": "-120s", "reason": "too generous"}, 1, 100, -120 * time.Second},
	}
	for _, s := range steps {
		in := waiting()
		var before clockShown
		r.must("GET", base+"/clock", r.floor, nil, &before)
		clock = control(s.verb, s.body)
		want := 600 * time.Second
		if s.delta != 0 {
			want = before.left(t) + s.delta
		}
		// The seconds between the two reads pass on the clock.
		if left := clock.left(t); clock.Index != s.index || clock.Level.BigBlind != s.bb || left > want || left < want-10*time.Second {
			t.Fatalf("%s %v: clock %+v, want row %d, big blind %d, about %s left", s.verb, s.body, clock, s.index, s.bb, want)
		}
		playTo(s.verb, in)
		firstAfter(fmt.Sprintf("%s %v", s.verb, s.body), in, clock)
	}

	// A break now: the hands in play finish, none starts in the break,
	// and the level in force before it resumes after it.
	in := waiting()
	breakStart := time.Now()
	brk := control("startBreak", map[string]any{"duration": "8s", "reason": "dinner"})
	if !brk.Level.Break || brk.left(t) > 8*time.Second {
		t.Fatalf("break now: clock %+v", brk)
	}
	playTo("the first hands after the break", in)
	r.must("GET", base+"/clock", r.floor, nil, &clock)
	if clock.Level.Break || clock.Level.BigBlind != 100 {
		t.Fatalf("after the break: clock %+v", clock)
	}
	for tb, h := range firstAfter("after the break", in, clock) {
		if start := h.GetStartTime().AsTime(); start.Before(breakStart.Add(8 * time.Second)) {
			t.Errorf("hand %d at %s started %s after the break began, in its 8s", h.GetHandNo(), tb, start.Sub(breakStart))
		}
	}

	// Each change is audited with who made it and why.
	var audit struct {
		Records []struct {
			Action string `json:"action"`
			Actor  string `json:"actor"`
			Detail string `json:"detail_json"`
		}
	}
	r.must("GET", base+"/audit", r.floor, nil, &audit)
	var reasons []string
	for _, rec := range audit.Records {
		switch rec.Action {
		case "clock_set_level", "clock_add_time", "clock_start_break":
		default:
			continue
		}
		var d struct {
			Reason string `json:"reason"`
		}
		if err := json.Unmarshal([]byte(rec.Detail), &d); err != nil {
			t.Fatal(err)
		}
		if rec.Actor != "floor-anna" {
			t.Errorf("%s by %q", rec.Action, rec.Actor)
		}
		reasons = append(reasons, rec.Action+": "+d.Reason)
	}
	want := []string{"clock_set_level: running behind the schedule", "clock_set_level: one level too far",
		"clock_add_time: late start", "clock_add_time: too generous", "clock_start_break: dinner"}
	if fmt.Sprint(reasons) != fmt.Sprint(want) {
		t.Fatalf("clock audit %q, want %q", reasons, want)
	}
	t.Logf("%d bot actions", actions)
}
