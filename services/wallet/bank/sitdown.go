package bank

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
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
	if err := cmp.Or(r.validate(), validPlayer(r.Player), ledger.ValidOwner("sitting_id", r.Sitting)); err != nil {
		return SitDownResult{}, err
	}
	if r.Seat < 0 {
		return SitDownResult{}, fault.Invalidf("seat", "must not be negative")
	}
	if err := cmp.Or(validAmount("amount", r.Amount), b.withinMaximum("amount", r.Amount)); err != nil {
		return SitDownResult{}, err
	}
	cur, err := ledger.ParseCurrency(r.Currency)
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
		escrow, player := ledger.TableAccount(r.Table, cur), ledger.PlayerAccount(r.Player, cur)
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
			posted, err := tx.TransferPosted(ctx, out.TransferID)
			if err != nil {
				return SitDownResult{}, err
			}
			if posted {
				a, err := tx.Account(ctx, player)
				if err != nil {
					return SitDownResult{}, err
				}
				out.Balance = a.Balance
				return out, nil
			}
		}
		if err := sittingMatches(HoldRequest{Player: r.Player, TableRequest: r.TableRequest}, p); err != nil {
			return SitDownResult{}, err
		}
		if p.Pending != nil {
			// A hold of the older two-step sit-down, or a top-up's.
			if tx.Now().Before(p.Pending.ExpiresAt) {
				return SitDownResult{}, holdPending(r.Player, r.Table, *p.Pending)
			}
			if tx.Pipelined() {
				return SitDownResult{}, sqlstore.ErrNotPipelined
			}
			if err := b.expireNow(ctx, tx, p.Pending.Hold(r.Player, r.Table)); err != nil {
				return SitDownResult{}, err
			}
		}
		d, err := b.decideWith(p, cur, r.Game, 0, tx.Now())
		if err != nil {
			return SitDownResult{}, err
		}
		if err := d.Allow(r.Amount); err != nil {
			return SitDownResult{}, fmt.Errorf("buy in %s at %s: %w", r.Player, r.Table, err)
		}
		out.Case, out.Rule, out.Min, out.Max = d.Case, d.Rule, d.Range.Min, d.Range.Max
		with := []store.Row{store.SittingRow(store.Sitting{ID: r.Sitting, Player: r.Player, Table: r.Table, Seat: r.Seat, Currency: cur,
			Structure: r.Game.Structure, Since: tx.Now()})}
		// As a hold's: with the balance locked, the response is known
		// before the transfer, and the key goes with it (KeyRow).
		predicted := p.BalanceLocked && p.Pending == nil && p.Balance >= r.Amount
		if predicted {
			out.Balance = p.Balance - r.Amount
			resp, err := json.Marshal(out)
			if err != nil {
				return SitDownResult{}, fmt.Errorf("SitDown: encode response: %w", err)
			}
			if row, ok := tx.KeyRow(resp); ok {
				with = append(with, row)
			}
		}
		res, err := b.postWith(ctx, tx, out.TransferID, with, ledger.BuyIn, cur,
			store.Posting{Player: r.Player, Subject: r.Table, Actor: "table:" + r.Table},
			map[string]string{"player": r.Player, "table": r.Table, "seat": strconv.FormatInt(r.Seat, 10), "sitting": r.Sitting, "rule": d.Rule},
			player, ledger.Move{From: player, To: escrow, Amount: r.Amount})
		if errors.Is(err, ledger.ErrInsufficientFunds) {
			// CS-01: the buy-in is paid in full or not at all.
			f, _ := fault.As(err)
			return SitDownResult{}, fault.Rule(fault.Precondition, "CS-01", "INSUFFICIENT_FUNDS", "the buy-in must be paid in full from the wallet").
				With("account_id", string(player), "amount", strconv.FormatInt(r.Amount, 10)).Wrap(f)
		}
		if err != nil {
			return SitDownResult{}, err
		}
		if predicted && res.Balance != out.Balance {
			return SitDownResult{}, fault.New(fault.Aborted, "BALANCE_CHANGED", "balance changed concurrently; retry").
				With("account_id", string(player))
		}
		out.Balance = res.Balance
		countBuyIn(ctx, tx, cur, r.Amount)
		return out, nil
	})
}

// boughtBefore answers a sit-down whose sitting was bought (found), with
// the player's balance now.
func (b *Bank) boughtBefore(ctx context.Context, r SitDownRequest, cur ledger.Currency) (res SitDownResult, found bool, err error) {
	err = b.store.Read(ctx, b.clock.Now().UTC(), func(tx *store.Tx) error {
		res = SitDownResult{Sitting: r.Sitting, TransferID: store.SitDownTransferID(r.Sitting), Player: r.Player, Table: r.Table, Currency: cur,
			Amount: r.Amount}
		if found, err = tx.TransferPosted(ctx, res.TransferID); err != nil || !found {
			return err
		}
		a, err := tx.Account(ctx, ledger.PlayerAccount(r.Player, cur))
		res.Balance = a.Balance
		return err
	})
	return res, found, err
}
