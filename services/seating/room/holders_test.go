package room

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/seating/store"
	"github.com/cardroom/cardroom/services/seating/waitlist"
	"github.com/cardroom/cardroom/services/seating/wire"
)

var plo = &gamev1.Game{Variant: gamev1.Variant_VARIANT_OMAHA, Structure: gamev1.Structure_STRUCTURE_POT_LIMIT,
	Stakes: &gamev1.Stakes{SmallBlind: 200, BigBlind: 500}}

// opened is the table's report that a one-seat table of game opened.
func opened(t *testing.T, id string, game *gamev1.Game) events.Event {
	t.Helper()
	b, err := proto.Marshal(&tablev1.TableOpened{TableId: id, Name: id, Game: game, Seats: 1, Kind: tablev1.TableKind_TABLE_KIND_CASH})
	if err != nil {
		t.Fatal(err)
	}
	return events.Event{ID: "opened-" + id, Topic: events.TopicTableOpened, Key: id, Payload: b}
}

// TestSimultaneousAcceptsInTwoGamesSeatOnce_G21: a player offered a seat
// in two games who accepts both at the same moment, on two replicas, gets
// one seat: the other acceptance is refused (G-21, or the offer already
// withdrawn) and leaves nothing behind — in no round do both games hold
// the player. On SQLite and on PostgreSQL with Redis locks.
func TestSimultaneousAcceptsInTwoGamesSeatOnce_G21(t *testing.T) {
	t.Parallel()
	for _, dialect := range []string{"sqlite", "postgres"} {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			replicas := holderReplicas(t, dialect)
			ctx := t.Context()
			lists := map[*gamev1.Game]string{}
			for _, game := range []*gamev1.Game{nlhe, plo} {
				wl, err := replicas[0].CreateWaitlist(ctx, wire.Spec(game), waitlist.DefaultPolicy())
				if err != nil {
					t.Fatal(err)
				}
				lists[game] = wl.ID
			}
			for round := range 25 {
				player := fmt.Sprintf("p%02d", round)
				for _, game := range []*gamev1.Game{nlhe, plo} {
					if _, err := replicas[0].Join(ctx, lists[game], player, Actor{Subject: player}); err != nil {
						t.Fatal(err)
					}
					if err := replicas[0].HandleTableOpened(ctx, opened(t, fmt.Sprintf("%s-%d", wire.Spec(game).Name(), round), game)); err != nil {
						t.Fatal(err)
					}
				}
				offers, err := replicas[0].Offers(ctx, player)
				if err != nil || len(offers) != 2 {
					t.Fatalf("round %d: %s offered a seat in both games: %+v %v", round, player, offers, err)
				}
				var (
					start sync.WaitGroup
					done  sync.WaitGroup
					errs  [2]error
				)
				start.Add(1)
				for i, o := range offers {
					done.Go(func() {
						start.Wait()
						_, errs[i] = replicas[i].Answer(ctx, o.Offer.ID, player, true, Actor{Subject: player})
					})
				}
				start.Done()
				done.Wait()
				accepted := 0
				for _, err := range errs {
					switch {
					case err == nil:
						accepted++
					case errors.Is(err, waitlist.ErrSeatedElsewhere), errors.Is(err, waitlist.ErrOfferClosed):
					default:
						t.Fatalf("round %d: accepting: %v", round, err)
					}
				}
				holding := 0
				for _, id := range lists {
					rec, err := replicas[0].Get(ctx, id)
					if err != nil {
						t.Fatal(err)
					}
					if _, ok := rec.Game.Holding()[player]; ok {
						holding++
					}
				}
				if accepted != 1 || holding != 1 {
					t.Fatalf("G-21 round %d: %d acceptances went through and %d games hold %s (%v); want one seat", round, accepted, holding, player, errs)
				}
			}
		})
	}
}

// holderReplicas returns two rooms over one database: SQLite with one
// in-process locker, or PostgreSQL with Redis locks (each its own store).
func holderReplicas(t *testing.T, dialect string) [2]*Room {
	t.Helper()
	opts := sqlstore.Options{Service: "seating", Migrations: store.Migrations(), Shared: []sqlstore.MigrationSet{events.Migrations}}
	clk := clock.NewFake(evening)
	var (
		db      *sqlstore.DB
		lockers [2]lock.Locker
	)
	if dialect == "sqlite" {
		db = testkit.SQLite(t, opts)
		local := lock.NewLocal()
		lockers = [2]lock.Locker{local, local}
	} else {
		if testing.Short() {
			t.Skip("needs Redis and PostgreSQL")
		}
		db = testkit.Postgres(t, opts)
		rc, prefix := testkit.Redis(t)
		for i := range lockers {
			lockers[i] = lock.NewRedis(rc, lock.RedisOptions{Prefix: prefix + "lock:", RetryInterval: 5 * time.Millisecond})
		}
	}
	var out [2]*Room
	for i := range out {
		r, err := New(Deps{Store: store.New(db, lockers[i]), Relay: events.NewRelay(db, events.NewMemory(events.MemoryOptions{}), events.RelayOptions{Clock: clk}), Clock: clk}, Config{})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = r
	}
	return out
}

// TestStartIndexesGamesSavedBeforeTheIndex_G21: a player seated in a game
// saved before the seat-holder index existed is indexed when the service
// starts, so an offer in another game is withdrawn from them and not made.
func TestStartIndexesGamesSavedBeforeTheIndex_G21(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	f.seated(t, "a1", "p12")
	if _, err := f.db.SQL().ExecContext(ctx, `DELETE FROM seat_holders`); err != nil {
		t.Fatal(err)
	}
	wl, err := f.room.CreateWaitlist(ctx, wire.Spec(plo), waitlist.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.room.Join(ctx, wl.ID, "p12", Actor{Subject: "p12"}); err != nil {
		t.Fatal(err)
	}
	if err := f.room.index(ctx); err != nil {
		t.Fatal(err)
	}
	if err := f.room.HandleTableOpened(ctx, opened(t, "b1", plo)); err != nil {
		t.Fatal(err)
	}
	offers, err := f.room.Offers(ctx, "p12")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range offers {
		if o.Offer.Table == "b1" {
			t.Fatalf("G-21 p12, seated at a1, offered %+v after the start indexed a1", o.Offer)
		}
	}
}
