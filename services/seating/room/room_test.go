package room

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	seatingv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/seating/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/seating/store"
	"github.com/cardroom/cardroom/services/seating/waitlist"
	"github.com/cardroom/cardroom/services/seating/wire"
)

// 18:00 in Helsinki (UTC+2 in winter).
var evening = time.Date(2026, 11, 30, 16, 0, 0, 0, time.UTC)

var nlhe = &gamev1.Game{Variant: gamev1.Variant_VARIANT_HOLDEM, Structure: gamev1.Structure_STRUCTURE_NO_LIMIT,
	Stakes: &gamev1.Stakes{SmallBlind: 200, BigBlind: 500}}

type fixture struct {
	room  *Room
	db    *sqlstore.DB
	clock *clock.Fake
	relay *events.Relay
	bus   *events.Memory
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	db := testkit.SQLite(t, sqlstore.Options{Service: "seating", Migrations: store.Migrations(), Shared: []sqlstore.MigrationSet{events.Migrations}})
	clk := clock.NewFake(evening)
	bus := events.NewMemory(events.MemoryOptions{})
	relay := events.NewRelay(db, bus, events.RelayOptions{Clock: clk})
	r, err := New(Deps{Store: store.New(db, lock.NewLocal()), Relay: relay, Bus: bus, Clock: clk}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{room: r, db: db, clock: clk, relay: relay, bus: bus}
}

func tableOpened(t *testing.T, id string, seats int) events.Event {
	t.Helper()
	b, err := proto.Marshal(&tablev1.TableOpened{TableId: id, Name: id, Game: nlhe, Seats: int32(seats), Kind: tablev1.TableKind_TABLE_KIND_CASH})
	if err != nil {
		t.Fatal(err)
	}
	return events.Event{ID: "opened-" + id, Topic: events.TopicTableOpened, Key: id, Payload: b}
}

func seatOpened(t *testing.T, eventID, table string, seat int) events.Event {
	t.Helper()
	b, err := proto.Marshal(&tablev1.SeatOpened{TableId: table, Seat: int32(seat), Game: nlhe})
	if err != nil {
		t.Fatal(err)
	}
	return events.Event{ID: eventID, Topic: events.TopicSeatOpened, Key: table, Payload: b}
}

// list returns the id of the NL 2/5 list.
func (f *fixture) list(t *testing.T) string {
	t.Helper()
	id, err := f.room.store.ByGame(t.Context(), wire.Spec(nlhe))
	if err != nil || id == "" {
		t.Fatalf("no list: %q %v", id, err)
	}
	return id
}

func (f *fixture) game(t *testing.T) *waitlist.Game {
	t.Helper()
	rec, err := f.room.Get(t.Context(), f.list(t))
	if err != nil {
		t.Fatal(err)
	}
	return rec.Game
}

func (f *fixture) offerOf(t *testing.T, player string) waitlist.Offer {
	t.Helper()
	offers, err := f.room.Offers(t.Context(), player)
	if err != nil || len(offers) != 1 {
		t.Fatalf("offers of %s = %+v, %v", player, offers, err)
	}
	return offers[0].Offer
}

// seated opens a table for players and seats them through accepted offers.
func (f *fixture) seated(t *testing.T, table string, players ...string) {
	t.Helper()
	ctx := t.Context()
	if _, err := f.room.CreateWaitlist(ctx, wire.Spec(nlhe), waitlist.DefaultPolicy()); err != nil && !errors.Is(err, store.ErrExists) {
		t.Fatal(err)
	}
	for _, p := range players {
		if _, err := f.room.Join(ctx, f.list(t), p, Actor{Subject: p}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.room.HandleTableOpened(ctx, tableOpened(t, table, len(players))); err != nil {
		t.Fatal(err)
	}
	for _, p := range players {
		o, err := f.room.Answer(ctx, f.offerOf(t, p).ID, p, true, Actor{Subject: p})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.room.HandlePlayerSeated(ctx, playerSeated(t, o.Offer)); err != nil {
			t.Fatal(err)
		}
	}
}

// playerSeated is the table's report that the player sat with offer o.
func playerSeated(t *testing.T, o waitlist.Offer) events.Event {
	t.Helper()
	b, err := proto.Marshal(&tablev1.PlayerSeated{TableId: o.Table, Seat: int32(o.Seat), PlayerId: o.Player, Stack: 50000, OfferId: o.ID})
	if err != nil {
		t.Fatal(err)
	}
	return events.Event{ID: "seated-" + o.ID, Topic: events.TopicPlayerSeated, Key: o.Table, Payload: b}
}

func TestOfferExpiresToNextPlayerOnTheSweep(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	expired := make(chan *seatingv1.OfferEvent, 4)
	subCtx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	go f.bus.Subscribe(subCtx, "seating.offer_expired", "test", func(_ context.Context, ev events.Event) error {
		var m seatingv1.OfferEvent
		if err := proto.Unmarshal(ev.Payload, &m); err != nil {
			return err
		}
		expired <- &m
		return nil
	})
	g, err := f.room.CreateWaitlist(ctx, wire.Spec(nlhe), waitlist.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"ann", "bob"} {
		if _, err := f.room.Join(ctx, g.ID, p, Actor{Subject: p}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.room.HandleTableOpened(ctx, tableOpened(t, "t1", 1)); err != nil {
		t.Fatal(err)
	}
	ann := f.offerOf(t, "ann")
	f.clock.Advance(3*time.Minute - time.Millisecond)
	if err := f.room.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if o := f.offerOf(t, "ann"); o.ID != ann.ID {
		t.Fatalf("offer moved early: %+v", o)
	}
	f.clock.Advance(time.Millisecond)
	if err := f.room.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	bob := f.offerOf(t, "bob")
	if bob.Table != "t1" || bob.Seat != 0 {
		t.Fatalf("bob's offer %+v", bob)
	}
	// Accepting the expired offer: refused with the reason, nothing changes.
	before := f.game(t)
	if _, err := f.room.Answer(ctx, ann.ID, "ann", true, Actor{Subject: "ann"}); !errors.Is(err, waitlist.ErrOfferExpired) {
		t.Fatalf("accept expired = %v", err)
	}
	if after := f.game(t); after.Seq != before.Seq || len(after.PendingOffers()) != 1 {
		t.Fatalf("state changed: %+v", after)
	}
	// The expiry went out through the outbox.
	if _, err := f.relay.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-expired:
		if m.GetOffer().GetOfferId() != ann.ID || m.GetOffer().GetState() != seatingv1.OfferState_OFFER_STATE_EXPIRED {
			t.Fatalf("event %v", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no seating.offer_expired event")
	}
}

func TestTableEventsAppliedOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	// No list yet: table.opened opens one for the game.
	for range 2 {
		if err := f.room.HandleTableOpened(ctx, tableOpened(t, "t1", 2)); err != nil {
			t.Fatal(err)
		}
	}
	g := f.game(t)
	if len(g.Tables) != 1 || len(g.Tables[0].Seats) != 2 || g.Policy != waitlist.DefaultPolicy() {
		t.Fatalf("game %+v", g)
	}
	f.seated(t, "t1", "ann", "bob")
	if _, err := f.room.Join(ctx, f.list(t), "cat", Actor{Subject: "cat"}); err != nil {
		t.Fatal(err)
	}
	// ann leaves: the same event delivered three times offers one seat once.
	for range 3 {
		if err := f.room.HandleSeatOpened(ctx, seatOpened(t, "e1", "t1", 0)); err != nil {
			t.Fatal(err)
		}
	}
	g = f.game(t)
	if p := g.PendingOffers(); len(p) != 1 || p[0].Player != "cat" || p[0].Seat != 0 {
		t.Fatalf("offers %+v", p)
	}
	// A tournament table is not seating's.
	b, _ := proto.Marshal(&tablev1.TableOpened{TableId: "tt", Game: nlhe, Seats: 9, Kind: tablev1.TableKind_TABLE_KIND_TOURNAMENT})
	if err := f.room.HandleTableOpened(ctx, events.Event{ID: "x", Topic: events.TopicTableOpened, Payload: b}); err != nil {
		t.Fatal(err)
	}
	if f.game(t).Table("tt") != nil {
		t.Fatal("tournament table seated from the list")
	}
}

func TestLongBreakOncePerGamingDay_CS14(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	f.seated(t, "t1", "ann")
	ann := Actor{Subject: "ann"}
	a, _, err := f.room.MarkAway(ctx, "t1", "ann", waitlist.LongBreak, 0, ann)
	if err != nil || !a.Due.Equal(f.clock.Now().Add(30*time.Minute)) || a.GamingDay != "2026-11-30" {
		t.Fatalf("CS-14 first long break = %+v, %v", a, err)
	}
	f.clock.Advance(25 * time.Minute)
	if err := f.room.MarkBack(ctx, "t1", "ann"); err != nil {
		t.Fatal(err)
	}
	// Later that night (02:00 Helsinki, still the same gaming day): refused.
	f.clock.Set(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	if _, _, err := f.room.MarkAway(ctx, "t1", "ann", waitlist.LongBreak, 0, ann); !errors.Is(err, waitlist.ErrLongBreakUsed) {
		t.Fatalf("CS-14 second long break = %v", err)
	}
	// A player cannot set their own limit; a short absence is still allowed.
	if _, _, err := f.room.MarkAway(ctx, "t1", "ann", waitlist.ShortAbsence, time.Hour, ann); !errors.Is(err, ErrLimitForFloor) {
		t.Fatalf("player's own limit = %v", err)
	}
	if _, _, err := f.room.MarkAway(ctx, "t1", "ann", waitlist.ShortAbsence, 0, ann); err != nil {
		t.Fatal(err)
	}
	if err := f.room.MarkBack(ctx, "t1", "ann"); err != nil {
		t.Fatal(err)
	}
	// The gaming day turns over at 06:00 Helsinki (04:00 UTC): a new break.
	f.clock.Set(time.Date(2026, 12, 1, 4, 0, 0, 0, time.UTC))
	a, _, err = f.room.MarkAway(ctx, "t1", "ann", waitlist.LongBreak, 0, ann)
	if err != nil || a.GamingDay != "2026-12-01" {
		t.Fatalf("CS-14 long break of the next gaming day = %+v, %v", a, err)
	}
}

func TestOverdueAbsenceGoesToTheFloor_CS13(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	f.seated(t, "t1", "ann", "bob")
	if _, err := f.room.Join(ctx, f.list(t), "cat", Actor{Subject: "cat"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.room.MarkAway(ctx, "t1", "ann", waitlist.ShortAbsence, 0, Actor{Subject: "dealer-1", Floor: true}); err != nil {
		t.Fatal(err)
	}
	floor := Actor{Subject: "floor-1", Floor: true}
	if _, err := f.room.DecideAbsence(ctx, "t1", "ann", true, 0, "", floor); !errors.Is(err, waitlist.ErrNoDecisionPending) {
		t.Fatalf("CS-13 decision before the timer = %v", err)
	}
	f.clock.Advance(15 * time.Minute)
	if err := f.room.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	pending, err := f.room.Absences(ctx, true)
	if err != nil || len(pending) != 1 || pending[0].Absence.Player != "ann" || !pending[0].Absence.Overdue {
		t.Fatalf("CS-13 pending decisions = %+v, %v", pending, err)
	}
	d, err := f.room.DecideAbsence(ctx, "t1", "ann", true, 0, "gone 15 min, no word", floor)
	if err != nil || d.Action != "release_seat" || d.ID == "" {
		t.Fatalf("CS-13 release = %+v, %v", d, err)
	}
	if pending, _ := f.room.Absences(ctx, true); len(pending) != 0 {
		t.Fatalf("still pending %+v", pending)
	}
	if s := f.game(t).Table("t1").Seats[0]; s.State != waitlist.Vacating {
		t.Fatalf("released seat %+v", s)
	}
	// The table clears the seat: cat is offered it.
	if err := f.room.HandleSeatOpened(ctx, seatOpened(t, "e-rel", "t1", 0)); err != nil {
		t.Fatal(err)
	}
	if o := f.offerOf(t, "cat"); o.Seat != 0 {
		t.Fatalf("cat's offer %+v", o)
	}
	ds, err := f.room.Decisions(ctx, f.list(t), 10)
	if err != nil || len(ds) != 1 || ds[0].Floor != "floor-1" || ds[0].Reason != "gone 15 min, no word" {
		t.Fatalf("CS-13 recorded decisions = %+v, %v", ds, err)
	}
}

func TestBoardSeesChanges(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	w := f.room.Board().Watch()
	defer w.Close()
	g, err := f.room.CreateWaitlist(ctx, wire.Spec(nlhe), waitlist.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.room.Join(ctx, g.ID, "ann", Actor{Subject: "ann"}); err != nil {
		t.Fatal(err)
	}
	<-w.Wake()
	if ids := w.Changed(); len(ids) != 1 || ids[0] != g.ID {
		t.Fatalf("changed %v", ids)
	}
	// A change another replica made (written straight to the store) is
	// found by the poll.
	other := store.New(f.db, lock.NewLocal())
	if _, err := other.Update(ctx, g.ID, func(_ *sqlstore.Tx, g *waitlist.Game, _ int64) error {
		_, _, err := g.Join("bob", waitlist.Remote, evening)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := f.room.board.poll(ctx, f.room.store.Versions); err != nil {
		t.Fatal(err)
	}
	<-w.Wake()
	if ids := w.Changed(); len(ids) != 1 || ids[0] != g.ID {
		t.Fatalf("changed after poll %v", ids)
	}
}

func TestRunStopsWithItsContext(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- f.room.Run(ctx) }()
	// Let the sweeper fire on the fake clock while nothing is due.
	for range 3 {
		f.clock.Advance(time.Second)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not stop")
	}
}

// fakeTables records what seating asks of the table service.
type fakeTables struct{ calls []string }

func (f *fakeTables) record(what, table string, seat int, player string) error {
	f.calls = append(f.calls, fmt.Sprintf("%s %s/%d %s", what, table, seat, player))
	return nil
}

func (f *fakeTables) SitOut(_ context.Context, table string, seat int, player string) error {
	return f.record("sit-out", table, seat, player)
}

func (f *fakeTables) Return(_ context.Context, table string, seat int, player string) error {
	return f.record("return", table, seat, player)
}

func (f *fakeTables) Release(_ context.Context, table string, seat int, player string) error {
	return f.record("release", table, seat, player)
}

// absenceEvent is seating's own event of kind k about player's absence.
func absenceEvent(t *testing.T, k waitlist.EventKind, table, player string) events.Event {
	t.Helper()
	ev, err := wire.Event(&waitlist.Game{}, waitlist.Event{Kind: k, Absence: waitlist.Absence{Table: table, Player: player}})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func TestAbsenceTakesEffectAtTheTable_CS13_CS14_TP56(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tables := &fakeTables{}
	f.room.tables = tables
	ctx := t.Context()
	f.seated(t, "t1", "ann", "bob")
	annSeat, _ := f.game(t).DutyAt("t1", "ann")
	bobSeat, _ := f.game(t).DutyAt("t1", "bob")
	handle := func(k waitlist.EventKind, player string) {
		t.Helper()
		if err := f.room.HandleAbsence(ctx, absenceEvent(t, k, "t1", player)); err != nil {
			t.Fatal(err)
		}
	}
	player := Actor{Subject: "ann"}
	if _, _, err := f.room.MarkAway(ctx, "t1", "ann", waitlist.LongBreak, 0, player); err != nil {
		t.Fatal(err)
	}
	handle(waitlist.PlayerAway, "ann")
	if err := f.room.MarkBack(ctx, "t1", "ann"); err != nil {
		t.Fatal(err)
	}
	handle(waitlist.PlayerBack, "ann")
	// A late redelivery of the away event: the record says ann is back.
	handle(waitlist.PlayerAway, "ann")
	floor := Actor{Subject: "floor-1", Floor: true}
	if _, _, err := f.room.MarkAway(ctx, "t1", "bob", waitlist.ShortAbsence, 0, floor); err != nil {
		t.Fatal(err)
	}
	handle(waitlist.PlayerAway, "bob")
	f.clock.Advance(15 * time.Minute)
	if err := f.room.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := f.room.DecideAbsence(ctx, "t1", "bob", true, 0, "gone", floor); err != nil {
		t.Fatal(err)
	}
	// An away event overtaken by the release does not stand bob up; the
	// release does, once however often it comes.
	handle(waitlist.PlayerAway, "bob")
	handle(waitlist.SeatReleased, "bob")
	if err := f.room.HandleSeatOpened(ctx, seatOpened(t, "e-rel", "t1", bobSeat)); err != nil {
		t.Fatal(err)
	}
	handle(waitlist.SeatReleased, "bob")
	want := []string{
		fmt.Sprintf("sit-out t1/%d ann", annSeat), fmt.Sprintf("return t1/%d ann", annSeat), fmt.Sprintf("return t1/%d ann", annSeat),
		fmt.Sprintf("sit-out t1/%d bob", bobSeat), fmt.Sprintf("release t1/%d bob", bobSeat),
	}
	if !slices.Equal(tables.calls, want) {
		t.Fatalf("calls to the table:\n got %q\nwant %q", tables.calls, want)
	}
}

// TestAcceptingWithdrawsOffersInOtherGames_G21: a player offered seats in
// two games who accepts one has the other withdrawn at once, and that seat
// goes to the next player of its list; the player keeps their place there.
func TestAcceptingWithdrawsOffersInOtherGames_G21(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	plo := &gamev1.Game{Variant: gamev1.Variant_VARIANT_OMAHA, Structure: gamev1.Structure_STRUCTURE_POT_LIMIT,
		Stakes: &gamev1.Stakes{SmallBlind: 200, BigBlind: 500}}
	lists := map[*gamev1.Game][]string{nlhe: {"p12"}, plo: {"p12", "p13"}}
	for _, game := range []*gamev1.Game{nlhe, plo} {
		wl, err := f.room.CreateWaitlist(ctx, wire.Spec(game), waitlist.DefaultPolicy())
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range lists[game] {
			if _, err := f.room.Join(ctx, wl.ID, p, Actor{Subject: p}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := f.room.HandleTableOpened(ctx, tableOpened(t, "a1", 1)); err != nil {
		t.Fatal(err)
	}
	b, err := proto.Marshal(&tablev1.TableOpened{TableId: "b1", Name: "b1", Game: plo, Seats: 1, Kind: tablev1.TableKind_TABLE_KIND_CASH})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.room.HandleTableOpened(ctx, events.Event{ID: "opened-b1", Topic: events.TopicTableOpened, Key: "b1", Payload: b}); err != nil {
		t.Fatal(err)
	}
	offers, err := f.room.Offers(ctx, "p12")
	if err != nil || len(offers) != 2 {
		t.Fatalf("p12 offered a seat in both games: %+v %v", offers, err)
	}
	var inA string
	for _, o := range offers {
		if o.Offer.Table == "a1" {
			inA = o.Offer.ID
		}
	}
	if _, err := f.room.Answer(ctx, inA, "p12", true, Actor{Subject: "p12"}); err != nil {
		t.Fatal(err)
	}
	offers, err = f.room.Offers(ctx, "p12")
	if err != nil || len(offers) != 1 || offers[0].Offer.Table != "a1" || offers[0].Offer.State != waitlist.Accepted {
		t.Fatalf("G-21 p12's offers after accepting a1: %+v %v", offers, err)
	}
	if o := f.offerOf(t, "p13"); o.Table != "b1" || o.State != waitlist.Pending {
		t.Fatalf("G-21 b1 went to %+v, want p13", o)
	}
	// p12 keeps their place on the PL Omaha list, not offered seats there
	// while seated in the other game.
	id, err := f.room.store.ByGame(ctx, wire.Spec(plo))
	if err != nil {
		t.Fatal(err)
	}
	ploList, err := f.room.Get(ctx, id)
	if err != nil || ploList.Game.Position("p12") != 1 {
		t.Fatalf("G-21 p12's place on the PL Omaha list: %d %v", ploList.Game.Position("p12"), err)
	}
}
