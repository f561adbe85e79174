package phh

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cardroom/cardroom/platform/random"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/engine/cards"
)

// playRandom plays one hand to the end with random legal actions (random
// amounts in the offered ranges; at showdown only show or muck, which PHH
// can express) and returns the recorder.
func playRandom(t *testing.T, rng *rand.Rand, cfg engine.Config, st engine.Setup) *Recorder {
	t.Helper()
	rec, err := Record(cfg, st)
	if err != nil {
		t.Fatalf("record: %v", err)
	}
	for steps := 0; !rec.Hand().Done(); steps++ {
		if steps > 500 {
			t.Fatal("hand does not end")
		}
		var choices []engine.Legal
		for _, l := range rec.Hand().LegalActions() {
			switch l.Kind {
			case engine.RequestShow, engine.Waive, engine.Withdraw:
				continue
			}
			choices = append(choices, l)
		}
		if len(choices) == 0 {
			t.Fatalf("hand not done and nothing legal: %+v", rec.Hand().LegalActions())
		}
		l := choices[rng.IntN(len(choices))]
		a := engine.Action{Seat: l.Seat, Kind: l.Kind, Amount: l.Min}
		if l.Max > l.Min {
			// Favour the ends of the range: all-ins make side pots.
			switch rng.IntN(4) {
			case 0:
				a.Amount = l.Max
			case 1:
				a.Amount = l.Min + rng.Int64N(l.Max-l.Min+1)
			}
		}
		if _, err := rec.Apply(a); err != nil {
			t.Fatalf("legal action %+v refused: %v", a, err)
		}
	}
	return rec
}

// TestExportRoundTrip plays random hands in every game through the engine,
// exports each to PHH, writes and parses the file, replays it and checks
// that the replay ends with the engine's stacks: engine → PHH → engine.
// FT-dead-small-blind is limit hold'em with a dead small blind (issue 17:
// such a hand was refused as PHH_UNSUPPORTED): one blind in the PHH vector,
// a returning player's dead small blind as an ante, and every such hand
// exports (a quarter of them used to be refused, where the replayer counted
// the ante as its poster's contribution).
func TestExportRoundTrip(t *testing.T) {
	t.Parallel()
	games := []struct {
		name string
		cfg  engine.Config
	}{
		{"NT", engine.Config{Game: engine.Holdem, Structure: engine.NoLimit, Stakes: engine.Stakes{SmallBlind: 1, BigBlind: 2}}},
		{"NT-straddle", engine.Config{Game: engine.Holdem, Structure: engine.NoLimit, Stakes: engine.Stakes{SmallBlind: 1, BigBlind: 2}}},
		{"NT-bba", engine.Config{Game: engine.Holdem, Structure: engine.NoLimit, Stakes: engine.Stakes{SmallBlind: 5, BigBlind: 10, BigBlindAnte: 10}}},
		{"FT", engine.Config{Game: engine.Holdem, Structure: engine.FixedLimit, Stakes: engine.Stakes{SmallBlind: 1, BigBlind: 2, SmallBet: 2, BigBet: 4}}},
		{"FT-dead-small-blind", engine.Config{Game: engine.Holdem, Structure: engine.FixedLimit, Stakes: engine.Stakes{SmallBlind: 1, BigBlind: 2, SmallBet: 2, BigBet: 4}}},
		{"PO", engine.Config{Game: engine.Omaha, Structure: engine.PotLimit, Stakes: engine.Stakes{SmallBlind: 1, BigBlind: 2}}},
		{"FO/8", engine.Config{Game: engine.OmahaHiLo, Structure: engine.FixedLimit, Stakes: engine.Stakes{SmallBlind: 1, BigBlind: 2, SmallBet: 2, BigBet: 4}}},
		{"F7S", engine.Config{Game: engine.Stud, Structure: engine.FixedLimit, Stakes: engine.Stakes{Ante: 1, BringIn: 2, SmallBet: 5, BigBet: 10}}},
		{"F7S/8", engine.Config{Game: engine.StudHiLo, Structure: engine.FixedLimit, Stakes: engine.Stakes{Ante: 1, BringIn: 2, SmallBet: 5, BigBet: 10}}},
		{"FR", engine.Config{Game: engine.Razz, Structure: engine.FixedLimit, Stakes: engine.Stakes{Ante: 1, BringIn: 2, SmallBet: 5, BigBet: 10}}},
	}
	const handsPerGame = 150
	for _, g := range games {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(1, uint64(len(g.name))))
			deadExported := 0
			for hand := range handsPerGame {
				n := 2 + rng.IntN(5)
				if !g.cfg.Game.IsStud() {
					n = 2 + rng.IntN(8)
				}
				st := engine.Setup{Button: rng.IntN(10)}
				for _, seat := range rng.Perm(10)[:n] {
					st.Players = append(st.Players, engine.Player{Seat: seat, ID: fmt.Sprintf("seat%d", seat), Stack: 5 + rng.Int64N(300)})
				}
				if n == 2 {
					// Heads-up the button is a player's seat (PHH cannot
					// say otherwise; Export refuses a dead button).
					st.Button = st.Players[rng.IntN(2)].Seat
				}
				switch {
				case g.name == "NT-straddle" && n >= 4:
					st.Posts = straddlePosts(st, g.cfg.Stakes)
				case g.name == "FT-dead-small-blind" && n >= 3:
					st.Posts = deadSmallBlindPosts(st, g.cfg.Stakes)
				}
				d := cards.NewDeck()
				d.Shuffle(random.Seeded(uint64(hand)))
				st.Deck = d
				rec := playRandom(t, rng, g.cfg, st)
				h, err := rec.History()
				if err != nil {
					t.Fatalf("hand %d: export: %v", hand, err)
				}
				if g.name == "NT-straddle" && st.Posts != nil && h.BlindsOrStraddles[2] != Int(4) {
					t.Fatalf("hand %d: straddle not exported: %v", hand, h.BlindsOrStraddles)
				}
				file, err := h.Marshal()
				if err != nil {
					t.Fatal(err)
				}
				if g.name == "FT-dead-small-blind" && st.Posts != nil {
					deadExported++
				}
				line := Replay(bytes.NewReader(file), "exported")
				if line.Err != nil || line.Reject != nil {
					t.Fatalf("hand %d: replay of the export: %s\n%s", hand, line, file)
				}
				if got, want := numberList(line.Stacks), numberList(h.FinishingStacks); got != want {
					t.Fatalf("hand %d: replay stacks %s, engine %s\n%s", hand, got, want, file)
				}
				var total int64
				for _, s := range line.Stacks {
					total += s.Int
				}
				var start int64
				for _, p := range st.Players {
					start += p.Stack
				}
				if total != start {
					t.Fatalf("hand %d: chips not conserved: %d → %d", hand, start, total)
				}
			}
			if g.name == "FT-dead-small-blind" && deadExported < handsPerGame/2 {
				t.Fatalf("%d of %d hands with a dead small blind exported", deadExported, handsPerGame)
			}
		})
	}
}

// straddlePosts returns the small blind, big blind and under-the-gun
// straddle (TP-20) posts for st, clockwise from the first seat left of the
// button.
func straddlePosts(st engine.Setup, k engine.Stakes) []engine.Post {
	at := clockwise(st)
	return []engine.Post{
		{Seat: at(0), Kind: engine.PostSmallBlind, Amount: k.SmallBlind},
		{Seat: at(1), Kind: engine.PostBigBlind, Amount: k.BigBlind},
		{Seat: at(2), Kind: engine.PostStraddle, Amount: 2 * k.BigBlind},
	}
}

// deadSmallBlindPosts returns the posts of a hand whose small blind is dead
// (its seat left the table: the first seat left of the button posts the big
// blind, nobody the small blind) and where a returning player two seats on
// owes and posts a dead small blind (TP-18, G-06).
func deadSmallBlindPosts(st engine.Setup, k engine.Stakes) []engine.Post {
	at := clockwise(st)
	return []engine.Post{
		{Seat: at(0), Kind: engine.PostBigBlind, Amount: k.BigBlind},
		{Seat: at(2), Kind: engine.PostDeadSmallBlind, Amount: k.SmallBlind},
	}
}

// clockwise returns the seat k places clockwise from the first seat of st
// left of the button.
func clockwise(st engine.Setup) func(k int) int {
	seats := make([]int, 0, len(st.Players))
	for _, p := range st.Players {
		seats = append(seats, p.Seat)
	}
	slices.Sort(seats)
	start := 0
	for i, s := range seats {
		if s > st.Button {
			start = i
			break
		}
	}
	return func(k int) int { return seats[(start+k)%len(seats)] }
}

// playCalls plays rec's hand to the end, each player checking or calling
// and showing at the showdown.
func playCalls(t *testing.T, rec *Recorder) {
	t.Helper()
	for steps := 0; !rec.Hand().Done(); steps++ {
		if steps > 100 {
			t.Fatal("hand does not end")
		}
		var a *engine.Action
		for _, l := range rec.Hand().LegalActions() {
			switch l.Kind {
			case engine.Check, engine.Call, engine.Show:
				a = &engine.Action{Seat: l.Seat, Kind: l.Kind, Amount: l.Min}
			}
			if a != nil {
				break
			}
		}
		if a == nil {
			t.Fatalf("no check, call or show in %+v", rec.Hand().LegalActions())
		}
		if _, err := rec.Apply(*a); err != nil {
			t.Fatalf("%+v: %v", *a, err)
		}
	}
}

// deckOf returns a deck that deals top first, then the rest in order.
func deckOf(t *testing.T, top string) cards.Deck {
	t.Helper()
	cs, err := cards.ParseList(top)
	if err != nil {
		t.Fatal(err)
	}
	var used uint64
	for _, c := range cs {
		used |= 1 << c
	}
	d := cards.Deck(cs)
	for c := cards.Card(0); c < cards.NumCards; c++ {
		if used&(1<<c) == 0 {
			d = append(d, c)
		}
	}
	return d
}

// TestExportDeadSmallBlind_TP18 exports a limit hold'em hand in which a
// returning player posts a dead small blind (TP-18), calls to the showdown
// and loses: the hand exports (it used to be refused PHH_UNSUPPORTED, since
// the replayer handed the dead chip back to its poster as a pot of its
// own), the dead small blind is the poster's ante, and the file replays to
// the table's stacks, the dead chip in the winner's pot.
func TestExportDeadSmallBlind_TP18(t *testing.T) {
	t.Parallel()
	cfg := engine.Config{Game: engine.Holdem, Structure: engine.FixedLimit,
		Stakes: engine.Stakes{SmallBlind: 5, BigBlind: 10, SmallBet: 10, BigBet: 20}}
	// Dealt round-robin from seat 0: seat 0 holds aces, seat 2 (the
	// returning player) seven-deuce.
	st := engine.Setup{Button: 3, Deck: deckOf(t, "AcKdQh7d AdKsQs2c 3h8h9hTc 4s"),
		Players: []engine.Player{{Seat: 0, ID: "ann", Stack: 500}, {Seat: 1, ID: "bob", Stack: 500},
			{Seat: 2, ID: "cat", Stack: 500}, {Seat: 3, ID: "dan", Stack: 500}},
		Posts: []engine.Post{{Seat: 0, Kind: engine.PostSmallBlind, Amount: 5}, {Seat: 1, Kind: engine.PostBigBlind, Amount: 10},
			{Seat: 2, Kind: engine.PostDeadSmallBlind, Amount: 5, Rule: "TP-18"}}}
	rec, err := Record(cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	playCalls(t, rec)
	h, err := rec.History()
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	if got := numberList(h.Antes); got != "[0, 0, 5, 0]" {
		t.Fatalf("antes %s, want the dead small blind as cat's ante", got)
	}
	// Everyone calls 10 and checks down: ann's aces take 40 and cat's
	// dead 5.
	if got := numberList(h.FinishingStacks); got != "[535, 490, 485, 490]" {
		t.Fatalf("finishing_stacks %s, want [535, 490, 485, 490]", got)
	}
	stacks, err := ReplayHistory(h)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := numberList(stacks), numberList(h.FinishingStacks); got != want {
		t.Fatalf("replay %s, table %s", got, want)
	}
}

// TestExportShortAnte: an ante posted all in for less (3 of 5) is its
// poster's contribution at the table (TP-44) and dead money in PHH. Where
// that changes the pots (the short player wins: 9 at the table, 13 by
// PHH's reading) the hand is refused as unsupported, never written as a
// file that replays to other stacks; where it does not, it exports and
// replays to the table's stacks.
func TestExportShortAnte(t *testing.T) {
	t.Parallel()
	cfg := engine.Config{Game: engine.Holdem, Structure: engine.NoLimit, Stakes: engine.Stakes{SmallBlind: 1, BigBlind: 2, Ante: 5}}
	tests := []struct {
		name    string
		short   string // the short stack's hole cards
		refused bool
	}{
		{"the short stack wins", "AcAd", true},
		{"the short stack loses", "3c4d", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Hole cards go round-robin from seat 0: cat (seat 2, 3 chips)
			// gets the third and sixth cards.
			st := engine.Setup{Button: 2, Deck: deckOf(t, "7cKs"+tt.short[:2]+"2dKh"+tt.short[2:]+" 2c5h9d Js Qc"),
				Players: []engine.Player{{Seat: 0, ID: "ann", Stack: 100}, {Seat: 1, ID: "bob", Stack: 100}, {Seat: 2, ID: "cat", Stack: 3}}}
			rec, err := Record(cfg, st)
			if err != nil {
				t.Fatal(err)
			}
			playCalls(t, rec)
			h, err := rec.History()
			if tt.refused {
				if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "ante posted short") {
					t.Fatalf("export: %v, want unsupported: an ante posted short", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("export: %v", err)
			}
			stacks, err := ReplayHistory(h)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := numberList(stacks), numberList(h.FinishingStacks); got != want {
				t.Fatalf("replay %s, table %s", got, want)
			}
		})
	}
}

// TestExportMissedBigBlindOutOfPosition_TP15: a returning player's missed
// big blind is live (TP-15) and posted out of position; PHH's
// blinds_or_straddles would start the action after that player rather than
// after the big blind, so the hand is refused as unsupported with a reason
// that says so (it used to say only that the blinds start the action
// elsewhere).
func TestExportMissedBigBlindOutOfPosition_TP15(t *testing.T) {
	t.Parallel()
	cfg := engine.Config{Game: engine.Holdem, Structure: engine.FixedLimit,
		Stakes: engine.Stakes{SmallBlind: 5, BigBlind: 10, SmallBet: 10, BigBet: 20}}
	st := engine.Setup{Button: 3, Deck: deckOf(t, "AcKdQh7d AdKsQs2c 3h8h9hTc 4s"),
		Players: []engine.Player{{Seat: 0, ID: "ann", Stack: 500}, {Seat: 1, ID: "bob", Stack: 500},
			{Seat: 2, ID: "cat", Stack: 500}, {Seat: 3, ID: "dan", Stack: 500}},
		Posts: []engine.Post{{Seat: 0, Kind: engine.PostSmallBlind, Amount: 5}, {Seat: 1, Kind: engine.PostBigBlind, Amount: 10},
			{Seat: 2, Kind: engine.PostMissedBigBlind, Amount: 10, Rule: "TP-15"}, {Seat: 2, Kind: engine.PostDeadSmallBlind, Amount: 5, Rule: "TP-15"}}}
	rec, err := Record(cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	playCalls(t, rec)
	_, err = rec.History()
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "a big blind posted live out of position") {
		t.Fatalf("export: %v, want unsupported: a big blind posted live out of position", err)
	}
}
