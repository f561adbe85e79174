package engine

import (
	"slices"
	"strconv"

	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/engine/refusal"
)

// Apply performs one action and returns the events it caused (including
// any dealing and the showdown it triggers). On error it returns a
// *refusal.Error and the state is unchanged. The returned slice is reused by the
// next call.
func (h *Hand) Apply(a Action) ([]Event, error) {
	h.events = h.events[:0]
	if err := h.apply(a); err != nil {
		return nil, err
	}
	h.optOK = false
	return h.events, nil
}

func (h *Hand) apply(a Action) *refusal.Error {
	st := &h.s
	if a.Kind >= numActionKinds {
		return ruleErr("", refusal.ActionNotAllowed, "unknown action")
	}
	if len(a.Cards) > 0 && !takesCards(a) {
		return ruleErr("", refusal.CardsNotExpected, a.Kind.String()+" takes no cards")
	}
	switch a.Kind { // entries about the hand, not a seat
	case DealBoard:
		return h.applyDealBoard(a)
	case Misdeal:
		return h.applyMisdeal(a)
	case AwardPot:
		return h.applyAwardPot(a)
	}
	i := h.indexOf(a.Seat)
	if i < 0 {
		return ruleErr("", refusal.SeatNotInHand, "seat "+strconv.Itoa(a.Seat)+" is not in the hand")
	}
	if a.Amount < 0 {
		return ruleErr("", refusal.NegativeAmount, "negative amount")
	}
	switch a.Kind {
	case Call, Bet, Raise, BringIn, Complete, BoardOverdeal:
	default:
		if a.Amount != 0 {
			return ruleErr("TP-32", refusal.WrongAmount, a.Kind.String()+" takes no amount")
		}
	}
	p := &st.Seats[i]
	switch a.Kind {
	case Kill:
		return h.applyKill(i, a)
	case Revive:
		return h.applyRevive(i, a)
	case ExposeLive, RestrictRaise:
		return h.applyRestrict(i, a)
	case BoardOverdeal:
		return h.applyOverdeal(a)
	case DealSeat:
		return h.applyDealSeat(i, a)
	case Expose:
		return h.applyExpose(i, a)
	case Skip:
		if a.By == RolePlayer {
			return ruleErr("TP-47", refusal.RoleRequired, "the dealer or floor records a skipped seat")
		}
		if len(a.Cards) > 0 {
			// The next street's cards came out before the skipped seat
			// could act (TP-48): the floor's decision, G-10 with the cards.
			if a.By != RoleFloor {
				return ruleErr("TP-48", refusal.RoleRequired, "the floor decides when the next round was dealt")
			}
			if st.Phase != PhaseBetting || i != st.ToAct {
				return ruleErr("TP-47", refusal.ActionNotAllowed, "only the seat in turn can have been skipped")
			}
			if err := h.premature(a.Cards); err != nil {
				return err
			}
		}
	}
	if st.Phase == PhaseBetting && st.Await.pending() {
		return ruleErr("", refusal.AwaitingCards, "the street's cards are not entered yet")
	}
	if p.ExposePending && a.Kind != Timeout {
		return ruleErr("TP-58", refusal.FloorPending, "the floor rules on the exposed hand first")
	}
	switch st.Phase {
	case PhaseDone:
		if a.Kind == Show && st.Uncontest && !p.Folded && !p.Shown { // TP-70
			if err := h.checkTabled(p, a.Cards, "TP-70"); err != nil {
				return err
			}
			h.fillDown(p, a.Cards)
			p.Shown = true
			h.emitCards(EvShow, p, "TP-70")
			return nil
		}
		return ruleErr("", refusal.HandOver, "the hand is over")
	case PhaseShowdown:
		if err := h.checkShowdown(i, a); err != nil {
			return err
		}
		h.execShowdown(i, a)
		return nil
	}
	if i != st.ToAct {
		if p.Folded {
			return ruleErr("TP-54", refusal.ActionNotAllowed, "seat "+strconv.Itoa(a.Seat)+" has folded")
		}
		return ruleErr("TP-46", refusal.OutOfTurn, "not seat "+strconv.Itoa(a.Seat)+"'s turn")
	}
	kind, to, err := h.checkBetting(i, a)
	if err != nil {
		return err
	}
	rule := ""
	switch a.Kind {
	case Timeout:
		rule = "TP-59"
	case Skip:
		rule = "TP-47"
	}
	if kind != Withdraw {
		p.OOTFrom = -1
	}
	h.execBetting(i, kind, to, rule)
	h.settle(h.next(i))
	return nil
}

// takesCards reports whether a may carry entered cards.
func takesCards(a Action) bool {
	switch a.Kind {
	case Show, RequestShow, DealBoard, DealSeat, Expose, ExposeLive, Skip, BoardOverdeal:
		return true
	case Kill:
		return a.Kill == KillExposed
	}
	return false
}

// ApplyOutOfTurn records an action by a seat that is not in turn (live mode
// only; digital mode refuses it under TP-46). It is for the rulings of
// engine/live: an out-of-turn fold is binding at once (TP-51); an
// out-of-turn check binds the seat to check, call or fold this round
// (TP-49); an out-of-turn call, bet or raise is committed as made
// (tournaments, TP-52) — the turn stays with the skipped seat, and if a
// skipped seat then wagers more the out-of-turn seat may call, re-raise or
// Withdraw (take the wager back and fold). Cash-game out-of-turn wagers
// (TP-50) are held provisionally by engine/live, not committed here; it
// applies the resolved action when the seat's turn comes.
func (h *Hand) ApplyOutOfTurn(a Action) ([]Event, error) {
	h.events = h.events[:0]
	if err := h.applyOOT(a); err != nil {
		return nil, err
	}
	h.optOK = false
	return h.events, nil
}

func (h *Hand) applyOOT(a Action) *refusal.Error {
	st := &h.s
	if h.cfg.Mode != Live {
		return ruleErr("TP-46", refusal.OutOfTurn, "digital mode: only the seat in turn may act")
	}
	i := h.indexOf(a.Seat)
	if i < 0 {
		return ruleErr("", refusal.SeatNotInHand, "seat "+strconv.Itoa(a.Seat)+" is not in the hand")
	}
	if st.Phase != PhaseBetting || st.BringIn || st.Await.pending() {
		return ruleErr("TP-46", refusal.ActionNotAllowed, "no betting round open for out-of-turn action")
	}
	if i == st.ToAct {
		return h.apply(a)
	}
	p := &st.Seats[i]
	if p.Folded || p.AllIn {
		return ruleErr("TP-46", refusal.ActionNotAllowed, "seat has no action")
	}
	if p.ExposePending {
		return ruleErr("TP-58", refusal.FloorPending, "the floor rules on the exposed hand first")
	}
	if len(a.Cards) > 0 {
		return ruleErr("", refusal.CardsNotExpected, a.Kind.String()+" takes no cards")
	}
	if a.Amount < 0 {
		return ruleErr("", refusal.NegativeAmount, "negative amount")
	}
	switch a.Kind {
	case Fold: // TP-51
		st.RoundActs++
		st.Undo = undoFold{}
		p.Folded = true
		h.emit(Event{Kind: EvFold, Seat: p.Seat, Rule: "TP-51"})
		h.settle(st.ToAct)
		return nil
	case Check: // TP-49
		if p.Bet < st.CurBet {
			return ruleErr("TP-49", refusal.CannotCheck, "facing a bet")
		}
		st.RoundActs++
		st.Undo = undoFold{}
		p.Acted, p.ActedLevel, p.ActedFull, p.NoRaise = true, st.CurBet, st.FullLevel, true
		h.emit(Event{Kind: EvCheck, Seat: p.Seat, Rule: "TP-49"})
		h.emit(Event{Kind: EvRestrict, Seat: p.Seat, Rule: "TP-49"})
		return nil
	case Call, Bet, Raise, Complete: // TP-52
		if !h.cfg.Tournament {
			return ruleErr("TP-50", refusal.ActionNotAllowed, "cash tables hold an out-of-turn wager provisionally until the skipped seats act")
		}
		kind, to, err := h.checkBetting(i, a)
		if err != nil {
			return err
		}
		from := p.Bet
		h.execBetting(i, kind, to, "TP-52")
		p.OOTFrom = from
		h.settle(st.ToAct)
		return nil
	}
	return ruleErr("TP-46", refusal.ActionNotAllowed, a.Kind.String()+" cannot be recorded out of turn")
}

func (h *Hand) applyKill(i int, a Action) *refusal.Error {
	st := &h.s
	p := &st.Seats[i]
	if a.By == RolePlayer {
		return ruleErr(a.Kill.Rule(), refusal.RoleRequired, "the dealer or floor kills a hand")
	}
	if a.Kill > KillPenalty {
		return ruleErr("TP-54", refusal.ActionNotAllowed, "unknown kill reason")
	}
	if a.Kill == KillExposed && a.By != RoleFloor {
		return ruleErr("TP-58", refusal.RoleRequired, "the dealer marks an exposure; the floor rules the hand dead or live")
	}
	if len(a.Cards) > 0 && a.Kill != KillExposed {
		return ruleErr("", refusal.CardsNotExpected, "only an exposure names cards")
	}
	if st.Phase == PhaseShowdown && h.cfg.WinnerEntry {
		return ruleErr("TP-68", refusal.ActionNotAllowed, "at the showdown the floor awards the pots")
	}
	if st.Phase == PhaseDone {
		return ruleErr("", refusal.HandOver, "the hand is over")
	}
	if p.Folded || p.Mucked {
		return ruleErr("TP-54", refusal.ActionNotAllowed, "hand already dead")
	}
	if p.Shown && st.Phase == PhaseShowdown && a.By != RoleFloor {
		return ruleErr("TP-67", refusal.ShownWinner, "a properly tabled hand can only be killed by the floor")
	}
	if h.live() <= 1 {
		return ruleErr("TP-54", refusal.ActionNotAllowed, "the last live hand cannot be killed")
	}
	if a.Kill == KillExposed && st.Phase == PhaseBetting {
		if err := h.markExposed(p, a.Cards); err != nil {
			return err
		}
	}
	waited := st.Await.pending()
	st.RoundActs++
	h.killNoSettle(i, a.Kill)
	if st.Await.Up&(1<<p.Seat) != 0 {
		st.Await.Up &^= 1 << p.Seat // a dead hand needs no up card
	}
	if waited && !st.Await.pending() && st.Phase == PhaseBetting && h.live() > 1 {
		h.resume()
		return nil
	}
	switch st.Phase {
	case PhaseShowdown:
		p.Mucked = true
		st.MuckSeq++
		p.MuckSeq = st.MuckSeq
		if st.ToAct == i {
			st.ShowPos++
		}
		h.advanceShowdown()
	case PhaseBetting:
		if st.BringIn && st.ToAct == i && h.live() > 1 {
			// The bring-in passes to the next lowest (razz: highest) card.
			if bi := h.bringInIndex(); bi >= 0 {
				st.ToAct = bi
				return nil
			}
			st.BringIn = false
		}
		from := st.ToAct
		if from == i || from < 0 {
			from = h.next(i)
		}
		h.settle(from)
	}
	return nil
}

// killNoSettle declares seat i's hand dead. Only an unprotected (or
// fouled) hand gets back its uncalled raise (TP-53); nothing else is
// refunded (TP-55, TP-69).
func (h *Hand) killNoSettle(i int, why KillReason) {
	st := &h.s
	if h.live() <= 1 {
		return
	}
	p := &st.Seats[i]
	p.Folded, p.Killed = true, true
	st.Undo = undoFold{}
	rule := why.Rule()
	if why == KillAbsent && h.cfg.Tournament {
		rule = "TP-57"
	}
	h.emit(Event{Kind: EvKill, Seat: p.Seat, Rule: rule})
	// Only a raise the player made themselves (not a blind) comes back.
	if (why == KillUnprotected || why == KillFouled) && st.LastAggr == i && st.Phase == PhaseBetting {
		var other int64
		for j := range st.Seats {
			if j != i {
				other = max(other, st.Seats[j].Bet)
			}
		}
		if d := p.Bet - other; d > 0 {
			h.refund(i, d, "TP-53")
			st.CurBet = other
		}
	}
}

func (h *Hand) applyRevive(i int, a Action) *refusal.Error {
	st := &h.s
	if a.By != RoleFloor || h.cfg.Mode != Live {
		return ruleErr("TP-60", refusal.RoleRequired, "only the floor revives a hand (live tables)")
	}
	u := st.Undo
	if st.Phase != PhaseBetting || !u.Active || u.Index != i {
		return ruleErr("TP-60", refusal.NotRevivable, "only the fold just made can be revived")
	}
	p := &st.Seats[i]
	p.Folded, p.Acted, p.ActedLevel, p.ActedFull = false, u.Acted, u.ActedLevel, u.ActedFull
	st.ToAct = i
	st.Undo = undoFold{}
	h.emit(Event{Kind: EvRevive, Seat: p.Seat, Rule: "TP-60"})
	return nil
}

func (h *Hand) applyRestrict(i int, a Action) *refusal.Error {
	st := &h.s
	p := &st.Seats[i]
	rule := "TP-49"
	if a.Kind == ExposeLive {
		rule = "TP-58"
	}
	if a.By == RolePlayer || (a.Kind == ExposeLive && a.By != RoleFloor) {
		return ruleErr(rule, refusal.RoleRequired, "a dealer/floor ruling")
	}
	if st.Phase != PhaseBetting || p.Folded {
		return ruleErr(rule, refusal.ActionNotAllowed, "no live hand in a betting round")
	}
	if a.Kind == ExposeLive {
		if err := h.markExposed(p, a.Cards); err != nil {
			return err
		}
		p.NoAggr, p.ExposePending = true, false
	} else {
		if len(a.Cards) > 0 {
			return ruleErr("", refusal.CardsNotExpected, "a restriction names no cards")
		}
		p.NoRaise = true
	}
	st.Undo = undoFold{}
	h.emit(Event{Kind: EvRestrict, Seat: p.Seat, Rule: rule})
	return nil
}

// applyOverdeal corrects a live board overdeal (TP-78, TP-79) before any
// action on the street.
func (h *Hand) applyOverdeal(a Action) *refusal.Error {
	st := &h.s
	rule := "TP-78"
	if a.Amount >= 2 {
		rule = "TP-79"
	}
	switch {
	case h.cfg.Mode != Live:
		return ruleErr(rule, refusal.ActionNotAllowed, "an overdeal cannot happen in digital mode")
	case a.By != RoleFloor:
		return ruleErr(rule, refusal.RoleRequired, "the supervisor corrects an overdeal")
	case h.cfg.Game.IsStud() || st.Phase != PhaseBetting || st.Street == Preflop || st.RoundActs > 0:
		return ruleErr(rule, refusal.ActionNotAllowed, "only a just-dealt board street before any action")
	case a.Amount < 1:
		return ruleErr(rule, refusal.WrongAmount, "number of extra cards")
	}
	k := 1
	if st.Street == Flop {
		k = 3
	}
	if h.cfg.Physical {
		return h.physicalOverdeal(a, rule, k)
	}
	streetCards := st.Board[st.NBoard-k : st.NBoard]
	if a.Amount == 1 {
		if len(a.Cards) != 1 || st.Next >= len(st.Deck) {
			return ruleErr(rule, refusal.BadCard, "name the one card the supervisor removed")
		}
		x := a.Cards[0]
		extra := st.Deck[st.Next]
		switch j := slices.Index(streetCards, x); {
		case x == extra:
		case j >= 0:
			streetCards[j] = extra
			st.Deck[st.Next] = x
		default:
			return ruleErr(rule, refusal.BadCard, "the removed card is not among the dealt cards")
		}
		st.ForceBurn = true // it becomes the next burn card
		e := Event{Kind: EvOverdeal, Seat: -1, Rule: rule, Street: st.Street, NCards: uint8(k)}
		copy(e.Cards[:], streetCards)
		h.emit(e)
		return nil
	}
	// TP-79: the street's cards go back into the stub; the new stub order
	// comes from outside (the engine has no randomness of its own).
	want := append(append([]cards.Card(nil), streetCards...), st.Deck[st.Next:]...)
	if len(a.Cards) != len(want) || cards.Deck(a.Cards).Validate() != nil {
		return ruleErr(rule, refusal.BadStub, "the reshuffled stub must hold the street's cards and the undealt cards")
	}
	for _, c := range a.Cards {
		if !slices.Contains(want, c) {
			return ruleErr(rule, refusal.BadStub, "card "+c.String()+" is not in the stub")
		}
	}
	st.Deck = append(st.Deck[:st.Next], a.Cards...)
	st.NBoard -= k
	st.NoBurn = true
	h.emit(Event{Kind: EvOverdeal, Seat: -1, Rule: rule, Street: st.Street})
	h.dealStreet()
	return nil
}

// physicalOverdeal corrects an overdeal of k board cards with physical
// cards, before any action on the street, whether or not the street's
// cards were entered yet. TP-78 (one extra card): a.Cards are the k cards
// that stay, then the card the supervisor removed, which becomes the next
// burn card. TP-79: the street's cards go back into the stub and the
// street is entered again; a.Cards, if any, are the voided cards.
func (h *Hand) physicalOverdeal(a Action, rule string, k int) *refusal.Error {
	st := &h.s
	entered := st.Await.Board == 0
	if entered {
		st.NBoard -= k // checked below without the street's own cards
	}
	restore := func(err *refusal.Error) *refusal.Error {
		if entered {
			st.NBoard += k
		}
		return err
	}
	if a.Amount == 1 && len(a.Cards) != k+1 {
		return restore(rangeErr(rule, refusal.WrongCardCount, "the street's cards that stay, then the card removed", int64(k+1), int64(k+1)))
	}
	if err := h.checkNew(a.Cards, nil, rule); err != nil {
		return restore(err)
	}
	e := Event{Kind: EvOverdeal, Seat: -1, Rule: rule, Street: st.Street, NCards: uint8(len(a.Cards))}
	copy(e.Cards[:], a.Cards)
	st.Undo = undoFold{}
	if a.Amount > 1 { // TP-79: the street is dealt and entered again
		h.emit(e)
		st.Await.Board, st.ToAct = k, -1
		return nil
	}
	e.NCards = uint8(k)
	h.emit(e)
	st.Burned = append(st.Burned, a.Cards[k]) // the next burn card (TP-78)
	for _, c := range a.Cards[:k] {
		st.Board[st.NBoard] = c
		st.NBoard++
	}
	if !entered {
		st.Dealt += k
		st.Await.Board = 0
		h.resume()
	}
	return nil
}
