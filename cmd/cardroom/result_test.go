package main

// Issue 17: a hand's result as an app reads it from the table state —
// the hand that just ended shown done with its pots in the acting
// player's own answer and on the feed, and last_hand in every state read
// afterwards — not only in the stream's events.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
)

// handResult is TableState.last_hand (and the pots of a done hand).
type handResult struct {
	HandNo int64       `json:"hand_no,string"`
	Board  []string    `json:"board"`
	Pots   []potResult `json:"pots"`
	Seats  []struct {
		Seat     int      `json:"seat"`
		PlayerID string   `json:"player_id"`
		Cards    []string `json:"cards"`
		Shown    bool     `json:"shown"`
		Folded   bool     `json:"folded"`
		Won      int64    `json:"won,string"`
		Net      int64    `json:"net,string"`
	} `json:"seats"`
	EndTime string `json:"end_time"`
}

type potResult struct {
	Pot           int   `json:"pot"`
	Amount        int64 `json:"amount,string"`
	EligibleSeats []int `json:"eligible_seats"`
	Winners       []struct {
		Seat     int    `json:"seat"`
		PlayerID string `json:"player_id"`
		Amount   int64  `json:"amount,string"`
	} `json:"winners"`
}

// resultState is the part of a TableState this test reads.
type resultState struct {
	Sequence int64 `json:"sequence,string"`
	Hand     *struct {
		HandNo int64       `json:"hand_no,string"`
		Done   bool        `json:"done"`
		Board  []string    `json:"board"`
		Pots   []potResult `json:"pots"`
	} `json:"hand"`
	LastHand *handResult `json:"last_hand"`
}

// checkPots fails unless every pot is won in full by seats eligible for
// it, in shares of the table's chip (TP-44, TP-72, TP-73).
func checkPots(t *testing.T, what string, pots []potResult, chip int64) {
	t.Helper()
	if len(pots) == 0 {
		t.Fatalf("%s: no pot", what)
	}
	for _, p := range pots {
		var won int64
		for _, w := range p.Winners {
			if !slices.Contains(p.EligibleSeats, w.Seat) || w.PlayerID == "" || w.Amount%chip != 0 {
				t.Fatalf("%s: pot %d share %+v (eligible %v, chip %d)", what, p.Pot, w, p.EligibleSeats, chip)
			}
			won += w.Amount
		}
		if won != p.Amount || len(p.EligibleSeats) == 0 {
			t.Fatalf("%s: pot %d of %d paid %d, eligible %v", what, p.Pot, p.Amount, won, p.EligibleSeats)
		}
	}
}

// TestHandResultInState_TP44_TP64_TP73 plays a hand to a showdown at a
// 5/10 table that pauses between hands as a room does. The acting player's
// answer to the action that ended it shows the hand done with its pots —
// eligible seats and winners, in fives (TP-44, TP-73) — and so does the
// message of that change on a spectator's feed (done used never to be
// true there, and the hand went straight to null). Every state read
// afterwards, by a player or a spectator, carries last_hand: the board, the
// hands tabled at the showdown (TP-64: shown cards are everyone's, cards
// not shown are "??"), each seat's winnings and net (summing to 0), until
// the next hand ends.
func TestHandResultInState_TP44_TP64_TP73(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	r := newFrontendRoomEnv(t, []string{"CARDROOM_TABLE_HAND_PAUSE=2s"}, "ann", "bob", "cat", "dan")
	table := r.openTable("Fives", 5, 10, nil)["table_id"].(string)
	for i, p := range []string{"ann", "bob", "cat"} {
		r.must("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": i, "player_id": p, "amount": 1000}, nil)
	}
	feed := r.watch(table, "dan", r.tokens["dan"])
	read := func(token string) resultState {
		t.Helper()
		var out struct{ State resultState }
		r.must("GET", "/v1/tables/"+table+"/state", token, nil, &out)
		return out.State
	}

	no := r.waitHand(table).Hand.HandNo
	var last []byte
	for range 50 {
		st := r.waitHand(table)
		player := st.Seats[st.Hand.ToAct].PlayerID
		own := r.state(table, r.tokens[player])
		m := checkDown(own, own.ViewerSeat)
		code, raw := r.do("POST", "/v1/tables/"+table+"/actions", r.tokens[player], map[string]any{"kind": m.kind,
			"amount": m.amount, "expected_sequence": own.Sequence})
		if code != http.StatusOK {
			t.Fatalf("%s acts: %d %s", player, code, raw)
		}
		var out struct{ State tableState }
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
		if !out.State.live() {
			last = raw
			break
		}
	}
	if last == nil {
		t.Fatal("the hand did not end")
	}
	var answer struct{ State resultState }
	if err := json.Unmarshal(last, &answer); err != nil {
		t.Fatal(err)
	}
	if h := answer.State.Hand; h == nil || !h.Done || h.HandNo != no || len(h.Board) != 5 {
		t.Fatalf("the answer to the action that ended hand %d: hand %s, want it done with its board", no, last)
	}
	checkPots(t, "the answer's pots", answer.State.Hand.Pots, 5)

	// The spectator's feed shows the same change with the hand done.
	var done bool
	for _, l := range feed.until(t, answer.State.Sequence) {
		if h := l.Result.State.Hand; h != nil && h.Done && h.HandNo == no {
			done = true
		}
	}
	if !done {
		t.Fatalf("no message of dan's feed shows hand %d done", no)
	}

	check := func(who string, st resultState) {
		t.Helper()
		l := st.LastHand
		if l == nil || l.HandNo != no || !slices.Equal(l.Board, answer.State.Hand.Board) || l.EndTime == "" {
			t.Fatalf("%s's state: last_hand %+v, want hand %d with board %v", who, l, no, answer.State.Hand.Board)
		}
		checkPots(t, who+"'s last_hand", l.Pots, 5)
		var net, won int64
		shown := 0
		for _, s := range l.Seats {
			net += s.Net
			won += s.Won
			hidden := slices.Contains(s.Cards, "??")
			if s.Shown == hidden || len(s.Cards) != 2 {
				t.Fatalf("%s's last_hand: seat %d shown %v with cards %v (TP-64)", who, s.Seat, s.Shown, s.Cards)
			}
			if s.Shown {
				shown++
			}
		}
		var pots int64
		for _, p := range l.Pots {
			pots += p.Amount
		}
		if net != 0 || won != pots || shown == 0 || len(l.Seats) != 3 {
			t.Fatalf("%s's last_hand: nets sum to %d, %d won of %d in the pots, %d hands shown: %+v", who, net, won, pots, shown, l)
		}
	}
	check("dan (a spectator)", read(r.tokens["dan"]))
	check("ann", read(r.tokens["ann"]))
	check("the floor", read(r.floor))

	// The next hand is dealt after the pause; the result stays until it ends.
	next := r.waitHand(table)
	if next.Hand.HandNo != no+1 {
		t.Fatalf("next hand %d, want %d", next.Hand.HandNo, no+1)
	}
	check("bob during the next hand", read(r.tokens["bob"]))
	r.playHand(table, checkDown)
	if l := read(r.floor).LastHand; l == nil || l.HandNo != no+1 {
		t.Fatalf("after hand %d ended: last_hand %+v", no+1, l)
	}
	r.checkChips("after the hands")
	r.auditClean("after the hands")
}

// TestSplitPotInChipUnits_TP31_TP73 plays pot-limit Omaha Hi/Lo at 5/10
// over REST, the small blind folding so that each pot holds an odd number
// of fives (25), until pots have been split between a high and a low hand.
// Every share in last_hand is a multiple of the table's smallest chip, 5
// (TP-31): the odd five goes whole to one winner (TP-73), never 12.5 or
// 13/12 — a split used to be divided to the single chip.
func TestSplitPotInChipUnits_TP31_TP73(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	r := newFrontendRoom(t, "ann", "bob", "cat")
	var out struct{ Table map[string]any }
	r.must("POST", "/v1/tables", r.floor, map[string]any{"name": "PLO8 5/10", "seats": 6, "kind": "TABLE_KIND_CASH",
		"mode": "TABLE_MODE_DIGITAL", "game": map[string]any{"variant": "VARIANT_OMAHA_HI_LO", "structure": "STRUCTURE_POT_LIMIT",
			"stakes": map[string]any{"small_blind": 5, "big_blind": 10}}}, &out)
	table := out.Table["table_id"].(string)
	r.tables = append(r.tables, table)
	if out.Table["min_chip_unit"] != "5" {
		t.Fatalf("min_chip_unit %v, want \"5\" (TP-31)", out.Table["min_chip_unit"])
	}
	for i, p := range []string{"ann", "bob", "cat"} {
		r.must("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": i, "player_id": p, "amount": 1000}, nil)
	}
	// The small blind folds pre-flop; the others check it down.
	plan := func(st tableState, seat int) move {
		if _, ok := legalOf(st, "ACTION_KIND_CALL"); ok && st.Hand.Street == "preflop" && st.Seats[seat].Bet == 5 {
			return move{kind: "ACTION_KIND_FOLD"}
		}
		return checkDown(st, seat)
	}
	splits := 0
	for range 40 {
		no := r.playHand(table, plan)
		var st struct{ State resultState }
		r.must("GET", "/v1/tables/"+table+"/state", r.tokens["ann"], nil, &st)
		l := st.State.LastHand
		if l == nil || l.HandNo != no {
			t.Fatalf("after hand %d: last_hand %+v", no, l)
		}
		checkPots(t, fmt.Sprintf("hand %d", no), l.Pots, 5)
		for _, p := range l.Pots {
			if len(p.Winners) > 1 && (p.Amount/5)%2 == 1 {
				splits++
			}
		}
		if splits >= 2 {
			r.checkChips("after the split pots")
			r.auditClean("after the split pots")
			return
		}
	}
	t.Fatalf("%d pots of an odd number of fives split in 40 hands, want 2", splits)
}
