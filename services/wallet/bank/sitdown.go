package bank

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/wallet/buyin"
	"github.com/cardroom/cardroom/services/wallet/ledger"
	"github.com/cardroom/cardroom/services/wallet/store"
)

// SitDownRequest buys a player into a seat in one step: the buy-in rules
// applied and the amount moved from the player's account straight to the
// table's escrow, opening the sitting the table named.
//
// The table stores the unpaid seat and this step (with the sitting's
// name) before it asks, and asks again until it has an answer: that
// record, not a hold that expires, is what makes a lost answer safe. So
// the wallet buys a sitting at most once — the transfer is named by it
// (store.SitDownTransferID) — and a retry that finds the sitting bought
// gets success, whether or not its idempotency key is still known.
type SitDownRequest struct {
	Key string `json:"-"`
	TableRequest
	Player   string
	Seat     int64
	Currency string
	Game     buyin.Game
	Amount   int64
	Sitting  string
}

// SitDownResult is a bought sitting and the decision that allowed it.
type SitDownResult struct {
	Sitting    string
	TransferID string
	Player     string
	Table      string
	Currency   ledger.Currency
	Amount     int64
	// Balance is the player's balance right after the buy-in.
	Balance  int64
	Case     buyin.Case
	Rule     string
	Min, Max int64
}

// exclusive names what a sit-down reads that another request of its batch
// may write, as a hold's (HoldRequest.exclusive): the player's account,
// whose balance it reads under lock and predicts, and the player's holds
// and sitting at the table, which it reads to allow one sitting. A hold or
// a commit of the same player at the table names the same, so none of
// them shares a pipeline with it.
func (r SitDownRequest) exclusive() []string {
	cur, err := ledger.ParseCurrency(r.Currency)
	if err != nil {
		return nil
	}
	return []string{string(ledger.PlayerAccount(r.Player, cur)), "holds:" + r.Player + "@" + r.Table}
}

// SitDown applies the buy-in policy and, if the amount is allowed, moves
// it from the player's account to the table's escrow and opens the
// sitting r.Sitting (one step of "Seat a player" in ARCHITECTURE.md, where
// a hold and a commit were two). The whole amount is paid or nothing
// (CS-01). While the player's last sitting at the table is open it is
// ErrCashOutPending (CS-09), unless that sitting is r.Sitting: then this
// buy-in went through before, and the answer is success.
func (b *Bank) SitDown(ctx context.Context, r SitDownRequest) (SitDownResult, error) {
	cur, err := b.validBuyIn(r.TableRequest, r.Player, r.Seat, r.Amount, r.Currency)
	if err == nil {
		err = ledger.ValidOwner("sitting_id", r.Sitting)
	}
	if err != nil {
		return SitDownResult{}, err
	}
	r.Game.Table = r.Table
	res, err := fenced(ctx, b, r.TableRequest, func() (SitDownResult, error) { return b.sitDown(ctx, r, cur) })
	if errors.Is(err, store.ErrKeyReused) {
		// The key holds another request's answer (recorded by an older
		// wallet's hash, or a caller's mistake), so it cannot say whether
		// this sitting was bought, and the table reads a refusal as
		// "nothing moved" and takes the seat back. The transfer can say.
		if bought, found, berr := b.boughtBefore(ctx, r, cur); berr != nil || found {
			return bought, berr
		}
	}
	if f, ok := fault.As(err); ok && errors.Is(f, ErrHoldPending) && f.Meta["hold_id"] == "" {
		// Lost a race to a concurrent hold of the same player at the
		// table: name it, as HoldBuyIn does.
		if h, found, lerr := b.store.PendingHold(ctx, r.Player, r.Table); lerr == nil && found {
			err = holdPending(r.Player, r.Table, h)
		}
	}
	return res, err
}

func (b *Bank) sitDown(ctx context.Context, r SitDownRequest, cur ledger.Currency) (SitDownResult, error) {
	return idempotent(ctx, b, "SitDown", r.Key, r, func(tx *store.Tx) (SitDownResult, error) {
		p, err := tx.FencedPresence(ctx, r.Table, r.Epoch, r.Player, cur, b.profile.Day.Of(tx.Now()), ledger.HoldAccount(r.Table, cur))
		if err != nil {
			return SitDownResult{}, err
		}
		out := SitDownResult{Sitting: r.Sitting, TransferID: store.SitDownTransferID(r.Sitting), Player: r.Player, Table: r.Table,
			Currency: cur, Amount: r.Amount}
		if !tx.Pipelined() {
			// The sitting was bought before — a retry whose key is gone
			// (pruned) or still being written by the original — and may
			// since have been cashed out: the answer is success, and
			// nothing moves again. Pipelined, such a retry fails the
			// pipeline (its open sitting is refused below, or the ledger
			// refuses the transfer's name again), and the batch runs this
			// way; it is rare, and an answer that moves nothing has no
			// transfer to carry its key.
			if bought, err := bought(ctx, tx, &out); bought || err != nil {
				return out, err
			}
		}
		if err := sittingMatches(HoldRequest{Player: r.Player, TableRequest: r.TableRequest}, p); err != nil {
			return SitDownResult{}, err
		}
		// A hold pending: the older two-step sit-down's, or a top-up's.
		if err := b.clearPending(ctx, tx, r.Player, r.Table, p); err != nil {
			return SitDownResult{}, err
		}
		d, err := b.decideWith(p, cur, r.Game, 0, tx.Now())
		if err != nil {
			return SitDownResult{}, err
		}
		if err := d.Allow(r.Amount); err != nil {
			return SitDownResult{}, fmt.Errorf("buy in %s at %s: %w", r.Player, r.Table, err)
		}
		out.Case, out.Rule, out.Min, out.Max = d.Case, d.Rule, d.Range.Min, d.Range.Max
		return b.buy(ctx, tx, r, p, out)
	})
}

// buy posts the allowed sit-down r, with the sitting it opens and, when
// the player's balance is locked (FencedPresence), its idempotency key:
// the response is then known before the transfer, as a hold's is.
func (b *Bank) buy(ctx context.Context, tx *store.Tx, r SitDownRequest, p store.Presence, out SitDownResult) (SitDownResult, error) {
	player := ledger.PlayerAccount(r.Player, out.Currency)
	with := []store.Row{store.SittingRow(store.Sitting{ID: r.Sitting, Player: r.Player, Table: r.Table, Seat: r.Seat, Currency: out.Currency,
		Structure: r.Game.Structure, Since: tx.Now()})}
	predicted := p.BalanceLocked && p.Pending == nil && p.Balance >= r.Amount
	if predicted {
		out.Balance = p.Balance - r.Amount
		var err error
		if with, err = withKey(tx, "SitDown", out, with); err != nil {
			return SitDownResult{}, err
		}
	}
	res, err := b.postWith(ctx, tx, out.TransferID, with, ledger.BuyIn, out.Currency,
		store.Posting{Player: r.Player, Subject: r.Table, Actor: "table:" + r.Table},
		map[string]string{"player": r.Player, "table": r.Table, "seat": strconv.FormatInt(r.Seat, 10), "sitting": r.Sitting, "rule": out.Rule},
		player, ledger.Move{From: player, To: ledger.TableAccount(r.Table, out.Currency), Amount: r.Amount})
	if err != nil {
		return SitDownResult{}, paidInFull(err, player, r.Amount)
	}
	if predicted && res.Balance != out.Balance {
		return SitDownResult{}, errBalanceChanged(player)
	}
	out.Balance = res.Balance
	countBuyIn(ctx, tx, out.Currency, r.Amount)
	return out, nil
}

// bought reports whether the sitting of out was bought (its transfer
// posted), and then fills in the player's balance now.
func bought(ctx context.Context, tx *store.Tx, out *SitDownResult) (bool, error) {
	posted, err := tx.TransferPosted(ctx, out.TransferID)
	if err != nil || !posted {
		return false, err
	}
	a, err := tx.Account(ctx, ledger.PlayerAccount(out.Player, out.Currency))
	out.Balance = a.Balance
	return true, err
}

// boughtBefore answers a sit-down whose sitting was bought (found), with
// the player's balance now.
func (b *Bank) boughtBefore(ctx context.Context, r SitDownRequest, cur ledger.Currency) (res SitDownResult, found bool, err error) {
	res = SitDownResult{Sitting: r.Sitting, TransferID: store.SitDownTransferID(r.Sitting), Player: r.Player, Table: r.Table, Currency: cur,
		Amount: r.Amount}
	err = b.store.Read(ctx, b.clock.Now().UTC(), func(tx *store.Tx) error {
		found, err = bought(ctx, tx, &res)
		return err
	})
	return res, found, err
}
