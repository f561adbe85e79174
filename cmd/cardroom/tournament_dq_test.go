package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/testkit"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
)

// foldOrCheck checks when it may and folds otherwise: nobody is knocked
// out while the floor rules.
func foldOrCheck(st tableState, _ int) move {
	if _, ok := legalOf(st, "ACTION_KIND_CHECK"); ok {
		return move{kind: "ACTION_KIND_CHECK"}
	}
	return move{kind: "ACTION_KIND_FOLD"}
}

// TestTournamentDisqualifiedChipsLeavePlay_TR34: a four-player freezeout on
// a cluster (every part its own process on PostgreSQL and Redis). Over
// REST the floor disqualifies cal while he plays a hand, then bob between
// hands, then dan, which ends the event with ann the winner. Each of them
// leaves the table with their chips, which leave play: the audit records
// the chips each took out once (chips_removed), and the chips at the
// tables counted over gRPC, and the director's count in the status, are
// the chips issued less the chips removed, also once play is over.
func TestTournamentDisqualifiedChipsLeavePlay_TR34(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every part of the suite in its own process")
	}
	t.Parallel()
	c := newCluster(t, clusterOptions{tables: 1, bin: seededBinary, env: []string{"CARDROOM_TEST_DECK_SEED=20261234",
		"CARDROOM_TABLE_HAND_PAUSE=0s", "CARDROOM_TABLE_ACTION_TIMEOUT=10s"}})
	players := []string{"ann", "bob", "cal", "dan"}
	r := newRoom(t, c.gateway, players...)
	for _, p := range players {
		r.deposit(p, 10000)
	}
	const stack, issued = 1000, 4 * 1000
	var created struct {
		Tournament struct {
			ID string `json:"tournament_id"`
		}
	}
	r.must("POST", "/v1/tournaments", r.floor, map[string]any{"name": "Floor Rules", "variant": "VARIANT_HOLDEM",
		"structure": "STRUCTURE_NO_LIMIT", "currency": "EUR", "buy_in": 1000, "fee": 100, "starting_stack": stack,
		"start_time": time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano), "seats_per_table": 9,
		"levels":  []map[string]any{{"small_blind": 25, "big_blind": 50, "duration": "600s"}},
		"payouts": map[string]any{"unit": 100, "tiers": []any{map[string]any{"shares": []int{6000, 4000}}}}}, &created)
	id := created.Tournament.ID
	base := "/v1/tournaments/" + id
	for _, p := range players {
		r.must("POST", base+"/entries", r.tokens[p], map[string]any{"player_id": p}, nil)
	}
	r.startTournament(id)
	tc, svc := tournamentTables(t, c.tables[0].grpcAddr(), c.gateway.token("cardroom-tournament", "service"))
	var tables []string
	testkit.Eventually(t, time.Minute, func() error {
		if tables = tournamentTablesOf(t, r, id); len(tables) != 1 {
			return fmt.Errorf("tables %v", tables)
		}
		return nil
	})
	// removed reads the chips the audit records each disqualified player
	// took out of play.
	removed := func() map[string]int64 {
		var audit struct {
			Records []struct {
				Action string `json:"action"`
				Detail string `json:"detail_json"`
			}
		}
		r.must("GET", base+"/audit", r.floor, nil, &audit)
		out := map[string]int64{}
		for _, rec := range audit.Records {
			var d struct {
				Player string `json:"player_id"`
				Chips  int64  `json:"chips"`
			}
			if !strings.HasPrefix(rec.Action, "chips_removed/") {
				continue
			}
			if err := json.Unmarshal([]byte(rec.Detail), &d); err != nil {
				t.Fatal(err)
			}
			if _, twice := out[d.Player]; twice {
				t.Fatalf("TR-34: %s's chips recorded removed twice", d.Player)
			}
			out[d.Player] = d.Chips
		}
		return out
	}
	// settled waits, the bots acting meanwhile, until the players are off
	// the table with their chips recorded removed, and the chips at the
	// table are the chips issued less those.
	actions := 0
	settled := func(when string, out ...string) map[string]int64 {
		t.Helper()
		var gone map[string]int64
		testkit.Eventually(t, 2*time.Minute, func() error {
			r.actAt(tables, foldOrCheck, &actions)
			st := r.state(tables[0], r.floor)
			for _, s := range st.Seats {
				if slices.Contains(out, s.PlayerID) {
					return fmt.Errorf("%s: %s still seated with %d chips", when, s.PlayerID, s.Stack)
				}
			}
			gone = removed()
			var less int64
			for _, p := range out {
				chips, ok := gone[p]
				if !ok {
					return fmt.Errorf("%s: %s's chips not recorded removed (%v)", when, p, gone)
				}
				less += chips
			}
			n, err := tc.CountTournamentChips(svc, &tablev1.CountTournamentChipsRequest{TournamentId: id})
			if err != nil {
				return err
			}
			if n.GetTotal() != issued-less {
				return fmt.Errorf("%s: %d chips at the table, %d issued less %d removed", when, n.GetTotal(), issued, less)
			}
			var got struct {
				Tournament struct {
					ChipCheck *struct {
						Issued   int64 `json:"chips_issued,string"`
						Counted  int64 `json:"chips_counted,string"`
						Mismatch int64 `json:"mismatch,string"`
					} `json:"chip_check"`
				}
			}
			r.must("GET", base, r.floor, nil, &got)
			if cc := got.Tournament.ChipCheck; cc == nil || cc.Issued != issued-less || cc.Counted != cc.Issued || cc.Mismatch != 0 {
				return fmt.Errorf("%s: the status's chip check %+v, want %d issued less removed, all counted", when, cc, issued-less)
			}
			return nil
		})
		return gone
	}
	dq := func(p string) {
		t.Helper()
		r.must("POST", base+"/entries/"+p+":penalize", r.floor, map[string]any{"type": "PENALTY_TYPE_DISQUALIFICATION",
			"reason": "TR-34 test"}, nil)
	}

	// cal during a hand: he leaves when it ends (TR-34).
	testkit.Eventually(t, time.Minute, func() error {
		if st := r.state(tables[0], r.floor); !st.live() {
			return fmt.Errorf("no hand dealt yet")
		}
		return nil
	})
	dq("cal")
	settled("cal out during a hand", "cal")

	// bob between hands: the director holds the table after each hand
	// until it has handled it, so the floor waits for a moment at rest.
	dq("bob")
	settled("bob out", "cal", "bob")

	// dan: ann is the last player in, the event's play is over, and dan's
	// chips still leave play and are counted removed.
	dq("dan")
	gone := settled("dan out, the event over", "cal", "bob", "dan")
	var results struct {
		Finishes []struct {
			PlayerID string `json:"player_id"`
			Place    int    `json:"place"`
		}
	}
	r.must("GET", base+"/results", r.floor, nil, &results)
	if !slices.ContainsFunc(results.Finishes, func(f struct {
		PlayerID string `json:"player_id"`
		Place    int    `json:"place"`
	}) bool {
		return f.PlayerID == "ann" && f.Place == 1
	}) {
		t.Fatalf("ann is not placed first: %+v", results.Finishes)
	}
	t.Logf("chips removed from play: %v; %d actions", gone, actions)
}
