package runner

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table/dealer"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/store"
)

func handAD(id string) string                { return "hand/" + id }
func handFixedAD(id string) string           { return "hand-fixed/" + id }
func deckAD(id string, hand int64) string    { return fmt.Sprintf("deck/%s/%d", id, hand) }
func historyAD(id string, hand int64) string { return fmt.Sprintf("history/%s/%d", id, hand) }

// handMovingAD binds the moving part of a split hand to the sealed fixed
// part stored with it: neither opens beside another hand's.
func handMovingAD(id string, fixed []byte) string { return "hand/" + id + "/" + string(fixed) }

// do runs one change of the table under its mutex: fn changes the dealer,
// persist makes it durable (with extra written in the same transaction),
// and then the change is announced and what follows it is scheduled. If
// the change cannot be stored, the table is read back from the store.
func (t *Table) do(ctx context.Context, fn func(dt *dealer.Table) (dealer.Output, error), extra func(tx *sqlstore.Tx) error) (dealer.Output, error) {
	return t.dealing(ctx, fn, nil, extra)
}

// dealing is do for a change that deals a hand from deck (nil: none, or
// the next hand when the change leaves the table ready for it).
func (t *Table) dealing(ctx context.Context, fn func(dt *dealer.Table) (dealer.Output, error), deck *sealedDeck, extra func(tx *sqlstore.Tx) error) (dealer.Output, error) {
	if t.stopped != nil {
		return dealer.Output{}, ErrOwnedElsewhere.Wrap(t.stopped)
	}
	out, err := fn(t.dt)
	if err != nil || out.Duplicate {
		return out, err
	}
	// The next hand is dealt in the same transaction as the change that
	// made the table ready (the end of the last hand, a second player
	// sitting down), with its sealed deck: no card is seen before the deck
	// is stored, and a crash leaves neither or both.
	var also []dealer.Output
	if now := t.r.d.Clock.Now(); deck == nil && t.stopped == nil && t.r.d.HandPause == 0 && t.buying == 0 && t.dt.Ready(now) {
		var cs cards.Deck
		cs, deck = t.shuffle()
		next, err := t.dt.StartHand(cs, now)
		if err != nil {
			t.recover(err)
			return dealer.Output{}, err
		}
		out.Seq, out.Started = next.Seq, next.Started
		for _, n := range next.Notices {
			n.At += len(out.Events) // the next hand's controls come with its events
			out.Notices = append(out.Notices, n)
		}
		out.Events = append(out.Events, next.Events...)
		if next.Ended != nil {
			// Over as it was dealt (every player all in on the blinds,
			// or the other hands absent and killed, TP-57): its end is
			// stored with it.
			also = append(also, next)
		}
	}
	if err := t.persist(ctx, out, deck, extra, also...); err != nil {
		t.recover(err)
		return dealer.Output{}, err
	}
	if out.Ended != nil {
		t.checkChips(ctx, out.Ended)
	}
	t.ended = nil
	if out.History != nil {
		t.ended, t.endedSeq = out.History.Hand, t.dt.Seq()
	}
	if out.Started != 0 {
		t.countHand(ctx)
	}
	t.announce(out)
	if len(out.CashOuts) > 0 || len(out.SeatsOpened) > 0 {
		// Pay leavers now (and settle the buy-ins of seats that went
		// before they were paid); what fails is retried in
		// the background. The payment joins the trace of the request
		// that caused it (a leave, a close), so that trace shows the
		// wallet's CashOut.
		t.retryMoney(ctx)
	}
	t.schedule()
	return out, nil
}

// recover reads the table back after a failed write; if this process no
// longer owns it, it stops.
func (t *Table) recover(cause error) {
	if errors.Is(cause, sqlstore.ErrFencedOut) || errors.Is(cause, lock.ErrLockLost) {
		t.stop(cause)
		return
	}
	if err := t.reload(); err != nil {
		t.r.d.Logger.ErrorContext(t.r.ctx, "reload table after a failed write", "table", t.id, "error", err)
		t.stop(err)
	}
}

func (t *Table) reload() error {
	dt, err := t.read(t.r.ctx)
	if err != nil {
		return err
	}
	t.dt = dt
	return nil
}

// update runs fn in a transaction under a context that ends when the
// lease does. With check, the fence is checked first; without, fn's first
// statement must be a fenced write (SaveState), which checks it and takes
// the table row's lock just the same. Read committed isolation is enough:
// every write of a table is serialized by that row lock, and the rows
// written beside it (outbox, hands, decks, money moves) are inserts keyed
// by the table, so serializable isolation would only add retries.
func (t *Table) update(ctx context.Context, check bool, fn func(tx *sqlstore.Tx) error) error {
	return t.underLease(ctx, func(ctx context.Context) error {
		return t.r.d.DB.TxWith(ctx, sqlstore.TxOptions{Isolation: sql.LevelReadCommitted}, func(tx *sqlstore.Tx) error {
			if check {
				if err := t.fence.Check(ctx, tx); err != nil {
					return err
				}
			}
			return fn(tx)
		})
	})
}

// underLease runs write under a context that ends when the lease does; a
// write that fails once the lease is lost reports lock.ErrLockLost.
func (t *Table) underLease(ctx context.Context, write func(ctx context.Context) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(t.lease.Context(), func() { cancel(lock.ErrLockLost) })
	defer stop()
	err := write(ctx)
	if cause := context.Cause(t.lease.Context()); err != nil && cause != nil {
		return fmt.Errorf("table %s: %w: %w", t.id, lock.ErrLockLost, cause)
	}
	return err
}

// persist stores the table's state after out with what out caused (its
// hand history, cash-outs, events, rulings, tournament rows), the deck of
// the hand it dealt, extra, and what the changes in also caused, in one
// fenced transaction.
func (t *Table) persist(ctx context.Context, out dealer.Output, deck *sealedDeck, extra func(tx *sqlstore.Tx) error, also ...dealer.Output) error {
	d := t.r.d
	public, fixed, moving, err := t.dt.MarshalSplit()
	if err != nil {
		return err
	}
	st := store.State{Public: public, Closing: t.dt.Closing()}
	if fixed != nil {
		st.HandFixed = t.sealFixed(fixed)
		st.Hand = d.Sealer.Seal(moving, handMovingAD(t.id, st.HandFixed))
	} else {
		t.fixed = sealedFixed{} // between hands: nothing to keep
	}
	w, err := t.caused(ctx, append([]dealer.Output{out}, also...), extra)
	if err != nil {
		return err
	}
	w.deck = deck
	closed := t.dt.Closed()
	w.extra = t.withEntry(ctx, w.extra)
	var held func(error) error
	w.extra, held = t.withHoldings(ctx, w.extra)
	if w.none() {
		// Most actions change the table row alone: one fenced statement,
		// atomic by itself, saves the BEGIN and COMMIT round trips.
		return t.saveStateOnly(ctx, st, closed)
	}
	// The state and all it caused in one transaction, fenced, shared with
	// the other tables writing at the same moment (store.StateGroup): a
	// hand's end commits with them instead of alone. Like a plain
	// action's write, it is waited for once taken (only the lease ends
	// the wait), so the table knows whether its hand end was stored.
	return held(t.underLease(context.WithoutCancel(ctx), func(ctx context.Context) error {
		return d.States.SaveWith(ctx, store.StateSave{Fence: t.fence, State: st, Closed: closed, Also: func(ctx context.Context, tx *sqlstore.Tx) error {
			return w.write(ctx, t, tx)
		}, Pipelinable: w.pipelinable()})
	}))
}

// sealedFixed is the fixed part of the hand in progress
// (dealer.Table.MarshalSplit) and its sealed bytes: sealed once per hand
// and stored again byte for byte with each of the hand's actions, which
// PostgreSQL then leaves out of the WAL (store.State.HandFixed).
type sealedFixed struct{ plain, sealed []byte }

// sealFixed returns fixed sealed: the bytes stored last when it has not
// changed since. The caller holds t.mu.
func (t *Table) sealFixed(fixed []byte) []byte {
	if t.fixed.sealed == nil || !bytes.Equal(fixed, t.fixed.plain) {
		t.fixed = sealedFixed{plain: fixed, sealed: t.r.d.Sealer.Seal(fixed, handFixedAD(t.id))}
	}
	return t.fixed.sealed
}

// written is what a change caused besides the table row, written in the
// row's transaction.
type written struct {
	hands    []savedHand
	cashOuts []store.MoneyMove
	evs      []events.Event
	deck     *sealedDeck
	extra    func(tx *sqlstore.Tx) error
}

// savedHand is a hand's history with its players' index rows.
type savedHand struct {
	hand    store.Hand
	players []store.HandPlayer
}

// caused collects what outs caused, with extra and the rulings and
// tournament rows they wrote.
func (t *Table) caused(ctx context.Context, outs []dealer.Output, extra func(tx *sqlstore.Tx) error) (*written, error) {
	d := t.r.d
	w := &written{}
	now := d.Clock.Now()
	for _, o := range outs {
		evs, err := t.outboxEvents(o)
		if err != nil {
			return nil, err
		}
		w.evs = append(w.evs, evs...)
		if h := o.History; h != nil {
			b, err := json.Marshal(h)
			if err != nil {
				return nil, fmt.Errorf("table %s hand %d history: %w", t.id, h.HandNo, err)
			}
			sh := savedHand{hand: store.Hand{TableID: t.id, HandNo: h.HandNo, Start: h.Start, End: h.End, History: d.Sealer.Seal(b, historyAD(t.id, h.HandNo))}}
			for _, s := range o.Ended.Result.Seats {
				sh.players = append(sh.players, store.HandPlayer{Player: s.ID, Seat: s.Seat, Net: s.Net})
			}
			w.hands = append(w.hands, sh)
		}
		for _, c := range o.CashOuts {
			w.cashOuts = append(w.cashOuts, store.MoneyMove{Key: fmt.Sprintf("cash-out/%s/%d/%d", t.id, o.Seq, c.Seat), TableID: t.id,
				Kind: store.MoveCashOut, Player: c.Player, Seat: c.Seat, Amount: c.Stack, Sitting: sittingOf(dealer.Seat{Player: c.Player, Sitting: c.Sitting}),
				Done: !t.wallet().Escrow(), Created: now})
		}
		extra = t.withRulings(ctx, o, extra)
		extra = t.withTournament(ctx, o, extra)
	}
	w.extra = extra
	return w, nil
}

// none reports whether nothing but the table row is written.
func (w *written) none() bool {
	return len(w.hands) == 0 && len(w.cashOuts) == 0 && len(w.evs) == 0 && w.deck == nil && w.extra == nil
}

// pipelinable reports whether every statement is one a pipelined
// transaction can send (store.StateSave.Pipelinable): a hand's history,
// its events and the next deck are; money moves and the rest are not.
func (w *written) pipelinable() bool { return len(w.cashOuts) == 0 && w.extra == nil }

// write writes it all in tx.
func (w *written) write(ctx context.Context, t *Table, tx *sqlstore.Tx) error {
	d := t.r.d
	for _, h := range w.hands {
		if err := d.Store.SaveHand(ctx, tx, h.hand, h.players); err != nil {
			return err
		}
	}
	for _, m := range w.cashOuts {
		if err := d.Store.AddMoneyMove(ctx, tx, m); err != nil {
			return err
		}
	}
	for _, ev := range w.evs {
		if err := d.Relay.Add(ctx, tx, ev); err != nil {
			return err
		}
	}
	if w.deck != nil {
		if err := t.saveDeck(ctx, tx, w.deck); err != nil {
			return err
		}
	}
	if w.extra != nil {
		return w.extra(tx)
	}
	return nil
}

// saveStateOnly writes the table row with one fenced statement, grouped
// with other tables' (store.StateGroup): one commit and one WAL flush for
// all the tables that wrote at once. The write does not end with the
// request (a caller that gives up would leave the table not knowing
// whether its state was stored), only with the lease.
func (t *Table) saveStateOnly(ctx context.Context, st store.State, closed bool) error {
	save := t.r.d.States.Save
	if t.r.d.AsyncActionCommit {
		save = t.r.d.Store.SaveStateAsync
	}
	return t.underLease(context.WithoutCancel(ctx), func(ctx context.Context) error { return save(ctx, t.fence, st, closed) })
}

func (t *Table) outboxEvents(out dealer.Output) ([]events.Event, error) {
	var msgs []struct {
		topic string
		m     proto.Message
	}
	add := func(topic string, m proto.Message) {
		msgs = append(msgs, struct {
			topic string
			m     proto.Message
		}{topic, m})
	}
	if e := out.Ended; e != nil {
		add(events.TopicHandEnded, t.handEndedMessage(e))
	}
	for _, c := range out.CashOuts {
		add(events.TopicPlayerLeft, &tablev1.PlayerLeft{TableId: t.id, Seat: int32(c.Seat), PlayerId: c.Player, Stack: c.Stack})
	}
	// A closing table's seats are not open: table.closed told seating the
	// table is gone, and a seat_opened after it would bring it back.
	for _, s := range out.SeatsOpened {
		if !t.dt.Closing() {
			add(events.TopicSeatOpened, &tablev1.SeatOpened{TableId: t.id, Seat: int32(s), Game: gameProto(t.def)})
		}
	}
	evs := make([]events.Event, 0, len(msgs))
	for _, m := range msgs {
		b, err := proto.Marshal(m.m)
		if err != nil {
			return nil, fmt.Errorf("table %s event %s: %w", t.id, m.topic, err)
		}
		evs = append(evs, events.Event{Topic: m.topic, Key: t.id, Payload: b, Epoch: t.fence.Epoch})
	}
	return evs, nil
}

// announce sends a change to every watcher as it may see it. A watcher
// that cannot keep up is dropped (it reconnects and starts from a fresh
// state). The caller holds t.mu.
func (t *Table) announce(out dealer.Output) {
	for w := range t.watchers {
		c := Change{Events: engine.VisibleEvents(out.Events, t.viewerSeat(w.viewer)), Notices: out.Notices, View: t.changeView(w.viewer)}
		select {
		case w.ch <- c:
		default:
			close(w.ch)
			delete(t.watchers, w)
		}
	}
}
