package dealer

import (
	"testing"

	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/engine/live"
)

// TestConsoleOpenPairRaiseByBigUnit_TP28: at a live stud table the dealer
// console reads a raise by the larger unit after a small bet on an open
// pair's fourth street as that raise (TP-28) — it used to cut every
// fixed-limit wager to the one small unit, so "raise to 30" at 10/20 was
// proposed as a raise to 20 citing TP-27 — and once the round is in the big
// unit (G-18) it proposes only that.
func TestConsoleOpenPairRaiseByBigUnit_TP28(t *testing.T) {
	t.Parallel()
	cfg := engine.Config{Game: engine.Stud, Structure: engine.FixedLimit, Mode: engine.Live,
		Stakes: engine.Stakes{BringIn: 5, SmallBet: 10, BigBet: 20}, Profile: engine.DefaultProfile()}
	tb := New("t1", cfg, 8, Settings{})
	for i := range 3 {
		if _, err := tb.Sit(i, string(rune('A'+i)), 500, true); err != nil {
			t.Fatal(err)
		}
	}
	// The cards are physical: the dealer enters each up card. Seat 0's
	// nines pair face up on fourth street; seat 1's deuce brings it in.
	up := map[engine.Street][]string{engine.Third: {"9c", "2c", "Qh"}, engine.Fourth: {"9d", "3d", "5h"}}
	enterUp := func() {
		t.Helper()
		a, ok := tb.Hand().Awaiting()
		if !ok {
			return
		}
		for _, s := range a.UpSeats {
			_, err := tb.Apply(Act{Action: engine.Action{Seat: s, Kind: engine.DealSeat, By: engine.RoleDealer,
				Cards: cards.MustParseList(up[a.Street][s])}}, t0)
			if err != nil {
				t.Fatalf("up card of seat %d on %v: %v", s, a.Street, err)
			}
		}
	}
	if _, err := tb.StartHand(nil, t0); err != nil {
		t.Fatal(err)
	}
	h := tb.Hand()
	enterUp()
	for steps := 0; h.Street() == engine.Third; steps++ {
		if steps > 5 {
			t.Fatal("third street does not end")
		}
		kind := engine.Call
		if _, ok := legal(h, engine.BringIn); ok {
			kind = engine.BringIn
		}
		act(t, tb, h.ToAct(), kind, 0)
	}
	enterUp()
	if h.ToAct() != 0 {
		t.Fatalf("the open pair of nines (seat 0) acts first on fourth street, not seat %d", h.ToAct())
	}
	act(t, tb, h.ToAct(), engine.Bet, 10) // the open pair bets the small unit
	propose := func(amount int64) Proposal {
		t.Helper()
		p, _, err := tb.Interpret("x", -1, live.Entry{Declaration: live.DeclareBetOrRaise, Amount: amount, DeclaredBeforeChips: true})
		if err != nil {
			t.Fatalf("interpret a raise to %d: %v", amount, err)
		}
		return p
	}
	for _, c := range []struct {
		name       string
		declared   int64
		want       int64
		rule, text string
	}{
		{"TP-28 a raise by the larger unit", 30, 30, "TP-28", ""},
		{"TP-28 more than the larger unit is the larger unit", 50, 30, "TP-28", ""},
		{"TP-28 between the units is the smaller", 25, 20, "TP-28", ""},
		{"TP-28 the smaller unit", 20, 20, "", ""},
	} {
		p := propose(c.declared)
		if p.Kind != engine.Raise || p.Amount != c.want || (c.rule != "" && !p.Ruling.Rule(c.rule)) || p.Ruling.Rule("TP-27") {
			t.Fatalf("%s: raise to %d proposed %v to %d, rules %+v; want a raise to %d citing %s", c.name, c.declared, p.Kind, p.Amount, p.Ruling.Rules, c.want, c.rule)
		}
	}
	act(t, tb, h.ToAct(), engine.Raise, 30)
	// G-18: the round is in the big unit now.
	if p := propose(40); p.Kind != engine.Raise || p.Amount != 50 || !p.Ruling.Rule("TP-27") {
		t.Fatalf("G-18: after the big raise a raise to 40 proposed %v to %d, rules %+v; want a raise to 50 citing TP-27", p.Kind, p.Amount, p.Ruling.Rules)
	}
}
