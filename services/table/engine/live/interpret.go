package live

import (
	"cmp"
	"fmt"

	"github.com/cardroom/cardroom/services/table/engine/refusal"
)

// Interpret proposes the ruling for a dealer-console entry e made by the
// player in turn in situation s (TP-32…TP-43). It refuses malformed input —
// amounts that are negative, above the stack or not multiples of the chip
// unit (TP-31), or an entry with neither a declaration nor chips — with a
// *refusal.Error.
func Interpret(e Entry, s Situation) (Ruling, error) {
	if err := validate(e, s); err != nil {
		return Ruling{}, err
	}
	in := interpreter{e: e, s: s}
	in.all = s.InFront + s.Stack
	in.pushed = s.InFront + e.ChipsTotal
	in.maxTo = in.all
	switch s.Structure {
	case PotLimit:
		in.maxTo = min(in.all, s.MaxRaiseTo)
	case FixedLimit:
		in.maxTo = min(in.all, max(s.MinRaiseTo, s.BigUnitTo))
	}
	in.canRaise = s.RaiseClosed == "" && in.all > s.CurrentBet
	in.decide()
	in.finish()
	return in.r, nil
}

func validate(e Entry, s Situation) error {
	if s.ChipUnit <= 0 {
		return ruleErr("TP-31", refusal.BadSituation, "the chip unit must be positive")
	}
	if s.Structure > FixedLimit {
		return ruleErr("", refusal.BadSituation, "unknown betting structure")
	}
	if e.Declaration > DeclareAllIn {
		return ruleErr("", refusal.BadEntry, "unknown declaration")
	}
	for _, v := range [...]struct {
		name string
		v    int64
	}{
		{"current bet", s.CurrentBet}, {"chips in front", s.InFront}, {"stack", s.Stack},
		{"minimum raise-to", s.MinRaiseTo}, {"maximum raise-to", s.MaxRaiseTo}, {"big-unit raise-to", s.BigUnitTo}, {"last raise", s.LastRaise},
		{"declared amount", e.Amount}, {"chips pushed", e.ChipsTotal}, {"largest chip", e.LargestChip},
	} {
		if v.v < 0 {
			return ruleErr("", refusal.BadEntry, fmt.Sprintf("negative %s %d", v.name, v.v))
		}
		if v.v%s.ChipUnit != 0 {
			return ruleErr("TP-31", refusal.NotChipMultiple, fmt.Sprintf("%s %d is not a multiple of the chip unit %d", v.name, v.v, s.ChipUnit))
		}
	}
	if s.Stack == 0 {
		return ruleErr("TP-44", refusal.NoChipsBehind, "the player is all-in and cannot act")
	}
	if s.InFront > s.CurrentBet {
		return ruleErr("", refusal.BadSituation, "chips in front above the current bet")
	}
	if s.RaiseClosed == "" && s.InFront+s.Stack > s.CurrentBet && s.MinRaiseTo <= s.CurrentBet {
		return ruleErr("TP-22", refusal.BadSituation, "the minimum raise-to must be above the current bet")
	}
	if s.Structure == PotLimit && s.RaiseClosed == "" && s.MaxRaiseTo < s.MinRaiseTo {
		return ruleErr("TP-25", refusal.BadSituation, "the pot-limit maximum is below the minimum")
	}
	if e.ChipsTotal > s.Stack {
		return ruleErr("", refusal.AboveStack, fmt.Sprintf("chips pushed %d above the stack %d", e.ChipsTotal, s.Stack))
	}
	if e.ChipCount < 0 || e.Motions < 0 || (e.ChipCount == 0) != (e.ChipsTotal == 0) ||
		e.LargestChip > e.ChipsTotal || (e.ChipCount == 1 && e.LargestChip != 0 && e.LargestChip != e.ChipsTotal) ||
		(e.LargestChip > 0 && e.LargestChip*int64(e.ChipCount) < e.ChipsTotal) {
		return ruleErr("", refusal.BadEntry, "chip count, largest chip and total do not agree")
	}
	if e.Declaration == DeclareNone && e.ChipsTotal == 0 {
		return ruleErr("", refusal.EmptyEntry, "nothing declared and no chips pushed")
	}
	return nil
}

type interpreter struct {
	e Entry
	s Situation
	r Ruling

	all      int64 // InFront + Stack: the most the wager can become
	pushed   int64 // InFront + ChipsTotal: the wager if every pushed chip counts
	maxTo    int64 // the structure's largest total, capped at all
	canRaise bool
}

func (in *interpreter) facing() bool  { return in.s.CurrentBet > in.s.InFront }
func (in *interpreter) opening() bool { return in.s.CurrentBet == 0 }
func (in *interpreter) callTo() int64 { return min(in.s.CurrentBet, in.all) }
func (in *interpreter) motions() int  { return max(in.e.Motions, 1) }

// minIncrement is the size of a full raise (TP-22).
func (in *interpreter) minIncrement() int64 { return in.s.MinRaiseTo - in.s.CurrentBet }

// wager sets the action that makes the player's wager to.
func (in *interpreter) wager(to int64) {
	to = max(min(to, in.all), in.s.InFront)
	in.r.Amount = to
	switch {
	case to > in.s.CurrentBet && in.opening():
		in.r.Action = Bet
	case to > in.s.CurrentBet:
		in.r.Action = Raise
	case in.facing():
		in.r.Action = Call
	default:
		in.r.Action = Check
	}
}

// call makes the action a call (a check when there is nothing to call).
func (in *interpreter) call() { in.wager(in.callTo()) }

// raiseTo makes the action a bet or raise to target, completed to the
// minimum (completeRule explains why) and cut to the structure's maximum.
func (in *interpreter) raiseTo(target int64, completeRule, completeText string) {
	if !in.canRaise {
		in.closed()
		return
	}
	if in.s.Structure == FixedLimit {
		switch big := in.s.BigUnitTo; {
		case big > in.s.MinRaiseTo && target >= big:
			// TP-28: with an open pair on fourth street the bet or raise
			// may be by the big unit; more than that is the big unit.
			in.r.cite("TP-28", fmt.Sprintf("open pair on fourth street: a bet or raise by the larger unit, to %d", big))
			target = big
		case big > in.s.MinRaiseTo:
			if target != in.s.MinRaiseTo {
				in.r.cite("TP-28", fmt.Sprintf("open pair on fourth street: a bet or raise is by the smaller unit, to %d, or the larger, to %d", in.s.MinRaiseTo, big))
			}
			target = in.s.MinRaiseTo
		default:
			if target != in.s.MinRaiseTo {
				in.r.cite("TP-27", fmt.Sprintf("fixed limit: every bet and raise is one unit, to %d", in.s.MinRaiseTo))
			}
			target = in.s.MinRaiseTo
		}
	}
	if target < in.s.MinRaiseTo && target < in.all {
		// An all-in for less stands as it is (TP-23); anything else short of
		// a full bet or raise is completed.
		switch {
		case completeText == "":
		case in.s.MinRaiseTo >= in.all:
			in.r.cite(completeRule, completeText+"; the stack is smaller, so all-in")
		default:
			in.r.cite(completeRule, completeText)
		}
		target = in.s.MinRaiseTo
	}
	if target > in.maxTo {
		switch {
		case in.s.Structure == PotLimit && in.s.MaxRaiseTo < in.all:
			in.r.cite("TP-25", fmt.Sprintf("pot limit: the most this wager can be is the pot, %d", in.s.MaxRaiseTo))
		case target > in.all:
			in.r.cite("TP-44", "more than the stack: all-in")
		}
		target = in.maxTo
	}
	in.wager(target)
}

// closed explains that the player may not bet or raise and calls instead.
func (in *interpreter) closed() {
	if in.s.RaiseClosed != "" {
		in.r.cite(in.s.RaiseClosed, "betting is not open to this player: the action is a call (or a check)")
	} else {
		in.r.cite("TP-44", "the stack covers no more than a call: all-in call")
	}
	in.call()
}

func (in *interpreter) decide() {
	switch in.e.Declaration {
	case DeclareFold:
		in.r.cite("TP-07", "a verbal fold is binding")
		in.r.Action, in.r.Amount = Fold, in.s.InFront
	case DeclareCheck:
		if in.facing() {
			in.r.cite("TP-02", "\"check\" facing a bet is not a legal action; the floor decides")
			in.r.Action, in.r.Amount, in.r.CallFloor = ActionNone, in.s.InFront, true
			return
		}
		in.r.cite("TP-07", "a verbal check is binding")
		in.wager(in.s.InFront)
	case DeclareCall:
		in.r.cite("TP-07", "a verbal call is binding; chips beyond the call are returned")
		in.call()
	case DeclareAllIn:
		in.r.cite("TP-07", "a verbal all-in is binding")
		if !in.canRaise {
			in.closed()
			return
		}
		in.raiseTo(in.all, "TP-44", "all-in")
	case DeclarePot:
		in.pot()
	case DeclareBetOrRaise:
		in.betOrRaise()
	default:
		in.chips()
	}
}

// pot rules on a "pot" declaration: the pot-limit maximum in PL (TP-25), a
// locked bet or raise of a size still to be stated elsewhere (TP-42).
func (in *interpreter) pot() {
	if in.s.Structure == PotLimit {
		in.r.cite("TP-25", "\"pot\" in pot-limit is a bet or raise of the pot-limit maximum")
		in.raiseTo(in.s.MaxRaiseTo, "TP-25", "")
		return
	}
	in.r.cite("TP-42", "\"pot\" outside pot-limit locks a bet or raise but does not set its size")
	if !in.canRaise {
		in.r.CallFloor = true
		in.closed()
		return
	}
	switch {
	case in.s.Structure == FixedLimit:
		in.raiseTo(in.s.MinRaiseTo, "TP-27", "")
	case in.e.Amount > 0:
		in.declaredAmount()
	default:
		in.r.AwaitAmount = true
		in.raiseTo(max(in.pushed, in.s.MinRaiseTo), "TP-39", "")
	}
}

// declaredAmount rules on a bet or raise with a stated amount.
func (in *interpreter) declaredAmount() {
	target := in.e.Amount
	if in.e.RaiseBy {
		target = in.s.CurrentBet + in.e.Amount
		in.r.cite("TP-32", fmt.Sprintf("\"raise by %d\" is a raise to %d", in.e.Amount, target))
	} else {
		in.r.cite("TP-32", fmt.Sprintf("a declared amount is the total: to %d", target))
	}
	if in.motions() > 1 && in.e.DeclaredBeforeChips {
		in.r.cite("TP-38", "chips in several motions are allowed because the amount was declared first")
	}
	if in.opening() {
		in.raiseTo(target, "TP-40", fmt.Sprintf("an opening bet below the minimum is completed to %d", in.s.MinRaiseTo))
		return
	}
	if target <= in.s.CurrentBet {
		in.r.cite("TP-39", "a declared raise is binding even when the amount stated does not exceed the bet")
	}
	in.raiseTo(target, "TP-39", fmt.Sprintf("a verbal raise is binding and is completed to the minimum, %d", in.s.MinRaiseTo))
}

// betOrRaise rules on "bet" / "raise", with or without an amount.
func (in *interpreter) betOrRaise() {
	in.r.cite("TP-07", "a verbal bet or raise is binding")
	if !in.canRaise {
		in.closed()
		return
	}
	if !in.e.DeclaredBeforeChips && in.e.ChipsTotal > 0 {
		// The chips crossed the line first: they, not the late word, decide
		// — an amount said afterwards included (TP-38 allows chips at
		// different times only after the amount was declared).
		in.r.cite("TP-37", "a bet or raise declared after the chips went in does not change the push; the chips decide")
		in.chips()
		return
	}
	if in.e.Amount > 0 {
		in.declaredAmount()
		return
	}
	// Cash: the call chips, then the raise in one motion (TP-37); with
	// nothing to call there are no call chips, so a second motion is a
	// string bet (TP-38). 003 r11 (tournaments): one motion unless the
	// amount is declared (C-11).
	limit := 1
	if in.facing() && !in.s.Tournament {
		limit = 2
	}
	completeRule, completeText := "TP-39", fmt.Sprintf("a verbal raise is binding and is completed to the minimum, %d", in.s.MinRaiseTo)
	if in.opening() {
		completeRule, completeText = "TP-40", fmt.Sprintf("an opening bet below the minimum is completed to %d", in.s.MinRaiseTo)
	}
	if in.motions() > limit {
		in.r.cite("TP-37", fmt.Sprintf("after \"raise\" the chips must go in in at most %d motion(s) here", limit))
		in.r.cite("TP-38", "a string bet: the floor rules (G-15); proposed: the minimum the declaration binds")
		in.r.CallFloor = true
		in.raiseTo(in.s.MinRaiseTo, completeRule, completeText)
		return
	}
	if in.motions() == 2 {
		in.r.cite("TP-37", "cash: after \"raise\" the call chips and then the raise in one more motion are allowed")
	}
	in.raiseTo(in.pushed, completeRule, completeText)
}

// chips rules on chips pushed without a (prior) declaration.
func (in *interpreter) chips() {
	if in.motions() > 1 {
		in.r.cite("TP-38", "chips put in at different times without a declaration: a string bet")
		in.r.cite("G-15", "house default: only the first motion counts, which is a call when facing a bet")
		in.r.CallFloor = true
		if in.facing() || !in.canRaise {
			in.call()
			return
		}
		in.raiseTo(in.s.MinRaiseTo, "TP-40", "proposed: the minimum bet, as the first motion's size is not recorded")
		return
	}
	if in.e.ChipCount == 1 {
		in.singleChip()
		return
	}
	in.pushedChips()
}

// singleChip rules on one chip without a declaration (TP-33, TP-34, TP-35).
func (in *interpreter) singleChip() {
	chip := in.e.ChipsTotal
	if in.s.Tournament && (in.facing() || in.s.Preflop) && in.pushed >= in.s.CurrentBet {
		switch {
		case in.s.Preflop:
			in.r.cite("TP-35", "tournament, before the flop: an oversized chip without a declaration is a call")
		default:
			in.r.cite("TP-35", "tournament, after the flop, facing a bet: an oversized chip (003 r10 unresolved, C-09)")
			in.r.cite("G-13", "house default: facing a bet, a single oversized chip is a call; floor to confirm")
			in.r.CallFloor = true
		}
		in.call()
		return
	}
	if in.facing() {
		if in.pushed < in.s.CurrentBet {
			in.short()
			return
		}
		in.r.cite("TP-34", "a single chip facing a bet, with no raise declared, is a call; the change is returned")
		in.call()
		return
	}
	// Not facing a bet: the largest bet the chip covers.
	if in.s.Tournament {
		in.r.cite("TP-35", "tournament, after the flop, not facing a bet: an oversized chip is a bet (amount per TP-33, P-2)")
	}
	if in.s.Structure == FixedLimit {
		in.r.cite("TP-27", "fixed limit: a chip not facing a bet bets one unit")
		in.raiseTo(in.s.MinRaiseTo, "TP-40", fmt.Sprintf("an opening bet below the minimum is completed to %d", in.s.MinRaiseTo))
		return
	}
	in.r.cite("TP-33", fmt.Sprintf("a single chip not facing a bet is the largest bet it covers: %d", chip))
	if !in.opening() {
		in.undersized(chip)
		return
	}
	in.raiseTo(in.pushed, "TP-40", fmt.Sprintf("an opening bet below the minimum is completed to %d", in.s.MinRaiseTo))
}

// pushedChips rules on several chips in one motion without a declaration.
func (in *interpreter) pushedChips() {
	s := in.s
	switch {
	case in.facing() && in.pushed < s.CurrentBet:
		in.short()
	case in.facing() && s.InFront > 0 && in.pushed > s.CurrentBet && in.e.ChipsTotal <= s.CurrentBet:
		in.r.cite("TP-36", fmt.Sprintf("the %d already in front are not extra chips: pushing %d against a bet of %d is a call",
			s.InFront, in.e.ChipsTotal, s.CurrentBet))
		in.call()
	case in.pushed <= s.CurrentBet:
		in.call()
	case !in.canRaise:
		in.closed()
	case in.e.ChipsTotal == s.Stack:
		in.r.cite("TP-44", "the whole stack pushed: all-in")
		in.raiseTo(in.all, "TP-44", "all-in")
	case in.opening():
		in.raiseTo(in.pushed, "TP-40", fmt.Sprintf("an opening bet below the minimum is completed to %d", s.MinRaiseTo))
	default:
		in.undersized(in.pushed - s.CurrentBet)
	}
}

// undersized applies the 50 % rule to a raise of inc chips made without a
// declaration (TP-41; the tournament base is G-14).
func (in *interpreter) undersized(inc int64) {
	s := in.s
	full := in.minIncrement()
	if inc >= full {
		in.r.cite("TP-41", "a full raise")
		in.raiseTo(s.CurrentBet+inc, "TP-41", "")
		return
	}
	base, baseText := full, "the required minimum raise"
	if s.Tournament {
		base, baseText = s.LastRaise, "the previous bet (G-14: the largest bet or raise of the round)"
		base = cmp.Or(base, full)
		in.r.cite("G-14", "tournament: the 50 % base is the largest previous bet or raise; under 50 % it is a call")
	}
	if 2*inc >= base {
		in.r.cite("TP-41", fmt.Sprintf("a raise of %d is at least half of %s (%d): completed to the minimum raise", inc, baseText, base))
		in.raiseTo(s.MinRaiseTo, "TP-41", "")
		return
	}
	in.r.cite("TP-41", fmt.Sprintf("a raise of %d is less than half of %s (%d): a call, the excess is returned", inc, baseText, base))
	in.call()
}

// short rules on chips that do not cover the call.
func (in *interpreter) short() {
	if in.e.ChipsTotal == in.s.Stack {
		in.r.cite("TP-44", "the whole stack does not cover the call: all-in call for less")
		in.call()
		return
	}
	in.r.cite("TP-02", "the chips do not cover the call and no rule says how to read it; proposed: a call the player completes")
	in.r.CallFloor = true
	in.call()
}

// finish works out the chips returned or still owed.
func (in *interpreter) finish() {
	if len(in.r.Rules) == 0 {
		in.r.cite("TP-32", fmt.Sprintf("the chips pushed make the wager %d in total", in.r.Amount))
	}
	in.r.AllIn = in.r.Action != Fold && in.r.Action != ActionNone && in.r.Amount == in.all
	add := in.r.Amount - in.s.InFront
	if in.r.Action == Fold || in.r.Action == ActionNone {
		add = 0
	}
	in.r.Returned = max(in.e.ChipsTotal-add, 0)
	in.r.Owed = max(add-in.e.ChipsTotal, 0)
}

// ruleErr refuses an entry as malformed: every refusal of the interpreter
// blames how the entry (or the situation) is written, not a rule of play.
func ruleErr(rule string, reason refusal.Reason, msg string) error {
	return &refusal.Error{Rule: rule, Reason: reason, Msg: msg, Malformed: true}
}
