package loadgen

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/cardroom/cardroom/platform/auth"
	seatingv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/seating/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
)

// bot is one seat's worth of players: each session is a new player who is
// paid in at the cage, waits, plays a few hands, leaves and is paid out.
// A new player per session keeps CS-09 (one stack per evening) out of the
// bots' way, as in a room where players come and go.
type bot struct {
	*room
	slot, session int
	rng           *rand.Rand

	player string
	me     context.Context
	// drain is the context calls use: it outlives the run by cfg.Drain, so
	// a bot stopped mid-hand still finishes and leaves its seat.
	drain context.Context
}

func (b *bot) run(runCtx context.Context) {
	drain, cancel := context.WithCancel(context.WithoutCancel(runCtx))
	defer cancel()
	go func() {
		<-runCtx.Done()
		time.AfterFunc(b.cfg.Drain, cancel)
	}()
	b.drain = drain
	for runCtx.Err() == nil {
		b.session++
		if err := b.play(runCtx); err != nil && drain.Err() != nil {
			return
		}
	}
}

// play is one player's evening. Errors are already recorded; the one
// returned ends the session.
func (b *bot) play(runCtx context.Context) error {
	b.player = fmt.Sprintf("lg-%s-%d-%d", b.cfg.Run, b.slot, b.session)
	tok, err := b.cfg.Token(b.player, auth.Player)
	if err != nil {
		return err
	}
	b.me = auth.WithToken(b.drain, tok)
	cage := withCtx(b.cashier, b.drain)
	if err := call(b.stats, "open", func() error {
		_, err := b.wallet.OpenAccount(cage, &walletv1.OpenAccountRequest{OwnerId: b.player, Currency: currency,
			Kind: walletv1.AccountKind_ACCOUNT_KIND_PLAYER, IdempotencyKey: "open-" + b.player})
		return err
	}); err != nil {
		return err
	}
	if err := call(b.stats, "deposit", func() error {
		_, err := b.wallet.Deposit(cage, &walletv1.DepositRequest{IdempotencyKey: "dep-" + b.player, PlayerId: b.player,
			Currency: currency, Amount: deposit})
		return err
	}); err != nil {
		return err
	}
	if err := call(b.stats, "join", func() error {
		_, err := b.seating.JoinWaitlist(b.me, &seatingv1.JoinWaitlistRequest{WaitlistId: b.waitlist})
		return err
	}); err != nil {
		return err
	}
	table, seat, err := b.sit(runCtx)
	if err != nil {
		return err
	}
	b.atTable(runCtx, table, seat)
	return call(b.stats, "withdraw", func() error {
		_, err := b.wallet.Withdraw(cage, &walletv1.WithdrawRequest{IdempotencyKey: "wd-" + b.player, PlayerId: b.player,
			Currency: currency, Amount: withdrawal})
		return err
	})
}

// sit waits for a seat offer, accepts it and buys in.
func (b *bot) sit(runCtx context.Context) (table string, seat int32, err error) {
	for {
		if runCtx.Err() != nil {
			b.leaveWaitlist()
			return "", 0, runCtx.Err()
		}
		var offers *seatingv1.ListOffersResponse
		if err := call(b.stats, "offers", func() (err error) {
			offers, err = b.seating.ListOffers(b.me, &seatingv1.ListOffersRequest{})
			return err
		}); err != nil {
			return "", 0, err
		}
		for _, o := range offers.GetOffers() {
			if o.GetState() != seatingv1.OfferState_OFFER_STATE_PENDING {
				continue
			}
			if err := call(b.stats, "accept", func() error {
				_, err := b.seating.AcceptOffer(b.me, &seatingv1.AcceptOfferRequest{OfferId: o.GetOfferId()})
				return err
			}); err != nil {
				continue // expired or withdrawn: the list offers again
			}
			err := call(b.stats, "buy-in", func() error {
				_, err := b.tables.Sit(b.me, &tablev1.SitRequest{TableId: o.GetTableId(), Seat: o.GetSeat(), Amount: buyIn,
					OfferId: o.GetOfferId(), PostNow: true, IdempotencyKey: "sit-" + b.player})
				return err
			})
			return o.GetTableId(), o.GetSeat(), err
		}
		sleep(runCtx, b.cfg.Poll)
	}
}

func (b *bot) leaveWaitlist() {
	_ = call(b.stats, "unjoin", func() error {
		_, err := b.seating.LeaveWaitlist(b.me, &seatingv1.LeaveWaitlistRequest{WaitlistId: b.waitlist, PlayerId: b.player})
		return err
	})
}

// atTable plays until the bot has played its hands, is broke, or the run
// ends; then it leaves and waits until the seat is given up (a leave in a
// hand takes effect at its end).
func (b *bot) atTable(runCtx context.Context, table string, seat int32) {
	hands := 1 + b.rng.IntN(b.cfg.Hands)
	seen := map[int64]bool{}
	toppedUp, leaving := false, false
	for b.drain.Err() == nil {
		var st *tablev1.TableState
		if err := call(b.stats, "state", func() error {
			resp, err := b.tables.GetTableState(b.me, &tablev1.GetTableStateRequest{TableId: table})
			st = resp.GetState()
			return err
		}); err != nil {
			sleep(b.drain, b.cfg.Poll)
			continue
		}
		mine := seatOf(st, seat)
		if mine == nil || mine.GetPlayerId() != b.player || st.GetClosed() {
			return // left (or the table closed)
		}
		h := st.GetHand()
		if h != nil && !h.GetDone() && mine.GetInHand() {
			seen[h.GetHandNo()] = true
		}
		if !leaving && (runCtx.Err() != nil || len(seen) > hands || mine.GetStack()+mine.GetPendingChips() == 0 && !mine.GetInHand()) {
			leaving = true
			_ = call(b.stats, "leave", func() error {
				_, err := b.tables.Leave(b.me, &tablev1.LeaveRequest{TableId: table, Seat: seat})
				return err
			})
			continue
		}
		if !leaving && !toppedUp && mine.GetStack() < buyIn && mine.GetStack() > 0 {
			toppedUp = true
			if room := maxBuyIn - mine.GetStack() - mine.GetPendingChips() - mine.GetBet(); room > 0 {
				_ = call(b.stats, "top-up", func() error {
					_, err := b.tables.TopUp(b.me, &tablev1.TopUpRequest{TableId: table, Amount: min(room, 2_000),
						IdempotencyKey: "top-" + b.player})
					return err
				})
			}
		}
		if h == nil || h.GetDone() || h.GetToAct() != seat || len(h.GetLegal()) == 0 {
			sleep(b.drain, b.cfg.Poll)
			continue
		}
		if !leaving {
			sleep(b.drain, b.cfg.Think)
		}
		kind, amount := b.choose(h.GetLegal(), leaving)
		_ = call(b.stats, "act", func() error {
			_, err := b.tables.Act(b.me, &tablev1.ActRequest{TableId: table, Kind: kind, Amount: amount,
				ExpectedSequence: &st.Sequence, ActionId: fmt.Sprintf("%s-%d", b.player, st.GetSequence())})
			return err
		})
	}
}

// choose picks a legal action: mostly check or call, sometimes the
// smallest bet or raise, sometimes a fold; a leaving bot gives up the hand.
func (b *bot) choose(legal []*tablev1.LegalAction, leaving bool) (tablev1.ActionKind, int64) {
	has := map[tablev1.ActionKind]*tablev1.LegalAction{}
	for _, l := range legal {
		has[l.GetKind()] = l
	}
	pick := func(kinds ...tablev1.ActionKind) (tablev1.ActionKind, int64, bool) {
		for _, k := range kinds {
			if l, ok := has[k]; ok {
				return k, l.GetMin(), true
			}
		}
		return 0, 0, false
	}
	roll := b.rng.IntN(100)
	var order []tablev1.ActionKind
	switch {
	case leaving:
		order = []tablev1.ActionKind{tablev1.ActionKind_ACTION_KIND_CHECK, tablev1.ActionKind_ACTION_KIND_FOLD}
	case roll < 10:
		order = []tablev1.ActionKind{tablev1.ActionKind_ACTION_KIND_CHECK, tablev1.ActionKind_ACTION_KIND_FOLD}
	case roll < 25:
		order = []tablev1.ActionKind{tablev1.ActionKind_ACTION_KIND_BET, tablev1.ActionKind_ACTION_KIND_RAISE}
	}
	order = append(order, tablev1.ActionKind_ACTION_KIND_CHECK, tablev1.ActionKind_ACTION_KIND_CALL)
	if k, amount, ok := pick(order...); ok {
		return k, amount
	}
	// Whatever the table offers first (all-in, post a blind, …).
	return legal[0].GetKind(), legal[0].GetMin()
}

func seatOf(st *tablev1.TableState, seat int32) *tablev1.SeatState {
	for _, s := range st.GetSeats() {
		if s.GetSeat() == seat {
			return s
		}
	}
	return nil
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
