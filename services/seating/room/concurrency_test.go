package room

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	seatingv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/seating/v1"
	"github.com/cardroom/cardroom/services/seating/store"
	"github.com/cardroom/cardroom/services/seating/waitlist"
	"github.com/cardroom/cardroom/services/seating/wire"
)

// expected are the refusals a crowd of players racing each other and the
// timers may meet; anything else fails the test.
var expected = []error{
	waitlist.ErrOfferExpired, waitlist.ErrOfferClosed, waitlist.ErrNotOnList,
	waitlist.ErrAlreadyOnList, waitlist.ErrAlreadySeated,
}

// TestCrowdOnRedisAndPostgres runs three seating replicas (each its own
// store, sharing one PostgreSQL schema and Redis locks) while 40 players
// join, accept, decline and leave at once, tables open through duplicated
// table.opened deliveries on every replica, and offers expire under the
// sweepers. Afterwards: no seat was given twice, nobody holds two seats,
// every acceptance a player was told about is the seat they hold and was
// announced exactly once, and every offer made was answered, expired,
// withdrawn or is still pending — none lost.
func TestCrowdOnRedisAndPostgres(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("needs Redis and PostgreSQL")
	}
	ctx := t.Context()
	db := testkit.Postgres(t, sqlstore.Options{Service: "seating", Migrations: store.Migrations(), Shared: []sqlstore.MigrationSet{events.Migrations}})
	rc, prefix := testkit.Redis(t)
	clk := clock.NewFake(evening)
	var replicas []*Room
	for range 3 {
		locker := lock.NewRedis(rc, lock.RedisOptions{Prefix: prefix + "lock:", RetryInterval: 5 * time.Millisecond})
		r, err := New(Deps{Store: store.New(db, locker), Relay: events.NewRelay(db, events.NewMemory(events.MemoryOptions{}), events.RelayOptions{}), Clock: clk}, Config{})
		if err != nil {
			t.Fatal(err)
		}
		replicas = append(replicas, r)
	}
	p := waitlist.DefaultPolicy()
	p.OfferTimeout = time.Minute
	p.DeclineKeepsPlace = false
	g, err := replicas[0].CreateWaitlist(ctx, wire.Spec(nlhe), p)
	if err != nil {
		t.Fatal(err)
	}

	var (
		mu       sync.Mutex
		accepted = map[string]waitlist.Offer{} // offer id → the offer a player was told is theirs
		failures []error
	)
	fail := func(err error) {
		mu.Lock()
		failures = append(failures, err)
		mu.Unlock()
	}
	ok := func(err error) bool {
		if err == nil {
			return true
		}
		for _, e := range expected {
			if errors.Is(err, e) {
				return false
			}
		}
		fail(err)
		return false
	}

	var wg sync.WaitGroup
	// Three tables of six seats open while players arrive; each
	// table.opened is delivered to every replica, twice.
	for i := range 3 {
		ev := tableOpened(t, fmt.Sprintf("t%d", i+1), 6)
		for _, r := range replicas {
			for range 2 {
				wg.Go(func() {
					if err := r.HandleTableOpened(ctx, ev); err != nil {
						fail(fmt.Errorf("table.opened: %w", err))
					}
				})
			}
		}
	}
	// The clock runs with the crowd: every 20 player operations it moves
	// 10 s and the replicas' sweepers expire what came due.
	stop := make(chan struct{})
	ops := make(chan struct{}, 64)
	var sweepers sync.WaitGroup
	sweepers.Go(func() {
		for n := 1; ; n++ {
			select {
			case <-stop:
				return
			case <-ops:
			}
			if n%20 != 0 {
				continue
			}
			clk.Advance(10 * time.Second)
			for _, r := range replicas {
				if err := r.Sweep(ctx); err != nil {
					fail(fmt.Errorf("sweep: %w", err))
				}
			}
		}
	})
	tick := func() {
		select {
		case ops <- struct{}{}:
		default:
		}
	}
	for i := range 40 {
		player := fmt.Sprintf("p%02d", i)
		rnd := rand.New(rand.NewPCG(uint64(i), 7))
		wg.Go(func() {
			r := func() *Room { return replicas[rnd.IntN(len(replicas))] }
			me := Actor{Subject: player}
			ok(func() error { _, err := r().Join(ctx, g.ID, player, me); return err }())
			for range 60 {
				tick()
				offers, err := r().Offers(ctx, player)
				if !ok(err) {
					return
				}
				if len(offers) == 0 {
					if rnd.IntN(4) == 0 { // off the list after a decline: come back
						ok(func() error { _, err := r().Join(ctx, g.ID, player, me); return err }())
					}
					continue
				}
				o := offers[0].Offer
				switch n := rnd.IntN(20); {
				case n < 11:
					got, err := r().Answer(ctx, o.ID, player, true, me)
					if ok(err) {
						// A retry of the same acceptance must give the same answer.
						again, err := r().Answer(ctx, o.ID, player, true, me)
						if err != nil || again.Offer != got.Offer {
							fail(fmt.Errorf("%s accepting %s again: %+v, %v", player, o.ID, again.Offer, err))
						}
						mu.Lock()
						accepted[o.ID] = got.Offer
						mu.Unlock()
						// The table reports the sit-down, at least once.
						seated := playerSeated(t, got.Offer)
						for range 2 {
							if err := r().HandlePlayerSeated(ctx, seated); err != nil {
								fail(fmt.Errorf("table.player_seated: %w", err))
							}
						}
						return
					}
				case n < 17:
					_, err := r().Answer(ctx, o.ID, player, false, me)
					ok(err)
				default:
					_, err := r().Leave(ctx, g.ID, player, "", me)
					ok(err)
					if rnd.IntN(2) == 0 {
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	sweepers.Wait()
	for _, err := range failures {
		t.Error(err)
	}

	rec, err := replicas[0].Get(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	final := rec.Game
	if err := final.Check(); err != nil {
		t.Fatal(err)
	}
	if len(final.Tables) != 3 {
		t.Fatalf("%d tables from duplicated table.opened events, want 3", len(final.Tables))
	}
	// The outbox tells each offer's story: made, then at most one answer
	// (accepted, declined, expired or withdrawn), and after an acceptance
	// at most a lapse or a withdrawal (the table seated someone else). An
	// offer with no answer is still pending: none is lost.
	story := map[string][]string{}
	rows, err := db.SQL().QueryContext(ctx, `SELECT topic, payload FROM outbox ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var topic string
		var payload []byte
		if err := rows.Scan(&topic, &payload); err != nil {
			t.Fatal(err)
		}
		var m seatingv1.OfferEvent
		if err := proto.Unmarshal(payload, &m); err != nil || m.GetOffer() == nil {
			continue
		}
		id := m.GetOffer().GetOfferId()
		story[id] = append(story[id], strings.TrimPrefix(topic, "seating.offer_"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	valid := map[string]bool{
		"made": true, "made declined": true, "made expired": true, "made withdrawn": true,
		"made accepted": true, "made accepted seating.hold_lapsed": true, "made accepted withdrawn": true,
	}
	pending := map[string]bool{}
	for _, o := range final.PendingOffers() {
		pending[o.ID] = true
	}
	standing := map[string]waitlist.Offer{} // acceptances nothing undid
	for id, events := range story {
		s := strings.Join(events, " ")
		if !valid[s] {
			t.Errorf("offer %s: %s", id, s)
		}
		if (s == "made") != pending[id] {
			t.Errorf("offer %s: %s, pending %v", id, s, pending[id])
		}
		if s == "made accepted" {
			o, told := accepted[id]
			if !told {
				t.Errorf("offer %s accepted but no player was told", id)
			}
			standing[id] = o
		}
	}
	for id := range accepted {
		if s := strings.Join(story[id], " "); !strings.HasPrefix(s, "made accepted") {
			t.Errorf("%s was told offer %s is theirs; the outbox says %q", accepted[id].Player, id, s)
		}
	}
	// No seat went to two players, nobody got two seats, and every
	// standing acceptance is the seat its player holds.
	bySeat, byPlayer := map[string]string{}, map[string]string{}
	for id, o := range standing {
		seat := fmt.Sprintf("%s/%d", o.Table, o.Seat)
		if prev, dup := bySeat[seat]; dup {
			t.Errorf("seat %s given twice: %s and %s", seat, prev, id)
		}
		if prev, dup := byPlayer[o.Player]; dup {
			t.Errorf("%s seated twice: %s and %s", o.Player, prev, id)
		}
		bySeat[seat], byPlayer[o.Player] = id, id
		tb, s := final.SeatOf(o.Player)
		if tb == nil || tb.ID != o.Table || s.Number != o.Seat {
			t.Errorf("%s accepted seat %s but holds %+v", o.Player, seat, s)
		}
	}
	taken := 0
	for _, tb := range final.Tables {
		for _, s := range tb.Seats {
			if s.State == waitlist.Taken {
				taken++
			}
		}
	}
	if taken != len(standing) {
		t.Errorf("%d seats taken, %d standing acceptances", taken, len(standing))
	}
	// An open seat only when nobody on the list could take it.
	for _, tb := range final.Tables {
		for _, s := range tb.Seats {
			if s.State == waitlist.Open && final.Waiting() > 0 {
				for _, e := range final.Entries {
					if !contains(s.Passed, e.Player) {
						t.Errorf("seat %s/%d open while %s waits", tb.ID, s.Number, e.Player)
					}
				}
			}
		}
	}
	outcomes := map[string]int{}
	for _, events := range story {
		outcomes[strings.Join(events, " ")]++
	}
	t.Logf("%d offers made %v; %d seats taken, %d still waiting", len(story), outcomes, taken, final.Waiting())
	if len(accepted) == 0 || len(story) <= len(accepted) {
		t.Fatalf("the crowd did not exercise declines/expiry: %d made, %d accepted", len(story), len(accepted))
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
