package director

import (
	"context"
	"errors"
)

// HoldDeal stops dealing while a deal is put to the players (TR-38).
const HoldDeal = "deal"

// Seated is where the event's tables stand now: each seated entrant's
// chips, and whether any table is in a hand (its stacks then leave out
// the chips in the pot).
type Seated struct {
	Stacks map[string]int64
	InHand bool
}

// Stacks reads the stacks at the event's open tables (TR-38: the deal
// calculators take the players' chips from the tables).
func (d *Director) Stacks(ctx context.Context, id string) (Seated, error) {
	links, err := d.store.Tables(ctx, id)
	if err != nil {
		return Seated{}, err
	}
	out := Seated{Stacks: map[string]int64{}}
	for _, l := range links {
		st, err := d.tables.Status(ctx, l.TableID)
		if gone(err) {
			continue // a table broken on the way: nobody is there
		}
		if err != nil {
			return Seated{}, err
		}
		if st.Closed {
			continue
		}
		out.InHand = out.InHand || st.InHand
		for _, s := range st.Seats {
			out.Stacks[s.Player] += s.Stack
		}
	}
	return out, nil
}

// HoldForDeal holds every open table of the event at its next hand's end
// while a deal is discussed (TR-38); ReleaseDeal lets them deal again.
func (d *Director) HoldForDeal(ctx context.Context, id string) error {
	return d.eachTable(ctx, id, func(tableID string) error {
		return d.tables.Hold(ctx, tableID, HoldDeal, HoldFloor, 0)
	})
}

// ReleaseDeal lifts the deal's hold from every table of the event.
func (d *Director) ReleaseDeal(ctx context.Context, id string) error {
	return d.eachTable(ctx, id, func(tableID string) error {
		return d.tables.Release(ctx, tableID, HoldDeal)
	})
}

func (d *Director) eachTable(ctx context.Context, id string, fn func(tableID string) error) error {
	links, err := d.store.Tables(ctx, id)
	if err != nil {
		return err
	}
	var errs []error
	for _, l := range links {
		if err := fn(l.TableID); !gone(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// gone reports a refusal because the table is closed or unknown: a table
// the event broke on the way.
func gone(err error) bool {
	r := Refusal(err)
	return r == "TABLE_CLOSED" || r == "TABLE_NOT_FOUND"
}
