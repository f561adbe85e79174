package dealer

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/phh"
)

// TestEveryHandExportsAsPHH plays long seeded runs of hands at a table of
// each game and structure the room deals, with the seat changes a night
// brings between and during hands — new players who wait for the big blind
// or post now (TP-13, TP-16), players who sit out, miss blinds and come back
// posting or waiting (TP-15, TP-18), leave, go broke and top up (TP-19,
// CS-05), straddle (TP-20) — and exports every hand as PHH for the floor:
// each must be written and must replay to the stacks the table paid.
// Two refusals are allowed, the documented ones PHH cannot write: a big
// blind posted live out of position whose file, written with it in the
// poster's first action or ante, would replay to other stacks (a pot-limit
// raise the table allowed with it in the pot, which PHH's pot would not
// hold yet; a poster all in from a short post, whose ante PHH counts as
// dead money) — the export replays such a file and refuses it rather than
// serve a wrong one; and two
// players dealt in with the button on a seat not dealt in (a player
// waiting to come in), where the small blind acts first after the flop,
// which PHH's heads-up order (the small blind on the button, last after
// the flop) cannot say. A hand the room deals but cannot export is what a
// front end meets as 400 PHH_UNSUPPORTED; a new player's post on the
// button was one (the blinds had moved on past the seat left of the
// button), and every split pot at a table whose smallest chip is not 1
// replayed to other stacks (odd chips divided to 1, not to the table's
// chip, TP-73) until the file carried it (phh.ChipUnitField).
func TestEveryHandExportsAsPHH(t *testing.T) {
	t.Parallel()
	blinds := engine.Stakes{SmallBlind: 5, BigBlind: 10, ChipUnit: 5}
	limit := engine.Stakes{SmallBlind: 5, BigBlind: 10, SmallBet: 10, BigBet: 20, ChipUnit: 5}
	stud := engine.Stakes{Ante: 5, BringIn: 5, SmallBet: 10, BigBet: 20, ChipUnit: 5}
	games := []engine.Config{
		{Game: engine.Holdem, Structure: engine.NoLimit, Stakes: blinds},
		{Game: engine.Omaha, Structure: engine.PotLimit, Stakes: blinds},
		{Game: engine.Holdem, Structure: engine.FixedLimit, Stakes: limit},
		{Game: engine.OmahaHiLo, Structure: engine.FixedLimit, Stakes: limit},
		{Game: engine.Stud, Structure: engine.FixedLimit, Stakes: stud},
		{Game: engine.StudHiLo, Structure: engine.FixedLimit, Stakes: stud},
		{Game: engine.Razz, Structure: engine.FixedLimit, Stakes: stud},
	}
	for i, cfg := range games {
		cfg.Profile = engine.DefaultProfile()
		t.Run(fmt.Sprintf("%s %s", cfg.Game, cfg.Structure), func(t *testing.T) {
			t.Parallel()
			n := newNight(t, cfg, uint64(200+i))
			for n.hands < 500 {
				n.betweenHands()
				n.playHand()
			}
			if !cfg.Game.IsStud() {
				// The night must have dealt what it claims to prove.
				for _, want := range []string{"new_player_big_blind/TP-13", "missed_big_blind/TP-15", "missed_big_blind/TP-16",
					"dead_small_blind/G-06", "straddle/TP-20"} {
					if n.posted[want] == 0 {
						t.Errorf("no %s post in %d hands: the night proves nothing of it (posts seen: %v)", want, n.hands, n.posted)
					}
				}
				if n.waitingHeadsUp == 0 {
					t.Errorf("no hand dealt to two with a third player waiting in %d hands: G-04's heads-up by the players dealt in is unproved", n.hands)
				}
			}
			if n.exported < n.hands*9/10 {
				t.Errorf("%d of %d hands exported: too few to have proved much", n.exported, n.hands)
			}
			t.Logf("%d hands (%d heads-up with a player waiting), %d exported, refused as documented: %v", n.hands, n.waitingHeadsUp, n.exported, n.refused)
		})
	}
}

// night is one seeded run of hands at a table.
type night struct {
	t        *testing.T
	tb       *Table
	rng      *rand.Rand
	now      time.Time
	next     int // the next new player's number
	hands    int
	exported int
	refused  map[string]int // documented refusals by reason
	posted   map[string]int // forced bets dealt, by kind and rule
	deck     uint64
	// waitingHeadsUp counts the hands dealt to two while a third player
	// with chips, not sitting out, waited (G-04 with G-06 or TP-13).
	waitingHeadsUp int
}

func newNight(t *testing.T, cfg engine.Config, seed uint64) *night {
	n := &night{t: t, tb: New("t1", cfg, 6, Settings{}), rng: rand.New(rand.NewPCG(seed, seed)), now: t0,
		refused: map[string]int{}, posted: map[string]int{}, deck: seed * 1000}
	for range 4 {
		n.sitNew(true)
	}
	return n
}

// sitNew seats a new player in a free seat.
func (n *night) sitNew(postNow bool) {
	seat, err := n.tb.FreeSeat()
	if err != nil {
		return
	}
	n.next++
	_, _ = n.tb.Sit(seat, fmt.Sprintf("p%02d", n.next), int64(40+n.rng.IntN(160))*5, postNow)
}

// seat returns a random occupied seat matching keep, or -1.
func (n *night) seat(keep func(Seat) bool) int {
	var seats []int
	for i, s := range n.tb.Seats() {
		if s.Occupied() && keep(s) {
			seats = append(seats, i)
		}
	}
	if len(seats) == 0 {
		return -1
	}
	return seats[n.rng.IntN(len(seats))]
}

// change makes one random seat change; refusals (a rule that forbids it
// now) are part of the night and leave the table as it was.
// A change during a hand may end it (the last opponent leaves): its
// output then holds the hand's history.
func (n *night) change() Output {
	var out Output
	switch r := n.rng.IntN(100); {
	case r < 15:
		// A new player who sits out lets the big blind pass (TP-16).
		s := n.seat(func(s Seat) bool { return s.New && !s.SittingOut })
		if s < 0 || n.rng.IntN(2) == 0 {
			s = n.seat(func(s Seat) bool { return !s.SittingOut })
		}
		if s >= 0 {
			out, _ = n.tb.SitOut(s)
		}
	case r < 40:
		if s := n.seat(func(s Seat) bool { return s.SittingOut && s.Stack > 0 }); s >= 0 {
			out, _ = n.tb.Return(s, n.rng.IntN(2) == 0)
		}
	case r < 50:
		if s := n.seat(func(Seat) bool { return true }); s >= 0 {
			out, _ = n.tb.Leave(s, n.now)
		}
	case r < 75:
		n.sitNew(n.rng.IntN(2) == 0)
	case r < 85:
		// Whoever sits after the next big blind may straddle (TP-20).
		for s, seat := range n.tb.Seats() {
			if seat.Occupied() {
				_, _ = n.tb.RequestStraddle(s, true)
			}
		}
	default:
		if s := n.seat(func(s Seat) bool { return s.Stack < 100 }); s >= 0 {
			out, _ = n.tb.TopUp(s, 200)
		}
	}
	return out
}

// betweenHands makes a few seat changes, and seats players until two can
// be dealt in.
func (n *night) betweenHands() {
	for range n.rng.IntN(3) {
		if o := n.change(); o.History != nil {
			n.t.Fatalf("hand %d: a change between hands ended a hand", n.hands)
		}
	}
	for tries := 0; !n.tb.Ready(n.now); tries++ {
		if tries == 50 {
			n.t.Fatalf("hand %d: the table cannot deal after 50 changes: %+v", n.hands, n.tb.Seats())
		}
		if s := n.seat(func(s Seat) bool { return s.SittingOut && s.Stack > 0 }); s >= 0 && n.rng.IntN(2) == 0 {
			_, _ = n.tb.Return(s, true)
			continue
		}
		if s := n.seat(func(s Seat) bool { return s.Stack == 0 }); s >= 0 {
			_, _ = n.tb.Leave(s, n.now)
		}
		n.sitNew(true)
	}
}

// playHand deals a hand and plays random legal actions, with now and then
// a seat change during it, to its end; then exports it.
func (n *night) playHand() {
	n.now = n.now.Add(time.Minute)
	n.deck++
	ready := 0
	for _, s := range n.tb.Seats() {
		if s.Occupied() && s.Stack > 0 && !s.SittingOut {
			ready++
		}
	}
	out, err := n.tb.StartHand(seeded(n.deck), n.now)
	if err != nil {
		n.t.Fatalf("hand %d: start: %v", n.hands+1, err)
	}
	for steps := 0; out.History == nil; steps++ {
		if steps > 500 {
			n.t.Fatalf("hand %d: not over after 500 actions", n.hands+1)
		}
		if n.rng.IntN(10) == 0 {
			if o := n.change(); o.History != nil {
				out = o
				continue
			}
		}
		if n.tb.Hand() == nil || n.tb.Hand().Done() {
			n.t.Fatalf("hand %d: over without a history", n.hands+1)
		}
		a := n.pick(n.tb.Hand().LegalActions())
		if out, err = n.tb.Apply(Act{Action: a}, n.now); err != nil {
			n.t.Fatalf("hand %d: %+v: %v", n.hands+1, a, err)
		}
	}
	n.hands++
	if len(out.History.Setup.Players) == 2 && ready > 2 {
		n.waitingHeadsUp++
	}
	n.export(out.History)
}

// pick chooses one of the legal actions, with an amount between its
// minimum and maximum in whole units.
func (n *night) pick(legal []engine.Legal) engine.Action {
	l := legal[n.rng.IntN(len(legal))]
	if l.Kind == engine.Fold && len(legal) > 1 && n.rng.IntN(3) > 0 {
		l = legal[1+n.rng.IntN(len(legal)-1)] // fold less often: longer hands
	}
	a := engine.Action{Seat: l.Seat, Kind: l.Kind, Amount: l.Min}
	if unit := n.tb.Config().Stakes.BigBlind; l.Max > l.Min && unit > 0 {
		switch n.rng.IntN(3) {
		case 0:
			a.Amount = l.Max
		case 1:
			a.Amount = l.Min + int64(n.rng.IntN(int((l.Max-l.Min)/unit)+1))*unit
		}
	}
	return a
}

// export writes the hand as the floor's PHH and replays it.
func (n *night) export(h *History) {
	n.t.Helper()
	for _, e := range h.Events {
		if e.Kind == engine.EvPost {
			n.posted[fmt.Sprintf("%s/%s", e.Post, e.Rule)]++
		}
	}
	ph, err := h.PHH(Reader{Full: true, Seat: -1})
	if err != nil {
		switch {
		case !errors.Is(err, phh.ErrUnsupported):
		case strings.Contains(err.Error(), "a big blind posted live out of position"):
			n.refused["a live blind out of position PHH cannot place"]++
			return
		}
		n.t.Errorf("hand %d: PHH: %v\nposts: %v", h.HandNo, err, postsOf(h.Events))
		return
	}
	stacks, err := phh.ReplayHistory(ph)
	if err != nil {
		n.t.Errorf("hand %d: replay: %v\nposts: %v", h.HandNo, err, postsOf(h.Events))
		return
	}
	got, want := fmt.Sprint(stacks), fmt.Sprint(ph.FinishingStacks)
	if got != want {
		n.t.Errorf("hand %d: the PHH replays to %s, the table paid %s\nposts: %v", h.HandNo, got, want, postsOf(h.Events))
	}
	n.exported++
}

// postsOf lists a hand's forced bets, for a failure's message.
func postsOf(evs []engine.Event) []string {
	var out []string
	for _, e := range evs {
		if e.Kind == engine.EvPost {
			out = append(out, fmt.Sprintf("seat %d %s %d %s", e.Seat, e.Post, e.Amount, e.Rule))
		}
	}
	sort.Strings(out)
	return slices.Clip(out)
}
