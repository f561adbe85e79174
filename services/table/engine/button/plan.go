package button

import (
	"fmt"
	"github.com/cardroom/cardroom/services/table/engine/refusal"
	"slices"
)

// PlanHand plans the next hand at table t: positions, posts, who is dealt in
// and who is skipped, and the seats' debts afterwards. It refuses a table
// where fewer than two players can be dealt in (TP-10) and a straddle that
// TP-20 forbids.
func PlanHand(t Table) (Plan, error) {
	if err := validate(t); err != nil {
		return Plan{}, err
	}
	p := planner{t: t, n: len(t.Seats), remaining: make([]int64, len(t.Seats))}
	for i, s := range t.Seats {
		p.remaining[i] = s.Stack
	}
	return p.plan()
}

func validate(t Table) error {
	n := len(t.Seats)
	if n < 2 || n > MaxSeats {
		return refusal.New("", refusal.BadTable, fmt.Sprintf("a table has 2 to %d seats, not %d", MaxSeats, n))
	}
	st := t.Stakes
	if st.BigBlind <= 0 || st.SmallBlind < 0 || st.SmallBlind > st.BigBlind || st.Ante < 0 {
		return refusal.New("", refusal.BadTable, fmt.Sprintf("bad stakes %d/%d ante %d", st.SmallBlind, st.BigBlind, st.Ante))
	}
	for i, s := range t.Seats {
		if s.Stack < 0 {
			return refusal.New("", refusal.BadTable, fmt.Sprintf("seat %d has a negative stack", i))
		}
	}
	pr := t.Previous
	if pr.Button < 0 || pr.Button >= n {
		return refusal.New("", refusal.BadTable, fmt.Sprintf("previous button %d is not a seat", pr.Button))
	}
	if pr.SmallBlind < NoSeat || pr.SmallBlind >= n || pr.BigBlind < NoSeat || pr.BigBlind >= n {
		return refusal.New("", refusal.BadTable, "previous blind positions are not seats")
	}
	return nil
}

type planner struct {
	t         Table
	n         int
	remaining []int64

	btn, sbPos, bb, sbPoster int
	headsUp                  bool
	dealt                    []bool
	posts                    []Post

	// dealWaiting deals in the tournament seats G-06 would keep waiting
	// between the button and the small blind: set when the wait would
	// leave fewer than two players dealt in (G-35).
	dealWaiting bool
}

func (p *planner) next(i int) int { return (i + 1) % p.n }
func (p *planner) prev(i int) int { return (i - 1 + p.n) % p.n }

// between reports whether seat s lies strictly between from and to going
// clockwise.
func (p *planner) between(s, from, to int) bool {
	if from < 0 || to < 0 {
		return false
	}
	for i := p.next(from); i != to; i = p.next(i) {
		if i == s {
			return true
		}
	}
	return false
}

// passed reports whether seat s lies in (from, to] clockwise: the seats a
// blind moving from from to to went past or landed on.
func (p *planner) passed(s, from, to int) bool {
	return from >= 0 && from != to && (s == to || p.between(s, from, to))
}

// canPlay reports whether the seat's player can take the big blind: on cash
// tables present with chips, on tournament tables with chips (C-06).
func (p *planner) canPlay(i int) bool {
	s := p.t.Seats[i]
	return s.Occupied() && s.Stack > 0 && (p.t.Tournament || !s.SittingOut)
}

// inGame reports whether the seat may post the small blind: a player who
// can play and owes nothing to get in (cash: not new, no debts).
func (p *planner) inGame(i int) bool {
	s := p.t.Seats[i]
	if !p.canPlay(i) {
		return false
	}
	return p.t.Tournament || (!s.New && !s.Debt.Owes())
}

// buttonCapable reports whether the button may rest on the seat under
// ButtonOnPlayer: a player in the game, or one about to post in (TP-16
// allows its posts only there).
func (p *planner) buttonCapable(i int) bool {
	return p.inGame(i) || (p.canPlay(i) && p.t.Seats[i].PostNow)
}

func (p *planner) nextPlayable(from int) int {
	for i := p.next(from); ; i = p.next(i) {
		if p.canPlay(i) {
			return i
		}
		if i == from {
			return NoSeat
		}
	}
}

func (p *planner) plan() (Plan, error) {
	playable := 0
	for i := range p.n {
		if p.canPlay(i) {
			playable++
		}
	}
	if playable < 2 {
		return Plan{}, refusal.New("TP-10", refusal.TooFewPlayers, fmt.Sprintf("%d player(s) can play; a hand needs two", playable))
	}
	p.headsUp = playable == 2
	first := p.t.Previous.BigBlind == NoSeat
	if first {
		p.placeFirst()
	} else {
		p.place()
	}
	p.sbPoster = NoSeat
	switch {
	case first && p.canPlay(p.sbPos):
		p.sbPoster = p.sbPos // everyone starts together: no one owes or waits
	case !first && p.inGame(p.sbPos):
		p.sbPoster = p.sbPos
	}

	skipped, order := p.deal(first)
	if len(order) < 2 && p.t.Tournament && !first {
		// G-35: the seats waiting for the button to pass (G-06) would stop
		// the table for good — no hand, so the button never passes them.
		// A tournament table with two players who can play deals: they
		// are dealt in now.
		p.dealWaiting = true
		skipped, order = p.deal(first)
	}
	if len(order) < 2 {
		return Plan{}, refusal.New("TP-10", refusal.TooFewPlayers, fmt.Sprintf("%d player(s) would be dealt in; a hand needs two", len(order)))
	}
	if len(order) == 2 && !p.headsUp {
		order = p.dealtHeadsUp(order)
	}

	p.postBlinds(first, order)
	straddler, offer, err := p.straddle(order)
	if err != nil {
		return Plan{}, err
	}

	plan := Plan{
		Positions:      Positions{Button: p.btn, SmallBlind: p.sbPos, BigBlind: p.bb},
		SmallBlindDead: p.sbPoster == NoSeat,
		HeadsUp:        p.headsUp,
		Posts:          p.posts,
		Skipped:        skipped,
		Debts:          p.debts(first),
		StraddleOffer:  offer,
		Straddler:      straddler,
	}
	for _, i := range order {
		s := p.t.Seats[i]
		plan.Players = append(plan.Players, Player{Seat: i, ID: s.Player, Stack: s.Stack, Absent: p.t.Tournament && s.SittingOut})
	}
	switch {
	case p.headsUp && p.dealt[p.btn]:
		plan.PreflopFirst = p.btn // G-04: the button posts the small blind and acts first
	case straddler != NoSeat:
		plan.PreflopFirst = p.nextDealt(straddler) // TP-20: the straddler acts last
	default:
		plan.PreflopFirst = p.nextDealt(p.bb) // TP-11
	}
	return plan, nil
}

// dealtHeadsUp plays a hand dealt to two players heads-up (G-04) even when
// more can play: a third seated player waiting for the big blind (TP-13) or
// for the button to pass (G-06). The button goes to the player not in the
// big blind, who posts the small blind when one is posted, acts first
// before the flop and last after it. Left on a seat not dealt in, the
// button would have the small blind act first after the flop, which no
// heads-up rule allows (and PHH, which orders heads-up play by G-04,
// could not record the hand). The next hand's blinds move on from this
// hand's blinds, not its button, so no one posts twice or skips a blind.
// It returns the deal order from the button's new place.
func (p *planner) dealtHeadsUp(order []int) []int {
	p.headsUp = true
	for _, i := range order {
		if i != p.bb {
			p.btn = i
		}
	}
	return p.dealOrder()
}

// deal decides who is dealt in, recording the skipped seats, and returns
// them with the deal order.
func (p *planner) deal(first bool) ([]Skip, []int) {
	p.dealt = make([]bool, p.n)
	var skipped []Skip
	for i := range p.n {
		if first {
			if p.canPlay(i) {
				p.dealt[i] = true
			} else if s := p.t.Seats[i]; s.Occupied() {
				skipped = append(skipped, p.notPlaying(i))
			}
			continue
		}
		if sk, ok := p.classify(i); ok {
			skipped = append(skipped, sk)
		}
	}
	return skipped, p.dealOrder()
}

// placeFirst places the first hand's button where it was drawn (moved on to
// the next player if that seat cannot play) and the blinds after it.
func (p *planner) placeFirst() {
	p.btn = p.t.Previous.Button
	if !p.canPlay(p.btn) {
		p.btn = p.nextPlayable(p.btn)
	}
	if p.headsUp {
		p.sbPos, p.bb = p.btn, p.nextPlayable(p.btn) // G-04
		return
	}
	p.sbPos = p.nextPlayable(p.btn)
	p.bb = p.nextPlayable(p.sbPos)
}

// place moves the big blind on, then the small blind and the button behind
// it.
func (p *planner) place() {
	prev := p.t.Previous
	p.bb = p.nextPlayable(prev.BigBlind) // the big blind always advances
	if p.headsUp {
		// G-04: the other player has the button and the small blind.
		p.btn = p.nextPlayable(p.bb)
		p.sbPos = p.btn
		return
	}
	p.sbPos = prev.BigBlind
	start := prev.SmallBlind
	if start == NoSeat || !p.between(start, p.bb, p.sbPos) {
		start = p.prev(p.sbPos)
	}
	p.btn = start
	if p.t.Tournament || p.t.Method == DeadButton {
		return // TR-21 / G-05: the button may be dead
	}
	for i := start; p.between(i, p.bb, p.sbPos); i = p.prev(i) {
		if p.buttonCapable(i) {
			p.btn = i
			break
		}
	}
	p.btn = p.postOnButton(p.btn)
}

// postOnButton returns the seat that takes the button instead of btn: a new
// player who let the big blind pass and chose to post now, when the button,
// moving on from last hand's, comes to their seat first (TP-16: they post
// the small and the big blind there). Starting from the small blind, as the
// other players do, would never bring the button to them: the big blind
// reaches them first, so they could only wait for it. Otherwise it is btn.
func (p *planner) postOnButton(btn int) int {
	from := p.t.Previous.Button
	if btn == from || !p.between(btn, from, p.sbPos) {
		return btn // the button stays or moves back: it comes to no one new
	}
	for i := p.next(from); i != btn && p.between(i, p.bb, p.sbPos); i = p.next(i) {
		if !p.buttonCapable(i) {
			continue
		}
		if s := p.t.Seats[i]; s.New && s.Debt.Owes() && s.PostNow {
			return i
		}
		return btn
	}
	return btn
}

// notPlaying is the skip record of an occupied seat that cannot play.
func (p *planner) notPlaying(i int) Skip {
	s := p.t.Seats[i]
	switch {
	case s.Stack == 0 && p.t.Tournament:
		return Skip{Seat: i, Rule: "TP-12", Reason: "no chips to post the forced bets"}
	case s.Stack == 0:
		return Skip{Seat: i, Rule: "TP-19", Reason: "no chips: blinds that pass the seat are owed on the rebuy"}
	default:
		return Skip{Seat: i, Rule: "TP-12", Reason: "sitting out: blinds that pass the seat are owed"}
	}
}

// classify decides whether seat i is dealt in. It returns the skip record
// and true when it is not.
func (p *planner) classify(i int) (Skip, bool) {
	s := p.t.Seats[i]
	if !s.Occupied() {
		return Skip{}, false
	}
	if !p.canPlay(i) {
		return p.notPlaying(i), true
	}
	if i == p.bb || i == p.sbPoster || (p.inGame(i) && !(p.t.Tournament && s.New)) {
		p.dealt[i] = true
		return Skip{}, false
	}
	// A new player, or one who owes blinds, comes in only outside the
	// stretch from the button to the big blind.
	if p.between(i, p.btn, p.bb) && !p.dealWaiting {
		prev := p.t.Previous
		switch {
		case !p.t.Tournament && s.New && (p.between(i, prev.SmallBlind, prev.BigBlind) || p.between(i, p.sbPos, p.bb)):
			return Skip{Seat: i, Rule: "TP-17", Reason: "sat down between the blinds: not dealt in until the button passes (G-06)"}, true
		default:
			return Skip{Seat: i, Rule: "G-06", Reason: "between the button and the big blind: waits until the button passes"}, true
		}
	}
	if p.t.Tournament {
		p.dealt[i] = true
		return Skip{}, false
	}
	_, rule, onButton, _ := duePosts(i, s, p.t.Stakes)
	if !s.PostNow {
		why := "waiting for the big blind"
		if rule == "TP-13" {
			why = "new player waiting for the big blind"
		}
		return Skip{Seat: i, Rule: rule, Reason: why}, true
	}
	if onButton && i != p.btn {
		return Skip{Seat: i, Rule: "TP-16", Reason: "may post the small and big blind only on the button, or wait for the big blind"}, true
	}
	p.dealt[i] = true
	return Skip{}, false
}

// dealOrder lists the dealt-in seats from the button's left, the button last
// (TP-09).
func (p *planner) dealOrder() []int {
	var order []int
	for i := p.next(p.btn); ; i = p.next(i) {
		if p.dealt[i] {
			order = append(order, i)
		}
		if i == p.btn {
			return order
		}
	}
}

func (p *planner) nextDealt(from int) int {
	for i := p.next(from); i != from; i = p.next(i) {
		if p.dealt[i] {
			return i
		}
	}
	return NoSeat
}

// add posts up to what the seat has left; a seat that runs out is all-in
// (G-31: the hand's bet sizes stay the same).
func (p *planner) add(seat int, kind PostKind, want int64, rule string) {
	amount := min(want, p.remaining[seat])
	if amount <= 0 {
		return
	}
	p.remaining[seat] -= amount
	p.posts = append(p.posts, Post{Seat: seat, Kind: kind, Amount: amount, Live: kind.Live(), AllIn: p.remaining[seat] == 0, Rule: rule})
}

// postBlinds posts the blinds first, so a short stack covers its blind
// before its ante (the big-blind-ante order, applied to both ante kinds).
func (p *planner) postBlinds(first bool, order []int) {
	st := p.t.Stakes
	if p.sbPoster != NoSeat {
		rule := "TP-10"
		if p.headsUp {
			rule = "G-04"
		}
		p.add(p.sbPoster, PostSmallBlind, st.SmallBlind, rule)
	}
	p.add(p.bb, PostBigBlind, st.BigBlind, "TP-10")
	if st.BigBlindAnte {
		p.add(p.bb, PostBigBlindAnte, st.Ante, "G-07")
	}
	if !first && !p.t.Tournament {
		for _, i := range order {
			if i == p.bb || i == p.sbPoster {
				continue
			}
			posts, _, _, _ := duePosts(i, p.t.Seats[i], st)
			for _, d := range posts {
				p.add(i, d.Kind, d.Amount, d.Rule)
			}
		}
	}
	if !st.BigBlindAnte {
		for _, i := range order {
			p.add(i, PostAnte, st.Ante, "G-07")
		}
	}
}

// straddle checks straddle requests against TP-20 and posts the one allowed.
func (p *planner) straddle(order []int) (straddler, offer int, err error) {
	straddler, offer = NoSeat, NoSeat
	if !p.t.Tournament && len(order) >= 3 {
		offer = p.nextDealt(p.bb)
	}
	for i, s := range p.t.Seats {
		if !s.Straddle || !s.Occupied() {
			continue
		}
		switch {
		case p.t.Tournament:
			return NoSeat, NoSeat, refusal.New("TP-20", refusal.StraddleNotAllowed, "no straddle on tournament tables")
		case i != offer:
			return NoSeat, NoSeat, refusal.New("TP-20", refusal.StraddleNotAllowed, fmt.Sprintf("seat %d may not straddle: only the player after the big blind may (seat %d)", i, offer))
		case slices.ContainsFunc(p.posts, func(q Post) bool { return q.Seat == i && q.Live }):
			return NoSeat, NoSeat, refusal.New("TP-20", refusal.StraddleNotAllowed, fmt.Sprintf("seat %d posts a live blind this hand and may not straddle", i))
		case p.remaining[i] < 2*p.t.Stakes.BigBlind:
			return NoSeat, NoSeat, refusal.New("TP-20", refusal.StraddleShort, fmt.Sprintf("seat %d cannot cover a straddle of %d", i, 2*p.t.Stakes.BigBlind))
		}
		p.add(i, PostStraddle, 2*p.t.Stakes.BigBlind, "TP-20")
		straddler = i
	}
	return straddler, offer, nil
}

// debts returns every seat's debts after this hand: dealt-in seats owe
// nothing; a cash seat that is not dealt in owes the blinds that passed it
// (TP-15, TP-18, TP-19), a new player only once the big blind has passed
// (TP-13, TP-16).
func (p *planner) debts(first bool) []Debt {
	out := make([]Debt, p.n)
	if p.t.Tournament {
		return out
	}
	prev := p.t.Previous
	for i, s := range p.t.Seats {
		if !s.Occupied() || p.dealt[i] {
			continue
		}
		d := s.Debt
		if !first {
			passedBB := p.passed(i, prev.BigBlind, p.bb)
			passedSB := p.passed(i, prev.SmallBlind, p.sbPos)
			switch {
			case s.New && passedBB:
				d = Debt{SmallBlind: true, BigBlind: true}
			case !s.New:
				d.BigBlind = d.BigBlind || passedBB
				d.SmallBlind = d.SmallBlind || passedSB
			}
		}
		out[i] = d
	}
	return out
}
