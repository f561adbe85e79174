package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/engine/refusal"
)

// stackedDeck puts the named cards first, then the rest of a fresh deck in order.
func stackedDeck(t testing.TB, s string) cards.Deck {
	t.Helper()
	top, err := cards.ParseListUnknown(s)
	if err != nil {
		t.Fatal(err)
	}
	var used uint64
	d := make(cards.Deck, 0, 52)
	for _, c := range top {
		d = append(d, c)
		used |= 1 << c
	}
	for c := cards.Card(0); c < cards.NumCards; c++ {
		if used&(1<<c) == 0 {
			d = append(d, c)
		}
	}
	return d
}

// holdemDeck builds a deck dealing hole[k] to the k-th seat left of the
// button (two cards each, round-robin) and then the board.
func holdemDeck(t testing.TB, holes []string, board string) cards.Deck {
	t.Helper()
	n := len(holes)
	per := 0
	var hs [][]cards.Card
	for _, h := range holes {
		cs := cards.MustParseList(h)
		per = len(cs)
		hs = append(hs, cs)
	}
	var s []cards.Card
	for r := 0; r < per; r++ {
		for k := 0; k < n; k++ {
			s = append(s, hs[k][r])
		}
	}
	s = append(s, cards.MustParseList(board)...)
	return stackedDeck(t, cards.Format(s))
}

func players(stacks ...int64) []Player {
	ps := make([]Player, len(stacks))
	for i, s := range stacks {
		ps[i] = Player{Seat: i, ID: string(rune('A' + i)), Stack: s}
	}
	return ps
}

func nlhe(sb, bb int64) Config {
	return Config{Game: Holdem, Structure: NoLimit, Stakes: Stakes{SmallBlind: sb, BigBlind: bb}, Profile: DefaultProfile()}
}

func mustHand(t testing.TB, cfg Config, s Setup) *Hand {
	t.Helper()
	h, err := NewHand(cfg, s)
	if err != nil {
		t.Fatalf("NewHand: %v", err)
	}
	return h
}

// act applies actions that must succeed.
func act(t testing.TB, h *Hand, as ...Action) {
	t.Helper()
	for _, a := range as {
		if _, err := h.Apply(a); err != nil {
			t.Fatalf("apply %+v: %v (legal %+v)", a, err, h.LegalActions())
		}
	}
}

// refuse applies an action that must fail with the rule and reason given,
// and checks the state did not change.
func refuse(t testing.TB, h *Hand, a Action, rule string, reason refusal.Reason) *refusal.Error {
	t.Helper()
	before, _ := json.Marshal(h)
	_, err := h.Apply(a)
	var re *refusal.Error
	if !errors.As(err, &re) {
		t.Fatalf("apply %+v: want refusal.Error %s %s, got %v", a, rule, reason, err)
	}
	if re.Rule != rule || re.Reason != reason {
		t.Fatalf("apply %+v: want %s %s, got %s %s (%v)", a, rule, reason, re.Rule, re.Reason, re)
	}
	after, _ := json.Marshal(h)
	if !bytes.Equal(before, after) {
		t.Fatalf("state changed by refused action %+v", a)
	}
	return re
}

func legalKinds(h *Hand) []ActionKind {
	var ks []ActionKind
	for _, l := range h.LegalActions() {
		ks = append(ks, l.Kind)
	}
	return ks
}

func findLegal(h *Hand, k ActionKind) (Legal, bool) {
	for _, l := range h.LegalActions() {
		if l.Kind == k {
			return l, true
		}
	}
	return Legal{}, false
}

func stacksOf(h *Hand) map[int]int64 {
	m := map[int]int64{}
	for _, s := range h.Results().Seats {
		m[s.Seat] = s.Stack
	}
	return m
}

func wantStacks(t testing.TB, h *Hand, want map[int]int64) {
	t.Helper()
	if !h.Done() {
		t.Fatalf("hand not done (phase %v, to act %d, legal %+v)", h.Phase(), h.ToAct(), h.LegalActions())
	}
	got := stacksOf(h)
	for s, w := range want {
		if got[s] != w {
			t.Errorf("seat %d stack %d, want %d (all %v)", s, got[s], w, got)
		}
	}
}

// checkConserved asserts chips are conserved and no stack is negative.
func checkConserved(t testing.TB, h *Hand) {
	t.Helper()
	var start, now int64
	for i := range h.s.Seats {
		p := &h.s.Seats[i]
		if p.Stack < 0 {
			t.Fatalf("seat %d negative stack %d", p.Seat, p.Stack)
		}
		start += p.Start
		now += p.Stack
		if !h.Done() {
			now += p.Total
		}
	}
	if start != now {
		t.Fatalf("chips not conserved: start %d now %d", start, now)
	}
	if h.Done() {
		var pots, awarded int64
		for _, p := range h.s.Pots {
			pots += p.Amount
			for _, w := range p.Winners {
				awarded += w.Amount
			}
		}
		var totals int64
		for i := range h.s.Seats {
			totals += h.s.Seats[i].Total
		}
		if pots != awarded || pots != totals {
			t.Fatalf("pots %d awarded %d contributed %d", pots, awarded, totals)
		}
	}
}
