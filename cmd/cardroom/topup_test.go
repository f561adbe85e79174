package main

import (
	"strconv"
	"testing"
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
