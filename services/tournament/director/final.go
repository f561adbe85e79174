package director

import (
	"context"
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

// redrawFinal forms the final table (TR-07, G-28): once every table left
// is between hands (each is held until then; a table in a hand does it at
// its own hand's end), the players draw new seats at a new table, the
// button is drawn there, the draw and every move are recorded first, then
// carried out with the usual moves and the old tables closed.
func (d *Director) redrawFinal(ctx context.Context, t store.Tournament, plan []balance.Table, h Hand) error {
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
	for _, tb := range plan {
		n, _ := strconv.Atoi(tb.ID)
		if err := d.tables.Hold(ctx, tableIDs[n], HoldFinal, HoldBalancing, 0); err != nil {
			return err
		}
		st, err := d.tables.Status(ctx, tableIDs[n])
		if err != nil {
			return err
		}
		if st.InHand && n != h.Table {
			return nil // that table's hand end redraws
		}
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
			if sl.Stack, sl.HandNo, err = stackOf(tx, h, s.PlayerID); err != nil {
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
		if err := d.move(ctx, s, tableIDs); err != nil {
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
		err := d.tables.Close(ctx, tableIDs[n])
		if r := Refusal(err); r == "TABLE_NOT_EMPTY" || r == "TABLE_CLOSED" {
			d.log.InfoContext(ctx, "director: table before the final table not closed", "table_id", tableIDs[n], "reason", r)
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}
