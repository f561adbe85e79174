package phh

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cardroom/cardroom/services/table/engine/cards"
)

// ActionKind is what an action notation does.
type ActionKind uint8

// The action kinds of the specification's action grammar.
const (
	// NoOp is an empty notation or a standalone commentary.
	NoOp ActionKind = iota
	// DealBoard is "d db CARDS".
	DealBoard
	// DealHole is "d dh pN CARDS".
	DealHole
	// BringIn is "pN pb".
	BringIn
	// CompleteBetRaise is "pN cbr AMOUNT": complete, bet or raise to AMOUNT.
	CompleteBetRaise
	// CheckCall is "pN cc".
	CheckCall
	// Fold is "pN f".
	Fold
	// StandPatDiscard is "pN sd[ CARDS]" (draw games).
	StandPatDiscard
	// ShowMuck is "pN sm[ CARDS|-]": show the cards, or muck when none.
	ShowMuck
)

var kindCodes = [...]string{
	NoOp:             "",
	DealBoard:        "db",
	DealHole:         "dh",
	BringIn:          "pb",
	CompleteBetRaise: "cbr",
	CheckCall:        "cc",
	Fold:             "f",
	StandPatDiscard:  "sd",
	ShowMuck:         "sm",
}

// String returns the notation's code ("cbr", "db", ...), "" for NoOp.
func (k ActionKind) String() string {
	if int(k) < len(kindCodes) {
		return kindCodes[k]
	}
	return "?"
}

// Action is one parsed action notation.
type Action struct {
	// Kind is what the action does.
	Kind ActionKind
	// Player is the 1-based player acting (pN), or the player dealt to for
	// DealHole; 0 for the dealer's board deal and for NoOp.
	Player int
	// Cards are the cards dealt, discarded or shown; cards.Unknown stands for
	// "??". Nil when the notation has none.
	Cards []cards.Card
	// Dash is the "-" of "pN sm -": show the cards already dealt.
	Dash bool
	// Amount is the complete/bet/raise-to amount of CompleteBetRaise.
	Amount Number
	// Comment is the commentary after "#", trimmed; HasComment says the
	// notation had one (possibly empty).
	Comment    string
	HasComment bool
}

// ErrBadAction is returned (wrapped) for text that is not an action
// notation.
var ErrBadAction = errors.New("bad action notation")

// ParseAction reads one action notation, for example "d dh p1 AcKd",
// "p2 cbr 300", "p3 sm ??Ah # mucked one card".
func ParseAction(s string) (Action, error) {
	var a Action
	body := s
	if i := strings.IndexByte(s, '#'); i >= 0 {
		body = s[:i]
		a.Comment = strings.TrimSpace(s[i+1:])
		a.HasComment = true
	}
	w := strings.Fields(body)
	if len(w) == 0 {
		return a, nil
	}
	bad := func(why string) (Action, error) {
		return Action{}, fmt.Errorf("action %q: %s: %w", s, why, ErrBadAction)
	}
	if w[0] == "d" {
		switch {
		case len(w) == 3 && w[1] == "db":
			cs, err := parseCards(w[2])
			if err != nil {
				return bad(err.Error())
			}
			a.Kind, a.Cards = DealBoard, cs
		case len(w) == 4 && w[1] == "dh":
			p, ok := parsePlayer(w[2])
			if !ok {
				return bad("bad player " + strconv.Quote(w[2]))
			}
			cs, err := parseCards(w[3])
			if err != nil {
				return bad(err.Error())
			}
			a.Kind, a.Player, a.Cards = DealHole, p, cs
		default:
			return bad("unknown dealer action")
		}
		return a, nil
	}
	p, ok := parsePlayer(w[0])
	if !ok {
		return bad("bad actor " + strconv.Quote(w[0]))
	}
	a.Player = p
	if len(w) < 2 {
		return bad("no action")
	}
	switch w[1] {
	case "pb", "cc", "f":
		if len(w) != 2 {
			return bad("unexpected argument")
		}
		a.Kind = map[string]ActionKind{"pb": BringIn, "cc": CheckCall, "f": Fold}[w[1]]
	case "cbr":
		if len(w) != 3 {
			return bad("cbr takes one amount")
		}
		n, err := ParseNumber(w[2])
		if err != nil {
			return bad(err.Error())
		}
		a.Kind, a.Amount = CompleteBetRaise, n
	case "sd", "sm":
		a.Kind = StandPatDiscard
		if w[1] == "sm" {
			a.Kind = ShowMuck
		}
		if len(w) > 3 {
			return bad("too many arguments")
		}
		if len(w) == 3 {
			if w[2] == "-" && a.Kind == ShowMuck {
				a.Dash = true
				break
			}
			cs, err := parseCards(w[2])
			if err != nil {
				return bad(err.Error())
			}
			a.Cards = cs
		}
	default:
		return bad("unknown action " + strconv.Quote(w[1]))
	}
	return a, nil
}

// parsePlayer reads "pN" with N ≥ 1 in canonical decimal form.
func parsePlayer(s string) (int, bool) {
	if len(s) < 2 || s[0] != 'p' || s[1] < '1' || s[1] > '9' {
		return 0, false
	}
	n, err := strconv.Atoi(s[1:])
	if err != nil || n < 1 || n > 1<<20 {
		return 0, false
	}
	return n, true
}

// parseCards reads cards written back to back, "??" for an unknown card.
// Separators are not part of the notation, so unlike cards.ParseListUnknown
// this refuses them.
func parseCards(s string) ([]cards.Card, error) {
	if strings.ContainsAny(s, ", \t") {
		return nil, fmt.Errorf("cards %q: separators are not allowed", s)
	}
	cs, err := cards.ParseListUnknown(s)
	if err != nil {
		return nil, err
	}
	if len(cs) == 0 {
		return nil, fmt.Errorf("cards %q: none", s)
	}
	return cs, nil
}

// String writes the action in canonical notation.
func (a Action) String() string {
	var b strings.Builder
	switch a.Kind {
	case NoOp:
	case DealBoard:
		b.WriteString("d db ")
		b.WriteString(cards.Format(a.Cards))
	case DealHole:
		fmt.Fprintf(&b, "d dh p%d %s", a.Player, cards.Format(a.Cards))
	case CompleteBetRaise:
		fmt.Fprintf(&b, "p%d cbr %s", a.Player, a.Amount)
	default:
		fmt.Fprintf(&b, "p%d %s", a.Player, a.Kind)
		switch {
		case a.Dash:
			b.WriteString(" -")
		case len(a.Cards) > 0:
			b.WriteByte(' ')
			b.WriteString(cards.Format(a.Cards))
		}
	}
	if a.HasComment {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("# ")
		b.WriteString(a.Comment)
	}
	return strings.TrimRight(b.String(), " ")
}
