package main

// Issue 17: the stud open-pair rule (TP-28) over REST, the way an app
// meets it: the choice of unit in the legal actions, a raise by the big
// unit after a small bet, and the round in the big unit after it (G-18).

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// legalAll returns every legal action of kind (TP-28 offers a kind twice).
func legalAll(st tableState, kind string) []legalAction {
	var out []legalAction
	for _, l := range st.Hand.Legal {
		if l.Kind == kind {
			out = append(out, l)
		}
	}
	slices.SortFunc(out, func(a, b legalAction) int { return cmp.Compare(a.Min, b.Min) })
	return out
}

// studMove brings in, calls or checks; on fourth street without an open
// pair the first player bets and the others fold, so hands are short.
func studMove(st tableState, _ int) move {
	if _, ok := legalOf(st, "ACTION_KIND_BRING_IN"); ok {
		return move{kind: "ACTION_KIND_BRING_IN"}
	}
	if st.Hand.Street == "fourth" {
		if b, ok := legalOf(st, "ACTION_KIND_BET"); ok {
			return move{kind: "ACTION_KIND_BET", amount: b.Min}
		}
		if _, ok := legalOf(st, "ACTION_KIND_FOLD"); ok {
			return move{kind: "ACTION_KIND_FOLD"}
		}
	}
	return checkDown(st, 0)
}

// TestStudOpenPairRaiseByBigUnit_TP28 plays seven-card stud at 20/40
// (ante 5, bring-in 10) over REST until a fourth street with an open pair.
// There the first player is offered the bet in either unit; after a small
// bet of 20 the next player is offered a raise by the small unit (to 40)
// and by the big unit (to 60) — once only the first was offered, and
// RAISE 60 was refused WRONG_AMOUNT citing TP-28. A raise to another
// amount is refused WRONG_AMOUNT citing TP-28; the raise to 60 is
// accepted, and the round is then in the big unit (bet_unit 40, the next
// raise to 100; G-18). On the way a wrong bring-in is refused citing
// G-18 and a wrong completion citing TP-27, and after the hand every
// player's PHH copy holds every card dealt face up.
func TestStudOpenPairRaiseByBigUnit_TP28(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	players := []string{"ann", "bob", "cat", "dan", "eve", "fay", "gus"}
	r := newFrontendRoom(t, players...)
	var out struct{ Table map[string]any }
	r.must("POST", "/v1/tables", r.floor, map[string]any{"name": "Stud 20/40", "seats": 8, "kind": "TABLE_KIND_CASH",
		"mode": "TABLE_MODE_DIGITAL", "game": map[string]any{"variant": "VARIANT_STUD", "structure": "STRUCTURE_FIXED_LIMIT",
			"stakes": map[string]any{"ante": 5, "bring_in": 10, "small_bet": 20, "big_bet": 40}}}, &out)
	table := out.Table["table_id"].(string)
	r.tables = append(r.tables, table)
	for i, p := range players {
		r.must("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": i, "player_id": p, "amount": 1000}, nil)
	}
	actions := "/v1/tables/" + table + "/actions"
	// own is the table as the player in turn sees it.
	own := func() (tableState, string) {
		st := r.waitHand(table)
		p := st.Seats[st.Hand.ToAct].PlayerID
		return r.state(table, r.tokens[p]), p
	}
	post := func(p string, st tableState, m move) {
		t.Helper()
		r.actions++
		r.must("POST", actions, r.tokens[p], map[string]any{"kind": m.kind, "amount": m.amount,
			"expected_sequence": st.Sequence, "action_id": fmt.Sprintf("%s-%d", p, r.actions)}, nil)
	}
	// Refusals name the rule they apply (issue 17): a wrong bring-in G-18,
	// a wrong completion TP-27 (they used to cite G-07 and TP-28); 5 more
	// than offered is a multiple of the chip (TP-31).
	wrong := map[string]string{"ACTION_KIND_BRING_IN": "G-18", "ACTION_KIND_COMPLETE": "TP-27"}
	for range 400 {
		st, p := own()
		for kind, rule := range wrong {
			l, ok := legalOf(st, kind)
			if !ok {
				continue
			}
			code, e := r.refused("POST", actions, r.tokens[p], map[string]any{"kind": kind, "amount": l.Min + 5, "expected_sequence": st.Sequence})
			if code != http.StatusBadRequest || e.Reason != "WRONG_AMOUNT" || e.RuleID != rule {
				t.Fatalf("%s: %s to %d: %d %+v, want 400 WRONG_AMOUNT %s", rule, kind, l.Min+5, code, e, rule)
			}
			delete(wrong, kind)
		}
		bets := legalAll(st, "ACTION_KIND_BET")
		if st.Hand.Street != "fourth" || len(bets) != 2 {
			post(p, st, studMove(st, st.ViewerSeat))
			continue
		}
		// An open pair on fourth street: the bet in either unit (TP-28).
		if bets[0].Min != 20 || bets[1].Min != 40 {
			t.Fatalf("TP-28: open pair, bets offered %+v, want 20 and 40", bets)
		}
		post(p, st, move{kind: "ACTION_KIND_BET", amount: 20})
		next, q := own()
		raises := legalAll(next, "ACTION_KIND_RAISE")
		if len(raises) != 2 || raises[0].Min != 40 || raises[1].Min != 60 {
			t.Fatalf("TP-28: after a small bet %s is offered raises %+v, want to 40 and to 60", q, next.Hand.Legal)
		}
		code, e := r.refused("POST", actions, r.tokens[q], map[string]any{"kind": "ACTION_KIND_RAISE", "amount": 50,
			"expected_sequence": next.Sequence})
		if code != http.StatusBadRequest || e.Reason != "WRONG_AMOUNT" || e.RuleID != "TP-28" {
			t.Fatalf("TP-28: a raise to 50: %d %+v, want 400 WRONG_AMOUNT TP-28", code, e)
		}
		post(q, next, move{kind: "ACTION_KIND_RAISE", amount: 60})
		after, u := own()
		var unit struct {
			State struct {
				Hand struct {
					BetUnit int64 `json:"bet_unit,string"`
				}
			}
		}
		r.must("GET", "/v1/tables/"+table+"/state", r.tokens["ann"], nil, &unit)
		raises = legalAll(after, "ACTION_KIND_RAISE")
		if unit.State.Hand.BetUnit != 40 || len(raises) != 1 || raises[0].Min != 100 {
			t.Fatalf("G-18: after the big raise bet_unit %d and %s is offered %+v, want 40 and a raise to 100",
				unit.State.Hand.BetUnit, u, after.Hand.Legal)
		}
		no := r.playHand(table, checkDown)
		checkPublicStudCardsInPHH(t, r, table, no)
		r.checkChips("after the open-pair hand")
		r.auditClean("after the open-pair hand")
		return
	}
	t.Fatal("no fourth street with an open pair in 400 actions")
}

// checkPublicStudCardsInPHH reads the hand's PHH as each player dealt in:
// every card dealt face up — a folded player's door card too — is public
// and is in each player's copy (it used to be masked as "??" with the
// hole cards: "d dh p3 ??????").
func checkPublicStudCardsInPHH(t *testing.T, r *room, table string, no int64) {
	t.Helper()
	var full struct {
		History struct {
			Seats []struct {
				Player  string   `json:"player_id"`
				Cards   []string `json:"cards"`
				CardsUp []bool   `json:"cards_up"`
			}
		}
	}
	r.must("GET", fmt.Sprintf("/v1/tables/%s/hands/%d", table, no), r.floor, nil, &full)
	var up []string
	for _, s := range full.History.Seats {
		for i, c := range s.Cards {
			if i < len(s.CardsUp) && s.CardsUp[i] {
				up = append(up, c)
			}
		}
	}
	if len(up) < len(full.History.Seats) {
		t.Fatalf("hand %d: %d up cards for %d seats in the floor's history (cards_up)", no, len(up), len(full.History.Seats))
	}
	for _, s := range full.History.Seats {
		var ph struct{ Content string }
		r.must("GET", fmt.Sprintf("/v1/tables/%s/hands/%d?format=HISTORY_FORMAT_PHH", table, no), r.tokens[s.Player], nil, &ph)
		for _, c := range up {
			if !strings.Contains(ph.Content, c) {
				t.Fatalf("hand %d: %s's PHH lacks the up card %s:\n%s", no, s.Player, c, ph.Content)
			}
		}
	}
}

// TestStudHiLoOpenPairStaysSmall_G46 plays Stud Hi/Lo at 20/40 over REST
// until a fourth street on which a player still in the hand shows an open
// pair. TP-28's big-unit option is a seven-card stud rule: here the player
// to open is offered the bet by the small unit alone (it used to be offered
// 40 too), and a bet of 40 is refused WRONG_AMOUNT citing TP-27 (G-46).
func TestStudHiLoOpenPairStaysSmall_G46(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	players := []string{"ann", "bob", "cat", "dan", "eve", "fay", "gus"}
	r := newFrontendRoom(t, players...)
	var out struct{ Table map[string]any }
	r.must("POST", "/v1/tables", r.floor, map[string]any{"name": "Stud 8 20/40", "seats": 8, "kind": "TABLE_KIND_CASH",
		"mode": "TABLE_MODE_DIGITAL", "game": map[string]any{"variant": "VARIANT_STUD_HI_LO", "structure": "STRUCTURE_FIXED_LIMIT",
			"stakes": map[string]any{"ante": 5, "bring_in": 10, "small_bet": 20, "big_bet": 40}}}, &out)
	table := out.Table["table_id"].(string)
	r.tables = append(r.tables, table)
	for i, p := range players {
		r.must("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": i, "player_id": p, "amount": 1000}, nil)
	}
	// openPair reports whether a seat still in the hand shows a pair.
	openPair := func() bool {
		var raw struct {
			State struct {
				Seats []struct {
					Cards   []string
					CardsUp []bool `json:"cards_up"`
					InHand  bool   `json:"in_hand"`
					Folded  bool
				}
			}
		}
		r.must("GET", "/v1/tables/"+table+"/state", r.floor, nil, &raw)
		for _, s := range raw.State.Seats {
			var up []string
			for i, c := range s.Cards {
				if i < len(s.CardsUp) && s.CardsUp[i] {
					up = append(up, c[:1])
				}
			}
			if s.InHand && !s.Folded && len(up) == 2 && up[0] == up[1] {
				return true
			}
		}
		return false
	}
	for range 600 {
		st := r.waitHand(table)
		p := st.Seats[st.Hand.ToAct].PlayerID
		own := r.state(table, r.tokens[p])
		bets := legalAll(own, "ACTION_KIND_BET")
		if own.Hand.Street != "fourth" || len(bets) == 0 || !openPair() {
			r.act(table, studMove)
			continue
		}
		if len(bets) != 1 || bets[0].Min != 20 {
			t.Fatalf("G-46: an open pair in Stud Hi/Lo, %s is offered bets %+v, want 20 alone", p, bets)
		}
		code, e := r.refused("POST", "/v1/tables/"+table+"/actions", r.tokens[p], map[string]any{"kind": "ACTION_KIND_BET", "amount": 40,
			"expected_sequence": own.Sequence})
		if code != http.StatusBadRequest || e.Reason != "WRONG_AMOUNT" || e.RuleID != "TP-27" {
			t.Fatalf("G-46: a bet of 40 on an open pair in Stud Hi/Lo: %d %+v, want 400 WRONG_AMOUNT TP-27", code, e)
		}
		r.playHand(table, checkDown)
		r.checkChips("after the open-pair hand")
		r.auditClean("after the open-pair hand")
		return
	}
	t.Fatal("no fourth street with an open pair in 600 actions")
}
