package room

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/testkit"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/seating/waitlist"
)

func tableClosed(t *testing.T, eventID, table string, kind tablev1.TableKind, players ...*tablev1.SeatPlayer) events.Event {
	t.Helper()
	b, err := proto.Marshal(&tablev1.TableClosed{TableId: table, Game: nlhe, Kind: kind, Players: players})
	if err != nil {
		t.Fatal(err)
	}
	return events.Event{ID: eventID, Topic: events.TopicTableClosed, Key: table, Payload: b}
}

// TestTableClosedBreaksTheTable: table.closed, delivered by the bus to the
// running room, breaks the table as the floor's BreakTable does: the open
// offer of its seat is withdrawn, the table leaves the game, and the
// players the table reports (in seat order, whatever order the event
// lists them in) get the game's next seat before the waitlist.
// Redeliveries, late events about the table and a tournament table's close
// change nothing; a table.closed that overtakes its table.opened still
// breaks the table.
func TestTableClosedBreaksTheTable(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	f.seated(t, "t1", "ann", "bob")
	f.seated(t, "t2", "cat")
	for _, p := range []string{"dan", "eve"} {
		if _, err := f.room.Join(ctx, f.list(t), p, Actor{Subject: p}); err != nil {
			t.Fatal(err)
		}
	}
	// The third seat of t1 (seat 2) is offered to dan.
	if err := f.room.HandleSeatOpened(ctx, seatOpened(t, "t1-2", "t1", 2)); err != nil {
		t.Fatal(err)
	}
	if o := f.offerOf(t, "dan"); o.Table != "t1" {
		t.Fatalf("dan offered %+v", o)
	}

	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- f.room.Run(runCtx) }()
	t.Cleanup(func() {
		stop()
		<-done
	})
	closed := tableClosed(t, "closed-t1", "t1", tablev1.TableKind_TABLE_KIND_CASH,
		&tablev1.SeatPlayer{Seat: 1, PlayerId: "bob"}, &tablev1.SeatPlayer{Seat: 0, PlayerId: "ann"})
	for range 2 {
		if err := f.bus.Publish(ctx, closed); err != nil {
			t.Fatal(err)
		}
	}
	testkit.Eventually(t, 10*time.Second, func() error {
		if f.game(t).Table("t1") != nil {
			return errors.New("table.closed not applied")
		}
		return nil
	})
	g := f.game(t)
	want := []waitlist.Entry{
		{Player: "ann", Kind: waitlist.BrokenTable, FromTable: "t1"},
		{Player: "bob", Kind: waitlist.BrokenTable, FromTable: "t1"},
		{Player: "dan", Kind: waitlist.Waiting},
		{Player: "eve", Kind: waitlist.Waiting},
	}
	got := make([]waitlist.Entry, 0, len(g.Entries))
	for _, e := range g.Entries {
		got = append(got, waitlist.Entry{Player: e.Player, Kind: e.Kind, FromTable: e.FromTable})
	}
	if !slices.Equal(got, want) {
		t.Fatalf("list after the close %+v, want %+v", got, want)
	}
	if offers, err := f.room.Offers(ctx, "dan"); err != nil || len(offers) != 0 {
		t.Fatalf("dan's offers after the close: %+v, %v", offers, err)
	}

	// Again, late, or not seating's: nothing changes.
	before := snapshotOf(t, f)
	for _, c := range []struct {
		name string
		h    func(context.Context, events.Event) error
		ev   events.Event
	}{
		{"redelivery", f.room.HandleTableClosed, closed},
		{"closed twice", f.room.HandleTableClosed, tableClosed(t, "closed-t1-again", "t1", tablev1.TableKind_TABLE_KIND_CASH)},
		{"late seat_opened", f.room.HandleSeatOpened, seatOpened(t, "t1-1", "t1", 0)},
		{"tournament table", f.room.HandleTableClosed, tableClosed(t, "closed-tt", "tt", tablev1.TableKind_TABLE_KIND_TOURNAMENT)},
	} {
		if err := c.h(ctx, c.ev); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if after := snapshotOf(t, f); after != before {
			t.Fatalf("%s changed the game:\n%s\n%s", c.name, before, after)
		}
	}

	// t9's table.closed overtakes its table.opened: fay, whom the floor
	// seated there, gets her priority, and the late table.opened offers
	// no seat of the closed table.
	if err := f.room.HandleTableClosed(ctx, tableClosed(t, "closed-t9", "t9", tablev1.TableKind_TABLE_KIND_CASH,
		&tablev1.SeatPlayer{Seat: 0, PlayerId: "fay"})); err != nil {
		t.Fatal(err)
	}
	if err := f.room.HandleTableOpened(ctx, tableOpened(t, "t9", 6)); err != nil {
		t.Fatal(err)
	}
	g = f.game(t)
	if g.Table("t9") != nil || g.Position("fay") != 3 || g.Entries[2].Kind != waitlist.BrokenTable {
		t.Fatalf("after t9's early close: tables %+v, entries %+v", g.Tables, g.Entries)
	}

	// cat leaves t2: the seat goes to ann, the broken table's first player.
	if err := f.room.HandleSeatOpened(ctx, seatOpened(t, "t2-1", "t2", 0)); err != nil {
		t.Fatal(err)
	}
	if o := f.offerOf(t, "ann"); o.Table != "t2" || o.Entry != waitlist.BrokenTable {
		t.Fatalf("ann offered %+v", o)
	}
}

// snapshotOf is the game as stored, with its version.
func snapshotOf(t *testing.T, f *fixture) string {
	t.Helper()
	rec, err := f.room.Get(t.Context(), f.list(t))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rec.Game)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("v%d %s", rec.Version, b)
}
