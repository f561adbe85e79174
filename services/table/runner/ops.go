package runner

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table/dealer"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/store"
	"github.com/cardroom/cardroom/services/table/tablepb"
)

// SitArgs is a sit-down with a buy-in.
type SitArgs struct {
	// Seat is the seat, or -1 for the lowest free seat.
	Seat    int
	Player  string
	Amount  int64
	PostNow bool
	OfferID string
	// Key is the sit-down's idempotency key (its wallet step's).
	Key string
	// Verify, when set, checks the caller's right to the seat (a player's
	// seating offer). It runs after the retry of a sit-down that went
	// through has been answered with its seat: the offer is used up once
	// the player sits, and the retry must still get the original answer.
	Verify func(context.Context) error
}

func (a SitArgs) verify(ctx context.Context) error {
	if a.Verify == nil {
		return nil
	}
	return a.Verify(ctx)
}

// SitResult is the seated player.
type SitResult struct {
	Seat SeatView
}

// Sit seats a player and buys them in. At a cash table the seat is
// stored unpaid with its pending buy-in, then the wallet buys it in one
// call (sitDown): the seat is dealt in and announced to seating once the
// chips are in the table's escrow, and taken back if the wallet refuses,
// so chips are never in two places and seating never hears of a seat that
// is taken back. A buy-in the wallet does not answer is retried from the
// stored record until it does.
func (r *Runner) Sit(ctx context.Context, id string, a SitArgs) (SitResult, error) {
	t, err := r.table(ctx, id)
	if err != nil {
		return SitResult{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped != nil {
		return SitResult{}, ErrOwnedElsewhere
	}
	if a.Key == "" {
		// A fresh key names no earlier sit-down: nothing to look up.
		a.Key = "sit/" + events.NewID()
	} else if res, ok, err := t.satBefore(ctx, a); ok || err != nil {
		return res, err
	}
	if a.Seat, err = t.checkSit(ctx, a); err != nil {
		return SitResult{}, err
	}
	// No hand starts until the buy-in is settled.
	t.buying++
	defer func() {
		t.buying--
		t.schedule()
	}()
	if !t.wallet().Escrow() {
		return t.sitFree(ctx, a)
	}
	return t.sitDown(ctx, a)
}

// sitFree seats a player at a table without money: the chips are theirs
// at once, so the seat, its record (which answers a retry) and
// table.player_seated are stored together. The caller holds t.mu.
func (t *Table) sitFree(ctx context.Context, a SitArgs) (SitResult, error) {
	d := t.r.d
	move := store.MoneyMove{Key: a.Key, TableID: t.id, Kind: store.MoveBuyIn, Player: a.Player, Seat: a.Seat, Amount: a.Amount,
		OfferID: a.OfferID, Done: true, Created: d.Clock.Now()}
	seated, err := t.playerSeated(move)
	if err != nil {
		return SitResult{}, err
	}
	_, err = t.do(ctx, func(dt *dealer.Table) (dealer.Output, error) { return dt.Sit(a.Seat, a.Player, a.Amount, a.PostNow) },
		func(tx *sqlstore.Tx) error {
			if err := d.Store.AddMoneyMove(ctx, tx, move); err != nil {
				return err
			}
			return d.Relay.Add(ctx, tx, seated)
		})
	if err != nil {
		return SitResult{}, err
	}
	return SitResult{Seat: t.view(Viewer{Player: a.Player}).Seats[a.Seat]}, nil
}

// sitDown seats a player at a cash table and buys the seat with one wallet
// call. The seat is stored unpaid with its pending step, under a sitting
// the table names, before the wallet is asked: a buy-in whose answer is
// lost is then found and finished from that record, asking for the same
// sitting, which the wallet buys at most once. Its table.player_seated
// waits for the payment (markPaid). The caller holds t.mu.
func (t *Table) sitDown(ctx context.Context, a SitArgs) (SitResult, error) {
	d := t.r.d
	m := store.MoneyMove{Key: a.Key, TableID: t.id, Kind: store.MoveBuyIn, Player: a.Player, Seat: a.Seat, Amount: a.Amount,
		Sitting: "sit_" + events.NewID(), OfferID: a.OfferID, Created: d.Clock.Now()}
	_, err := t.do(ctx, func(dt *dealer.Table) (dealer.Output, error) {
		return dt.SitUnpaid(m.Seat, m.Player, m.Amount, a.PostNow, m.Sitting)
	}, func(tx *sqlstore.Tx) error { return d.Store.AddMoneyMove(ctx, tx, m) })
	if err != nil {
		return SitResult{}, err
	}
	if _, err := t.finishSitDown(ctx, m); err != nil {
		return SitResult{}, fmt.Errorf("buy in %s at %s: %w", a.Player, t.id, err)
	}
	return SitResult{Seat: t.view(Viewer{Player: a.Player}).Seats[m.Seat]}, nil
}

// playerSeated is the table.player_seated event of the buy-in m: seating
// confirms the seat, and the offer it was taken through, on it.
func (t *Table) playerSeated(m store.MoneyMove) (events.Event, error) {
	b, err := proto.Marshal(&tablev1.PlayerSeated{TableId: t.id, Seat: int32(m.Seat), PlayerId: m.Player, Stack: m.Amount, OfferId: m.OfferID})
	if err != nil {
		return events.Event{}, fmt.Errorf("table %s event %s: %w", t.id, events.TopicPlayerSeated, err)
	}
	return events.Event{Topic: events.TopicPlayerSeated, Key: t.id, Payload: b, Epoch: t.epoch()}, nil
}

// satBefore answers the retry of a sit-down under a.Key that went
// through with its seat (ok), and one the wallet refused with that
// refusal, even when it came in the background after the first answer was
// lost. The caller holds t.mu.
func (t *Table) satBefore(ctx context.Context, a SitArgs) (res SitResult, ok bool, err error) {
	m, ok, err := t.r.d.Store.MoneyMove(ctx, a.Key)
	if err != nil || !ok {
		return SitResult{}, false, err
	}
	if m.TableID != t.id || m.Player != a.Player || m.Amount != a.Amount || m.Kind != store.MoveBuyIn {
		if err := a.verify(ctx); err != nil {
			return SitResult{}, true, err
		}
		return SitResult{}, true, fault.New(fault.Conflict, "IDEMPOTENCY_KEY_REUSED", "the key was used for another request")
	}
	if !m.Done && direct(m) && t.unpaidAt(m) {
		// The wallet's answer was lost: the retry asks it again, so that
		// its answer says whether the player is bought in.
		if _, err := t.finishSitDown(ctx, m); err != nil {
			return SitResult{}, true, fmt.Errorf("buy in %s at %s: %w", a.Player, t.id, err)
		}
	}
	if m.Refusal != "" {
		return SitResult{}, true, fmt.Errorf("buy in %s at %s: %w", a.Player, t.id, t.wallet().Refused(m.Refusal))
	}
	if s := t.dt.SeatOf(a.Player); s >= 0 {
		return SitResult{Seat: t.view(Viewer{Player: a.Player}).Seats[s]}, true, nil
	}
	return SitResult{}, true, fault.New(fault.Precondition, "BUY_IN_UNDONE", "that buy-in was undone; sit again with a new key")
}

// checkSit checks a new sit-down before its seat is stored and the wallet
// asked, so that a refusal moves no money, and returns its seat (the
// lowest free one for a.Seat < 0). The caller holds t.mu.
func (t *Table) checkSit(ctx context.Context, a SitArgs) (seat int, err error) {
	if err := a.verify(ctx); err != nil {
		return 0, err
	}
	if seat = a.Seat; seat < 0 {
		if seat, err = t.dt.FreeSeat(); err != nil {
			return 0, err
		}
	}
	if err := t.dt.CheckSit(seat, a.Player); err != nil {
		return 0, err
	}
	if t.dt.Closing() {
		return 0, ErrClosed
	}
	if t.holdsSeats() {
		// G-21: the seat's transaction settles a race (seated.go).
		if err := t.r.d.Store.CheckSeatedElsewhere(ctx, a.Player, t.id); err != nil {
			return 0, err
		}
	}
	return seat, t.checkCashOutPaid(ctx, a.Player)
}

// ErrCashOutPending refuses a sit-down at the table the player left while
// the wallet has not yet been paid that cash-out: only once it has does the
// wallet know the stack they left with, which they must bring back (CS-09).
// Its metadata gives that stack, the seat left and the table.
var ErrCashOutPending = fault.Rule(fault.Precondition, "CS-09", "CASH_OUT_PENDING",
	"the player's cash-out from this table is still being paid; sit down again once it is, with at least the stack left with")

// checkCashOutPaid refuses a sit-down while the player's cash-out from
// this table is pending. The table's own mutex orders it with the leave
// that recorded the cash-out. The caller holds t.mu.
func (t *Table) checkCashOutPaid(ctx context.Context, player string) error {
	m, pending, err := t.r.d.Store.PendingCashOut(ctx, player, t.id)
	if err != nil || !pending {
		return err
	}
	return ErrCashOutPending.Withf("%s left seat %d of %s with %d, and that cash-out is still being paid; sit down again once it is, with at least %d",
		player, m.Seat, t.id, m.Amount, m.Amount).
		With("table_id", t.id, "seat", strconv.Itoa(m.Seat), "stack", strconv.FormatInt(m.Amount, 10))
}

func (t *Table) releaseHold(ctx context.Context, key, holdID string) {
	if _, err := t.wallet().Release(ctx, t.step(key+"/release"), holdID); err != nil {
		t.r.d.Logger.WarnContext(ctx, "release hold (it expires by itself)", "table", t.id, "error", err)
	}
}

// TopUp adds chips to a seated player's stack through the wallet (CS-07);
// during a hand they play from the next one (CS-05).
func (r *Runner) TopUp(ctx context.Context, id string, c Caller, player string, amount int64, key string) (SeatView, error) {
	t, err := r.table(ctx, id)
	if err != nil {
		return SeatView{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	d := r.d
	if m, ok, err := d.Store.MoneyMove(ctx, key); err != nil {
		return SeatView{}, err
	} else if ok {
		if m.TableID != id || m.Player != player || m.Amount != amount || m.Kind != store.MoveTopUp {
			return SeatView{}, fault.New(fault.Conflict, "IDEMPOTENCY_KEY_REUSED", "the key was used for another request")
		}
		if !m.Done {
			// The commit is still pending (its answer was lost): the
			// retry settles it now, so that the answer says whether the
			// chips are on the table (G-41).
			if err := t.settle(ctx, m); err != nil {
				return SeatView{}, fmt.Errorf("top up %s at %s: %w", player, id, err)
			}
		}
		return t.view(Viewer{Player: player}).Seats[m.Seat], nil
	}
	seat := t.dt.SeatOf(player)
	if seat < 0 {
		return SeatView{}, dealer.ErrTopUpBusted
	}
	if err := t.seatFor(c, seat); err != nil {
		return SeatView{}, err
	}
	s := t.dt.Seats()[seat]
	w := t.wallet()
	holdID, err := w.Hold(ctx, Hold{Step: t.step(key), Player: player, Seat: seat, Currency: t.def.Currency, Game: t.def.Config,
		Stack: t.dt.StackNow(seat) + s.Pending + s.Unconfirmed, Amount: amount, Sitting: sittingOf(s)})
	if err != nil {
		return SeatView{}, fmt.Errorf("top up %s at %s: %w", player, id, err)
	}
	move := store.MoneyMove{Key: key, TableID: id, Kind: store.MoveTopUp, Player: player, Seat: seat, Amount: amount,
		HoldID: holdID, Sitting: sittingOf(s), Done: !w.Escrow(), Created: d.Clock.Now()}
	t.buying++
	defer func() {
		t.buying--
		t.schedule()
	}()
	// With a wallet, the chips wait for the commit (G-41): they play only
	// once the wallet has them in the table's escrow (paid).
	topUp := (*dealer.Table).TopUpUnpaid
	if !w.Escrow() {
		topUp = (*dealer.Table).TopUp
	}
	_, err = t.do(ctx, func(dt *dealer.Table) (dealer.Output, error) { return topUp(dt, seat, amount) },
		func(tx *sqlstore.Tx) error { return d.Store.AddMoneyMove(ctx, tx, move) })
	if err != nil {
		t.releaseHold(ctx, key, holdID)
		return SeatView{}, err
	}
	if w.Escrow() {
		if err := t.settle(ctx, move); err != nil {
			return SeatView{}, fmt.Errorf("top up %s at %s: %w", player, id, err)
		}
	}
	return t.view(Viewer{Player: player}).Seats[seat], nil
}

// settle commits a buy-in's or top-up's hold and deals the seat in or
// adds the chips to it (paid), or undoes the seat or takes the chips back
// if the wallet refuses the commit (and its release says the chips went
// back to the player). An error says the buy-in or top-up is not on the
// table: refused, or left for the background retry. The caller holds t.mu.
func (t *Table) settle(ctx context.Context, m store.MoneyMove) error {
	err := t.finishMove(ctx, m)
	if err == nil {
		return t.paid(ctx, m)
	}
	if !definite(err) {
		// The commit is retried in the background until the wallet
		// answers; the seat or chips wait for it.
		return fmt.Errorf("commit (retried in the background): %w", err)
	}
	undone, uerr := t.undoBuyIn(ctx, m)
	if uerr != nil {
		t.r.d.Logger.ErrorContext(ctx, "undo a refused "+m.Kind+" (retried in the background)", "table", t.id, "seat", m.Seat, "error", uerr)
	}
	if undone || uerr != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil // the release found the hold committed: paid
}

// SitOut takes the player in seat out of the deal from the next hand.
func (r *Runner) SitOut(ctx context.Context, id string, c Caller, seat int, away bool) (SeatView, error) {
	if away {
		now := r.d.Clock.Now()
		return r.seatChange(ctx, id, c, seat, func(dt *dealer.Table) (dealer.Output, error) { return dt.StepAway(seat, now) })
	}
	return r.seatChange(ctx, id, c, seat, func(dt *dealer.Table) (dealer.Output, error) { return dt.SitOut(seat) })
}

// Return brings the player in seat back (TP-15, TP-16, TP-18).
func (r *Runner) Return(ctx context.Context, id string, c Caller, seat int, postNow bool) (SeatView, error) {
	return r.seatChange(ctx, id, c, seat, func(dt *dealer.Table) (dealer.Output, error) { return dt.Return(seat, postNow) })
}

// Straddle records (on) or withdraws the request of the player in seat to
// straddle the next hand (TP-20, G-12); the dealer loop hands it to the
// planner when it deals that hand.
func (r *Runner) Straddle(ctx context.Context, id string, c Caller, seat int, on bool) (SeatView, error) {
	return r.seatChange(ctx, id, c, seat, func(dt *dealer.Table) (dealer.Output, error) { return dt.RequestStraddle(seat, on) })
}

func (r *Runner) seatChange(ctx context.Context, id string, c Caller, seat int, fn func(*dealer.Table) (dealer.Output, error)) (SeatView, error) {
	t, err := r.table(ctx, id)
	if err != nil {
		return SeatView{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.seatFor(c, seat); err != nil {
		return SeatView{}, err
	}
	if _, err := t.do(ctx, fn, nil); err != nil {
		return SeatView{}, err
	}
	return t.view(Viewer{Player: c.Player}).Seats[seat], nil
}

// Leave takes the player in seat away; left is false when they leave at
// the end of the hand in progress.
func (r *Runner) Leave(ctx context.Context, id string, c Caller, seat int) (left bool, stack int64, err error) {
	t, err := r.table(ctx, id)
	if err != nil {
		return false, 0, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.seatFor(c, seat); err != nil {
		return false, 0, err
	}
	now := r.d.Clock.Now()
	out, err := t.do(ctx, func(dt *dealer.Table) (dealer.Output, error) { return dt.Leave(seat, now) }, nil)
	if err != nil {
		return false, 0, err
	}
	for _, co := range out.CashOuts {
		if co.Seat == seat {
			return true, co.Stack, nil
		}
	}
	return false, 0, nil
}

// ActArgs is a player's action.
type ActArgs struct {
	Kind        engine.ActionKind
	Amount      int64
	ActionID    string
	ExpectedSeq *int64
}

// Act applies a player's action for their own seat.
func (r *Runner) Act(ctx context.Context, id string, c Caller, a ActArgs) (View, bool, error) {
	t, err := r.table(ctx, id)
	if err != nil {
		return View{}, false, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	seat := t.dt.SeatOf(c.Player)
	if seat < 0 {
		return View{}, false, fault.New(fault.Precondition, "NOT_SEATED", "only a seated player acts")
	}
	if t.dt.Config().Mode == engine.Live {
		return View{}, false, fault.New(fault.Precondition, "LIVE_TABLE", "at a live table the dealer enters the action")
	}
	now := r.d.Clock.Now()
	act := dealer.Act{ActionID: a.ActionID, ExpectedSeq: a.ExpectedSeq,
		Action: engine.Action{Seat: seat, Kind: a.Kind, Amount: a.Amount, By: engine.RolePlayer}}
	start := time.Now()
	out, err := t.do(ctx, func(dt *dealer.Table) (dealer.Output, error) { return dt.Apply(act, now) }, nil)
	t.timeAction(ctx, start, err)
	if err != nil {
		return View{}, false, err
	}
	return t.changeView(Viewer{Player: c.Player}), out.Duplicate, nil
}

// CloseTable closes a table: no new hand; everyone is cashed out now or when
// the hand in progress ends. The first close publishes table.closed in its
// transaction, naming the players seated then: the table is breaking, and
// seating gives them priority for seats at the game's other tables at
// once, while those in the hand finish it.
func (r *Runner) CloseTable(ctx context.Context, id string) (closed bool, err error) {
	t, err := r.table(ctx, id)
	if err != nil {
		return false, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var extra func(tx *sqlstore.Tx) error
	if !t.dt.Closing() {
		ev, err := t.closedEvent()
		if err != nil {
			return false, err
		}
		extra = func(tx *sqlstore.Tx) error { return r.d.Relay.Add(ctx, tx, ev) }
	}
	if _, err := t.do(ctx, func(dt *dealer.Table) (dealer.Output, error) { return dt.Close(), nil }, extra); err != nil {
		return false, err
	}
	return t.dt.Closed(), nil
}

// closedEvent is the table.closed event of closing the table now: the
// players in its seats, but not those who already asked to leave (they
// want no seat elsewhere). The caller holds t.mu.
func (t *Table) closedEvent() (events.Event, error) {
	m := &tablev1.TableClosed{TableId: t.id, Game: gameProto(t.def), Kind: tablepb.TableToProto(t.def).GetKind()}
	for i, s := range t.dt.Seats() {
		if s.Occupied() && !s.Leaving {
			m.Players = append(m.Players, &tablev1.SeatPlayer{Seat: int32(i), PlayerId: s.Player})
		}
	}
	b, err := proto.Marshal(m)
	if err != nil {
		return events.Event{}, fmt.Errorf("table %s event %s: %w", t.id, events.TopicTableClosed, err)
	}
	return events.Event{Topic: events.TopicTableClosed, Key: t.id, Payload: b, Epoch: t.epoch()}, nil
}
