package live

import (
	"fmt"
	"github.com/cardroom/cardroom/services/table/engine/refusal"
)

// Skipped describes a player whose turn was passed over by an out-of-turn
// action (TP-46…TP-48).
type Skipped struct {
	// FacedBet is true when the skipped player faced a bet at their turn.
	FacedBet bool
	// ActedSince is how many players after the skipped seat have acted
	// since the skip.
	ActedSince int
	// Reacted is true when the skipped player (or the dealer) raised the
	// skip before two players after them had acted.
	Reacted bool
	// NextStreetDealt is true when the next round's cards are already out.
	NextStreetDealt bool
}

// SkipOutcome is what becomes of a skipped player's turn.
type SkipOutcome uint8

// Skip outcomes.
const (
	// ActionReturns: the action goes back to the skipped player, who must
	// act now; out-of-turn actions stay provisional (TP-46).
	ActionReturns SkipOutcome = iota
	// DeemedChecked: nobody reacted before two players after the skipped
	// one acted, and there was no bet: the skipped player has checked (TP-47).
	DeemedChecked
	// DeemedFolded: as DeemedChecked, facing a bet: the player has folded.
	DeemedFolded
	// FloorDecision: the next round's cards were dealt first (TP-48); no
	// procedure is given, so the floor decides (G-10 is the house default).
	FloorDecision
)

var skipOutcomeNames = [...]string{"action_returns", "deemed_checked", "deemed_folded", "floor_decision"}

// String returns the outcome's name.
func (o SkipOutcome) String() string { return nameOf(skipOutcomeNames[:], o, "skip_outcome") }

// SkipRuling is the ruling on a skipped player.
type SkipRuling struct {
	Outcome   SkipOutcome
	CallFloor bool
	Rules     []Citation
}

// SkippedPlayer rules on a player whose turn was skipped.
func SkippedPlayer(s Skipped) SkipRuling {
	switch {
	case s.Reacted:
		return SkipRuling{Outcome: ActionReturns, Rules: []Citation{
			{"TP-46", "the skipped player reacted in time: the action returns to them; later actions stay provisional"}}}
	case s.ActedSince >= 2 && s.FacedBet:
		return SkipRuling{Outcome: DeemedFolded, Rules: []Citation{
			{"TP-47", "two players after the skipped player acted before anyone reacted: facing a bet, the skipped player has folded"}}}
	case s.ActedSince >= 2:
		return SkipRuling{Outcome: DeemedChecked, Rules: []Citation{
			{"TP-47", "two players after the skipped player acted before anyone reacted: with no bet, the skipped player has checked"}}}
	case s.NextStreetDealt:
		return SkipRuling{Outcome: FloorDecision, CallFloor: true, Rules: []Citation{
			{"TP-48", "the next round's cards were dealt before the skipped player could react: a floor decision, recorded"},
			{"G-10", "house default: a premature flop goes back into the stub and is redealt; a premature turn or river is set aside"}}}
	default:
		return SkipRuling{Outcome: ActionReturns, Rules: []Citation{
			{"TP-46", "the skipped player must act now; out-of-turn actions after them are held provisionally"}}}
	}
}

// Wager is one action on the betting round with the total it brings the
// actor's wager to (TP-32). To is ignored for a fold and a check.
type Wager struct {
	Action Action
	To     int64
}

// OutOfTurn describes an action made out of turn and what the skipped
// players have done since.
type OutOfTurn struct {
	Tournament bool
	// Faced is the current bet when the out-of-turn action was made.
	Faced int64
	// InFront is the out-of-turn player's wager before the action (a blind,
	// or an earlier bet on the round).
	InFront int64
	// Action is the out-of-turn action.
	Action Wager
	// SkippedCount is how many skipped players act before the out-of-turn
	// player's own turn comes.
	SkippedCount int
	// Skipped are the skipped players' actions so far, in turn order.
	Skipped []Wager
}

// Outcome is what becomes of an out-of-turn action.
type Outcome uint8

// Out-of-turn outcomes.
const (
	// Pending: skipped players are still to act; the chips are held
	// provisionally outside the pot (TP-46, TP-50).
	Pending Outcome = iota
	// Stands: the action is binding as made (TP-50 rule 3, TP-52).
	Stands
	// CheckOrCall: a skipped player checked or called, so the out-of-turn
	// player must check or call in turn; any excess is returned (TP-50 rule 1).
	CheckOrCall
	// Withdrawn: a skipped player bet or raised; the out-of-turn wager is
	// returned and the player may fold, call or raise in turn (TP-50 rule 2).
	Withdrawn
	// Choose: tournament; a skipped player wagered more than the
	// out-of-turn bet; the player may call the difference, take the bet back
	// and fold, or raise again (TP-52).
	Choose
	// Folded: an out-of-turn fold is binding (TP-51).
	Folded
	// CheckedNoRaise: an out-of-turn check; the player may no longer bet or
	// raise on this round (TP-49).
	CheckedNoRaise
	// Chosen: tournament; the player made in turn the choice Choose gave
	// them (TP-52): Decided is the call, the raise, or the fold with the
	// bet taken back (Returned).
	Chosen
)

var outcomeNames = [...]string{"pending", "stands", "check_or_call", "withdrawn", "choose", "folded", "checked_no_raise", "chosen"}

// String returns the outcome's name.
func (o Outcome) String() string { return nameOf(outcomeNames[:], o, "outcome") }

// OutOfTurnRuling tells the hand engine how to apply an out-of-turn action.
type OutOfTurnRuling struct {
	Outcome Outcome
	// Wager is the out-of-turn player's total wager after the ruling, as far
	// as it is fixed now (InFront when the wager was returned or reduced to
	// a check).
	Wager int64
	// Returned is what goes back to the out-of-turn player.
	Returned int64
	// Options are the actions the player may take when their turn comes;
	// empty when the ruling already decided their action (Decided).
	Options []Action
	// Decided is the action the ruling makes for the player when it leaves
	// no choice: the wager as made when it Stands, the check or call of
	// CheckOrCall, the check that stands after an out-of-turn check nobody
	// bet into, the fold of Folded. ActionNone while the player still
	// chooses among Options (or the ruling is Pending).
	Decided Action
	// CanBetOrRaise is false when the player may no longer bet or raise on
	// this round.
	CanBetOrRaise bool
	// Scenario names the seed example the case matches (e.g. "TP-50/S1").
	Scenario string
	Rules    []Citation
}

// ResolveOutOfTurn rules on an out-of-turn action given what the skipped
// players have done: TP-49 and TP-51 for a check or a fold, TP-50 (cash) or
// TP-52 (tournament) for a call, bet or raise.
func ResolveOutOfTurn(o OutOfTurn) (OutOfTurnRuling, error) {
	if err := validateOOT(o); err != nil {
		return OutOfTurnRuling{}, err
	}
	pending := len(o.Skipped) < o.SkippedCount
	top, anyAggression, anyPassive := o.Faced, false, false
	for _, w := range o.Skipped {
		switch {
		case (w.Action == Bet || w.Action == Raise) && w.To > o.Faced:
			anyAggression = true
			top = max(top, w.To)
		case w.Action == Check || w.Action == Call:
			anyPassive = true
		}
	}
	fallback := Citation{}
	if o.Tournament {
		fallback = Citation{"TP-52", "003 r8 does not cover an out-of-turn check or fold; the general rule applies (P-2)"}
	}
	switch o.Action.Action {
	case Fold:
		r := OutOfTurnRuling{Outcome: Folded, Wager: o.InFront, Decided: Fold, Rules: []Citation{{"TP-51", "a fold out of turn is binding"}}}
		if o.Tournament {
			r.Rules = append(r.Rules, fallback)
		}
		return r, nil
	case Check:
		r := OutOfTurnRuling{Outcome: CheckedNoRaise, Wager: o.InFront,
			Rules: []Citation{{"TP-49", "after checking out of turn the player may no longer bet or raise on this round"}}}
		switch {
		case pending:
			r.Options = []Action{Check, Call, Fold}
		case anyAggression:
			r.Options = []Action{Call, Fold}
		default:
			r.Decided = Check
		}
		if o.Tournament {
			r.Rules = append(r.Rules, fallback)
		}
		return r, nil
	}
	var r OutOfTurnRuling
	if o.Tournament {
		r = tournamentOOT(o, top, anyAggression, anyPassive)
	} else {
		r = cashOOT(o, pending, anyAggression, anyPassive)
	}
	if o.Action.Action == Call {
		r.Scenario = "" // the seed's examples are a bet and a raise
	}
	return r, nil
}

func validateOOT(o OutOfTurn) error {
	bad := func(msg string) error { return ruleErr("", refusal.BadOutOfTurnCase, msg) }
	if o.Faced < 0 || o.InFront < 0 || o.InFront > o.Faced || o.SkippedCount < 1 || len(o.Skipped) > o.SkippedCount {
		return bad(fmt.Sprintf("faced %d, in front %d, %d of %d skipped players", o.Faced, o.InFront, len(o.Skipped), o.SkippedCount))
	}
	switch a := o.Action; a.Action {
	case Fold, Check:
		if a.Action == Check && o.Faced > o.InFront {
			return bad("a check facing a bet")
		}
	case Call:
		if a.To != o.Faced || o.Faced == o.InFront {
			return bad(fmt.Sprintf("a call to %d facing %d", a.To, o.Faced))
		}
	case Bet, Raise:
		if a.To <= o.Faced {
			return bad(fmt.Sprintf("a bet or raise to %d facing %d", a.To, o.Faced))
		}
	default:
		return bad("no out-of-turn action")
	}
	for _, w := range o.Skipped {
		if w.Action == ActionNone || w.Action > Raise || w.To < 0 {
			return bad("a skipped player's action is missing")
		}
	}
	return nil
}

// cashOOT applies TP-50: a bet or raise by a skipped player voids the
// out-of-turn action (rule 2, which example 2 shows takes precedence), a
// check or call reduces it to a check or call (rule 1), and folds let it
// stand (rule 3).
func cashOOT(o OutOfTurn, pending, anyAggression, anyPassive bool) OutOfTurnRuling {
	put := o.Action.To - o.InFront
	r := OutOfTurnRuling{CanBetOrRaise: true}
	opening := o.Faced == 0
	switch {
	case anyAggression:
		r.Outcome, r.Wager, r.Returned = Withdrawn, o.InFront, put
		r.Options = []Action{Fold, Call, Raise}
		r.Scenario = scenario(opening, "TP-50/S5", "TP-50/S2")
		r.Rules = []Citation{{"TP-50", "a skipped player bet or raised: the out-of-turn wager is returned; in turn the player may fold, call or raise (rule 2)"}}
	case pending:
		r.Outcome, r.Wager = Pending, o.Action.To
		r.Rules = []Citation{
			{"TP-46", "skipped players act first; the out-of-turn chips are held provisionally outside the pot"},
			{"TP-50", "the out-of-turn action is settled when every skipped player has acted"}}
	case anyPassive:
		r.Outcome, r.CanBetOrRaise = CheckOrCall, false
		if opening {
			r.Wager, r.Returned, r.Decided = o.InFront, put, Check
			r.Scenario = "TP-50/S4"
			r.Rules = []Citation{{"TP-50", fmt.Sprintf("a skipped player checked: the out-of-turn bet of %d is returned and the player must check (rule 1)", o.Action.To)}}
			break
		}
		r.Wager, r.Returned, r.Decided = o.Faced, o.Action.To-o.Faced, Call
		r.Scenario = "TP-50/S1"
		r.Rules = []Citation{{"TP-50", fmt.Sprintf("a skipped player called: the out-of-turn player must call %d; %d is returned (rule 1)", o.Faced, o.Action.To-o.Faced)}}
	default:
		r.Outcome, r.Wager, r.Decided = Stands, o.Action.To, o.Action.Action
		r.Scenario = "TP-50/S3"
		r.Rules = []Citation{{"TP-50", "the skipped players folded: the out-of-turn action stands (rule 3)"}}
	}
	return r
}

// tournamentOOT applies TP-52 (003 r8): the out-of-turn call, bet or raise
// stands; only a skipped player's larger wager gives the player a choice.
func tournamentOOT(o OutOfTurn, top int64, anyAggression, anyPassive bool) OutOfTurnRuling {
	r := OutOfTurnRuling{Outcome: Stands, Wager: o.Action.To, Decided: o.Action.Action, CanBetOrRaise: true}
	opening := o.Faced == 0
	switch {
	case top > o.Action.To:
		r.Outcome, r.Options, r.Decided = Choose, []Action{Call, Fold, Raise}, ActionNone
		r.Scenario = scenario(opening, "TP-52/S5", "")
		r.Rules = []Citation{{"TP-52", fmt.Sprintf("a skipped player wagered %d, more than the out-of-turn %d: the player may call the difference, take the bet back and fold, or raise again", top, o.Action.To)}}
		return r
	case anyAggression:
		r.Scenario = scenario(opening, "", "TP-52/S2")
	case anyPassive:
		r.Scenario = scenario(opening, "TP-52/S4", "TP-52/S1")
	case len(o.Skipped) == o.SkippedCount:
		r.Scenario = "TP-52/S3"
	}
	r.Rules = []Citation{{"TP-52", fmt.Sprintf("tournament: the out-of-turn wager of %d stands as made", o.Action.To)}}
	return r
}

// scenario names the seed example a case matches: the examples have an
// out-of-turn bet (S4, S5) or raise (S1–S3).
func scenario(opening bool, ifOpening, ifFacing string) string {
	if opening {
		return ifOpening
	}
	return ifFacing
}
