package desk

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"math/rand/v2"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/tournament/balance"
	"github.com/cardroom/cardroom/services/tournament/director"
	"github.com/cardroom/cardroom/services/tournament/draw"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// Entry is an entry with its money: what the player paid into the event
// (entries, re-entries, rebuys and add-ons the wallet took, less the
// entries it refunded, TR-04) and the transfer of the last entry refund.
// A cancelled event's refund gave everything back: its entries show none.
type Entry struct {
	entry.Entry
	Paid             int64
	RefundTransferID string
}

// ErrEnterAFlight refuses an entry to a Day 2: its field is its flights'
// survivors (issue 13).
var ErrEnterAFlight = fault.New(fault.Precondition, "ENTER_A_FLIGHT", "a Day 2 is entered through its flights")

// Settlement failures (TR-34, G-24).
var (
	ErrPrizesNotPaid   = fault.Rule(fault.Precondition, "TR-34", "PRIZES_NOT_PAID", "the pool is settled once the event is over and every prize is paid")
	ErrNothingToSettle = fault.Rule(fault.Precondition, "TR-34", "NOTHING_TO_SETTLE", "the prize pool holds nothing beyond the prizes paid")
)

// money is what one player has paid into an event and got back.
type money struct {
	paid   int64
	refund string // the last entry refund's transfer
}

// moneyByPlayer sums each player's entries, rebuys and add-ons the wallet
// took, less the entries it refunded (TR-04).
func moneyByPlayer(recs []store.PaymentRecord) map[string]money {
	out := map[string]money{}
	for _, r := range recs {
		m := out[r.PlayerID]
		switch {
		case r.Kind == entry.RefundEntry && r.State == store.PaymentDone:
			m.paid -= r.PrizePart + r.Fee
			m.refund = r.TransferID
		case r.Kind != entry.RefundEntry && (r.State == store.PaymentDone || r.State == store.PaymentWithdrawn):
			m.paid += r.PrizePart + r.Fee
		}
		out[r.PlayerID] = m
	}
	return out
}

// money returns what each player paid into the event and got back.
func (d *Desk) money(ctx context.Context, id string) (map[string]money, error) {
	recs, err := d.store.Payments(ctx, id, int(entry.PayEntry), int(entry.PayRebuy), int(entry.PayAddOn), int(entry.RefundEntry))
	if err != nil {
		return nil, err
	}
	return moneyByPlayer(recs), nil
}

// withMoney is the entry with its money.
func withMoney(en entry.Entry, paid map[string]money) Entry {
	out := Entry{Entry: en}
	if m := paid[en.PlayerID]; en.Status != entry.Refunded {
		out.Paid, out.RefundTransferID = m.paid, m.refund
	}
	return out
}

// entryWithMoney is one entry with its money.
func (d *Desk) entryWithMoney(ctx context.Context, id string, en entry.Entry) (Entry, error) {
	paid, err := d.money(ctx, id)
	if err != nil {
		return Entry{}, err
	}
	return withMoney(en, paid), nil
}

// Entries returns the event's entries in registration order with their
// money.
func (d *Desk) Entries(ctx context.Context, id string) ([]Entry, error) {
	ens, err := d.store.Entries(ctx, id)
	if err != nil {
		return nil, err
	}
	paid, err := d.money(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(ens))
	for _, en := range ens {
		out = append(out, withMoney(en, paid))
	}
	return out, nil
}

// Register records the entry and its payment in one transaction, asks the
// wallet, and records the answer (TR-04, G-23); a late registration is
// seated by the director. An entry whose payment is still pending is
// finished by the same call.
func (d *Desk) Register(ctx context.Context, id, player, voucher string) (Entry, error) {
	now := d.now()
	var pay entry.Payment
	err := d.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		existing, err := tx.Entry(player)
		if err != nil {
			return err
		}
		if t.Rules.Day2 != nil {
			return ErrEnterAFlight // issue 13: its field is its flights' survivors
		}
		if existing != nil && existing.Status == entry.Paying {
			p, err := pending(tx, player, entry.PayEntry)
			pay = p
			return err
		}
		n, err := tx.Entrants()
		if err != nil {
			return err
		}
		en, p, err := entry.Register(t.Event, t.Rules.Entry, n, existing, player, voucher, now)
		if err != nil {
			return err
		}
		pay = p
		if err := tx.PutEntry(en); err != nil {
			return err
		}
		return tx.AddPayment(p, 0, now)
	})
	if err != nil {
		return Entry{}, err
	}
	release := d.issuing(id)
	defer release()
	en, _, err := d.settle(ctx, id, []entry.Payment{pay})
	if err != nil {
		return Entry{}, err
	}
	if en.Table > 0 {
		// A late registration (G-23) was seated by the draw: the director
		// seats it at the table.
		d.drive(ctx, "late seat", id, func(ctx context.Context, id string) error { return d.director.SeatLate(ctx, id, player) })
	}
	return d.entryWithMoney(ctx, id, en)
}

// Unregister withdraws an entry before the start (TR-04): the entry
// leaves the prize pool and its refund is a saga step, recorded in the
// same transaction, that asks the wallet's RefundEntry to reverse the
// entry's transfer — prize part and fee — once. An unregistered entry
// whose refund is still pending is finished by the same call.
func (d *Desk) Unregister(ctx context.Context, id, player string) (Entry, error) {
	now := d.now()
	var refund entry.Payment
	err := d.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		cur, err := entryOf(tx, id, player)
		if err != nil {
			return err
		}
		if cur.Status == entry.Unregistered {
			if p, err := pending(tx, player, entry.RefundEntry); err == nil {
				refund = p
				return nil
			}
		}
		en := cur
		p, entryKey, err := entry.Unregister(t.Event, &en, now)
		if err != nil {
			return err
		}
		refund = p
		if err := tx.Withdraw(entryKey); err != nil {
			return err
		}
		if err := tx.AddPayment(p, 0, now); err != nil {
			return err
		}
		return tx.PutEntry(en)
	})
	if err != nil {
		return Entry{}, err
	}
	en, _, err := d.settle(ctx, id, []entry.Payment{refund})
	if err != nil {
		return Entry{}, err
	}
	return d.entryWithMoney(ctx, id, en)
}

// entryOf reads the player's entry, which must exist.
func entryOf(tx *store.Tx, id, player string) (entry.Entry, error) {
	en, err := tx.Entry(player)
	if err != nil {
		return entry.Entry{}, err
	}
	if en == nil {
		return entry.Entry{}, entry.ErrNotRegistered.Withf("%s has no entry in %s", player, id)
	}
	return *en, nil
}

// Purchase is a rebuy or an add-on asked for a player (TR-13…TR-17).
type Purchase struct {
	// Stack is the player's stack as the floor reports it; the tables'
	// count wins when the director drives them.
	Stack int64
	// HandsSincePeriodEnd is what the floor reports of the player's
	// table's last rebuy hands (TR-16); the table's own count wins when
	// larger.
	HandsSincePeriodEnd int32
	// WithRebuy asks for a rebuy before the add-on (TR-17).
	WithRebuy bool
}

// Rebuy decides and pays a rebuy (TR-13…TR-16, G-23); it returns the
// entry and the chips paid for.
func (d *Desk) Rebuy(ctx context.Context, id, player string, buy Purchase) (entry.Entry, int64, error) {
	return d.purchase(ctx, id, player, buy, func(t *store.Tournament, en entry.Entry, at entry.Table) ([]entry.Payment, error) {
		p, _, err := entry.Rebuy(t.Event, t.Rules.Entry, en, at)
		return []entry.Payment{p}, err
	})
}

// AddOn decides and pays the add-on, with a rebuy first for an empty
// stack (TR-17, G-23); it returns the entry and the chips paid for.
func (d *Desk) AddOn(ctx context.Context, id, player string, buy Purchase) (entry.Entry, int64, error) {
	return d.purchase(ctx, id, player, buy, func(t *store.Tournament, en entry.Entry, at entry.Table) ([]entry.Payment, error) {
		ps, _, err := entry.AddOn(t.Event, t.Rules.Entry, en, at, buy.WithRebuy)
		return ps, err
	})
}

// purchase records the steps decide returns for a rebuy or an add-on in
// one transaction, pays them, and has the director put their chips on
// the player's stack at the table (TR-14, TR-17).
func (d *Desk) purchase(ctx context.Context, id, player string, buy Purchase,
	decide func(*store.Tournament, entry.Entry, entry.Table) ([]entry.Payment, error)) (entry.Entry, int64, error) {
	held, err := d.stackOf(ctx, id, player, buy.Stack)
	if err != nil {
		return entry.Entry{}, 0, err
	}
	now := d.now()
	var pays []entry.Payment
	err = d.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		en, err := entryOf(tx, id, player)
		if err != nil {
			return err
		}
		idle, err := idleTable(tx, t, en, now)
		if err != nil {
			return err
		}
		ps, err := decide(t, en, entry.Table{Now: now, HandsSincePeriodEnd: handsSincePeriodEnd(t, en, buy.HandsSincePeriodEnd),
			Stack: held.Chips, AllIn: held.AllIn, Idle: idle})
		if err != nil {
			return err
		}
		pays = ps
		for _, p := range ps {
			if err := tx.AddPayment(p, chipsOf(t, p), now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return entry.Entry{}, 0, err
	}
	release := d.issuing(id)
	defer release()
	en, chips, err := d.settle(ctx, id, pays)
	if err != nil {
		return entry.Entry{}, 0, err
	}
	d.driveChips(ctx, id, player, pays)
	return en, chips, nil
}

// chipsOf is what a rebuy or an add-on step puts on the player's stack.
func chipsOf(t *store.Tournament, p entry.Payment) int64 {
	if p.Kind == entry.PayAddOn {
		return t.Rules.Entry.AddOnChips
	}
	return t.Rules.Entry.RebuyChips
}

// stackOf is the player's stack for a rebuy or an add-on (TR-15, TR-17):
// the chips the tables hold for them when the director drives the
// tables, whatever stack the request names; the request's otherwise (the
// floor runs the tables).
func (d *Desk) stackOf(ctx context.Context, id, player string, asked int64) (director.Holding, error) {
	if d.director == nil {
		return director.Holding{Chips: asked}, nil
	}
	h, found, err := d.director.Chips(ctx, id, player)
	if err != nil {
		return director.Holding{}, fmt.Errorf("stack of %s: %w", player, err)
	}
	if !found {
		return director.Holding{Chips: asked}, nil
	}
	return h, nil
}

// issuing holds the director's chip count of the tournament while a
// payment's chips are issued and put on the tables (director.Issue).
func (d *Desk) issuing(id string) (release func()) {
	if d.director == nil {
		return func() {}
	}
	return d.director.Issue(id)
}

// driveChips has the director put paid rebuy and add-on chips on the
// player's stack at the table (TR-14, TR-17), keyed by each payment.
func (d *Desk) driveChips(ctx context.Context, id, player string, pays []entry.Payment) {
	if d.director == nil {
		return
	}
	t, err := d.store.Load(ctx, id)
	if err != nil {
		return
	}
	for _, p := range pays {
		chips := chipsOf(&t, p)
		d.drive(ctx, "chips", id, func(ctx context.Context, id string) error {
			return d.director.AddChips(ctx, id, player, p.Key, chips, p.Kind == entry.PayAddOn)
		})
	}
}

// Leave marks the player as gone (TR-35): the table deals them dead
// until their chips are gone.
func (d *Desk) Leave(ctx context.Context, id, player string) (entry.Entry, error) {
	var en entry.Entry
	err := d.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		cur, err := entryOf(tx, id, player)
		if err != nil {
			return err
		}
		en = cur
		if err := entry.Leave(t.Event, &en); err != nil {
			return err
		}
		return tx.PutEntry(en)
	})
	if err != nil {
		return entry.Entry{}, err
	}
	// TR-35: the table deals the player dead until the chips are gone.
	d.drive(ctx, "leave", id, func(ctx context.Context, id string) error {
		return d.director.Absent(ctx, id, player, "trn/"+id+"/left/"+player)
	})
	return en, nil
}

// Settled is a prize pool settlement: the step and the transfer that
// made it.
type Settled struct {
	entry.Payment
	TransferID string
}

// SettlePool moves what a finished event's prize pool holds beyond the
// prizes paid — a prize withheld from an expelled player (TR-34), a
// satellite's remainder (G-24) — to a player (none: the house). The step,
// its amount and the audit record (actor by) are written in one
// transaction; the wallet is then asked under the step's key. A
// settlement still pending is finished by the same call, never made
// twice.
func (d *Desk) SettlePool(ctx context.Context, id, player, reason, by string) (Settled, error) {
	now := d.now()
	var pay entry.Payment
	err := d.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		ps, err := tx.PendingPayments("")
		if err != nil {
			return err
		}
		for _, p := range ps {
			if p.Kind == entry.SettlePool {
				pay = p.Payment
				return nil
			}
		}
		if t.Event.Status != event.Finished {
			return ErrPrizesNotPaid.Withf("the tournament is TOURNAMENT_STATE_%s", t.Event.Status)
		}
		pool, _, err := tx.Contributions()
		if err != nil {
			return err
		}
		out, settlements, err := tx.PaidOut()
		if err != nil {
			return err
		}
		left := pool - out
		if left <= 0 {
			return ErrNothingToSettle.With("prize_pool", strconv.FormatInt(pool, 10), "paid_out", strconv.FormatInt(out, 10))
		}
		pay = entry.Settlement(t.Event, left, settlements+1, player, reason)
		if err := tx.AddPayment(pay, 0, now); err != nil {
			return err
		}
		return tx.AddAudit(by, "settle_pool", map[string]any{"amount": left, "player_id": pay.PlayerID,
			"reason": pay.Note, "idempotency_key": pay.Key, "prize_pool": pool, "paid_out": out}, now)
	})
	if err != nil {
		return Settled{}, err
	}
	if _, _, err := d.settle(ctx, id, []entry.Payment{pay}); err != nil {
		return Settled{}, err
	}
	out := Settled{Payment: pay}
	recs, err := d.store.Payments(ctx, id, int(entry.SettlePool))
	if err != nil {
		return Settled{}, err
	}
	for _, r := range recs {
		if r.Key == pay.Key {
			out.TransferID = r.TransferID
		}
	}
	return out, nil
}

// Cancel cancels the event and has the wallet refund it (TR-03, G-30),
// audited as by's with the reason. The refund is a saga step keyed per
// event: calling again after an interrupted refund finishes it. It
// returns the event and what the refund paid back.
func (d *Desk) Cancel(ctx context.Context, id, reason, by string) (store.Tournament, int64, error) {
	now := d.now()
	var pay entry.Payment
	err := d.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		if t.Event.Status == event.Cancelled {
			rec, ok, err := tx.Payment(entry.CancelPayment(t.Event, "").Key)
			if err != nil {
				return err
			}
			if ok && rec.State == store.PaymentPending {
				pay = rec.Payment // finish the interrupted refund with its own reason
				return nil
			}
			return event.ErrNotCancellable
		}
		ps, err := tx.PendingPayments("")
		if err != nil {
			return err
		}
		if len(ps) > 0 {
			// A payment still in flight could land after the refund.
			return entry.ErrPaymentInFlight.Withf("%d payments have not settled; repeat their requests first", len(ps))
		}
		if err := t.Event.Cancel(); err != nil {
			return err
		}
		pay = entry.CancelPayment(t.Event, reason)
		if err := tx.AddAudit(by, "cancel", map[string]string{"reason": reason}, now); err != nil {
			return err
		}
		return tx.AddPayment(pay, 0, now)
	})
	if err != nil {
		return store.Tournament{}, 0, err
	}
	return d.refund(ctx, id, pay)
}

// History is one event of a player's history with the entry's money.
type History struct {
	store.PlayerEvent
	Entry Entry
}

// PlayerHistory returns a player's events, latest first: the entry
// (re-entries, rebuys, add-on, money), place, prize, penalties and bag
// (issue 13).
func (d *Desk) PlayerHistory(ctx context.Context, player string) ([]History, error) {
	hist, err := d.store.PlayerHistory(ctx, player)
	if err != nil {
		return nil, err
	}
	out := make([]History, 0, len(hist))
	for _, h := range hist {
		en, err := d.entryWithMoney(ctx, h.Event.ID, h.Entry)
		if err != nil {
			return nil, err
		}
		out = append(out, History{PlayerEvent: h, Entry: en})
	}
	return out, nil
}

// handsSincePeriodEnd is the larger of what the caller reports and what
// the player's table has reported through ReportHandStarted (TR-16).
func handsSincePeriodEnd(t *store.Tournament, en entry.Entry, reported int32) int {
	return max(int(reported), t.RebuyHands[en.Table])
}

// idleTables returns, by table number, whether a table can deal no more
// hands of its own (G-42): fewer than two players the books have in play
// there who are not held for a rebuy (TR-13); or any table once the final
// table is due (TR-07), since every table left is then held for the
// redraw, which waits for the players held at them and would otherwise
// wait for ever.
func idleTables(t *store.Tournament, ens []entry.Entry) func(table int) bool {
	live := map[int]int{}
	for _, en := range ens {
		if _, held := t.HeldBusts[en.PlayerID]; en.Status == entry.Active && en.Table != 0 && !held {
			live[en.Table]++
		}
	}
	final := director.FinalDue(director.Plan(ens, t.Rules.SeatsPerTable), t.Rules.SeatsPerTable)
	return func(table int) bool { return final || live[table] < 2 }
}

// idleTable reports whether the player's table can deal no more hands
// (G-42) where that decides a rebuy or an add-on: the rebuy period is over
// and the table has not counted its last rebuy hands (TR-16), which it
// never will. Its last rebuy hands are then over.
func idleTable(tx *store.Tx, t *store.Tournament, en entry.Entry, now time.Time) (bool, error) {
	if en.Table == 0 || now.Before(t.Event.StartsAt.Add(t.Rules.Entry.RebuyPeriod)) || t.RebuyHands[en.Table] >= t.Rules.Entry.LastRebuyHands {
		return false, nil
	}
	ens, err := tx.Entries()
	if err != nil {
		return false, err
	}
	return idleTables(t, ens)(en.Table), nil
}

// seatLate seats a player who registered after the start (G-23) the way
// a table break does: at the shortest table, in a drawn empty seat; a new
// table opens when every table is full, under a number no table of the
// event had (a broken table's is closed at the table service).
func seatLate(tx *store.Tx, t *store.Tournament, en *entry.Entry, src rand.Source) error {
	ens, err := tx.Entries()
	if err != nil {
		return err
	}
	links, err := tx.Tables()
	if err != nil {
		return err
	}
	byTable := map[int]balance.Table{}
	highest := 0
	for _, l := range links {
		highest = max(highest, l.Table)
	}
	for _, o := range ens {
		if o.Status != entry.Active || o.Table == 0 || o.PlayerID == en.PlayerID {
			continue
		}
		tb, ok := byTable[o.Table]
		if !ok {
			tb = balance.Table{ID: strconv.Itoa(o.Table), MaxSeats: t.Rules.SeatsPerTable, Seats: map[int]string{}}
		}
		tb.Seats[o.Seat] = o.PlayerID
		byTable[o.Table] = tb
		highest = max(highest, o.Table)
	}
	var tables []balance.Table
	for _, n := range slices.Sorted(maps.Keys(byTable)) {
		tables = append(tables, byTable[n])
	}
	id, seat, ok := balance.Place(tables, src)
	if !ok {
		id, seat, _ = balance.Place([]balance.Table{{ID: strconv.Itoa(highest + 1), MaxSeats: t.Rules.SeatsPerTable, Seats: map[int]string{}}}, src)
	}
	en.Table, _ = strconv.Atoi(id)
	en.Seat = seat
	return tx.AddDraw("late_seat", draw.Seat{PlayerID: en.PlayerID, Table: en.Table, Seat: en.Seat}, en.RegisteredAt)
}

// FlightBagged has the wallet move a bagged flight's prize pool to its
// Day 2: the step the director recorded, settled like every other (issue
// 13); director.Deps.Bagged.
func (d *Desk) FlightBagged(ctx context.Context, id string, pay entry.Payment) error {
	_, _, err := d.settle(ctx, id, []entry.Payment{pay})
	return err
}
