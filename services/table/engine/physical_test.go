package engine

import (
	"slices"
	"testing"

	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/engine/refusal"
)

// physicalCfg is a live NL 50/100 table dealing physical cards.
func physicalCfg() Config {
	c := liveCfg()
	c.Physical = true
	return c
}

// physicalHand starts a three-way physical hand (button 2: seat 0 posts the
// small blind, seat 1 the big blind, seat 2 acts first).
func physicalHand(t *testing.T, cfg Config) *Hand {
	t.Helper()
	return mustHand(t, cfg, Setup{Button: 2, Players: players(1000, 1000, 1000)})
}

// cs parses cards two characters at a time, duplicates allowed (an entry
// may repeat a card; the engine refuses it).
func cs(s string) []cards.Card {
	var out []cards.Card
	for i := 0; i+1 < len(s); i += 2 {
		c, err := cards.Parse(s[i : i+2])
		if err != nil {
			panic(err)
		}
		out = append(out, c)
	}
	return out
}

// board enters the street's community cards.
func board(t *testing.T, h *Hand, s string) []Event {
	t.Helper()
	return applyAll(t, h, Action{Kind: DealBoard, By: RoleDealer, Cards: cs(s)})
}

// callDown calls (or checks) the round in progress to its end.
func callDown(t *testing.T, h *Hand) {
	t.Helper()
	street := h.Street()
	for h.Phase() == PhaseBetting && h.Street() == street && h.ToAct() >= 0 {
		k := Check
		if _, ok := findLegal(h, Call); ok {
			k = Call
		}
		act(t, h, Action{Seat: h.ToAct(), Kind: k})
	}
}

func TestPhysicalCards_NoInventedCards_TP68(t *testing.T) {
	t.Parallel()
	h := physicalHand(t, physicalCfg())
	// Nobody entered a hole card: the engine holds none, and no viewer —
	// the seat's own player included — sees a card it invented.
	for _, v := range []View{h.View(0), h.View(1), h.FullView()} {
		for _, s := range v.Seats {
			if len(s.Cards) != 2 || s.Cards[0] != cards.Unknown || s.Cards[1] != cards.Unknown {
				t.Fatalf("viewer %d sees seat %d holding %v", v.Viewer, s.Seat, s.Cards)
			}
		}
	}
	callDown(t, h)
	// The flop is awaited: nobody acts until it is entered.
	if a, ok := h.Awaiting(); !ok || a.Street != Flop || a.Board != 3 || h.ToAct() != -1 {
		t.Fatalf("awaiting %+v %v, to act %d", a, ok, h.ToAct())
	}
	refuse(t, h, Action{Seat: 0, Kind: Check}, "", refusal.AwaitingCards)
	refuse(t, h, Action{Kind: DealBoard, By: RoleDealer, Cards: cs("2c3d7h8c")}, "TP-78", refusal.WrongCardCount)
	refuse(t, h, Action{Kind: DealBoard, By: RoleDealer, Cards: cs("2c3d7h8c9c")}, "TP-79", refusal.WrongCardCount)
	refuse(t, h, Action{Kind: DealBoard, By: RoleDealer, Cards: cs("2c3d")}, "", refusal.WrongCardCount)
	refuse(t, h, Action{Kind: DealBoard, By: RoleDealer, Cards: cs("2c3d2c")}, "G-32", refusal.DuplicateCard)
	refuse(t, h, Action{Kind: DealBoard, By: RolePlayer, Cards: cs("2c3d7h")}, "", refusal.RoleRequired)
	refuse(t, h, Action{Seat: 0, Kind: Show, Cards: cs("AsAh")}, "", refusal.AwaitingCards)
	if ev := board(t, h, "2c3d7h"); len(eventsOf(ev, EvDealBoard)) != 1 || h.ToAct() != 0 {
		t.Fatalf("flop: %+v, to act %d", ev, h.ToAct())
	}
	refuse(t, h, Action{Kind: DealBoard, By: RoleDealer, Cards: cs("8c")}, "", refusal.CardsNotExpected)
	callDown(t, h)
	refuse(t, h, Action{Kind: DealBoard, By: RoleDealer, Cards: cs("7h")}, "G-32", refusal.DuplicateCard) // on the board already
	board(t, h, "8c")
	callDown(t, h)
	board(t, h, "Js")
	act(t, h, Action{Seat: 0, Kind: Bet, Amount: 100}, Action{Seat: 1, Kind: Call}, Action{Seat: 2, Kind: Call})
	if h.Phase() != PhaseShowdown || h.ToAct() != 0 {
		t.Fatalf("phase %v to act %d", h.Phase(), h.ToAct())
	}
	// The cards speak (TP-68): a hand is judged from the cards tabled.
	refuse(t, h, Action{Seat: 0, Kind: Show}, "TP-67", refusal.WrongCardCount)
	refuse(t, h, Action{Seat: 0, Kind: Show, Cards: cs("AsAhKs")}, "TP-55", refusal.WrongCardCount)
	refuse(t, h, Action{Seat: 0, Kind: Show, Cards: cs("As2c")}, "TP-68", refusal.DuplicateCard)
	refuse(t, h, Action{Seat: 0, Kind: Show, Cards: cs("AsAs")}, "TP-68", refusal.DuplicateCard)
	act(t, h, Action{Seat: 0, Kind: Show, Cards: cs("QsQh")})
	refuse(t, h, Action{Seat: 1, Kind: Show, Cards: cs("QsKh")}, "TP-68", refusal.DuplicateCard) // tabled by seat 0
	act(t, h, Action{Seat: 1, Kind: Show, Cards: cs("AsAh")})
	// Seat 2 tables a hand that cannot win: mucked unseen (TP-66), its
	// cards kept for the history of the players seated.
	ev := applyAll(t, h, Action{Seat: 2, Kind: Show, Cards: cs("KsKh")})
	if m := eventsOf(ev, EvMuck); len(m) != 1 || m[0].Seat != 2 || m[0].Rule != "TP-66" || len(eventsOf(ev, EvShow)) != 0 {
		t.Fatalf("losing hand tabled: %+v", ev)
	}
	wantStacks(t, h, map[int]int64{0: 800, 1: 1400, 2: 800})
	if hv := h.HistoryView(0); !slices.Equal(hv.Seats[2].Cards, cs("KsKh")) || !slices.Equal(h.View(0).Seats[2].Cards, []cards.Card{cards.Unknown, cards.Unknown}) {
		t.Fatalf("TP-66 auto-mucked hand: history %v, table %v", h.HistoryView(0).Seats[2].Cards, h.View(0).Seats[2].Cards)
	}
}

func TestPhysicalCards_LastHandWinsUnseen_TP64(t *testing.T) {
	t.Parallel()
	h := physicalHand(t, physicalCfg())
	callDown(t, h)
	board(t, h, "2c3d7h")
	callDown(t, h)
	board(t, h, "8c")
	callDown(t, h)
	board(t, h, "Js")
	callDown(t, h)
	// Seat 0 shows first (no aggressor: first left of the button).
	act(t, h, Action{Seat: 0, Kind: Show, Cards: cs("9s9h")}, Action{Seat: 1, Kind: Muck}, Action{Seat: 2, Kind: Muck})
	if !h.Done() {
		t.Fatal("not done")
	}
	// Mucked hands at a live table are unknown, not invented.
	v := h.FullView()
	for _, s := range []int{1, 2} {
		if !slices.Equal(v.Seats[s].Cards, []cards.Card{cards.Unknown, cards.Unknown}) {
			t.Fatalf("mucked seat %d holds %v", s, v.Seats[s].Cards)
		}
	}
	wantStacks(t, h, map[int]int64{0: 1200, 1: 900, 2: 900})
}

func TestPhysicalCards_HoleEntry(t *testing.T) {
	t.Parallel()
	cfg := physicalCfg()
	if _, err := NewHand(cfg, Setup{Button: 2, Players: players(1000, 1000, 1000)}); err != nil {
		t.Fatal(err)
	}
	h := physicalHand(t, cfg)
	refuse(t, h, Action{Seat: 0, Kind: DealSeat, By: RoleDealer, Cards: cs("AsAh")}, "", refusal.CardsNotExpected)
	cfg.HoleEntry = true
	h = physicalHand(t, cfg)
	ev := applyAll(t, h, Action{Seat: 0, Kind: DealSeat, By: RoleDealer, Cards: cs("AsAh")})
	if d := eventsOf(ev, EvHoleEntry); len(d) != 1 || d[0].Seat != 0 || !slices.Equal(d[0].CardList(), cs("AsAh")) {
		t.Fatalf("hole entry: %+v", ev)
	}
	refuse(t, h, Action{Seat: 1, Kind: DealSeat, By: RoleDealer, Cards: cs("AsKh")}, "", refusal.DuplicateCard)
	refuse(t, h, Action{Seat: 1, Kind: DealSeat, By: RoleDealer, Cards: cs("Kh")}, "TP-55", refusal.WrongCardCount)
	refuse(t, h, Action{Seat: 0, Kind: DealSeat, By: RoleDealer, Cards: cs("KsKh")}, "", refusal.BadCard) // seat 0's cards are known
	if own, other := h.View(0).Seats[0].Cards, h.View(1).Seats[0].Cards; !slices.Equal(own, cs("AsAh")) ||
		!slices.Equal(other, []cards.Card{cards.Unknown, cards.Unknown}) {
		t.Fatalf("seat 0 sees %v, seat 1 sees %v", own, other)
	}
}

func TestPhysicalCards_Exposed_TP58(t *testing.T) {
	t.Parallel()
	t.Run("TP-58 the floor rules live without aggression", func(t *testing.T) {
		t.Parallel()
		h := physicalHand(t, physicalCfg())
		refuse(t, h, Action{Seat: 2, Kind: Expose, By: RoleDealer, Cards: cs("AsKsQs")}, "TP-58", refusal.WrongCardCount)
		ev := applyAll(t, h, Action{Seat: 2, Kind: Expose, By: RoleDealer, Cards: cs("As")})
		if x := eventsOf(ev, EvExpose); len(x) != 1 || !slices.Equal(x[0].CardList(), cs("As")) || x[0].Rule != "TP-58" {
			t.Fatalf("exposure: %+v", ev)
		}
		if got := h.ExposurePending(); !slices.Equal(got, []int{2}) || len(h.LegalActions()) != 0 {
			t.Fatalf("pending %v, legal %v", got, h.LegalActions())
		}
		// Everyone sees the exposed card, not the other one.
		if c := h.View(0).Seats[2].Cards; !slices.Equal(c, []cards.Card{cards.New(cards.Ace, cards.Spades), cards.Unknown}) {
			t.Fatalf("seat 0 sees %v", c)
		}
		refuse(t, h, Action{Seat: 2, Kind: Raise, Amount: 300}, "TP-58", refusal.FloorPending)
		refuse(t, h, Action{Seat: 2, Kind: Kill, Kill: KillExposed, By: RoleDealer}, "TP-58", refusal.RoleRequired)
		refuse(t, h, Action{Seat: 2, Kind: ExposeLive, By: RoleDealer}, "TP-58", refusal.RoleRequired)
		act(t, h, Action{Seat: 2, Kind: ExposeLive, By: RoleFloor})
		if ks := legalKinds(h); !slices.Equal(ks, []ActionKind{Fold, Call}) {
			t.Fatalf("live without aggression: %v", ks)
		}
		refuse(t, h, Action{Seat: 2, Kind: Raise, Amount: 300}, "TP-58", refusal.NoAggression)
	})
	t.Run("TP-58 the floor rules the hand dead", func(t *testing.T) {
		t.Parallel()
		h := physicalHand(t, physicalCfg())
		act(t, h, Action{Seat: 2, Kind: Expose, By: RoleDealer, Cards: cs("AsKd")})
		ev := applyAll(t, h, Action{Seat: 2, Kind: Kill, Kill: KillExposed, By: RoleFloor})
		if k := eventsOf(ev, EvKill); len(k) != 1 || k[0].Rule != "TP-58" || h.ToAct() != 0 {
			t.Fatalf("kill: %+v to act %d", ev, h.ToAct())
		}
		if h.FullView().Seats[2].Cards[1] != cards.New(cards.King, cards.Diamonds) {
			t.Fatalf("the exposed cards are not recorded: %v", h.FullView().Seats[2].Cards)
		}
	})
}

func TestPhysicalCards_Misdeal_G32(t *testing.T) {
	t.Parallel()
	h := physicalHand(t, physicalCfg())
	act(t, h, Action{Seat: 2, Kind: Call})
	ev := applyAll(t, h, Action{Kind: Misdeal, By: RoleDealer})
	if !h.Done() || !h.Misdealt() || len(eventsOf(ev, EvMisdeal)) != 1 || len(eventsOf(ev, EvReturn)) != 3 {
		t.Fatalf("misdeal: %+v", ev)
	}
	wantStacks(t, h, map[int]int64{0: 1000, 1: 1000, 2: 1000})
	// Substantial action: two actions in turn, one of them a call.
	h = physicalHand(t, physicalCfg())
	act(t, h, Action{Seat: 2, Kind: Call}, Action{Seat: 0, Kind: Fold})
	refuse(t, h, Action{Kind: Misdeal, By: RoleDealer}, "G-32", refusal.RoleRequired)
	act(t, h, Action{Kind: Misdeal, By: RoleFloor})
	wantStacks(t, h, map[int]int64{0: 1000, 1: 1000, 2: 1000})
	refuse(t, mustHand(t, nlhe(50, 100), Setup{Button: 2, Players: players(1000, 1000, 1000), Deck: stackedDeck(t, "")}),
		Action{Kind: Misdeal, By: RoleFloor}, "G-32", refusal.ActionNotAllowed)
}

func TestPhysicalCards_PrematureCards_G10(t *testing.T) {
	t.Parallel()
	t.Run("G-10 a premature flop goes back into the stub", func(t *testing.T) {
		t.Parallel()
		h := physicalHand(t, physicalCfg())
		act(t, h, Action{Seat: 2, Kind: Call})
		refuse(t, h, Action{Seat: 0, Kind: Skip, By: RoleDealer, Cards: cs("2c3d7h")}, "TP-48", refusal.RoleRequired)
		refuse(t, h, Action{Seat: 0, Kind: Skip, By: RoleFloor, Cards: cs("2c3d")}, "G-10", refusal.WrongCardCount)
		ev := applyAll(t, h, Action{Seat: 0, Kind: Skip, By: RoleFloor, Cards: cs("2c3d7h")})
		if o := eventsOf(ev, EvOverdeal); len(o) != 1 || o[0].Rule != "G-10" || o[0].Street != Flop {
			t.Fatalf("premature flop: %+v", ev)
		}
		callDown(t, h)
		board(t, h, "7h8c2c") // the redealt flop may hold the voided cards
	})
	t.Run("G-10 a premature turn card is set aside, then shuffled back for the river", func(t *testing.T) {
		t.Parallel()
		h := physicalHand(t, physicalCfg())
		callDown(t, h)
		board(t, h, "2c3d7h")
		act(t, h, Action{Seat: 0, Kind: Skip, By: RoleFloor, Cards: cs("Kc")})
		callDown(t, h)
		refuse(t, h, Action{Kind: DealBoard, By: RoleDealer, Cards: cs("Kc")}, "G-10", refusal.BadCard)
		board(t, h, "Qd")
		callDown(t, h)
		board(t, h, "Kc")
		if h.Street() != River || h.ToAct() < 0 {
			t.Fatalf("river: street %v to act %d", h.Street(), h.ToAct())
		}
		refuse(t, h, Action{Seat: h.ToAct(), Kind: Skip, By: RoleFloor, Cards: cs("Ac")}, "TP-48", refusal.ActionNotAllowed)
	})
}

func TestPhysicalCards_AllInTabled_TP45(t *testing.T) {
	t.Parallel()
	cfg := physicalCfg()
	cfg.Tournament = true
	h := physicalHand(t, cfg)
	act(t, h, Action{Seat: 2, Kind: Raise, Amount: 1000}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Fold})
	// Betting is over with an all-in: the hands are turned up (TP-45) and
	// the board is run out street by street as the dealer enters it.
	if a, ok := h.Awaiting(); !ok || a.Street != Flop {
		t.Fatalf("awaiting %+v", a)
	}
	ev := applyAll(t, h, Action{Seat: 2, Kind: DealSeat, By: RoleDealer, Cards: cs("AsAh")})
	if x := eventsOf(ev, EvExpose); len(x) != 1 || x[0].Rule != "TP-45" {
		t.Fatalf("tabled all-in hand: %+v", ev)
	}
	board(t, h, "2c3d7h")
	board(t, h, "8c")
	board(t, h, "Js")
	if h.Phase() != PhaseShowdown || h.ToAct() != 0 {
		t.Fatalf("phase %v to act %d", h.Phase(), h.ToAct())
	}
	refuse(t, h, Action{Seat: 0, Kind: Muck}, "TP-45", refusal.ActionNotAllowed) // turned face up: tabled
	act(t, h, Action{Seat: 0, Kind: Show, Cards: cs("KsKh")})
	wantStacks(t, h, map[int]int64{0: 0, 1: 900, 2: 2100})
}

func TestPhysicalCards_WinnerEntry(t *testing.T) {
	t.Parallel()
	cfg := physicalCfg()
	cfg.WinnerEntry = true
	h := mustHand(t, cfg, Setup{Button: 2, Players: players(300, 1000, 1000)})
	act(t, h, Action{Seat: 2, Kind: Raise, Amount: 600}, Action{Seat: 0, Kind: Call}, Action{Seat: 1, Kind: Call})
	board(t, h, "2c3d7h")
	callDown(t, h)
	board(t, h, "8c")
	callDown(t, h)
	board(t, h, "Js")
	callDown(t, h)
	pots := h.PotsToAward()
	if h.Phase() != PhaseShowdown || len(pots) != 2 || pots[0].Amount != 900 || pots[1].Amount != 600 || len(h.LegalActions()) != 0 {
		t.Fatalf("pots to award %+v", pots)
	}
	refuse(t, h, Action{Kind: AwardPot, By: RoleDealer, Winners: []int{1}}, "TP-68", refusal.RoleRequired)
	refuse(t, h, Action{Kind: AwardPot, Pot: 1, By: RoleFloor, Winners: []int{0}}, "TP-44", refusal.NotEligible)
	refuse(t, h, Action{Kind: AwardPot, Pot: 0, By: RoleFloor, Winners: []int{0}, LowWinners: []int{1}}, "G-17", refusal.NotEligible)
	act(t, h, Action{Kind: AwardPot, Pot: 1, By: RoleFloor, Winners: []int{1, 2}})
	if h.Done() {
		t.Fatal("done with the main pot unawarded")
	}
	act(t, h, Action{Kind: AwardPot, Pot: 0, By: RoleFloor, Winners: []int{0}})
	if !h.Done() {
		t.Fatal("not done")
	}
	wantStacks(t, h, map[int]int64{0: 900, 1: 700, 2: 700})
}

func TestPhysicalCards_Overdeal_TP78_TP79(t *testing.T) {
	t.Parallel()
	t.Run("TP-78 before the flop is entered: the removed card is the next burn", func(t *testing.T) {
		t.Parallel()
		h := physicalHand(t, physicalCfg())
		callDown(t, h)
		act(t, h, Action{Kind: BoardOverdeal, Amount: 1, By: RoleFloor, Cards: cs("2c3d7hKs")})
		if !slices.Equal(h.Board(), cs("2c3d7h")) || h.ToAct() != 0 {
			t.Fatalf("board %v to act %d", h.Board(), h.ToAct())
		}
		callDown(t, h)
		refuse(t, h, Action{Kind: DealBoard, By: RoleDealer, Cards: cs("Ks")}, "G-32", refusal.DuplicateCard) // burned
	})
	t.Run("TP-79 after the flop was entered: the street is entered again", func(t *testing.T) {
		t.Parallel()
		h := physicalHand(t, physicalCfg())
		callDown(t, h)
		board(t, h, "2c3d7h")
		act(t, h, Action{Kind: BoardOverdeal, Amount: 2, By: RoleFloor, Cards: cs("2c3d7h8c9c")})
		if a, ok := h.Awaiting(); !ok || a.Board != 3 || len(h.Board()) != 0 {
			t.Fatalf("awaiting %+v board %v", a, h.Board())
		}
		board(t, h, "9c7h4s")
	})
}

func TestPhysicalCards_StudUpCards(t *testing.T) {
	t.Parallel()
	cfg := Config{Game: Stud, Structure: FixedLimit, Stakes: Stakes{Ante: 10, BringIn: 25, SmallBet: 50, BigBet: 100}, Mode: Live, Physical: true,
		Profile: DefaultProfile()}
	h := mustHand(t, cfg, Setup{Button: 2, Players: players(1000, 1000, 1000)})
	if a, ok := h.Awaiting(); !ok || !slices.Equal(a.UpSeats, []int{0, 1, 2}) || h.ToAct() != -1 {
		t.Fatalf("awaiting %+v", a)
	}
	refuse(t, h, Action{Seat: 0, Kind: BringIn}, "", refusal.AwaitingCards)
	act(t, h, Action{Seat: 0, Kind: DealSeat, By: RoleDealer, Cards: cs("Kd")}, Action{Seat: 1, Kind: DealSeat, By: RoleDealer, Cards: cs("2c")})
	refuse(t, h, Action{Seat: 2, Kind: DealSeat, By: RoleDealer, Cards: cs("2c")}, "G-32", refusal.DuplicateCard)
	act(t, h, Action{Seat: 2, Kind: DealSeat, By: RoleDealer, Cards: cs("9h")})
	// The bring-in is the lowest up card: seat 1's deuce.
	if h.ToAct() != 1 || !slices.Contains(legalKinds(h), BringIn) {
		t.Fatalf("to act %d legal %v", h.ToAct(), legalKinds(h))
	}
}

// TestDealt_HistoryHoldsTheCardsSeen: the deal events of a physical hand
// hold the cards as they came to be known — entered, tabled — and a hand
// mucked unseen stays unknown (TP-64).
func TestDealt_HistoryHoldsTheCardsSeen(t *testing.T) {
	t.Parallel()
	cfg := physicalCfg()
	cfg.HoleEntry = true
	h := physicalHand(t, cfg)
	events := slices.Clone(h.Events())
	apply := func(a Action) {
		t.Helper()
		ev, err := h.Apply(a)
		if err != nil {
			t.Fatalf("%+v: %v", a, err)
		}
		events = append(events, ev...)
	}
	apply(Action{Seat: 1, Kind: DealSeat, By: RoleDealer, Cards: cs("QdQc")})
	streets := map[Street]string{Flop: "2c3d7h", Turn: "8c", River: "Js"}
	for h.Phase() == PhaseBetting {
		if a, ok := h.Awaiting(); ok {
			apply(Action{Kind: DealBoard, By: RoleDealer, Cards: cs(streets[a.Street])})
			continue
		}
		k := Check
		if _, ok := findLegal(h, Call); ok {
			k = Call
		}
		apply(Action{Seat: h.ToAct(), Kind: k})
	}
	apply(Action{Seat: 0, Kind: Show, Cards: cs("AsAh")})
	// Seat 1's entered queens cannot win: mucked by the engine (TP-66).
	apply(Action{Seat: 2, Kind: Muck})
	got := map[int][]cards.Card{}
	for _, e := range Dealt(events, h) {
		if e.Kind == EvDealHole {
			got[e.Seat] = append(got[e.Seat], e.CardList()...)
		}
	}
	unknown := []cards.Card{cards.Unknown, cards.Unknown}
	if !slices.Equal(got[0], cs("AsAh")) || !slices.Equal(got[1], cs("QdQc")) || !slices.Equal(got[2], unknown) {
		t.Fatalf("dealt %v", got)
	}
	for _, e := range events {
		if e.Kind == EvDealHole && e.CardList()[0].Valid() {
			t.Fatalf("Dealt changed the events it was given: %+v", e)
		}
	}
}
