package director_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/random"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/tournament/desk"
	"github.com/cardroom/cardroom/services/tournament/director"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/flight"
	"github.com/cardroom/cardroom/services/tournament/house"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// TestBag_FlightStopsAtItsPlayerCount: a Day 1 flight's day ends when the
// players left reach its stop (issue 13). The table whose hand ended it
// deals no more; the bags wait for the table still in a hand; then every
// survivor's stack is bagged as the tables count it (the chips bagged are
// the chips issued), the players leave, the tables close, the flight is
// finished and its prize pool is moved to the Day 2 once, under one key.
func TestBag_FlightStopsAtItsPlayerCount(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := runningWith(t, db, 18, house.Rules{Flight: &flight.Flight{Day2: "d2", StopPlayers: 14}})
		err := s.Update(ctx, "ev1", func(tx *store.Tx, _ *store.Tournament) error {
			for i := range 18 {
				p := entry.Payment{Key: fmt.Sprintf("trn/ev1/p%02d/entry/1", i+1), Kind: entry.PayEntry, EventID: "ev1",
					PlayerID: fmt.Sprintf("p%02d", i+1), Currency: "EUR", PrizePart: 100, Fee: 10}
				if err := tx.AddPayment(p, 0, now); err != nil {
					return err
				}
				if _, err := tx.SettlePayment(p.Key, true, "tr", ""); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		f := newFakeTables()
		var pays []entry.Payment
		books := desk.New(desk.Deps{Store: s, Clock: clock.NewFake(now)})
		d := director.New(director.Deps{Store: s, Tables: f, Clock: clock.NewFake(now), Random: random.Seeded(11), Round: books.BookRound,
			Bagged: func(_ context.Context, id string, p entry.Payment) error { pays = append(pays, p); return nil }})
		if err := d.Start(ctx, "ev1"); err != nil {
			t.Fatal(err)
		}
		f.mu.Lock()
		f.tables["tbl2"].inHand = true
		f.mu.Unlock()

		out := tablePlayers(t, s, 1)[:4]
		bust(t, s, f, out...)
		if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl1", Table: 1, No: 1, Busted: out}); err != nil {
			t.Fatal(err)
		}
		if _, held := f.tables["tbl1"].holds[director.HoldDayEnd]; !held {
			t.Fatalf("the day is over (14 left) but table 1 is not held: %v", f.tables["tbl1"].holds)
		}
		if bags, _ := s.Bags(ctx, "ev1"); len(bags) != 0 {
			t.Fatalf("bagged while table 2 is in a hand: %v", bags)
		}

		f.mu.Lock()
		f.tables["tbl2"].inHand = false
		f.mu.Unlock()
		for range 2 { // a repeat (the event delivered again) changes nothing
			if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl2", Table: 2, No: 1}); err != nil {
				t.Fatal(err)
			}
		}
		bags, err := s.Bags(ctx, "ev1")
		if err != nil || len(bags) != 14 || flight.Chips(bags) != 18*stack {
			t.Fatalf("bags %v (%v): %d chips, want 14 bags of %d", bags, err, flight.Chips(bags), 18*stack)
		}
		for _, b := range bags {
			if b.Flight != "ev1" || b.Chips <= 0 {
				t.Fatalf("bag %+v", b)
			}
		}
		if d2, _ := s.Bags(ctx, "d2"); len(d2) != 14 {
			t.Fatalf("the Day 2 sees %d bags", len(d2))
		}
		for _, id := range []string{"tbl1", "tbl2"} {
			if !f.tables[id].closed || len(f.tables[id].seats) != 0 {
				t.Fatalf("%s not emptied and closed: %v", id, f.tables[id].seats)
			}
		}
		tr, _ := s.Load(ctx, "ev1")
		if tr.Event.Status != event.Finished {
			t.Fatalf("flight status %v", tr.Event.Status)
		}
		if len(pays) != 1 || pays[0].Kind != entry.SettlePool || pays[0].TargetEventID != "d2" || pays[0].Amount != 1800 ||
			pays[0].Key != "trn/ev1/pool-to-day2" {
			t.Fatalf("pool moves %+v", pays)
		}
		log, _ := s.Audit(ctx, "ev1")
		var acts []string
		for _, a := range log {
			if a.Action == "day_end" || a.Action == "bag" || a.Action == "flight_finished" {
				acts = append(acts, a.Action+" "+string(a.Detail))
			}
		}
		if len(acts) != 3 {
			t.Fatalf("audit %v", acts)
		}
		t.Log(acts)
	})
}
