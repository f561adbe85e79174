package engine

import (
	"github.com/cardroom/cardroom/services/table/engine/refusal"
	"strconv"
)

const noKind ActionKind = 0xFF

// opts is what the seat in turn may do in a betting round.
type opts struct {
	fold, check, call bool
	// withdraw replaces the fold of a seat whose out-of-turn wager a
	// skipped seat overtook (TP-52): its choices are to call the
	// difference, re-raise, or take the wager back and fold, so folding
	// takes the wager back.
	withdraw     bool
	callTo       int64
	aggr         ActionKind // Bet, Raise or Complete; noKind when none
	minTo, maxTo int64
	altTo        int64 // FL stud open pair: the big-bet opening (0 none)
	bringIn      bool
	bringInTo    int64
	why          whyNot // why aggression is refused, when it is
}

// whyNot names why a bet or raise is refused; the error is built only when
// one is actually refused, keeping LegalActions allocation-free.
type whyNot uint8

const (
	whyNone whyNot = iota
	whyChips
	whyExposed
	whyOOTCheck
	whyAllInOpponents
	whyNotReopenedFL
	whyNotReopened
	whyCap
)

func (h *Hand) whyErr(w whyNot) *refusal.Error {
	switch w {
	case whyChips:
		return ruleErr("TP-44", refusal.ActionNotAllowed, "not enough chips to raise")
	case whyExposed:
		return ruleErr("TP-58", refusal.NoAggression, "exposed hand kept live: check, call or fold only")
	case whyOOTCheck:
		return ruleErr("TP-49", refusal.NoAggression, "checked out of turn: no bet or raise this round")
	case whyAllInOpponents:
		return ruleErr("TP-44", refusal.ActionNotAllowed, "every opponent is all-in")
	case whyNotReopenedFL:
		return ruleErr("TP-24", refusal.BettingNotReopened, "an all-in below half a bet does not reopen the betting")
	case whyNotReopened:
		return ruleErr("TP-23", refusal.BettingNotReopened, "an incomplete raise does not reopen the betting")
	case whyCap:
		return ruleErr("TP-29", refusal.RaiseCapReached, "a bet and "+strconv.Itoa(h.cfg.Profile.MaxRaises)+" raises already made")
	}
	return ruleErr("", refusal.ActionNotAllowed, "no bet or raise possible")
}

func (h *Hand) isFL() bool { return h.cfg.Structure == FixedLimit }

// minBet is the PL/NL minimum opening bet (TP-21) or the FL unit.
func (h *Hand) minBet() int64 {
	if h.isFL() {
		return h.s.Unit
	}
	if h.cfg.Profile.MinBet == MinBetAnte && h.cfg.Stakes.Ante > 0 {
		return h.cfg.Stakes.Ante
	}
	return h.cfg.Stakes.BigBlind
}

// unitFor is the fixed-limit unit of a street (TP-27).
func (h *Hand) unitFor(s Street) int64 {
	k := h.cfg.Stakes
	idx := int(s)
	if h.cfg.Game.IsStud() {
		idx = int(s - Third)
	}
	if idx < h.cfg.Profile.SmallRounds {
		return k.SmallBet
	}
	return k.BigBet
}

func (h *Hand) live() int {
	n := 0
	for i := range h.s.Seats {
		if !h.s.Seats[i].Folded {
			n++
		}
	}
	return n
}

// actors counts seats that can still bet.
func (h *Hand) actors() int {
	n := 0
	for i := range h.s.Seats {
		p := &h.s.Seats[i]
		if !p.Folded && !p.AllIn {
			n++
		}
	}
	return n
}

func (h *Hand) anyAllIn() bool {
	for i := range h.s.Seats {
		if p := &h.s.Seats[i]; !p.Folded && p.AllIn {
			return true
		}
	}
	return false
}

func (h *Hand) othersCanAct(i int) bool {
	for j := range h.s.Seats {
		p := &h.s.Seats[j]
		if j != i && !p.Folded && !p.AllIn {
			return true
		}
	}
	return false
}

func (h *Hand) needsToAct(i int) bool {
	st := &h.s
	p := &st.Seats[i]
	if p.Folded || p.AllIn {
		return false
	}
	if p.Acted && p.Bet >= st.CurBet {
		return false
	}
	if p.Bet >= st.CurBet && !h.othersCanAct(i) {
		return false
	}
	return true
}

func (h *Hand) findNext(from int) int {
	n := len(h.s.Seats)
	for k := 0; k < n; k++ {
		j := (from + k) % n
		if h.needsToAct(j) {
			return j
		}
	}
	return -1
}

// startRound prepares the betting round of st.Street and finds who acts.
func (h *Hand) startRound(first bool) {
	st := &h.s
	st.LastAggr = -1
	st.RoundActs = 0
	st.Raises = 0
	st.FullLevel = 0
	st.OpenPair = false
	st.BringIn = false
	st.Undo = undoFold{}
	st.NoCap = h.live() == 2 // TP-29: heads-up at the start of the round
	st.Unit = h.unitFor(st.Street)
	st.CurBet = 0
	st.MinRaise = h.minBet()
	if st.Phase != PhaseBetting {
		return
	}
	start := h.firstLeftOf(st.Button)
	switch {
	case first && h.cfg.Game.IsStud():
		bi := h.bringInIndex()
		if bi >= 0 && h.live() > 1 {
			st.BringIn = true
			st.ToAct = bi
			return
		}
	case first:
		for i := range st.Seats {
			st.CurBet = max(st.CurBet, st.Seats[i].Bet)
		}
		// G-12: a straddle sizes raises like the big blind; G-31: the
		// sizes stay even when a blind is short.
		st.MinRaise = max(st.MinRaise, st.CurBet)
		if h.isFL() {
			st.FullLevel = max(st.CurBet-st.CurBet%st.Unit, h.cfg.Stakes.BigBlind)
			st.Raises = int(st.FullLevel / st.Unit)
		} else {
			st.FullLevel = st.CurBet
		}
		if st.RefIndex >= 0 {
			start = h.next(st.RefIndex) // TP-11, TP-20
		}
	case h.cfg.Game.IsStud():
		if st.Street == Fourth {
			st.OpenPair = h.openPair()
		}
		start = h.bestShowing()
	}
	h.settle(start)
}

// settle finds the next seat to act from index from, or closes the round.
func (h *Hand) settle(from int) {
	st := &h.s
	if st.Phase != PhaseBetting {
		return
	}
	if h.live() <= 1 {
		h.endUncontested()
		return
	}
	if st.Await.pending() {
		// Between rounds: nobody acts until the street's cards are in.
		return
	}
	if j := h.findNext(from); j >= 0 {
		st.ToAct = j
		return
	}
	h.closeRound()
}

// returnUncalled gives back the part of the highest bet nobody matched (TP-44).
func (h *Hand) returnUncalled() {
	st := &h.s
	top, second := -1, int64(0)
	for i := range st.Seats {
		b := st.Seats[i].Bet
		if top < 0 || b > st.Seats[top].Bet {
			if top >= 0 {
				second = max(second, st.Seats[top].Bet)
			}
			top = i
		} else {
			second = max(second, b)
		}
	}
	if top < 0 {
		return
	}
	p := &st.Seats[top]
	// A dead hand's excess stays in the pot (TP-53 handles its refund).
	if d := p.Bet - second; d > 0 && !p.Folded {
		h.refund(top, d, "TP-44")
	}
}

func (h *Hand) refund(i int, d int64, rule string) {
	p := &h.s.Seats[i]
	p.Bet -= d
	p.Total -= d
	p.Stack += d
	if p.Stack > 0 {
		p.AllIn = false
	}
	h.emit(Event{Kind: EvReturn, Seat: p.Seat, Amount: d, Rule: rule})
}

func (h *Hand) closeRound() {
	st := &h.s
	st.ToAct = -1
	h.returnUncalled()
	for i := range st.Seats {
		p := &st.Seats[i]
		p.Bet, p.Acted, p.ActedLevel, p.NoRaise, p.OOTFrom = 0, false, 0, false, -1
	}
	st.CurBet = 0
	st.FinalAggr = st.LastAggr
	st.Undo = undoFold{}
	h.emit(Event{Kind: EvRoundEnd, Seat: -1, Street: st.Street})
	if h.live() <= 1 {
		h.endUncontested()
		return
	}
	if h.lastStreet() || h.actors() <= 1 {
		// Betting is over. With an all-in player involved every live hand
		// is turned up (TP-45 / G-22); then the board is run out.
		if h.anyAllIn() {
			h.exposeAllIn()
		}
		st.RunOut = true
	}
	h.nextStreet()
}

// nextStreet deals the next street and opens its round, or while the
// board is run out deals to the end and starts the showdown. With physical
// cards it stops at the first street whose cards it must await; resume
// goes on once they are entered.
func (h *Hand) nextStreet() {
	st := &h.s
	for !h.lastStreet() {
		st.Street++
		st.RoundActs = 0
		h.dealStreet()
		if st.Await.pending() {
			return
		}
		if !st.RunOut {
			h.startRound(false)
			return
		}
	}
	h.startShowdown()
}

// resume goes on after the awaited cards were entered: the first round (a
// stud hand's up cards), the round of the street, or the run-out.
func (h *Hand) resume() {
	st := &h.s
	switch {
	case st.RunOut:
		h.nextStreet()
	case st.Street == h.firstStreet():
		h.startRound(true)
	default:
		h.startRound(false)
	}
}

// firstStreet is the first betting round: pre-flop, or 3rd street in stud.
func (h *Hand) firstStreet() Street {
	if h.cfg.Game.IsStud() {
		return Third
	}
	return Preflop
}

// reopened reports whether p, who may have acted already this round, may
// raise again: a full bet or raise since (TP-23, TP-24), short all-ins
// adding up to a full raise (G-02), or no full bet yet on the round.
func (h *Hand) reopened(p *seat) bool {
	st := &h.s
	if !p.Acted || st.FullLevel == 0 || st.FullLevel > p.ActedFull {
		return true
	}
	if h.cfg.Profile.NoCumulativeReopen {
		return false
	}
	diff := st.CurBet - p.ActedLevel
	if h.isFL() {
		return 2*diff >= st.Unit
	}
	return diff >= st.MinRaise
}

func (h *Hand) options(i int) opts {
	st := &h.s
	k := h.cfg.Stakes
	p := &st.Seats[i]
	o := opts{aggr: noKind}
	allIn := p.Bet + p.Stack
	if st.BringIn {
		o.bringIn = true
		o.bringInTo = min(k.BringIn, allIn)
		if allIn > o.bringInTo {
			o.aggr = Complete
			o.minTo = min(k.SmallBet, allIn)
			o.maxTo = o.minTo
		}
		return o
	}
	toCall := st.CurBet - p.Bet
	if toCall > 0 {
		o.fold, o.call = true, true
		o.callTo = min(st.CurBet, allIn)
		if p.OOTFrom >= 0 {
			o.fold, o.withdraw = false, true
		}
	} else {
		o.check = true
		o.fold = h.cfg.Profile.FoldWhenCheckFree || h.cfg.Mode == Live
	}
	switch {
	case p.Stack <= toCall:
		o.why = whyChips
	case p.NoAggr:
		o.why = whyExposed
	case p.NoRaise:
		o.why = whyOOTCheck
	case !h.othersCanAct(i):
		o.why = whyAllInOpponents
	case !h.reopened(p):
		o.why = whyNotReopened
		if h.isFL() {
			o.why = whyNotReopenedFL
		}
	case h.isFL() && !st.NoCap && st.Raises >= 1+h.cfg.Profile.MaxRaises:
		o.why = whyCap
	}
	if o.why != whyNone {
		return o
	}
	switch {
	case st.CurBet == 0:
		o.aggr = Bet
	case h.cfg.Game.IsStud() && st.Street == Third && st.FullLevel == 0:
		o.aggr = Complete
	default:
		o.aggr = Raise
	}
	if h.isFL() {
		o.minTo = min(st.FullLevel+st.Unit, allIn)
		o.maxTo = o.minTo
		if st.OpenPair && st.Unit < k.BigBet { // TP-28
			// Until someone has bet or raised by the big unit, anyone may:
			// the open bet is small or big, and after a small bet any player
			// still in the hand may raise by the larger unit.
			if alt := min(st.FullLevel+k.BigBet, allIn); alt > o.minTo {
				o.altTo = alt
			}
		}
		return o
	}
	if st.CurBet == 0 {
		o.minTo = h.minBet()
	} else {
		o.minTo = st.CurBet + st.MinRaise
	}
	o.maxTo = allIn
	if h.cfg.Structure == PotLimit { // TP-25, G-03
		pot := int64(0)
		for j := range st.Seats {
			pot += st.Seats[j].Total
		}
		mx := st.CurBet + pot
		if h.cfg.Profile.PotRaiseAfterCall {
			mx += toCall
		}
		mx -= mx % k.ChipUnit
		o.maxTo = min(o.maxTo, max(mx, o.minTo))
	}
	// TP-31: offer only chip-unit multiples (or the all-in).
	cu := k.ChipUnit
	if r := o.minTo % cu; r != 0 {
		o.minTo += cu - r
	}
	o.minTo = min(o.minTo, allIn)
	if o.maxTo != allIn {
		o.maxTo -= o.maxTo % cu
	}
	o.maxTo = max(o.maxTo, o.minTo)
	return o
}

// LegalActions returns exactly what may be done now: the seat in turn's
// betting or showdown options, or after an uncontested win the winner's
// optional show (TP-70). The slice is reused by the next call.
func (h *Hand) LegalActions() []Legal {
	st := &h.s
	h.legal = h.legal[:0]
	switch st.Phase {
	case PhaseBetting:
		if st.ToAct < 0 {
			return h.legal
		}
		s := st.Seats[st.ToAct].Seat
		if st.Seats[st.ToAct].ExposePending {
			return h.legal // the floor rules on the exposed hand first (TP-58)
		}
		o := h.cachedOptions(st.ToAct)
		if o.bringIn {
			h.legal = append(h.legal, Legal{Seat: s, Kind: BringIn, Min: o.bringInTo, Max: o.bringInTo})
		}
		if o.fold {
			h.legal = append(h.legal, Legal{Seat: s, Kind: Fold})
		}
		if o.check {
			h.legal = append(h.legal, Legal{Seat: s, Kind: Check})
		}
		if o.call {
			h.legal = append(h.legal, Legal{Seat: s, Kind: Call, Min: o.callTo, Max: o.callTo})
		}
		if o.aggr != noKind {
			h.legal = append(h.legal, Legal{Seat: s, Kind: o.aggr, Min: o.minTo, Max: o.maxTo})
			if o.altTo > 0 {
				h.legal = append(h.legal, Legal{Seat: s, Kind: o.aggr, Min: o.altTo, Max: o.altTo})
			}
		}
		if o.withdraw {
			h.legal = append(h.legal, Legal{Seat: s, Kind: Withdraw})
		}
	case PhaseShowdown:
		h.showdownLegal()
	case PhaseDone:
		if st.Uncontest {
			for i := range st.Seats {
				p := &st.Seats[i]
				if !p.Folded && !p.Shown {
					h.legal = append(h.legal, Legal{Seat: p.Seat, Kind: Show})
				}
			}
		}
	}
	return h.legal
}

// checkBetting validates a player's betting action for seat index i and
// returns the resolved kind and "to" amount.
func (h *Hand) checkBetting(i int, a Action) (ActionKind, int64, *refusal.Error) {
	st := &h.s
	p := &st.Seats[i]
	o := h.cachedOptions(i)
	kind := a.Kind
	if kind == Timeout || kind == Skip {
		switch {
		case o.bringIn:
			return BringIn, o.bringInTo, nil
		case o.withdraw:
			return Withdraw, 0, nil
		case o.call:
			return Fold, 0, nil
		default:
			return Check, 0, nil
		}
	}
	switch kind {
	case Fold:
		if o.withdraw { // TP-52: folding takes the overtaken wager back
			return Withdraw, 0, nil
		}
		if !o.fold {
			return 0, 0, ruleErr("G-33", refusal.ActionNotAllowed, "nothing to call: check instead of folding")
		}
		return Fold, 0, nil
	case Check:
		if !o.check {
			if o.bringIn {
				return 0, 0, ruleErr("G-18", refusal.ActionNotAllowed, "the bring-in must bring it in or complete")
			}
			return 0, 0, ruleErr("G-33", refusal.CannotCheck, "facing a bet, the choices are call, raise or fold")
		}
		return Check, 0, nil
	case Call:
		if !o.call {
			return 0, 0, ruleErr("G-33", refusal.ActionNotAllowed, "nothing to call")
		}
		if a.Amount != 0 && a.Amount != o.callTo {
			return 0, 0, rangeErr("TP-32", refusal.WrongAmount, "call amount is the round total", o.callTo, o.callTo)
		}
		return Call, o.callTo, nil
	case BringIn:
		if !o.bringIn {
			return 0, 0, ruleErr("G-18", refusal.ActionNotAllowed, "no bring-in pending")
		}
		if a.Amount != 0 && a.Amount != o.bringInTo {
			return 0, 0, rangeErr("G-18", refusal.WrongAmount, "the bring-in is the table's bring-in amount", o.bringInTo, o.bringInTo)
		}
		return BringIn, o.bringInTo, nil
	case Withdraw:
		if !o.withdraw {
			return 0, 0, ruleErr("TP-52", refusal.ActionNotAllowed, "no out-of-turn wager to withdraw")
		}
		return Withdraw, 0, nil
	case Bet, Raise, Complete:
	default:
		return 0, 0, ruleErr("", refusal.ActionNotAllowed, kind.String()+" is not a betting action")
	}
	if o.aggr == noKind {
		return 0, 0, h.whyErr(o.why)
	}
	if kind != o.aggr {
		return 0, 0, ruleErr("", refusal.ActionNotAllowed, kind.String()+" is not possible now: "+o.aggr.String())
	}
	to := a.Amount
	allIn := p.Bet + p.Stack
	if to > allIn {
		return 0, 0, rangeErr("CS-05", refusal.AboveStack, "amount above the chips on the table", o.minTo, o.maxTo)
	}
	if h.isFL() && (to == o.minTo || (o.altTo > 0 && to == o.altTo)) {
		return o.aggr, to, nil
	}
	if to%h.cfg.Stakes.ChipUnit != 0 && to != allIn {
		return 0, 0, rangeErr("TP-31", refusal.NotChipMultiple, "not a multiple of the smallest chip", o.minTo, o.maxTo)
	}
	if h.isFL() {
		// Completing the bring-in is to one small unit (TP-27); only an
		// open pair on 4th street (TP-28) changes the unit.
		rule := "TP-27"
		if st.OpenPair {
			rule = "TP-28"
		}
		hi := o.maxTo
		if o.altTo > 0 {
			hi = o.altTo
		}
		return 0, 0, rangeErr(rule, refusal.WrongAmount, "fixed-limit bets and raises are one unit", o.minTo, hi)
	}
	if to < o.minTo {
		if st.CurBet == 0 {
			return 0, 0, rangeErr("TP-21", refusal.BetBelowMinimum, "bet below the minimum", o.minTo, o.maxTo)
		}
		return 0, 0, rangeErr("TP-22", refusal.RaiseBelowMinimum, "raise below the minimum", o.minTo, o.maxTo)
	}
	if to > o.maxTo {
		return 0, 0, rangeErr("TP-25", refusal.AboveMaximum, "above the pot-limit maximum", o.minTo, o.maxTo)
	}
	return o.aggr, to, nil
}

// execBetting performs a validated betting action by seat index i.
func (h *Hand) execBetting(i int, kind ActionKind, to int64, rule string) {
	st := &h.s
	p := &st.Seats[i]
	st.RoundActs++
	st.Undo = undoFold{}
	if st.Street == h.firstStreet() {
		// Actions in turn on the first round: substantial action ends the
		// dealer's right to declare a misdeal (G-32).
		st.FirstActs++
		switch kind {
		case Call, Bet, Raise, Complete:
			st.FirstPaid++
		}
	}
	switch kind {
	case Fold:
		st.Undo = undoFold{Active: true, Index: i, Acted: p.Acted, ActedLevel: p.ActedLevel, ActedFull: p.ActedFull}
		p.Folded = true
		h.emit(Event{Kind: EvFold, Seat: p.Seat, Rule: rule})
	case Check:
		h.emit(Event{Kind: EvCheck, Seat: p.Seat, Rule: rule})
	case Call:
		h.put(p, to-p.Bet, true)
		h.emit(Event{Kind: EvCall, Seat: p.Seat, Amount: to, AllIn: p.AllIn})
	case BringIn:
		h.put(p, to-p.Bet, true)
		st.CurBet = max(st.CurBet, to)
		st.BringIn = false
		st.BringInBy = p.Seat + 1
		h.emit(Event{Kind: EvBringIn, Seat: p.Seat, Amount: to, AllIn: p.AllIn, Rule: rule})
	case Withdraw:
		d := p.Bet - p.OOTFrom
		h.refund(i, d, "TP-52")
		p.Folded = true
		h.emit(Event{Kind: EvFold, Seat: p.Seat, Rule: "TP-52"})
	default: // Bet, Raise, Complete
		st.BringIn = false
		h.put(p, to-p.Bet, true)
		if to > st.CurBet {
			h.raiseTo(to)
			st.LastAggr, st.HandAggr = i, i
		}
		ev := EvRaise
		switch kind {
		case Bet:
			ev = EvBet
		case Complete:
			ev = EvComplete
		}
		h.emit(Event{Kind: ev, Seat: p.Seat, Amount: to, AllIn: p.AllIn})
	}
	if kind != Fold && kind != Withdraw {
		p.Acted = true
		p.ActedLevel = st.CurBet
		p.ActedFull = st.FullLevel
	}
}

// raiseTo moves the round's bet to `to`, deciding whether it is a full bet
// or raise (TP-22, TP-23, TP-24, G-01).
func (h *Hand) raiseTo(to int64) {
	st := &h.s
	if h.isFL() {
		if st.OpenPair && st.Unit < h.cfg.Stakes.BigBet && to == st.FullLevel+h.cfg.Stakes.BigBet {
			// TP-28: a bet or raise by the big unit; G-18: later raises
			// in the big unit too.
			st.FullLevel = to
			st.Raises++
			if !h.cfg.Profile.OpenPairSmallRaises {
				st.Unit = h.cfg.Stakes.BigBet
			}
			st.CurBet = to
			return
		}
		if 2*(to-st.FullLevel) >= st.Unit {
			st.FullLevel += st.Unit
			st.Raises++
		}
		st.CurBet = to
		return
	}
	// A full bet or raise is at least the last full increment (the minimum
	// bet when none yet); a short all-in changes neither (G-01).
	if inc := to - st.CurBet; inc >= st.MinRaise {
		st.MinRaise = inc
		st.FullLevel = to
	}
	st.CurBet = to
}

// BettingState is the betting situation of the seat in turn, in the terms
// the live dealer-assist interpretation (engine/live.Situation) uses.
type BettingState struct {
	Seat       int       `json:"seat"`
	Structure  Structure `json:"structure"`
	Tournament bool      `json:"tournament"`
	Preflop    bool      `json:"preflop"` // first betting round (pre-flop / 3rd street)
	CurrentBet int64     `json:"current_bet"`
	InFront    int64     `json:"in_front"` // the seat's own wager this round
	Stack      int64     `json:"stack"`    // chips behind
	MinRaiseTo int64     `json:"min_raise_to"`
	MaxRaiseTo int64     `json:"max_raise_to"`
	// BigUnitTo is, in fixed-limit stud with an open pair on fourth street
	// (TP-28), the total of a bet or raise by the big unit while that is
	// open besides MinRaiseTo; 0 otherwise.
	BigUnitTo int64 `json:"big_unit_to,omitempty"`
	LastRaise int64 `json:"last_raise"` // the last full bet or raise increment
	ChipUnit  int64 `json:"chip_unit"`
	// RaiseClosed is empty when the seat may bet or raise, otherwise the
	// rule that stops it (TP-23, TP-24, TP-29, TP-44, TP-49, TP-58).
	RaiseClosed string `json:"raise_closed,omitempty"`
}

// Betting returns the betting situation of the seat in turn; ok is false
// outside a betting round.
func (h *Hand) Betting() (BettingState, bool) {
	st := &h.s
	if st.Phase != PhaseBetting || st.ToAct < 0 {
		return BettingState{}, false
	}
	return h.bettingOf(st.ToAct), true
}

// BettingFor returns the betting situation seat would be in if it acted
// now — the seat in turn, or one that pushes chips out of turn (its own
// wager against the round's bet); ok is false outside a betting round or
// for a seat with no action (folded, all in).
func (h *Hand) BettingFor(seat int) (BettingState, bool) {
	st := &h.s
	i := h.indexOf(seat)
	if st.Phase != PhaseBetting || st.ToAct < 0 || i < 0 || st.Seats[i].Folded || st.Seats[i].AllIn {
		return BettingState{}, false
	}
	return h.bettingOf(i), true
}

func (h *Hand) bettingOf(i int) BettingState {
	st := &h.s
	p := &st.Seats[i]
	o := h.options(i)
	b := BettingState{Seat: p.Seat, Structure: h.cfg.Structure, Tournament: h.cfg.Tournament,
		Preflop: st.Street == Preflop || st.Street == Third, CurrentBet: st.CurBet, InFront: p.Bet, Stack: p.Stack,
		LastRaise: st.MinRaise, ChipUnit: h.cfg.Stakes.ChipUnit}
	switch {
	case h.isFL():
		b.MinRaiseTo = st.FullLevel + st.Unit
		b.LastRaise = st.Unit
	case st.CurBet == 0:
		b.MinRaiseTo = h.minBet()
	default:
		b.MinRaiseTo = st.CurBet + st.MinRaise
	}
	b.MaxRaiseTo = p.Bet + p.Stack
	if o.aggr != noKind {
		b.MaxRaiseTo = o.maxTo
		b.BigUnitTo = o.altTo
	} else {
		b.RaiseClosed = h.whyErr(o.why).Rule
	}
	return b
}
