package engine

import (
	"slices"
	"strconv"

	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/engine/refusal"
)

// Physical cards (Config.Physical): the dealer deals real cards and enters
// them as they are dealt. The engine deals nothing itself: a face-down card
// is cards.Unknown until entered, and the public cards of a street are
// awaited (state.Await) before its round begins. Every entered card is
// checked against the cards already seen in the hand: a physical deck
// holds each card once.

// await is what a physical hand waits for before it goes on.
type await struct {
	// Board is how many community cards the street awaits.
	Board int `json:"board,omitempty"`
	// Up has bit s set for each seat s awaiting its face-up card (stud).
	Up uint16 `json:"up,omitempty"`
}

func (a await) pending() bool { return a.Board > 0 || a.Up != 0 }

// Awaited is what a physical hand waits for before anyone acts.
type Awaited struct {
	Street Street `json:"street"`
	// Board is how many community cards the street awaits (DealBoard).
	Board int `json:"board,omitempty"`
	// UpSeats are the seats each awaiting its face-up card (DealSeat).
	UpSeats []int `json:"up_seats,omitempty"`
}

// Awaiting returns the cards the hand waits for; ok is false when it waits
// for none.
func (h *Hand) Awaiting() (Awaited, bool) {
	st := &h.s
	if !st.Await.pending() || st.Phase != PhaseBetting {
		return Awaited{}, false
	}
	a := Awaited{Street: st.Street, Board: st.Await.Board}
	for s := 0; s < 10; s++ {
		if st.Await.Up&(1<<s) != 0 {
			a.UpSeats = append(a.UpSeats, s)
		}
	}
	return a, true
}

// ExposurePending returns the seats whose marked exposure awaits the
// floor's ruling (TP-58).
func (h *Hand) ExposurePending() []int {
	var out []int
	for i := range h.s.Seats {
		if p := &h.s.Seats[i]; p.ExposePending && !p.Folded {
			out = append(out, p.Seat)
		}
	}
	return out
}

// SubstantialAction reports whether the first betting round has seen
// substantial action (G-32, Robert's): two actions in turn of which one put
// chips in, or three actions in turn. After it the dealer can no longer
// declare a misdeal; the floor still can.
func (h *Hand) SubstantialAction() bool {
	st := &h.s
	return st.Street != h.firstStreet() || st.FirstActs >= 3 || st.FirstActs >= 2 && st.FirstPaid >= 1
}

// Misdealt reports whether the hand was declared a misdeal (G-32): void,
// every chip returned.
func (h *Hand) Misdealt() bool { return h.s.Misdealt }

// LastRound reports whether the betting round in progress is the last one
// (river, 7th street): no street follows it.
func (h *Hand) LastRound() bool { return h.lastStreet() || h.s.RunOut }

// known reports whether every card of p's hand is known.
func (h *Hand) known(p *seat) bool {
	for _, c := range p.Hole[:p.N] {
		if !c.Valid() {
			return false
		}
	}
	return true
}

// down counts p's face-down cards, and those of them still unknown.
func down(p *seat) (n, unknown int) {
	for k := uint8(0); k < p.N; k++ {
		if p.Up&(1<<k) != 0 {
			continue
		}
		n++
		if !p.Hole[k].Valid() {
			unknown++
		}
	}
	return n, unknown
}

// seenElsewhere reports whether c is already in the hand other than among
// seat p's own cards: on the board, in another seat's hand, burned by an
// overdeal (TP-78).
func (h *Hand) seenElsewhere(c cards.Card, p *seat) bool {
	st := &h.s
	if slices.Contains(st.Board[:st.NBoard], c) || slices.Contains(st.Burned, c) {
		return true
	}
	for i := range st.Seats {
		if q := &st.Seats[i]; q != p && slices.Contains(q.Hole[:q.N], c) {
			return true
		}
	}
	return false
}

// checkNew checks cards entered for the table: real cards, each once, none
// already seen in the hand (other than among p's own cards when p is not
// nil). rule names the rule a duplicate breaks.
func (h *Hand) checkNew(cs []cards.Card, p *seat, rule string) *refusal.Error {
	for k, c := range cs {
		if !c.Valid() {
			return ruleErr(rule, refusal.BadCard, "not a card")
		}
		if slices.Contains(cs[:k], c) || h.seenElsewhere(c, p) {
			return ruleErr(rule, refusal.DuplicateCard, "a card already seen in this hand: the deck holds each card once")
		}
	}
	return nil
}

// checkHandCards checks cards entered for p's face-down cards: full means
// the entry is the whole of them (a tabled hand, a hole card entry),
// otherwise some (an exposure). Cards of p already known must be among a
// full entry; none may be seen elsewhere.
func (h *Hand) checkHandCards(p *seat, cs []cards.Card, full bool, rule string) *refusal.Error {
	n, unknown := down(p)
	switch {
	case full && len(cs) != n:
		return rangeErr("TP-55", refusal.WrongCardCount, "the seat holds "+strconv.Itoa(n)+" face-down cards: a hand of the wrong number is dead", int64(n), int64(n))
	case !full && (len(cs) == 0 || len(cs) > n):
		return rangeErr(rule, refusal.WrongCardCount, "the exposed cards of a "+strconv.Itoa(n)+"-card hand", 1, int64(n))
	}
	if err := h.checkNew(cs, p, rule); err != nil {
		return err
	}
	fresh := 0
	for k := uint8(0); k < p.N; k++ {
		if c := p.Hole[k]; p.Up&(1<<k) == 0 && c.Valid() && full && !slices.Contains(cs, c) {
			return ruleErr(rule, refusal.BadCard, "the seat's cards seen before are not among those entered")
		}
	}
	for _, c := range cs {
		if !slices.Contains(p.Hole[:p.N], c) {
			fresh++
		}
	}
	if fresh > unknown {
		return ruleErr(rule, refusal.BadCard, "more new cards than the seat's unknown cards")
	}
	return nil
}

// checkTabled checks a hand tabled at the showdown (Show, or a mucked hand
// shown on request): with physical cards the dealer enters its face-down
// cards, unless they are all known already.
func (h *Hand) checkTabled(p *seat, cs []cards.Card, rule string) *refusal.Error {
	if !h.cfg.Physical {
		if len(cs) > 0 {
			return ruleErr("", refusal.CardsNotExpected, "the cards were dealt by the engine")
		}
		return nil
	}
	if n, unknown := down(p); len(cs) == 0 {
		if unknown == 0 {
			return nil
		}
		return rangeErr(rule, refusal.WrongCardCount, "enter the cards the seat tables: the cards speak (TP-68)", int64(n), int64(n))
	}
	return h.checkHandCards(p, cs, true, "TP-68")
}

// fillDown puts the entered cards into p's unknown face-down positions, in
// order; cards p already holds keep their place.
func (h *Hand) fillDown(p *seat, cs []cards.Card) {
	for _, c := range cs {
		if slices.Contains(p.Hole[:p.N], c) {
			continue
		}
		for k := uint8(0); k < p.N; k++ {
			if p.Up&(1<<k) == 0 && !p.Hole[k].Valid() {
				p.Hole[k] = c
				break
			}
		}
	}
}

// awaitStreet sets what the street st.Street awaits with physical cards:
// the board cards (flop games, a stud community card when the deck cannot
// give everyone one), or each live seat's up card (stud 4th–6th). A 7th
// street down card is dealt unknown at once.
func (h *Hand) awaitStreet() {
	st := &h.s
	if h.cfg.Burn {
		st.Dealt++ // the dealer burns one
	}
	if !h.cfg.Game.IsStud() {
		st.Await.Board = 1
		if st.Street == Flop {
			st.Await.Board = 3
		}
		return
	}
	if st.Street == Seventh && cards.NumCards-st.Dealt < h.live() {
		st.Await.Board = 1 // not enough cards for everyone: one community card
		return
	}
	h.eachLive(func(p *seat) {
		p.Hole[p.N] = h.drawPrivate()
		if st.Street == Seventh {
			p.N++
			e := Event{Kind: EvDealHole, Seat: p.Seat, Street: st.Street, NCards: 1}
			e.Cards[0] = cards.Unknown
			h.emit(e)
			return
		}
		p.Up |= 1 << p.N
		p.N++
		st.Await.Up |= 1 << p.Seat
	})
}

// cardsRule is the rule an entry of a street's board cards applies when
// the count is off: more cards than the street holds is an overdeal.
func boardCountErr(want, got int) *refusal.Error {
	switch {
	case got == want+1:
		return rangeErr("TP-78", refusal.WrongCardCount, "one card too many on the board: the floor corrects the overdeal", int64(want), int64(want))
	case got > want:
		return rangeErr("TP-79", refusal.WrongCardCount, "cards too many on the board: the floor corrects the overdeal", int64(want), int64(want))
	}
	return rangeErr("", refusal.WrongCardCount, "the street's cards", int64(want), int64(want))
}

// applyDealBoard puts the awaited community cards on the board.
func (h *Hand) applyDealBoard(a Action) *refusal.Error {
	st := &h.s
	switch {
	case !h.cfg.Physical:
		return ruleErr("", refusal.CardsNotExpected, "the engine deals the board at this table")
	case a.By == RolePlayer:
		return ruleErr("", refusal.RoleRequired, "the dealer enters the cards")
	case st.Phase != PhaseBetting || st.Await.Board == 0:
		return ruleErr("", refusal.CardsNotExpected, "no street awaits its board cards")
	case len(a.Cards) != st.Await.Board:
		return boardCountErr(st.Await.Board, len(a.Cards))
	}
	if err := h.checkNew(a.Cards, nil, "G-32"); err != nil {
		return err
	}
	if st.Street == Turn {
		for _, c := range a.Cards {
			if slices.Contains(st.SetAside, c) {
				return ruleErr("G-10", refusal.BadCard, "the turn card dealt too early was set aside: the next card is the turn")
			}
		}
	}
	h.dealBoardCards(a.Cards)
	st.Await.Board = 0
	if st.Street == River {
		st.SetAside = st.SetAside[:0] // G-10: reshuffled into the stub before the river
	}
	h.resume()
	return nil
}

// dealBoardCards puts cs on the board for st.Street (a stud 7th street
// community card in Board[0]).
func (h *Hand) dealBoardCards(cs []cards.Card) {
	st := &h.s
	e := Event{Kind: EvDealBoard, Seat: -1, Street: st.Street, NCards: uint8(len(cs))}
	for j, c := range cs {
		st.Board[st.NBoard] = c
		st.NBoard++
		e.Cards[j] = c
	}
	st.Dealt += len(cs)
	h.emit(e)
}

// applyDealSeat enters a seat's cards: its awaited up card, the cards of
// its hand turned face up (TP-45, G-22, TP-58), or its hole cards where the
// house enters them (Config.HoleEntry).
func (h *Hand) applyDealSeat(i int, a Action) *refusal.Error {
	st := &h.s
	p := &st.Seats[i]
	switch {
	case !h.cfg.Physical:
		return ruleErr("", refusal.CardsNotExpected, "the engine deals the cards at this table")
	case a.By == RolePlayer:
		return ruleErr("", refusal.RoleRequired, "the dealer enters the cards")
	case st.Phase == PhaseDone:
		return ruleErr("", refusal.HandOver, "the hand is over")
	}
	if st.Await.Up&(1<<p.Seat) != 0 && len(a.Cards) == 1 {
		if err := h.checkNew(a.Cards, nil, "G-32"); err != nil {
			return err
		}
		k := p.N - 1 // the up card awaited is the seat's last card
		p.Hole[k] = a.Cards[0]
		st.Dealt++
		e := Event{Kind: EvDealUp, Seat: p.Seat, Street: st.Street, NCards: 1}
		e.Cards[0] = a.Cards[0]
		h.emit(e)
		st.Await.Up &^= 1 << p.Seat
		if !st.Await.pending() {
			h.resume()
		}
		return nil
	}
	switch {
	case p.Exposed && !p.Folded:
		full := p.ExposedBy != "TP-58"
		if err := h.checkHandCards(p, a.Cards, full, p.ExposedBy); err != nil {
			return err
		}
		h.fillDown(p, a.Cards)
		if full {
			// A hand turned up when the betting was over (TP-45, G-22) is
			// tabled: it is judged at the showdown.
			p.Shown = true
			h.evalSeat(p)
		}
		h.emitKnown(EvExpose, p, p.ExposedBy)
		return nil
	case h.cfg.HoleEntry:
		if err := h.checkHandCards(p, a.Cards, true, ""); err != nil {
			return err
		}
		h.fillDown(p, a.Cards)
		e := Event{Kind: EvHoleEntry, Seat: p.Seat, Street: st.Street}
		for k := uint8(0); k < p.N; k++ {
			if p.Up&(1<<k) == 0 {
				e.Cards[e.NCards] = p.Hole[k]
				e.NCards++
			}
		}
		h.emit(e)
		return nil
	}
	return ruleErr("", refusal.CardsNotExpected, "the house does not enter hole cards at this table, and the seat's cards are not awaited or exposed")
}

// emitKnown emits the known cards of p (an exposure of some of them).
func (h *Hand) emitKnown(k EventKind, p *seat, rule string) {
	e := Event{Kind: k, Seat: p.Seat, Rule: rule}
	for _, c := range p.Hole[:p.N] {
		if c.Valid() {
			e.Cards[e.NCards] = c
			e.NCards++
		}
	}
	h.emit(e)
}

// applyExpose marks seat i's hole cards exposed before the betting ended
// (TP-58): shown to all, the hand awaits the floor's ruling.
func (h *Hand) applyExpose(i int, a Action) *refusal.Error {
	st := &h.s
	p := &st.Seats[i]
	switch {
	case h.cfg.Mode != Live:
		return ruleErr("TP-58", refusal.ActionNotAllowed, "an exposure cannot happen in digital mode")
	case a.By == RolePlayer:
		return ruleErr("TP-58", refusal.RoleRequired, "the dealer marks an exposure")
	case st.Phase != PhaseBetting || p.Folded:
		return ruleErr("TP-58", refusal.ActionNotAllowed, "no live hand before the betting ended")
	}
	if err := h.markExposed(p, a.Cards); err != nil {
		return err
	}
	st.Undo = undoFold{}
	p.ExposePending = true
	return nil
}

// markExposed records p's exposed cards (physical: those entered; else the
// whole hand) and shows them to all under TP-58.
func (h *Hand) markExposed(p *seat, cs []cards.Card) *refusal.Error {
	if !h.cfg.Physical {
		if len(cs) > 0 {
			return ruleErr("", refusal.CardsNotExpected, "the cards were dealt by the engine")
		}
		if !p.Exposed {
			p.Exposed, p.ExposedBy = true, "TP-58"
			h.emitCards(EvExpose, p, "TP-58")
		}
		return nil
	}
	if len(cs) == 0 && p.Exposed {
		return nil // marked before, with its cards
	}
	if err := h.checkHandCards(p, cs, false, "TP-58"); err != nil {
		return err
	}
	h.fillDown(p, cs)
	p.Exposed, p.ExposedBy = true, "TP-58"
	h.emitKnown(EvExpose, p, "TP-58")
	return nil
}

// applyMisdeal voids the hand (G-32): every chip goes back.
func (h *Hand) applyMisdeal(a Action) *refusal.Error {
	st := &h.s
	switch {
	case h.cfg.Mode != Live:
		return ruleErr("G-32", refusal.ActionNotAllowed, "a misdeal cannot happen in digital mode")
	case a.By == RolePlayer:
		return ruleErr("G-32", refusal.RoleRequired, "the dealer or floor declares a misdeal")
	case st.Phase == PhaseDone:
		return ruleErr("", refusal.HandOver, "the hand is over")
	case a.By != RoleFloor && h.SubstantialAction():
		return ruleErr("G-32", refusal.RoleRequired, "substantial action has occurred: only the floor declares a misdeal now")
	}
	h.emit(Event{Kind: EvMisdeal, Seat: -1, Rule: "G-32", Street: st.Street})
	for i := range st.Seats {
		p := &st.Seats[i]
		if d := p.Start - p.Stack; d > 0 {
			h.emit(Event{Kind: EvReturn, Seat: p.Seat, Amount: d, Rule: "G-32"})
		}
		p.Stack, p.Bet, p.Total, p.Dead, p.AllIn = p.Start, 0, 0, 0, false
	}
	st.Misdealt = true
	st.Phase, st.ToAct = PhaseDone, -1
	st.Await = await{}
	st.Undo = undoFold{}
	st.Pots = st.Pots[:0]
	h.emit(Event{Kind: EvHandEnd, Seat: -1})
	return nil
}

// premature records the cards of the next street dealt before a skipped
// seat could act (TP-48, G-10): a premature flop (or river) goes back into
// the stub and may come again; a premature turn card is set aside and
// cannot be the turn, but is shuffled back for the river.
func (h *Hand) premature(cs []cards.Card) *refusal.Error {
	st := &h.s
	if !h.cfg.Physical {
		return ruleErr("", refusal.CardsNotExpected, "the engine deals the cards at this table")
	}
	if h.LastRound() {
		return ruleErr("TP-48", refusal.ActionNotAllowed, "no round follows this one")
	}
	if !h.cfg.Game.IsStud() {
		want := 1
		if st.Street == Preflop {
			want = 3
		}
		if len(cs) != want {
			return rangeErr("G-10", refusal.WrongCardCount, "the cards of the next street", int64(want), int64(want))
		}
	}
	if err := h.checkNew(cs, nil, "G-10"); err != nil {
		return err
	}
	if st.Street == Flop && !h.cfg.Game.IsStud() {
		st.SetAside = append(st.SetAside[:0], cs...)
	}
	e := Event{Kind: EvOverdeal, Seat: -1, Rule: "G-10", Street: st.Street + 1, NCards: uint8(len(cs))}
	copy(e.Cards[:], cs)
	h.emit(e)
	return nil
}

// potAward is the floor's award of a pot (WinnerEntry): the seat indexes
// of the high and low winners. The chips move when every pot is decided,
// so that no stack holds chips of a pot still on the table.
type potAward struct {
	Pot int   `json:"pot"`
	Hi  []int `json:"hi"`
	Lo  []int `json:"lo,omitempty"`
}

// startAwards opens the floor's pot awards at the showdown of a table that
// enters the winners (Config.WinnerEntry): the pots are built at once; a
// pot only one seat can win goes to it.
func (h *Hand) startAwards() {
	st := &h.s
	h.buildPots()
	st.Awards = st.Awards[:0]
	for k := range st.Pots {
		if pr := &st.Pots[k]; onlyOne(pr.Eligible) {
			st.Awards = append(st.Awards, potAward{Pot: k, Hi: []int{h.indexOf(pr.EligibleSeats()[0])}})
		}
	}
	h.finishAwards()
}

func onlyOne(mask uint16) bool { return mask != 0 && mask&(mask-1) == 0 }

func (h *Hand) decided(pot int) bool {
	return slices.ContainsFunc(h.s.Awards, func(a potAward) bool { return a.Pot == pot })
}

// finishAwards pays the pots once every one is decided, each on its own
// (TP-77) and split as a showdown splits it (TP-73, TP-74, TP-76), and
// ends the hand.
func (h *Hand) finishAwards() {
	st := &h.s
	for k := range st.Pots {
		if !h.decided(k) {
			return
		}
	}
	slices.SortFunc(st.Awards, func(a, b potAward) int { return a.Pot - b.Pot })
	for _, a := range st.Awards {
		pr := &st.Pots[a.Pot]
		if len(a.Lo) == 0 {
			h.split(a.Pot, pr, pr.Amount, slices.Clone(a.Hi), false)
			continue
		}
		cu := h.cfg.Stakes.ChipUnit
		units, rest := pr.Amount/cu, pr.Amount%cu
		hiAmt := (units+1)/2*cu + rest // TP-76: an odd unit to the high half
		h.split(a.Pot, pr, hiAmt, slices.Clone(a.Hi), false)
		h.split(a.Pot, pr, pr.Amount-hiAmt, slices.Clone(a.Lo), true)
	}
	st.Phase, st.ToAct = PhaseDone, -1
	h.emit(Event{Kind: EvHandEnd, Seat: -1})
}

// PendingPot is a pot the floor has still to award: its index (0 the main
// pot) and what it holds.
type PendingPot struct {
	Pot int `json:"pot"`
	PotResult
}

// PotsToAward returns the pots the floor has still to award at the
// showdown of a table that enters the winners.
func (h *Hand) PotsToAward() []PendingPot {
	st := &h.s
	if !h.cfg.WinnerEntry || st.Phase != PhaseShowdown {
		return nil
	}
	var out []PendingPot
	for k, pr := range st.Pots {
		if !h.decided(k) {
			out = append(out, PendingPot{Pot: k, PotResult: PotResult{Amount: pr.Amount, Eligible: pr.Eligible}})
		}
	}
	return out
}

// applyAwardPot records the floor's award of pot a.Pot to the winners it
// entered; the pots are paid when all are decided (finishAwards).
func (h *Hand) applyAwardPot(a Action) *refusal.Error {
	st := &h.s
	switch {
	case !h.cfg.WinnerEntry:
		return ruleErr("TP-68", refusal.ActionNotAllowed, "the tabled cards decide the pots at this table")
	case a.By != RoleFloor:
		return ruleErr("TP-68", refusal.RoleRequired, "the floor confirms the winners")
	case st.Phase != PhaseShowdown:
		return ruleErr("", refusal.ActionNotAllowed, "no pot to award now")
	case a.Pot < 0 || a.Pot >= len(st.Pots) || h.decided(a.Pot):
		return ruleErr("", refusal.ActionNotAllowed, "no such pot to award")
	case len(a.Winners) == 0:
		return ruleErr("", refusal.NotEligible, "name the pot's winners")
	case len(a.LowWinners) > 0 && !h.cfg.Game.IsHiLo():
		return ruleErr("G-17", refusal.NotEligible, "only a hi/lo game has a low half")
	}
	pr := &st.Pots[a.Pot]
	var hi, lo []int
	for _, set := range []struct {
		seats []int
		out   *[]int
	}{{a.Winners, &hi}, {a.LowWinners, &lo}} {
		for k, s := range set.seats {
			i := h.indexOf(s)
			if i < 0 || s < 0 || s > 9 || pr.Eligible&(1<<s) == 0 || slices.Contains(set.seats[:k], s) {
				return ruleErr("TP-44", refusal.NotEligible, "seat "+strconv.Itoa(s)+" cannot win this pot")
			}
			*set.out = append(*set.out, i)
		}
	}
	st.Awards = append(st.Awards, potAward{Pot: a.Pot, Hi: hi, Lo: lo})
	h.finishAwards()
	return nil
}

// Dealt returns events with the face-down cards of each deal (EvDealHole)
// that were unknown when dealt filled in from what h came to know of them
// (entered by the house, exposed, tabled at the showdown): the hand as it
// was dealt, for its history. A card never seen stays cards.Unknown: a hand
// mucked unseen at a live table is unknown, not invented. events are not
// changed.
func Dealt(events []Event, h *Hand) []Event {
	out := slices.Clone(events)
	dealt := map[int]int{} // seat → face-down cards dealt so far
	for i := range out {
		e := &out[i]
		if e.Kind != EvDealHole {
			continue
		}
		j := h.indexOf(e.Seat)
		if j < 0 {
			continue
		}
		p := &h.s.Seats[j]
		var downCards []cards.Card
		for k := uint8(0); k < p.N; k++ {
			if p.Up&(1<<k) == 0 {
				downCards = append(downCards, p.Hole[k])
			}
		}
		for k := range int(e.NCards) {
			if n := dealt[e.Seat] + k; !e.Cards[k].Valid() && n < len(downCards) {
				e.Cards[k] = downCards[n]
			}
		}
		dealt[e.Seat] += int(e.NCards)
	}
	return out
}
