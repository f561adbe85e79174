package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// lobbyLine is one message of the public lobby feed as an app reads it.
type lobbyLine struct {
	Result *struct {
		Clock struct {
			Clock struct {
				Level struct {
					BigBlind int64 `json:"big_blind,string"`
				} `json:"level"`
				Remaining string `json:"remaining"`
			} `json:"clock"`
			Entrants    int   `json:"entrants"`
			PlayersLeft int   `json:"players_left"`
			ChipsInPlay int64 `json:"chips_in_play,string"`
			Payouts     struct {
				Pool int64 `json:"prize_pool,string"`
			} `json:"payouts"`
		} `json:"clock"`
		NextLevel *struct {
			BigBlind int64 `json:"big_blind,string"`
		} `json:"next_level"`
		TimeToBreak  string `json:"time_to_break"`
		AverageStack int64  `json:"average_stack,string"`
		LargestStack int64  `json:"largest_stack,string"`
		ChipCounts   []struct {
			Rank     int    `json:"rank"`
			PlayerID string `json:"player_id"`
			Table    int    `json:"table"`
			Seat     int    `json:"seat"`
			Stack    int64  `json:"stack,string"`
			HandNo   int64  `json:"hand_no,string"`
		} `json:"chip_counts"`
		Slips       []movementSlip `json:"movement_slips"`
		HandForHand struct {
			Active bool `json:"active"`
		} `json:"hand_for_hand"`
	} `json:"result"`
	Error json.RawMessage `json:"error"`
}

// movementSlip is a movement slip as REST shows it.
type movementSlip struct {
	MoveID    string    `json:"move_id"`
	PlayerID  string    `json:"player_id"`
	FromTable int       `json:"from_table"`
	FromSeat  int       `json:"from_seat"`
	ToTable   int       `json:"to_table"`
	ToSeat    int       `json:"to_seat"`
	Stack     int64     `json:"stack,string"`
	RuleID    string    `json:"rule_id"`
	Reason    string    `json:"reason"`
	HandNo    int64     `json:"hand_no,string"`
	At        time.Time `json:"create_time"`
	Actor     string    `json:"actor"`
	State     string    `json:"state"`
}

// feed collects an NDJSON feed's raw lines until the test ends, reading as
// fast as the server writes.
type feed struct {
	mu    sync.Mutex
	lines [][]byte
	done  bool
}

// openPublic opens a feed with no token at all, as a casino's website would.
func openPublic(t *testing.T, s *suite, path string) *feed {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, "GET", s.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s with no token: %d", path, resp.StatusCode)
	}
	f := &feed{}
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			f.mu.Lock()
			f.lines = append(f.lines, bytes.Clone(sc.Bytes()))
			f.mu.Unlock()
		}
		f.mu.Lock()
		f.done = true
		f.mu.Unlock()
	}()
	return f
}

// snapshot returns the lines so far.
func (f *feed) snapshot() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lines
}

// lobbyLines decodes the lobby feed's lines so far.
func lobbyLines(t *testing.T, f *feed) []lobbyLine {
	t.Helper()
	var out []lobbyLine
	for _, raw := range f.snapshot() {
		var l lobbyLine
		if err := json.Unmarshal(raw, &l); err != nil || l.Result == nil {
			t.Fatalf("lobby feed: %s (%v)", raw, err)
		}
		out = append(out, l)
	}
	return out
}

// TestTournamentLobbyAndMovementSlips_TR06_TR23_G07: a six-player
// freezeout on two tables of three, played over REST by bots that move
// all in (seeded decks) until the director has moved players. A casino's
// website with no token at all watches the lobby
// (GET /v1/tournaments/{id}/lobby:watch) and reads the movement slips
// (GET /v1/tournaments/{id}/moves). Checked: the lobby shows the level,
// the next level and the time to the break from the sheet (G-07),
// entrants, players left, pool, average and largest stack; its
// leaderboard starts at the starting stacks and, refreshed after every
// hand, names each player's stack after a hand as that hand's history
// has it, and adds up to the chips issued; every move (TR-23 balancing or
// TR-06 a breaking table's draw) has a slip — player, from and to table
// and seat, the stack carried (the player's stack after the hand it was
// decided on, as the history has it), rule, reason, hand, actor, time —
// in the list, in the audit, and on the lobby, delivered; the lobby
// carries no wallet field and no card; the audit stays closed without a
// token.
func TestTournamentLobbyAndMovementSlips_TR06_TR23_G07(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	s := newSeededSuite(t, 20261201)
	s.start()
	players := []string{"ann", "bob", "cat", "dan", "eve", "fay"}
	r := newRoom(t, s, players...)
	for _, p := range players {
		r.deposit(p, 100000)
	}
	const stack, issued = 1000, 6 * 1000
	var created struct {
		Tournament struct {
			ID string `json:"tournament_id"`
		}
	}
	// The slips under test are balancing and breaking ones (TR-23, TR-06):
	// the two tables break down to one, with no final-table redraw (TR-07)
	// that would seat the last three at a table the bots do not watch.
	// The house breaks table 1 first (break_order, G-40), not the
	// highest-numbered.
	create := map[string]any{"name": "Lobby Turbo", "variant": "VARIANT_HOLDEM",
		"structure": "STRUCTURE_NO_LIMIT", "currency": "EUR", "buy_in": 1000, "fee": 100, "starting_stack": stack,
		"start_time": time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano), "seats_per_table": 3, "no_final_redraw": true,
		"levels": []map[string]any{
			{"small_blind": 50, "big_blind": 100, "duration": "600s"},
			{"small_blind": 100, "big_blind": 200, "duration": "600s"},
			{"break": true, "duration": "300s"},
			{"small_blind": 200, "big_blind": 400, "duration": "600s"},
		}}
	for _, bad := range [][]int{{0}, {1, 1}} {
		create["break_order"] = bad
		if code, raw := s.request(t, "POST", "/v1/tournaments", r.floor, create); code != http.StatusBadRequest {
			t.Fatalf("break_order %v: %d %s, want 400", bad, code, raw)
		}
	}
	create["break_order"] = []int{1}
	r.must("POST", "/v1/tournaments", r.floor, create, &created)
	id := created.Tournament.ID
	var shown struct {
		Tournament struct {
			BreakOrder []int `json:"break_order"`
		}
	}
	r.must("GET", "/v1/tournaments/"+id, r.floor, nil, &shown)
	if !slices.Equal(shown.Tournament.BreakOrder, []int{1}) {
		t.Fatalf("break_order shown %v, created with [1]", shown.Tournament.BreakOrder)
	}
	for _, p := range players {
		r.must("POST", "/v1/tournaments/"+id+"/entries", r.tokens[p], map[string]any{"player_id": p}, nil)
	}
	if started := r.startTournament(id); len(started.Seats) != 6 {
		t.Fatalf("draw %+v", started.Seats)
	}
	tables := tournamentTablesOf(t, r, id)
	if len(tables) != 2 {
		t.Fatalf("tables opened for six at three a table: %v", tables)
	}
	lobby := openPublic(t, s, "/v1/tournaments/"+id+"/lobby:watch")

	// The first lobby: level 1 (BB 100), level 2 next, the break after
	// both (20 minutes of clock less what has run), everyone at 1 000.
	waitFor(t, "the first lobby", 10*time.Second, func() bool { return len(lobby.snapshot()) > 0 })
	first := lobbyLines(t, lobby)[0].Result
	ttb, err := time.ParseDuration(strings.TrimSuffix(first.TimeToBreak, "s") + "s")
	if err != nil || first.Clock.Clock.Level.BigBlind != 100 || first.NextLevel == nil || first.NextLevel.BigBlind != 200 ||
		ttb <= 19*time.Minute || ttb > 20*time.Minute || first.Clock.Entrants != 6 || first.Clock.PlayersLeft != 6 ||
		first.Clock.Payouts.Pool != 6000 || first.AverageStack != stack || first.LargestStack != stack || len(first.ChipCounts) != 6 {
		t.Fatalf("first lobby: %+v (time to break %q)", first, first.TimeToBreak)
	}
	for _, c := range first.ChipCounts {
		if c.Rank != 1 || c.Stack != stack || c.HandNo != 0 || c.Table < 1 || c.Seat < 1 {
			t.Fatalf("first leaderboard: %+v", first.ChipCounts)
		}
	}

	// The bots shove until the director has moved someone and the move
	// is delivered.
	bot := pushFold(rand.New(rand.NewPCG(7, 8)))
	var slips struct {
		Slips []movementSlip `json:"slips"`
	}
	deadline := time.Now().Add(3 * time.Minute)
	for actions := 0; ; {
		code, raw := s.request(t, "GET", "/v1/tournaments/"+id+"/moves", "", nil)
		if code != http.StatusOK {
			t.Fatalf("GET moves with no token: %d %s", code, raw)
		}
		if err := json.Unmarshal(raw, &slips); err != nil {
			t.Fatal(err)
		}
		if len(slips.Slips) > 0 && slips.Slips[len(slips.Slips)-1].State == "MOVEMENT_SLIP_STATE_DELIVERED" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no move delivered after %d actions: %+v", actions, slips.Slips)
		}
		r.actOrAwait(func() []string { return tables }, bot, &actions, nil)
	}

	// Every slip: who, from, to, the stack carried as the hand's history
	// has it after the hand it was decided on, rule, reason, actor, time.
	tableOf := map[int]string{}
	for i, tb := range tables {
		tableOf[i+1] = tb
	}
	for _, sl := range slips.Slips {
		want := map[string]string{"TR-23": "balance", "TR-06": "table break"}[sl.RuleID]
		if want == "" || sl.Reason != want || sl.Actor != "director" || sl.At.IsZero() || sl.HandNo < 1 ||
			sl.FromTable == sl.ToTable || sl.FromSeat < 1 || sl.ToSeat < 1 || sl.Stack <= 0 {
			t.Fatalf("slip %+v", sl)
		}
		if sl.RuleID == "TR-06" && sl.FromTable != 1 {
			t.Fatalf("slip %+v: table %d broke, the house breaks table 1 first (G-40)", sl, sl.FromTable)
		}
		if sl.State != "MOVEMENT_SLIP_STATE_DELIVERED" {
			continue
		}
		h := r.history(tableOf[sl.FromTable], sl.HandNo)
		found := false
		for _, seat := range h.Seats {
			if seat.Player == sl.PlayerID {
				found = true
				if seat.Final != sl.Stack {
					t.Fatalf("slip %+v: %s ended hand %d at table %d with %d", sl, sl.PlayerID, sl.HandNo, sl.FromTable, seat.Final)
				}
			}
		}
		if !found {
			t.Fatalf("slip %+v: %s not in hand %d at table %d", sl, sl.PlayerID, sl.HandNo, sl.FromTable)
		}
	}
	moved := slips.Slips[len(slips.Slips)-1]
	t.Logf("%d movement slips; the last: %s from table %d seat %d to table %d seat %d with %d (%s, %s, after hand %d)",
		len(slips.Slips), moved.PlayerID, moved.FromTable, moved.FromSeat, moved.ToTable, moved.ToSeat, moved.Stack, moved.RuleID, moved.Reason, moved.HandNo)

	// The audit has the same slip (staff only: no token, no audit).
	if code, _ := s.request(t, "GET", "/v1/tournaments/"+id+"/audit", "", nil); code != http.StatusUnauthorized {
		t.Fatalf("the audit with no token: %d", code)
	}
	var audit struct {
		Records []struct {
			Actor  string `json:"actor"`
			Action string `json:"action"`
			Detail string `json:"detail_json"`
		}
	}
	r.must("GET", "/v1/tournaments/"+id+"/audit", r.floor, nil, &audit)
	inAudit := 0
	for _, rec := range audit.Records {
		if rec.Action != "move" {
			continue
		}
		var d struct {
			MoveID string `json:"move_id"`
			Stack  int64  `json:"stack"`
			HandNo int64  `json:"hand_no"`
			Reason string `json:"reason"`
		}
		if err := json.Unmarshal([]byte(rec.Detail), &d); err != nil {
			t.Fatal(err)
		}
		if d.MoveID == moved.MoveID {
			inAudit++
			if rec.Actor != "director" || d.Stack != moved.Stack || d.HandNo != moved.HandNo || d.Reason != moved.Reason {
				t.Fatalf("audit record %+v, slip %+v", rec, moved)
			}
		}
	}
	if inAudit != 1 {
		t.Fatalf("the move %s is %d times in the audit", moved.MoveID, inAudit)
	}

	// The lobby showed the slip delivered, and its leaderboard, refreshed
	// after every hand, adds up to the chips issued with each count as the
	// player's table's hand history has it.
	var last lobbyLine
	waitFor(t, "the lobby with the move delivered and the counts settled", 15*time.Second, func() bool {
		lines := lobbyLines(t, lobby)
		last = lines[len(lines)-1]
		var sum int64
		for _, c := range last.Result.ChipCounts {
			sum += c.Stack
		}
		for _, sl := range last.Result.Slips {
			if sl.MoveID == moved.MoveID && sl.State == "MOVEMENT_SLIP_STATE_DELIVERED" && sl.Stack == moved.Stack {
				return sum == issued
			}
		}
		return false
	})
	counted := 0
	for i, c := range last.Result.ChipCounts {
		if i > 0 && c.Stack > last.Result.ChipCounts[i-1].Stack {
			t.Fatalf("leaderboard out of order: %+v", last.Result.ChipCounts)
		}
		if c.HandNo == 0 {
			continue
		}
		found := false
		for _, tb := range tables {
			code, raw := r.do("GET", fmt.Sprintf("/v1/tables/%s/hands/%d", tb, c.HandNo), r.floor, nil)
			if code != http.StatusOK {
				continue
			}
			var out struct{ History history }
			if json.Unmarshal(raw, &out) != nil {
				t.Fatalf("hand %d at %s: %s", c.HandNo, tb, raw)
			}
			for _, seat := range out.History.Seats {
				if seat.Player == c.PlayerID && seat.Final == c.Stack {
					found = true
				}
			}
		}
		// A player moved in after their new table's last hand is counted
		// with the stack their slip carried.
		if !found && !(c.PlayerID == moved.PlayerID && c.Stack == moved.Stack) {
			t.Fatalf("leaderboard %+v: no hand %d history has %s ending with %d", last.Result.ChipCounts, c.HandNo, c.PlayerID, c.Stack)
		}
		counted++
	}
	if counted == 0 || last.Result.LargestStack != last.Result.ChipCounts[0].Stack || last.Result.HandForHand.Active {
		t.Fatalf("last lobby: %+v", last.Result)
	}
	// Public means public information only: no wallet field, no card.
	for _, raw := range lobby.snapshot() {
		// (A Tournament's chip_check, the director's count, is never
		// filled in here: it reads null.)
		for _, field := range []string{"transfer_id", `"paid"`, "account", `"cards"`, "hole_", `"chip_check":{`} {
			if bytes.Contains(raw, []byte(field)) {
				t.Fatalf("the public lobby carries %s: %s", field, raw)
			}
		}
	}
	t.Logf("%d lobby messages; leaderboard %+v", len(lobby.snapshot()), last.Result.ChipCounts)
}
