package runner

import (
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/table/dealer"
	"github.com/cardroom/cardroom/services/table/store"
)

// retryMoney finishes the table's unfinished wallet steps: sit-downs and
// commits of holds whose seat was stored, and cash-outs. A sit-down or
// commit the wallet refuses (the hold expired) undoes its seat, or for a
// top-up takes the chips back off the table. The caller holds t.mu.
//
// req is the context of the request that asked for the steps (the
// runner's own for the background retries). The steps run on the runner's context (a caller
// who hangs up must not cut a payment short) but under req's span, so
// that they appear in the request's trace.
//
// A step's own change can ask for steps again (a seat taken back opens
// it, and a change that opens seats pays leavers at once). That call does
// not run inside the pass: the pass would then go on with steps it read
// before the inner one finished them, and a buy-in the inner pass had
// bought and dealt in would be taken up again, found no longer waiting,
// and its chips cashed back out to the player while the seat plays on
// with them. It asks for another pass, which reads the steps afresh once
// this one is done.
func (t *Table) retryMoney(req context.Context) {
	d := t.r.d
	if !t.wallet().Escrow() || t.stopped != nil {
		return
	}
	if t.retrying {
		t.again = true
		return
	}
	t.retrying = true
	defer func() { t.retrying = false }()
	ctx := trace.ContextWithSpan(t.r.ctx, trace.SpanFromContext(req))
	// A few passes at most: each one that asks for another has finished a
	// step; what is left waits for the background retry.
	for pass := 0; pass < 4 && t.stopped == nil; pass++ {
		t.again = false
		moves, err := d.Store.PendingMoneyMoves(ctx, t.id)
		if err != nil {
			d.Logger.WarnContext(ctx, "pending money moves", "table", t.id, "error", err)
			return
		}
		for _, m := range moves {
			if t.stopped != nil {
				return
			}
			t.retryMove(ctx, m)
		}
		if !t.again {
			return
		}
	}
}

// retryMove finishes one unfinished wallet step. The caller holds t.mu.
func (t *Table) retryMove(ctx context.Context, m store.MoneyMove) {
	if direct(m) {
		if settled, err := t.finishSitDown(ctx, m); !settled {
			t.failed(ctx, m, err)
		}
		return
	}
	if m.Kind == store.MoveBuyIn && !t.unpaidAt(m) {
		// The seat went (the player left, the table closed) before the
		// wallet confirmed the commit: give the chips back instead.
		if err := t.giveBackBuyIn(ctx, m); err != nil {
			t.failed(ctx, m, err)
			return
		}
		if err := t.r.d.Store.SettleMoneyMove(ctx, t.r.d.DB.SQL(), m.Key); err != nil {
			t.r.d.Logger.WarnContext(ctx, "settle money move", "table", t.id, "error", err)
		}
		return
	}
	err := t.finishMove(ctx, m)
	switch {
	case err == nil && m.Kind == store.MoveCashOut:
	case err == nil:
		if perr := t.paid(ctx, m); perr != nil {
			t.failed(ctx, m, perr)
		}
	case m.Kind == store.MoveCashOut || !definite(err):
		t.failed(ctx, m, err)
	default:
		if _, uerr := t.undoBuyIn(ctx, m); uerr != nil {
			t.failed(ctx, m, uerr)
		}
	}
}

// unpaidAt reports whether m's player still sits in m's seat waiting for
// the buy-in's commit or sit-down. A sit-down's seat must also be its
// sitting's: the player may have left it unpaid and sat there again under
// another, and the first sitting's answer must not pay for the second.
// The caller holds t.mu.
func (t *Table) unpaidAt(m store.MoneyMove) bool {
	s := t.dt.Seats()
	return m.Seat < len(s) && s[m.Seat].Player == m.Player && s[m.Seat].Unpaid && (!direct(m) || s[m.Seat].Sitting == m.Sitting)
}

// direct reports whether m is a buy-in made with one wallet call
// (SitDown), not held and then committed: it has a sitting and no hold.
func direct(m store.MoneyMove) bool { return m.Kind == store.MoveBuyIn && m.HoldID == "" }

// finishSitDown asks the wallet to buy the sitting of the direct buy-in m
// and settles the step at the table with its answer. Sit asks first; a
// retry asks again under the same key, because the wallet buys a sitting
// at most once: asking is the only way to learn whether a sit-down whose
// answer was lost went through, and it moves no chips twice.
//
// Bought, the seat is dealt in (markPaid); refused, the seat is taken back
// (nothing moved). If the seat went before the answer came (the player
// left, the table closed), no chips are on the table for it: a buy-in that
// went through is given back (cashed out, ending its sitting), and a
// refused one is just settled. settled reports whether the step is done;
// err is the wallet's refusal (settled), or why the step stays pending for
// the background retry: no answer, or a failure after it. The caller
// holds t.mu.
func (t *Table) finishSitDown(ctx context.Context, m store.MoneyMove) (settled bool, err error) {
	w := t.wallet()
	err = w.SitDown(ctx, SitDown{Step: t.step(m.Key), Player: m.Player, Seat: m.Seat, Currency: t.def.Currency, Game: t.def.Config,
		Amount: m.Amount, Sitting: m.Sitting})
	refused := definite(err)
	switch {
	case err != nil && !refused:
		return false, fmt.Errorf("sit down (retried in the background): %w", err)
	case !t.unpaidAt(m):
		if !refused {
			if err := w.CashOut(ctx, t.step(m.Key+"/give-back"), CashOut{Player: m.Player, Seat: m.Seat, Currency: t.def.Currency,
				Stack: m.Amount, Sitting: m.Sitting}); err != nil {
				return false, fmt.Errorf("give back buy-in %s, whose seat went before it was paid: %w", m.Key, err)
			}
		}
		if serr := t.settledRefused(ctx, m, err)(t.r.d.DB.SQL()); serr != nil {
			return false, serr
		}
		return true, err
	case !refused:
		if perr := t.markPaid(ctx, m); perr != nil {
			return false, perr
		}
		return true, nil
	}
	settle := t.settledRefused(ctx, m, err)
	if _, uerr := t.do(ctx, func(dt *dealer.Table) (dealer.Output, error) { return dt.Unseat(m.Seat) }, func(tx *sqlstore.Tx) error { return settle(tx) }); uerr != nil {
		return false, fmt.Errorf("take back the seat of buy-in %s, which the wallet refused (%v): %w", m.Key, err, uerr)
	}
	// Logged: when the first answer was lost, the seat was seen taken
	// (reads, SEAT_TAKEN, G-21 at other tables) before it went.
	t.r.d.Logger.InfoContext(ctx, "seat taken back: the wallet refused its buy-in", "table", t.id, "seat", m.Seat,
		"player", m.Player, "key", m.Key, "error", err)
	return true, err
}

// giveBackBuyIn returns the buy-in of a seat that went before the wallet
// confirmed its commit. Usually the hold is still held and is released.
// But a commit can go through with its answer lost (the wallet cut off
// or killed after committing): then the chips are already in the table's
// escrow and the sitting is open, while the table never counted them, so
// they are cashed out to the player, ending that sitting. Releasing alone
// (as before) left them in escrow for good. The caller holds t.mu.
func (t *Table) giveBackBuyIn(ctx context.Context, m store.MoneyMove) error {
	committed, err := t.wallet().Release(ctx, t.step(m.Key+"/release"), m.HoldID)
	if err != nil || !committed {
		return err
	}
	return t.wallet().CashOut(ctx, t.step(m.Key+"/give-back"), CashOut{Player: m.Player, Seat: m.Seat, Currency: t.def.Currency,
		Stack: m.Amount, Sitting: m.HoldID})
}

// StuckAfter is how many failed attempts make a pending wallet step
// stuck: at the background retry's 5 s, about a minute of them. A stuck
// step is still retried, but it is logged as an error, counted
// (cardroom.table.wallet_steps.stuck) and listed for the cage by the wallet
// (ListStuckCashOuts), because its chips stay in the table's escrow until
// someone looks.
const StuckAfter = 12

// failed records a failed attempt at a pending wallet step; the attempt
// that makes it stuck is logged as an error and counted.
func (t *Table) failed(ctx context.Context, m store.MoneyMove, cause error) {
	d := t.r.d
	n, err := d.Store.FailMoneyMove(ctx, m.Key, cause, d.Clock.Now())
	if err != nil {
		d.Logger.WarnContext(ctx, "record a failed wallet step", "table", t.id, "key", m.Key, "error", err)
	}
	if n == StuckAfter {
		d.Logger.ErrorContext(ctx, "wallet step stuck: its chips stay in the table's escrow until it is paid", "table", t.id,
			"kind", m.Kind, "key", m.Key, "seat", m.Seat, "amount", m.Amount, "attempts", n, "error", cause)
		stuckMoves.Add(ctx, 1, metric.WithAttributes(attribute.String("cardroom.wallet_step.kind", m.Kind)))
		return
	}
	d.Logger.WarnContext(ctx, "wallet step (retried)", "table", t.id, "kind", m.Kind, "key", m.Key, "attempts", n, "error", cause)
}

// sittingOf is the wallet sitting of a seat: the one its buy-in opened, or
// for a seat taken before sittings had names, the name the wallet gave
// those (legacy/<player>).
func sittingOf(s dealer.Seat) string {
	if s.Sitting != "" {
		return s.Sitting
	}
	return "legacy/" + s.Player
}

// markPaid deals in a player whose buy-in the wallet committed or bought,
// in the transaction that settles the step. A direct buy-in's seat is
// announced to seating (table.player_seated) there too, not when it was
// stored: seating must never hear of a seat that is then taken back. The
// caller holds t.mu.
func (t *Table) markPaid(ctx context.Context, m store.MoneyMove) error {
	if !t.unpaidAt(m) {
		return nil
	}
	settle := t.settled(ctx, m)
	if direct(m) {
		seated, err := t.playerSeated(m)
		if err != nil {
			return err
		}
		settle = func(tx *sqlstore.Tx) error {
			if err := t.r.d.Store.SettleMoneyMove(ctx, tx, m.Key); err != nil {
				return err
			}
			return t.r.d.Relay.Add(ctx, tx, seated)
		}
	}
	if _, err := t.do(ctx, func(dt *dealer.Table) (dealer.Output, error) { return dt.Paid(m.Seat) }, settle); err != nil {
		return fmt.Errorf("mark buy-in %s paid at seat %d: %w", m.Key, m.Seat, err)
	}
	return nil
}

// undoBuyIn takes back a seat or top-up whose hold the wallet would not
// commit, once the wallet has given the chips back: the release decides.
// A commit refused for a reason that does not say the hold was not
// committed (a retry after the commit's key was pruned, a key recorded
// under another request hash) would otherwise undo a buy-in that went
// through and strand it in the table's escrow; the release finds such a
// hold committed, and the buy-in stands. A release that gets no answer
// leaves the step pending for the next retry. The caller holds t.mu.
// It reports whether the buy-in was undone.
func (t *Table) undoBuyIn(ctx context.Context, m store.MoneyMove) (undone bool, err error) {
	committed, err := t.wallet().Release(ctx, t.step(m.Key+"/release"), m.HoldID)
	if err != nil {
		return false, fmt.Errorf("release the hold of %s before undoing it: %w", m.Key, err)
	}
	if committed {
		return false, t.paid(ctx, m)
	}
	if m.Kind == store.MoveTopUp && !t.seatedAt(m) {
		// The seat went with the chips on it (a top-up stored before
		// chips waited for their commit, G-41): there is nothing here to
		// take back, and another player's chips must not be.
		return false, fmt.Errorf("take back top-up %s: %w", m.Key, errTopUpSeatGone)
	}
	_, err = t.do(ctx, func(dt *dealer.Table) (dealer.Output, error) {
		if m.Kind == store.MoveTopUp {
			return dt.TakeBack(m.Seat, m.Amount)
		}
		return dt.Unseat(m.Seat)
	}, t.settled(ctx, m))
	return err == nil, err
}

// errTopUpSeatGone says a top-up's seat no longer holds its player.
var errTopUpSeatGone = errors.New("the player no longer sits in the top-up's seat")

// seatedAt reports whether m's player still sits in m's seat. The caller
// holds t.mu.
func (t *Table) seatedAt(m store.MoneyMove) bool {
	s := t.dt.Seats()
	return m.Seat < len(s) && s[m.Seat].Player == m.Player
}

// paid records a buy-in or top-up whose hold the wallet committed: the
// seat is dealt in, or the top-up's chips join it (G-41), in the
// transaction that marks the step done. The caller holds t.mu.
func (t *Table) paid(ctx context.Context, m store.MoneyMove) error {
	if m.Kind == store.MoveBuyIn {
		if err := t.markPaid(ctx, m); err != nil {
			t.r.d.Logger.ErrorContext(ctx, "mark a buy-in paid", "table", t.id, "seat", m.Seat, "error", err)
		}
		return nil
	}
	if !t.seatedAt(m) {
		// A top-up stored before chips waited for their commit, whose
		// seat went with its chips on it.
		return t.r.d.Store.SettleMoneyMove(ctx, t.r.d.DB.SQL(), m.Key)
	}
	if _, err := t.do(ctx, func(dt *dealer.Table) (dealer.Output, error) { return dt.TopUpPaid(m.Seat, m.Amount) },
		t.settled(ctx, m)); err != nil {
		return fmt.Errorf("add the committed top-up %s to seat %d: %w", m.Key, m.Seat, err)
	}
	return nil
}

// settled marks the wallet step m done in the transaction of the change
// that settles it at the table.
func (t *Table) settled(ctx context.Context, m store.MoneyMove) func(*sqlstore.Tx) error {
	return func(tx *sqlstore.Tx) error { return t.r.d.Store.SettleMoneyMove(ctx, tx, m.Key) }
}

// settledRefused settles the buy-in m, keeping the wallet's refusal (nil:
// none, the seat went first) to answer a retry of the sit-down with.
func (t *Table) settledRefused(ctx context.Context, m store.MoneyMove, refusal error) func(sqlstore.Querier) error {
	var record string
	if r, ok := errors.AsType[*WalletRefused](refusal); ok {
		record = r.Record
	}
	return func(q sqlstore.Querier) error { return t.r.d.Store.SettleRefusedMoneyMove(ctx, q, m.Key, record) }
}

// finishMove performs one recorded wallet step (idempotent at the wallet by
// its key) and marks it done.
func (t *Table) finishMove(ctx context.Context, m store.MoneyMove) error {
	if m.Kind != store.MoveCashOut {
		// Done with the seat's Paid mark or the top-up's chips, in one
		// transaction (paid).
		return t.wallet().Commit(ctx, t.step(m.Key+"/commit"), m.HoldID, m.Player)
	}
	err := t.wallet().CashOut(ctx, t.step(m.Key), CashOut{Player: m.Player, Seat: m.Seat, Currency: t.def.Currency, Stack: m.Amount,
		Sitting: m.Sitting})
	if err != nil {
		return err
	}
	return t.r.d.Store.SettleMoneyMove(ctx, t.r.d.DB.SQL(), m.Key)
}

// wallet is the wallet for this table's chips: none for a tournament
// table, whose chips are tournament chips, not money.
func (t *Table) wallet() Wallet {
	if t.def.Config.Tournament {
		return NoMoney{}
	}
	return t.r.d.Wallet
}

// step names a wallet step of the table under key, fenced by its epoch.
func (t *Table) step(key string) Step { return Step{Key: key, Table: t.id, Epoch: t.epoch()} }
