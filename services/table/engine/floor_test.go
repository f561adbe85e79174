package engine

import (
	"slices"
	"testing"

	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/engine/refusal"
)

func liveCfg() Config {
	c := nlhe(50, 100)
	c.Mode = Live
	return c
}

// TestStatesPot_TP43: at a live table the players are told the pot only in
// pot-limit, where the dealer states it; a screen-dealt table always
// shows it.
func TestStatesPot_TP43(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		mode      Mode
		structure Structure
		states    bool
	}{
		{"TP-43 live pot-limit: the dealer states the pot", Live, PotLimit, true},
		{"TP-43 live no-limit: the dealer only spreads the pot", Live, NoLimit, false},
		{"TP-43 live fixed limit: the dealer only spreads the pot", Live, FixedLimit, false},
		{"digital no-limit: the screen shows the pot", Digital, NoLimit, true},
	} {
		c := liveCfg()
		c.Mode, c.Structure = tc.mode, tc.structure
		if got := c.StatesPot(); got != tc.states {
			t.Errorf("%s: StatesPot = %v, want %v", tc.name, got, tc.states)
		}
	}
}

func TestKilledHands_TP53_TP54_TP55_TP56(t *testing.T) {
	t.Parallel()
	holes := []string{"AsAh", "KsKh", "QsQh"}
	board := "2c3d7h8cJs"
	t.Run("TP-53 an unprotected hand gets back only its uncalled raise", func(t *testing.T) {
		t.Parallel()
		h := threeWay(t, holes, board)
		act(t, h, Action{Seat: 2, Kind: Raise, Amount: 300})
		ev := applyAll(t, h, Action{Seat: 2, Kind: Kill, By: RoleDealer, Kill: KillUnprotected})
		if k := eventsOf(ev, EvKill); len(k) != 1 || k[0].Rule != "TP-53" {
			t.Fatalf("%+v", ev)
		}
		if r := eventsOf(ev, EvReturn); len(r) != 1 || r[0].Amount != 200 || r[0].Rule != "TP-53" {
			t.Fatalf("refund %+v", ev)
		}
		if c, _ := findLegal(h, Call); h.ToAct() != 0 || c.Min != 100 {
			t.Fatalf("seat 0 now calls the big blind: %+v", h.LegalActions())
		}
		// TP-54: a dead hand cannot act or win.
		refuse(t, h, Action{Seat: 2, Kind: Fold}, "TP-54", refusal.ActionNotAllowed)
		checkDown(t, h)
		showAll(t, h)
		wantStacks(t, h, map[int]int64{0: 1200, 1: 900, 2: 900})
	})
	t.Run("TP-55 wrong number of cards: nothing refunded", func(t *testing.T) {
		t.Parallel()
		h := threeWay(t, holes, board)
		act(t, h, Action{Seat: 2, Kind: Raise, Amount: 300})
		ev := applyAll(t, h, Action{Seat: 2, Kind: Kill, By: RoleDealer, Kill: KillWrongCardCount})
		if len(eventsOf(ev, EvReturn)) != 0 || eventsOf(ev, EvKill)[0].Rule != "TP-55" {
			t.Fatalf("%+v", ev)
		}
		if c, _ := findLegal(h, Call); c.Min != 300 {
			t.Fatalf("the 300 stays: %+v", h.LegalActions())
		}
	})
	t.Run("TP-54 only the dealer or floor kills a hand", func(t *testing.T) {
		t.Parallel()
		h := threeWay(t, holes, board)
		refuse(t, h, Action{Seat: 1, Kind: Kill, By: RolePlayer, Kill: KillFouled}, "TP-54", refusal.RoleRequired)
		act(t, h, Action{Seat: 1, Kind: Kill, By: RoleDealer, Kill: KillFouled})
		refuse(t, h, Action{Seat: 1, Kind: Kill, By: RoleDealer}, "TP-54", refusal.ActionNotAllowed)
		act(t, h, Action{Seat: 0, Kind: Kill, By: RoleDealer})
		wantStacks(t, h, map[int]int64{0: 950, 1: 900, 2: 1150})
	})
	t.Run("TP-56 absent players are not dealt in on cash tables; leaving kills", func(t *testing.T) {
		t.Parallel()
		ps := players(1000, 1000, 1000)
		ps[1].Absent = true
		_, err := NewHand(nlhe(50, 100), Setup{Button: 2, Players: ps, Deck: stackedDeck(t, "")})
		if re, ok := err.(*refusal.Error); !ok || re.Rule != "TP-56" {
			t.Fatalf("got %v", err)
		}
		h := threeWay(t, holes, board)
		ev := applyAll(t, h, Action{Seat: 1, Kind: Kill, By: RoleDealer, Kill: KillLeftTable})
		if eventsOf(ev, EvKill)[0].Rule != "TP-56" {
			t.Fatalf("%+v", ev)
		}
	})
}

func TestTournamentPresence_TP57(t *testing.T) {
	t.Parallel()
	cfg := nlhe(50, 100)
	cfg.Tournament = true
	ps := players(1000, 1000, 1000)
	ps[1].Absent = true
	h := mustHand(t, cfg, Setup{Button: 2, Players: ps, Deck: stackedDeck(t, "")})
	k := eventsOf(h.Events(), EvKill)
	if len(k) != 1 || k[0].Seat != 1 || k[0].Rule != "TP-57" {
		t.Fatalf("kills %+v", k)
	}
	if len(eventsOf(h.Events(), EvDealHole)) != 3 || h.PotTotal() != 150 {
		t.Fatal("absent tournament seat is dealt to and posts its blind (C-06)")
	}
	act(t, h, Action{Seat: 2, Kind: Call}, Action{Seat: 0, Kind: Call})
	if h.Street() != Flop {
		t.Fatalf("the dead seat never acts: street %v to act %d", h.Street(), h.ToAct())
	}
	if DefaultProfile().Presence != PresenceDealComplete {
		t.Fatal("TP-57 default presence point is the completed deal (003 r14)")
	}
}

func TestExposedHand_TP58(t *testing.T) {
	t.Parallel()
	h := threeWay(t, []string{"AsAh", "KsKh", "QsQh"}, "2c3d7h8cJs")
	refuse(t, h, Action{Seat: 2, Kind: ExposeLive, By: RoleDealer}, "TP-58", refusal.RoleRequired)
	ev := applyAll(t, h, Action{Seat: 2, Kind: ExposeLive, By: RoleFloor})
	if len(eventsOf(ev, EvExpose)) != 1 {
		t.Fatalf("%+v", ev)
	}
	if slices.Contains(legalKinds(h), Raise) {
		t.Fatal("TP-58 live without aggression still may raise")
	}
	refuse(t, h, Action{Seat: 2, Kind: Raise, Amount: 300}, "TP-58", refusal.NoAggression)
	act(t, h, Action{Seat: 2, Kind: Call})
	if v := h.View(0); v.Seats[2].Cards[0] == cards.Unknown {
		t.Fatal("exposed cards hidden")
	}
	// Ruled dead instead:
	ev = applyAll(t, h, Action{Seat: 2, Kind: Kill, By: RoleFloor, Kill: KillExposed})
	if eventsOf(ev, EvKill)[0].Rule != "TP-58" {
		t.Fatalf("%+v", ev)
	}
}

func TestTimeout_TP59(t *testing.T) {
	t.Parallel()
	h := threeWay(t, []string{"AsAh", "KsKh", "QsQh"}, "2c3d7h8cJs")
	ev := applyAll(t, h, Action{Seat: 2, Kind: Timeout})
	if f := eventsOf(ev, EvFold); len(f) != 1 || f[0].Rule != "TP-59" {
		t.Fatalf("facing a bet: fold, got %+v", ev)
	}
	act(t, h, Action{Seat: 0, Kind: Call})
	ev = applyAll(t, h, Action{Seat: 1, Kind: Timeout})
	if c := eventsOf(ev, EvCheck); len(c) != 1 || c[0].Rule != "TP-59" {
		t.Fatalf("not facing a bet: check, got %+v", ev)
	}
	checkDown(t, h)
	ev = applyAll(t, h, Action{Seat: h.ToAct(), Kind: Timeout})
	if m := eventsOf(ev, EvMuck); len(m) != 1 || m[0].Rule != "TP-59" {
		t.Fatalf("showdown timeout mucks: %+v", ev)
	}
	p := DefaultProfile()
	if p.ClockSeconds != 60 || p.ClockCountdownSeconds != 10 || p.CashActionSeconds != 0 {
		t.Fatalf("TP-59 clock %+v (G-16: no cash limit)", p)
	}
}

func TestRevive_TP60(t *testing.T) {
	t.Parallel()
	h := mustHand(t, liveCfg(), Setup{Button: 2, Players: players(1000, 1000, 1000), Deck: stackedDeck(t, "")})
	act(t, h, Action{Seat: 2, Kind: Fold})
	refuse(t, h, Action{Seat: 2, Kind: Revive, By: RoleDealer}, "TP-60", refusal.RoleRequired)
	ev := applyAll(t, h, Action{Seat: 2, Kind: Revive, By: RoleFloor})
	if r := eventsOf(ev, EvRevive); len(r) != 1 || h.ToAct() != 2 {
		t.Fatalf("revive %+v to act %d", ev, h.ToAct())
	}
	act(t, h, Action{Seat: 2, Kind: Call}, Action{Seat: 0, Kind: Fold}, Action{Seat: 1, Kind: Check})
	refuse(t, h, Action{Seat: 0, Kind: Revive, By: RoleFloor}, "TP-60", refusal.NotRevivable)
	// Digital tables have no pending muck.
	d := threeWay(t, []string{"AsAh", "KsKh", "QsQh"}, "2c3d7h8cJs")
	act(t, d, Action{Seat: 2, Kind: Fold})
	refuse(t, d, Action{Seat: 2, Kind: Revive, By: RoleFloor}, "TP-60", refusal.RoleRequired)
}

func TestOutOfTurn_TP46_TP47_TP49_TP51(t *testing.T) {
	t.Parallel()
	t.Run("TP-46 digital mode refuses out-of-turn actions", func(t *testing.T) {
		t.Parallel()
		h := threeWay(t, []string{"AsAh", "KsKh", "QsQh"}, "2c3d7h8cJs")
		refuse(t, h, Action{Seat: 0, Kind: Fold}, "TP-46", refusal.OutOfTurn)
		if _, err := h.ApplyOutOfTurn(Action{Seat: 0, Kind: Fold}); err == nil {
			t.Fatal("digital ApplyOutOfTurn accepted")
		}
	})
	t.Run("TP-47 a skipped seat is deemed to have folded or checked", func(t *testing.T) {
		t.Parallel()
		h := mustHand(t, liveCfg(), Setup{Button: 2, Players: players(1000, 1000, 1000), Deck: stackedDeck(t, "")})
		refuse(t, h, Action{Seat: 2, Kind: Skip}, "TP-47", refusal.RoleRequired)
		ev := applyAll(t, h, Action{Seat: 2, Kind: Skip, By: RoleDealer})
		if f := eventsOf(ev, EvFold); len(f) != 1 || f[0].Rule != "TP-47" {
			t.Fatalf("%+v", ev)
		}
		act(t, h, Action{Seat: 0, Kind: Call})
		ev = applyAll(t, h, Action{Seat: 1, Kind: Skip, By: RoleDealer})
		if c := eventsOf(ev, EvCheck); len(c) != 1 {
			t.Fatalf("%+v", ev)
		}
	})
	t.Run("TP-49 an out-of-turn check: no bet or raise this round", func(t *testing.T) {
		t.Parallel()
		h := mustHand(t, liveCfg(), Setup{Button: 2, Players: players(1000, 1000, 1000), Deck: stackedDeck(t, "")})
		act(t, h, Action{Seat: 2, Kind: Call}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Check})
		if _, err := h.ApplyOutOfTurn(Action{Seat: 1, Kind: Check}); err != nil {
			t.Fatal(err)
		}
		act(t, h, Action{Seat: 0, Kind: Bet, Amount: 200})
		if ks := legalKinds(h); h.ToAct() != 1 || !slices.Equal(ks, []ActionKind{Fold, Call}) {
			t.Fatalf("seat 1 options %v", ks)
		}
		refuse(t, h, Action{Seat: 1, Kind: Raise, Amount: 600}, "TP-49", refusal.NoAggression)
		act(t, h, Action{Seat: 1, Kind: Call}, Action{Seat: 2, Kind: Call})
		// The restriction ends with the round.
		if h.Street() != Turn {
			t.Fatalf("street %v", h.Street())
		}
		act(t, h, Action{Seat: 0, Kind: Check})
		if !slices.Contains(legalKinds(h), Bet) {
			t.Fatal("TP-49 restriction outlived the round")
		}
		// The dealer can record the same restriction directly.
		act(t, h, Action{Seat: 2, Kind: RestrictRaise, By: RoleDealer})
	})
	t.Run("TP-51 an out-of-turn fold is binding", func(t *testing.T) {
		t.Parallel()
		h := mustHand(t, liveCfg(), Setup{Button: 2, Players: players(1000, 1000, 1000), Deck: stackedDeck(t, "")})
		ev, err := h.ApplyOutOfTurn(Action{Seat: 1, Kind: Fold})
		if err != nil || len(ev) != 1 || ev[0].Rule != "TP-51" {
			t.Fatalf("%v %+v", err, ev)
		}
		act(t, h, Action{Seat: 2, Kind: Call}, Action{Seat: 0, Kind: Call})
		if h.Street() != Flop {
			t.Fatal("folded seat still in the round")
		}
		refuse(t, h, Action{Seat: 1, Kind: Check}, "TP-54", refusal.ActionNotAllowed)
	})
	t.Run("TP-50 cash out-of-turn wagers are not committed to the pot", func(t *testing.T) {
		t.Parallel()
		h := mustHand(t, liveCfg(), Setup{Button: 2, Players: players(1000, 1000, 1000), Deck: stackedDeck(t, "")})
		_, err := h.ApplyOutOfTurn(Action{Seat: 1, Kind: Raise, Amount: 400})
		if re, ok := err.(*refusal.Error); !ok || re.Rule != "TP-50" {
			t.Fatalf("got %v", err)
		}
		// engine/live resolves TP-50/S1 and applies the result in turn.
		act(t, h, Action{Seat: 2, Kind: Call}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Check})
	})
}

func TestTournamentOutOfTurn_TP52(t *testing.T) {
	t.Parallel()
	cfg := liveCfg()
	cfg.Tournament = true
	newHand := func(t *testing.T) *Hand {
		h := mustHand(t, cfg, Setup{Button: 3, Players: players(5000, 5000, 5000, 5000), Deck: stackedDeck(t, "")})
		checkUntil(t, h, Flop)
		return h
	}
	t.Run("TP-52/S1 the out-of-turn raise stands; the skipped seats act on it", func(t *testing.T) {
		t.Parallel()
		h := newHand(t)
		act(t, h, Action{Seat: 0, Kind: Bet, Amount: 200})
		if _, err := h.ApplyOutOfTurn(Action{Seat: 2, Kind: Raise, Amount: 1000}); err != nil {
			t.Fatal(err)
		}
		if c, _ := findLegal(h, Call); h.ToAct() != 1 || c.Min != 1000 {
			t.Fatalf("seat 1 faces 1000: %d %+v", h.ToAct(), h.LegalActions())
		}
		act(t, h, Action{Seat: 1, Kind: Call}, Action{Seat: 3, Kind: Fold}, Action{Seat: 0, Kind: Call})
		if h.Street() != Turn || h.PotTotal() != 3400 {
			t.Fatalf("street %v pot %d", h.Street(), h.PotTotal())
		}
	})
	t.Run("TP-52/S5 overtaken: the out-of-turn bettor may withdraw and fold", func(t *testing.T) {
		t.Parallel()
		h := newHand(t)
		act(t, h, Action{Seat: 0, Kind: Check})
		if _, err := h.ApplyOutOfTurn(Action{Seat: 3, Kind: Bet, Amount: 500}); err != nil {
			t.Fatal(err)
		}
		act(t, h, Action{Seat: 1, Kind: Raise, Amount: 1000}, Action{Seat: 2, Kind: Call})
		// The rule's choices: call the difference, re-raise, or take the
		// bet back and fold. There is no fold that forfeits the 500.
		if ks := legalKinds(h); h.ToAct() != 3 || !slices.Equal(ks, []ActionKind{Call, Raise, Withdraw}) {
			t.Fatalf("seat 3 options %v", ks)
		}
		ev := applyAll(t, h, Action{Seat: 3, Kind: Withdraw})
		if r := eventsOf(ev, EvReturn); len(r) != 1 || r[0].Amount != 500 || r[0].Rule != "TP-52" {
			t.Fatalf("%+v", ev)
		}
		if h.Stack(3) != 4900 {
			t.Fatalf("seat 3 stack %d", h.Stack(3))
		}
	})
	for _, kind := range []ActionKind{Fold, Timeout, Skip} {
		t.Run("TP-52/S5 overtaken: a plain "+kind.String()+" takes the bet back and folds", func(t *testing.T) {
			t.Parallel()
			h := newHand(t)
			act(t, h, Action{Seat: 0, Kind: Check})
			if _, err := h.ApplyOutOfTurn(Action{Seat: 3, Kind: Bet, Amount: 500}); err != nil {
				t.Fatal(err)
			}
			act(t, h, Action{Seat: 1, Kind: Raise, Amount: 1000}, Action{Seat: 2, Kind: Call})
			ev := applyAll(t, h, Action{Seat: 3, Kind: kind, By: RoleDealer})
			if r := eventsOf(ev, EvReturn); len(r) != 1 || r[0].Amount != 500 || r[0].Rule != "TP-52" {
				t.Fatalf("%s: %+v", kind, ev)
			}
			if f := eventsOf(ev, EvFold); len(f) != 1 || f[0].Seat != 3 || f[0].Rule != "TP-52" {
				t.Fatalf("%s: %+v", kind, ev)
			}
			if h.Stack(3) != 4900 {
				t.Fatalf("%s: seat 3 stack %d, want the 500 back", kind, h.Stack(3))
			}
		})
	}
}

func TestRoundEnd_TP08_TP07(t *testing.T) {
	t.Parallel()
	h := threeWay(t, []string{"AsAh", "KsKh", "QsQh"}, "2c3d7h8cJs")
	// TP-07: a recorded action binds: the same seat cannot act again.
	act(t, h, Action{Seat: 2, Kind: Call})
	refuse(t, h, Action{Seat: 2, Kind: Fold}, "TP-46", refusal.OutOfTurn)
	act(t, h, Action{Seat: 0, Kind: Call})
	// TP-08: "end of round" is recorded when the engine closes the round.
	ev := applyAll(t, h, Action{Seat: 1, Kind: Check})
	if r := eventsOf(ev, EvRoundEnd); len(r) != 1 || r[0].Street != Preflop {
		t.Fatalf("%+v", ev)
	}
}

func TestBoardOverdeal_TP78_TP79(t *testing.T) {
	t.Parallel()
	deck := holdemDeck(t, []string{"AsAh", "KsKh", "QsQh"}, "2c3d7h8cJs5d")
	newHand := func(t *testing.T, cfg Config) *Hand {
		h := mustHand(t, cfg, Setup{Button: 2, Players: players(1000, 1000, 1000), Deck: deck})
		checkUntil(t, h, Flop)
		return h
	}
	c := func(s string) []cards.Card { return cards.MustParseList(s) }
	t.Run("TP-78 one unidentified extra card becomes the next burn", func(t *testing.T) {
		t.Parallel()
		h := newHand(t, liveCfg())
		refuse(t, h, Action{Seat: 0, Kind: BoardOverdeal, Amount: 1, By: RoleDealer, Cards: c("3d")}, "TP-78", refusal.RoleRequired)
		refuse(t, h, Action{Seat: 0, Kind: BoardOverdeal, Amount: 1, By: RoleFloor, Cards: c("Kd")}, "TP-78", refusal.BadCard)
		act(t, h, Action{Seat: 0, Kind: BoardOverdeal, Amount: 1, By: RoleFloor, Cards: c("3d")})
		if got := cards.Format(h.Board()); got != "2c8c7h" {
			t.Fatalf("board %s", got)
		}
		ev := applyAll(t, h, Action{Seat: 0, Kind: Check}, Action{Seat: 1, Kind: Check}, Action{Seat: 2, Kind: Check})
		if b := eventsOf(ev, EvBurn); len(b) != 1 || b[0].Cards[0] != c("3d")[0] {
			t.Fatalf("burn %+v", b)
		}
		if got := cards.Format(h.Board()); got != "2c8c7hJs" {
			t.Fatalf("board %s", got)
		}
		act(t, h, Action{Seat: 0, Kind: Check})
		refuse(t, h, Action{Seat: 0, Kind: BoardOverdeal, Amount: 1, By: RoleFloor, Cards: c("Js")}, "TP-78", refusal.ActionNotAllowed)
	})
	t.Run("TP-79 several extra cards: reshuffle and redeal without a burn", func(t *testing.T) {
		t.Parallel()
		h := newHand(t, liveCfg())
		stub := append(append([]cards.Card(nil), h.s.Deck[h.s.Next:]...), c("2c3d7h")...)
		bad := append([]cards.Card(nil), stub[1:]...)
		refuse(t, h, Action{Seat: 0, Kind: BoardOverdeal, Amount: 2, By: RoleFloor, Cards: bad}, "TP-79", refusal.BadStub)
		ev := applyAll(t, h, Action{Seat: 0, Kind: BoardOverdeal, Amount: 2, By: RoleFloor, Cards: stub})
		if len(eventsOf(ev, EvBurn)) != 0 {
			t.Fatal("burned on the redeal")
		}
		if got := cards.Format(h.Board()); got != "8cJs5d" {
			t.Fatalf("board %s", got)
		}
		checkDown(t, h)
		showAll(t, h)
		checkConserved(t, h)
	})
	t.Run("TP-78 cannot happen in digital mode", func(t *testing.T) {
		t.Parallel()
		h := newHand(t, nlhe(50, 100))
		refuse(t, h, Action{Seat: 0, Kind: BoardOverdeal, Amount: 1, By: RoleFloor, Cards: c("3d")}, "TP-78", refusal.ActionNotAllowed)
	})
}

func TestBettingState_TP23(t *testing.T) {
	t.Parallel()
	h := ring(t, nlhe(50, 100), 10000, 10000, 400, 10000)
	act(t, h, Action{Seat: 2, Kind: Call}, Action{Seat: 3, Kind: Call}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Check})
	act(t, h, Action{Seat: 0, Kind: Bet, Amount: 200}, Action{Seat: 1, Kind: Call}, Action{Seat: 2, Kind: Raise, Amount: 300}, Action{Seat: 3, Kind: Call})
	b, ok := h.Betting()
	want := BettingState{Seat: 0, CurrentBet: 300, InFront: 200, Stack: 9700, MinRaiseTo: 500, MaxRaiseTo: 9900, LastRaise: 200, ChipUnit: 1, RaiseClosed: "TP-23"}
	if !ok || b != want {
		t.Fatalf("got %+v", b)
	}
}
