package director

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/cardroom/cardroom/services/tournament/balance"
	"github.com/cardroom/cardroom/services/tournament/event"
)

// Settle balances and breaks a running tournament's tables where no
// hand's end will (TR-23, G-25): the director decides at a table's hand
// end, so tables that cannot deal — each left with one player, or halted
// short by a hold the books no longer call for — would wait for ever. It
// brings the short-table holds in line with the seating and, while no
// table can deal, breaks the table due to break as if its hand had just
// ended. The recovery pass runs it (after a restart, and every
// RecoverInterval); the server runs it after the floor takes players out
// of play between hands (knock-outs, disqualification).
func (d *Director) Settle(ctx context.Context, id string) error {
	defer d.lock(id)()
	// A player taken out of play (TR-34) leaves their table first: the
	// books have their seat free for the balancing.
	if err := d.removeOut(ctx, id); err != nil {
		return err
	}
	if t, err := d.store.Load(ctx, id); err == nil && t.Event.Status.PlayOver() {
		// No hand's end counts the chips after a removal that ended the
		// event: counted here, issued less removed.
		d.countChips(ctx, t)
		return nil
	}
	return d.settleIdle(ctx, id)
}

// settleIdle is Settle under the tournament's step lock. Players held for
// a rebuy at tables that cannot deal, who may not rebuy any more, are
// knocked out first: they hold their seats in the books, so with them no
// table looks short or due to break. Each round breaks at most one table;
// a break leaves a table with two players or more, which deals, so the
// rounds are few.
func (d *Director) settleIdle(ctx context.Context, id string) error {
	if err := d.knockOutHeld(ctx, id); err != nil {
		return err
	}
	if err := d.settleHandForHand(ctx, id); err != nil {
		return err
	}
	for range 8 {
		acted, err := d.settleRound(ctx, id)
		if err != nil || !acted {
			return err
		}
	}
	return nil
}

// settleHandForHand judges the hand-for-hand round where no hand ends
// (judgeRound): a table of the round the clock's or the floor's
// knock-outs left unable to deal is done with it, and when that ends the
// round the tables are let deal together, or on at their own pace when
// the bubble burst (G-26, G-39).
func (d *Director) settleHandForHand(ctx context.Context, id string) error {
	t, err := d.store.Load(ctx, id)
	if err != nil || t.Event.Status != event.Running || !t.HandForHand.Active {
		return err
	}
	f, err := d.field(ctx, t)
	if err != nil {
		return err
	}
	r, err := d.judgeRound(ctx, id, nil, f)
	if err != nil || !r.over {
		return err
	}
	return d.release(ctx, id)
}

// settleRound is one round of settleIdle: it reports whether it broke a
// table.
func (d *Director) settleRound(ctx context.Context, id string) (bool, error) {
	t, err := d.store.Load(ctx, id)
	if err != nil || t.Event.Status != event.Running {
		return false, err
	}
	k := d.kept(id)
	k.mu.Lock()
	err = k.sync(d.fromStore(ctx, id), t.Rules.SeatsPerTable)
	var (
		nums     []int
		halted   []string
		breaking string
		canBreak bool
		stalled  bool
		final    bool
	)
	if err == nil {
		plan := k.s.Plan()
		nums = slices.Clone(k.s.nums)
		halted = balance.Halted(plan, balance.Policy{})
		breaking, canBreak = Breaking(plan, t.Rules.BreakOrder)
		final = t.Rules.FinalRedraw() && FinalDue(plan, t.Rules.SeatsPerTable)
		stalled = len(plan) > 0 && !slices.ContainsFunc(plan, func(tb balance.Table) bool { return !Idle(plan, tb.ID) })
	}
	k.mu.Unlock()
	if err != nil || len(nums) == 0 {
		return false, err
	}
	tableIDs, err := d.tableIDs(ctx, id)
	if err != nil {
		return false, err
	}
	// A halt the books no longer call for (players taken out of play
	// between hands at the other tables) would keep the only table that
	// can deal from dealing.
	if err := d.holdShort(ctx, id, nums, halted, tableIDs); err != nil {
		return false, err
	}
	if final || !stalled || !canBreak {
		// The final table is redrawn by redrawDue; a table that can deal
		// balances at its own hand's end.
		return false, nil
	}
	n, _ := strconv.Atoi(breaking)
	st, err := d.tables.Status(ctx, tableIDs[n])
	if err != nil || st.InHand || st.Closed {
		return false, err
	}
	h := Hand{TableID: tableIDs[n], Table: n, No: st.HandNo, Stacks: map[string]int64{}}
	for _, s := range st.Seats {
		h.Stacks[s.Player] = s.Stack
	}
	d.log.InfoContext(ctx, "director: no table can deal; breaking one between hands", "tournament", id, "table", n)
	return true, d.balance(ctx, t, h)
}

// knockOutHeld has the books knock out the players held while they might
// rebuy (TR-13) at tables that cannot deal, once they may not (G-42), and
// takes them off those tables: when no table can deal, no hand ends to
// do either. A player the books knocked out whom a crash left seated is
// taken off as any busted player at an idle table is (closeOld, freeSeat,
// the next hand's end).
func (d *Director) knockOutHeld(ctx context.Context, id string) error {
	if d.heldOut == nil {
		return nil
	}
	out, err := d.heldOut(ctx, id)
	if err != nil || len(out) == 0 {
		return err
	}
	tableIDs, err := d.tableIDs(ctx, id)
	if err != nil {
		return err
	}
	for _, p := range slices.Sorted(maps.Keys(out)) {
		tableID, ok := tableIDs[out[p]]
		if !ok {
			continue // no table is linked under that number: none seats them
		}
		err := d.tables.RemoveBusted(ctx, tableID, fmt.Sprintf("trn/%s/out/%s/%s/held", id, p, tableID), p)
		if r := Refusal(err); r != "" {
			d.log.WarnContext(ctx, "director: held player knocked out not taken off the table", "table_id", tableID, "player", p, "reason", r)
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}
