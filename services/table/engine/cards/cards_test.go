package cards

import (
	"errors"
	"slices"
	"testing"
)

func TestParseRoundTrip(t *testing.T) {
	t.Parallel()
	for c := Card(0); c < NumCards; c++ {
		got, err := Parse(c.String())
		if err != nil || got != c {
			t.Fatalf("Parse(%q) = %v, %v; want %v", c.String(), got, err, c)
		}
	}
}

func TestParseList(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    string
		wantErr error
	}{
		{in: "AsKd", want: "AsKd"},
		{in: "as kd, 2C", want: "AsKd2c"},
		{in: "AsAs", wantErr: ErrDuplicateCard},
		{in: "Xx", wantErr: ErrBadCard},
		{in: "As1", wantErr: ErrBadCard},
		{in: "As??", wantErr: ErrBadCard},
	}
	for _, tt := range tests {
		got, err := ParseList(tt.in)
		if tt.wantErr != nil {
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("ParseList(%q) error = %v, want %v", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || Format(got) != tt.want {
			t.Errorf("ParseList(%q) = %q, %v; want %q", tt.in, Format(got), err, tt.want)
		}
	}
}

func TestParseListUnknown(t *testing.T) {
	t.Parallel()
	got, err := ParseListUnknown("????Ah")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != Unknown || got[1] != Unknown || got[2] != New(Ace, Hearts) {
		t.Fatalf("got %v", got)
	}
}

func TestShuffleIsPermutation(t *testing.T) {
	t.Parallel()
	d := NewDeck()
	d.Shuffle(NewSeeded(42))
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(d) != NumCards {
		t.Fatalf("len = %d", len(d))
	}
	same := 0
	for i, c := range d {
		if c == Card(i) {
			same++
		}
	}
	if same > 10 {
		t.Fatalf("shuffle left %d cards in place", same)
	}
}

func TestShuffleSeededIsRepeatable(t *testing.T) {
	t.Parallel()
	a, b := NewDeck(), NewDeck()
	a.Shuffle(NewSeeded(7))
	b.Shuffle(NewSeeded(7))
	if Format(a) != Format(b) {
		t.Fatal("same seed gave different decks")
	}
}

// TestShuffleUniform checks with a chi-square test that every card lands in
// the first position equally often; a biased shuffle (e.g. modulo bias or the
// naive swap-with-any algorithm) fails it for small decks.
func TestShuffleUniform(t *testing.T) {
	t.Parallel()
	const trials = 60000
	src := NewSeeded(1)
	var counts [3][3]int
	for range trials {
		d := Deck{0, 1, 2}
		d.Shuffle(src)
		for pos, c := range d {
			counts[pos][c]++
		}
	}
	exp := float64(trials) / 3
	for pos := range counts {
		chi := 0.0
		for _, n := range counts[pos] {
			diff := float64(n) - exp
			chi += diff * diff / exp
		}
		// 2 degrees of freedom: p = 0.001 at 13.8.
		if chi > 13.8 {
			t.Errorf("position %d counts %v: chi-square %.1f", pos, counts[pos], chi)
		}
	}
}

// TestCryptoSourceShuffles: a live shuffle is a permutation of the 52
// cards that moves them, and two shuffles differ. A shuffle that does
// nothing (or a source that repeats itself) fails: the chance that a fair
// shuffle leaves the deck in order, or that two equal each other, is 1/52!.
func TestCryptoSourceShuffles(t *testing.T) {
	t.Parallel()
	src := NewCryptoSource()
	first, second := NewDeck(), NewDeck()
	first.Shuffle(src)
	second.Shuffle(src)
	for _, d := range []Deck{first, second} {
		if err := d.Validate(); err != nil || len(d) != NumCards {
			t.Fatalf("shuffled deck of %d cards: %v", len(d), err)
		}
		if slices.Equal(d, NewDeck()) {
			t.Fatalf("the shuffle left the deck in order: %v", d)
		}
	}
	if slices.Equal(first, second) {
		t.Fatalf("two shuffles dealt the same deck: %v", first)
	}
}

func TestValidateRejectsDuplicates(t *testing.T) {
	t.Parallel()
	d := Deck{1, 2, 1}
	if err := d.Validate(); !errors.Is(err, ErrDuplicateCard) {
		t.Fatalf("Validate = %v", err)
	}
}
