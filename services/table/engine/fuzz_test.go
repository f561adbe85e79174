package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/cardroom/cardroom/platform/random"
	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/engine/refusal"
)

// byteSource feeds fuzz bytes as choices; exhausted it returns zeros.
type byteSource struct {
	b []byte
	i int
}

func (s *byteSource) next() int {
	if s.i >= len(s.b) {
		return 0
	}
	s.i++
	return int(s.b[s.i-1])
}

func (s *byteSource) u16() int { return s.next()<<8 | s.next() }

type gameCase struct {
	g  Game
	st Structure
}

var fuzzGames = []gameCase{
	{Holdem, NoLimit}, {Holdem, PotLimit}, {Holdem, FixedLimit},
	{Omaha, PotLimit}, {Omaha, FixedLimit}, {OmahaHiLo, PotLimit}, {OmahaHiLo, FixedLimit},
	{Stud, FixedLimit}, {StudHiLo, FixedLimit}, {Razz, FixedLimit}, {Omaha, NoLimit},
}

// fuzzSetup builds a random configuration and setup from the source.
func fuzzSetup(src *byteSource) (Config, Setup) {
	gc := fuzzGames[src.next()%len(fuzzGames)]
	cu := int64(1)
	if src.next()%3 == 0 {
		cu = 5
	}
	flags := src.next()
	cfg := Config{Game: gc.g, Structure: gc.st, Profile: DefaultProfile(),
		Tournament: flags&1 != 0, Burn: flags&2 != 0}
	if flags&4 != 0 {
		cfg.Mode = Live
		// Live tables deal physical cards, entered as they are dealt
		// (the setup's deck plays the dealer's deck).
		if phys := src.next(); phys%3 != 0 {
			cfg.Physical = true
			cfg.HoleEntry = phys&4 != 0
			cfg.WinnerEntry = phys&8 != 0
		}
	}
	cfg.Profile.CashAllInFaceUp = flags&8 != 0
	k := Stakes{ChipUnit: cu, SmallBlind: cu, BigBlind: 2 * cu, SmallBet: 2 * cu, BigBet: 4 * cu}
	if flags&16 != 0 {
		k.Ante = cu
	}
	if flags&32 != 0 && !gc.g.IsStud() {
		k.BigBlindAnte = 2 * cu
	}
	if gc.g.IsStud() {
		k.BringIn = cu
		k.SmallBlind, k.BigBlind = 0, 0
		if k.Ante == 0 {
			k.Ante = cu
		}
	}
	cfg.Stakes = k
	maxP := 10
	if gc.g.IsStud() {
		maxP = 8
	}
	n := 2 + src.next()%(maxP-1)
	var setup Setup
	used := uint16(0)
	for len(setup.Players) < n {
		s := src.next() % 10
		for used&(1<<s) != 0 {
			s = (s + 1) % 10
		}
		used |= 1 << s
		stack := int64(1 + src.u16()%(200*int(cu)))
		if src.next()%4 == 0 {
			stack = stack - stack%cu + cu // a multiple of the unit
		}
		setup.Players = append(setup.Players, Player{Seat: s, ID: "p", Stack: stack})
	}
	setup.Button = src.next() % 10
	setup.Deck = cards.NewDeck()
	setup.Deck.Shuffle(random.Seeded(uint64(src.u16())<<16 | uint64(src.u16())))
	if !gc.g.IsStud() && !cfg.Tournament && n >= 3 && flags&64 != 0 {
		// Explicit posts with a straddle (TP-20).
		h := Hand{}
		for _, p := range setup.Players {
			h.s.Seats = append(h.s.Seats, seat{Seat: p.Seat})
		}
		sortSeats(h.s.Seats)
		sb := h.firstLeftOf(setup.Button)
		bb := h.next(sb)
		str := h.next(bb)
		setup.Posts = []Post{
			{Seat: h.s.Seats[sb].Seat, Kind: PostSmallBlind, Amount: k.SmallBlind},
			{Seat: h.s.Seats[bb].Seat, Kind: PostBigBlind, Amount: k.BigBlind},
			{Seat: h.s.Seats[str].Seat, Kind: PostStraddle, Amount: 2 * k.BigBlind},
		}
	}
	if !gc.g.IsStud() && n >= 4 && flags&128 != 0 && setup.Posts == nil {
		// Explicit posts with missed-blind debts and a new player (TP-13, TP-15).
		h := Hand{}
		for _, p := range setup.Players {
			h.s.Seats = append(h.s.Seats, seat{Seat: p.Seat})
		}
		sortSeats(h.s.Seats)
		sb := h.firstLeftOf(setup.Button)
		bb := h.next(sb)
		ret := h.next(bb)
		nw := h.next(ret)
		setup.Posts = []Post{
			{Seat: h.s.Seats[sb].Seat, Kind: PostSmallBlind, Amount: k.SmallBlind},
			{Seat: h.s.Seats[bb].Seat, Kind: PostBigBlind, Amount: k.BigBlind},
			{Seat: h.s.Seats[ret].Seat, Kind: PostMissedBigBlind, Amount: k.BigBlind},
			{Seat: h.s.Seats[ret].Seat, Kind: PostDeadSmallBlind, Amount: k.SmallBlind},
			{Seat: h.s.Seats[nw].Seat, Kind: PostNewPlayerBigBlind, Amount: k.BigBlind},
		}
		if k.Ante > 0 {
			for _, p := range setup.Players {
				setup.Posts = append(setup.Posts, Post{Seat: p.Seat, Kind: PostAnte, Amount: k.Ante})
			}
		}
	}
	return cfg, setup
}

func sortSeats(s []seat) {
	for a := 1; a < len(s); a++ {
		for b := a; b > 0 && s[b].Seat < s[b-1].Seat; b-- {
			s[b], s[b-1] = s[b-1], s[b]
		}
	}
}

// pickAmount picks a legal amount in [l.Min, l.Max]: a chip-unit multiple or
// the maximum (an all-in need not be a multiple).
func pickAmount(l Legal, cu int64, r int) int64 {
	if l.Max <= l.Min {
		return l.Min
	}
	span := l.Max - l.Min
	amt := l.Min + span*int64(r)/255
	amt -= amt % cu
	if amt < l.Min {
		amt = l.Max
	}
	return amt
}

// snapshot is a cheap copy of h for sameState.
type snapshot2 struct {
	h    *Hand
	json []byte
}

func snap(h *Hand) snapshot2 { return snapshot2{h: h.Clone()} }

// unchanged reports whether h still equals the snapshot: a fast deep
// comparison, falling back to the JSON form (nil and empty slices differ
// only there).
func (s snapshot2) unchanged(t testing.TB, h *Hand, what string) {
	t.Helper()
	if s.h.cfg == h.cfg && reflect.DeepEqual(s.h.s, h.s) {
		return
	}
	a, _ := json.Marshal(s.h)
	b, _ := json.Marshal(h)
	if !bytes.Equal(a, b) {
		t.Fatalf("state changed by refused %s", what)
	}
}

func sameState(t testing.TB, h *Hand, before []byte, what string) {
	t.Helper()
	after, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Fatalf("state changed by refused %s", what)
	}
}

// playFuzz plays one random hand and checks the invariants.
func playFuzz(t *testing.T, data []byte) {
	src := &byteSource{b: data}
	cfg, setup := fuzzSetup(src)
	h, err := NewHand(cfg, setup)
	if err != nil {
		var re *refusal.Error
		if !errors.As(err, &re) {
			t.Fatalf("NewHand error is not a refusal.Error: %v", err)
		}
		return
	}
	cu := h.cfg.Stakes.ChipUnit
	checkConserved(t, h)
	table := &physicalDeck{deck: setup.Deck}
	for step := 0; ; step++ {
		if step > 500 {
			t.Fatalf("hand did not end after %d actions", step)
		}
		if h.Done() {
			break
		}
		if h.cfg.Physical && table.feed(t, h, src) {
			checkConserved(t, h)
			continue
		}
		legal := append([]Legal(nil), h.LegalActions()...)
		if len(legal) == 0 {
			t.Fatalf("no legal action and hand not done (phase %v)", h.Phase())
		}
		// A random illegal action must be refused with the state unchanged.
		if c := src.next(); c%4 == 0 {
			before := snap(h)
			var bad Action
			bad.Seat = legal[0].Seat
			switch c / 4 % 4 {
			case 0: // wrong seat
				for _, s := range h.Seats() {
					if s != legal[0].Seat {
						bad = Action{Seat: s, Kind: Check}
						break
					}
				}
			case 1: // seat not in hand
				bad = Action{Seat: 11, Kind: Fold}
			case 2: // above the maximum or below the minimum
				for _, l := range legal {
					if l.Kind == Bet || l.Kind == Raise || l.Kind == Complete {
						bad = Action{Seat: l.Seat, Kind: l.Kind, Amount: l.Max + cu}
						if c&1 != 0 && l.Min > 0 {
							bad.Amount = l.Min - 1
						}
					}
				}
			case 3: // negative amount
				bad.Kind, bad.Amount = Bet, -cu
			}
			if bad.Kind != 0 || bad.Seat == 11 || bad.Amount != 0 {
				if isLegal(legal, bad) {
					goto play
				}
				if _, err := h.Apply(bad); err == nil {
					t.Fatalf("illegal %+v accepted (legal %+v)", bad, legal)
				} else if !errors.As(err, new(*refusal.Error)) {
					t.Fatalf("error not a refusal.Error: %v", err)
				}
				before.unchanged(t, h, "illegal action")
			}
		}
	play:
		// Now and then a dealer kills a hand or the state round-trips.
		if c := src.next(); c < 6 && !h.Done() {
			for _, s := range h.Seats() {
				before := snap(h)
				by := RoleDealer
				if src.next()%2 == 0 {
					by = RoleFloor
				}
				if _, err := h.Apply(Action{Seat: s, Kind: Kill, By: by, Kill: KillReason(src.next() % 7)}); err != nil {
					before.unchanged(t, h, "kill")
					continue
				}
				break
			}
			checkConserved(t, h)
			continue
		} else if c >= 11 && c < 40 && h.cfg.Mode == Live && h.Phase() == PhaseBetting {
			// Live mode: out-of-turn entries and floor rulings (TP-47…TP-60).
			seats := h.Seats()
			s := seats[src.next()%len(seats)]
			var a Action
			switch k := src.next() % 8; k {
			case 0, 1, 2:
				kinds := []ActionKind{Fold, Check, Call, Bet, Raise}
				a = Action{Seat: s, Kind: kinds[src.next()%len(kinds)], Amount: int64(src.next()) * cu}
				before := snap(h)
				if _, err := h.ApplyOutOfTurn(a); err != nil {
					if !errors.As(err, new(*refusal.Error)) {
						t.Fatalf("error not a refusal.Error: %v", err)
					}
					before.unchanged(t, h, "out-of-turn action")
				}
				checkConserved(t, h)
				continue
			case 3:
				a = Action{Seat: s, Kind: Revive, By: RoleFloor}
			case 4:
				a = Action{Seat: s, Kind: RestrictRaise, By: RoleDealer}
			case 5:
				a = Action{Seat: s, Kind: ExposeLive, By: RoleFloor}
			case 6:
				a = Action{Seat: legal[0].Seat, Kind: Skip, By: RoleDealer}
			case 7:
				a = Action{Seat: s, Kind: BoardOverdeal, Amount: 1, By: RoleFloor, Cards: h.Board()[:min(1, len(h.Board()))]}
			}
			before := snap(h)
			if _, err := h.Apply(a); err != nil {
				before.unchanged(t, h, a.Kind.String())
			}
			checkConserved(t, h)
			continue
		} else if c == 9 {
			b, err := json.Marshal(h)
			if err != nil {
				t.Fatal(err)
			}
			var h2 Hand
			if err := json.Unmarshal(b, &h2); err != nil {
				t.Fatal(err)
			}
			sameState(t, &h2, b, "round trip")
			h = &h2
		}
		l := legal[src.next()%len(legal)]
		a := Action{Seat: l.Seat, Kind: l.Kind, Amount: pickAmount(l, cu, src.next())}
		if h.cfg.Physical {
			a.Cards = table.tabled(h, a)
		}
		if _, err := h.Apply(a); err != nil {
			t.Fatalf("offered action %+v refused: %v", a, err)
		}
		checkConserved(t, h)
	}
	checkConserved(t, h)
	checkPots(t, h)
	for i := range h.s.Seats {
		if p := &h.s.Seats[i]; p.Bet != 0 && h.Done() {
			t.Fatalf("seat %d has a bet %d after the hand", p.Seat, p.Bet)
		}
	}
}

// physicalDeck is the dealer's deck of a fuzzed physical hand: the cards
// entered are the first of it not yet seen in the hand.
type physicalDeck struct {
	deck cards.Deck
}

// draw returns the first n cards of the deck not yet seen in h.
func (d *physicalDeck) draw(h *Hand, n int) []cards.Card {
	var out []cards.Card
	for _, c := range d.deck {
		if len(out) == n {
			break
		}
		if !h.seenElsewhere(c, nil) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// feed enters what a physical hand waits for (the board, up cards, the
// floor's pot awards) and reports whether it entered anything.
func (d *physicalDeck) feed(t *testing.T, h *Hand, src *byteSource) bool {
	t.Helper()
	if a, ok := h.Awaiting(); ok {
		e := Action{Kind: DealBoard, By: RoleDealer, Cards: d.draw(h, a.Board)}
		if len(a.UpSeats) > 0 {
			e = Action{Kind: DealSeat, Seat: a.UpSeats[src.next()%len(a.UpSeats)], By: RoleDealer, Cards: d.draw(h, 1)}
		}
		if _, err := h.Apply(e); err != nil {
			t.Fatalf("awaited cards %+v refused: %v (awaiting %+v)", e, err, a)
		}
		return true
	}
	if pots := h.PotsToAward(); len(pots) > 0 {
		k := pots[0].Pot
		elig := h.s.Pots[k].EligibleSeats()
		w := []int{elig[src.next()%len(elig)]}
		if src.next()%3 == 0 && len(elig) > 1 {
			w = elig // a split pot
		}
		if _, err := h.Apply(Action{Kind: AwardPot, Pot: k, By: RoleFloor, Winners: w}); err != nil {
			t.Fatalf("award of pot %d to %v refused: %v", k, w, err)
		}
		return true
	}
	if h.cfg.HoleEntry && src.next()%5 == 0 {
		for i := range h.s.Seats {
			if p := &h.s.Seats[i]; !h.known(p) && !p.Folded && h.Phase() != PhaseDone {
				n, _ := down(p)
				cs := append(knownDown(p), d.draw(h, n-len(knownDown(p)))...)
				if _, err := h.Apply(Action{Kind: DealSeat, Seat: p.Seat, By: RoleDealer, Cards: cs}); err != nil {
					t.Fatalf("hole entry %v for seat %d refused: %v", cs, p.Seat, err)
				}
				return true
			}
		}
	}
	return false
}

// knownDown returns p's known face-down cards.
func knownDown(p *seat) []cards.Card {
	var out []cards.Card
	for k := uint8(0); k < p.N; k++ {
		if p.Up&(1<<k) == 0 && p.Hole[k].Valid() {
			out = append(out, p.Hole[k])
		}
	}
	return out
}

// tabled returns the cards a physical Show (or RequestShow) tables: the
// seat's face-down cards, unknown ones drawn from the deck.
func (d *physicalDeck) tabled(h *Hand, a Action) []cards.Card {
	i := h.indexOf(a.Seat)
	switch {
	case a.Kind == RequestShow:
		i = h.requested(i)
	case a.Kind != Show:
		return nil
	}
	if i < 0 || h.known(&h.s.Seats[i]) {
		return nil
	}
	p := &h.s.Seats[i]
	n, _ := down(p)
	return append(knownDown(p), d.draw(h, n-len(knownDown(p)))...)
}

func isLegal(legal []Legal, a Action) bool {
	for _, l := range legal {
		if l.Seat == a.Seat && l.Kind == a.Kind && a.Amount >= l.Min && a.Amount <= l.Max {
			return true
		}
	}
	return false
}

// FuzzHand plays random legal action sequences with random stacks in every
// game and structure (the first input byte picks one of fuzzGames; live
// mode adds out-of-turn entries and floor rulings) and checks the invariants: chips conserved, no
// negative stack, every pot fully awarded, the hand always ends, every
// offered action accepted, random illegal actions refused with the state
// unchanged, lossless serialization mid-hand, pots recomputed a second way.
//
// Short run (make test): cd services/table && go test -run='^$' -fuzz='^FuzzHand$' -fuzztime=10s ./engine
func FuzzHand(f *testing.F) {
	for g := range fuzzGames {
		for _, seed := range []byte{0, 1, 7, 42, 99, 200} {
			b := []byte{byte(g), seed % 3, seed, 4, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
			for k := 0; k < 64; k++ {
				b = append(b, byte(k*int(seed+3)+g))
			}
			f.Add(b)
		}
	}
	f.Fuzz(playFuzz)
}

// TestRandomHands runs the fuzz body over many seeded inputs in every game.
func TestRandomHands(t *testing.T) {
	t.Parallel()
	rng := random.Seeded(2026)
	for i := 0; i < 3000; i++ {
		b := make([]byte, 200)
		for j := range b {
			b[j] = byte(rng.Uint64())
		}
		b[0] = byte(i % len(fuzzGames))
		playFuzz(t, b)
	}
}

// TestExactlyLegal checks, at every decision of random hands in every game,
// that an action is accepted exactly when LegalActions offers it: the
// seat, the kind and an amount in [Min, Max] that is a chip-unit multiple
// or the all-in (amount-less kinds take 0; a call or bring-in may give 0).
func TestExactlyLegal(t *testing.T) {
	t.Parallel()
	rng := random.Seeded(77)
	kinds := []ActionKind{Fold, Check, Call, Bet, Raise, BringIn, Complete, Show, Muck, RequestShow, Waive, Withdraw}
	for n := 0; n < 250; n++ {
		b := make([]byte, 120)
		for j := range b {
			b[j] = byte(rng.Uint64())
		}
		b[0] = byte(n % len(fuzzGames))
		src := &byteSource{b: b}
		cfg, setup := fuzzSetup(src)
		h, err := NewHand(cfg, setup)
		if err != nil {
			continue
		}
		cu := h.cfg.Stakes.ChipUnit
		table := &physicalDeck{deck: setup.Deck}
		for step := 0; !h.Done() && step < 200; step++ {
			if h.cfg.Physical && table.feed(t, h, src) {
				continue
			}
			legal := append([]Legal(nil), h.LegalActions()...)
			seat := legal[0].Seat
			other := h.Seats()[int(rng.Uint64()%uint64(len(h.Seats())))]
			var allIn int64
			if i := h.indexOf(seat); i >= 0 {
				allIn = h.s.Seats[i].Stack + h.s.Seats[i].Bet
			}
			amounts := []int64{0, 1, cu}
			for _, l := range legal {
				amounts = append(amounts, l.Min-1, l.Min, l.Min+1, l.Max-1, l.Max, l.Max+1, (l.Min+l.Max)/2, allIn)
			}
			for _, s := range []int{seat, other} {
				for _, k := range kinds {
					for _, amt := range amounts {
						if amt < 0 {
							continue
						}
						a := Action{Seat: s, Kind: k, Amount: amt}
						if h.cfg.Physical {
							a.Cards = table.tabled(h, a)
						}
						want := false
						for _, l := range legal {
							if l.Seat != s || l.Kind != k {
								continue
							}
							switch k {
							case Bet, Raise, Complete:
								want = want || (amt >= l.Min && amt <= l.Max && (amt%cu == 0 || amt == allIn || l.Min == l.Max))
							case Call, BringIn:
								want = want || amt == 0 || amt == l.Min
							default:
								want = want || amt == 0
							}
						}
						c := h.Clone()
						_, err := c.Apply(a)
						if (err == nil) != want {
							t.Fatalf("hand %d step %d: %+v accepted=%v, offered=%v (legal %+v, err %v)", n, step, a, err == nil, want, legal, err)
						}
					}
				}
			}
			l := legal[int(rng.Uint64()%uint64(len(legal)))]
			a := Action{Seat: l.Seat, Kind: l.Kind, Amount: pickAmount(l, cu, int(rng.Uint64()%256))}
			if h.cfg.Physical {
				a.Cards = table.tabled(h, a)
			}
			if _, err := h.Apply(a); err != nil {
				t.Fatalf("offered %+v refused: %v", l, err)
			}
		}
	}
}

// checkPots recomputes a finished showdown's pots a second way (peeling
// off the smallest live contribution, TP-44) and checks the awards: each
// pot on its own (TP-77), winners eligible and holding the best hand, and
// equal shares differing by at most one chip unit (TP-73).
func checkPots(t *testing.T, h *Hand) {
	t.Helper()
	st := &h.s
	if !h.Done() || st.Uncontest || st.Misdealt || h.cfg.WinnerEntry {
		return
	}
	n := len(st.Seats)
	contrib := make([]int64, n)
	var dead int64
	for i := range st.Seats {
		contrib[i] = st.Seats[i].Total - st.Seats[i].Dead
		dead += st.Seats[i].Dead
	}
	type pot struct {
		amount int64
		elig   uint16
	}
	var want []pot
	for {
		m := int64(-1)
		for i := range st.Seats {
			if !st.Seats[i].Folded && contrib[i] > 0 && (m < 0 || contrib[i] < m) {
				m = contrib[i]
			}
		}
		if m < 0 {
			var rest int64
			for i := range contrib {
				rest += contrib[i]
			}
			if rest > 0 {
				want[len(want)-1].amount += rest
			}
			break
		}
		var p pot
		for i := range st.Seats {
			take := min(contrib[i], m)
			if !st.Seats[i].Folded && contrib[i] >= m {
				p.elig |= 1 << st.Seats[i].Seat
			}
			p.amount += take
			contrib[i] -= take
		}
		if len(want) == 0 {
			p.amount += dead // dead money is the main pot's (TP-15, big-blind ante)
		}
		want = append(want, p)
	}
	if len(want) != len(st.Pots) {
		t.Fatalf("pots %+v, reference %+v", st.Pots, want)
	}
	cu := h.cfg.Stakes.ChipUnit
	for k, p := range st.Pots {
		if p.Amount != want[k].amount || p.Eligible != want[k].elig {
			t.Fatalf("pot %d %+v, reference %+v", k, p, want[k])
		}
		var sum int64
		for half := 0; half < 2; half++ {
			var lo, hi int64 = -1, -1
			for _, w := range p.Winners {
				if w.Low != (half == 1) {
					continue
				}
				if p.Eligible&(1<<w.Seat) == 0 {
					t.Fatalf("pot %d won by ineligible seat %d", k, w.Seat)
				}
				if lo < 0 || w.Amount < lo {
					lo = w.Amount
				}
				hi = max(hi, w.Amount)
			}
			if lo >= 0 && hi-lo > cu+cu-1 {
				t.Fatalf("TP-73 pot %d shares %d..%d", k, lo, hi)
			}
		}
		for _, w := range p.Winners {
			sum += w.Amount
		}
		if sum != p.Amount {
			t.Fatalf("pot %d awarded %d of %d", k, sum, p.Amount)
		}
		// In high-only games with every contender shown, the winners hold the best hand.
		if h.cfg.Game.IsHiLo() {
			continue
		}
		var best uint32
		shown := 0
		for i := range st.Seats {
			q := &st.Seats[i]
			if p.Eligible&(1<<q.Seat) != 0 && !q.Mucked {
				shown++
				best = max(best, q.Hi)
			}
		}
		if shown < 2 {
			continue
		}
		for _, w := range p.Winners {
			if q := &st.Seats[h.indexOf(w.Seat)]; q.Hi != best {
				t.Fatalf("pot %d won by seat %d without the best hand", k, w.Seat)
			}
		}
	}
}
