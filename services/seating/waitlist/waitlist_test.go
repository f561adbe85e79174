package waitlist

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/fault"
)

var start = time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC)

var nlhe25 = Spec{Variant: 1, Structure: 1, Stakes: Stakes{SmallBlind: 200, BigBlind: 500}}

func newGame(t *testing.T, p Policy) *Game {
	t.Helper()
	g, err := New("g1", nlhe25, p, start)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func join(t *testing.T, g *Game, now time.Time, players ...string) {
	t.Helper()
	for _, p := range players {
		if _, _, err := g.Join(p, Remote, now); err != nil {
			t.Fatalf("join %s: %v", p, err)
		}
	}
	mustCheck(t, g)
}

func mustCheck(t *testing.T, g *Game) {
	t.Helper()
	if err := g.Check(); err != nil {
		t.Fatal(err)
	}
}

func kinds(ev []Event) []EventKind {
	var out []EventKind
	for _, e := range ev {
		out = append(out, e.Kind)
	}
	return out
}

// pending returns the pending offer of player, failing when there is none.
func pending(t *testing.T, g *Game, player string) Offer {
	t.Helper()
	for _, o := range g.PendingOffers() {
		if o.Player == player {
			return o
		}
	}
	t.Fatalf("no pending offer for %s; offers %+v", player, g.PendingOffers())
	return Offer{}
}

func snapshot(t *testing.T, g *Game) string {
	t.Helper()
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSpecName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec Spec
		want string
	}{
		{nlhe25, "NL Hold'em 2/5"},
		{Spec{Variant: 2, Structure: 2, Stakes: Stakes{SmallBlind: 50, BigBlind: 100}}, "PL Omaha 0.50/1"},
		{Spec{Variant: 4, Structure: 3, Stakes: Stakes{Ante: 100, BringIn: 200, SmallBet: 500, BigBet: 1000}}, "FL Stud 5/10"},
	}
	for _, tt := range tests {
		if got := tt.spec.Name(); got != tt.want {
			t.Errorf("%+v: Name = %q, want %q", tt.spec, got, tt.want)
		}
	}
}

func TestOfferExpiryMovesToNextPlayer(t *testing.T) {
	t.Parallel()
	for _, keep := range []bool{true, false} {
		p := DefaultPolicy()
		p.ExpiryKeepsPlace = keep
		g := newGame(t, p)
		clk := clock.NewFake(start)
		join(t, g, clk.Now(), "ann", "bob")
		ev := g.TableOpened("t1", "Table 1", 1, clk.Now())
		if !slices.Equal(kinds(ev), []EventKind{OfferMade}) || ev[0].Offer.Player != "ann" ||
			!ev[0].Offer.Expires.Equal(start.Add(3*time.Minute)) {
			t.Fatalf("keep=%v: events %+v", keep, ev)
		}
		clk.Advance(3*time.Minute - time.Second)
		if ev := g.Tick(clk.Now()); len(ev) != 0 {
			t.Fatalf("keep=%v: before expiry %+v", keep, ev)
		}
		clk.Advance(time.Second)
		ev = g.Tick(clk.Now())
		if !slices.Equal(kinds(ev), []EventKind{OfferExpired, OfferMade}) || ev[1].Offer.Player != "bob" {
			t.Fatalf("keep=%v: at expiry %+v", keep, ev)
		}
		mustCheck(t, g)
		if got, want := g.Position("ann"), map[bool]int{true: 1, false: 0}[keep]; got != want {
			t.Fatalf("keep=%v: ann at %d, want %d", keep, got, want)
		}
		// Bob declines too: with keep-place nobody is left for this seat
		// until it has been taken, so the seat stays open.
		if _, ev, err := g.Decline(pending(t, g, "bob").ID, "bob", clk.Now()); err != nil || kinds(ev)[0] != OfferDeclined {
			t.Fatalf("keep=%v: decline = %+v, %v", keep, ev, err)
		}
		if s := g.Table("t1").Seats[0]; s.State != Open {
			t.Fatalf("keep=%v: seat %+v", keep, s)
		}
		// A newcomer gets it.
		_, ev, err := g.Join("cat", Floor, clk.Now())
		if err != nil || len(ev) != 1 || ev[0].Offer.Player != "cat" {
			t.Fatalf("keep=%v: join cat = %+v, %v", keep, ev, err)
		}
	}
}

func TestAcceptAndBadAnswers(t *testing.T) {
	t.Parallel()
	g := newGame(t, DefaultPolicy())
	join(t, g, start, "ann", "bob")
	g.TableOpened("t1", "Table 1", 2, start)
	ann, bob := pending(t, g, "ann"), pending(t, g, "bob")
	now := start.Add(time.Minute)

	// Someone else's offer, an unknown offer: refused, nothing changes.
	before := snapshot(t, g)
	for _, tc := range []struct {
		name, id, player string
		want             error
	}{
		{"someone else's offer", ann.ID, "bob", ErrOfferNotYours},
		{"unknown offer", "g1.99", "ann", ErrOfferNotFound},
	} {
		if _, _, err := g.Accept(tc.id, tc.player, now); !errors.Is(err, tc.want) {
			t.Errorf("%s: Accept = %v, want %v", tc.name, err, tc.want)
		}
	}
	if snapshot(t, g) != before {
		t.Fatal("a refused accept changed the game")
	}

	got, ev, err := g.Accept(ann.ID, "ann", now)
	if err != nil || got.State != Accepted || !got.HoldUntil.Equal(now.Add(5*time.Minute)) || kinds(ev)[0] != OfferAccepted {
		t.Fatalf("Accept = %+v, %+v, %v", got, ev, err)
	}
	if tb, s := g.SeatOf("ann"); tb == nil || s.Number != ann.Seat || g.Position("ann") != 0 {
		t.Fatalf("ann not seated: %v %+v", tb, s)
	}
	// Idempotent: the same answer again returns the same offer, no events.
	before = snapshot(t, g)
	again, ev, err := g.Accept(ann.ID, "ann", now.Add(time.Hour))
	if err != nil || again != got || len(ev) != 0 || snapshot(t, g) != before {
		t.Fatalf("Accept again = %+v, %+v, %v", again, ev, err)
	}
	// Declining an accepted offer, accepting an expired one: refused with
	// the reason, nothing changes.
	if _, _, err := g.Decline(ann.ID, "ann", now); !errors.Is(err, ErrOfferClosed) {
		t.Fatalf("Decline accepted = %v", err)
	}
	if _, _, err := g.Accept(bob.ID, "bob", bob.Expires); !errors.Is(err, ErrOfferExpired) {
		t.Fatalf("Accept expired = %v", err)
	}
	if f, _ := fault.As(ErrOfferExpired); f.Reason != "OFFER_EXPIRED" || fault.KindOf(ErrOfferExpired) != fault.Conflict {
		t.Fatalf("fault %+v", f)
	}
	if snapshot(t, g) != before {
		t.Fatal("a refused answer changed the game")
	}
	// Joining again while seated is refused.
	if _, _, err := g.Join("ann", Remote, now); !errors.Is(err, ErrAlreadySeated) {
		t.Fatalf("seated join = %v", err)
	}
	mustCheck(t, g)
}

func TestJoinTwiceRefused(t *testing.T) {
	t.Parallel()
	g := newGame(t, DefaultPolicy())
	join(t, g, start, "ann", "bob")
	before := snapshot(t, g)
	_, _, err := g.Join("bob", Floor, start)
	f, ok := fault.As(err)
	if !errors.Is(err, ErrAlreadyOnList) || !ok || f.Meta["position"] != "2" {
		t.Fatalf("Join twice = %v", err)
	}
	if snapshot(t, g) != before {
		t.Fatal("state changed")
	}
}

func TestFloorSignUpOnly_G21(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	p.FloorSignUpOnly = true
	g := newGame(t, p)
	if _, _, err := g.Join("ann", Remote, start); !errors.Is(err, ErrFloorSignUpOnly) || g.Waiting() != 0 {
		t.Fatalf("G-21 remote sign-up = %v", err)
	}
	if e, _, err := g.Join("ann", Floor, start); err != nil || e.SignUp != Floor {
		t.Fatalf("G-21 floor sign-up = %+v, %v", e, err)
	}
}

func TestLeaveWithdrawsOffer(t *testing.T) {
	t.Parallel()
	g := newGame(t, DefaultPolicy())
	join(t, g, start, "ann", "bob")
	g.TableOpened("t1", "", 1, start)
	ev, err := g.Leave("ann", start)
	if err != nil || !slices.Equal(kinds(ev), []EventKind{OfferWithdrawn, OfferMade}) || ev[1].Offer.Player != "bob" {
		t.Fatalf("Leave = %+v, %v", ev, err)
	}
	if _, err := g.Leave("ann", start); !errors.Is(err, ErrNotOnList) {
		t.Fatalf("Leave twice = %v", err)
	}
	mustCheck(t, g)
}

func TestMoveNeedsReason(t *testing.T) {
	t.Parallel()
	g := newGame(t, DefaultPolicy())
	join(t, g, start, "ann", "bob", "cat")
	if _, err := g.Move("cat", 1, "", start); !errors.Is(err, ErrReasonRequired) {
		t.Fatalf("no reason = %v", err)
	}
	if _, err := g.Move("cat", 4, "x", start); !errors.Is(err, ErrBadPosition) {
		t.Fatalf("bad position = %v", err)
	}
	if _, err := g.Move("cat", 1, "was here first, floor error", start); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, e := range g.Entries {
		order = append(order, e.Player)
	}
	if !slices.Equal(order, []string{"cat", "ann", "bob"}) {
		t.Fatalf("order %v", order)
	}
}

// seat puts players in the seats of a new table through offers.
func seat(t *testing.T, g *Game, table string, now time.Time, players ...string) {
	t.Helper()
	join(t, g, now, players...)
	g.TableOpened(table, table, len(players), now)
	for _, p := range players {
		o, _, err := g.Accept(pending(t, g, p).ID, p, now)
		if err != nil {
			t.Fatalf("seat %s: %v", p, err)
		}
		g.PlayerSeated(o.Table, o.Seat, p, now)
	}
	mustCheck(t, g)
}

func TestTableChangePriority(t *testing.T) {
	t.Parallel()
	for _, priority := range []bool{true, false} {
		p := DefaultPolicy()
		p.TableChangePriority, p.MustMove = priority, false
		g := newGame(t, p)
		seat(t, g, "t1", start, "ann", "bob")
		seat(t, g, "t2", start, "cat", "dan")
		join(t, g, start, "wes", "xav")
		if _, _, err := g.RequestTableChange("ann", start.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		// A seat at ann's own table goes to the waitlist.
		ev := g.SeatOpened("t1", 1, start.Add(2*time.Minute)) // bob leaves
		if len(ev) != 1 || ev[0].Offer.Player != "wes" {
			t.Fatalf("priority=%v: t1 seat to %+v", priority, ev)
		}
		ev = g.SeatOpened("t2", 0, start.Add(3*time.Minute)) // cat leaves
		want := map[bool]string{true: "ann", false: "xav"}[priority]
		if len(ev) != 1 || ev[0].Offer.Player != want {
			t.Fatalf("priority=%v: t2 seat to %+v, want %s", priority, ev, want)
		}
		if priority {
			// ann moves: her old seat is vacated until the table reports it.
			if _, _, err := g.Accept(ev[0].Offer.ID, "ann", start.Add(3*time.Minute)); err != nil {
				t.Fatal(err)
			}
			if s := g.Table("t1").Seats[0]; s.State != Vacating {
				t.Fatalf("old seat %+v", s)
			}
			if tb, _ := g.SeatOf("ann"); tb.ID != "t2" {
				t.Fatalf("ann at %s", tb.ID)
			}
		}
		mustCheck(t, g)
	}
}

func TestMustMoveFeedsMainGameInArrivalOrder(t *testing.T) {
	t.Parallel()
	g := newGame(t, DefaultPolicy())
	seat(t, g, "main", start, "m1", "m2")
	g.TableOpened("mm", "Must-move", 3, start)
	if _, _, err := g.SetMustMove("mm", true, start); err != nil {
		t.Fatal(err)
	}
	for i, p := range []string{"a", "b", "c"} {
		now := start.Add(time.Duration(i+1) * time.Minute)
		join(t, g, now, p)
		o, _, err := g.Accept(pending(t, g, p).ID, p, now)
		if err != nil {
			t.Fatal(err)
		}
		g.PlayerSeated(o.Table, o.Seat, p, now)
	}
	join(t, g, start.Add(10*time.Minute), "late")
	var kindsOf []EntryKind
	for _, e := range g.Entries {
		kindsOf = append(kindsOf, e.Kind)
	}
	if !slices.Equal(kindsOf, []EntryKind{MustMove, MustMove, MustMove, Waiting}) || g.Entries[0].Player != "a" {
		t.Fatalf("entries %+v", g.Entries)
	}
	// A main seat opens: the first arrival at the must-move table gets it.
	ev := g.SeatOpened("main", 1, start.Add(20*time.Minute))
	if len(ev) != 1 || ev[0].Offer.Player != "a" || ev[0].Offer.Entry != MustMove {
		t.Fatalf("main seat to %+v", ev)
	}
	if _, _, err := g.Accept(ev[0].Offer.ID, "a", start.Add(21*time.Minute)); err != nil {
		t.Fatal(err)
	}
	// a's must-move seat is vacating; when the table reports it empty the
	// waitlist's next player gets it and joins the must-move queue.
	ev = g.SeatOpened("mm", 1, start.Add(22*time.Minute))
	if len(ev) != 1 || ev[0].Offer.Player != "late" {
		t.Fatalf("must-move seat to %+v", ev)
	}
	mustCheck(t, g)
}

func TestBrokenTablePlayersFirst(t *testing.T) {
	t.Parallel()
	g := newGame(t, DefaultPolicy())
	seat(t, g, "t1", start, "ann", "bob")
	seat(t, g, "t2", start, "cat", "dan")
	join(t, g, start, "wes")
	moved, _, err := g.BreakTable("t1", start.Add(time.Hour))
	if err != nil || len(moved) != 2 {
		t.Fatalf("BreakTable = %+v, %v", moved, err)
	}
	if g.Entries[0].Player != "ann" || g.Entries[1].Player != "bob" || g.Entries[2].Player != "wes" || g.Table("t1") != nil {
		t.Fatalf("entries %+v", g.Entries)
	}
	ev := g.SeatOpened("t2", 2, start.Add(2*time.Hour))
	if len(ev) != 1 || ev[0].Offer.Player != "ann" {
		t.Fatalf("seat to %+v", ev)
	}
	if _, _, err := g.BreakTable("t1", start); !errors.Is(err, ErrTableNotFound) {
		t.Fatalf("break twice = %v", err)
	}
	mustCheck(t, g)
}

// TestTableClosed_TheTableSaysWhoSat: a table the table service closed
// breaks with the players it reports seated (one the floor seated there
// without seating, and not one who already left), plus a player who
// accepted a seat there and had not sat down; its open offers are
// withdrawn, and events about it delivered late or again change nothing.
func TestTableClosed_TheTableSaysWhoSat(t *testing.T) {
	t.Parallel()
	g := newGame(t, DefaultPolicy())
	seat(t, g, "t1", start, "ann", "bob")
	seat(t, g, "t2", start, "cat", "dan")
	join(t, g, start, "wes", "xav")
	at := start.Add(time.Minute)
	g.SeatOpened("t1", 3, at)
	held, _, err := g.Accept(pending(t, g, "wes").ID, "wes", at)
	if err != nil {
		t.Fatal(err)
	}
	g.SeatOpened("t1", 4, at)
	offered := pending(t, g, "xav")
	if offered.Table != "t1" {
		t.Fatalf("xav offered %+v", offered)
	}
	mustCheck(t, g)

	closeAt := start.Add(2 * time.Minute) // wes's seat still held
	moved, ev := g.TableClosed("t1", []string{"ann", "eve"}, closeAt)
	var got []string
	for _, e := range moved {
		if e.Kind != BrokenTable || e.FromTable != "t1" {
			t.Errorf("moved %+v", e)
		}
		got = append(got, e.Player)
	}
	if want := []string{"ann", "eve", "wes"}; !slices.Equal(got, want) {
		t.Fatalf("moved %v, want %v", got, want)
	}
	var order []string
	for _, e := range g.Entries {
		order = append(order, e.Player)
	}
	if want := []string{"ann", "eve", "wes", "xav"}; !slices.Equal(order, want) {
		t.Fatalf("list %v, want %v (bob left before the close)", order, want)
	}
	if g.Table("t1") != nil {
		t.Fatalf("t1 still in the game: %+v", g.Table("t1"))
	}
	for _, o := range g.OpenOffers(closeAt) {
		if o.Table == "t1" {
			t.Errorf("offer of t1 still open: %+v", o)
		}
	}
	withdrawn := map[string]bool{}
	for _, e := range ev {
		if e.Kind == OfferWithdrawn {
			withdrawn[e.Offer.ID] = true
		}
	}
	if !withdrawn[held.ID] || !withdrawn[offered.ID] || len(withdrawn) != 2 {
		t.Fatalf("withdrawn %v, want %s and %s", withdrawn, held.ID, offered.ID)
	}
	mustCheck(t, g)

	before := snapshot(t, g)
	if moved, ev := g.TableClosed("t1", []string{"ann", "eve"}, start.Add(2*time.Hour)); moved != nil || ev != nil {
		t.Fatalf("closed again: %+v %+v", moved, ev)
	}
	g.SeatOpened("t1", 1, start.Add(2*time.Hour))
	g.PlayerSeated("t1", 2, "bob", start.Add(2*time.Hour))
	g.TableOpened("t1", "t1", 9, start.Add(2*time.Hour))
	if after := snapshot(t, g); after != before {
		t.Fatalf("late t1 events changed the game:\n%s\n%s", before, after)
	}

	// The broken table's players come first for the game's other seats.
	if ev := g.SeatOpened("t2", 2, start.Add(3*time.Hour)); len(ev) != 1 || ev[0].Offer.Player != "ann" {
		t.Fatalf("t2 seat to %+v", ev)
	}
	mustCheck(t, g)

	// A close that overtook the table's opening breaks it all the same.
	if moved, _ := g.TableClosed("t3", []string{"fay"}, start.Add(4*time.Hour)); len(moved) != 1 || moved[0].Player != "fay" {
		t.Fatalf("t3 closed before it opened: moved %+v", moved)
	}
	if ev := g.TableOpened("t3", "t3", 6, start.Add(4*time.Hour)); ev != nil || g.Table("t3") != nil {
		t.Fatalf("t3 opened after its close: %+v, %+v", ev, g.Table("t3"))
	}
	mustCheck(t, g)
}

func TestOpenTableSuggestedAtThreshold(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	p.OpenTableThreshold = 3
	g := newGame(t, p)
	var got []int
	for i, pl := range []string{"a", "b", "c", "d"} {
		_, ev, err := g.Join(pl, Remote, start)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ev {
			if e.Kind == OpenTableSuggested {
				got = append(got, i+1)
			}
		}
	}
	if !slices.Equal(got, []int{3}) {
		t.Fatalf("suggested at %v, want once at 3", got)
	}
	if _, err := g.Leave("a", start); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Leave("b", start); err != nil {
		t.Fatal(err)
	}
	_, ev, _ := g.Join("e", Remote, start)
	if !slices.Equal(kinds(ev), []EventKind{OpenTableSuggested}) {
		t.Fatalf("after falling below, %v", kinds(ev))
	}
}

func TestShortAbsenceAsksFloor_CS13(t *testing.T) {
	t.Parallel()
	g := newGame(t, DefaultPolicy())
	clk := clock.NewFake(start)
	seat(t, g, "t1", clk.Now(), "ann", "bob")
	a, ev, err := g.MarkAway("t1", "ann", ShortAbsence, 0, "2026-11-30", false, clk.Now())
	if err != nil || !a.Due.Equal(start.Add(15*time.Minute)) || kinds(ev)[0] != PlayerAway {
		t.Fatalf("MarkAway = %+v, %v", a, err)
	}
	if _, _, err := g.MarkAway("t1", "ann", ShortAbsence, 0, "", false, clk.Now()); !errors.Is(err, ErrAlreadyAway) {
		t.Fatalf("away twice = %v", err)
	}
	if _, _, err := g.DecideAbsence("t1", "ann", true, 0, clk.Now()); !errors.Is(err, ErrNoDecisionPending) {
		t.Fatalf("early decision = %v", err)
	}
	clk.Advance(15 * time.Minute)
	ev = g.Tick(clk.Now())
	if !slices.Equal(kinds(ev), []EventKind{AbsenceOverdue}) || len(g.OverdueAbsences()) != 1 {
		t.Fatalf("overdue events %v", kinds(ev))
	}
	// The floor keeps the seat 10 more minutes, then releases it.
	if _, _, err := g.DecideAbsence("t1", "ann", false, 0, clk.Now()); !errors.Is(err, ErrExtendRequired) {
		t.Fatalf("keep without extend = %v", err)
	}
	if _, _, err := g.DecideAbsence("t1", "ann", false, -time.Minute, clk.Now()); !errors.Is(err, ErrTimerOutOfRange) {
		t.Fatalf("negative extend = %v", err)
	}
	if a, _, err := g.DecideAbsence("t1", "ann", false, 10*time.Minute, clk.Now()); err != nil || a.Overdue {
		t.Fatalf("extend = %+v, %v", a, err)
	}
	clk.Advance(10 * time.Minute)
	g.Tick(clk.Now())
	a, ev, err = g.DecideAbsence("t1", "ann", true, 0, clk.Now())
	if err != nil || !slices.Equal(kinds(ev), []EventKind{SeatReleased}) || a.Player != "ann" {
		t.Fatalf("release = %+v, %v", ev, err)
	}
	if s := g.Table("t1").Seats[0]; s.State != Vacating {
		t.Fatalf("released seat %+v", s)
	}
	mustCheck(t, g)
}

func TestLongBreak_CS14(t *testing.T) {
	t.Parallel()
	g := newGame(t, DefaultPolicy())
	seat(t, g, "t1", start, "ann")
	tests := []struct {
		name  string
		used  bool
		limit time.Duration
		want  error
		due   time.Duration
	}{
		{"CS-14 second long break of the day refused", true, 0, ErrLongBreakUsed, 0},
		{"CS-14 negative limit refused", false, -5 * time.Minute, ErrTimerOutOfRange, 0},
		{"CS-14 absurd limit refused", false, 48 * time.Hour, ErrTimerOutOfRange, 0},
		{"CS-14 floor sets 45 min", false, 45 * time.Minute, nil, 45 * time.Minute},
	}
	for _, tt := range tests {
		before := snapshot(t, g)
		a, _, err := g.MarkAway("t1", "ann", LongBreak, tt.limit, "2026-11-30", tt.used, start)
		if !errors.Is(err, tt.want) {
			t.Fatalf("%s: err %v, want %v", tt.name, err, tt.want)
		}
		if err != nil && snapshot(t, g) != before {
			t.Fatalf("%s: state changed", tt.name)
		}
		if err == nil && !a.Due.Equal(start.Add(tt.due)) {
			t.Fatalf("%s: due %v", tt.name, a.Due)
		}
	}
	if f, _ := fault.As(ErrLongBreakUsed); f.Rule != "CS-14" {
		t.Fatalf("rule %q", f.Rule)
	}
}

func TestPolicyTimers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(*Policy)
		want error
	}{
		{"default", func(*Policy) {}, nil},
		{"negative offer timeout", func(p *Policy) { p.OfferTimeout = -time.Minute }, ErrTimerOutOfRange},
		{"absurd offer timeout", func(p *Policy) { p.OfferTimeout = 10 * time.Hour }, ErrTimerOutOfRange},
		{"zero short absence", func(p *Policy) { p.ShortAbsence = 0 }, ErrTimerOutOfRange},
		{"absurd long break", func(p *Policy) { p.LongBreak = 100 * time.Hour }, ErrTimerOutOfRange},
		{"negative threshold", func(p *Policy) { p.OpenTableThreshold = -1 }, ErrTimerOutOfRange},
	}
	for _, tt := range tests {
		p := DefaultPolicy()
		tt.edit(&p)
		if err := p.Validate(); !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestEstimatedWait(t *testing.T) {
	t.Parallel()
	g := newGame(t, DefaultPolicy())
	if got := g.EstimatedWait(2); got != 20*time.Minute {
		t.Fatalf("default estimate %v", got)
	}
	g.Seatings = []time.Time{start, start.Add(4 * time.Minute), start.Add(12 * time.Minute)}
	if got := g.EstimatedWait(3); got != 18*time.Minute {
		t.Fatalf("estimate %v, want 3 × 6 min", got)
	}
}

// TestRandomOperationsKeepInvariants drives a game with random joins,
// leaves, answers, seat openings, table changes and timers, and checks
// after every step that no seat has two players, nobody holds two seats
// or two offers, and every empty seat that someone could take is offered.
func TestRandomOperationsKeepInvariants(t *testing.T) {
	t.Parallel()
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 1))
		p := DefaultPolicy()
		p.DeclineKeepsPlace, p.ExpiryKeepsPlace = r.IntN(2) == 0, r.IntN(2) == 0
		g := newGame(t, p)
		clk := clock.NewFake(start)
		players := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"}
		g.TableOpened("t1", "", 4, clk.Now())
		g.TableOpened("t2", "", 4, clk.Now())
		g.SetMustMove("t2", r.IntN(2) == 0, clk.Now())
		for step := range 400 {
			pl := players[r.IntN(len(players))]
			now := clk.Now()
			switch r.IntN(8) {
			case 0:
				g.Join(pl, Remote, now)
			case 1:
				g.Leave(pl, now)
			case 2, 3:
				for _, o := range g.PendingOffers() {
					if o.Player == pl {
						g.Accept(o.ID, pl, now)
					}
				}
			case 4:
				for _, o := range g.PendingOffers() {
					if o.Player == pl {
						g.Decline(o.ID, pl, now)
					}
				}
			case 5:
				tb := []string{"t1", "t2"}[r.IntN(2)]
				g.SeatOpened(tb, 1+r.IntN(4), now)
			case 6:
				g.RequestTableChange(pl, now)
			case 7:
				clk.Advance(time.Duration(r.IntN(90)) * time.Second)
				g.Tick(clk.Now())
			}
			if r.IntN(6) == 0 { // the table reports someone sitting down
				tb := []string{"t1", "t2"}[r.IntN(2)]
				g.PlayerSeated(tb, 1+r.IntN(4), pl, clk.Now())
			}
			if err := g.Check(); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			// No open seat while someone eligible waits.
			for _, tb := range g.Tables {
				for _, s := range tb.Seats {
					if s.State == Open && g.firstEligible(&tb, &s) != nil {
						t.Fatalf("seed %d step %d: %s seat %d open with an eligible player", seed, step, tb.ID, s.Number)
					}
				}
			}
		}
	}
}

func TestAcceptedSeatHeldUntilSitDown(t *testing.T) {
	t.Parallel()
	g := newGame(t, DefaultPolicy())
	clk := clock.NewFake(start)
	join(t, g, clk.Now(), "ann", "bob")
	g.TableOpened("t1", "", 1, clk.Now())
	o, _, err := g.Accept(pending(t, g, "ann").ID, "ann", clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	if open := g.OpenOffers(clk.Now()); len(open) != 1 || open[0].ID != o.ID {
		t.Fatalf("open offers while held %+v", open)
	}
	if !g.NextDue().Equal(start.Add(5 * time.Minute)) {
		t.Fatalf("next due %v", g.NextDue())
	}
	// ann never sits down: when the hold lapses the seat goes to bob.
	clk.Advance(5 * time.Minute)
	ev := g.Tick(clk.Now())
	if !slices.Equal(kinds(ev), []EventKind{HoldLapsed, OfferMade}) || ev[0].Offer.ID != o.ID || ev[1].Offer.Player != "bob" {
		t.Fatalf("lapse events %+v", ev)
	}
	if len(g.OpenOffers(clk.Now())) != 1 || g.OpenOffers(clk.Now())[0].Player != "bob" {
		t.Fatalf("open offers after lapse %+v", g.OpenOffers(clk.Now()))
	}
	mustCheck(t, g)

	// bob accepts and sits down in time: the hold no longer lapses, and a
	// repeated report changes nothing.
	b, _, err := g.Accept(pending(t, g, "bob").ID, "bob", clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	if open := g.OpenOffers(clk.Now()); len(open) != 1 || open[0].ID != b.ID {
		t.Fatalf("bob's accepted offer not open before he sits: %+v", open)
	}
	g.PlayerSeated("t1", 0, "bob", clk.Now())
	// Sitting down uses the offer up, though its hold would still run.
	if open := g.OpenOffers(clk.Now()); len(open) != 0 {
		t.Fatalf("open offers after bob sat down %+v", open)
	}
	before := snapshot(t, g)
	if ev := g.PlayerSeated("t1", 0, "bob", clk.Now()); len(ev) != 0 || snapshot(t, g) != before {
		t.Fatalf("repeated report %+v", ev)
	}
	clk.Advance(time.Hour)
	if ev := g.Tick(clk.Now()); len(ev) != 0 {
		t.Fatalf("seated seat lapsed: %+v", ev)
	}
	if s := g.Table("t1").Seats[0]; s.State != Taken || s.Player != "bob" || !s.Seated || s.Offer != b.ID {
		t.Fatalf("seat %+v", s)
	}
}

func TestFloorSeatsDirectlyAtTheTable(t *testing.T) {
	t.Parallel()
	g := newGame(t, DefaultPolicy())
	join(t, g, start, "ann", "bob")
	g.TableOpened("t1", "", 2, start)
	annOffer := pending(t, g, "ann")
	// The floor sits bob in ann's offered seat: the table is the truth.
	ev := g.PlayerSeated("t1", annOffer.Seat, "bob", start)
	if !slices.Equal(kinds(ev), []EventKind{OfferWithdrawn, OfferWithdrawn, OfferMade}) {
		t.Fatalf("events %v", kinds(ev))
	}
	if tb, s := g.SeatOf("bob"); tb == nil || s.Number != annOffer.Seat || g.Position("bob") != 0 {
		t.Fatalf("bob %v %+v at %d", tb, s, g.Position("bob"))
	}
	// ann keeps her place and is offered the other seat.
	if o := pending(t, g, "ann"); o.Seat == annOffer.Seat || g.Position("ann") != 1 {
		t.Fatalf("ann's new offer %+v", o)
	}
	mustCheck(t, g)
}

func TestLateSitDownBumpsTheNextAcceptance(t *testing.T) {
	t.Parallel()
	g := newGame(t, DefaultPolicy())
	join(t, g, start, "ann", "bob")
	g.TableOpened("t1", "", 1, start)
	if _, _, err := g.Accept(pending(t, g, "ann").ID, "ann", start); err != nil {
		t.Fatal(err)
	}
	// ann's hold lapses; bob accepts the seat; then the table reports ann
	// seated (it checked her offer just before the lapse).
	g.Tick(start.Add(5 * time.Minute))
	bob, _, err := g.Accept(pending(t, g, "bob").ID, "bob", start.Add(5*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	ev := g.PlayerSeated("t1", 0, "ann", start.Add(5*time.Minute+time.Second))
	if len(ev) != 1 || ev[0].Kind != OfferWithdrawn || ev[0].Offer.ID != bob.ID {
		t.Fatalf("events %+v", ev)
	}
	if tb, s := g.SeatOf("ann"); tb == nil || s.Offer != "" || !s.Seated {
		t.Fatalf("ann %+v", s)
	}
	if g.Position("bob") != 1 || g.Entries[0].Kind != BrokenTable || g.Offer(bob.ID).State != Withdrawn {
		t.Fatalf("bob not first: %+v", g.Entries)
	}
	mustCheck(t, g)
}

// TestTableOpenedOffersTheTablesOwnSeatNumbers: the table service numbers
// seats from 0 to seats-1 (tablev1.Seat), so a new table's offers name
// exactly those seats — seat N of an N-seat table does not exist there.
func TestTableOpenedOffersTheTablesOwnSeatNumbers(t *testing.T) {
	t.Parallel()
	g := newGame(t, DefaultPolicy())
	players := []string{"ann", "bob", "cat", "dan"}
	join(t, g, start, players...)
	g.TableOpened("t1", "", 3, start)
	var got []int
	for _, s := range g.Table("t1").Seats {
		got = append(got, s.Number)
	}
	if !slices.Equal(got, []int{0, 1, 2}) {
		t.Fatalf("seats %v, want 0, 1, 2", got)
	}
	var offered []int
	for _, o := range g.PendingOffers() {
		offered = append(offered, o.Seat)
	}
	slices.Sort(offered)
	if !slices.Equal(offered, []int{0, 1, 2}) {
		t.Fatalf("offered seats %v, want 0, 1, 2", offered)
	}
	mustCheck(t, g)
}

func TestDutyAtFollowsTheRecord_CS13_CS14_TP56(t *testing.T) {
	t.Parallel()
	g := newGame(t, DefaultPolicy())
	clk := clock.NewFake(start)
	seat(t, g, "t1", clk.Now(), "ann", "bob")
	duty := func(player string) TableDuty {
		_, d := g.DutyAt("t1", player)
		return d
	}
	if d := duty("ann"); d != ReturnDuty {
		t.Fatalf("TP-56 ann at her seat: %v", d)
	}
	if _, _, err := g.MarkAway("t1", "ann", LongBreak, 0, "2026-11-30", false, clk.Now()); err != nil {
		t.Fatal(err)
	}
	if s, d := g.DutyAt("t1", "ann"); d != SitOutDuty || s != g.Table("t1").Seats[0].Number {
		t.Fatalf("CS-14 ann on the long break: seat %d %v", s, d)
	}
	if _, _, err := g.MarkBack("t1", "ann"); err != nil {
		t.Fatal(err)
	}
	if d := duty("ann"); d != ReturnDuty {
		t.Fatalf("TP-15/TP-18 ann back: %v", d)
	}
	if _, _, err := g.MarkAway("t1", "bob", ShortAbsence, 0, "2026-11-30", false, clk.Now()); err != nil {
		t.Fatal(err)
	}
	clk.Advance(g.Policy.ShortAbsence)
	g.Tick(clk.Now())
	if d := duty("bob"); d != SitOutDuty {
		t.Fatalf("CS-13 bob overdue stays sat out: %v", d)
	}
	if _, _, err := g.DecideAbsence("t1", "bob", true, 0, clk.Now()); err != nil {
		t.Fatal(err)
	}
	bobSeat, d := g.DutyAt("t1", "bob")
	if d != ReleaseDuty {
		t.Fatalf("CS-13 bob released: %v", d)
	}
	g.SeatOpened("t1", bobSeat, clk.Now())
	for _, c := range []struct{ table, player string }{{"t1", "bob"}, {"t1", "cat"}, {"t9", "ann"}} {
		if _, d := g.DutyAt(c.table, c.player); d != NoDuty {
			t.Fatalf("%s at %s: %v, want none", c.player, c.table, d)
		}
	}
}

func TestPlayerSeatedInAnotherGame_G21(t *testing.T) {
	t.Parallel()
	g := newGame(t, DefaultPolicy())
	join(t, g, start, "p9", "p10", "p11")
	// p9 holds a seat in another game: not offered a seat here, and keeps
	// their place on the list.
	g.Busy(map[string]string{"p9": "a1"}, start)
	ev := g.TableOpened("b1", "b1", 1, start)
	if o := pending(t, g, "p10"); o.Table != "b1" || !slices.Equal(kinds(ev), []EventKind{OfferMade}) {
		t.Fatalf("G-21 the first offer went to %+v (%v), want p10", o, kinds(ev))
	}
	if g.Position("p9") != 1 {
		t.Fatalf("G-21 p9 lost their place: %d", g.Position("p9"))
	}
	// p10 sits in the other game while holding the offer: it is withdrawn
	// and goes to the next player.
	offer := pending(t, g, "p10")
	ev = g.Busy(map[string]string{"p9": "a1", "p10": "a2"}, start)
	if !slices.Equal(kinds(ev), []EventKind{OfferWithdrawn, OfferMade}) || pending(t, g, "p11").Table != "b1" {
		t.Fatalf("G-21 p10's offer withdrawn and passed on: %v", kinds(ev))
	}
	if _, _, err := g.Accept(offer.ID, "p10", start); !errors.Is(err, ErrOfferClosed) {
		t.Fatalf("G-21 accepting the withdrawn offer: %v", err)
	}
	mustCheck(t, g)
	// An offer the player holds when the other seat is taken cannot be
	// accepted: G-21 names the seat held.
	g2 := newGame(t, DefaultPolicy())
	join(t, g2, start, "p12")
	g2.TableOpened("c1", "c1", 1, start)
	o := pending(t, g2, "p12")
	g2.Elsewhere = map[string]string{"p12": "a3"}
	_, _, err := g2.Accept(o.ID, "p12", start)
	if f, ok := fault.As(err); !ok || f.Rule != "G-21" || f.Reason != "SEATED_AT_ANOTHER_TABLE" || f.Meta["table_id"] != "a3" {
		t.Fatalf("G-21 accept while seated elsewhere: %v", err)
	}
}

// TestRefusalsNameTheirRule_G21_CS13: every seating refusal carries its
// rule, and a request at odds with the list's state is a conflict (409
// over REST), not a malformed one.
func TestRefusalsNameTheirRule_G21_CS13(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  *fault.Error
		kind fault.Kind
		rule string
	}{
		{ErrAlreadyOnList, fault.Conflict, "G-21"},
		{ErrAlreadySeated, fault.Conflict, "G-21"},
		{ErrNotSeated, fault.Conflict, "G-21"},
		{ErrSeatedElsewhere, fault.Conflict, "G-21"},
		{ErrOfferClosed, fault.Conflict, "G-21"},
		{ErrOfferExpired, fault.Conflict, "G-21"},
		{ErrOfferNotYours, fault.Forbidden, "G-21"},
		{ErrFloorSignUpOnly, fault.Precondition, "G-21"},
		{ErrReasonRequired, fault.Invalid, "G-21"},
		{ErrTimerOutOfRange, fault.Invalid, "G-20"},
		{ErrAlreadyAway, fault.Conflict, "CS-13"},
		{ErrNotAway, fault.Conflict, "CS-13"},
		{ErrNoDecisionPending, fault.Conflict, "CS-13"},
		{ErrExtendRequired, fault.Invalid, "CS-13"},
		{ErrLongBreakUsed, fault.Precondition, "CS-14"},
	}
	for _, tt := range tests {
		if tt.err.Kind != tt.kind || tt.err.Rule != tt.rule {
			t.Errorf("%s: %v %q, want %v %q", tt.err.Reason, tt.err.Kind, tt.err.Rule, tt.kind, tt.rule)
		}
	}
	// An offer whose time ran out says so, also after the sweep closed it.
	g := newGame(t, DefaultPolicy())
	join(t, g, start, "ann")
	g.TableOpened("t1", "t1", 1, start)
	o := pending(t, g, "ann")
	late := start.Add(g.Policy.OfferTimeout)
	if _, _, err := g.Accept(o.ID, "ann", late); !errors.Is(err, ErrOfferExpired) {
		t.Fatalf("accepting at expiry: %v", err)
	}
	g.Tick(late)
	if _, _, err := g.Accept(o.ID, "ann", late); !errors.Is(err, ErrOfferExpired) {
		t.Fatalf("accepting an expired offer after the sweep: %v", err)
	}
}
