package director

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// Holding is what a player has in play as the tables hold it.
type Holding struct {
	// Chips are the player's stack and the chips added during the hand in
	// play (pending: theirs, behind from the next hand), or the chips in
	// transit on a move.
	Chips int64
	// AllIn says that the player is all in in the hand in play, nothing
	// behind: the hand decides what they keep.
	AllIn bool
}

// holding is what seat s of a table holds.
func holding(s SeatStatus) Holding {
	return Holding{Chips: s.Stack + s.Pending, AllIn: s.AllIn}
}

// Chips returns what a player has in play as the tables hold it: at the
// table the books seat them at, or on the move. found is false when no
// table holds them. A rebuy (TR-15) and an add-on (TR-17) are decided on
// it, not on a stack the cage types in.
func (d *Director) Chips(ctx context.Context, id, player string) (h Holding, found bool, err error) {
	_, tableID, err := d.seatOf(ctx, id, player)
	if err != nil {
		return Holding{}, false, err
	}
	if tableID != "" {
		st, err := d.tables.Status(ctx, tableID)
		if err != nil {
			return Holding{}, false, err
		}
		if i := slices.IndexFunc(st.Seats, func(s SeatStatus) bool { return s.Player == player }); i >= 0 && !st.Closed {
			return holding(st.Seats[i]), true, nil
		}
	}
	// Moved by the books: still at the table they leave, in transit, or
	// seated at the new table already.
	moves, err := d.tables.Moves(ctx, id, MoveInTransit)
	if err != nil {
		return Holding{}, false, err
	}
	for _, m := range moves {
		if m.Player == player {
			return Holding{Chips: m.Chips}, true, nil
		}
	}
	links, err := d.store.Tables(ctx, id)
	if err != nil {
		return Holding{}, false, err
	}
	for _, l := range links {
		if l.TableID == tableID {
			continue
		}
		st, err := d.tables.Status(ctx, l.TableID)
		if err != nil {
			return Holding{}, false, err
		}
		if i := slices.IndexFunc(st.Seats, func(s SeatStatus) bool { return s.Player == player }); i >= 0 && !st.Closed {
			return holding(st.Seats[i]), true, nil
		}
	}
	return Holding{}, false, nil
}

// chipsAddedAction is the audit action recording that a paid rebuy's or
// add-on's chips are on the player's stack at their table (TR-14, TR-17):
// "chips_added/<payment key>". A payment without it has its chips added
// again by the recovery pass (addChipsDue), keyed by the payment, so
// the table adds them once however often they are asked for.
const chipsAddedAction = "chips_added/"

// chipsAdded is a chips_added record.
type chipsAdded struct {
	Player  string `json:"player_id"`
	TableID string `json:"table_id"`
	Chips   int64  `json:"chips"`
	AddOn   bool   `json:"add_on"`
	Rule    string `json:"rule_id"`
}

// recordChipsAdded records once that the payment key's chips are at the
// table.
func (d *Director) recordChipsAdded(ctx context.Context, id, key string, rec chipsAdded) error {
	action := chipsAddedAction + key
	now := d.now()
	return d.store.Update(ctx, id, func(tx *store.Tx, _ *store.Tournament) error {
		if done, err := tx.CountAudit(action); err != nil || done > 0 {
			return err
		}
		return tx.AddAudit(Actor, action, rec, now)
	})
}

// addChipsDue adds the chips of every paid rebuy and add-on whose chips
// were not recorded added: the first try failed (the table unreachable,
// the process gone), and nothing else would try again.
func (d *Director) addChipsDue(ctx context.Context, id string) error {
	pays, err := d.store.Payments(ctx, id, int(entry.PayRebuy), int(entry.PayAddOn))
	if err != nil {
		return err
	}
	var due []store.PaymentRecord
	for _, p := range pays {
		if p.State == store.PaymentDone && p.Chips > 0 {
			due = append(due, p)
		}
	}
	if len(due) == 0 {
		return nil
	}
	audit, err := d.store.Audit(ctx, id)
	if err != nil {
		return err
	}
	added := map[string]bool{}
	for _, a := range audit {
		if strings.HasPrefix(a.Action, chipsAddedAction) {
			added[strings.TrimPrefix(a.Action, chipsAddedAction)] = true
		}
	}
	var errs []error
	for _, p := range due {
		if added[p.Key] {
			continue
		}
		release := d.Issue(id)
		err := d.AddChips(ctx, id, p.PlayerID, p.Key, p.Chips, p.Kind == entry.PayAddOn)
		release()
		if err != nil {
			errs = append(errs, fmt.Errorf("chips of %s: %w", p.Key, err))
		}
	}
	return errors.Join(errs...)
}
