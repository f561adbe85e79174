package phh

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/cardroom/cardroom/services/table/engine/cards"
)

// ActionError says which action of a history is wrong and why. Index is the
// 0-based position in the actions array.
type ActionError struct {
	Index  int
	Action string
	Err    error
}

// Error returns "action k (text): reason".
func (e *ActionError) Error() string {
	return fmt.Sprintf("action %d (%q): %v", e.Index, e.Action, e.Err)
}

// Unwrap returns the reason.
func (e *ActionError) Unwrap() error { return e.Err }

// Validate checks what the specification requires of a hand without playing
// it: a known variant with exactly the fields it uses, one value per player
// in every per-player array, amounts in range, actions naming existing
// players, the variant's number of cards in each first hole deal, no card
// dealt twice, shown cards matching the cards dealt, short-deck cards only in
// short-deck. Errors wrap ErrFormat; an error about one action is an
// *ActionError.
func (h *History) Validate() error {
	if err := h.validateFields(); err != nil {
		return fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return h.validateActions()
}

func (h *History) validateFields() error {
	v, ok := variants[h.Variant]
	if !ok {
		return fmt.Errorf("unknown variant %q", h.Variant)
	}
	n := h.NumPlayers()
	if n < 2 {
		return fmt.Errorf("starting_stacks: %d players, need at least 2", n)
	}
	need := func(name string, present, wanted bool) error {
		switch {
		case wanted && !present:
			return fmt.Errorf("variant %s requires %s", h.Variant, name)
		case !wanted && present:
			return fmt.Errorf("variant %s does not use %s", h.Variant, name)
		}
		return nil
	}
	for _, f := range []struct {
		name            string
		present, wanted bool
	}{
		{"antes", h.Antes != nil, true},
		{"blinds_or_straddles", h.BlindsOrStraddles != nil, v.blinds},
		{"bring_in", h.BringIn != nil, v.stud},
		{"small_bet", h.SmallBet != nil, v.limit},
		{"big_bet", h.BigBet != nil, v.limit},
		{"min_bet", h.MinBet != nil, !v.limit},
		{"actions", h.Actions != nil, true},
	} {
		if err := need(f.name, f.present, f.wanted); err != nil {
			return err
		}
	}
	lists := []struct {
		name   string
		ns     []Number
		min    float64
		strict bool // value must be > min rather than ≥
		inf    bool // inf allowed
	}{
		{"antes", h.Antes, 0, false, false},
		{"blinds_or_straddles", h.BlindsOrStraddles, 0, false, false},
		{"starting_stacks", h.StartingStacks, 0, true, true},
		{"finishing_stacks", h.FinishingStacks, 0, false, false},
		{"winnings", h.Winnings, 0, false, false},
		{"time_banks", h.TimeBanks, 0, false, true},
	}
	for _, l := range lists {
		if l.ns == nil {
			continue
		}
		if len(l.ns) != n {
			return fmt.Errorf("%s: %d values for %d players", l.name, len(l.ns), n)
		}
		for i, x := range l.ns {
			if err := checkAmount(x, l.min, l.strict, l.inf); err != nil {
				return fmt.Errorf("%s[%d]: %v", l.name, i, err)
			}
		}
	}
	for _, f := range []struct {
		name string
		n    *Number
	}{{"bring_in", h.BringIn}, {"small_bet", h.SmallBet}, {"big_bet", h.BigBet}, {"min_bet", h.MinBet}} {
		if f.n != nil {
			if err := checkAmount(*f.n, 0, true, false); err != nil {
				return fmt.Errorf("%s: %v", f.name, err)
			}
		}
	}
	if h.Players != nil && len(h.Players) != n {
		return fmt.Errorf("players: %d names for %d players", len(h.Players), n)
	}
	if h.Seats != nil && len(h.Seats) != n {
		return fmt.Errorf("seats: %d seats for %d players", len(h.Seats), n)
	}
	return nil
}

func checkAmount(x Number, least float64, strict, inf bool) error {
	f := x.Value()
	switch {
	case math.IsNaN(f):
		return errors.New("not a number")
	case math.IsInf(f, 1) && !inf:
		return errors.New("infinite")
	case f < least || (strict && f == least):
		return fmt.Errorf("%s out of range", x)
	}
	return nil
}

// Errors Validate reports about actions (wrapped in *ActionError).
var (
	// ErrNoSuchPlayer: the action names a player the hand does not have.
	ErrNoSuchPlayer = errors.New("no such player")
	// ErrDuplicateCard: a card is dealt a second time.
	ErrDuplicateCard = errors.New("duplicate card")
	// ErrNotInDeck: a card the variant's deck does not hold (short deck).
	ErrNotInDeck = errors.New("card not in the deck")
	// ErrShownMismatch: shown or discarded cards are not the cards dealt.
	ErrShownMismatch = errors.New("cards do not match the cards dealt")
	// ErrBadAmount: a cbr amount that is not positive and finite.
	ErrBadAmount = errors.New("bad amount")
	// ErrCardCount: a player's first hole deal has the wrong number of
	// cards for the variant.
	ErrCardCount = errors.New("wrong number of cards")
)

func (h *History) validateActions() error {
	n := h.NumPlayers()
	v := variants[h.Variant]
	short := v.shortDeck
	firstDealt := make([]bool, n+1)
	var dealt [cards.NumCards]bool
	hole := make([][]cards.Card, n+1) // by 1-based player
	for i, a := range h.Actions {
		fail := func(err error) error {
			return &ActionError{Index: i, Action: a.String(), Err: err}
		}
		if a.Kind != NoOp && a.Kind != DealBoard && (a.Player < 1 || a.Player > n) {
			return fail(fmt.Errorf("p%d: %w", a.Player, ErrNoSuchPlayer))
		}
		for _, c := range a.Cards {
			if short && c != cards.Unknown && c.Rank() < cards.Six {
				return fail(fmt.Errorf("%s in short-deck: %w", c, ErrNotInDeck))
			}
		}
		switch a.Kind {
		case DealBoard, DealHole:
			for _, c := range a.Cards {
				if c == cards.Unknown {
					continue
				}
				if dealt[c] {
					return fail(fmt.Errorf("%s: %w", c, ErrDuplicateCard))
				}
				dealt[c] = true
			}
			if a.Kind == DealHole {
				if !firstDealt[a.Player] && len(a.Cards) != v.holeN {
					return fail(fmt.Errorf("deals %d cards, %s deals %d first: %w", len(a.Cards), h.Variant, v.holeN, ErrCardCount))
				}
				firstDealt[a.Player] = true
				hole[a.Player] = append(hole[a.Player], a.Cards...)
			}
		case CompleteBetRaise:
			if f := a.Amount.Value(); !(f > 0) || math.IsInf(f, 0) {
				return fail(fmt.Errorf("%s: %w", a.Amount, ErrBadAmount))
			}
		case StandPatDiscard:
			if err := matchHole(hole[a.Player], a.Cards, &dealt, false); err != nil {
				return fail(err)
			}
			hole[a.Player] = removeCards(hole[a.Player], a.Cards)
		case ShowMuck:
			if a.Cards == nil {
				break
			}
			if err := matchHole(hole[a.Player], a.Cards, &dealt, true); err != nil {
				return fail(err)
			}
			// Shown cards reveal the unknown ones dealt.
			copy(hole[a.Player], a.Cards)
		}
	}
	return nil
}

// matchHole checks that cards shown (whole, in dealing order) or discarded
// (any subset) are cards the player holds. A known card may stand where an
// unknown one was dealt only if it was not dealt to anyone else; it is then
// marked dealt.
func matchHole(held, shown []cards.Card, dealt *[cards.NumCards]bool, whole bool) error {
	if whole {
		if len(shown) != len(held) {
			return fmt.Errorf("shows %d cards, holds %d: %w", len(shown), len(held), ErrShownMismatch)
		}
		for j, c := range shown {
			switch {
			case c == cards.Unknown || c == held[j]:
			case held[j] != cards.Unknown:
				return fmt.Errorf("shows %s where %s was dealt: %w", c, held[j], ErrShownMismatch)
			case dealt[c]:
				return fmt.Errorf("%s: %w", c, ErrDuplicateCard)
			default:
				dealt[c] = true
			}
		}
		return nil
	}
	unknown := 0
	for _, c := range held {
		if c == cards.Unknown {
			unknown++
		}
	}
	for _, c := range shown {
		switch {
		case c != cards.Unknown && slices.Contains(held, c):
		case unknown == 0:
			return fmt.Errorf("discards %s, not held: %w", c, ErrShownMismatch)
		case c != cards.Unknown && dealt[c]:
			return fmt.Errorf("%s: %w", c, ErrDuplicateCard)
		default:
			unknown--
			if c != cards.Unknown {
				dealt[c] = true
			}
		}
	}
	return nil
}

// removeCards removes each of out from cs once, known cards by value and
// unknown ones from the first unknown position.
func removeCards(cs, out []cards.Card) []cards.Card {
	res := slices.Clone(cs)
	for _, c := range out {
		j := slices.Index(res, c)
		if j < 0 {
			j = slices.Index(res, cards.Unknown)
		}
		if j >= 0 {
			res = slices.Delete(res, j, j+1)
		}
	}
	return res
}
