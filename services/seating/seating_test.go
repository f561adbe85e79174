package seating_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/testkit"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	seatingv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/seating/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/seating"
)

// TestWiredServiceSeatsFromTheBus wires the service as cmd/cardroom does
// and drives it only from outside: a player joins over gRPC, the table
// service's table.opened arrives on the bus, the player sees the offer;
// then Run stops with its context.
func TestWiredServiceSeatsFromTheBus(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, seating.DBOptions())
	bus := events.NewMemory(events.MemoryOptions{})
	relay := events.NewRelay(db, bus, events.RelayOptions{})
	svc, err := seating.New(seating.Config{SweepInterval: 50 * time.Millisecond, BoardPoll: 50 * time.Millisecond},
		seating.Deps{DB: db, Clock: clock.Real{}, Locker: lock.NewLocal(), Bus: bus, Relay: relay})
	if err != nil {
		t.Fatal(err)
	}
	g := testkit.StartGRPC(t, svc.Register)
	c := seatingv1.NewSeatingServiceClient(g.Conn)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 2)
	go func() { done <- relay.Run(ctx) }()
	go func() { done <- svc.Run(ctx) }()

	game := &gamev1.Game{Variant: gamev1.Variant_VARIANT_OMAHA, Structure: gamev1.Structure_STRUCTURE_POT_LIMIT,
		Stakes: &gamev1.Stakes{SmallBlind: 100, BigBlind: 200}}
	created, err := c.CreateWaitlist(g.As(t, "floor-1", auth.Floor), &seatingv1.CreateWaitlistRequest{Game: game})
	if err != nil {
		t.Fatal(err)
	}
	alice := g.As(t, "alice", auth.Player)
	if _, err := c.JoinWaitlist(alice, &seatingv1.JoinWaitlistRequest{WaitlistId: created.GetWaitlist().GetWaitlistId()}); err != nil {
		t.Fatal(err)
	}
	payload, err := proto.Marshal(&tablev1.TableOpened{TableId: "t-plo", Name: "PLO 1/2", Game: game, Seats: 6, Kind: tablev1.TableKind_TABLE_KIND_CASH})
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.Publish(t.Context(), events.Event{ID: events.NewID(), Topic: events.TopicTableOpened, Key: "t-plo", Payload: payload}); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 10*time.Second, func() error {
		offers, err := c.ListOffers(alice, &seatingv1.ListOffersRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if len(offers.GetOffers()) != 1 {
			return fmt.Errorf("%d offers after table.opened on the bus, want 1", len(offers.GetOffers()))
		}
		if o := offers.GetOffers()[0]; o.GetTableId() != "t-plo" || o.GetSeat() != 0 {
			t.Fatalf("offer %v", o)
		}
		return nil
	})
	cancel()
	for range 2 {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Run or the relay did not stop")
		}
	}
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
}
