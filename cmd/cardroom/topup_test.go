package main

import (
	"fmt"
	"strconv"
	"testing"
	"time"
)

// TestTopUpDuringHandCappedByStackNow_G19_CS07: a player who folded
// during a hand may top up to the maximum buy-in from the stack they have
// now (plus top-ups already queued), not from the stack they started the
// hand with; the refusal above it gives a range that is never negative.
func TestTopUpDuringHandCappedByStackNow_G19_CS07(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	s := newSeededSuite(t, 19)
	s.start()
	r, _, t1 := cashRoom(t, s, 3, tableMax, 20000, "ann", "bob", "cy")
	r.playHand(t1, checkDown) // the new players' posts are behind us

	// The next hand: the seat in turn calls, the small blind folds.
	st := r.waitHand(t1)
	sb := -1
	for _, seat := range st.Seats {
		if seat.InHand && seat.Bet > 0 && (sb < 0 || seat.Bet < st.Seats[sb].Bet) {
			sb = seat.Seat
		}
	}
	for st = r.waitHand(t1); st.Hand.ToAct != sb; st = r.waitHand(t1) {
		r.act(t1, checkDown)
	}
	r.act(t1, func(tableState, int) move { return move{kind: "ACTION_KIND_FOLD"} })
	st = r.state(t1, r.floor)
	if !st.live() {
		t.Fatal("the hand ended with the small blind's fold; want it played on")
	}
	folded := st.Seats[sb]
	player := folded.PlayerID
	room := tableMax - folded.Stack - folded.Pending
	if room > 0 {
		var out struct{ Seat seatState }
		r.must("POST", "/v1/tables/"+t1+"/top-ups", r.tokens[player], map[string]any{"amount": room, "idempotency_key": "to-the-max"}, &out)
		if out.Seat.Pending != folded.Pending+room {
			t.Fatalf("G-19: %s topped up %d from %d: %+v", player, room, folded.Stack, out.Seat)
		}
	}
	code, e := r.refused("POST", "/v1/tables/"+t1+"/top-ups", r.tokens[player], map[string]any{"amount": 1, "idempotency_key": "one-more"})
	if code != 400 || e.Reason != "TOP_UP_ABOVE_MAXIMUM" || e.RuleID != "G-19" || e.Metadata["max"] != "0" || e.Metadata["min"] != "1" {
		t.Fatalf("G-19: one chip above the maximum: %d %+v", code, e)
	}
	for _, k := range []string{"min", "max"} {
		if v, err := strconv.ParseInt(e.Metadata[k], 10, 64); err != nil || v < 0 {
			t.Fatalf("CS-07: the range's %s is %q", k, e.Metadata[k])
		}
	}
	r.playHand(t1, checkDown)
	r.checkChips("after the top-up")
	r.auditClean("after the top-up")
}

// TestLeaveWhileAllInKeepsTheHand_TP44_TP64_TP67_G43: a player who shoves
// and asks to leave during the hand is not folded or mucked: the hand is
// played to the end, their hand is tabled at the showdown under the house
// rule for a seat that is away (G-43 in the history, no clock's TP-59), it
// wins what it wins (TP-67: the seed deals the leaver the best hand), and
// they are cashed out with what the hand left them.
func TestLeaveWhileAllInKeepsTheHand_TP44_TP64_TP67_G43(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	s := newSeededSuite(t, 45)
	s.start()
	r, _, t1 := cashRoom(t, s, 2, 5000, 20000, "ann", "bob")
	r.playHand(t1, checkDown)
	st := r.waitHand(t1)
	no, seat := st.Hand.HandNo, st.Hand.ToAct
	player := st.Seats[seat].PlayerID
	r.act(t1, shove)
	var lv struct {
		Left bool
	}
	r.must("POST", fmt.Sprintf("/v1/tables/%s/seats/%d:leave", t1, seat), r.tokens[player], map[string]any{}, &lv)
	if lv.Left {
		t.Fatalf("%s left in the middle of hand %d", player, no)
	}
	wallet := r.balance("player:" + player + ":EUR")
	for st := r.state(t1, r.floor); st.live() && st.Hand.HandNo == no; st = r.state(t1, r.floor) {
		r.act(t1, checkDown)
	}
	h := r.history(t1, no)
	shown := false
	for _, e := range h.Events {
		if e.Seat == seat && (e.Kind == "muck" || e.Kind == "kill" || e.Rule == "TP-59") {
			t.Fatalf("TP-64: %s's live hand was given away: %+v", player, e)
		}
		if e.Seat == seat && e.Kind == "show" && e.Rule == "G-43" {
			shown = true
		}
	}
	var final int64
	for _, hs := range h.Seats {
		if hs.Seat == seat {
			final = hs.Final
		}
	}
	if !shown {
		t.Fatalf("G-43: %s's all-in hand was not tabled for the away seat: %+v", player, h.Events)
	}
	t.Logf("%s, all in and away, finished hand %d with %d", player, no, final)
	if final <= 5000 {
		// Heads-up, a shove that wins at least doubles up: the case of
		// the issue, a winning hand given away, needs a winning hand.
		t.Fatalf("the seed dealt %s no winning hand (%d after hand %d): choose one that does", player, final, no)
	}
	waitFor(t, player+" cashed out", 10*time.Second, func() bool { return r.state(t1, r.floor).seatOf(player) < 0 })
	if got := r.balance("player:"+player+":EUR") - wallet; got != final {
		t.Fatalf("TP-44: %s was paid %d, the hand left them %d", player, got, final)
	}
	r.checkChips("after the all-in leave")
	r.auditClean("after the all-in leave")
}
