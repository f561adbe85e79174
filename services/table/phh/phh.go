// Package phh reads, writes and replays hand histories in the Poker Hand
// History format (PHH, github.com/uoftcprg/phh-std; reference implementation
// PokerKit's pokerkit.notation).
//
// A PHH file is TOML. Its required fields (variant, antes,
// blinds_or_straddles or bring_in, small_bet/big_bet or min_bet,
// starting_stacks, actions) say how to build the hand and what happened in
// it; the optional fields (players, finishing_stacks, event, ...) describe it.
// Players are listed in position order: in button games p1 is the small blind
// and the last player holds the button, except heads-up, where the forced
// bets are reversed (p1 posts the big blind, p2 is the button and posts the
// small blind). In stud, p1 sits at the dealer's left and the last player at
// the dealer's right.
//
// The package has three layers: Parse and (*History).WriteTo are the format
// (lossless: parse, write and parse again gives the same History);
// (*History).Validate checks what the specification requires without
// playing the hand; Replay plays it through the engine.
package phh

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Variant codes of the PHH specification.
const (
	FixedLimitHoldem         = "FT"
	NoLimitHoldem            = "NT"
	NoLimitShortDeckHoldem   = "NS"
	PotLimitOmaha            = "PO"
	FixedLimitOmahaHiLo      = "FO/8"
	FixedLimitStud           = "F7S"
	FixedLimitStudHiLo       = "F7S/8"
	FixedLimitRazz           = "FR"
	NoLimitSingleDrawLowball = "N2L1D"
	FixedLimitTripleDraw     = "F2L3D"
	FixedLimitBadugi         = "FB"
)

// variantInfo says which forced-bet and bet-size fields a variant uses, per
// the required-field table of the specification.
type variantInfo struct {
	blinds    bool // blinds_or_straddles (button games) rather than bring_in
	limit     bool // small_bet and big_bet rather than min_bet
	stud      bool
	holeN     int // hole cards each player is dealt before the first round
	shortDeck bool
}

var variants = map[string]variantInfo{
	FixedLimitHoldem:         {blinds: true, limit: true, holeN: 2},
	NoLimitHoldem:            {blinds: true, holeN: 2},
	NoLimitShortDeckHoldem:   {blinds: true, holeN: 2, shortDeck: true},
	PotLimitOmaha:            {blinds: true, holeN: 4},
	FixedLimitOmahaHiLo:      {blinds: true, limit: true, holeN: 4},
	FixedLimitStud:           {limit: true, stud: true, holeN: 3},
	FixedLimitStudHiLo:       {limit: true, stud: true, holeN: 3},
	FixedLimitRazz:           {limit: true, stud: true, holeN: 3},
	NoLimitSingleDrawLowball: {blinds: true, holeN: 5},
	FixedLimitTripleDraw:     {blinds: true, limit: true, holeN: 5},
	FixedLimitBadugi:         {blinds: true, limit: true, holeN: 4},
}

// Number is a PHH amount. The specification allows an integer or a float
// wherever it takes an amount; Number remembers which one was written so a
// file round-trips unchanged.
type Number struct {
	// Int is the value when IsFloat is false.
	Int int64
	// Float is the value when IsFloat is true.
	Float float64
	// IsFloat says the value was written as a TOML float (2.5, 100.0, inf).
	IsFloat bool
}

// Int returns the integer Number v.
func Int(v int64) Number { return Number{Int: v} }

// Float returns the float Number v.
func Float(v float64) Number { return Number{Float: v, IsFloat: true} }

// Value returns n as a float64.
func (n Number) Value() float64 {
	if n.IsFloat {
		return n.Float
	}
	return float64(n.Int)
}

// IsInf reports whether n is the infinite value PHH uses for an unknown
// stack.
func (n Number) IsInf() bool { return n.IsFloat && math.IsInf(n.Float, 1) }

// String writes n the way TOML and the action notation accept it: "300",
// "2.5", "100.0", "inf".
func (n Number) String() string {
	if !n.IsFloat {
		return strconv.FormatInt(n.Int, 10)
	}
	return formatFloat(n.Float)
}

func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	// Plain decimals for the amounts of real games (1937923.75, not
	// 1.93792375e+06); exponents only where a plain decimal would be long.
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'g'
	}
	s := strconv.FormatFloat(f, format, -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

// ParseNumber reads an amount as written in an action ("300", "2.5",
// "1e3"). Text that Go reads as an integer is an integer; anything else that
// is a finite or infinite decimal float is a float.
func ParseNumber(s string) (Number, error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return Int(i), nil
	}
	if s == "" || strings.ContainsAny(s, "_xXoObBpP") {
		return Number{}, fmt.Errorf("amount %q: not a number", s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) {
		return Number{}, fmt.Errorf("amount %q: not a number", s)
	}
	return Float(f), nil
}

// History is one hand in PHH. Nil slices and pointers are fields the file
// does not have.
type History struct {
	// Variant is the variant code, e.g. "NT" or "F7S/8".
	Variant string
	// AnteTrimmingStatus is ante_trimming_status, nil when absent (false).
	AnteTrimmingStatus *bool
	// Antes holds each player's ante, in player order.
	Antes []Number
	// BlindsOrStraddles holds each player's blind or straddle (button games).
	BlindsOrStraddles []Number
	// BringIn is the stud bring-in.
	BringIn *Number
	// SmallBet is the fixed-limit small bet.
	SmallBet *Number
	// BigBet is the fixed-limit big bet.
	BigBet *Number
	// MinBet is the minimum bet of no-limit and pot-limit games.
	MinBet *Number
	// StartingStacks holds each player's stack before the hand; inf stands
	// for an unknown stack.
	StartingStacks []Number
	// Actions is the hand's progression in order.
	Actions []Action

	// Players holds the player names, in player order.
	Players []string
	// Seats holds the players' seat numbers.
	Seats []int64
	// FinishingStacks holds the stacks after the last action.
	FinishingStacks []Number
	// Winnings holds the pots each player collected.
	Winnings []Number
	// TimeBanks holds each player's time bank at the start of the hand.
	TimeBanks []Number

	// Info holds the other optional fields of the specification (event,
	// hand, currency, time, ...) by name, with their TOML values: string,
	// int64, float64, bool or time.Time.
	Info map[string]any
	// Extra holds fields the specification does not define (user-defined
	// fields, kept so that they survive a round trip).
	Extra map[string]any
}

// NumPlayers returns the number of players: the length of starting_stacks.
func (h *History) NumPlayers() int { return len(h.StartingStacks) }
