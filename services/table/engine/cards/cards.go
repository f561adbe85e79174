// Package cards holds playing cards, decks and the shuffle. It is pure: the
// only randomness is the source a caller injects, and production code
// injects crypto/rand through platform/random.Crypto.
package cards

import (
	"errors"
	"fmt"
	"strings"
)

// Rank is a card rank from Two (2) to Ace (14).
type Rank uint8

// Ranks, Two through Ace. Aces play low as well in ace-to-five lows; that is
// the evaluator's business, not the card's.
const (
	Two   Rank = 2
	Three Rank = 3
	Four  Rank = 4
	Five  Rank = 5
	Six   Rank = 6
	Seven Rank = 7
	Eight Rank = 8
	Nine  Rank = 9
	Ten   Rank = 10
	Jack  Rank = 11
	Queen Rank = 12
	King  Rank = 13
	Ace   Rank = 14
)

// Suit is a card suit. The order clubs < diamonds < hearts < spades is the
// bridge order used to break stud bring-in and odd-chip ties (TP-75); suits
// never break ties between hands (TP-72).
type Suit uint8

// Suits in bridge order.
const (
	Clubs    Suit = 0
	Diamonds Suit = 1
	Hearts   Suit = 2
	Spades   Suit = 3
)

// Card is one of the 52 cards, numbered (rank-2)*4 + suit, so 0 is the two of
// clubs and 51 the ace of spades. The numbering makes a card a valid index
// into 52-entry tables and orders cards by rank, then suit.
type Card uint8

// NumCards is the size of a standard deck.
const NumCards = 52

// Unknown stands for a card that is face down to the viewer (PHH writes it
// "??"). It is not a playable card.
const Unknown Card = 0xFF

// New returns the card of the given rank and suit.
func New(r Rank, s Suit) Card { return Card((uint8(r)-2)*4 + uint8(s)) }

// Rank returns the card's rank.
func (c Card) Rank() Rank { return Rank(uint8(c)/4 + 2) }

// Suit returns the card's suit.
func (c Card) Suit() Suit { return Suit(uint8(c) % 4) }

// Valid reports whether c is one of the 52 cards.
func (c Card) Valid() bool { return c < NumCards }

const rankChars = "23456789TJQKA"
const suitChars = "cdhs"

// String returns the two-letter form, for example "As" or "Td"; "??" for
// Unknown.
func (c Card) String() string {
	if !c.Valid() {
		return "??"
	}
	return string([]byte{rankChars[c.Rank()-2], suitChars[c.Suit()]})
}

// String returns the rank's letter: 2-9, T, J, Q, K, A.
func (r Rank) String() string {
	if r < Two || r > Ace {
		return "?"
	}
	return string(rankChars[r-2])
}

// String returns the suit's letter: c, d, h, s.
func (s Suit) String() string {
	if s > Spades {
		return "?"
	}
	return string(suitChars[s])
}

// ErrBadCard is returned (wrapped) for text that is not a card.
var ErrBadCard = errors.New("not a card")

// ErrDuplicateCard is returned (wrapped) when a card appears twice where each
// card may appear once.
var ErrDuplicateCard = errors.New("duplicate card")

// Parse reads one card in the two-letter form ("As", "td", "10h" is not
// accepted). Ranks are case-insensitive; suits must be one of c, d, h, s in
// either case.
func Parse(s string) (Card, error) {
	if len(s) != 2 {
		return Unknown, fmt.Errorf("parse card %q: %w", s, ErrBadCard)
	}
	r := strings.IndexByte(rankChars, upper(s[0]))
	u := strings.IndexByte(suitChars, lower(s[1]))
	if r < 0 || u < 0 {
		return Unknown, fmt.Errorf("parse card %q: %w", s, ErrBadCard)
	}
	return New(Rank(r+2), Suit(u)), nil
}

// ParseList reads cards written back to back with optional spaces or commas
// between them ("AsKd", "As Kd", "As,Kd"). It refuses duplicates. "????"
// style unknown cards are refused; use ParseListUnknown where they are
// allowed.
func ParseList(s string) ([]Card, error) {
	cs, err := ParseListUnknown(s)
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		if c == Unknown {
			return nil, fmt.Errorf("parse cards %q: unknown card: %w", s, ErrBadCard)
		}
	}
	return cs, nil
}

// ParseListUnknown is ParseList that also accepts "??" for a face-down card.
func ParseListUnknown(s string) ([]Card, error) {
	var out []Card
	var seen uint64
	compact := strings.Map(func(r rune) rune {
		if r == ' ' || r == ',' || r == '\t' {
			return -1
		}
		return r
	}, s)
	if len(compact)%2 != 0 {
		return nil, fmt.Errorf("parse cards %q: odd length: %w", s, ErrBadCard)
	}
	for i := 0; i < len(compact); i += 2 {
		if compact[i:i+2] == "??" {
			out = append(out, Unknown)
			continue
		}
		c, err := Parse(compact[i : i+2])
		if err != nil {
			return nil, fmt.Errorf("parse cards %q: %w", s, err)
		}
		if seen&(1<<c) != 0 {
			return nil, fmt.Errorf("parse cards %q: %s: %w", s, c, ErrDuplicateCard)
		}
		seen |= 1 << c
		out = append(out, c)
	}
	return out, nil
}

// MustParseList is ParseList for tests and constants; it panics on bad input.
func MustParseList(s string) []Card {
	cs, err := ParseList(s)
	if err != nil {
		panic(err)
	}
	return cs
}

// Format writes cards back to back, "AsKd".
func Format(cs []Card) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(c.String())
	}
	return b.String()
}

func upper(b byte) byte {
	if b >= 'a' && b <= 'z' {
		return b - 'a' + 'A'
	}
	return b
}

func lower(b byte) byte {
	if b >= 'A' && b <= 'Z' {
		return b - 'A' + 'a'
	}
	return b
}
