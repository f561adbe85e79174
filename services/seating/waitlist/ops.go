package waitlist

import (
	"fmt"
	"slices"
	"strconv"
	"time"
)

// Join puts a player on the list as waiting, behind everyone of equal or
// higher priority, and offers them any seat they are now first for.
func (g *Game) Join(player string, by SignUp, now time.Time) (Entry, []Event, error) {
	if by == Remote && g.Policy.FloorSignUpOnly {
		return Entry{}, nil, ErrFloorSignUpOnly
	}
	if pos := g.Position(player); pos > 0 {
		return Entry{}, nil, ErrAlreadyOnList.With("position", strconv.Itoa(pos))
	}
	if t, s := g.SeatOf(player); t != nil {
		return Entry{}, nil, ErrAlreadySeated.With("table_id", t.ID, "seat", strconv.Itoa(s.Number))
	}
	e := Entry{Player: player, Kind: Waiting, SignUp: by, Joined: now}
	g.insert(e)
	return e, g.settle(now, nil), nil
}

// Leave takes a player off the list and withdraws their pending offer.
func (g *Game) Leave(player string, now time.Time) ([]Event, error) {
	if g.Position(player) == 0 {
		return nil, ErrNotOnList
	}
	g.remove(player)
	var ev []Event
	for i := range g.Offers {
		if o := &g.Offers[i]; o.State == Pending && o.Player == player {
			ev = append(ev, g.closeOffer(o, Withdrawn, false))
		}
	}
	return g.settle(now, ev), nil
}

// Move puts a player at position pos (1-based); the floor's reason is
// required and recorded by the caller.
func (g *Game) Move(player string, pos int, reason string, now time.Time) ([]Event, error) {
	if reason == "" {
		return nil, ErrReasonRequired.With("field", "reason")
	}
	from := g.Position(player)
	if from == 0 {
		return nil, ErrNotOnList
	}
	if pos < 1 || pos > len(g.Entries) {
		return nil, ErrBadPosition.Withf("position %d is outside 1…%d", pos, len(g.Entries)).
			With("field", "position", "max", strconv.Itoa(len(g.Entries)))
	}
	e := g.Entries[from-1]
	g.Entries = slices.Delete(g.Entries, from-1, from)
	g.Entries = slices.Insert(g.Entries, pos-1, e)
	return g.settle(now, nil), nil
}

// RequestTableChange puts a seated player on the list for a seat at
// another table of the game.
func (g *Game) RequestTableChange(player string, now time.Time) (Entry, []Event, error) {
	t, _ := g.SeatOf(player)
	if t == nil {
		return Entry{}, nil, ErrNotSeated
	}
	if pos := g.Position(player); pos > 0 {
		return Entry{}, nil, ErrAlreadyOnList.With("position", strconv.Itoa(pos))
	}
	e := Entry{Player: player, Kind: TableChange, SignUp: Remote, Joined: now, FromTable: t.ID}
	g.insert(e)
	return e, g.settle(now, nil), nil
}

// Accept gives the offered seat to the player. Accepting an accepted offer
// again returns it unchanged (idempotent); an offer that expired, was
// declined or withdrawn, or belongs to someone else is refused and nothing
// changes.
func (g *Game) Accept(id, player string, now time.Time) (Offer, []Event, error) {
	o, err := g.answerable(id, player, Accepted, now)
	if err != nil || o.State == Accepted {
		return o.orZero(), nil, err
	}
	if table, ok := g.Elsewhere[player]; ok {
		return Offer{}, nil, ErrSeatedElsewhere.With("table_id", table)
	}
	o.State, o.HoldUntil = Accepted, now.Add(g.Policy.SitDownWindow)
	t := g.Table(o.Table)
	ev := g.take(t, t.seat(o.Seat), player, now)
	*t.seat(o.Seat) = Seat{Number: o.Seat, State: Taken, Player: player, Offer: o.ID, HoldUntil: o.HoldUntil}
	g.Seatings = append(g.Seatings, now)
	if n := len(g.Seatings); n > keptSeatings {
		g.Seatings = slices.Clone(g.Seatings[n-keptSeatings:])
	}
	out := *o
	ev = append([]Event{{Kind: OfferAccepted, Offer: out}}, ev...)
	return out, g.settle(now, ev), nil
}

// take moves player into seat s of table t: a seat they held before in
// the game is vacated (until the table reports it empty), their entry
// leaves the list, their other pending offers are withdrawn, and a seat at
// a must-move table puts them in the queue for the main tables.
func (g *Game) take(t *Table, s *Seat, player string, now time.Time) []Event {
	var ev []Event
	if _, old := g.SeatOf(player); old != nil && old != s {
		old.State, old.HoldUntil, old.Seated = Vacating, time.Time{}, false
		g.dropAbsence(player)
	}
	g.remove(player)
	for i := range g.Offers {
		if o := &g.Offers[i]; o.State == Pending && o.Player == player && (o.Table != t.ID || o.Seat != s.Number) {
			ev = append(ev, g.closeOffer(o, Withdrawn, false))
		}
	}
	*s = Seat{Number: s.Number, State: Taken, Player: player}
	if t.MustMove && g.Policy.MustMove && g.hasMainTable() {
		// A must-move table feeds the main tables in order of arrival.
		g.insert(Entry{Player: player, Kind: MustMove, SignUp: Seating, Joined: now, FromTable: t.ID})
	}
	return ev
}

// PlayerSeated records the table's report that player sat down in a seat
// (topic table.player_seated): it confirms a seat taken through an offer,
// so its hold no longer lapses, and it records a player the floor seated
// directly. The table is the truth: a pending offer of that seat to
// someone else is withdrawn (they keep their place). A report seating
// already applied changes nothing.
func (g *Game) PlayerSeated(table string, seat int, player string, now time.Time) []Event {
	if g.closed(table) {
		return nil
	}
	t := g.tableOf(table)
	s, _ := t.seatOf(seat)
	if s.State == Taken && s.Player == player {
		s.Seated, s.HoldUntil = true, time.Time{}
		return g.settle(now, nil)
	}
	var ev []Event
	switch {
	case s.State == Offered:
		ev = append(ev, g.closeOffer(g.Offer(s.Offer), Withdrawn, true))
	case s.State == Taken && !s.Seated:
		// The table seated someone else in a seat another player accepted
		// but had not sat in yet (the first player's offer was checked just
		// before its hold lapsed): the bumped player's acceptance is
		// withdrawn and they go to the head of the list.
		bumped := Offer{ID: s.Offer, Table: t.ID, Seat: s.Number, Player: s.Player, State: Withdrawn}
		if o := g.Offer(s.Offer); o != nil {
			o.State = Withdrawn
			bumped = *o
		}
		g.remove(s.Player)
		g.insert(Entry{Player: s.Player, Kind: BrokenTable, SignUp: Seating, Joined: now, FromTable: t.ID})
		ev = append(ev, Event{Kind: OfferWithdrawn, Offer: bumped})
	}
	ev = append(ev, g.take(t, s, player, now)...)
	s.Seated = true
	return g.settle(now, ev)
}

// Decline passes the seat on; the player keeps or loses their place per
// the policy. Declining a declined offer again changes nothing.
func (g *Game) Decline(id, player string, now time.Time) (Offer, []Event, error) {
	o, err := g.answerable(id, player, Declined, now)
	if err != nil || o.State == Declined {
		return o.orZero(), nil, err
	}
	ev := []Event{g.closeOffer(o, Declined, g.Policy.DeclineKeepsPlace)}
	out := *o
	return out, g.settle(now, ev), nil
}

func (o *Offer) orZero() Offer {
	if o == nil {
		return Offer{}
	}
	return *o
}

// answerable finds an offer the player may answer with the given state,
// or the offer already answered that way (for idempotency), or an error.
func (g *Game) answerable(id, player string, answer OfferState, now time.Time) (*Offer, error) {
	o := g.Offer(id)
	switch {
	case o == nil:
		return nil, ErrOfferNotFound.With("offer_id", id)
	case o.Player != player:
		return nil, ErrOfferNotYours.With("offer_id", id)
	case o.State == answer:
		return o, nil
	case o.State == Expired:
		return nil, ErrOfferExpired.With("offer_id", id, "expire_time", o.Expires.UTC().Format(time.RFC3339))
	case o.State != Pending:
		return nil, ErrOfferClosed.Withf("the seat offer is %s", o.State).With("offer_id", id, "state", o.State.String())
	case !now.Before(o.Expires):
		return nil, ErrOfferExpired.With("offer_id", id, "expire_time", o.Expires.UTC().Format(time.RFC3339))
	}
	return o, nil
}

var offerStateNames = [...]string{Pending: "pending", Accepted: "accepted", Declined: "declined", Expired: "expired", Withdrawn: "withdrawn"}

// String names the state.
func (s OfferState) String() string {
	if s < Pending || int(s) >= len(offerStateNames) {
		return "unknown"
	}
	return offerStateNames[s]
}

// closeOffer ends a pending offer without a seat: the seat opens again and,
// when the player keeps their place, will not be offered to them again.
func (g *Game) closeOffer(o *Offer, state OfferState, keep bool) Event {
	o.State = state
	if t := g.Table(o.Table); t != nil {
		if s := t.seat(o.Seat); s != nil && s.Offer == o.ID {
			s.State, s.Player, s.Offer = Open, "", ""
			if keep {
				s.Passed = append(s.Passed, o.Player)
			}
		}
	}
	if !keep && state != Withdrawn {
		g.remove(o.Player)
	}
	kind := map[OfferState]EventKind{Declined: OfferDeclined, Expired: OfferExpired, Withdrawn: OfferWithdrawn}[state]
	return Event{Kind: kind, Offer: *o}
}

// Tick runs the timers due by now: offers expire (the seat goes to the
// next player) and absences become overdue (the floor is asked, CS-13).
func (g *Game) Tick(now time.Time) []Event {
	var ev []Event
	for i := range g.Offers {
		if o := &g.Offers[i]; o.State == Pending && !now.Before(o.Expires) {
			ev = append(ev, g.closeOffer(o, Expired, g.Policy.ExpiryKeepsPlace))
		}
	}
	for i := range g.Absences {
		if a := &g.Absences[i]; !a.Overdue && !now.Before(a.Due) {
			a.Overdue = true
			ev = append(ev, Event{Kind: AbsenceOverdue, Absence: *a})
		}
	}
	// An accepted seat the player never sat in opens again: the table
	// refuses the offer after hold_until too.
	for ti := range g.Tables {
		t := &g.Tables[ti]
		for si := range t.Seats {
			s := &t.Seats[si]
			if s.State != Taken || s.Seated || s.HoldUntil.IsZero() || now.Before(s.HoldUntil) {
				continue
			}
			lapsed := Offer{ID: s.Offer, Table: t.ID, Seat: s.Number, Player: s.Player, State: Accepted, HoldUntil: s.HoldUntil}
			if o := g.Offer(s.Offer); o != nil {
				lapsed = *o
			}
			g.dropAbsence(s.Player)
			g.Entries = slices.DeleteFunc(g.Entries, func(e Entry) bool { return e.Player == s.Player && e.FromTable == t.ID })
			*s = Seat{Number: s.Number, State: Open}
			ev = append(ev, Event{Kind: HoldLapsed, Offer: lapsed})
		}
	}
	return g.settle(now, ev)
}

// TableOpened adds a new table whose seats are all empty and offers them.
// A table seating already knows changes nothing (events come at least
// once).
func (g *Game) TableOpened(id, name string, seats int, now time.Time) []Event {
	if g.Table(id) != nil || g.closed(id) {
		return nil
	}
	t := Table{ID: id, Name: name}
	// Seats are numbered as the table service numbers them, from 0.
	for n := range seats {
		t.Seats = append(t.Seats, Seat{Number: n, State: Open})
	}
	g.Tables = append(g.Tables, t)
	return g.settle(now, nil)
}

// SeatOpened records that a seat is empty (its player left, or a released
// or vacated seat was cleared at the table) and offers it. A seat already
// empty or offered changes nothing.
func (g *Game) SeatOpened(table string, seat int, now time.Time) []Event {
	if g.closed(table) {
		return nil
	}
	s, added := g.tableOf(table).seatOf(seat)
	if added {
		return g.settle(now, nil)
	}
	switch s.State {
	case Open, Offered:
		return nil
	case Taken:
		// The player left the game: their move requests go with them.
		if i := slices.IndexFunc(g.Entries, func(e Entry) bool {
			return e.Player == s.Player && (e.Kind == TableChange || e.Kind == MustMove)
		}); i >= 0 {
			g.Entries = slices.Delete(g.Entries, i, i+1)
			g.withdrawOffersOf(s.Player)
		}
		g.dropAbsence(s.Player)
	}
	*s = Seat{Number: s.Number, State: Open}
	return g.settle(now, nil)
}

// tableOf returns the game's table, added when the game does not know it
// yet.
func (g *Game) tableOf(id string) *Table {
	if t := g.Table(id); t != nil {
		return t
	}
	g.Tables = append(g.Tables, Table{ID: id})
	return &g.Tables[len(g.Tables)-1]
}

// seatOf returns the table's seat, added open (in seat order) when the
// table does not know it yet; added says so.
func (t *Table) seatOf(n int) (s *Seat, added bool) {
	if s := t.seat(n); s != nil {
		return s, false
	}
	t.Seats = append(t.Seats, Seat{Number: n, State: Open})
	slices.SortFunc(t.Seats, func(a, b Seat) int { return a.Number - b.Number })
	return t.seat(n), true
}

func (g *Game) withdrawOffersOf(player string) {
	for i := range g.Offers {
		if o := &g.Offers[i]; o.State == Pending && o.Player == player {
			g.closeOffer(o, Withdrawn, false)
		}
	}
}

// BreakTable takes a breaking table out of the game: its seated players go
// to the head of the list (after any earlier broken table's players), in
// seat order, and the open offers of its seats are withdrawn.
func (g *Game) BreakTable(table string, now time.Time) ([]Entry, []Event, error) {
	t := g.Table(table)
	if t == nil {
		return nil, nil, ErrTableNotFound.With("table_id", table)
	}
	var players []string
	for _, s := range t.Seats {
		if s.State == Taken {
			players = append(players, s.Player)
		}
	}
	moved, ev := g.breakTable(table, players, now)
	return moved, ev, nil
}

// TableClosed breaks a table the table service closed (topic
// table.closed). The table is the truth about who sat there: players are
// those it reports seated at the close, in seat order; with them, a player
// who accepted a seat of the table and had not sat down yet keeps their
// priority. A table broken already changes nothing (events come at least
// once). A table the game does not know yet is broken all the same — its
// table.closed overtook its table.opened, topics being delivered
// independently — so that its players get their priority and its late
// events change nothing.
func (g *Game) TableClosed(table string, players []string, now time.Time) ([]Entry, []Event) {
	if g.closed(table) {
		return nil, nil
	}
	for _, s := range g.tableOf(table).Seats {
		if s.State == Taken && !s.Seated && !slices.Contains(players, s.Player) {
			players = append(players, s.Player)
		}
	}
	return g.breakTable(table, players, now)
}

// keptClosed is how many broken tables a game remembers, so that a table
// event published before the break and delivered after it does not bring
// the table back.
const keptClosed = 50

// breakTable takes the table out of the game: the pending offers of its
// seats and the accepted ones still holding a seat are withdrawn (the
// hold of one the player sat down with ends), players
// go to the head of the list as BrokenTable entries (a player holding a
// seat at another table of the game stays where they are), and the table
// is remembered as closed.
func (g *Game) breakTable(table string, players []string, now time.Time) ([]Entry, []Event) {
	i := slices.IndexFunc(g.Tables, func(t Table) bool { return t.ID == table })
	t := g.Tables[i]
	var ev []Event
	sat := map[string]bool{}
	for _, s := range t.Seats {
		if s.State == Taken {
			sat[s.Offer] = s.Seated
			g.dropAbsence(s.Player)
		}
	}
	for i := range g.Offers {
		o := &g.Offers[i]
		switch {
		case o.Table != table:
		case o.State == Pending:
			ev = append(ev, g.closeOffer(o, Withdrawn, true))
		case o.State == Accepted && now.Before(o.HoldUntil) && sat[o.ID]:
			// The player sat down with it: the hold is over, and no
			// sit-down may use it at a table that is gone.
			o.HoldUntil = now
		case o.State == Accepted && now.Before(o.HoldUntil):
			// The seat it held for the sit-down is gone.
			o.State = Withdrawn
			ev = append(ev, Event{Kind: OfferWithdrawn, Offer: *o})
		}
	}
	g.Tables = slices.Delete(g.Tables, i, i+1)
	g.Closed = append(g.Closed, table)
	if n := len(g.Closed); n > keptClosed {
		g.Closed = slices.Clone(g.Closed[n-keptClosed:])
	}
	var moved []Entry
	for _, p := range players {
		if elsewhere, _ := g.SeatOf(p); elsewhere != nil {
			continue
		}
		g.remove(p)
		g.dropAbsence(p)
		e := Entry{Player: p, Kind: BrokenTable, SignUp: Seating, Joined: now, FromTable: table}
		g.insert(e)
		moved = append(moved, e)
	}
	// Entries that pointed at the broken table now wait like anyone.
	for j := range g.Entries {
		if e := &g.Entries[j]; e.FromTable == table && e.Kind != BrokenTable {
			e.Kind = Waiting
		}
	}
	return moved, g.settle(now, ev)
}

// closed reports whether the table was broken.
func (g *Game) closed(table string) bool { return slices.Contains(g.Closed, table) }

// SetMustMove marks a table as must-move or main.
func (g *Game) SetMustMove(table string, mustMove bool, now time.Time) (Table, []Event, error) {
	t := g.Table(table)
	if t == nil {
		return Table{}, nil, ErrTableNotFound.With("table_id", table)
	}
	t.MustMove = mustMove
	return *t, g.settle(now, nil), nil
}

// SetPolicy replaces the game's policy.
func (g *Game) SetPolicy(p Policy, now time.Time) ([]Event, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	g.Policy = p
	return g.settle(now, nil), nil
}

// settle makes the offers the current state calls for, checks the
// open-table threshold and trims history; every change ends with it.
func (g *Game) settle(now time.Time, ev []Event) []Event {
	ev = g.fill(now, ev)
	if th := g.Policy.OpenTableThreshold; th > 0 {
		waiting := g.Waiting()
		switch {
		case waiting >= th && !g.Suggested:
			g.Suggested = true
			ev = append(ev, Event{Kind: OpenTableSuggested, Waiting: waiting, Threshold: th})
		case waiting < th:
			g.Suggested = false
		}
	}
	if extra := len(g.Offers) - keptOffers; extra > 0 {
		kept := g.Offers[:0:0]
		for _, o := range g.Offers {
			if extra > 0 && o.State != Pending && (o.State != Accepted || !now.Before(o.HoldUntil)) {
				extra--
				continue
			}
			kept = append(kept, o)
		}
		g.Offers = kept
	}
	return ev
}

// fill offers every empty seat to the first eligible player: main tables
// before must-move tables, so a player off the list lands at a main table
// when one has room.
func (g *Game) fill(now time.Time, ev []Event) []Event {
	order := make([]int, 0, len(g.Tables))
	for i, t := range g.Tables {
		if !t.MustMove {
			order = append(order, i)
		}
	}
	for i, t := range g.Tables {
		if t.MustMove {
			order = append(order, i)
		}
	}
	for _, ti := range order {
		t := &g.Tables[ti]
		for si := range t.Seats {
			s := &t.Seats[si]
			if s.State != Open {
				continue
			}
			e := g.firstEligible(t, s)
			if e == nil {
				continue
			}
			g.Seq++
			o := Offer{
				ID: fmt.Sprintf("%s.%d", g.ID, g.Seq), Table: t.ID, Seat: s.Number, Player: e.Player,
				State: Pending, Made: now, Expires: now.Add(g.Policy.OfferTimeout), Entry: e.Kind,
			}
			g.Offers = append(g.Offers, o)
			s.State, s.Player, s.Offer = Offered, e.Player, o.ID
			ev = append(ev, Event{Kind: OfferMade, Offer: o})
		}
	}
	return ev
}

func (g *Game) firstEligible(t *Table, s *Seat) *Entry {
	busy := map[string]bool{}
	for _, o := range g.Offers {
		if o.State == Pending {
			busy[o.Player] = true
		}
	}
	for i := range g.Entries {
		e := &g.Entries[i]
		if _, seated := g.Elsewhere[e.Player]; seated || busy[e.Player] || slices.Contains(s.Passed, e.Player) {
			continue
		}
		switch e.Kind {
		case TableChange:
			if t.ID == e.FromTable {
				continue
			}
		case MustMove:
			if !g.Policy.MustMove || t.MustMove {
				continue
			}
		default:
			if st, _ := g.SeatOf(e.Player); st != nil {
				continue
			}
		}
		return e
	}
	return nil
}

func (g *Game) hasMainTable() bool {
	return slices.ContainsFunc(g.Tables, func(t Table) bool { return !t.MustMove })
}

// insert places e behind every entry of equal or higher priority.
func (g *Game) insert(e Entry) {
	r := g.rank(e.Kind)
	at := len(g.Entries)
	for at > 0 && g.rank(g.Entries[at-1].Kind) > r {
		at--
	}
	g.Entries = slices.Insert(g.Entries, at, e)
}

func (g *Game) remove(player string) {
	g.Entries = slices.DeleteFunc(g.Entries, func(e Entry) bool { return e.Player == player })
}

func (g *Game) dropAbsence(player string) {
	g.Absences = slices.DeleteFunc(g.Absences, func(a Absence) bool { return a.Player == player })
}

func (t *Table) seat(n int) *Seat {
	for i := range t.Seats {
		if t.Seats[i].Number == n {
			return &t.Seats[i]
		}
	}
	return nil
}

// Busy records the players who hold a seat in another game (player →
// table) and withdraws their pending offers here (G-21): the seat goes to
// the next player, and the busy player keeps their place on the list for
// when they leave the other game.
func (g *Game) Busy(elsewhere map[string]string, now time.Time) []Event {
	g.Elsewhere = elsewhere
	var ev []Event
	for i := range g.Offers {
		if o := &g.Offers[i]; o.State == Pending {
			if _, seated := elsewhere[o.Player]; seated {
				ev = append(ev, g.closeOffer(o, Withdrawn, false))
			}
		}
	}
	if len(ev) == 0 {
		return nil
	}
	return g.settle(now, ev)
}

// Holding returns the players who hold a seat in this game (seated, or
// holding an accepted offer for the sit-down), each with the table.
func (g *Game) Holding() map[string]string {
	out := map[string]string{}
	for _, t := range g.Tables {
		for _, s := range t.Seats {
			if s.State == Taken {
				out[s.Player] = t.ID
			}
		}
	}
	return out
}
