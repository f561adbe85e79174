package director

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/cardroom/cardroom/services/tournament/balance"
	"github.com/cardroom/cardroom/services/tournament/draw"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// HoldFinal stops the last tables while the final table is redrawn.
const HoldFinal = "final-table"

// FinalDue reports whether the players left fit at one table while they
// still sit at more than one: the last break, where the final table is
// redrawn (TR-07) instead of broken into the table that stays.
func FinalDue(plan []balance.Table, seatsPerTable int) bool {
	n := 0
	for _, tb := range plan {
		n += len(tb.Seats)
	}
	return len(plan) > 1 && n <= seatsPerTable
}

// redrawFinal forms the final table (TR-07, G-28) once every table left
// has come to rest: each is held at its next boundary and the redraw
// waits (returns nil; the hand's end or the recovery pass that settles
// the last of them redraws) while
//   - a table is in a hand;
//   - a table seats a player the books still count who has no chips: the
//     hand that busted them is not handled yet (or they may still rebuy),
//     and a player without chips cannot be moved;
//   - a move is not finished (pending, in transit, arriving): its player
//     sits at no table the redraw could take them from, and finishing it
//     later would seat them at a table the redraw left behind.
//
// Then the players draw new seats at a new table, the button is drawn
// there, the draw and every move are recorded first, then carried out
// with the usual moves, the final table is let deal, and the old tables
// are closed.
func (d *Director) redrawFinal(ctx context.Context, t store.Tournament, plan []balance.Table) error {
	id := t.Event.ID
	links, err := d.store.Tables(ctx, id)
	if err != nil {
		return err
	}
	tableIDs := map[int]string{}
	last := 0
	for _, l := range links {
		tableIDs[l.Table] = l.TableID
		last = max(last, l.Table)
	}
	ens, err := d.store.Entries(ctx, id)
	if err != nil {
		return err
	}
	active := map[string]bool{}
	for _, en := range ens {
		active[en.PlayerID] = en.Status == entry.Active
	}
	for _, tb := range plan {
		n, _ := strconv.Atoi(tb.ID)
		if err := d.tables.Hold(ctx, tableIDs[n], HoldFinal, HoldBalancing, 0); err != nil {
			return err
		}
		st, err := d.tables.Status(ctx, tableIDs[n])
		if err != nil {
			return err
		}
		if st.InHand {
			return nil // that table's hand end redraws
		}
		for _, s := range st.Seats {
			if s.Stack == 0 && active[s.Player] {
				d.log.InfoContext(ctx, "director: final table waits for a bust to be handled", "tournament", id,
					"table_id", tableIDs[n], "player", s.Player)
				return nil
			}
		}
	}
	open, err := d.tables.Moves(ctx, id, MovePending, MoveInTransit, MoveArriving)
	if err != nil {
		return err
	}
	if len(open) > 0 {
		d.log.InfoContext(ctx, "director: final table waits for a move to finish", "tournament", id, "move", open[0].ID)
		return nil
	}
	final := last + 1
	if !slices.ContainsFunc(plan, func(tb balance.Table) bool { return tb.ID == strconv.Itoa(last) }) {
		// A table opened for the final table before a crash, not used yet.
		if st, err := d.tables.Status(ctx, tableIDs[last]); err == nil && !st.Closed && st.HandNo == 0 {
			final = last
		}
	}
	finalID, err := d.table(ctx, t, final)
	if err != nil {
		return err
	}
	tableIDs[final] = finalID
	if err := d.tables.Hold(ctx, finalID, HoldLockstep, HoldFloor, 0); err != nil {
		return err
	}
	now := d.now()
	var slips []slip
	err = d.store.Update(ctx, id, func(tx *store.Tx, cur *store.Tournament) error {
		slips = nil
		ens, err := tx.Entries()
		if err != nil {
			return err
		}
		if cur.Event.Status != event.Running || !FinalDue(Plan(ens, cur.Rules.SeatsPerTable), cur.Rules.SeatsPerTable) {
			return nil
		}
		byPlayer := map[string]entry.Entry{}
		var players []string
		for _, en := range ens {
			if en.Status == entry.Active && en.Table > 0 {
				byPlayer[en.PlayerID] = en
				players = append(players, en.PlayerID)
			}
		}
		seats, err := draw.Seats(players, cur.Rules.SeatsPerTable, d.random)
		if err != nil {
			return err
		}
		occupied := make([]int, 0, len(seats))
		for _, s := range seats {
			occupied = append(occupied, s.Seat)
		}
		button, err := draw.Button(occupied, d.random)
		if err != nil {
			return err
		}
		if err := tx.AddDraw("button", map[string]any{"table": final, "button_seat": button.Winner, "cards": button.Cards, "rule_id": "TR-07"}, now); err != nil {
			return err
		}
		n, err := tx.CountAudit("move")
		if err != nil {
			return err
		}
		for _, s := range seats {
			n++
			en := byPlayer[s.PlayerID]
			sl := slip{MoveID: fmt.Sprintf("trn/%s/move/%d", id, n), PlayerID: s.PlayerID, FromTable: en.Table, FromSeat: en.Seat,
				ToTable: final, ToSeat: s.Seat, Rule: "TR-07", Reason: ReasonFinalTable}
			if sl.Stack, sl.HandNo, err = stackOf(tx, Hand{}, s.PlayerID); err != nil {
				return err
			}
			en.Table, en.Seat = final, s.Seat
			if err := tx.PutEntry(en); err != nil {
				return err
			}
			if err := tx.AddAudit(Actor, "move", sl, now); err != nil {
				return err
			}
			slips = append(slips, sl)
		}
		return tx.AddAudit(Actor, "final_table", map[string]any{"table": final, "button_seat": button.Winner, "rule_id": "TR-07"}, now)
	})
	if err != nil || len(slips) == 0 {
		return err
	}
	for _, s := range slips {
		if err := d.move(ctx, t.Event.ID, s, tableIDs); err != nil {
			return err
		}
	}
	buttons, err := d.buttons(ctx, id)
	if err != nil {
		return err
	}
	if err := d.ready(ctx, t, final, finalID, buttons); err != nil {
		return err
	}
	for _, tb := range plan {
		n, _ := strconv.Atoi(tb.ID)
		if err := d.closeOld(ctx, id, tableIDs[n]); err != nil {
			return err
		}
	}
	return nil
}

// closeOld closes a table the tournament no longer plays at: a player the
// books have busted whom the table still seats is removed first. A table
// someone still sits at or is bound for stays open (logged): the recovery
// pass closes it once they have gone.
func (d *Director) closeOld(ctx context.Context, id, tableID string) error {
	st, err := d.tables.Status(ctx, tableID)
	if err != nil || st.Closed {
		return err
	}
	ens, err := d.store.Entries(ctx, id)
	if err != nil {
		return err
	}
	active := map[string]bool{}
	for _, en := range ens {
		active[en.PlayerID] = en.Status == entry.Active
	}
	for _, s := range st.Seats {
		if s.Stack > 0 || active[s.Player] {
			continue
		}
		err := d.tables.RemoveBusted(ctx, tableID, fmt.Sprintf("trn/%s/out/%s/%s/closing", id, s.Player, tableID), s.Player)
		if r := Refusal(err); r != "" {
			d.log.WarnContext(ctx, "director: busted player not removed from a table to close", "table_id", tableID, "player", s.Player, "reason", r)
			continue
		}
		if err != nil {
			return err
		}
	}
	err = d.tables.Close(ctx, tableID)
	if r := Refusal(err); r == "TABLE_NOT_EMPTY" || r == "TABLE_CLOSED" {
		d.log.InfoContext(ctx, "director: table the tournament left not closed yet", "table_id", tableID, "reason", r)
		return nil
	}
	return err
}

// closeLeft closes the tables of a running tournament that no player of
// the books sits at any more (broken, left for the final table, or opened
// for a final table a crash kept from being used), which a crash, or a
// player still on the way out, left open. It runs under the step lock, so
// no final table is being formed meanwhile.
func (d *Director) closeLeft(ctx context.Context, id string) error {
	ens, err := d.store.Entries(ctx, id)
	if err != nil {
		return err
	}
	used := map[int]bool{}
	for _, en := range ens {
		if en.Status == entry.Active && en.Table > 0 {
			used[en.Table] = true
		}
	}
	links, err := d.store.Tables(ctx, id)
	if err != nil {
		return err
	}
	var errs []error
	for _, l := range links {
		if used[l.Table] {
			continue
		}
		errs = append(errs, d.closeOld(ctx, id, l.TableID))
	}
	return errors.Join(errs...)
}

// redrawDue redraws the final table when it is due (TR-07) and no hand's
// end will: the tables were held for it before a crash, or it waited for
// the floor's decision on a player without chips.
func (d *Director) redrawDue(ctx context.Context, id string) error {
	t, err := d.store.Load(ctx, id)
	if err != nil {
		return err
	}
	if t.Event.Status != event.Running || !t.Rules.FinalRedraw() {
		return nil
	}
	ens, err := d.store.Entries(ctx, id)
	if err != nil {
		return err
	}
	plan := Plan(ens, t.Rules.SeatsPerTable)
	if !FinalDue(plan, t.Rules.SeatsPerTable) {
		return nil
	}
	return d.redrawFinal(ctx, t, plan)
}
