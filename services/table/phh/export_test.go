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
		{"NT-live-big-blind", engine.Config{Game: engine.Holdem, Structure: engine.NoLimit, Stakes: engine.Stakes{SmallBlind: 1, BigBlind: 2}}},
		{"FT-live-big-blind", engine.Config{Game: engine.Holdem, Structure: engine.FixedLimit, Stakes: engine.Stakes{SmallBlind: 1, BigBlind: 2, SmallBet: 2, BigBet: 4}}},
		{"PO-live-big-blind", engine.Config{Game: engine.Omaha, Structure: engine.PotLimit, Stakes: engine.Stakes{SmallBlind: 1, BigBlind: 2}}},
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
			deadExported, liveExported, refused := 0, 0, 0
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
				case strings.HasSuffix(g.name, "-live-big-blind") && n >= 3:
					st.Posts = liveBigBlindPosts(st, g.cfg.Stakes, hand)
				}
				d := cards.NewDeck()
				d.Shuffle(random.Seeded(uint64(hand)))
				st.Deck = d
				rec := playRandom(t, rng, g.cfg, st)
				h, err := rec.History()
				if g.name == "PO-live-big-blind" && errors.Is(err, ErrUnsupported) &&
					strings.Contains(err.Error(), "a big blind posted live out of position") {
					refused++ // a pot-limit raise before the poster acts
					continue
				}
				if err != nil {
					t.Fatalf("hand %d: export: %v", hand, err)
				}
				if strings.HasSuffix(g.name, "-live-big-blind") && st.Posts != nil {
					liveExported++
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
			if strings.HasSuffix(g.name, "-live-big-blind") && (liveExported < handsPerGame/2 || refused > handsPerGame/10) {
				t.Fatalf("%d of %d hands with a live big blind out of position exported, %d refused", liveExported, handsPerGame, refused)
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

// liveBigBlindPosts returns the blinds and one big blind posted live out of
// position, by turns: a returning player's with a dead small blind
// (TP-15), a new player's on the button with a dead small blind (TP-16)
// and a new player's alone (TP-13), anywhere from under the gun to the
// button.
func liveBigBlindPosts(st engine.Setup, k engine.Stakes, hand int) []engine.Post {
	at := clockwise(st)
	n := len(st.Players)
	posts := []engine.Post{{Seat: at(0), Kind: engine.PostSmallBlind, Amount: k.SmallBlind},
		{Seat: at(1), Kind: engine.PostBigBlind, Amount: k.BigBlind}}
	seat := at(2 + hand%(n-2))
	switch hand % 3 {
	case 0:
		return append(posts, engine.Post{Seat: seat, Kind: engine.PostMissedBigBlind, Amount: k.BigBlind, Rule: "TP-15"},
			engine.Post{Seat: seat, Kind: engine.PostDeadSmallBlind, Amount: k.SmallBlind, Rule: "TP-15"})
	case 1:
		return append(posts, engine.Post{Seat: at(n - 1), Kind: engine.PostMissedBigBlind, Amount: k.BigBlind, Rule: "TP-16"},
			engine.Post{Seat: at(n - 1), Kind: engine.PostDeadSmallBlind, Amount: k.SmallBlind, Rule: "G-06"})
	}
	return append(posts, engine.Post{Seat: seat, Kind: engine.PostNewPlayerBigBlind, Amount: k.BigBlind, Rule: "TP-13"})
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

// exportCalled records the hand st deals under cfg, plays it with calls
// and checks to its end (playCalls) and exports it.
func exportCalled(t *testing.T, cfg engine.Config, st engine.Setup) (*History, error) {
	t.Helper()
	rec, err := Record(cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	playCalls(t, rec)
	return rec.History()
}

// checkReplays fails the test unless h replays to its finishing stacks.
func checkReplays(t *testing.T, h *History) {
	t.Helper()
	stacks, err := ReplayHistory(h)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := numberList(stacks), numberList(h.FinishingStacks); got != want {
		t.Fatalf("replay %s, table %s", got, want)
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
	h, err := exportCalled(t, cfg, st)
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
	checkReplays(t, h)
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
			h, err := exportCalled(t, cfg, st)
			if tt.refused {
				if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "ante posted short") {
					t.Fatalf("export: %v, want unsupported: an ante posted short", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("export: %v", err)
			}
			checkReplays(t, h)
		})
	}
}

// TestExportLiveBigBlindOutOfPosition_TP15_TP16: a big blind posted live
// out of position — a returning player's (TP-15), a new player's on the
// button (TP-16, its small blind dead by G-06) — used to be refused
// PHH_UNSUPPORTED, since PHH's blinds_or_straddles would start the action
// after its poster rather than after the big blind. It is written into the
// poster's first action (a check becomes a call of it; a raise is to the
// same total) or, when the poster folds, as the poster's ante, each with a
// comment naming the rule, and the file replays to the table's stacks. A
// pot-limit raise the table allowed with the live blind already in the pot,
// but PHH would not (the blind not in it yet), is refused with the reason.
func TestExportLiveBigBlindOutOfPosition_TP15_TP16(t *testing.T) {
	t.Parallel()
	limit := engine.Config{Game: engine.Holdem, Structure: engine.FixedLimit,
		Stakes: engine.Stakes{SmallBlind: 5, BigBlind: 10, SmallBet: 10, BigBet: 20}}
	potLimit := engine.Config{Game: engine.Omaha, Structure: engine.PotLimit, Stakes: engine.Stakes{SmallBlind: 5, BigBlind: 10}}
	blinds := []engine.Post{{Seat: 0, Kind: engine.PostSmallBlind, Amount: 5}, {Seat: 1, Kind: engine.PostBigBlind, Amount: 10}}
	missed := func(seat int, rule, deadRule string) []engine.Post {
		return append(slices.Clone(blinds), engine.Post{Seat: seat, Kind: engine.PostMissedBigBlind, Amount: 10, Rule: rule},
			engine.Post{Seat: seat, Kind: engine.PostDeadSmallBlind, Amount: 5, Rule: deadRule})
	}
	tests := []struct {
		name   string
		cfg    engine.Config
		posts  []engine.Post
		poster int               // the seat posting out of position
		first  engine.ActionKind // the poster's first action (then checks and calls)
		raise  int64             // seat 2's raise-to before the poster acts (0: a call, if seat 2 acts first)
		antes  string
		note   string // in the comment of the poster's first action; "" refused
	}{
		{"TP-15 under the gun checks", limit, missed(2, "TP-15", "TP-15"), 2, engine.Check, 0,
			"[0, 0, 5, 0]", "big blind 10 posted live out of position (TP-15) is in this action"},
		{"TP-15 under the gun raises", limit, missed(2, "TP-15", "TP-15"), 2, engine.Raise, 0,
			"[0, 0, 5, 0]", "big blind 10 posted live out of position (TP-15) is in this action"},
		{"TP-15 on the button folds to a raise", limit, missed(3, "TP-15", "TP-15"), 3, engine.Fold, 20,
			"[0, 0, 0, 15]", "big blind 10 posted live out of position (TP-15) is written as the ante"},
		{"TP-16 on the button checks", limit, missed(3, "TP-16", "G-06"), 3, engine.Check, 0,
			"[0, 0, 0, 5]", "big blind 10 posted live out of position (TP-16) is in this action"},
		{"TP-16 on the button folds to a raise", limit, missed(3, "TP-16", "G-06"), 3, engine.Fold, 20,
			"[0, 0, 0, 15]", "big blind 10 posted live out of position (TP-16) is written as the ante"},
		{"TP-13 on the button calls a pot-limit raise", potLimit,
			append(slices.Clone(blinds), engine.Post{Seat: 3, Kind: engine.PostNewPlayerBigBlind, Amount: 10, Rule: "TP-13"}), 3, engine.Call, 35,
			"[0, 0, 0, 0]", "big blind 10 posted live out of position (TP-13) is in this action"},
		// The table's pot raise counts the live blind (25 in the pot, call
		// 10, raise 35: to 45); PHH's pot holds the blinds alone (to 35).
		{"TP-13 on the button after a pot raise PHH would not allow", potLimit,
			append(slices.Clone(blinds), engine.Post{Seat: 3, Kind: engine.PostNewPlayerBigBlind, Amount: 10, Rule: "TP-13"}), 3, engine.Call, 45,
			"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := engine.Setup{Button: 3, Deck: deckOf(t, "AcKdQh7d AdKsQs2c 3h8h9hTc 4s"), Posts: tt.posts,
				Players: []engine.Player{{Seat: 0, ID: "ann", Stack: 500}, {Seat: 1, ID: "bob", Stack: 500},
					{Seat: 2, ID: "cat", Stack: 500}, {Seat: 3, ID: "dan", Stack: 500}}}
			rec, err := Record(tt.cfg, st)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.raise > 0:
				_, err = rec.Apply(engine.Action{Seat: 2, Kind: engine.Raise, Amount: tt.raise})
			case tt.poster != 2:
				_, err = rec.Apply(engine.Action{Seat: 2, Kind: engine.Call, Amount: 10})
			}
			if err != nil {
				t.Fatalf("seat 2 before the poster: %v", err)
			}
			a := engine.Action{Seat: tt.poster, Kind: tt.first}
			for _, l := range rec.Hand().LegalActions() {
				if l.Seat == tt.poster && l.Kind == tt.first {
					a.Amount = l.Min
				}
			}
			if _, err := rec.Apply(a); err != nil {
				t.Fatalf("the poster's %+v: %v (legal %+v)", a, err, rec.Hand().LegalActions())
			}
			playCalls(t, rec)
			h, err := rec.History()
			if tt.note == "" {
				if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "a big blind posted live out of position") ||
					!strings.Contains(err.Error(), "above the pot-limit maximum") {
					t.Fatalf("export: %v, want unsupported: a big blind posted live out of position, the raise above PHH's pot limit", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("export: %v", err)
			}
			if got := numberList(h.Antes); got != tt.antes {
				t.Fatalf("antes %s, want %s", got, tt.antes)
			}
			if got := numberList(h.BlindsOrStraddles); got != "[5, 10, 0, 0]" {
				t.Fatalf("blinds_or_straddles %s, want the small and big blind alone", got)
			}
			noted := false
			for _, act := range h.Actions {
				if act.Player == tt.poster+1 && act.Comment == tt.note {
					noted = true
				}
			}
			if !noted {
				t.Fatalf("no action of the poster (p%d) comments %q: %+v", tt.poster+1, tt.note, h.Actions)
			}
			file, err := h.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			line := Replay(bytes.NewReader(file), "exported")
			if line.Err != nil || line.Reject != nil || numberList(line.Stacks) != numberList(h.FinishingStacks) {
				t.Fatalf("replay %s, table %s\n%s", line, numberList(h.FinishingStacks), file)
			}
		})
	}
}

// TestExportPostOnTheButtonBlindsMovedOn_TP16: a new player who posts on
// the button (TP-16, the small blind dead by G-06) takes it as the blinds
// move on a seat, so the seat left of the button posts nothing, the small
// blind is one seat on and the big blind two. PHH lists the players from
// the button's left, so its vector reads [0, 5, 10, 0] — which a reader
// can take for no small blind, a big blind of 5 and a straddle of 10. The
// file's min_bet (10) says which: the replay read it as a straddle and
// refused the file ("min_bet 10 differs from the big blind"), so the
// table refused every such hand's PHH. The file now replays to the
// table's stacks at no-limit hold'em and pot-limit Omaha.
func TestExportPostOnTheButtonBlindsMovedOn_TP16(t *testing.T) {
	t.Parallel()
	stakes := engine.Stakes{SmallBlind: 5, BigBlind: 10}
	for _, cfg := range []engine.Config{{Game: engine.Holdem, Structure: engine.NoLimit, Stakes: stakes},
		{Game: engine.Omaha, Structure: engine.PotLimit, Stakes: stakes}} {
		t.Run(cfg.Structure.String(), func(t *testing.T) {
			t.Parallel()
			st := engine.Setup{Button: 3, Deck: deckOf(t, "AcKdQh7d AdKsQs2c 3h8h9hTc 4s"),
				Posts: []engine.Post{{Seat: 1, Kind: engine.PostSmallBlind, Amount: 5}, {Seat: 2, Kind: engine.PostBigBlind, Amount: 10},
					{Seat: 3, Kind: engine.PostMissedBigBlind, Amount: 10, Rule: "TP-16"},
					{Seat: 3, Kind: engine.PostDeadSmallBlind, Amount: 5, Rule: "G-06"}},
				Players: []engine.Player{{Seat: 0, ID: "ann", Stack: 500}, {Seat: 1, ID: "bob", Stack: 500},
					{Seat: 2, ID: "cat", Stack: 500}, {Seat: 3, ID: "eve", Stack: 500}}}
			h, err := exportCalled(t, cfg, st)
			if err != nil {
				t.Fatalf("export: %v", err)
			}
			if got := numberList(h.BlindsOrStraddles); got != "[0, 5, 10, 0]" {
				t.Fatalf("blinds_or_straddles %s, want [0, 5, 10, 0]", got)
			}
			checkReplays(t, h)
		})
	}
}

// TestExportShortLiveBlindAllIn_TP15: a returning player with 5 chips owes
// the big blind of 10 (TP-15) and is all in from posting 5 live. Written
// as their ante — PHH's dead money — the file replayed to other stacks
// (the poster won only their own chips back), so the hand was refused.
// A live post short of the big blind fits PHH's blinds vector without
// moving where the action starts, and the file now replays exactly.
func TestExportShortLiveBlindAllIn_TP15(t *testing.T) {
	t.Parallel()
	cfg := engine.Config{Game: engine.Holdem, Structure: engine.NoLimit, Stakes: engine.Stakes{SmallBlind: 5, BigBlind: 10}}
	// The poster (seat 2) holds aces and wins the main pot of 15.
	st := engine.Setup{Button: 3, Deck: deckOf(t, "7c2dAh8s 3d4hAs9c 5c6dKhQs 8d"),
		Posts: []engine.Post{{Seat: 0, Kind: engine.PostSmallBlind, Amount: 5}, {Seat: 1, Kind: engine.PostBigBlind, Amount: 10},
			{Seat: 2, Kind: engine.PostMissedBigBlind, Amount: 10, Rule: "TP-15"}},
		Players: []engine.Player{{Seat: 0, ID: "ann", Stack: 500}, {Seat: 1, ID: "bob", Stack: 500},
			{Seat: 2, ID: "cat", Stack: 5}, {Seat: 3, ID: "dan", Stack: 500}}}
	h, err := exportCalled(t, cfg, st)
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	if got := numberList(h.BlindsOrStraddles); got != "[5, 10, 5, 0]" {
		t.Fatalf("blinds_or_straddles %s, want the short live blind beside the blinds", got)
	}
	if got := numberList(h.Antes); got != "[0, 0, 0, 0]" {
		t.Fatalf("antes %s, want none", got)
	}
	checkReplays(t, h)
}
