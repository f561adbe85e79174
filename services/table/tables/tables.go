// Package tables holds a poker table's definition — what is dealt there, for
// what stakes, how many seats, cash or tournament, digital or live — and
// checks it before a table opens. It is pure: no I/O, no clock.
package tables

import (
	"cmp"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/table/engine"
)

// Kind is a cash-game or tournament table.
type Kind uint8

// Kinds.
const (
	KindUnspecified Kind = iota
	Cash
	Tournament
)

// Definition is a table as the floor opens it.
type Definition struct {
	ID        string
	Name      string
	Config    engine.Config // game, structure, stakes, mode, rule profile
	Seats     int
	Kind      Kind
	CreatedAt time.Time
	// Currency is the ISO 4217 code of the chips (the wallet's currency).
	Currency string
	// ActionTimeout is the house time limit for each decision (G-16); zero
	// is none.
	ActionTimeout time.Duration
	// Closed is a table the floor closed.
	Closed bool
	// TournamentID is the tournament a tournament table belongs to (the
	// tournament service opened it); empty for a cash table.
	TournamentID string
}

// DefaultCurrency is the currency of a table opened without one.
const DefaultCurrency = "EUR"

// Seat limits: 2–10 at flop games; stud deals up to 7 cards each from one
// deck, so it seats at most 8.
const (
	MinSeats     = 2
	MaxSeats     = 10
	MaxStudSeats = 8
	// MaxNameLength bounds a table's display name.
	MaxNameLength = 64
)

// Validate checks a definition and fills defaults (the rule profile, the
// fixed-limit bets). It returns an Invalid fault naming the field at fault.
func (d *Definition) Validate() error {
	d.Name = strings.TrimSpace(d.Name)
	c := &d.Config
	k := c.Stakes
	switch {
	case d.Name == "":
		return fault.Invalidf("name", "must not be empty")
	case utf8.RuneCountInString(d.Name) > MaxNameLength:
		return fault.Invalidf("name", "longer than %d characters", MaxNameLength)
	case d.Kind != Cash && d.Kind != Tournament:
		return fault.Invalidf("kind", "must be cash or tournament")
	case c.Game > engine.Razz:
		return fault.Invalidf("game.variant", "unknown game")
	case c.Structure > engine.FixedLimit:
		return fault.Invalidf("game.structure", "unknown structure")
	case c.Game.IsStud() && c.Structure != engine.FixedLimit:
		return fault.Rule(fault.Invalid, "TP-27", "STUD_IS_FIXED_LIMIT", "game.structure: stud games are dealt fixed limit").With("field", "game.structure")
	case d.Seats < MinSeats || d.Seats > MaxSeats:
		return fault.Invalidf("seats", "must be %d to %d, got %d", MinSeats, MaxSeats, d.Seats)
	case c.Game.IsStud() && d.Seats > MaxStudSeats:
		return fault.Invalidf("seats", "stud seats at most %d, got %d", MaxStudSeats, d.Seats)
	case k.SmallBlind < 0 || k.BigBlind < 0 || k.Ante < 0 || k.BringIn < 0 || k.SmallBet < 0 || k.BigBet < 0:
		return fault.Invalidf("game.stakes", "amounts must not be negative")
	case c.Game.IsStud() && k.BringIn <= 0:
		return fault.Invalidf("game.stakes.bring_in", "stud needs a bring-in (G-07)")
	case c.Game.IsStud() && (k.SmallBlind != 0 || k.BigBlind != 0):
		return fault.Invalidf("game.stakes", "stud has no blinds")
	case !c.Game.IsStud() && (k.SmallBlind <= 0 || k.SmallBlind > k.BigBlind):
		return fault.Invalidf("game.stakes.small_blind", "flop games need 0 < small blind <= big blind")
	case !c.Game.IsStud() && k.BringIn != 0:
		return fault.Invalidf("game.stakes.bring_in", "only stud has a bring-in")
	case c.Structure == engine.FixedLimit && k.SmallBet == 0 && k.BigBlind == 0:
		return fault.Rule(fault.Invalid, "TP-27", "FIXED_LIMIT_WITHOUT_BETS", "game.stakes.small_bet: fixed limit needs a small bet").With("field", "game.stakes.small_bet")
	case k.SmallBet > 0 && k.BigBet > 0 && k.BigBet < k.SmallBet:
		return fault.Invalidf("game.stakes.big_bet", "must be at least the small bet")
	case c.Structure != engine.FixedLimit && (k.SmallBet != 0 || k.BigBet != 0):
		return fault.Invalidf("game.stakes", "small_bet and big_bet are fixed-limit units (TP-27)")
	case c.Mode != engine.Live && (c.HoleEntry || c.WinnerEntry):
		return fault.Invalidf("live_cards", "the cards are entered at live tables only")
	}
	// A live table deals physical cards: the dealer enters them as dealt.
	c.Physical = c.Mode == engine.Live
	if c.Structure == engine.FixedLimit {
		c.Stakes.SmallBet = cmp.Or(c.Stakes.SmallBet, k.BigBlind)
		c.Stakes.BigBet = cmp.Or(c.Stakes.BigBet, 2*c.Stakes.SmallBet)
	}
	if err := checkChipUnit(d); err != nil {
		return err
	}
	d.Currency = cmp.Or(d.Currency, DefaultCurrency)
	if d.ActionTimeout < 0 {
		return fault.Invalidf("action_seconds", "must not be negative")
	}
	c.Tournament = d.Kind == Tournament
	if c.Profile.Name == "" {
		c.Profile = engine.DefaultProfile()
	}
	return nil
}

// checkChipUnit fills in a cash table's smallest chip (TP-31) when the
// floor left it 0 and checks that every stake is a whole number of it: a
// hand with a blind of 7 chips of 5 could not be posted. Tournament tables
// take theirs from the tournament's levels and colour-ups.
func checkChipUnit(d *Definition) error {
	k := &d.Config.Stakes
	if k.ChipUnit < 0 {
		return fault.Invalidf("min_chip_unit", "must not be negative")
	}
	if k.ChipUnit == 0 {
		if d.Kind != Cash {
			return nil
		}
		k.ChipUnit = k.SmallestChip()
	}
	for _, v := range [...]int64{k.SmallBlind, k.BigBlind, k.Ante, k.BigBlindAnte, k.BringIn, k.SmallBet, k.BigBet} {
		if v%k.ChipUnit != 0 {
			return fault.Rule(fault.Invalid, "TP-31", "NOT_CHIP_UNIT_MULTIPLE",
				fmt.Sprintf("min_chip_unit: every stake must be a multiple of the smallest chip %d, %d is not", k.ChipUnit, v)).
				With("field", "min_chip_unit")
		}
	}
	return nil
}
