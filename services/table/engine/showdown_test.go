package engine

import (
	"slices"
	"testing"

	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/engine/refusal"
)

// checkDown checks or calls until the betting is over.
func checkDown(t *testing.T, h *Hand) {
	t.Helper()
	for h.Phase() == PhaseBetting {
		k := Check
		if _, ok := findLegal(h, BringIn); ok {
			k = BringIn
		} else if _, ok := findLegal(h, Call); ok {
			k = Call
		}
		act(t, h, Action{Seat: h.ToAct(), Kind: k})
	}
}

// showAll shows every hand asked for.
func showAll(t *testing.T, h *Hand) {
	t.Helper()
	for h.Phase() == PhaseShowdown {
		act(t, h, Action{Seat: h.ToAct(), Kind: Show})
	}
}

func eventsOf(evs []Event, k EventKind) []Event {
	var out []Event
	for _, e := range evs {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// applyAll applies actions and collects all their events.
func applyAll(t *testing.T, h *Hand, as ...Action) []Event {
	t.Helper()
	var all []Event
	for _, a := range as {
		ev, err := h.Apply(a)
		if err != nil {
			t.Fatalf("apply %+v: %v (legal %+v)", a, err, h.LegalActions())
		}
		all = append(all, ev...)
	}
	return all
}

func TestSidePots_TP44(t *testing.T) {
	t.Parallel()
	deck := holdemDeck(t, []string{"AsAh", "KsKh", "QsQh"}, "2c3d7h8cJs")
	h := mustHand(t, nlhe(50, 100), Setup{Button: 2, Players: players(100, 300, 500), Deck: deck})
	ev := applyAll(t, h, Action{Seat: 2, Kind: Raise, Amount: 500}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Call})
	ret := eventsOf(ev, EvReturn)
	if len(ret) != 1 || ret[0].Seat != 2 || ret[0].Amount != 200 {
		t.Fatalf("TP-44 uncalled 200 returned: %+v", ret)
	}
	if len(eventsOf(ev, EvExpose)) != 0 {
		t.Fatal("G-22: cash hands are not exposed by default")
	}
	if h.Board()[4] != cards.MustParseList("Js")[0] {
		t.Fatalf("all-in run-out board %v", h.Board())
	}
	showAll(t, h)
	wantStacks(t, h, map[int]int64{0: 300, 1: 400, 2: 200})
	r := h.Results()
	if len(r.Pots) != 2 || r.Pots[0].Amount != 300 || r.Pots[1].Amount != 400 {
		t.Fatalf("pots %+v", r.Pots)
	}
	if !slices.Equal(r.Pots[0].EligibleSeats(), []int{0, 1, 2}) || !slices.Equal(r.Pots[1].EligibleSeats(), []int{1, 2}) {
		t.Fatalf("eligible %v %v", r.Pots[0].EligibleSeats(), r.Pots[1].EligibleSeats())
	}
	checkConserved(t, h)
}

func TestDeadMoney_TP44(t *testing.T) {
	t.Parallel()
	// A folded player's chips stay in the pot for the others.
	deck := holdemDeck(t, []string{"AsAh", "KsKh", "QsQh"}, "2c3d7h8cJs")
	h := mustHand(t, nlhe(50, 100), Setup{Button: 2, Players: players(1000, 1000, 1000), Deck: deck})
	act(t, h, Action{Seat: 2, Kind: Raise, Amount: 300}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Fold})
	checkDown(t, h)
	showAll(t, h)
	wantStacks(t, h, map[int]int64{0: 1400, 1: 900, 2: 700})
}

func TestAllInFaceUp_TP45_G22(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name       string
		tournament bool
		cashFaceUp bool
		rule       string
	}{
		{"TP-45 tournament all-in hands are turned face up", true, false, "TP-45"},
		{"G-22 cash tables expose when the profile says so", false, true, "G-22"},
		{"G-22 cash default: no exposure", false, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg := nlhe(50, 100)
			cfg.Tournament = c.tournament
			cfg.Profile.CashAllInFaceUp = c.cashFaceUp
			deck := holdemDeck(t, []string{"AsAh", "KsKh", "QsQh"}, "2c3d7h8cJs")
			h := mustHand(t, cfg, Setup{Button: 2, Players: players(100, 300, 500), Deck: deck})
			ev := applyAll(t, h, Action{Seat: 2, Kind: Raise, Amount: 500}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Call})
			exp := eventsOf(ev, EvExpose)
			if c.rule == "" {
				if len(exp) != 0 || h.Done() {
					t.Fatalf("exposed %d done %v", len(exp), h.Done())
				}
				return
			}
			if len(exp) != 3 || exp[0].Rule != c.rule {
				t.Fatalf("exposures %+v", exp)
			}
			// Everything is face up: the showdown needs no decisions.
			if !h.Done() {
				t.Fatalf("hand not done: %v", h.LegalActions())
			}
			v := h.View(0)
			if v.Seats[2].Cards[0] == cards.Unknown {
				t.Fatal("exposed hand hidden in a player view")
			}
			wantStacks(t, h, map[int]int64{0: 300, 1: 400, 2: 200})
		})
	}
}

// threeWay deals seats 0,1,2 (button 2) the given holes and board.
func threeWay(t *testing.T, holes []string, board string) *Hand {
	t.Helper()
	return mustHand(t, nlhe(50, 100), Setup{Button: 2, Players: players(1000, 1000, 1000), Deck: holdemDeck(t, holes, board)})
}

func TestShowdownOrder_TP61_TP62_TP63(t *testing.T) {
	t.Parallel()
	holes := []string{"AsAh", "KsKh", "QsQh"}
	board := "2c3d7h8cJs"
	t.Run("TP-62 the last bettor on the final round shows first; TP-61 folded hands take no part", func(t *testing.T) {
		t.Parallel()
		h := threeWay(t, holes, board)
		checkUntil(t, h, River)
		act(t, h, Action{Seat: 0, Kind: Check}, Action{Seat: 1, Kind: Bet, Amount: 100}, Action{Seat: 2, Kind: Fold}, Action{Seat: 0, Kind: Call})
		if h.Phase() != PhaseShowdown || h.ToAct() != 1 {
			t.Fatalf("first to show %d", h.ToAct())
		}
		if slices.Contains(h.s.Order, 2) {
			t.Fatal("TP-61 folded seat in the showdown")
		}
	})
	t.Run("TP-63 checked river: the last aggressor of the hand shows first", func(t *testing.T) {
		t.Parallel()
		h := threeWay(t, holes, board)
		checkUntil(t, h, Turn)
		act(t, h, Action{Seat: 0, Kind: Check}, Action{Seat: 1, Kind: Check}, Action{Seat: 2, Kind: Bet, Amount: 100},
			Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Call})
		checkDown(t, h)
		if h.ToAct() != 2 {
			t.Fatalf("first to show %d, want 2", h.ToAct())
		}
	})
	t.Run("TP-63 no bet in the hand: first seat left of the button", func(t *testing.T) {
		t.Parallel()
		h := threeWay(t, holes, board)
		checkDown(t, h)
		if h.ToAct() != 0 {
			t.Fatalf("first to show %d, want 0", h.ToAct())
		}
	})
}

// checkUntil checks/calls until street s starts.
func checkUntil(t *testing.T, h *Hand, s Street) {
	t.Helper()
	for h.Street() < s && h.Phase() == PhaseBetting {
		k := Check
		if _, ok := findLegal(h, Call); ok {
			k = Call
		}
		act(t, h, Action{Seat: h.ToAct(), Kind: k})
	}
}

func TestMuckingAtShowdown_TP64(t *testing.T) {
	t.Parallel()
	h := threeWay(t, []string{"2c7d", "3c8d", "KsKh"}, "AsQh9d5c4h")
	checkDown(t, h)
	act(t, h, Action{Seat: 0, Kind: Muck})
	ev := applyAll(t, h, Action{Seat: 1, Kind: Muck})
	if !h.Done() || len(eventsOf(ev, EvShow)) != 0 {
		t.Fatalf("TP-64 the last hand wins unshown: done %v events %+v", h.Done(), ev)
	}
	wantStacks(t, h, map[int]int64{2: 1200})
	if v := h.HistoryView(0); v.Seats[2].Cards[0] != cards.Unknown || v.Seats[1].Cards[0] != cards.Unknown {
		t.Fatal("TP-64 unshown cards displayed")
	}
}

func headsUp(t *testing.T, holes []string, board string) *Hand {
	t.Helper()
	// Button 1 posts the small blind; the deal starts at seat 0.
	return mustHand(t, nlhe(50, 100), Setup{Button: 1, Players: players(1000, 1000), Deck: holdemDeck(t, holes, board)})
}

func TestShowOnRequest_TP65(t *testing.T) {
	t.Parallel()
	play := func(t *testing.T) *Hand {
		h := headsUp(t, []string{"AsAh", "2c7d"}, "KdQc9s5h3h")
		act(t, h, Action{Seat: 1, Kind: Call}, Action{Seat: 0, Kind: Check})
		checkUntil(t, h, River)
		act(t, h, Action{Seat: 0, Kind: Bet, Amount: 100}, Action{Seat: 1, Kind: Call})
		if h.ToAct() != 0 {
			t.Fatalf("TP-62 bettor first: %d", h.ToAct())
		}
		act(t, h, Action{Seat: 0, Kind: Muck})
		if ks := legalKinds(h); !slices.Equal(ks, []ActionKind{Show, RequestShow, Waive}) {
			t.Fatalf("caller options %v", ks)
		}
		return h
	}
	t.Run("TP-65 a hand shown on request is live and wins", func(t *testing.T) {
		t.Parallel()
		h := play(t)
		ev := applyAll(t, h, Action{Seat: 1, Kind: RequestShow})
		if e := eventsOf(ev, EvExpose); len(e) != 1 || e[0].Seat != 0 || e[0].Rule != "TP-65" {
			t.Fatalf("expose %+v", ev)
		}
		wantStacks(t, h, map[int]int64{0: 1200, 1: 800})
	})
	t.Run("TP-65 the caller waives and wins unshown", func(t *testing.T) {
		t.Parallel()
		h := play(t)
		act(t, h, Action{Seat: 1, Kind: Waive})
		wantStacks(t, h, map[int]int64{0: 800, 1: 1200})
	})
}

func TestAutoMuck_TP66(t *testing.T) {
	t.Parallel()
	h := threeWay(t, []string{"AsAh", "2c7d", "KsKh"}, "Qc9s5h3hJd")
	checkDown(t, h)
	ev := applyAll(t, h, Action{Seat: 0, Kind: Show})
	m := eventsOf(ev, EvMuck)
	if len(m) != 2 || m[0].Rule != "TP-66" || m[0].Seat != 1 || m[1].Seat != 2 {
		t.Fatalf("TP-66 auto-mucks %+v", m)
	}
	wantStacks(t, h, map[int]int64{0: 1200})
	if h.View(0).Seats[1].Cards[0] != cards.Unknown || h.HistoryView(0).Seats[1].Cards[0] == cards.Unknown {
		t.Fatal("TP-66 auto-mucked hands are hidden at the table but in the seated players' history")
	}
	// TP-71: staff see every card, including mucked hands.
	fv := h.FullView()
	if fv.Seats[1].Cards[0] == cards.Unknown || !fv.Seats[1].Mucked {
		t.Fatal("TP-71 full view hides a mucked hand")
	}
}

func TestTabledWinner_TP67_TP02(t *testing.T) {
	t.Parallel()
	h := threeWay(t, []string{"KsKh", "AsAh", "QsQh"}, "2c3d7h8cJs")
	checkDown(t, h)
	ev := applyAll(t, h, Action{Seat: 0, Kind: Show})
	if s := eventsOf(ev, EvShow); len(s) != 1 || s[0].NCards != 2 || h.ToAct() != 1 {
		t.Fatalf("TP-67 all cards shown: %+v", s)
	}
	refuse(t, h, Action{Seat: 0, Kind: Kill, By: RoleDealer, Kill: KillFouled}, "TP-67", refusal.ShownWinner)
	// TP-02: the floor's override is never blocked.
	act(t, h, Action{Seat: 0, Kind: Kill, By: RoleFloor, Kill: KillFouled})
	showAll(t, h)
	wantStacks(t, h, map[int]int64{0: 900, 1: 1200})
}

func TestCardsSpeak_TP68_TP69(t *testing.T) {
	t.Parallel()
	// Seat 1's flush comes from the board; nobody claims anything.
	h := threeWay(t, []string{"AsKd", "2h3c", "9c9d"}, "Ah7h8hQh4s")
	act(t, h, Action{Seat: 2, Kind: Raise, Amount: 300}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Call})
	checkDown(t, h)
	showAll(t, h)
	// TP-69: the losers get nothing back.
	wantStacks(t, h, map[int]int64{0: 700, 1: 1600, 2: 700})
}

func TestShowAfterUncalledBet_TP70(t *testing.T) {
	t.Parallel()
	h := threeWay(t, []string{"AsAh", "KsKh", "QsQh"}, "2c3d7h8cJs")
	act(t, h, Action{Seat: 2, Kind: Raise, Amount: 300}, Action{Seat: 0, Kind: Fold}, Action{Seat: 1, Kind: Fold})
	wantStacks(t, h, map[int]int64{2: 1150})
	if ls := h.LegalActions(); len(ls) != 1 || ls[0].Kind != Show || ls[0].Seat != 2 {
		t.Fatalf("TP-70 legal %+v", ls)
	}
	if v := h.View(0); v.Seats[2].Cards[0] != cards.Unknown {
		t.Fatal("uncalled winner's cards shown by default")
	}
	ev := applyAll(t, h, Action{Seat: 2, Kind: Show})
	if s := eventsOf(ev, EvShow); len(s) != 1 || s[0].Rule != "TP-70" {
		t.Fatalf("%+v", ev)
	}
	refuse(t, h, Action{Seat: 0, Kind: Show}, "", refusal.HandOver)
}

func TestViews_TP71(t *testing.T) {
	t.Parallel()
	h := threeWay(t, []string{"AsAh", "KsKh", "QsQh"}, "2c3d7h8cJs")
	act(t, h, Action{Seat: 2, Kind: Fold})
	v := h.View(0)
	if v.Seats[0].Cards[0] != cards.MustParseList("As")[0] {
		t.Fatal("own cards hidden")
	}
	if v.Seats[1].Cards[0] != cards.Unknown || v.Seats[2].Cards[0] != cards.Unknown {
		t.Fatal("others' cards visible")
	}
	if h.ToAct() != 0 || len(v.Legal) != 3 || len(h.View(1).Legal) != 0 {
		t.Fatalf("legal in view %+v", v.Legal)
	}
	fv := h.FullView()
	if fv.Seats[2].Cards[0] != cards.MustParseList("Qs")[0] {
		t.Fatal("TP-71 full view hides a folded hand")
	}
}

func TestSuitsDoNotBreakTies_TP72(t *testing.T) {
	t.Parallel()
	h := threeWay(t, []string{"AsKs", "AhKh", "2c3d"}, "9d7hTcJdQs")
	checkDown(t, h)
	showAll(t, h)
	wantStacks(t, h, map[int]int64{0: 1050, 1: 1050, 2: 900})
}

func TestOddChips_TP73_TP74(t *testing.T) {
	t.Parallel()
	cfg := nlhe(5, 10)
	cfg.Stakes.ChipUnit = 5
	cfg.Stakes.Ante = 5
	deck := holdemDeck(t, []string{"2c3d", "4c5d", "2h3h", "4h5h"}, "AsKsQsJsTs")
	h := mustHand(t, cfg, Setup{Button: 3, Players: players(100, 100, 100, 100), Deck: deck})
	act(t, h, Action{Seat: 2, Kind: Call}, Action{Seat: 3, Kind: Call}, Action{Seat: 0, Kind: Fold}, Action{Seat: 1, Kind: Check})
	checkDown(t, h)
	showAll(t, h)
	// Pot 55 = 11 units among 3: 3 each, the 2 odd units one each to the
	// first winners clockwise from the button (seat 0 folded): seats 1 and 2.
	wantStacks(t, h, map[int]int64{0: 90, 1: 105, 2: 105, 3: 100})
}

func studCfg(g Game) Config {
	return Config{Game: g, Structure: FixedLimit, Stakes: Stakes{Ante: 5, BringIn: 5, SmallBet: 10, BigBet: 20, ChipUnit: 5}, Profile: DefaultProfile()}
}

func TestStudOddChip_TP75_G09(t *testing.T) {
	t.Parallel()
	deck := stackedDeck(t, "AsAh7dQh KsKh8dJh 9s9h2cKd QdQc6h JcJdTh 3d3h3c 4c4d5s")
	h := mustHand(t, studCfg(Stud), Setup{Button: 3, Players: players(100, 100, 100, 100), Deck: deck})
	if h.ToAct() != 2 {
		t.Fatalf("bring-in: lowest up card 2c is seat 2, got %d", h.ToAct())
	}
	act(t, h, Action{Seat: 2, Kind: BringIn}, Action{Seat: 3, Kind: Fold}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Call})
	if h.Street() != Fourth || h.ToAct() != 0 {
		t.Fatalf("4th street: tie on Q9 showing goes to the first left of the button: %d", h.ToAct())
	}
	checkDown(t, h)
	showAll(t, h)
	// Pot 35 = 7 units: seat 0 holds the A♠, the highest card by suit.
	wantStacks(t, h, map[int]int64{0: 110, 1: 105, 2: 90, 3: 95})
}

func TestHiLoOddChip_TP76_G17(t *testing.T) {
	t.Parallel()
	cfg := Config{Game: OmahaHiLo, Structure: PotLimit, Stakes: Stakes{SmallBlind: 5, BigBlind: 10, ChipUnit: 5}, Profile: DefaultProfile()}
	deck := holdemDeck(t, []string{"KcKd2h2s", "AsAhQdJc", "2c3dTsTh"}, "Ad4c6h8sKh")
	h := mustHand(t, cfg, Setup{Button: 2, Players: players(1000, 1000, 1000), Deck: deck})
	act(t, h, Action{Seat: 2, Kind: Call}, Action{Seat: 0, Kind: Fold}, Action{Seat: 1, Kind: Check})
	checkDown(t, h)
	showAll(t, h)
	// Pot 25 = 5 units: 3 to the high half (trip aces), 2 to the low (8-6-4-3-2).
	wantStacks(t, h, map[int]int64{0: 995, 1: 1005, 2: 1000})
	r := h.Results()
	if len(r.Pots) != 1 || len(r.Pots[0].Winners) != 2 || !r.Pots[0].Winners[1].Low {
		t.Fatalf("pots %+v", r.Pots)
	}
}

func TestNoQualifyingLow_G17(t *testing.T) {
	t.Parallel()
	cfg := Config{Game: OmahaHiLo, Structure: PotLimit, Stakes: Stakes{SmallBlind: 5, BigBlind: 10}, Profile: DefaultProfile()}
	deck := holdemDeck(t, []string{"KcKd2h2s", "AsAhQdJc", "2c3dTsTh"}, "AdKh9sTcJh")
	h := mustHand(t, cfg, Setup{Button: 2, Players: players(1000, 1000, 1000), Deck: deck})
	act(t, h, Action{Seat: 2, Kind: Call}, Action{Seat: 0, Kind: Fold}, Action{Seat: 1, Kind: Check})
	checkDown(t, h)
	showAll(t, h)
	wantStacks(t, h, map[int]int64{1: 1015})
}

func TestEachPotSplitSeparately_TP77(t *testing.T) {
	t.Parallel()
	deck := holdemDeck(t, []string{"AsKs", "AhKh", "2c7d"}, "Qc Jd 3h 8s 9c")
	h := mustHand(t, nlhe(50, 100), Setup{Button: 2, Players: players(100, 1000, 1000), Deck: deck})
	act(t, h, Action{Seat: 2, Kind: Raise, Amount: 300}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Call})
	checkDown(t, h)
	if h.ToAct() != 2 {
		t.Fatalf("TP-63 the pre-flop raiser shows first: %d", h.ToAct())
	}
	showAll(t, h)
	wantStacks(t, h, map[int]int64{0: 150, 1: 1250, 2: 700})
	r := h.Results()
	if len(r.Pots) != 2 || len(r.Pots[0].Winners) != 2 || len(r.Pots[1].Winners) != 1 {
		t.Fatalf("pots %+v", r.Pots)
	}
}

func TestNoChopFunction_TP04(t *testing.T) {
	t.Parallel()
	// TP-04: there is no "chop" action: the pot follows the cards.
	h := threeWay(t, []string{"AsAh", "KsKh", "QsQh"}, "2c3d7h8cJs")
	refuse(t, h, Action{Seat: 2, Kind: numActionKinds}, "", refusal.ActionNotAllowed)
	checkDown(t, h)
	showAll(t, h)
	wantStacks(t, h, map[int]int64{0: 1200, 1: 900, 2: 900})
}

func TestRiverAllInExposed_TP45(t *testing.T) {
	t.Parallel()
	cfg := nlhe(50, 100)
	cfg.Tournament = true
	deck := holdemDeck(t, []string{"AsAh", "KsKh", "QsQh"}, "2c3d7h8cJs")
	h := mustHand(t, cfg, Setup{Button: 2, Players: players(1000, 1000, 1000), Deck: deck})
	checkUntil(t, h, River)
	act(t, h, Action{Seat: 0, Kind: Bet, Amount: 900}, Action{Seat: 1, Kind: Call})
	ev := applyAll(t, h, Action{Seat: 2, Kind: Fold})
	if len(eventsOf(ev, EvExpose)) != 2 || !h.Done() {
		t.Fatalf("TP-45 river all-in: %+v", ev)
	}
	wantStacks(t, h, map[int]int64{0: 2100, 1: 0, 2: 900})
}

func TestStudFirstToShow_TP63_G09(t *testing.T) {
	t.Parallel()
	// No bet all hand: the best up cards show first (seat 1: a pair of kings up).
	deck := stackedDeck(t, "2c3c4c 2d3d4d 5hKh9s 6hKd7d 7s8sTh JcQc2h 5c6c7c")
	h := mustHand(t, studCfg(Stud), Setup{Button: 2, Players: players(500, 500, 500), Deck: deck})
	checkDown(t, h)
	if h.Phase() != PhaseShowdown || h.ToAct() != 1 {
		t.Fatalf("first to show %d", h.ToAct())
	}
}

// TestDeadMoneyGoesToTheMainPot_TP44: a big-blind ante and a dead small
// blind are dead money in the main pot, not a contribution level of their
// poster: they never come back to the poster as a side pot only they could
// win (found replaying a WSOP 2019 hand with a big-blind ante).
func TestDeadMoneyGoesToTheMainPot_TP44(t *testing.T) {
	t.Parallel()
	t.Run("big-blind ante", func(t *testing.T) {
		t.Parallel()
		cfg := nlhe(50, 100)
		cfg.Stakes.BigBlindAnte = 100
		deck := holdemDeck(t, []string{"AsAh", "7c2d", "KsKh"}, "3c4d9hTcJs")
		h := mustHand(t, cfg, Setup{Button: 2, Players: players(150, 1000, 1000), Deck: deck})
		act(t, h, Action{Seat: 2, Kind: Fold}, Action{Seat: 0, Kind: Raise, Amount: 150}, Action{Seat: 1, Kind: Call})
		showAll(t, h)
		if pots := h.Results().Pots; len(pots) != 1 || pots[0].Amount != 400 {
			t.Fatalf("pots %+v, want one main pot of 400 (150 + 150 + the 100 big-blind ante)", pots)
		}
		wantStacks(t, h, map[int]int64{0: 400, 1: 750, 2: 1000})
	})
	t.Run("dead small blind", func(t *testing.T) {
		t.Parallel()
		deck := holdemDeck(t, []string{"AsAh", "7c2d", "KsKh"}, "3c4d9hTcJs")
		// Seat 2 returns owing both blinds (TP-15): a live big blind and a dead small one.
		posts := []Post{{Seat: 0, Kind: PostSmallBlind, Amount: 50}, {Seat: 1, Kind: PostBigBlind, Amount: 100},
			{Seat: 2, Kind: PostMissedBigBlind, Amount: 100}, {Seat: 2, Kind: PostDeadSmallBlind, Amount: 50}}
		h := mustHand(t, nlhe(50, 100), Setup{Button: 2, Players: players(150, 1000, 1000), Posts: posts, Deck: deck})
		act(t, h, Action{Seat: 2, Kind: Check}, Action{Seat: 0, Kind: Raise, Amount: 150}, Action{Seat: 1, Kind: Fold}, Action{Seat: 2, Kind: Call})
		showAll(t, h)
		// 150 + 150 + seat 1's folded 100 + seat 2's dead 50: all one pot, won by seat 0.
		if pots := h.Results().Pots; len(pots) != 1 || pots[0].Amount != 450 {
			t.Fatalf("pots %+v, want one main pot of 450", pots)
		}
		wantStacks(t, h, map[int]int64{0: 450, 1: 900, 2: 800})
	})
}
