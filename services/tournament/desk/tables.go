package desk

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/cardroom/cardroom/platform/events"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/tournament/balance"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/standings"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// Consumer is the tournament's consumer group on the bus and its name in
// processed_events.
const Consumer = "tournament"

// AttachTable records which table of the table service (tableID) plays
// tournament table n. The link lives here, not at the table service (a
// tournament id and number given to CreateTable and carried in
// table.hand_ended), because the tournament owns its table numbers:
// balancing, breaking and the final table renumber and reuse them, the
// floor may have to swap a physical table mid-event, and the table
// service stays ignorant of tournaments beyond the table kind. The latest
// attachment wins, so a repeat changes nothing. Attach a table before it
// deals: hands that ended before are not counted. by is the floor, for
// the audit.
func (d *Desk) AttachTable(ctx context.Context, id string, n int, tableID, by string) error {
	now := d.now()
	return d.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		if t.Event.Status != event.Running {
			return ErrNotRunning
		}
		link, ok, err := tx.TableLink(tableID)
		if err != nil {
			return err
		}
		if ok && link.TournamentID == t.Event.ID && link.Table == n {
			return nil
		}
		if err := tx.AttachTable(n, tableID, now); err != nil {
			return err
		}
		return tx.AddAudit(by, "attach_table", map[string]any{"table": n, "table_id": tableID}, now)
	})
}

// HandleHandEnded is the table.hand_ended consumer: the hand goes to the
// event's books (record), then, when the director drives the tables, to
// the director, which records it through this desk first.
func (d *Desk) HandleHandEnded(ctx context.Context, ev events.Event) error {
	if d.director != nil {
		return d.director.HandleHandEnded(ctx, ev)
	}
	return d.record(ctx, ev)
}

// record applies a table.hand_ended to the books of the tournament its
// table is attached to (AttachTable); other tables' hands are ignored. The
// players the table reports busted are knocked out in that hand as
// RecordKnockouts knocks them out, placed by their stacks at the start of
// the hand (TR-37). A player out of chips who may still rebuy (TR-13,
// TR-16, or take the add-on with a rebuy, TR-17) is held at the table —
// the floor records the knock-out if they decline — and knocked out by
// their table's first hand to end after the window closed there, unless
// a rebuy was paid since they went out; at a table that can no longer
// deal, by the first hand to end at another table once the period is
// over (G-42). During
// hand-for-hand the hand is also the table's hand of the round (G-26), as
// ReportHandEnded reports it. Each event is applied once, in the
// transaction that records it as processed (events.Idempotent), so a
// redelivery changes nothing.
func (d *Desk) record(ctx context.Context, ev events.Event) error {
	var msg tablev1.HandEnded
	if err := proto.Unmarshal(ev.Payload, &msg); err != nil {
		d.log.ErrorContext(ctx, "tournament: undecodable table.hand_ended dropped", "event", ev.ID, "error", err)
		return nil // redelivery cannot fix it
	}
	// A cash table's hands, the bulk of the traffic, cost one read and
	// leave no processed_events row.
	link, ok, err := d.store.TableLink(ctx, msg.GetTableId())
	if err != nil || !ok {
		return err
	}
	return d.bookOnce(ctx, link.TournamentID, &ev, func(tx *store.Tx, t *store.Tournament, price int64, _ time.Time) ([]entry.Payment, error) {
		return d.tableHandEnded(ctx, tx, t, &msg, price)
	})
}

// countRebuyHand counts a hand of tournament table n towards the last
// rebuy hands (TR-16) when it started once the rebuy period had run out:
// the tables' own reports count the hands, so the window closes by
// itself after the last one.
func countRebuyHand(t *store.Tournament, n int, started time.Time) {
	if !t.Rules.Entry.Rebuys() || started.Before(t.Event.StartsAt.Add(t.Rules.Entry.RebuyPeriod)) {
		return
	}
	if t.RebuyHands == nil {
		t.RebuyHands = map[int]int{}
	}
	t.RebuyHands[n]++
}

// heldAtIdleTables returns the players held while they might rebuy
// (TR-13) at a table other than the hand's (table) that can no longer
// deal: fewer than two players the books have in play there who are not
// held themselves, or any table once the final table is due
// (idleTables). That table plays no more hands, so its last rebuy
// hands (TR-16) are over and no hand of its own will knock them out (a
// player alone at a broken table, their move cancelled for want of
// chips): they are knocked out now, unless they may still take the
// add-on with a rebuy or a rebuy was paid since they went out (G-42).
// Each is added to seated.
func heldAtIdleTables(tx *store.Tx, t *store.Tournament, table int, now time.Time, seated map[string]entry.Entry) ([]standings.Knockout, error) {
	if len(t.HeldBusts) == 0 {
		return nil, nil
	}
	ens, err := tx.Entries()
	if err != nil {
		return nil, err
	}
	idle := idleTables(t, ens)
	var kos []standings.Knockout
	for _, en := range ens {
		at, held := t.HeldBusts[en.PlayerID]
		if !held || en.Status != entry.Active || en.Table == 0 || en.Table == table || !idle(en.Table) || en.Rebuys > at {
			continue
		}
		if _, ok := seated[en.PlayerID]; ok {
			continue // at the hand's table after all
		}
		err := entry.KnockOut(t.Event, t.Rules.Entry, en, entry.Table{Now: now, HandsSincePeriodEnd: handsSincePeriodEnd(t, en, 0), Idle: true}, false)
		if errors.Is(err, entry.ErrMayStillRebuy) {
			continue
		}
		if err != nil {
			return nil, err
		}
		seated[en.PlayerID] = en
		kos = append(kos, standings.Knockout{PlayerID: en.PlayerID, TableID: strconv.Itoa(en.Table)})
	}
	slices.SortFunc(kos, func(a, b standings.Knockout) int { return strings.Compare(a.PlayerID, b.PlayerID) })
	return kos, nil
}

// KnockOutHeld knocks out the players held while they might rebuy
// (TR-13) at tables that can no longer deal, once they may not rebuy or
// take the add-on with a rebuy any more (G-42), placed together. The
// first hand to end at another table does that too, but when no table can
// deal — each left with one player with chips beside the held ones — no
// hand ends anywhere, and the event would wait for ever: the director's
// recovery pass asks for it by the clock (director.Deps.KnockOutHeld)
// before it breaks the tables no hand's end will. It returns the players
// knocked out with their tables' numbers, for the director to take them
// off.
func (d *Desk) KnockOutHeld(ctx context.Context, id string) (map[string]int, error) {
	// Every running event is asked every pass: one read unless someone
	// is held.
	if t, err := d.store.Load(ctx, id); err != nil || t.Event.Status != event.Running || len(t.HeldBusts) == 0 {
		return nil, err
	}
	var out map[string]int
	err := d.book(ctx, id, func(tx *store.Tx, t *store.Tournament, price int64, now time.Time) ([]entry.Payment, error) {
		out = nil
		if t.Event.Status != event.Running {
			return nil, nil
		}
		seated := map[string]entry.Entry{}
		kos, err := heldAtIdleTables(tx, t, 0, now, seated)
		if err != nil || len(kos) == 0 {
			return nil, err
		}
		b, byPlayer, n, err := handBoard(tx, t, seated, kos)
		if err != nil {
			return nil, err
		}
		if len(kos) >= n {
			// Nobody left with chips: the books disagree with the tables.
			d.log.ErrorContext(ctx, "tournament: every player left is held for a rebuy; none knocked out", "tournament", id, "held", len(kos))
			return nil, nil
		}
		ko, err := knockOut(tx, t, b, byPlayer, kos, price, now)
		if err != nil {
			return nil, err
		}
		out = make(map[string]int, len(kos))
		for _, k := range kos {
			out[k.PlayerID] = seated[k.PlayerID].Table
		}
		return ko.pays, nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) > 0 {
		d.log.InfoContext(ctx, "tournament: held players knocked out at tables that cannot deal, with no hand to end",
			"tournament", id, "knocked_out", len(out), "rule_id", "G-42")
	}
	return out, nil
}

// rebuysAfter counts the entry's last rebuys asked for after end (TR-13):
// paid since a hand that ended then.
func rebuysAfter(tx *store.Tx, id string, en entry.Entry, end time.Time) (int, error) {
	n := 0
	for k := en.Rebuys; k > 0; k-- {
		rec, ok, err := tx.Payment(entry.PaymentKey(id, en.PlayerID, entry.PayRebuy, k))
		if err != nil {
			return 0, err
		}
		if !ok || !rec.CreatedAt.After(end) {
			break
		}
		n++
	}
	return n, nil
}

// tableHandEnded applies one hand of an attached table to its tournament
// and returns the prize payments to make when the tournament finished.
// What no redelivery can change — a tournament no longer running, the
// table attached elsewhere meanwhile, a hand out of the hand-for-hand
// round — is logged and applied as far as it goes, never retried.
func (d *Desk) tableHandEnded(ctx context.Context, tx *store.Tx, t *store.Tournament, msg *tablev1.HandEnded, price int64) ([]entry.Payment, error) {
	link, ok, err := tx.TableLink(msg.GetTableId())
	if err != nil {
		return nil, err
	}
	if !ok || link.TournamentID != t.Event.ID || t.Event.Status != event.Running {
		return nil, nil
	}
	// The time the hand is applied, not when its report arrived: a report
	// may wait for the write lock behind others, and the rebuy window
	// (TR-13, TR-16) is judged when the knock-outs are booked.
	now := d.now()
	// The entries of the hand's players, one read each: the whole field
	// (board) is read only when the hand knocks someone out, not after
	// every hand (issue 10: O(seats) per hand, not O(entrants)).
	seated := map[string]entry.Entry{}
	for _, st := range msg.GetStacks() {
		en, err := tx.Entry(st.GetPlayerId())
		if err != nil {
			return nil, err
		}
		if en != nil {
			seated[en.PlayerID] = *en
		}
	}
	countRebuyHand(t, link.Table, msg.GetStartTime().AsTime())
	busted := map[int32]bool{}
	for _, seat := range msg.GetBusted() {
		busted[seat] = true
	}
	var kos []standings.Knockout
	for _, st := range msg.GetStacks() {
		en, ok := seated[st.GetPlayerId()]
		if !ok || en.Status != entry.Active {
			// Not in this event, or the floor recorded it already.
			continue
		}
		if st.GetArriving() {
			// A seat held for a player moved to a live table: their chips
			// are in transit until the dealer confirms them (TR-23), not
			// gone.
			continue
		}
		if st.GetStack() > 0 {
			delete(t.HeldBusts, en.PlayerID) // rebought, or never out
			continue
		}
		// Out of chips: in this hand, or held since (TR-13). The rebuys
		// they had when they went out tell a rebuy paid since, whose chips
		// are on their way to the table, from none.
		at, held := t.HeldBusts[en.PlayerID]
		if busted[st.GetSeat()] || !held {
			// A rebuy asked for after the hand ended (the cage may pay it
			// before this report is handled) is not one they had when
			// they went out: their chips are at the table already.
			since, err := rebuysAfter(tx, t.Event.ID, en, msg.GetEndTime().AsTime())
			if err != nil {
				return nil, err
			}
			at, held = en.Rebuys-since, false
		}
		err := entry.KnockOut(t.Event, t.Rules.Entry, en, entry.Table{Now: now, HandsSincePeriodEnd: handsSincePeriodEnd(t, en, 0)}, false)
		if errors.Is(err, entry.ErrMayStillRebuy) || (err == nil && en.Rebuys > at) {
			// TR-13, TR-16: held at the table, not dealt in, until they
			// rebuy or the window closes at their table.
			if t.HeldBusts == nil {
				t.HeldBusts = map[string]int{}
			}
			if !held {
				t.HeldBusts[en.PlayerID] = at
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		delete(t.HeldBusts, en.PlayerID)
		kos = append(kos, standings.Knockout{PlayerID: en.PlayerID, TableID: strconv.Itoa(link.Table), Hand: msg.GetHandNo(),
			StartStack: st.GetStartStack()})
	}
	// Players held at another table that can no longer deal: it plays no
	// more hands to count their last rebuy hands or knock them out (G-42).
	idle, err := heldAtIdleTables(tx, t, link.Table, now, seated)
	if err != nil {
		return nil, err
	}
	var pays []entry.Payment
	var b *standings.Board
	var byPlayer map[string]entry.Entry
	n := 0
	if len(kos)+len(idle) > 0 {
		var err error
		if b, byPlayer, n, err = handBoard(tx, t, seated, append(slices.Clone(idle), kos...)); err != nil {
			return nil, err
		}
	}
	if len(idle) > 0 && len(kos)+len(idle) < n {
		// Out before this hand's players: placed first, below them.
		out, err := knockOut(tx, t, b, byPlayer, idle, price, now)
		if err != nil {
			return nil, err
		}
		pays = append(pays, out.pays...)
		d.log.InfoContext(ctx, "tournament: held players knocked out at a table that cannot deal", "tournament", t.Event.ID,
			"knocked_out", len(idle), "rule_id", "G-42")
	}
	if len(kos) > 0 && len(kos) >= n-len(idle) {
		// A hand cannot bust every player left; the entries disagree with
		// the table, which is for the floor to sort out.
		d.log.ErrorContext(ctx, "tournament: table reports every remaining player busted; knock-outs not recorded",
			"tournament", t.Event.ID, "table_id", msg.GetTableId(), "hand", msg.GetHandNo(), "busted", len(kos), "in_play", n)
		kos = nil
	}
	if len(kos) > 0 {
		// G-36: the heads go to the pots' winners before the knock-outs
		// are booked (the last one pays the winner's own head).
		bounties, err := awardBounties(tx, t, msg, kos, byPlayer, now)
		if err != nil {
			return nil, err
		}
		out, err := knockOut(tx, t, b, byPlayer, kos, price, now)
		if err != nil {
			return nil, err
		}
		pays = append(append(pays, bounties...), out.pays...)
	}
	if msg.GetEndTime() != nil && t.HandForHand.Before(msg.GetEndTime().AsTime()) {
		// Ended before hand-for-hand started, reported after (G-26): the
		// table was between hands then, done with the first round or
		// about to play it; this hand is no round's.
		d.log.InfoContext(ctx, "tournament: hand ended before hand-for-hand started; not a round hand",
			"tournament", t.Event.ID, "table", link.Table, "hand", msg.GetHandNo())
	} else if t.HandForHand.Active {
		_, _, ps, err := handEnded(tx, t, link.Table, price, now)
		switch {
		case errors.Is(err, balance.ErrWaitForTables), errors.Is(err, balance.ErrUnknownH4HTable):
			d.log.WarnContext(ctx, "tournament: hand outside the hand-for-hand round not counted",
				"tournament", t.Event.ID, "table", link.Table, "hand", msg.GetHandNo(), "error", err)
		case err != nil:
			return nil, fmt.Errorf("table %d hand %d: %w", link.Table, msg.GetHandNo(), err)
		}
		pays = append(pays, ps...)
	}
	return pays, nil
}
