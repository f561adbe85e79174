// Package live interprets what a dealer enters at a live table (RULES.md
// §0.3, "Deployment modes") and proposes rulings: the declaration and chip
// movement rules TP-32…TP-42 (Interpret; TP-43, the pot stated only in
// pot-limit, is engine.Config.StatesPot) and acting out of turn,
// TP-46…TP-52 (SkippedPlayer, ResolveOutOfTurn).
//
// Every function is pure and depends on the standard library and
// engine/refusal (its refusals) only. A ruling
// is a proposal: the dealer confirms it or calls the floor, who may always
// rule otherwise (TP-02, P-3). Amounts are totals for the betting round
// ("raise to", TP-32), in chips, and multiples of the chip unit (TP-31).
//
// Applying a Ruling: once the dealer confirms, the hand engine applies
// Action with Amount as the total ("raise to") — Fold, Check, Call, or
// Bet/Raise to Amount (all-in when AllIn), taking Amount - InFront from the
// stack; Returned and Owed are the physical chips the dealer hands back or
// asks for. ActionNone and CallFloor wait for
// the floor. AwaitAmount (TP-42) waits for the dealer to enter the size,
// then Interpret runs again with Entry.Amount set.
//
// Applying an OutOfTurnRuling: hold out-of-turn chips outside the pot while
// the Outcome is Pending (TP-46); when the player's turn comes, Stands means
// the recorded wager is their action and CheckOrCall makes it the check or
// call in Decided (the excess, Returned, goes back); Withdrawn returns the
// chips and leaves the player Options; Choose (tournament) offers Options
// with the recorded wager already in; Folded kills the hand
// (TP-51); CheckedNoRaise sets Situation.RaiseClosed = "TP-49" for the rest
// of the round. SkippedPlayer tells whether a skipped seat acts now
// (TP-46), is deemed to have checked or folded (TP-47) or needs the floor
// (TP-48).
package live

import (
	"fmt"
	"slices"
)

// Structure is the betting structure of the game.
type Structure uint8

// Betting structures.
const (
	NoLimit Structure = iota
	PotLimit
	FixedLimit
)

var structureNames = [...]string{"NL", "PL", "FL"}

// String returns the structure's short name.
func (s Structure) String() string { return nameOf(structureNames[:], s, "structure") }

// nameOf is names[k], the name of an enum value k, or kind(k) for a value
// past the names.
func nameOf[K ~uint8](names []string, k K, kind string) string {
	if int(k) < len(names) {
		return names[k]
	}
	return fmt.Sprintf("%s(%d)", kind, k)
}

// Declaration is what the player said, as the console records it.
type Declaration uint8

// Declarations (§0.3).
const (
	DeclareNone Declaration = iota
	DeclareCheck
	DeclareCall
	// DeclareBetOrRaise is "bet" or "raise", with or without an amount.
	DeclareBetOrRaise
	// DeclarePot is "pot" (a bet or raise of the pot).
	DeclarePot
	DeclareFold
	DeclareAllIn
)

var declarationNames = [...]string{"none", "check", "call", "bet_or_raise", "pot", "fold", "all_in"}

// String returns the declaration's name.
func (d Declaration) String() string { return nameOf(declarationNames[:], d, "declaration") }

// Entry is one dealer-console entry for the player in turn (§0.3).
type Entry struct {
	Declaration Declaration
	// Amount is a declared amount, 0 when none was stated. It is the total
	// the player's wager becomes ("raise to", TP-32) unless RaiseBy is set.
	Amount int64
	// RaiseBy marks an amount the player clearly stated as "raise by" — the
	// separate, explicitly labelled input TP-32 allows.
	RaiseBy bool
	// ChipsTotal is the value of the chips the player pushed forward now,
	// not counting chips already in front of them (TP-36).
	ChipsTotal int64
	// ChipCount is how many chips were pushed; LargestChip the largest one
	// (0 when not recorded).
	ChipCount   int
	LargestChip int64
	// Motions is how many separate movements put the chips in (TP-37,
	// TP-38); 0 is read as 1.
	Motions int
	// DeclaredBeforeChips is true when the declaration came before any chip
	// crossed the line.
	DeclaredBeforeChips bool
}

// Situation is the betting situation of the player in turn, as the engine
// knows it.
type Situation struct {
	Structure  Structure
	Tournament bool
	// Preflop is true on the first betting round (TP-35).
	Preflop bool
	// CurrentBet is the highest total wager on this round (0 when nobody has
	// bet; before the flop, at least the big blind).
	CurrentBet int64
	// InFront is the player's own wager on this round so far, for example a
	// posted blind (TP-36).
	InFront int64
	// Stack is the player's chips behind, not counting InFront.
	Stack int64
	// MinRaiseTo is the smallest total of a full bet or raise: the minimum
	// bet when nobody has bet (TP-21), otherwise the current bet plus the
	// minimum raise (TP-22); in fixed limit the one legal total (TP-27).
	MinRaiseTo int64
	// MaxRaiseTo is the largest total allowed: the pot-limit maximum in PL
	// (TP-25, G-03). It is ignored in NL (the stack is the limit) and FL.
	MaxRaiseTo int64
	// BigUnitTo is, in fixed-limit stud with an open pair on fourth street
	// (TP-28), the total of a bet or raise by the big unit, open besides
	// MinRaiseTo (the small unit) until someone has bet or raised by it;
	// 0 otherwise.
	BigUnitTo int64
	// LastRaise is the size of the largest bet or raise so far on the round,
	// the base of the tournament 50 % rule (TP-41, G-14). 0 means
	// MinRaiseTo - CurrentBet.
	LastRaise int64
	// ChipUnit is the smallest chip that may be wagered (TP-31).
	ChipUnit int64
	// RaiseClosed is empty when the player may bet or raise, otherwise the
	// rule that stops them: TP-23 / TP-24 (betting not reopened), TP-29
	// (raise cap), TP-49 (checked out of turn), TP-58 (exposed cards).
	RaiseClosed string
}

// Action is the action a ruling proposes.
type Action uint8

// Actions. ActionNone means the console cannot propose one: the floor
// decides.
const (
	ActionNone Action = iota
	Fold
	Check
	Call
	Bet
	Raise
)

var actionNames = [...]string{"none", "fold", "check", "call", "bet", "raise"}

// String returns the action's name.
func (a Action) String() string { return nameOf(actionNames[:], a, "action") }

// Citation is one rule a ruling applies, with a short English explanation.
type Citation struct {
	Rule string
	Text string
}

// Ruling is the console's proposal for one entry.
type Ruling struct {
	Action Action
	// Amount is the player's total wager on the round after the action
	// (TP-32): InFront for a fold or a check, the call total for a call, the
	// bet or raise total otherwise. It is never above InFront + Stack.
	Amount int64
	// AllIn is true when Amount is the player's whole stack.
	AllIn bool
	// Returned is the value of pushed chips that go back to the player;
	// Owed is what the player must still add to reach Amount.
	Returned int64
	Owed     int64
	// AwaitAmount is set when the action is locked as a bet or raise but
	// the dealer must still enter its size (TP-42); Amount is then the
	// smallest it can be.
	AwaitAmount bool
	// CallFloor asks the dealer to call the floor before confirming.
	CallFloor bool
	Rules     []Citation
}

// Rule reports whether the ruling cites rule.
func (r Ruling) Rule(rule string) bool {
	return slices.ContainsFunc(r.Rules, func(c Citation) bool { return c.Rule == rule })
}

func (r *Ruling) cite(rule, text string) { r.Rules = append(r.Rules, Citation{Rule: rule, Text: text}) }
