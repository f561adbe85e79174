package engine

import (
	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/engine/refusal"
)

// PotResult is one pot as awarded: main pot first, then side pots (TP-44).
// Each pot is split on its own (TP-77).
type PotResult struct {
	Amount int64 `json:"amount"`
	// Eligible is a bitmask of the seat numbers that may win the pot (bit s = seat s).
	Eligible uint16  `json:"eligible"`
	Winners  []Award `json:"winners"`
}

// EligibleSeats lists the seats that may win the pot.
func (p PotResult) EligibleSeats() []int {
	var out []int
	for s := 0; s < 10; s++ {
		if p.Eligible&(1<<s) != 0 {
			out = append(out, s)
		}
	}
	return out
}

// Award is a share of a pot won by Seat; Low marks the low half of a hi/lo pot.
type Award struct {
	Seat   int   `json:"seat"`
	Amount int64 `json:"amount"`
	Low    bool  `json:"low,omitempty"`
}

// bringInIndex picks the stud bring-in: the lowest up card (suits clubs <
// diamonds < hearts < spades break ties, G-09), or in razz the highest up
// card with the ace low (the highest suit brings it in). Only seats with
// chips behind can bring it in.
func (h *Hand) bringInIndex() int {
	best := -1
	var bestKey int
	for i := range h.s.Seats {
		p := &h.s.Seats[i]
		if p.Folded || p.Stack == 0 {
			continue
		}
		c := p.Hole[2]
		var key int // lower key brings in
		if h.cfg.Game == Razz {
			key = -(lowRank(c)*4 + int(c.Suit()))
		} else {
			key = int(c)
		}
		if best < 0 || key < bestKey {
			best, bestKey = i, key
		}
	}
	return best
}

// bestShowing is the index of the live seat with the best up cards (razz:
// the lowest); ties go to the first clockwise from the button.
func (h *Hand) bestShowing() int {
	n := len(h.s.Seats)
	start := h.firstLeftOf(h.s.Button)
	best := -1
	var bestV uint32
	for k := 0; k < n; k++ {
		i := (start + k) % n
		p := &h.s.Seats[i]
		if p.Folded {
			continue
		}
		h.buf = p.upCards(h.buf[:0])
		v := showingValue(h.buf, h.cfg.Game == Razz)
		if best < 0 || v > bestV {
			best, bestV = i, v
		}
	}
	if best < 0 {
		return start
	}
	return best
}

// openPair reports whether any live seat's two up cards pair (TP-28). TP-28
// names seven-card stud alone: Stud Hi/Lo has no open-pair option unless
// the profile gives it one (G-46), nor does razz.
func (h *Hand) openPair() bool {
	if h.cfg.Game != Stud && (h.cfg.Game != StudHiLo || !h.cfg.Profile.StudHiLoOpenPair) {
		return false
	}
	for i := range h.s.Seats {
		p := &h.s.Seats[i]
		if p.Folded {
			continue
		}
		h.buf = p.upCards(h.buf[:0])
		if len(h.buf) == 2 && h.buf[0].Rank() == h.buf[1].Rank() {
			return true
		}
	}
	return false
}

// exposeAllIn turns every live hand face up once betting is over with an
// all-in player: always in tournaments (TP-45), on cash tables when the
// profile says so (G-22).
func (h *Hand) exposeAllIn() {
	rule := "TP-45"
	if !h.cfg.Tournament {
		if !h.cfg.Profile.CashAllInFaceUp {
			return
		}
		rule = "G-22"
	}
	for i := range h.s.Seats {
		p := &h.s.Seats[i]
		if p.Folded || p.Exposed && p.Shown {
			continue
		}
		p.Exposed, p.ExposedBy = true, rule
		if !h.known(p) {
			// Turned up at the table, not entered yet: the dealer enters
			// the hand (DealSeat) or it is tabled at the showdown (Show).
			continue
		}
		p.Shown = true
		h.evalSeat(p)
		h.emitCards(EvExpose, p, rule)
	}
}

func (h *Hand) emitCards(k EventKind, p *seat, rule string) {
	e := Event{Kind: k, Seat: p.Seat, Rule: rule, NCards: p.N}
	copy(e.Cards[:], p.Hole[:p.N])
	h.emit(e)
}

func (h *Hand) endUncontested() {
	st := &h.s
	h.returnUncalled()
	w := -1
	var total int64
	for i := range st.Seats {
		p := &st.Seats[i]
		p.Bet = 0
		total += p.Total
		if !p.Folded {
			w = i
		}
	}
	st.ToAct = -1
	st.Undo = undoFold{}
	st.Uncontest = true
	st.Phase = PhaseDone
	p := &st.Seats[w]
	pr := h.newPot()
	pr.Amount = total
	pr.Eligible = 1 << p.Seat
	h.award(0, pr, w, total, false)
	h.emit(Event{Kind: EvHandEnd, Seat: -1})
}

// newPot appends a pot to st.Pots, reusing memory.
func (h *Hand) newPot() *PotResult {
	st := &h.s
	if len(st.Pots) < cap(st.Pots) {
		st.Pots = st.Pots[:len(st.Pots)+1]
		pr := &st.Pots[len(st.Pots)-1]
		*pr = PotResult{Winners: pr.Winners[:0]}
		return pr
	}
	st.Pots = append(st.Pots, PotResult{})
	return &st.Pots[len(st.Pots)-1]
}

func (h *Hand) award(pot int, pr *PotResult, i int, amount int64, low bool) {
	p := &h.s.Seats[i]
	p.Stack += amount
	p.Won += amount
	pr.Winners = append(pr.Winners, Award{Seat: p.Seat, Amount: amount, Low: low})
	h.emit(Event{Kind: EvAward, Seat: p.Seat, Amount: amount, Pot: pot, Low: low})
}

// evalSeat computes a live seat's showdown values.
func (h *Hand) evalSeat(p *seat) {
	st := &h.s
	board := st.Board[:st.NBoard]
	switch h.cfg.Game {
	case Holdem:
		h.buf = append(append(h.buf[:0], p.Hole[:p.N]...), board...)
		p.Hi = highValue(h.buf)
	case Omaha, OmahaHiLo:
		p.Hi = omahaHigh(p.Hole[:p.N], board)
		if h.cfg.Game == OmahaHiLo {
			p.Lo, p.LoOK = omahaLow8(p.Hole[:p.N], board)
		}
	default:
		h.buf = append(append(h.buf[:0], p.Hole[:p.N]...), board...)
		switch h.cfg.Game {
		case Razz:
			p.Hi = razzValue(h.buf)
		default:
			p.Hi = highValue(h.buf)
			if h.cfg.Game == StudHiLo {
				p.Lo, p.LoOK = low8Value(h.buf)
			}
		}
	}
}

// firstToShow applies TP-62 and TP-63 (001 governs, C-02).
func (h *Hand) firstToShow() int {
	st := &h.s
	if a := st.FinalAggr; a >= 0 && !st.Seats[a].Folded {
		return a // TP-62
	}
	if a := st.HandAggr; a >= 0 && !st.Seats[a].Folded {
		return a // TP-63: last aggressor of the hand
	}
	if h.cfg.Game.IsStud() {
		return h.bestShowing() // TP-63 stud, G-09
	}
	n := len(st.Seats)
	start := h.firstLeftOf(st.Button)
	for k := 0; k < n; k++ {
		if i := (start + k) % n; !st.Seats[i].Folded {
			return i
		}
	}
	return start
}

func (h *Hand) startShowdown() {
	st := &h.s
	st.Phase = PhaseShowdown
	st.ToAct = -1
	for i := range st.Seats {
		if p := &st.Seats[i]; !p.Folded && h.known(p) {
			h.evalSeat(p)
		}
	}
	if h.cfg.WinnerEntry {
		h.startAwards()
		return
	}
	first := h.firstToShow()
	n := len(st.Seats)
	st.Order = st.Order[:0]
	for k := 0; k < n; k++ {
		if i := (first + k) % n; !st.Seats[i].Folded {
			st.Order = append(st.Order, i)
		}
	}
	st.ShowPos = 0
	h.advanceShowdown()
}

func (h *Hand) requestPending(except int) bool {
	for i := range h.s.Seats {
		if p := &h.s.Seats[i]; i != except && p.Requestable && p.Mucked {
			return true
		}
	}
	return false
}

// requested is the index of the mucked last-bettor hand that seat i may
// ask to see (TP-65), or -1.
func (h *Hand) requested(i int) int {
	for j := range h.s.Seats {
		if p := &h.s.Seats[j]; j != i && p.Requestable && p.Mucked {
			return j
		}
	}
	return -1
}

func (h *Hand) othersHolding(i int) bool {
	for j := range h.s.Seats {
		if p := &h.s.Seats[j]; j != i && !p.Folded && !p.Mucked {
			return true
		}
	}
	return false
}

// canWin reports whether seat i could still win or tie some pot against
// the hands already shown (TP-66 auto-muck otherwise). The pot that is
// hardest for i is the highest one it is eligible for.
func (h *Hand) canWin(i int) bool {
	st := &h.s
	p := &st.Seats[i]
	if !h.known(p) {
		return true // physical cards not tabled yet: the cards speak when they are (TP-68)
	}
	hiBeaten, loBeaten := false, !p.LoOK
	for j := range st.Seats {
		q := &st.Seats[j]
		if j == i || q.Folded || q.Mucked || !q.Shown || q.contribution() < p.contribution() {
			continue
		}
		if q.Hi > p.Hi {
			hiBeaten = true
		}
		if p.LoOK && q.LoOK && q.Lo > p.Lo {
			loBeaten = true
		}
	}
	return !hiBeaten || !loBeaten
}

// advanceShowdown moves the showdown to the next decision or finishes it.
func (h *Hand) advanceShowdown() {
	st := &h.s
	st.ToAct = -1
	for st.ShowPos < len(st.Order) {
		i := st.Order[st.ShowPos]
		p := &st.Seats[i]
		if p.Folded || p.Mucked || p.Shown {
			st.ShowPos++
			continue
		}
		if !h.othersHolding(i) {
			if h.requestPending(i) {
				st.ToAct = i
				return
			}
			break // TP-64: the last hand holding cards wins unshown
		}
		if !h.canWin(i) {
			p.Mucked, p.AutoMucked = true, true
			st.MuckSeq++
			p.MuckSeq = st.MuckSeq
			h.emit(Event{Kind: EvMuck, Seat: p.Seat, Rule: "TP-66"})
			st.ShowPos++
			continue
		}
		st.ToAct = i
		return
	}
	h.finishShowdown()
}

func (h *Hand) showdownLegal() {
	st := &h.s
	if st.ToAct < 0 || st.Seats[st.ToAct].ExposePending {
		return
	}
	s := st.Seats[st.ToAct].Seat
	if !h.othersHolding(st.ToAct) {
		h.legal = append(h.legal, Legal{Seat: s, Kind: Show}, Legal{Seat: s, Kind: RequestShow}, Legal{Seat: s, Kind: Waive})
		return
	}
	h.legal = append(h.legal, Legal{Seat: s, Kind: Show})
	if p := &st.Seats[st.ToAct]; !p.Exposed || p.ExposedBy == "TP-58" {
		// A hand turned up when the betting was over (TP-45, G-22) is
		// tabled, not mucked.
		h.legal = append(h.legal, Legal{Seat: s, Kind: Muck})
	}
	if h.requestPending(st.ToAct) {
		h.legal = append(h.legal, Legal{Seat: s, Kind: RequestShow})
	}
}

func (h *Hand) checkShowdown(i int, a Action) *refusal.Error {
	st := &h.s
	if i != st.ToAct {
		return ruleErr("TP-66", refusal.OutOfTurn, "not this seat's turn to show")
	}
	p := &st.Seats[i]
	if p.ExposePending && a.Kind != Timeout {
		return ruleErr("TP-58", refusal.FloorPending, "the floor rules on the exposed hand first")
	}
	last := !h.othersHolding(i)
	switch a.Kind {
	case Show:
		return h.checkTabled(p, a.Cards, "TP-67")
	case Timeout:
		return nil
	case Muck:
		if last {
			return ruleErr("TP-64", refusal.ActionNotAllowed, "the last hand holding cards wins: show, request or waive")
		}
		if p.Exposed && p.ExposedBy != "TP-58" {
			return ruleErr(p.ExposedBy, refusal.ActionNotAllowed, "the hand was turned face up: it is tabled, not mucked")
		}
		return nil
	case RequestShow:
		if !h.requestPending(i) {
			return ruleErr("TP-65", refusal.ActionNotAllowed, "no mucked last-bettor hand to request")
		}
		if q := h.requested(i); q >= 0 {
			return h.checkTabled(&st.Seats[q], a.Cards, "TP-65")
		}
		return nil
	case Waive:
		if !last {
			return ruleErr("TP-65", refusal.ActionNotAllowed, "only the last hand holding cards waives")
		}
		return nil
	}
	return ruleErr("TP-61", refusal.ActionNotAllowed, a.Kind.String()+" is not a showdown action")
}

func (h *Hand) execShowdown(i int, a Action) {
	st := &h.s
	p := &st.Seats[i]
	switch a.Kind {
	case Show:
		if h.cfg.Physical {
			h.fillDown(p, a.Cards)
			h.evalSeat(p)
			if !h.canWin(i) {
				// TP-66: a hand that does not beat the best hand shown is
				// mucked without being shown to the table; its cards stay
				// in the history of the players seated.
				p.Mucked, p.AutoMucked = true, true
				st.MuckSeq++
				p.MuckSeq = st.MuckSeq
				h.emit(Event{Kind: EvMuck, Seat: p.Seat, Rule: "TP-66"})
				break
			}
		}
		p.Shown = true
		h.emitCards(EvShow, p, "TP-67")
	case Muck, Timeout:
		if !h.othersHolding(i) { // a timeout of the last holder waives
			h.clearRequests()
			break
		}
		p.Mucked = true
		st.MuckSeq++
		p.MuckSeq = st.MuckSeq
		rule := "TP-64"
		if a.Kind == Timeout {
			rule = "TP-59"
		}
		if i == st.FinalAggr {
			p.Requestable = true // TP-65: the caller may ask to see it
		}
		h.emit(Event{Kind: EvMuck, Seat: p.Seat, Rule: rule})
	case RequestShow:
		for j := range st.Seats {
			if q := &st.Seats[j]; j != i && q.Requestable && q.Mucked {
				if h.cfg.Physical {
					h.fillDown(q, a.Cards)
					h.evalSeat(q)
				}
				q.Mucked, q.Requestable, q.Shown = false, false, true
				h.emitCards(EvExpose, q, "TP-65") // shown on request: live
			}
		}
		// The shown hand may come before the requester in the order.
		st.ShowPos = 0
	case Waive:
		h.clearRequests()
		h.finishShowdown()
		return
	}
	h.advanceShowdown()
}

func (h *Hand) clearRequests() {
	for j := range h.s.Seats {
		h.s.Seats[j].Requestable = false
	}
}

// contribution is what p put in that counts toward the pot levels (TP-44):
// everything but the dead money that goes straight to the main pot.
func (p *seat) contribution() int64 { return p.Total - p.Dead }

// finishShowdown builds the pots from contribution levels (TP-44) and
// awards each on its own (TP-77). Dead money (a dead small blind, a
// big-blind ante) goes to the main pot: it is nobody's contribution, so it
// can never come back to its poster as a side pot only they can win.
func (h *Hand) finishShowdown() {
	st := &h.s
	st.ToAct = -1
	st.Phase = PhaseDone
	h.buildPots()
	for k := range st.Pots {
		h.awardPot(k, &st.Pots[k])
	}
	h.emit(Event{Kind: EvHandEnd, Seat: -1})
}

// buildPots builds the pots from contribution levels (TP-44), unawarded.
func (h *Hand) buildPots() {
	st := &h.s
	var levels [10]int64
	nl := 0
	var dead int64
	for i := range st.Seats {
		p := &st.Seats[i]
		dead += p.Dead
		if p.Folded {
			continue
		}
		t := p.contribution()
		j := nl
		for j > 0 && levels[j-1] > t {
			levels[j] = levels[j-1]
			j--
		}
		if j > 0 && levels[j-1] == t {
			for k := j; k < nl; k++ {
				levels[k] = levels[k+1]
			}
			continue
		}
		levels[j] = t
		nl++
	}
	prev := int64(0)
	for li := 0; li < nl; li++ {
		L := levels[li]
		var amount int64
		var elig uint16
		for i := range st.Seats {
			p := &st.Seats[i]
			c := p.contribution()
			amount += min(c, L) - min(c, prev)
			if !p.Folded && c >= L {
				elig |= 1 << p.Seat
			}
		}
		if li == 0 {
			amount += dead
		}
		if li == nl-1 { // folded players' money above the last live level
			for i := range st.Seats {
				c := st.Seats[i].contribution()
				amount += c - min(c, L)
			}
		}
		prev = L
		if amount == 0 {
			continue
		}
		pr := h.newPot()
		pr.Amount = amount
		pr.Eligible = elig
	}
}

func (h *Hand) awardPot(pot int, pr *PotResult) {
	st := &h.s
	var cont [10]int
	nc := 0
	lastMuck, lastMuckSeq := -1, -1
	for i := range st.Seats {
		p := &st.Seats[i]
		if pr.Eligible&(1<<p.Seat) == 0 {
			continue
		}
		if p.Mucked {
			if p.MuckSeq > lastMuckSeq {
				lastMuck, lastMuckSeq = i, p.MuckSeq
			}
			continue
		}
		cont[nc] = i
		nc++
	}
	switch nc {
	case 0: // everyone eligible mucked: the last to give up held cards last
		h.award(pot, pr, lastMuck, pr.Amount, false)
		return
	case 1:
		h.award(pot, pr, cont[0], pr.Amount, false)
		return
	}
	var hiW, loW [10]int
	nh, nlo := 0, 0
	var bestHi, bestLo uint32
	for _, i := range cont[:nc] {
		p := &st.Seats[i]
		switch {
		case nh == 0 || p.Hi > bestHi:
			bestHi, nh = p.Hi, 0
			hiW[nh] = i
			nh++
		case p.Hi == bestHi:
			hiW[nh] = i
			nh++
		}
		if !p.LoOK {
			continue
		}
		switch {
		case nlo == 0 || p.Lo > bestLo:
			bestLo, nlo = p.Lo, 0
			loW[nlo] = i
			nlo++
		case p.Lo == bestLo:
			loW[nlo] = i
			nlo++
		}
	}
	if nlo == 0 {
		h.split(pot, pr, pr.Amount, hiW[:nh], false)
		return
	}
	// TP-76: an odd unit goes to the high half.
	cu := h.cfg.Stakes.ChipUnit
	units, rest := pr.Amount/cu, pr.Amount%cu
	hiAmt := (units+1)/2*cu + rest
	h.split(pot, pr, hiAmt, hiW[:nh], false)
	h.split(pot, pr, pr.Amount-hiAmt, loW[:nlo], true)
}

// split divides amount among winners in chip units (TP-73): at most one
// odd unit each, in the order of TP-74 (clockwise from the button) or
// TP-75 (stud: highest card by suit, G-09).
func (h *Hand) split(pot int, pr *PotResult, amount int64, winners []int, low bool) {
	if len(winners) == 1 {
		h.award(pot, pr, winners[0], amount, low)
		return
	}
	st := &h.s
	key := func(i int) int {
		p := &st.Seats[i]
		if h.cfg.Game.IsStud() {
			hi := cards.Card(0)
			for _, c := range p.Hole[:p.N] {
				if c.Valid() { // a hand the floor awarded unseen (WinnerEntry)
					hi = max(hi, c)
				}
			}
			return -int(hi)
		}
		return (p.Seat - st.Button + 9) % 10
	}
	for a := 1; a < len(winners); a++ {
		for b := a; b > 0 && key(winners[b]) < key(winners[b-1]); b-- {
			winners[b], winners[b-1] = winners[b-1], winners[b]
		}
	}
	cu := h.cfg.Stakes.ChipUnit
	units, rest := amount/cu, amount%cu
	k := int64(len(winners))
	share, extra := units/k, units%k
	for idx, i := range winners {
		amt := share * cu
		if int64(idx) < extra {
			amt += cu
		}
		if idx == 0 {
			amt += rest
		}
		h.award(pot, pr, i, amt, low)
	}
}
