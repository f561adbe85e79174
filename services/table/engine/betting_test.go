package engine

import (
	"github.com/cardroom/cardroom/services/table/engine/refusal"
	"slices"
	"testing"
)

// Seats 0..n-1, button on the last seat: seat 0 posts the small blind,
// seat 1 the big blind; the deal starts at seat 0.
func ring(t *testing.T, cfg Config, stacks ...int64) *Hand {
	t.Helper()
	n := len(stacks)
	return mustHand(t, cfg, Setup{Button: n - 1, Players: players(stacks...), Deck: stackedDeck(t, "")})
}

func TestMinimumBetAndRaise_TP21_TP22(t *testing.T) {
	t.Parallel()
	h := ring(t, nlhe(50, 100), 10000, 10000, 10000)
	// Preflop: seat 2 (button) acts first left of the big blind (TP-11).
	if h.ToAct() != 2 {
		t.Fatalf("to act %d, want 2", h.ToAct())
	}
	l, _ := findLegal(h, Raise)
	if l.Min != 200 || l.Max != 10000 {
		t.Fatalf("TP-22 pre-flop raise range %d..%d, want 200..10000", l.Min, l.Max)
	}
	act(t, h, Action{Seat: 2, Kind: Call}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Check})
	cases := []struct {
		name   string
		a      Action
		rule   string
		reason refusal.Reason
	}{
		{"TP-21 opening bet below the big blind", Action{Seat: 0, Kind: Bet, Amount: 99}, "TP-21", refusal.BetBelowMinimum},
		{"TP-31 amount not a chip multiple is refused only with a unit", Action{Seat: 0, Kind: Bet, Amount: 20000}, "CS-05", refusal.AboveStack},
		{"TP-46 out of turn in digital mode", Action{Seat: 1, Kind: Bet, Amount: 200}, "TP-46", refusal.OutOfTurn},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { refuse(t, h, c.a, c.rule, c.reason) })
	}
	act(t, h, Action{Seat: 0, Kind: Bet, Amount: 200})
	// TP-22 derived: after a bet of 200 the minimum raise is to 400.
	refuse(t, h, Action{Seat: 1, Kind: Raise, Amount: 399}, "TP-22", refusal.RaiseBelowMinimum)
	// TP-32: amounts are totals ("raise to").
	act(t, h, Action{Seat: 1, Kind: Raise, Amount: 600})
	// After a raise to 600 (increment 400) the next minimum is 1000.
	if l, _ := findLegal(h, Raise); l.Min != 1000 {
		t.Fatalf("TP-22 min raise after 200→600 is %d, want 1000", l.Min)
	}
	re := refuse(t, h, Action{Seat: 2, Kind: Raise, Amount: 999}, "TP-22", refusal.RaiseBelowMinimum)
	if re.Min != 1000 || re.Max != 9900 {
		t.Fatalf("error range %d..%d", re.Min, re.Max)
	}
	act(t, h, Action{Seat: 2, Kind: Raise, Amount: 1000})
}

func TestChipUnit_TP31(t *testing.T) {
	t.Parallel()
	cfg := nlhe(25, 50)
	cfg.Stakes.ChipUnit = 25
	h := ring(t, cfg, 5000, 5000, 5000)
	refuse(t, h, Action{Seat: 2, Kind: Raise, Amount: 110}, "TP-31", refusal.NotChipMultiple)
	act(t, h, Action{Seat: 2, Kind: Raise, Amount: 125})
	// An all-in need not be a multiple of the chip unit.
	h = ring(t, cfg, 5000, 5000, 4990)
	act(t, h, Action{Seat: 2, Kind: Raise, Amount: 4990})
	// Stakes that are not multiples are a bad config.
	cfg.Stakes.SmallBlind = 30
	if _, err := NewHand(cfg, Setup{Button: 2, Players: players(100, 100, 100), Deck: stackedDeck(t, "")}); err == nil {
		t.Fatal("TP-31 stakes off the chip unit accepted")
	}
}

func TestMinBetAnte_TP21(t *testing.T) {
	t.Parallel()
	cfg := nlhe(50, 100)
	cfg.Stakes.Ante = 25
	cfg.Profile.MinBet = MinBetAnte
	h := ring(t, cfg, 10000, 10000, 10000)
	act(t, h, Action{Seat: 2, Kind: Call}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Check})
	if l, _ := findLegal(h, Bet); l.Min != 25 {
		t.Fatalf("TP-21 min bet = ante: got %d", l.Min)
	}
}

func TestIncompleteRaise_TP23(t *testing.T) {
	t.Parallel()
	// Seats 0 SB, 1 BB, 2, 3 button. Seat 2 will be all-in for 300 on the flop.
	h := ring(t, nlhe(50, 100), 10000, 10000, 400, 10000)
	act(t, h, Action{Seat: 2, Kind: Call}, Action{Seat: 3, Kind: Call}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Check})
	act(t, h, Action{Seat: 0, Kind: Bet, Amount: 200}, Action{Seat: 1, Kind: Call})
	act(t, h, Action{Seat: 2, Kind: Raise, Amount: 300}) // all-in, increment 100 < 200
	// Seat 3 has not acted: may raise; G-01: the minimum stays the last full raise (to 500).
	if l, ok := findLegal(h, Raise); !ok || l.Min != 500 {
		t.Fatalf("G-01 seat 3 raise %+v", l)
	}
	act(t, h, Action{Seat: 3, Kind: Call})
	// Seat 0 already acted and faces only an incomplete raise: call or fold.
	if ks := legalKinds(h); !slices.Equal(ks, []ActionKind{Fold, Call}) {
		t.Fatalf("TP-23 seat 0 options %v", ks)
	}
	refuse(t, h, Action{Seat: 0, Kind: Raise, Amount: 800}, "TP-23", refusal.BettingNotReopened)
	act(t, h, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Call})
}

func TestCumulativeShortAllIns_G02_TP23(t *testing.T) {
	t.Parallel()
	h := ring(t, nlhe(50, 100), 10000, 400, 520, 10000)
	act(t, h, Action{Seat: 2, Kind: Call}, Action{Seat: 3, Kind: Call}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Check})
	act(t, h, Action{Seat: 0, Kind: Bet, Amount: 200})
	act(t, h, Action{Seat: 1, Kind: Raise, Amount: 300}) // all-in +100
	act(t, h, Action{Seat: 2, Kind: Raise, Amount: 420}) // all-in +120: together +220 ≥ 200
	act(t, h, Action{Seat: 3, Kind: Call})
	if _, ok := findLegal(h, Raise); !ok {
		t.Fatal("TP-23/G-02: short all-ins adding up to a full raise reopen the betting")
	}
	// The room may switch G-02 off: only a single full raise reopens.
	cfg := nlhe(50, 100)
	cfg.Profile.NoCumulativeReopen = true
	h = ring(t, cfg, 10000, 400, 520, 10000)
	act(t, h, Action{Seat: 2, Kind: Call}, Action{Seat: 3, Kind: Call}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Check})
	act(t, h, Action{Seat: 0, Kind: Bet, Amount: 200}, Action{Seat: 1, Kind: Raise, Amount: 300}, Action{Seat: 2, Kind: Raise, Amount: 420}, Action{Seat: 3, Kind: Call})
	if _, ok := findLegal(h, Raise); ok {
		t.Fatal("G-02 off: short all-ins must not reopen")
	}
}

func flhe() Config {
	return Config{Game: Holdem, Structure: FixedLimit, Stakes: Stakes{SmallBlind: 50, BigBlind: 100, SmallBet: 100, BigBet: 200}, Profile: DefaultProfile()}
}

func TestLimitHalfBet_TP24(t *testing.T) {
	t.Parallel()
	t.Run("TP-24 all-in below half a bet: fold, call or complete", func(t *testing.T) {
		t.Parallel()
		h := ring(t, flhe(), 1000, 140, 1000, 1000)
		act(t, h, Action{Seat: 2, Kind: Call}, Action{Seat: 3, Kind: Call}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Check})
		act(t, h, Action{Seat: 0, Kind: Check})
		act(t, h, Action{Seat: 1, Kind: Bet, Amount: 40}) // all-in for 40 on a 100 round
		l, ok := findLegal(h, Raise)
		if !ok || l.Min != 100 || l.Max != 100 {
			t.Fatalf("complete to 100: %+v", h.LegalActions())
		}
		if c, _ := findLegal(h, Call); c.Min != 40 {
			t.Fatalf("call 40: %+v", c)
		}
		act(t, h, Action{Seat: 2, Kind: Call})
		act(t, h, Action{Seat: 3, Kind: Call})
		// Seat 0 checked; no full bet has been made, so seat 0 too may
		// complete the bet to 100 but not raise beyond it.
		if l, ok := findLegal(h, Raise); !ok || l.Min != 100 || l.Max != 100 {
			t.Fatalf("seat 0 complete: %+v", h.LegalActions())
		}
		refuse(t, h, Action{Seat: 0, Kind: Raise, Amount: 200}, "TP-27", refusal.WrongAmount)
	})
	t.Run("TP-24 all-in below half does not reopen for a player who acted", func(t *testing.T) {
		t.Parallel()
		h := ring(t, flhe(), 240, 1000, 1000, 1000)
		act(t, h, Action{Seat: 2, Kind: Raise, Amount: 200}, Action{Seat: 3, Kind: Call})
		act(t, h, Action{Seat: 0, Kind: Raise, Amount: 240}) // +40 over 200: less than half
		if l, _ := findLegal(h, Raise); l.Min != 300 {
			t.Fatalf("BB may still raise to 300: %+v", h.LegalActions())
		}
		act(t, h, Action{Seat: 1, Kind: Call})
		if ks := legalKinds(h); !slices.Equal(ks, []ActionKind{Fold, Call}) {
			t.Fatalf("seat 2 options %v", ks)
		}
		refuse(t, h, Action{Seat: 2, Kind: Raise, Amount: 300}, "TP-24", refusal.BettingNotReopened)
	})
	t.Run("TP-24 all-in of half a bet or more is a full bet", func(t *testing.T) {
		t.Parallel()
		h := ring(t, flhe(), 260, 1000, 1000, 1000)
		act(t, h, Action{Seat: 2, Kind: Raise, Amount: 200}, Action{Seat: 3, Kind: Call})
		act(t, h, Action{Seat: 0, Kind: Raise, Amount: 260}) // +60: a full raise
		act(t, h, Action{Seat: 1, Kind: Call})
		if l, ok := findLegal(h, Raise); !ok || l.Min != 400 {
			t.Fatalf("seat 2 may raise to 400: %+v", h.LegalActions())
		}
	})
}

func TestPotLimitMaximum_TP25(t *testing.T) {
	t.Parallel()
	cfg := nlhe(50, 100)
	cfg.Structure = PotLimit
	h := ring(t, cfg, 10000, 10000, 10000)
	// G-03: pot 150 + call 100 → raise 250 on top of the 100: to 350.
	l, _ := findLegal(h, Raise)
	if l.Min != 200 || l.Max != 350 {
		t.Fatalf("TP-25 pre-flop raise range %d..%d, want 200..350", l.Min, l.Max)
	}
	refuse(t, h, Action{Seat: 2, Kind: Raise, Amount: 351}, "TP-25", refusal.AboveMaximum)
	act(t, h, Action{Seat: 2, Kind: Raise, Amount: 350})
	act(t, h, Action{Seat: 0, Kind: Fold}, Action{Seat: 1, Kind: Call})
	// Flop: the maximum bet is the pot (350+350+50 = 750).
	if l, _ := findLegal(h, Bet); l.Max != 750 || l.Min != 100 {
		t.Fatalf("TP-25 max bet %+v, want 100..750", l)
	}
	// G-03 robert's example: pot 100 and a bet of 50 → raise to 250.
	cfg2 := nlhe(50, 100)
	cfg2.Structure = PotLimit
	cfg2.Profile.PotRaiseAfterCall = false
	h2 := ring(t, cfg2, 10000, 10000, 10000)
	if l, _ := findLegal(h2, Raise); l.Max != 250 {
		t.Fatalf("TP-25 pot-before-call formula max %d, want 250", l.Max)
	}
}

func TestNoRaiseCap_TP26(t *testing.T) {
	t.Parallel()
	h := ring(t, nlhe(50, 100), 1000000, 1000000, 1000000)
	to := int64(100)
	for k := 0; k < 12; k++ {
		to *= 2
		seat := h.ToAct()
		act(t, h, Action{Seat: seat, Kind: Raise, Amount: to})
	}
	if _, ok := findLegal(h, Raise); !ok {
		t.Fatal("TP-26: no raise cap in no-limit")
	}
}

func TestFixedLimitUnits_TP27(t *testing.T) {
	t.Parallel()
	h := ring(t, flhe(), 5000, 5000, 5000)
	refuse(t, h, Action{Seat: 2, Kind: Raise, Amount: 250}, "TP-27", refusal.WrongAmount)
	act(t, h, Action{Seat: 2, Kind: Call}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Check})
	if l, _ := findLegal(h, Bet); l.Min != 100 || l.Max != 100 {
		t.Fatalf("TP-27 flop bet %+v, want 100", l)
	}
	act(t, h, Action{Seat: 0, Kind: Check}, Action{Seat: 1, Kind: Check}, Action{Seat: 2, Kind: Check})
	// Turn: the big unit.
	if l, _ := findLegal(h, Bet); l.Min != 200 || l.Max != 200 {
		t.Fatalf("TP-27 turn bet %+v, want 200", l)
	}
	refuse(t, h, Action{Seat: 0, Kind: Bet, Amount: 100}, "TP-27", refusal.WrongAmount)
}

func TestRaiseCap_TP29(t *testing.T) {
	t.Parallel()
	t.Run("TP-29 a bet and three raises", func(t *testing.T) {
		t.Parallel()
		h := ring(t, flhe(), 5000, 5000, 5000)
		act(t, h, Action{Seat: 2, Kind: Call}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Check})
		act(t, h, Action{Seat: 0, Kind: Bet, Amount: 100}, Action{Seat: 1, Kind: Raise, Amount: 200},
			Action{Seat: 2, Kind: Raise, Amount: 300}, Action{Seat: 0, Kind: Raise, Amount: 400})
		if _, ok := findLegal(h, Raise); ok {
			t.Fatal("cap reached but raise offered")
		}
		refuse(t, h, Action{Seat: 1, Kind: Raise, Amount: 500}, "TP-29", refusal.RaiseCapReached)
	})
	t.Run("TP-29 cap lifted when two players start the round", func(t *testing.T) {
		t.Parallel()
		h := ring(t, flhe(), 5000, 5000, 5000)
		act(t, h, Action{Seat: 2, Kind: Fold}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Check})
		to := int64(0)
		for k := 0; k < 8; k++ {
			to += 100
			kind := Raise
			if k == 0 {
				kind = Bet
			}
			act(t, h, Action{Seat: h.ToAct(), Kind: kind, Amount: to})
		}
		if _, ok := findLegal(h, Raise); !ok {
			t.Fatal("heads-up: no cap")
		}
	})
}

func TestCheckRaise_TP30(t *testing.T) {
	t.Parallel()
	h := ring(t, nlhe(50, 100), 10000, 10000, 10000)
	act(t, h, Action{Seat: 2, Kind: Call}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Check})
	act(t, h, Action{Seat: 0, Kind: Check}, Action{Seat: 1, Kind: Bet, Amount: 300}, Action{Seat: 2, Kind: Call})
	// Seat 0 checked this round; facing the bet it may still raise.
	if l, ok := findLegal(h, Raise); !ok || h.ToAct() != 0 || l.Min != 600 {
		t.Fatalf("TP-30 after check, bet, call: to act %d, raise %+v (%v); want seat 0 raising from 600", h.ToAct(), l, ok)
	}
	act(t, h, Action{Seat: 0, Kind: Raise, Amount: 900})
	// The check-raise stands: the round goes on, the bettor answers it.
	if h.Street() != Flop || h.ToAct() != 1 || h.Stack(0) != 10000-100-900 {
		t.Fatalf("TP-30 after the check-raise: street %v, to act %d, seat 0's stack %d; want the flop, seat 1, %d",
			h.Street(), h.ToAct(), h.Stack(0), 10000-100-900)
	}
	if l, ok := findLegal(h, Call); !ok || !slices.Contains(legalKinds(h), Raise) {
		t.Fatalf("TP-30 the bettor facing the check-raise: call %+v (%v), legal %v", l, ok, legalKinds(h))
	}
}

func TestOrderOfAction_TP11_TP14_G04(t *testing.T) {
	t.Parallel()
	t.Run("TP-14 the big blind's option", func(t *testing.T) {
		t.Parallel()
		h := ring(t, nlhe(50, 100), 10000, 10000, 10000)
		act(t, h, Action{Seat: 2, Kind: Call}, Action{Seat: 0, Kind: Call})
		if h.ToAct() != 1 || !slices.Contains(legalKinds(h), Raise) || !slices.Contains(legalKinds(h), Check) {
			t.Fatalf("BB option: to act %d legal %v", h.ToAct(), legalKinds(h))
		}
		act(t, h, Action{Seat: 1, Kind: Check})
		// TP-11: later rounds start left of the button.
		if h.ToAct() != 0 || h.Street() != Flop {
			t.Fatalf("flop to act %d street %v", h.ToAct(), h.Street())
		}
	})
	t.Run("G-04 heads-up: the button posts the small blind, acts first pre-flop and last after", func(t *testing.T) {
		t.Parallel()
		h := mustHand(t, nlhe(50, 100), Setup{Button: 1, Players: players(1000, 1000), Deck: stackedDeck(t, "")})
		ev := h.Events()
		if ev[0].Seat != 1 || ev[0].Post != PostSmallBlind || ev[1].Seat != 0 || ev[1].Post != PostBigBlind {
			t.Fatalf("posts %+v %+v", ev[0], ev[1])
		}
		if h.ToAct() != 1 {
			t.Fatalf("pre-flop first %d", h.ToAct())
		}
		act(t, h, Action{Seat: 1, Kind: Call}, Action{Seat: 0, Kind: Check})
		if h.ToAct() != 0 {
			t.Fatalf("flop first %d", h.ToAct())
		}
	})
}

func TestDealOrder_TP09(t *testing.T) {
	t.Parallel()
	// Button on seat 5; dealt seats 2, 5, 7: the deal starts at 7, the button last.
	ps := []Player{{Seat: 2, Stack: 500}, {Seat: 5, Stack: 500}, {Seat: 7, Stack: 500}}
	deck := stackedDeck(t, "AcKcQcJcTc9c")
	h := mustHand(t, nlhe(5, 10), Setup{Button: 5, Players: ps, Deck: deck})
	var order []int
	for _, e := range h.Events() {
		if e.Kind == EvDealHole {
			order = append(order, e.Seat)
		}
	}
	if !slices.Equal(order, []int{7, 2, 5}) {
		t.Fatalf("TP-09 deal order %v", order)
	}
	fv := h.FullView()
	if got := fv.Seats[2].Cards; got[0] != deck[0] || got[1] != deck[3] {
		t.Fatalf("seat 7 cards %v, want round-robin %v %v", got, deck[0], deck[3])
	}
	if got := fv.Seats[1].Cards; got[0] != deck[2] || got[1] != deck[5] {
		t.Fatalf("button cards %v", got)
	}
}

func TestPosts_TP10_TP13_TP15(t *testing.T) {
	t.Parallel()
	// Seat 2 returns with a missed-blind debt: BB live, SB dead (TP-15).
	posts := []Post{
		{Seat: 0, Kind: PostSmallBlind, Amount: 50},
		{Seat: 1, Kind: PostBigBlind, Amount: 100},
		{Seat: 2, Kind: PostMissedBigBlind, Amount: 100},
		{Seat: 2, Kind: PostDeadSmallBlind, Amount: 50},
		{Seat: 3, Kind: PostNewPlayerBigBlind, Amount: 100}, // TP-13: posting now is live
	}
	h := mustHand(t, nlhe(50, 100), Setup{Button: 4, Players: players(1000, 1000, 1000, 1000, 1000), Posts: posts, Deck: stackedDeck(t, "")})
	if h.PotTotal() != 400 {
		t.Fatalf("pot %d", h.PotTotal())
	}
	// TP-10: the live 100 counts toward seat 2's bet, the dead 50 does not.
	if h.ToAct() != 2 || !slices.Contains(legalKinds(h), Check) {
		t.Fatalf("TP-10 seat 2 to act with a live 100: to act %d legal %v", h.ToAct(), legalKinds(h))
	}
	act(t, h, Action{Seat: 2, Kind: Check}, Action{Seat: 3, Kind: Check})
	if c, _ := findLegal(h, Call); h.ToAct() != 4 || c.Min != 100 {
		t.Fatalf("seat 4 calls 100: %+v", h.LegalActions())
	}
	act(t, h, Action{Seat: 4, Kind: Call}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Check})
	if h.Street() != Flop || h.PotTotal() != 550 {
		t.Fatalf("street %v pot %d", h.Street(), h.PotTotal())
	}
}

func TestStraddle_TP20_G12(t *testing.T) {
	t.Parallel()
	posts := []Post{{Seat: 0, Kind: PostSmallBlind, Amount: 50}, {Seat: 1, Kind: PostBigBlind, Amount: 100}, {Seat: 2, Kind: PostStraddle, Amount: 200}}
	setup := Setup{Button: 4, Players: players(5000, 5000, 5000, 5000, 5000), Posts: posts, Deck: stackedDeck(t, "")}
	h := mustHand(t, nlhe(50, 100), setup)
	if h.ToAct() != 3 {
		t.Fatalf("TP-20 action starts left of the straddler: %d", h.ToAct())
	}
	if l, _ := findLegal(h, Raise); l.Min != 400 {
		t.Fatalf("G-12 the straddle sizes raises: min %d", l.Min)
	}
	act(t, h, Action{Seat: 3, Kind: Call}, Action{Seat: 4, Kind: Call}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Call})
	if h.ToAct() != 2 || !slices.Contains(legalKinds(h), Raise) {
		t.Fatalf("TP-20 the straddler acts last with the option: %d %v", h.ToAct(), legalKinds(h))
	}
	cases := []struct {
		name  string
		cfg   func(*Config, *Setup)
		rule  string
		sense refusal.Reason
	}{
		{"TP-20 no straddle in tournaments", func(c *Config, s *Setup) { c.Tournament = true }, "TP-20", refusal.StraddleNotAllowed},
		{"TP-20 only the seat after the big blind", func(c *Config, s *Setup) { s.Posts[2].Seat = 3 }, "TP-20", refusal.StraddleNotAllowed},
		{"TP-20 straddle is twice the big blind", func(c *Config, s *Setup) { s.Posts[2].Amount = 300 }, "TP-20", refusal.WrongAmount},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := nlhe(50, 100)
			s := setup
			s.Posts = slices.Clone(setup.Posts)
			c.cfg(&cfg, &s)
			_, err := NewHand(cfg, s)
			re, ok := err.(*refusal.Error)
			if !ok || re.Rule != c.rule || re.Reason != c.sense {
				t.Fatalf("got %v", err)
			}
		})
	}
}

func TestShortBlind_G31(t *testing.T) {
	t.Parallel()
	// The big blind has only 60: the raise size stays a full big blind.
	h := ring(t, nlhe(50, 100), 1000, 60, 1000)
	if c, _ := findLegal(h, Call); c.Min != 60 {
		t.Fatalf("call %+v", c)
	}
	if l, _ := findLegal(h, Raise); l.Min != 160 {
		t.Fatalf("G-31 min raise %+v", l)
	}
}

func TestBigBlindAnte_TP10(t *testing.T) {
	t.Parallel()
	cfg := nlhe(50, 100)
	cfg.Stakes.BigBlindAnte = 100
	h := ring(t, cfg, 1000, 1000, 1000)
	ev := h.Events()
	if ev[2].Post != PostBigBlindAnte || !ev[2].Dead || ev[2].Seat != 1 {
		t.Fatalf("TP-10 the big-blind ante is dead money from the big blind: %+v", ev[2])
	}
	if c, _ := findLegal(h, Call); c.Min != 100 || h.PotTotal() != 250 {
		t.Fatalf("call %+v pot %d", c, h.PotTotal())
	}
	// Everyone folds to the big blind: the dead ante is not returned.
	act(t, h, Action{Seat: 2, Kind: Fold}, Action{Seat: 0, Kind: Fold})
	wantStacks(t, h, map[int]int64{0: 950, 1: 1050, 2: 1000})
}

func TestChipUnitRounding_TP31_G01(t *testing.T) {
	t.Parallel()
	cfg := nlhe(25, 50)
	cfg.Stakes.ChipUnit = 25
	h := ring(t, cfg, 1000, 1000, 80)
	act(t, h, Action{Seat: 2, Kind: Raise, Amount: 80}) // all-in, not a multiple
	// 80 + the last full raise 50 = 130, offered as the next multiple: 150.
	if l, _ := findLegal(h, Raise); l.Min != 150 || l.Max != 1000 {
		t.Fatalf("TP-31 raise range %+v", l)
	}
	refuse(t, h, Action{Seat: 0, Kind: Raise, Amount: 125}, "TP-22", refusal.RaiseBelowMinimum)
	refuse(t, h, Action{Seat: 0, Kind: Raise, Amount: 160}, "TP-31", refusal.NotChipMultiple)
	act(t, h, Action{Seat: 0, Kind: Raise, Amount: 150})
}
