package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/cardroom/cardroom/platform/random"
	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/engine/refusal"
)

func TestStudOpenPair_TP28_G18(t *testing.T) {
	t.Parallel()
	deck := stackedDeck(t, "AcAdAh KcKdKh 9c2cQh 9d3d5h")
	h := mustHand(t, studCfg(Stud), Setup{Button: 2, Players: players(500, 500, 500), Deck: deck})
	if h.ToAct() != 1 {
		t.Fatalf("bring-in is the 2c: %d", h.ToAct())
	}
	if ks := legalKinds(h); !slices.Equal(ks, []ActionKind{BringIn, Complete}) {
		t.Fatalf("bring-in options %v", ks)
	}
	act(t, h, Action{Seat: 1, Kind: BringIn})
	if l, _ := findLegal(h, Complete); l.Min != 10 {
		t.Fatalf("complete to the small bet: %+v", h.LegalActions())
	}
	act(t, h, Action{Seat: 2, Kind: Call}, Action{Seat: 0, Kind: Call})
	if h.Street() != Fourth || h.ToAct() != 0 {
		t.Fatalf("the open pair of nines acts first on 4th: %d", h.ToAct())
	}
	var bets []int64
	for _, l := range h.LegalActions() {
		if l.Kind == Bet {
			bets = append(bets, l.Min)
		}
	}
	if !slices.Equal(bets, []int64{10, 20}) {
		t.Fatalf("TP-28 bet options %v", bets)
	}
	refuse(t, h, Action{Seat: 0, Kind: Bet, Amount: 15}, "TP-28", refusal.WrongAmount)
	act(t, h, Action{Seat: 0, Kind: Bet, Amount: 20})
	// G-18: after the big bet, raises are in the big unit.
	if l, _ := findLegal(h, Raise); l.Min != 40 {
		t.Fatalf("G-18 raise to %d", l.Min)
	}
	cfg := studCfg(Stud)
	cfg.Profile.OpenPairSmallRaises = true
	h = mustHand(t, cfg, Setup{Button: 2, Players: players(500, 500, 500), Deck: deck})
	act(t, h, Action{Seat: 1, Kind: BringIn}, Action{Seat: 2, Kind: Call}, Action{Seat: 0, Kind: Call}, Action{Seat: 0, Kind: Bet, Amount: 20})
	if l, _ := findLegal(h, Raise); l.Min != 30 {
		t.Fatalf("G-18 off: raise to %d, want 30", l.Min)
	}
}

// TestStudHiLoOpenPairStaysSmall_G46: TP-28's open pair is a seven-card
// stud rule; in Stud Hi/Lo an open pair on 4th street leaves the round in
// the small unit (G-46: the bet, and the raise after it, are by the small
// unit alone, and a bet by the big unit is refused). The profile's switch
// gives Stud Hi/Lo the option (it used to have it always).
func TestStudHiLoOpenPairStaysSmall_G46(t *testing.T) {
	t.Parallel()
	deck := stackedDeck(t, "AcAdAh KcKdKh 9c2cQh 9d3d5h")
	amounts := func(h *Hand, kind ActionKind) []int64 {
		var out []int64
		for _, l := range h.LegalActions() {
			if l.Kind == kind {
				out = append(out, l.Min)
			}
		}
		return out
	}
	for _, tt := range []struct {
		name        string
		open        bool    // Profile.StudHiLoOpenPair
		bets, raise []int64 // the bets offered on 4th, the raises after a bet of 10
	}{
		{"G-46 the house default: the small unit", false, []int64{10}, []int64{20}},
		{"G-46 switched off: TP-28's option", true, []int64{10, 20}, []int64{20, 30}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := studCfg(StudHiLo)
			cfg.Profile.StudHiLoOpenPair = tt.open
			h := mustHand(t, cfg, Setup{Button: 2, Players: players(500, 500, 500), Deck: deck})
			act(t, h, Action{Seat: 1, Kind: BringIn}, Action{Seat: 2, Kind: Call}, Action{Seat: 0, Kind: Call})
			if h.Street() != Fourth || h.ToAct() != 0 {
				t.Fatalf("the open pair of nines acts first on 4th: %v, seat %d", h.Street(), h.ToAct())
			}
			if got := amounts(h, Bet); !slices.Equal(got, tt.bets) {
				t.Fatalf("bets offered %v, want %v", got, tt.bets)
			}
			if !tt.open {
				refuse(t, h, Action{Seat: 0, Kind: Bet, Amount: 20}, "TP-27", refusal.WrongAmount)
			}
			act(t, h, Action{Seat: 0, Kind: Bet, Amount: 10})
			if got := amounts(h, Raise); !slices.Equal(got, tt.raise) {
				t.Fatalf("raises offered after a bet of 10 %v, want %v", got, tt.raise)
			}
			if b, _ := h.Betting(); (b.BigUnitTo != 0) != tt.open {
				t.Fatalf("betting situation %+v: the big unit offered %v, want %v", b, b.BigUnitTo != 0, tt.open)
			}
		})
	}
}

// TestStudOpenPairRaiseByBigUnit_TP28: after a small bet on 4th street
// with an open pair, any player still in the hand may raise by the larger
// unit (TP-28), and after that the round is in the big unit (G-18). A
// wrong amount cites TP-28; wrong bring-in and completion amounts cite the
// rules they break (G-18 the bring-in, TP-27 the completion's one unit).
func TestStudOpenPairRaiseByBigUnit_TP28(t *testing.T) {
	t.Parallel()
	deck := stackedDeck(t, "AcAdAh KcKdKh 9c2cQh 9d3d5h")
	h := mustHand(t, studCfg(Stud), Setup{Button: 2, Players: players(500, 500, 500), Deck: deck})
	refuse(t, h, Action{Seat: 1, Kind: BringIn, Amount: 7}, "G-18", refusal.WrongAmount)
	act(t, h, Action{Seat: 1, Kind: BringIn})
	refuse(t, h, Action{Seat: 2, Kind: Complete, Amount: 15}, "TP-27", refusal.WrongAmount)
	act(t, h, Action{Seat: 2, Kind: Call}, Action{Seat: 0, Kind: Call})
	act(t, h, Action{Seat: 0, Kind: Bet, Amount: 10})
	var raises []int64
	for _, l := range h.LegalActions() {
		if l.Kind == Raise {
			raises = append(raises, l.Min)
		}
	}
	if !slices.Equal(raises, []int64{20, 30}) {
		t.Fatalf("TP-28 raise options after a small bet %v, want [20 30]", raises)
	}
	refuse(t, h, Action{Seat: 1, Kind: Raise, Amount: 25}, "TP-28", refusal.WrongAmount)
	// The live console reads a dealer's entry from the same situation.
	if b, ok := h.Betting(); !ok || b.MinRaiseTo != 20 || b.BigUnitTo != 30 {
		t.Fatalf("TP-28 betting situation %+v, want the raise to 20 or to 30", b)
	}
	act(t, h, Action{Seat: 1, Kind: Raise, Amount: 30})
	if b, _ := h.Betting(); b.BigUnitTo != 0 {
		t.Fatalf("G-18: after the big raise the situation still offers the big unit: %+v", b)
	}
	// G-18: the round is now in the big unit.
	if l, _ := findLegal(h, Raise); l.Min != 50 || l.Max != 50 {
		t.Fatalf("G-18 raise after the big raise: %+v, want to 50", l)
	}
	act(t, h, Action{Seat: 2, Kind: Raise, Amount: 50})
}

func TestBringIn_G09(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		game Game
		up   string // up cards of seats 0,1,2
		want int
	}{
		{"G-09 stud: lowest card, clubs lowest", Stud, "2d2cKs", 1},
		{"G-09 stud hi/lo: lowest card", StudHiLo, "5h3s4d", 1},
		{"G-09 razz: highest card, ace low, spades highest", Razz, "KcKsAd", 1},
		{"G-09 razz: an ace never brings in", Razz, "Ah2c3d", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			deck := stackedDeck(t, "7c8c9c 7d8d9d "+c.up)
			h := mustHand(t, studCfg(c.game), Setup{Button: 2, Players: players(500, 500, 500), Deck: deck})
			if h.ToAct() != c.want {
				t.Fatalf("bring-in %d, want %d", h.ToAct(), c.want)
			}
		})
	}
}

func TestRazzShowdown(t *testing.T) {
	t.Parallel()
	// Seat 0: A-2-3-4-5 low; seat 1: pairs.
	deck := stackedDeck(t, "AcKc 2dKd 3hQh 4c5d 5s6s 9c9d QsQd")
	h := mustHand(t, studCfg(Razz), Setup{Button: 1, Players: players(500, 500), Deck: deck})
	checkDown(t, h)
	showAll(t, h)
	if st := stacksOf(h); st[0] <= 500 || st[1] >= 500 {
		t.Fatalf("razz low should win: %v", st)
	}
	checkConserved(t, h)
}

func TestStudCommunityCard(t *testing.T) {
	t.Parallel()
	// Eight players all to 7th street: 48 cards dealt, 4 left: one community card.
	h := mustHand(t, studCfg(Stud), Setup{Button: 7, Players: players(500, 500, 500, 500, 500, 500, 500, 500), Deck: stackedDeck(t, "")})
	var all []Event
	for h.Phase() == PhaseBetting {
		k := Check
		if _, ok := findLegal(h, BringIn); ok {
			k = BringIn
		} else if _, ok := findLegal(h, Call); ok {
			k = Call
		}
		all = append(all, applyAll(t, h, Action{Seat: h.ToAct(), Kind: k})...)
	}
	b := eventsOf(all, EvDealBoard)
	if len(b) != 1 || b[0].Street != Seventh || len(h.Board()) != 1 {
		t.Fatalf("community card %+v", b)
	}
	for h.Phase() == PhaseShowdown {
		act(t, h, Action{Seat: h.ToAct(), Kind: Show})
	}
	checkConserved(t, h)
}

func TestOmahaUsesExactlyTwoHoleCards(t *testing.T) {
	t.Parallel()
	// Seat 0 holds one spade: the four-spade board gives no flush in Omaha.
	cfg := Config{Game: Omaha, Structure: PotLimit, Stakes: Stakes{SmallBlind: 50, BigBlind: 100}, Profile: DefaultProfile()}
	deck := holdemDeck(t, []string{"As2c3d4h", "KcKd7h8h", "QcQd5c6c"}, "Ks9s5s2sJh")
	h := mustHand(t, cfg, Setup{Button: 2, Players: players(1000, 1000, 1000), Deck: deck})
	checkDown(t, h)
	showAll(t, h)
	// Seat 1: three kings wins; seat 0 has no flush with one spade.
	wantStacks(t, h, map[int]int64{1: 1200})
}

func TestEvaluator_TP72_TP68(t *testing.T) {
	t.Parallel()
	v := func(s string) uint32 { return highValue(cards.MustParseList(s)) }
	order := []string{
		"2c3d4h5s7c8d9h", // high card
		"2c2d4h5s7c8d9h", // pair
		"2c2d4h4s7c8d9h", // two pair
		"2c2d2h5s7c8dTh", // trips
		"Ac2d3h4s5c8dTh", // wheel
		"6c7d8h9sTcKdKh", // straight
		"2h4h6h8hTh3c3d", // flush
		"2c2d2h5s5c8dTh", // full house
		"2c2d2h2s5c8dTh", // quads
		"2h3h4h5h6h8dTh", // straight flush
	}
	for i := 1; i < len(order); i++ {
		if v(order[i]) <= v(order[i-1]) {
			t.Errorf("%s should beat %s", order[i], order[i-1])
		}
	}
	// TP-72: suits never break ties.
	if v("AsKsQd9h7c3d2c") != v("AhKhQc9d7s3h2d") {
		t.Error("TP-72 suits broke a tie")
	}
	if lo, ok := low8Value(cards.MustParseList("Ac2d3h4s9cKd5h")); !ok || lo == 0 {
		t.Error("wheel low")
	}
	if _, ok := low8Value(cards.MustParseList("Ac2d3h9sTcKd5h")); ok {
		t.Error("G-17 a 9-low does not qualify")
	}
	if razzValue(cards.MustParseList("Ac2d3h4s5cKdKh")) <= razzValue(cards.MustParseList("Ac2d3h4s6cKdKh")) {
		t.Error("razz 5-low beats 6-low")
	}
	if razzValue(cards.MustParseList("Ac2d3h4s6c")) <= razzValue(cards.MustParseList("Ac2d3h4sAh")) {
		t.Error("razz: a pair is worse than no pair")
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	good := Setup{Button: 2, Players: players(1000, 1000, 1000), Deck: stackedDeck(t, "")}
	cases := []struct {
		name   string
		mutate func(*Config, *Setup)
		reason refusal.Reason
	}{
		{"unknown card in the deck", func(c *Config, s *Setup) { s.Deck = slices.Clone(s.Deck); s.Deck[3] = 60 }, refusal.BadCard},
		{"duplicate card in the deck", func(c *Config, s *Setup) { s.Deck = slices.Clone(s.Deck); s.Deck[3] = s.Deck[4] }, refusal.DuplicateCard},
		{"deck too short", func(c *Config, s *Setup) { s.Deck = s.Deck[:8] }, refusal.DeckTooShort},
		{"one player", func(c *Config, s *Setup) { s.Players = s.Players[:1] }, refusal.BadPlayerCount},
		{"duplicate seat", func(c *Config, s *Setup) { s.Players = slices.Clone(s.Players); s.Players[1].Seat = 0 }, refusal.BadSetup},
		{"TP-19 no chips", func(c *Config, s *Setup) { s.Players = slices.Clone(s.Players); s.Players[1].Stack = 0 }, refusal.BadSetup},
		{"post by a seat not in the hand", func(c *Config, s *Setup) { s.Posts = []Post{{Seat: 7, Kind: PostBigBlind, Amount: 100}} }, refusal.SeatNotInHand},
		{"negative post", func(c *Config, s *Setup) { s.Posts = []Post{{Seat: 1, Kind: PostBigBlind, Amount: -100}} }, refusal.NegativeAmount},
		{"negative stake", func(c *Config, s *Setup) { c.Stakes.Ante = -1 }, refusal.BadConfig},
		{"no-limit stud", func(c *Config, s *Setup) { c.Game = Stud }, refusal.BadConfig},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg := nlhe(50, 100)
			s := good
			c.mutate(&cfg, &s)
			_, err := NewHand(cfg, s)
			var re *refusal.Error
			if !errors.As(err, &re) || re.Reason != c.reason {
				t.Fatalf("want %s, got %v", c.reason, err)
			}
		})
	}
	h := mustHand(t, nlhe(50, 100), good)
	refuse(t, h, Action{Seat: 7, Kind: Fold}, "", refusal.SeatNotInHand)
	refuse(t, h, Action{Seat: 2, Kind: Raise, Amount: -300}, "", refusal.NegativeAmount)
	refuse(t, h, Action{Seat: 2, Kind: Raise, Amount: 5000}, "CS-05", refusal.AboveStack)
	refuse(t, h, Action{Seat: 2, Kind: Call, Amount: 70}, "TP-32", refusal.WrongAmount)
	refuse(t, h, Action{Seat: 2, Kind: Check}, "G-33", refusal.CannotCheck)
	if !errors.Is(refuse(t, h, Action{Seat: 1, Kind: Check}, "TP-46", refusal.OutOfTurn), ErrOutOfTurn) {
		t.Fatal("errors.Is sentinel")
	}
}

func TestSerializationRoundTrip(t *testing.T) {
	t.Parallel()
	deck := holdemDeck(t, []string{"AsAh", "KsKh", "QsQh"}, "2c3d7h8cJs")
	h := mustHand(t, nlhe(50, 100), Setup{Button: 2, Players: players(1000, 1000, 1000), Deck: deck})
	act(t, h, Action{Seat: 2, Kind: Raise, Amount: 300}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Call}, Action{Seat: 0, Kind: Bet, Amount: 200})
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	var r Hand
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(&r)
	if !bytes.Equal(b, b2) {
		t.Fatal("round trip changed the state")
	}
	bin, _ := h.MarshalBinary()
	var r2 Hand
	if err := r2.UnmarshalBinary(bin); err != nil {
		t.Fatal(err)
	}
	c := h.Clone()
	for _, x := range []*Hand{h, &r, &r2, c} {
		act(t, x, Action{Seat: 1, Kind: Fold}, Action{Seat: 2, Kind: Call})
		checkDown(t, x)
		showAll(t, x)
	}
	want, _ := json.Marshal(h.Results())
	for _, x := range []*Hand{&r, &r2, c} {
		got, _ := json.Marshal(x.Results())
		if !bytes.Equal(want, got) {
			t.Fatalf("restored hand diverged: %s vs %s", got, want)
		}
	}
	if err := r.UnmarshalJSON([]byte(`{"v":9}`)); err == nil {
		t.Fatal("unknown version accepted")
	}
}

// TestSerializationApart: a hand stored as its configuration and its state
// apart (MarshalState, for a store that keeps the configuration, which
// does not change during the hand, apart) restores to the same hand.
func TestSerializationApart(t *testing.T) {
	t.Parallel()
	deck := holdemDeck(t, []string{"AsAh", "KsKh", "QsQh"}, "2c3d7h8cJs")
	h := mustHand(t, nlhe(50, 100), Setup{Button: 2, Players: players(1000, 1000, 1000), Deck: deck})
	act(t, h, Action{Seat: 2, Kind: Raise, Amount: 300}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Call}, Action{Seat: 0, Kind: Bet, Amount: 200})
	st, err := h.MarshalState()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := json.Marshal(h.Config())
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(st, []byte(`"config"`)) {
		t.Fatalf("the state holds the configuration: %s", st)
	}
	var c Config
	if err := json.Unmarshal(cfg, &c); err != nil {
		t.Fatal(err)
	}
	var r Hand
	if err := r.UnmarshalState(c, st); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(h)
	if got, _ := json.Marshal(&r); !bytes.Equal(got, want) {
		t.Fatalf("restored apart:\n%s\nwant\n%s", got, want)
	}
	if err := r.UnmarshalState(c, []byte(`{"v":9}`)); err == nil {
		t.Fatal("unknown version accepted")
	}
}

func TestEventJSON(t *testing.T) {
	t.Parallel()
	h := threeWay(t, []string{"AsAh", "KsKh", "QsQh"}, "2c3d7h8cJs")
	for _, e := range h.Events() {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var back Event
		if err := json.Unmarshal(b, &back); err != nil || back != e {
			t.Fatalf("%s -> %+v (%v), want %+v", b, back, err, e)
		}
	}
	b, _ := json.Marshal(h.Events()[2])
	if string(b) != `{"kind":1,"seat":0,"cards":"AsAh"}` {
		t.Fatalf("%s", b)
	}
}

// TestDeadSmallBlindCitesItsRule_TP18: a returning player's dead small
// blind is flagged as such in the hand's events, dead and citing the rule
// that demanded it (TP-18 here, as the button planner says), not the
// ordinary blinds' TP-10 (both posts used to say TP-10).
func TestDeadSmallBlindCitesItsRule_TP18(t *testing.T) {
	t.Parallel()
	cfg := Config{Game: Holdem, Structure: NoLimit, Stakes: Stakes{SmallBlind: 5, BigBlind: 10}}
	d := cards.NewDeck()
	d.Shuffle(random.Seeded(1))
	h := mustHand(t, cfg, Setup{Button: 0, Players: players(500, 500, 500, 500), Deck: d, Posts: []Post{
		{Seat: 1, Kind: PostSmallBlind, Amount: 5}, {Seat: 2, Kind: PostBigBlind, Amount: 10},
		{Seat: 3, Kind: PostDeadSmallBlind, Amount: 5, Rule: "TP-18"}}})
	var got []string
	for _, e := range h.Events() {
		if e.Kind == EvPost {
			got = append(got, fmt.Sprintf("%s/%s/%v", e.Post, e.Rule, e.Dead))
		}
	}
	want := []string{"small_blind/TP-10/false", "big_blind/TP-10/false", "dead_small_blind/TP-18/true"}
	if !slices.Equal(got, want) {
		t.Fatalf("posts %v, want %v", got, want)
	}
}

// TestStudBettingContextInEveryView_G18: every viewer, a spectator too,
// sees who must bring in, then who brought in, and the round's betting
// unit (TP-27): the context an app needs to explain a stud hand.
func TestStudBettingContextInEveryView_G18(t *testing.T) {
	t.Parallel()
	deck := stackedDeck(t, "AcAdAh KcKdKh 9c2cQh 9d3d5h")
	h := mustHand(t, studCfg(Stud), Setup{Button: 2, Players: players(500, 500, 500), Deck: deck})
	if v := h.View(-1); v.BringInDue != 1 || v.BringIn != -1 || v.Unit != 10 {
		t.Fatalf("before the bring-in: due %d, by %d, unit %d; want 1, -1, 10", v.BringInDue, v.BringIn, v.Unit)
	}
	act(t, h, Action{Seat: 1, Kind: BringIn})
	if v := h.View(-1); v.BringInDue != -1 || v.BringIn != 1 || v.Unit != 10 {
		t.Fatalf("after the bring-in: due %d, by %d, unit %d; want -1, 1, 10", v.BringInDue, v.BringIn, v.Unit)
	}
}

// TestActionNotAllowedNamesItsRule_G18_G33: a betting action the moment
// does not allow cites the house rule that says what each action is — a
// fold or a call with nothing to call (G-33), a check by the bring-in or a
// bring-in when none is due (G-18) — so an app can show why.
func TestActionNotAllowedNamesItsRule_G18_G33(t *testing.T) {
	t.Parallel()
	stud := func(t *testing.T) *Hand {
		return mustHand(t, studCfg(Stud), Setup{Button: 2, Players: players(500, 500, 500),
			Deck: stackedDeck(t, "AcAdAh KcKdKh 9c2cQh 9d3d5h")})
	}
	checkedAround := func(t *testing.T) *Hand {
		h := mustHand(t, nlhe(50, 100), Setup{Button: 2, Players: players(1000, 1000, 1000),
			Deck: holdemDeck(t, []string{"AsAh", "KsKh", "QsQh"}, "2c3d7h8cJs")})
		act(t, h, Action{Seat: 2, Kind: Call}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Check})
		return h // the flop, nobody has bet: seat 0 to act
	}
	cases := []struct {
		name string
		hand func(*testing.T) *Hand
		a    Action
		rule string
	}{
		{"fold with nothing to call", checkedAround, Action{Seat: 0, Kind: Fold}, "G-33"},
		{"call with nothing to call", checkedAround, Action{Seat: 0, Kind: Call}, "G-33"},
		{"the bring-in checks", stud, Action{Seat: 1, Kind: Check}, "G-18"},
		{"a bring-in when none is due", checkedAround, Action{Seat: 0, Kind: BringIn}, "G-18"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			refuse(t, c.hand(t), c.a, c.rule, refusal.ActionNotAllowed)
		})
	}
}
