package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
)

// TestTournamentFlightsIntoDay2_G34_TR06: a multi-day event on a cluster
// (every part its own process), over REST. Day 1A and Day 1B are played
// at the same time by bots until their stop (the start of their second
// level): the tables deal no more hands and the survivors' stacks are
// bagged. One player plays and survives both flights; the house
// policy keeps the larger bag (G-34). Checked: each flight's bags hold
// every chip it issued; the Day 2's bags list both flights with the
// survivor's larger bag carried; the Day 2 field is the carried bags, one
// entry each, seated by a new seat draw (TR-06) with exactly the chips
// carried (the tables hold the carried total and each player their bag);
// its prize pool is both flights' pools; the ledger audit is clean.
func TestTournamentFlightsIntoDay2_G34_TR06(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every part of the suite in its own process")
	}
	t.Parallel()
	c := newCluster(t, clusterOptions{tables: 1, bin: seededBinary, env: []string{"CARDROOM_TEST_DECK_SEED=20261233",
		"CARDROOM_TABLE_HAND_PAUSE=0s", "CARDROOM_TABLE_ACTION_TIMEOUT=10s"}})
	const both = "fboth"
	flightPlayers := map[string][]string{"A": {both}, "B": {both}}
	all := []string{both}
	for _, f := range []string{"A", "B"} {
		for i := range 8 {
			p := fmt.Sprintf("f%s%d", f, i+1)
			flightPlayers[f] = append(flightPlayers[f], p)
			all = append(all, p)
		}
	}
	r := newRoom(t, c.gateway, all...)
	for _, p := range all {
		r.deposit(p, 10000)
	}
	const buyIn, fee, stack = 1000, 100, 2000
	create := func(name string, start time.Time, extra map[string]any) string {
		t.Helper()
		body := map[string]any{"name": name, "variant": "VARIANT_HOLDEM", "structure": "STRUCTURE_NO_LIMIT", "currency": "EUR",
			"buy_in": buyIn, "fee": fee, "starting_stack": stack, "start_time": start.UTC().Format(time.RFC3339Nano), "seats_per_table": 9,
			"levels": []map[string]any{{"small_blind": 25, "big_blind": 50, "duration": "20s"},
				{"small_blind": 50, "big_blind": 100, "duration": "600s"}},
			"payouts": map[string]any{"unit": 100, "tiers": []any{map[string]any{"shares": []int{6000, 4000}}}}}
		for k, v := range extra {
			body[k] = v
		}
		var created struct {
			Tournament struct {
				ID string `json:"tournament_id"`
			}
		}
		r.must("POST", "/v1/tournaments", r.floor, body, &created)
		return created.Tournament.ID
	}
	day2 := create("Main Event Day 2", time.Now().Add(3*time.Hour), map[string]any{"day2": map[string]any{"survivors": "SURVIVOR_POLICY_KEEP_LARGER"}})
	flights := map[string]string{}
	for _, f := range []string{"A", "B"} {
		flights[f] = create("Main Event Day 1"+f, time.Now().Add(time.Hour),
			map[string]any{"flight": map[string]any{"day2_tournament_id": day2, "stop_level_index": 1, "stop_players": 2}})
		for _, p := range flightPlayers[f] {
			r.must("POST", "/v1/tournaments/"+flights[f]+"/entries", r.tokens[p], map[string]any{"player_id": p}, nil)
		}
	}
	for _, f := range []string{"A", "B"} {
		r.startTournament(flights[f])
	}

	// The bots play push-fold; the player in both flights folds to the
	// big blind, so survives both days with a stack of their own.
	rng := rand.New(rand.NewPCG(33, 34))
	push := pushFold(rng)
	bot := func(st tableState, seat int) move {
		if st.Seats[seat].PlayerID == both {
			if _, ok := legalOf(st, "ACTION_KIND_CHECK"); ok {
				return move{kind: "ACTION_KIND_CHECK"}
			}
			return move{kind: "ACTION_KIND_FOLD"}
		}
		return push(st, seat)
	}
	actions := 0
	waitFor(t, "both flights bagged", 3*time.Minute, func() bool {
		done := true
		for _, id := range flights {
			done = done && r.tournamentState(id) == "TOURNAMENT_STATE_FINISHED"
		}
		if !done {
			var tables []string
			for _, id := range flights {
				tables = append(tables, tournamentTablesOf(t, r, id)...)
			}
			r.actAt(tables, bot, &actions) // waitFor polls again when nobody was to act
		}
		return done
	})

	type bag struct {
		Flight  string `json:"flight_tournament_id"`
		Player  string `json:"player_id"`
		Chips   int64  `json:"chips,string"`
		Carried bool   `json:"carried"`
	}
	var bags struct {
		Bags    []bag `json:"bags"`
		Bagged  int64 `json:"chips_bagged,string"`
		Carried int64 `json:"chips_carried,string"`
	}
	perFlight := map[string]int64{}
	for f, id := range flights {
		r.must("GET", "/v1/tournaments/"+id+"/bags", r.floor, nil, &bags)
		for _, b := range bags.Bags {
			if b.Flight != id || !slices.Contains(flightPlayers[f], b.Player) {
				t.Fatalf("flight %s's bag %+v", f, b)
			}
		}
		perFlight[f] = bags.Bagged
		// The bags hold every chip the flight issued.
		if bags.Bagged != int64(len(flightPlayers[f])*stack) {
			t.Fatalf("flight %s bagged %d chips, issued %d", f, bags.Bagged, len(flightPlayers[f])*stack)
		}
	}
	r.must("GET", "/v1/tournaments/"+day2+"/bags", r.floor, nil, &bags)
	carried := map[string]int64{}
	var twice []bag
	for _, b := range bags.Bags {
		if b.Player == both {
			twice = append(twice, b)
		}
		if b.Carried {
			if _, dup := carried[b.Player]; dup {
				t.Fatalf("two bags of %s carried: %+v", b.Player, bags.Bags)
			}
			carried[b.Player] = b.Chips
		}
	}
	if len(twice) != 2 {
		t.Fatalf("%s's bags %+v: survived both flights, bagged twice", both, twice)
	}
	// G-34: the house keeps the larger stack (ties: the earlier bag).
	larger := twice[0]
	if twice[1].Chips > twice[0].Chips {
		larger = twice[1]
	}
	if carried[both] != larger.Chips || !larger.Carried {
		t.Fatalf("G-34: %s carries %d of bags %+v", both, carried[both], twice)
	}
	var sum int64
	for _, ch := range carried {
		sum += ch
	}
	if bags.Bagged != perFlight["A"]+perFlight["B"] || bags.Carried != sum {
		t.Fatalf("Day 2 bags: %d bagged, %d carried; flights %v, carried bags sum %d", bags.Bagged, bags.Carried, perFlight, sum)
	}

	// The Day 2: its field is the carried bags, drawn to new seats.
	drawn := r.startTournament(day2)
	var seated []string
	for _, s := range drawn.Seats {
		seated = append(seated, s.PlayerID)
	}
	slices.Sort(seated)
	want := slices.Sorted(func(yield func(string) bool) {
		for p := range carried {
			if !yield(p) {
				return
			}
		}
	})
	if !slices.Equal(seated, want) {
		t.Fatalf("Day 2 draw %v, carried bags %v", seated, want)
	}
	tc, svc := tournamentTables(t, c.tables[0].grpcAddr(), c.gateway.token("cardroom-tournament", "service"))
	waitFor(t, "the Day 2 seated with the carried chips", time.Minute, func() bool {
		n, err := tc.CountTournamentChips(svc, &tablev1.CountTournamentChipsRequest{TournamentId: day2})
		return err == nil && n.GetTotal() == sum
	})
	// Nobody has acted at the Day 2: each stack and what it put in front
	// (the blinds of hand 1) is the bag carried.
	for _, tb := range tournamentTablesOf(t, r, day2) {
		st := r.state(tb, r.floor)
		for _, s := range st.Seats {
			if s.PlayerID == "" {
				continue
			}
			if s.Stack+s.Bet+s.Pending != carried[s.PlayerID] {
				t.Errorf("%s sits at the Day 2 with %d (+%d in front, %d pending), carried %d", s.PlayerID, s.Stack, s.Bet, s.Pending, carried[s.PlayerID])
			}
		}
	}
	var payouts struct {
		Pool int64 `json:"prize_pool,string"`
	}
	r.must("GET", "/v1/tournaments/"+day2+"/payouts", r.floor, nil, &payouts)
	if entries := len(flightPlayers["A"]) + len(flightPlayers["B"]); payouts.Pool != int64(entries*buyIn) {
		t.Fatalf("Day 2 prize pool %d: the flights' %d entries paid %d", payouts.Pool, entries, entries*buyIn)
	}
	t.Logf("%d bot actions; bags %+v; %s carried %d", actions, bags.Bags, both, carried[both])
	r.auditClean("after two flights into a Day 2")
}
