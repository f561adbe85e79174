package desk

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"math/rand/v2"

	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/standings"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// pending returns the player's pending step of a kind.
func pending(tx *store.Tx, player string, kind entry.Kind) (entry.Payment, error) {
	ps, err := tx.PendingPayments(player)
	if err != nil {
		return entry.Payment{}, err
	}
	for _, p := range ps {
		if p.Kind == kind {
			return p.Payment, nil
		}
	}
	return entry.Payment{}, fault.New(fault.Internal, "PAYMENT_MISSING", "an entry is paying without a pending payment")
}

// settle runs saga steps in order: it asks the wallet for each and records
// the answer with its effect on the entry in one transaction. A refused
// step fails the ones after it without asking. It returns the entry after
// the steps and the total chips they gave.
func (d *Desk) settle(ctx context.Context, id string, pays []entry.Payment) (entry.Entry, int64, error) {
	var firstErr error
	var en entry.Entry
	var chips int64
	for _, p := range pays {
		out := outcome{refused: true, err: firstErr}
		if firstErr == nil {
			out = d.pay(ctx, p)
		}
		if !out.done && !out.refused {
			// The wallet did not answer: the step stays pending for a retry.
			return entry.Entry{}, 0, out.err
		}
		var got int64
		err := d.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
			var err error
			got, err = d.settleStep(tx, t, p, out, &en)
			return err
		})
		if err != nil {
			return entry.Entry{}, 0, err
		}
		chips += got
		if out.refused && firstErr == nil {
			firstErr = out.err
		}
	}
	if firstErr != nil {
		return entry.Entry{}, 0, firstErr
	}
	return en, chips, nil
}

// settleStep records the wallet's answer to step p and, the first time,
// its effect on the entry, copied into en; it returns the step's chips.
func (d *Desk) settleStep(tx *store.Tx, t *store.Tournament, p entry.Payment, out outcome, en *entry.Entry) (int64, error) {
	rec, _, err := tx.Payment(p.Key)
	if err != nil {
		return 0, err
	}
	fresh, err := tx.SettlePayment(p.Key, out.done, out.transferID, out.failure())
	if err != nil {
		return 0, err
	}
	cur, err := tx.Entry(p.PlayerID)
	if err != nil || cur == nil {
		return 0, err
	}
	*en = *cur
	var chips int64
	if (fresh && out.done) || (!fresh && rec.State == store.PaymentDone) {
		chips = rec.Chips // this answer's, or what the call that settled it first recorded
	}
	if !fresh {
		return chips, nil
	}
	keep, err := applyPayment(tx, t, en, p, out.done, out.transferID, d.random)
	if err != nil || !keep {
		return chips, err
	}
	return chips, tx.PutEntry(*en)
}

// applyPayment changes the entry for a settled step; keep is false when
// the entry is gone.
func applyPayment(tx *store.Tx, t *store.Tournament, en *entry.Entry, p entry.Payment, done bool, transferID string, src rand.Source) (keep bool, err error) {
	switch p.Kind {
	case entry.PayEntry:
		if !done {
			// Nothing was paid: the entry never existed, or goes back to
			// its withdrawn or busted state.
			if en.Reentries > 0 && en.Status == entry.Paying {
				en.Status = entry.Busted
				en.Reentries--
				return true, nil
			}
			en.Status = entry.Unregistered
			if en.Withdrawals == 0 {
				return false, tx.DeleteEntry(en.PlayerID)
			}
			return true, nil
		}
		en.Paid(transferID)
		if t.Event.Status == event.Running {
			if err := intoField(tx, t, *en); err != nil {
				return false, err
			}
			// A late registration (G-23) takes a seat at once.
			return true, seatLate(tx, t, en, src)
		}
	case entry.PayRebuy, entry.PayAddOn:
		if done {
			en.Settled(p)
		}
	}
	return true, nil
}

// intoField renumbers the places given when a late entry (G-23) joins a
// running field: a new entrant moves every place given one down; a
// re-entry takes the player's last place back and moves the better ones
// down, or, out in a hand-for-hand round not yet placed (TR-37), leaves
// the round's knock-outs. Either way the next knock-out takes a place
// nobody holds.
func intoField(tx *store.Tx, t *store.Tournament, en entry.Entry) error {
	if en.Reentries > 0 {
		if i := slices.IndexFunc(t.PendingKnockouts, func(k standings.Knockout) bool { return k.PlayerID == en.PlayerID }); i >= 0 {
			t.PendingKnockouts = slices.Delete(t.PendingKnockouts, i, i+1)
			return nil
		}
	}
	fs, err := tx.Finishes()
	if err != nil || len(fs) == 0 {
		return err
	}
	if en.Reentries > 0 {
		return tx.RenumberFinishes(standings.Reenter(fs, en.PlayerID))
	}
	return tx.RenumberFinishes(standings.Grow(fs))
}

// PayAll asks the wallet for each step and records the definite answers;
// steps the wallet did not answer stay pending for PayPrizes and Run. The
// answer that pays the last prize finishes the event.
func (d *Desk) PayAll(ctx context.Context, id string, pays []entry.Payment) {
	for _, p := range pays {
		out := d.pay(ctx, p)
		if !out.done && !out.refused {
			continue
		}
		// A failed write leaves the step pending; PayPrizes repeats it
		// under the same key.
		_ = d.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
			if _, err := tx.SettlePayment(p.Key, out.done, out.transferID, out.failure()); err != nil {
				return err
			}
			return finishWhenPaid(tx, t)
		})
	}
}

// book runs a change to the books that may place players and record
// prizes and bounties to pay: change gets the price of a satellite seat
// (TR-19) and the time and returns the steps it recorded, which are paid
// once the change is committed (PayAll).
func (d *Desk) book(ctx context.Context, id string, change bookChange) error {
	return d.bookOnce(ctx, id, nil, change)
}

// bookChange is a change to the books run by book.
type bookChange func(tx *store.Tx, t *store.Tournament, price int64, now time.Time) ([]entry.Payment, error)

// bookOnce is book; with ev, the change runs in the transaction that
// records ev as processed by the desk's Consumer (events.Idempotent), and
// not at all when it was processed before.
func (d *Desk) bookOnce(ctx context.Context, id string, ev *events.Event, change bookChange) error {
	price, err := d.seatPrice(ctx, id)
	if err != nil {
		return err
	}
	now := d.now()
	var pays []entry.Payment
	update := func(ctx context.Context, tx *sqlstore.Tx, _ events.Event) error {
		return d.store.UpdateIn(ctx, tx, id, func(tx *store.Tx, t *store.Tournament) error {
			var err error
			pays, err = change(tx, t, price, now) // each attempt replaces the last one's steps
			return err
		})
	}
	if ev != nil {
		err = events.Idempotent(d.store.DB(), Consumer, update)(ctx, *ev)
	} else {
		err = d.store.DB().Tx(ctx, func(tx *sqlstore.Tx) error { return update(ctx, tx, events.Event{}) })
	}
	if err != nil {
		return err
	}
	d.PayAll(ctx, id, pays)
	return nil
}

// finishWhenPaid moves a Paying event to Finished once every prize and
// voucher step is paid; one pending or refused keeps it Paying.
func finishWhenPaid(tx *store.Tx, t *store.Tournament) error {
	if t.Event.Status != event.Paying {
		return nil
	}
	unpaid, err := tx.UnpaidPrizes()
	if err != nil || unpaid > 0 {
		return err
	}
	t.Event.Status = event.Finished
	return nil
}

// refund asks the wallet for a cancelled event's refund and records the
// answer; the entries it paid back become Refunded. It returns the event
// and what the refund paid back.
func (d *Desk) refund(ctx context.Context, id string, pay entry.Payment) (store.Tournament, int64, error) {
	out := d.pay(ctx, pay)
	if !out.done && !out.refused {
		return store.Tournament{}, 0, out.err
	}
	var after store.Tournament
	err := d.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		if _, err := tx.SettlePayment(pay.Key, out.done, "", out.failure()); err != nil {
			return err
		}
		if out.done {
			ens, err := tx.Entries()
			if err != nil {
				return err
			}
			for _, en := range ens {
				if en.TransferID != "" {
					en.Status = entry.Refunded
					if err := tx.PutEntry(en); err != nil {
						return err
					}
				}
			}
		}
		after = *t
		return nil
	})
	if err != nil {
		return store.Tournament{}, 0, err
	}
	if out.refused {
		return store.Tournament{}, 0, out.err
	}
	return after, out.total, nil
}

// ResumePayments finishes every saga step the wallet has not answered:
// entries, rebuys, add-ons, prizes, vouchers and refunds, each under its
// own idempotency key, so a step that did reach the wallet is not paid
// twice. Run it at startup and now and then (Run does both); steps the
// wallet still does not answer stay pending. The error joins the
// failures; it does not stop the other steps.
func (d *Desk) ResumePayments(ctx context.Context) error {
	pending, err := d.store.PendingPayments(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, p := range pending {
		switch p.Kind {
		case entry.PayEntry, entry.PayRebuy, entry.PayAddOn, entry.RefundEntry, entry.SettlePool:
			_, _, err = d.settle(ctx, p.EventID, []entry.Payment{p.Payment})
		case entry.PayPrize, entry.PayVoucher, entry.PayBounty:
			d.PayAll(ctx, p.EventID, []entry.Payment{p.Payment})
			err = nil
		case entry.RefundEvent:
			_, _, err = d.refund(ctx, p.EventID, p.Payment)
		default:
			err = fmt.Errorf("unknown payment kind %s", p.Kind)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("resume %s: %w", p.Key, err))
		}
	}
	return errors.Join(errs...)
}

// ResumeInterval is how often Run retries unanswered payments.
const ResumeInterval = time.Minute

// resume resumes unanswered payments at once and then every
// ResumeInterval until ctx ends. Failures are retried on the next round.
func (d *Desk) resume(ctx context.Context) error {
	for {
		_ = d.ResumePayments(ctx) // what fails stays pending for the next round
		select {
		case <-ctx.Done():
			return nil
		case <-d.clock.After(ResumeInterval):
		}
	}
}
