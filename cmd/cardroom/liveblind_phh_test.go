package main

// Issue 17: a big blind posted live out of position (a returning player's,
// TP-15; a new player's, TP-13) exported as PHH over REST.

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cardroom/cardroom/services/table/phh"
)

// TestNewPlayerBigBlindExportsPHH_TP13 seats eve during a hand at a 5/10
// table with post_now: a new player who posts an amount equal to the big
// blind is dealt in at once, the post live (TP-13), wherever her seat is
// outside the stretch from the button to the big blind (TP-17). She checks
// the hand down. That hand's PHH — the floor's copy and every player's — is
// served (it used to be refused 400 PHH_UNSUPPORTED: PHH's
// blinds_or_straddles would start the action after her), and the floor's
// file replays to the stacks the table paid. The chips and the books
// reconcile afterwards.
func TestNewPlayerBigBlindExportsPHH_TP13(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	players := []string{"ann", "bob", "cat", "dan", "eve"}
	r := newFrontendRoom(t, players...)
	table := r.openTable("New player 5/10", 5, 10, nil)["table_id"].(string)
	for i, p := range players[:4] {
		r.must("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": i, "player_id": p, "amount": 1000}, nil)
	}
	r.waitHand(table)
	r.must("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": 4, "player_id": "eve", "amount": 1000, "post_now": true}, nil)

	for range 5 {
		no := r.playHand(table, checkDown)
		hist := r.history(table, no)
		var got, dealt []string
		for _, s := range hist.Seats {
			dealt = append(dealt, s.Player)
		}
		for _, e := range hist.Events {
			if e.Kind == "post" && e.Seat == 4 {
				got = append(got, fmt.Sprintf("%s/%s/%d", e.Post, e.Rule, e.Amount))
			}
		}
		if len(got) == 0 {
			continue // between the button and the big blind she waits (TP-17)
		}
		if want := []string{"new_player_big_blind/TP-13/10"}; !slices.Equal(got, want) {
			if slices.Equal(got, []string{"big_blind/TP-10/10"}) {
				t.Fatalf("TP-13: the big blind reached eve in hand %d before she could post out of position (change the seat)", no)
			}
			t.Fatalf("TP-13: eve's posts in hand %d: %v, want %v", no, got, want)
		}
		h := r.replayPHH(table, no, dealt)
		checkLiveBlindPHH(t, h, "eve", "TP-13", "0")
		r.checkChips("after eve's big blind")
		r.auditClean("after eve's big blind")
		return
	}
	t.Fatal("TP-13: eve sat down with post_now and posted no big blind within five hands")
}

// checkLiveBlindPHH checks how a hand's PHH writes who's big blind posted
// live out of position under rule, in a hand they checked or called down:
// not in blinds_or_straddles (PHH would start the action after them), ante
// their ante (a dead small blind posted with it, or 0), and their first
// action saying that it holds the live big blind.
func checkLiveBlindPHH(t *testing.T, h *phh.History, who, rule, ante string) {
	t.Helper()
	i := slices.Index(h.Players, who)
	if i < 0 {
		t.Fatalf("%s: %s is not in the PHH's players %v", rule, who, h.Players)
	}
	if h.BlindsOrStraddles[i].Value() != 0 || h.Antes[i].String() != ante {
		t.Fatalf("%s: %s's blind %s and ante %s in the PHH, want none and %s", rule, who, h.BlindsOrStraddles[i], h.Antes[i], ante)
	}
	for _, a := range h.Actions {
		if a.Player == i+1 && a.Kind != phh.DealHole {
			if !strings.Contains(a.Comment, "big blind 10 posted live out of position ("+rule+") is in this action") {
				t.Fatalf("%s: %s's first action %+v does not say it holds the live big blind", rule, who, a)
			}
			return
		}
	}
	t.Fatalf("%s: %s never acts in the PHH", rule, who)
}

// TestNewPlayerPostsOnTheButton_TP16 seats eve during a hand at a 5/10
// table and sits her out, so the big blind passes her seat: a new player who
// let the big blind pass owes both blinds (TP-16). Back with post_now while
// the button is still short of her seat, she waits (G-06) until the button,
// moving on a seat a hand, comes to her: there she posts the big blind live
// (TP-16) and the small blind dead (G-06) and is dealt in. The big blind
// used to reach her first (the button was placed back from the small blind
// only), so she never posted on the button. That hand's PHH replays to the
// stacks paid. The chips and the books reconcile afterwards.
func TestNewPlayerPostsOnTheButton_TP16(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	players := []string{"ann", "bob", "cat", "dan", "eve"}
	r := newFrontendRoom(t, players...)
	table := r.openTable("Button 5/10", 5, 10, nil)["table_id"].(string)
	for i, p := range players[:4] {
		r.must("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": i, "player_id": p, "amount": 1000}, nil)
	}
	r.waitHand(table)
	r.must("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": 4, "player_id": "eve", "amount": 1000}, nil)
	r.must("POST", "/v1/tables/"+table+"/seats/4:sit-out", r.tokens["eve"], map[string]any{}, nil)

	var raw struct {
		State struct {
			Seats []struct {
				PlayerID string `json:"player_id"`
				OwesSB   bool   `json:"owes_small_blind"`
				OwesBB   bool   `json:"owes_big_blind"`
			}
		}
	}
	owesBoth := func() bool {
		r.must("GET", "/v1/tables/"+table+"/state", r.floor, nil, &raw)
		for _, s := range raw.State.Seats {
			if s.PlayerID == "eve" {
				return s.OwesSB && s.OwesBB
			}
		}
		t.Fatal("eve is not seated")
		return false
	}
	// eve comes back once she owes both blinds, while the hand under way
	// has its button on seat 2 or 3 (big blind on 0 or 1): her return
	// counts from the next hand, and the button then reaches her seat
	// before the big blind does.
	for hands := 0; ; hands++ {
		if hands == 10 {
			t.Fatal("TP-16: eve sat out for 10 hands and does not owe both blinds")
		}
		st := r.waitHand(table)
		if owesBoth() && (st.Hand.Button == 2 || st.Hand.Button == 3) {
			break
		}
		r.playHand(table, checkDown)
	}
	r.must("POST", "/v1/tables/"+table+"/seats/4:return", r.tokens["eve"], map[string]any{"post_now": true}, nil)

	for range 4 {
		no := r.playHand(table, checkDown)
		hist := r.history(table, no)
		var got, dealt []string
		for _, s := range hist.Seats {
			dealt = append(dealt, s.Player)
		}
		for _, e := range hist.Events {
			if e.Kind == "post" && e.Seat == 4 {
				got = append(got, fmt.Sprintf("%s/%s/%d", e.Post, e.Rule, e.Amount))
			}
		}
		if len(got) == 0 {
			continue // the button has not reached her: she waits (G-06, TP-16)
		}
		want := []string{"missed_big_blind/TP-16/10", "dead_small_blind/G-06/5"}
		if !slices.Equal(got, want) || hist.Button != 4 {
			t.Fatalf("TP-16: eve's posts in hand %d: %v with the button on %d, want %v on the button (seat 4)", no, got, hist.Button, want)
		}
		// The hand exports as PHH and the floor's file replays to the
		// stacks the table paid: her live big blind is in her first
		// action, the dead small blind her ante.
		h := r.replayPHH(table, no, dealt)
		checkLiveBlindPHH(t, h, "eve", "TP-16", "5")
		r.checkChips("after eve's post on the button")
		r.auditClean("after eve's post on the button")
		return
	}
	t.Fatal("TP-16: eve came back with post_now and was not dealt in within four hands")
}

// TestTwoDealtWithOneWaitingPlayHeadsUp_G04 plays ann (seat 0) and cat
// (seat 2) heads-up; during a hand with the button on ann, dan sits down
// in seat 1 without posting, so the next hand's button falls on his seat
// and he waits for it to pass (G-06). That hand is dealt to two and is
// played heads-up (G-04): the button goes to cat, who posts the small
// blind and acts first before the flop, ann posts the big blind and acts
// first after it. The button used to stay on dan's seat, cat acted first
// on every round, and the hand's PHH was refused 400 PHH_UNSUPPORTED (PHH
// plays two-handed hands by G-04). Every copy of its PHH is served and the
// floor's replays to the stacks the table paid; the chips and the books
// reconcile afterwards.
func TestTwoDealtWithOneWaitingPlayHeadsUp_G04(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	r := newFrontendRoom(t, "ann", "cat", "dan")
	table := r.openTable("Heads-up 5/10", 5, 10, nil)["table_id"].(string)
	r.must("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": 0, "player_id": "ann", "amount": 1000}, nil)
	r.must("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": 2, "player_id": "cat", "amount": 1000}, nil)
	for hands := 0; r.waitHand(table).Hand.Button != 0; hands++ {
		if hands == 4 {
			t.Fatal("G-04: the button did not come to ann (seat 0) in four heads-up hands")
		}
		r.playHand(table, checkDown)
	}
	r.must("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": 1, "player_id": "dan", "amount": 1000}, nil)
	r.playHand(table, checkDown)

	no := r.playHand(table, checkDown)
	hist := r.history(table, no)
	var dealt, posts, order []string
	for _, s := range hist.Seats {
		dealt = append(dealt, s.Player)
	}
	flop := false
	for _, e := range hist.Events {
		switch {
		case e.Kind == "post":
			posts = append(posts, fmt.Sprintf("%d %s/%s/%d", e.Seat, e.Post, e.Rule, e.Amount))
		case e.Kind == "deal_board":
			flop = true
		case flop && (e.Kind == "check" || e.Kind == "call"):
			order = append(order, fmt.Sprint(e.Seat))
		case !flop && (e.Kind == "check" || e.Kind == "call") && len(order) == 0:
			order = append(order, "pre "+fmt.Sprint(e.Seat))
		}
	}
	if !slices.Equal(dealt, []string{"ann", "cat"}) {
		t.Fatalf("hand %d dealt %v, want ann and cat with dan waiting for the button to pass (G-06)", no, dealt)
	}
	if hist.Button != 2 {
		t.Errorf("G-04: hand %d's button on seat %d, want cat's (2): the button goes to the player not in the big blind", no, hist.Button)
	}
	if want := []string{"2 small_blind/G-04/5", "0 big_blind/TP-10/10"}; !slices.Equal(posts, want) {
		t.Errorf("G-04: hand %d's posts %v, want %v", no, posts, want)
	}
	if len(order) < 3 || order[0] != "pre 2" || order[1] != "0" || order[2] != "2" {
		t.Errorf("G-04: hand %d's first actions by seat %v, want cat (2) first before the flop, ann (0) first after it", no, order)
	}
	r.replayPHH(table, no, dealt)
	r.checkChips("after the heads-up hand with dan waiting")
	r.auditClean("after the heads-up hand with dan waiting")
}
