// Package waitlist is the seating domain, pure and clock-free: one Game
// holds a game's waitlist, the tables seating knows for it, the seat offers
// made, and the players away from their seats. Every change is a method
// that takes the time as an argument and returns the Events it causes, so
// the store can persist the whole game and the events in one fenced
// transaction, and tests drive the timers with plain times.
//
// Invariants kept by every method (and checked by Check):
//   - a player has at most one entry on a list;
//   - an empty seat has at most one pending offer, and a player at most
//     one pending offer in a game;
//   - a player holds at most one seat in a game (a pending offer counts);
//   - an offer is answered once: accept, decline, expiry and withdrawal are
//     final, and answering the same way again changes nothing.
package waitlist

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Stakes are a game's forced bets and betting units in minor units.
type Stakes struct {
	SmallBlind, BigBlind, Ante, BringIn, SmallBet, BigBet int64
}

// Spec is a game: variant, betting structure and stakes. The numbers are
// those of cardroom.game.v1 (Variant, Structure).
type Spec struct {
	Variant   int32
	Structure int32
	Stakes    Stakes
}

// Key identifies the game for "one list per game".
func (s Spec) Key() string {
	k := s.Stakes
	return fmt.Sprintf("v%d/s%d/%d/%d/%d/%d/%d/%d", s.Variant, s.Structure,
		k.SmallBlind, k.BigBlind, k.Ante, k.BringIn, k.SmallBet, k.BigBet)
}

var (
	variantNames   = map[int32]string{1: "Hold'em", 2: "Omaha", 3: "Omaha Hi-Lo", 4: "Stud", 5: "Stud Hi-Lo", 6: "Razz"}
	structureNames = map[int32]string{1: "NL", 2: "PL", 3: "FL"}
)

// Name is the game as the room says it, for example "NL Hold'em 2/5".
func (s Spec) Name() string {
	k := s.Stakes
	var stakes string
	switch {
	case s.Structure == 3:
		stakes = money(k.SmallBet) + "/" + money(k.BigBet)
	case s.Variant >= 4:
		stakes = money(k.Ante) + "/" + money(k.BringIn)
	default:
		stakes = money(k.SmallBlind) + "/" + money(k.BigBlind)
	}
	return strings.TrimSpace(structureNames[s.Structure] + " " + variantNames[s.Variant] + " " + stakes)
}

func money(minor int64) string {
	if minor%100 == 0 {
		return strconv.FormatInt(minor/100, 10)
	}
	return fmt.Sprintf("%d.%02d", minor/100, minor%100)
}

// Policy is a game's house policy; RULES.md leaves it to the house (G-20,
// G-21).
type Policy struct {
	// OfferTimeout is how long a player has to answer a seat offer.
	OfferTimeout time.Duration
	// DeclineKeepsPlace keeps a decliner on the list at their place.
	DeclineKeepsPlace bool
	// ExpiryKeepsPlace keeps a player who let an offer expire at their place.
	ExpiryKeepsPlace bool
	// TableChangePriority puts table-change requests ahead of the waitlist.
	TableChangePriority bool
	// MustMove lets must-move tables feed the main tables in arrival order.
	MustMove bool
	// OpenTableThreshold is how many waiting players make seating suggest a
	// new table; 0 never.
	OpenTableThreshold int
	// ShortAbsence is the seat-hold timer of a short absence (CS-13).
	ShortAbsence time.Duration
	// LongBreak is the length of the once-a-gaming-day long break (CS-14).
	LongBreak time.Duration
	// SitDownWindow is how long an accepted offer holds the seat for the
	// buy-in and sit-down.
	SitDownWindow time.Duration
	// FloorSignUpOnly closes remote sign-up: players join through the
	// floor, in the room (G-21).
	FloorSignUpOnly bool
}

// DefaultPolicy is the house default: 3-minute offers, a declined or
// missed offer keeps the player's place, table changes first, must-move
// on, a new table suggested at 10 waiting, 15-minute short absences, the
// 30-minute long break of CS-14, 5 minutes to buy in and sit down.
func DefaultPolicy() Policy {
	return Policy{
		OfferTimeout:        3 * time.Minute,
		DeclineKeepsPlace:   true,
		ExpiryKeepsPlace:    true,
		TableChangePriority: true,
		MustMove:            true,
		OpenTableThreshold:  10,
		ShortAbsence:        15 * time.Minute,
		LongBreak:           30 * time.Minute,
		SitDownWindow:       5 * time.Minute,
	}
}

// Timer ranges the service accepts: anything outside is a mistake (a
// negative timer, minutes typed as hours), refused with TIMER_OUT_OF_RANGE.
var (
	OfferTimeoutRange  = Range{10 * time.Second, 30 * time.Minute}
	ShortAbsenceRange  = Range{time.Minute, 2 * time.Hour}
	LongBreakRange     = Range{5 * time.Minute, 3 * time.Hour}
	SitDownWindowRange = Range{time.Minute, time.Hour}
)

// Range is an inclusive range of durations.
type Range struct{ Min, Max time.Duration }

// Check returns TIMER_OUT_OF_RANGE naming field when d is outside r.
func (r Range) Check(field string, d time.Duration) error {
	if d < r.Min || d > r.Max {
		return ErrTimerOutOfRange.Withf("%s %v is outside %v…%v", field, d, r.Min, r.Max).
			With("field", field, "min", r.Min.String(), "max", r.Max.String())
	}
	return nil
}

// Validate checks every timer against its range.
func (p Policy) Validate() error {
	checks := []struct {
		field string
		d     time.Duration
		r     Range
	}{
		{"offer_timeout", p.OfferTimeout, OfferTimeoutRange},
		{"short_absence", p.ShortAbsence, ShortAbsenceRange},
		{"long_break", p.LongBreak, LongBreakRange},
		{"sit_down_window", p.SitDownWindow, SitDownWindowRange},
	}
	for _, c := range checks {
		if err := c.r.Check(c.field, c.d); err != nil {
			return err
		}
	}
	if p.OpenTableThreshold < 0 {
		return ErrTimerOutOfRange.Withf("open_table_threshold %d is negative", p.OpenTableThreshold).With("field", "open_table_threshold")
	}
	return nil
}

// EntryKind says why a player is on a list; it sets their priority.
type EntryKind int

// Entry kinds, numbered as cardroom.seating.v1.EntryKind.
const (
	Waiting     EntryKind = 1
	TableChange EntryKind = 2
	MustMove    EntryKind = 3
	BrokenTable EntryKind = 4
)

// rank orders kinds for offers: a broken table's players first, then
// table changes and must-move players (when the policy gives them
// priority), then the waitlist.
func (g *Game) rank(k EntryKind) int {
	switch {
	case k == BrokenTable:
		return 0
	case k == TableChange && g.Policy.TableChangePriority:
		return 1
	case k == MustMove:
		return 2
	default:
		return 3
	}
}

// SignUp says who put a player on a list.
type SignUp int

// Sign-ups, numbered as cardroom.seating.v1.SignUp.
const (
	Remote  SignUp = 1
	Floor   SignUp = 2
	Seating SignUp = 3
)

// Entry is one player on a list.
type Entry struct {
	Player string
	Kind   EntryKind
	SignUp SignUp
	Joined time.Time
	// FromTable is the table a table-change, must-move or broken-table
	// player comes from.
	FromTable string
}

// SeatState is a seat as seating knows it.
type SeatState int

// Seat states, numbered as cardroom.seating.v1.SeatState.
const (
	Open     SeatState = 1
	Offered  SeatState = 2
	Taken    SeatState = 3
	Vacating SeatState = 4
)

// Seat is one seat of a table.
type Seat struct {
	Number int
	State  SeatState
	// Player holds the seat (Taken) or is offered it (Offered).
	Player string
	// Offer is the pending offer of an Offered seat, or the accepted offer
	// a Taken seat is held under.
	Offer string `json:",omitempty"`
	// HoldUntil is, for a seat taken through an offer, until when it is
	// held for the buy-in and sit-down; the seat opens again if the table
	// has not reported the player seated by then.
	HoldUntil time.Time `json:",omitzero"`
	// Seated is set once the table reported the player sitting in it.
	Seated bool `json:",omitempty"`
	// Passed are the players who declined or let expire an offer of this
	// seat since it opened and kept their place: it is not offered to them
	// again until it has been taken.
	Passed []string `json:",omitempty"`
}

// Table is one table of the game.
type Table struct {
	ID       string
	Name     string
	MustMove bool
	Seats    []Seat
}

// OfferState is where an offer stands.
type OfferState int

// Offer states, numbered as cardroom.seating.v1.OfferState.
const (
	Pending   OfferState = 1
	Accepted  OfferState = 2
	Declined  OfferState = 3
	Expired   OfferState = 4
	Withdrawn OfferState = 5
)

// Offer is a seat offered to one player.
type Offer struct {
	ID      string
	Table   string
	Seat    int
	Player  string
	State   OfferState
	Made    time.Time
	Expires time.Time
	// HoldUntil is, once accepted, how long the seat is held for the buy-in
	// and sit-down.
	HoldUntil time.Time `json:",omitzero"`
	// Entry is the kind of entry the player was offered the seat from.
	Entry EntryKind
}

// AbsenceKind is a short absence or the long break.
type AbsenceKind int

// Absence kinds, numbered as cardroom.seating.v1.AbsenceKind.
const (
	ShortAbsence AbsenceKind = 1
	LongBreak    AbsenceKind = 2
)

// Absence is a seated player away from their seat.
type Absence struct {
	Player  string
	Table   string
	Seat    int
	Kind    AbsenceKind
	Start   time.Time
	Due     time.Time
	Overdue bool
	// GamingDay is the gaming day the absence started in.
	GamingDay string
}

// Game is one game's seating state: the aggregate seating locks and fences
// as a whole.
type Game struct {
	ID      string
	Spec    Spec
	Policy  Policy
	Created time.Time
	// Entries are the list in offer order.
	Entries  []Entry
	Tables   []Table
	Offers   []Offer
	Absences []Absence
	// Seatings are the times of the last accepted offers, for the wait
	// estimate.
	Seatings []time.Time
	// Suggested is set once an open-table suggestion went out, until the
	// list falls below the threshold again.
	Suggested bool
	// Seq numbers the game's offers.
	Seq int64
	// Closed are the tables broken last (keptClosed of them): a table
	// event about one of them, delivered late, changes nothing.
	Closed []string `json:",omitempty"`
	// Elsewhere are the players who hold a seat in another game (seated,
	// or holding an accepted offer), each with that table: G-21, a player
	// may not hold seats in two games, so they are not offered one here.
	// The caller sets it before a change (Busy); it is never stored.
	Elsewhere map[string]string `json:"-"`
}

// keptOffers is how many answered offers a game remembers, so answering
// an old offer again still gets an idempotent answer.
const keptOffers = 200

// keptSeatings is how many seatings the wait estimate looks at.
const keptSeatings = 10

// defaultSeatInterval is the assumed time between seatings until the game
// has seen two.
const defaultSeatInterval = 10 * time.Minute

// New returns an empty game.
func New(id string, spec Spec, policy Policy, now time.Time) (*Game, error) {
	if err := policy.Validate(); err != nil {
		return nil, err
	}
	return &Game{ID: id, Spec: spec, Policy: policy, Created: now}, nil
}

// Waiting is the number of players on the list.
func (g *Game) Waiting() int { return len(g.Entries) }

// Position returns a player's 1-based position, or 0 when not on the list.
func (g *Game) Position(player string) int {
	for i, e := range g.Entries {
		if e.Player == player {
			return i + 1
		}
	}
	return 0
}

// EstimatedWait is a rough wait for the player at position pos: pos times
// the mean time between the game's recent seatings.
func (g *Game) EstimatedWait(pos int) time.Duration {
	if pos <= 0 {
		return 0
	}
	interval := defaultSeatInterval
	if n := len(g.Seatings); n >= 2 {
		interval = g.Seatings[n-1].Sub(g.Seatings[0]) / time.Duration(n-1)
	}
	return time.Duration(pos) * interval
}

// Table returns the table with id, or nil.
func (g *Game) Table(id string) *Table {
	for i := range g.Tables {
		if g.Tables[i].ID == id {
			return &g.Tables[i]
		}
	}
	return nil
}

// Offer returns the offer with id, or nil.
func (g *Game) Offer(id string) *Offer {
	for i := range g.Offers {
		if g.Offers[i].ID == id {
			return &g.Offers[i]
		}
	}
	return nil
}

// OpenOffers returns the offers a player may still act on: pending ones,
// and accepted ones whose seat is still held for the sit-down at now —
// what the table checks when the player sits with an offer. An accepted
// offer the player has sat down with is used up: it is not open even
// while its hold would still run, so it cannot seat anyone again.
func (g *Game) OpenOffers(now time.Time) []Offer {
	var out []Offer
	for _, o := range g.Offers {
		if o.State == Pending || (o.State == Accepted && now.Before(o.HoldUntil) && !g.satWith(o)) {
			out = append(out, o)
		}
	}
	return out
}

// satWith reports whether the player sits in the seat the accepted offer
// gave them.
func (g *Game) satWith(o Offer) bool {
	t := g.Table(o.Table)
	if t == nil {
		return false
	}
	s := t.seat(o.Seat)
	return s != nil && s.State == Taken && s.Player == o.Player && s.Seated
}

// PendingOffers returns the offers waiting for an answer.
func (g *Game) PendingOffers() []Offer {
	var out []Offer
	for _, o := range g.Offers {
		if o.State == Pending {
			out = append(out, o)
		}
	}
	return out
}

// SeatOf returns the table and seat the player holds in this game (Taken),
// or nil.
func (g *Game) SeatOf(player string) (*Table, *Seat) {
	for i := range g.Tables {
		t := &g.Tables[i]
		for j := range t.Seats {
			if s := &t.Seats[j]; s.State == Taken && s.Player == player {
				return t, s
			}
		}
	}
	return nil, nil
}

// NextDue is the earliest time a timer of the game runs out (an offer
// expiry or an absence due), or the zero time when none runs.
func (g *Game) NextDue() time.Time {
	var next time.Time
	consider := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	for _, o := range g.Offers {
		if o.State == Pending {
			consider(o.Expires)
		}
	}
	for _, a := range g.Absences {
		if !a.Overdue {
			consider(a.Due)
		}
	}
	for _, t := range g.Tables {
		for _, s := range t.Seats {
			if s.State == Taken && !s.Seated && !s.HoldUntil.IsZero() {
				consider(s.HoldUntil)
			}
		}
	}
	return next
}

// Check verifies the invariants of the package comment; the store runs it
// before every save so a bug cannot persist a double seat.
func (g *Game) Check() error {
	entries := map[string]bool{}
	for _, e := range g.Entries {
		if entries[e.Player] {
			return fmt.Errorf("game %s: player %s twice on the list", g.ID, e.Player)
		}
		entries[e.Player] = true
	}
	pending := map[string]*Offer{}
	for i := range g.Offers {
		if o := &g.Offers[i]; o.State == Pending {
			pending[o.ID] = o
		}
	}
	taken, offers := map[string]string{}, map[string]string{}
	offered := 0
	for _, t := range g.Tables {
		for _, s := range t.Seats {
			where := fmt.Sprintf("%s seat %d", t.ID, s.Number)
			switch s.State {
			case Taken:
				if prev, ok := taken[s.Player]; ok {
					return fmt.Errorf("game %s: player %s holds %s and %s", g.ID, s.Player, prev, where)
				}
				taken[s.Player] = where
			case Offered:
				o := pending[s.Offer]
				if o == nil || o.Table != t.ID || o.Seat != s.Number || o.Player != s.Player {
					return fmt.Errorf("game %s: %s offered without its pending offer", g.ID, where)
				}
				if prev, ok := offers[s.Player]; ok {
					return fmt.Errorf("game %s: player %s offered %s and %s", g.ID, s.Player, prev, where)
				}
				offers[s.Player] = where
				offered++
			}
		}
	}
	for player, where := range offers {
		// A seated player moving (table change, must-move) may hold an
		// offer beside the seat they are leaving; nobody else may.
		if seat, ok := taken[player]; ok && !g.moving(player) {
			return fmt.Errorf("game %s: player %s holds %s and an offer of %s", g.ID, player, seat, where)
		}
	}
	if offered != len(pending) {
		return fmt.Errorf("game %s: %d pending offers for %d offered seats", g.ID, len(pending), offered)
	}
	return nil
}

// moving reports whether the player is on the list to move from their seat.
func (g *Game) moving(player string) bool {
	return slices.ContainsFunc(g.Entries, func(e Entry) bool {
		return e.Player == player && (e.Kind == TableChange || e.Kind == MustMove)
	})
}
