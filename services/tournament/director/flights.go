package director

import (
	"context"
	"fmt"

	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/flight"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// HoldDayEnd stops a flight's tables at the end of its day (issue 13).
const HoldDayEnd = "day-end"

// dayOver reports whether a flight's day is over: it was recorded so, or
// the stop (a level reached or few enough players left) is reached now,
// which is recorded once (audit "day_end") so the day stays over.
func (d *Director) dayOver(ctx context.Context, t store.Tournament) (bool, error) {
	if t.Rules.Flight == nil || t.Event.Status != event.Running {
		return false, nil
	}
	now := d.now()
	over := false
	err := d.store.Update(ctx, t.Event.ID, func(tx *store.Tx, cur *store.Tournament) error {
		over = false
		if cur.Rules.Flight == nil || cur.Event.Status != event.Running {
			return nil
		}
		if n, err := tx.CountAudit("day_end"); err != nil || n > 0 {
			over = n > 0
			return err
		}
		ens, err := tx.Entries()
		if err != nil {
			return err
		}
		left := 0
		for _, en := range ens {
			if en.Status == entry.Active {
				left++
			}
		}
		row := cur.Clock.At(now).Index
		if !cur.Rules.Flight.Over(row, left) {
			return nil
		}
		over = true
		return tx.AddAudit(Actor, "day_end", map[string]any{"level_index": row, "players_left": left,
			"stop_level_index": cur.Rules.Flight.StopLevel, "stop_players": cur.Rules.Flight.StopPlayers}, now)
	})
	return over, err
}

// Bag ends a flight's day once its stop is reached (issue 13): every
// table is held at its next hand boundary; once none is in a hand and no
// player is in transit, each survivor's stack as the table counts it is
// bagged (recorded first, with the chip count it must equal), the bagged
// players leave the tables, which close, and the flight is finished with
// its prize pool moved to the Day 2 (a wallet step under
// trn/<flight>/pool-to-day2). Every step repeats harmlessly, and a pass
// that finds a table still dealing leaves the rest to that table's hand
// end or to Run's next pass.
func (d *Director) Bag(ctx context.Context, id string) error {
	t, err := d.store.Load(ctx, id)
	if err != nil || t.Rules.Flight == nil || t.Event.Status != event.Running {
		return err
	}
	over, err := d.dayOver(ctx, t)
	if err != nil || !over {
		return err
	}
	links, err := d.store.Tables(ctx, id)
	if err != nil {
		return err
	}
	tableIDs := map[int]string{}
	for _, l := range links {
		tableIDs[l.Table] = l.TableID
	}
	bags, err := d.store.Bags(ctx, id)
	if err != nil {
		return err
	}
	if len(bags) == 0 {
		ready, err := d.countBags(ctx, t, links)
		if err != nil || !ready {
			return err
		}
		if bags, err = d.store.Bags(ctx, id); err != nil {
			return err
		}
	}
	for _, b := range bags {
		err := d.tables.RemoveBagged(ctx, tableIDs[b.Table], fmt.Sprintf("trn/%s/bag/%s", id, b.Player), b.Player)
		if r := Refusal(err); r == "NOT_SEATED" || r == "TABLE_CLOSED" {
			continue
		}
		if err != nil {
			return err
		}
	}
	for _, l := range links {
		if err := d.tables.Close(ctx, l.TableID); err != nil && Refusal(err) != "TABLE_CLOSED" {
			return err
		}
	}
	return d.finishFlight(ctx, id)
}

// countBags holds the flight's tables and, once none is in a hand and
// nobody is in transit, records every survivor's bag from the tables'
// stacks; ready is false while a table still deals.
func (d *Director) countBags(ctx context.Context, t store.Tournament, links []store.TableLink) (ready bool, err error) {
	id, now := t.Event.ID, d.now()
	var bags []flight.Bag
	for _, l := range links {
		err := d.tables.Hold(ctx, l.TableID, HoldDayEnd, HoldFloor, 0)
		if Refusal(err) == "TABLE_CLOSED" {
			continue
		}
		if err != nil {
			return false, err
		}
		st, err := d.tables.Status(ctx, l.TableID)
		if err != nil {
			return false, err
		}
		if st.Closed {
			continue
		}
		if st.InHand {
			return false, nil // its hand end bags
		}
		for _, s := range st.Seats {
			if s.Stack > 0 {
				bags = append(bags, flight.Bag{Flight: id, Player: s.Player, Chips: s.Stack, Table: l.Table, Seat: s.Seat, BaggedAt: now})
			}
		}
	}
	transit, err := d.tables.Moves(ctx, id, MoveInTransit)
	if err != nil || len(transit) > 0 {
		return false, err // Run's pass seats them first
	}
	counted, err := d.tables.CountChips(ctx, id)
	if err != nil {
		return false, err
	}
	if got := flight.Chips(bags); got != counted {
		// The tables' seats and their own count disagree: bag nothing
		// and try again on the next pass rather than lose chips.
		return false, fmt.Errorf("flight %s: %d chips in the bags, %d counted at the tables", id, got, counted)
	}
	err = d.store.Update(ctx, id, func(tx *store.Tx, cur *store.Tournament) error {
		if cur.Event.Status != event.Running {
			return nil
		}
		if prev, err := tx.Bags(); err != nil || len(prev) > 0 {
			return err
		}
		if err := tx.PutBags(cur.Rules.Flight.Day2, bags); err != nil {
			return err
		}
		ens, err := tx.Entries()
		if err != nil {
			return err
		}
		return tx.AddAudit(Actor, "bag", map[string]any{"day2": cur.Rules.Flight.Day2, "players": len(bags),
			"chips_bagged": flight.Chips(bags), "chips_issued": Issued(*cur, ens), "chips_counted": counted}, now)
	})
	return err == nil, err
}

// finishFlight finishes a bagged flight and records the step that moves
// its prize pool to the Day 2; Deps.Bagged has the wallet move it.
func (d *Director) finishFlight(ctx context.Context, id string) error {
	now := d.now()
	var pay entry.Payment
	err := d.store.Update(ctx, id, func(tx *store.Tx, cur *store.Tournament) error {
		pay = entry.Payment{}
		if cur.Event.Status != event.Running {
			return nil
		}
		pool, _, err := tx.Contributions()
		if err != nil {
			return err
		}
		out, _, err := tx.PaidOut()
		if err != nil {
			return err
		}
		cur.Event.Status = event.Finished
		day2 := cur.Rules.Flight.Day2
		if left := pool - out; left > 0 {
			pay = entry.Payment{Key: fmt.Sprintf("trn/%s/pool-to-day2", id), Kind: entry.SettlePool, EventID: id,
				Currency: cur.Event.BuyIn.Currency, Amount: left, TargetEventID: day2, Note: "flight prize pool to Day 2 " + day2}
			if err := tx.AddPayment(pay, 0, now); err != nil {
				return err
			}
		}
		return tx.AddAudit(Actor, "flight_finished", map[string]any{"day2": day2, "prize_pool": pool - out, "idempotency_key": pay.Key}, now)
	})
	if err != nil || pay.Key == "" || d.bagged == nil {
		return err
	}
	return d.bagged(ctx, id, pay)
}

// stacks returns the stack each entrant is seated with: the starting
// stack, or on a Day 2 the bag the survivor policy carried (G-34).
func (d *Director) stacks(ctx context.Context, t store.Tournament) (map[string]int64, error) {
	if t.Rules.Day2 == nil {
		return nil, nil
	}
	bags, err := d.store.Bags(ctx, t.Event.ID)
	if err != nil {
		return nil, err
	}
	kept, _ := flight.Carry(bags, t.Rules.Day2.Survivors)
	out := map[string]int64{}
	for _, b := range kept {
		out[b.Player] = b.Chips
	}
	return out, nil
}
