package eval

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cardroom/cardroom/services/table/engine/cards"
)

func hand(s string) []cards.Card { return cards.MustParseList(s) }

// Category returns the category of a high Value. For a low Value (Low8,
// Razz) it returns the pairing of the low hand: HighCard for five different
// ranks, then Pair, TwoPair, Trips, FullHouse or Quads. Invalid gives NoCat.
func Category(v Value) Cat {
	if v&lowFlag != 0 {
		return lowCats[lowBadness(v)>>catShift&0xF]
	}
	c := Cat(v >> catShift & 0xF)
	if c > StraightFlush {
		return NoCat
	}
	return c
}

// lowCats maps a low Value's pairing category to the Cat that names it.
var lowCats = [16]Cat{HighCard, Pair, TwoPair, Trips, FullHouse, Quads}

// lowBadness recovers the badness from a low Value.
func lowBadness(v Value) uint32 { return uint32(lowTop - v&lowTop) }

var catNames = [...]string{
	NoCat:         "no hand",
	HighCard:      "high card",
	Pair:          "pair",
	TwoPair:       "two pair",
	Trips:         "three of a kind",
	Straight:      "straight",
	Flush:         "flush",
	FullHouse:     "full house",
	Quads:         "four of a kind",
	StraightFlush: "straight flush",
}

// String returns the category's name in plain English ("full house").
func (c Cat) String() string {
	if int(c) < len(catNames) {
		return catNames[c]
	}
	return "unknown"
}

func TestHigh_Categories(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		cards string
		cat   Cat
	}{
		{"royal flush", "AsKsQsJsTs", StraightFlush},
		{"straight flush", "9h8h7h6h5h", StraightFlush},
		{"steel wheel", "Ad2d3d4d5d", StraightFlush},
		{"quads", "KcKdKhKs7c", Quads},
		{"full house", "KcKdKh7s7c", FullHouse},
		{"flush", "AhJh9h5h3h", Flush},
		{"ace-high straight", "AcKdQhJsTc", Straight},
		{"wheel", "Ac2d3h4s5c", Straight},
		{"trips", "7c7d7hKsQc", Trips},
		{"two pair", "AcAd9h9sKc", TwoPair},
		{"pair", "QcQd9h4s2c", Pair},
		{"high card", "AcJd9h4s2c", HighCard},
		{"seven cards, flush over straight", "2h3h4h5s6c9hKh", Flush},
		{"seven cards, straight flush over quads", "5s6s7s8s9s9h9d", StraightFlush},
		{"seven cards, two trips make a full house", "7c7d7hKsKcKd2c", FullHouse},
		{"seven cards, three pairs use the best kicker", "AcAdKhKsQcQd2c", TwoPair},
		{"seven cards, quads with a pair kicker", "8c8d8h8sKcKd2c", Quads},
		{"six cards, six-card straight", "5c6d7h8s9cTd", Straight},
		{"seven cards, wheel and six-high straight", "Ac2d3h4s5c6dKh", Straight},
		{"seven cards, six hearts", "2h4h6h8hThQhAc", Flush},
	}
	for _, tt := range tests {
		cs := hand(tt.cards)
		v := High(cs)
		if got := Category(v); got != tt.cat {
			t.Errorf("%s: Category(High(%s)) = %v, want %v", tt.name, tt.cards, got, tt.cat)
		}
		if want := refBest(cs, refHigh5); v != want {
			t.Errorf("%s: High = %#x, reference %#x", tt.name, v, want)
		}
	}
}

func TestHigh_Ordering(t *testing.T) {
	t.Parallel()
	// Each case: a beats b (want > 0), they tie (0), or b wins (< 0).
	tests := []struct {
		name string
		a, b string
		want int
	}{
		{"kicker decides a pair", "AcAd9h4s3c", "AhAs9c4d2c", 1},
		{"fourth kicker decides", "KcKdQh7s5c", "KhKsQc7d4c", 1},
		{"second pair decides two pair", "AcAdQhQs2c", "AhAsJcJd3c", 1},
		{"two pair kicker", "AcAdQhQs3c", "AhAsQcQd2c", 1},
		{"full house by trips first", "3c3d3h2s2c", "2h2s2dAcAd", 1},
		{"ace-high straight beats king-high", "AcKdQhJsTc", "KcQdJhTs9c", 1},
		{"wheel loses to six-high straight", "Ac2d3h4s5c", "2c3d4h5s6c", -1},
		{"steel wheel beats quads", "Ad2d3d4d5d", "AcAhAsAdKc", 1},
		{"wheel straight flush loses to six-high straight flush", "Ad2d3d4d5d", "2h3h4h5h6h", -1},
		{"flush compares all five cards", "AhJh9h5h3h", "AdJd9d5d2d", 1},
		{"TP-72 suits never break ties: same ranks", "AcKdQhJs9c", "AsKhQdJc9d", 0},
		{"TP-72 flushes in different suits tie", "AhJh9h5h3h", "AsJs9s5s3s", 0},
		{"TP-72 board plays: fifth card below the board does not count", "AcKdQhJs9c2d3h", "AcKdQhJs9c4d2s", 0},
		{"TP-72 royal flushes tie", "AsKsQsJsTs", "AhKhQhJhTh", 0},
	}
	for _, tt := range tests {
		a, b := High(hand(tt.a)), High(hand(tt.b))
		got := 0
		if a > b {
			got = 1
		} else if a < b {
			got = -1
		}
		if got != tt.want {
			t.Errorf("%s: compare(%s %s) = %d, want %d (%s vs %s)", tt.name, tt.a, tt.b, got, tt.want, show(a), show(b))
		}
	}
}

func TestHigh_BadCounts(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "As", "AsKsQsJs", "AsKsQsJsTs9s8s7s"} {
		if v := High(hand(s)); v != Invalid {
			t.Errorf("High(%q) = %#x, want Invalid", s, v)
		}
	}
}

// TestBadCards_DoNotPanic: the engine refuses unknown and duplicate cards
// before they reach the evaluator, but a slip must give a wrong value, not
// crash the table.
func TestBadCards_DoNotPanic(t *testing.T) {
	t.Parallel()
	u := cards.Unknown
	bad := [][]cards.Card{
		{u, u, u, u, u, u, u},
		{0, 1, 2, 3, 4, 200, 255},
		{48, 48, 48, 48, 48, 48, 48}, // seven aces of clubs: a "flush" with repeated ranks
		{0, 4, 8, 12, 16, 16, 16},
	}
	for _, cs := range bad {
		High(cs)
		High(cs[:5])
		High(cs[:6])
		Omaha(cs[:4], cs[4:])
		Low8(cs)
		OmahaLow8(cs[:4], cs[4:])
		if v := Razz(cs[:5]); cs[0] == u && v != Invalid {
			t.Errorf("Razz of unknown cards = %#x, want Invalid", v)
		}
	}
}

// TestHigh_AllFiveCardHands checks every one of the 2,598,960 five-card
// hands against the reference, and the category counts and number of
// distinct values against the published totals. The reference looks only at
// the ranks and at whether all suits match, so it is computed once per
// (ranks, flush) pair and remembered; High still runs on every hand. That
// keeps the test to a few seconds under -race.
func TestHigh_AllFiveCardHands(t *testing.T) {
	t.Parallel()
	want := [16]int{
		StraightFlush: 40, Quads: 624, FullHouse: 3744, Flush: 5108, Straight: 10200,
		Trips: 54912, TwoPair: 123552, Pair: 1098240, HighCard: 1302540,
	}
	var got [16]int
	distinct := make([]bool, 1<<24) // every high Value is below 1<<24
	nDistinct := 0
	memo := make([]Value, 13*13*13*13*13*2)
	var five [5]cards.Card
	mismatches := 0
	for a := cards.Card(0); a < 52; a++ {
		five[0] = a
		for b := a + 1; b < 52; b++ {
			five[1] = b
			for c := b + 1; c < 52; c++ {
				five[2] = c
				for d := c + 1; d < 52; d++ {
					five[3] = d
					for e := d + 1; e < 52; e++ {
						five[4] = e
						// Cards are numbered by rank first, so these
						// ranks are already sorted.
						key := (((int(a>>2)*13+int(b>>2))*13+int(c>>2))*13+int(d>>2))*13 + int(e>>2)
						s := a & 3
						if b&3 == s && c&3 == s && d&3 == s && e&3 == s {
							key = key*2 + 1
						} else {
							key *= 2
						}
						ref := memo[key]
						if ref == Invalid {
							ref = refHigh5(five[:])
							memo[key] = ref
						}
						v := High(five[:])
						if v != ref {
							if mismatches++; mismatches < 10 {
								t.Errorf("High(%s) = %#x, reference %#x", cards.Format(five[:]), v, ref)
							}
						}
						got[Category(v)]++
						if !distinct[v] {
							distinct[v] = true
							nDistinct++
						}
					}
				}
			}
		}
	}
	if got != want {
		for c := NoCat; c <= StraightFlush; c++ {
			if got[c] != want[c] {
				t.Errorf("%v: %d hands, want %d", c, got[c], want[c])
			}
		}
	}
	if nDistinct != 7462 {
		t.Errorf("%d distinct values, want 7462", nDistinct)
	}
}

func TestHigh_RandomAgainstReference(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	n := 200_000
	if testing.Short() || raceEnabled {
		n = 20_000
	}
	for i := 0; i < n; i++ {
		size := 7
		if i%10 == 0 {
			size = 6 // the six-card path is separate code
		}
		cs := deal(r, size)
		if got, want := High(cs), refBest(cs, refHigh5); got != want {
			t.Fatalf("High(%s) = %#x (%s), reference %#x (%s)", cards.Format(cs), got, show(got), want, show(want))
		}
	}
}

func TestOmaha(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		hole, board string
		cat         Cat
	}{
		{"four hearts on the board and one in hand is no flush", "AhKc7d2s", "QhJh9h3h4c", HighCard},
		{"two hearts in hand and three on the board is a flush", "AhKh7d2s", "QhJh9h3c4c", Flush},
		{"board trips and a pocket pair make a full house", "7c7dAs2h", "KcKdKh3s4c", FullHouse},
		{"board quads play only three", "AcAd2s3h", "9c9d9h9s4c", FullHouse},
		{"board quads and no hole pair make trips", "AcKd2s3h", "9c9d9h9s4c", Trips},
		{"a straight on the board needs two hole cards", "AcAd2s2h", "5c6d7h8s9c", Pair},
		{"one hole card to a board straight is not enough", "TcKd2s2h", "5c6d7h8sQc", Pair},
		{"two hole cards to the straight", "Tc9dKsKh", "5c6d7h8sQc", Straight},
		{"three board cards only (flop)", "AsKsQdJd", "QsJsTc", Straight},
		{"five-card Omaha", "AsKs2d3d4d", "5s6h7cQsJs", Flush},
	}
	for _, tt := range tests {
		hole, board := hand(tt.hole), hand(tt.board)
		v := Omaha(hole, board)
		if got := Category(v); got != tt.cat {
			t.Errorf("%s: Category = %v, want %v (%s)", tt.name, got, tt.cat, show(v))
		}
		if want := refOmahaBest(hole, board, refHigh5); v != want {
			t.Errorf("%s: Omaha = %#x, reference %#x", tt.name, v, want)
		}
	}
	if v := Omaha(hand("AsKs"), hand("QsJs")); v != Invalid {
		t.Errorf("Omaha with a two-card board = %#x, want Invalid", v)
	}
}

func TestOmaha_RandomAgainstReference(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	n := 20_000
	if testing.Short() || raceEnabled {
		n = 2_000
	}
	for i := 0; i < n; i++ {
		nh, nb := 4+i%2, 3+i%3
		cs := deal(r, nh+nb)
		hole, board := cs[:nh], cs[nh:]
		if got, want := Omaha(hole, board), refOmahaBest(hole, board, refHigh5); got != want {
			t.Fatalf("Omaha(%s, %s) = %s, reference %s", cards.Format(hole), cards.Format(board), show(got), show(want))
		}
		wantLow := refOmahaBest(hole, board, refLow8of5)
		if got, ok := OmahaLow8(hole, board); got != wantLow || ok != (wantLow != Invalid) {
			t.Fatalf("OmahaLow8(%s, %s) = %s %v, reference %s", cards.Format(hole), cards.Format(board), show(got), ok, show(wantLow))
		}
	}
}

func TestLow8(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		cards string
		ok    bool
	}{
		{"wheel is the best low; the straight does not count", "Ac2d3h4s5c", true},
		{"a flush does not count against a low", "8h6h4h3hAh", true},
		{"nine does not qualify", "9c2d3h4s5c", false},
		{"a pair leaves four ranks: no low", "AcAd2h3s4c", false},
		{"best five of seven", "Kc8d7h5s4c3dAh", true},
		{"pairs are skipped in seven cards", "2c2d3h3s4c6d8h", true},
		{"eight cards are refused", "2c2d3h3s4c6d8hAd", false},
		{"four low ranks and pairs: no low", "2c2d3h3s4c4d9h", false},
		{"six low ranks and a pair", "2c2d3h4s6c7dAh", true},
	}
	for _, tt := range tests {
		cs := hand(tt.cards)
		v, ok := Low8(cs)
		if len(cs) > 7 {
			if v != Invalid || ok {
				t.Errorf("%s: Low8 of %d cards = %#x %v, want Invalid", tt.name, len(cs), v, ok)
			}
			continue
		}
		if ok != tt.ok {
			t.Errorf("%s: ok = %v, want %v", tt.name, ok, tt.ok)
		}
		if want := refBest(cs, refLow8of5); v != want {
			t.Errorf("%s: Low8 = %#x, reference %#x", tt.name, v, want)
		}
	}
	// Lows compare from the top card down: 8-6-4-3-A beats 8-6-5-2-A.
	a, _ := Low8(hand("8c6d4h3sAc"))
	b, _ := Low8(hand("8d6h5s2cAd"))
	if a <= b {
		t.Errorf("8-6-4-3-A (%#x) should beat 8-6-5-2-A (%#x)", a, b)
	}
	c, _ := Low8(hand("8s6c4d3hAs"))
	if a != c {
		t.Errorf("TP-72 equal lows in other suits: %#x != %#x", a, c)
	}
}

func TestOmahaLow8(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		hole, board string
		ok          bool
	}{
		{"two low hole cards and three low board cards", "Ac2dKsKh", "3c4d5hQsJc", true},
		{"only one low hole card: no low", "AcKdQsJh", "2c3d4h5s6c", false},
		{"only two low board cards: no low", "Ac2d3s4h", "5c6dKhQsJc", false},
		{"counterfeited: hole ranks duplicated on board", "Ac2dKsKh", "Ah2c3d4h5s", true},
		{"counterfeit forces a worse low", "Ac2dKsKh", "Ah2c3d7h8s", true},
		{"counterfeit and no third low rank: no low", "Ac2dKsKh", "Ah2c3d9hTs", false},
		{"best two of four hole cards", "Ac2d3s7h", "4c5d8hKsQc", true},
		{"best three of five board cards", "Ac2dKsKh", "3c4d5h7s8c", true},
	}
	for _, tt := range tests {
		hole, board := hand(tt.hole), hand(tt.board)
		v, ok := OmahaLow8(hole, board)
		if ok != tt.ok {
			t.Errorf("%s: ok = %v, want %v", tt.name, ok, tt.ok)
		}
		if want := refOmahaBest(hole, board, refLow8of5); v != want {
			t.Errorf("%s: OmahaLow8 = %#x, reference %#x", tt.name, v, want)
		}
	}
}

func TestRazz(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		cards string
		cat   Cat
	}{
		{"wheel is the nuts", "Ac2d3h4s5c", HighCard},
		{"king high with no pair", "KcQdJhTs9c", HighCard},
		{"pair of aces", "AcAd2h3s4c", Pair},
		{"seven cards avoid the pair", "AcAd2h3s4cKdQh", HighCard},
		{"seven cards: best of two pairs is the lowest pair", "2c2d3h3s4c4dAh", Pair},
		{"two pair", "2c2d3h3s4c4d2h", TwoPair},
		{"trips when only one rank repeats", "7c7d7h2s3c", Trips},
		{"full house beats quads", "9c9d9h9sKcKd", FullHouse},
		{"lowest trips in the full house", "9c9d9hKsKcKd", FullHouse},
		{"quads", "QcQdQhQs5c", Quads},
	}
	for _, tt := range tests {
		cs := hand(tt.cards)
		v := Razz(cs)
		if got := Category(v); got != tt.cat {
			t.Errorf("%s: Category = %v, want %v", tt.name, got, tt.cat)
		}
		if want := refBest(cs, refRazz5); v != want {
			t.Errorf("%s: Razz = %#x, reference %#x", tt.name, v, want)
		}
	}
	// Any no-pair hand beats any pair; a lower pair beats a higher one.
	order := []string{"KcQdJhTs9c", "AcAd2h3s4c", "2c2dKhQsJc", "AcAd2h2s3c", "AcAdAh2s3c", "AcAdAh2s2c", "AcAdAhAs2c"}
	for i := 1; i < len(order); i++ {
		if a, b := Razz(hand(order[i-1])), Razz(hand(order[i])); a <= b {
			t.Errorf("razz %s (%s) should beat %s (%s)", order[i-1], show(a), order[i], show(b))
		}
	}
	if Razz(hand("AcAd2h3s")) != Invalid {
		t.Error("Razz of four cards should be Invalid")
	}
}

func TestLows_RandomAgainstReference(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	n := 100_000
	if testing.Short() || raceEnabled {
		n = 10_000
	}
	for i := 0; i < n; i++ {
		cs := deal(r, 5+i%3)
		if got, want := Razz(cs), refBest(cs, refRazz5); got != want {
			t.Fatalf("Razz(%s) = %s, reference %s", cards.Format(cs), show(got), show(want))
		}
		want := refBest(cs, refLow8of5)
		if got, ok := Low8(cs); got != want || ok != (want != Invalid) {
			t.Fatalf("Low8(%s) = %s %v, reference %s", cards.Format(cs), show(got), ok, show(want))
		}
	}
}

func TestHigh_DoesNotAllocate(t *testing.T) {
	cs := hand("AsKdQhJc9s8d2c")
	hole, board := hand("AhKc7d2s"), hand("QhJh9h3h4c")
	if n := testing.AllocsPerRun(100, func() {
		High(cs)
		High(cs[:5])
		High(cs[:6])
		Omaha(hole, board)
		Low8(cs)
		OmahaLow8(hole, board)
		Razz(cs)
	}); n != 0 {
		t.Errorf("evaluators allocate %v times per run", n)
	}
}

func FuzzHigh7(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6})
	f.Add([]byte{48, 49, 50, 51, 44, 45, 46})
	f.Add([]byte{51, 47, 43, 39, 35, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		cs := distinctCards(b, 7)
		if cs == nil {
			return
		}
		if got, want := High(cs), refBest(cs, refHigh5); got != want {
			t.Fatalf("High(%s) = %#x (%s), reference %#x (%s)", cards.Format(cs), got, show(got), want, show(want))
		}
	})
}

func FuzzLow7(f *testing.F) {
	f.Add([]byte{0, 4, 8, 12, 16, 48, 1})
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6})
	f.Fuzz(func(t *testing.T, b []byte) {
		cs := distinctCards(b, 7)
		if cs == nil {
			return
		}
		if got, want := Razz(cs), refBest(cs, refRazz5); got != want {
			t.Fatalf("Razz(%s) = %s, reference %s", cards.Format(cs), show(got), show(want))
		}
		want := refBest(cs, refLow8of5)
		if got, ok := Low8(cs); got != want || ok != (want != Invalid) {
			t.Fatalf("Low8(%s) = %s, reference %s", cards.Format(cs), show(got), show(want))
		}
	})
}

func FuzzOmaha(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, b []byte) {
		cs := distinctCards(b, 9)
		if cs == nil {
			return
		}
		hole, board := cs[:4], cs[4:]
		if got, want := Omaha(hole, board), refOmahaBest(hole, board, refHigh5); got != want {
			t.Fatalf("Omaha(%s, %s) = %s, reference %s", cards.Format(hole), cards.Format(board), show(got), show(want))
		}
		want := refOmahaBest(hole, board, refLow8of5)
		if got, ok := OmahaLow8(hole, board); got != want || ok != (want != Invalid) {
			t.Fatalf("OmahaLow8(%s, %s) = %s, reference %s", cards.Format(hole), cards.Format(board), show(got), show(want))
		}
	})
}

// distinctCards reads n distinct cards from b (each byte mod 52), or nil.
func distinctCards(b []byte, n int) []cards.Card {
	if len(b) < n {
		return nil
	}
	var seen uint64
	cs := make([]cards.Card, n)
	for i := range cs {
		c := cards.Card(b[i] % cards.NumCards)
		if seen&(1<<c) != 0 {
			return nil
		}
		seen |= 1 << c
		cs[i] = c
	}
	return cs
}

// show prints a Value for a failure message: the word and its category.
func show(v Value) string { return fmt.Sprintf("%#x (%v)", uint32(v), Category(v)) }
