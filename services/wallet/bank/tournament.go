package bank

import (
	"cmp"
	"context"
	"strconv"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/wallet/ledger"
	"github.com/cardroom/cardroom/services/wallet/store"
)

// Tournament flow failures.
var (
	// ErrVoucherNotYours refuses a voucher presented for another player (TR-19: personal).
	ErrVoucherNotYours = fault.Rule(fault.Forbidden, "TR-19", "VOUCHER_NOT_TRANSFERABLE", "a satellite voucher is personal and cannot be transferred")
	// ErrVoucherWrongEvent refuses a voucher for another event.
	ErrVoucherWrongEvent = fault.Rule(fault.Precondition, "TR-19", "VOUCHER_WRONG_EVENT", "the voucher is for another event")
	// ErrVoucherUsed refuses a voucher already used.
	ErrVoucherUsed = fault.Rule(fault.Precondition, "TR-19", "VOUCHER_USED", "the voucher has been used")
	// ErrVoucherAmount refuses a voucher whose value differs from the entry.
	ErrVoucherAmount = fault.New(fault.Precondition, "VOUCHER_AMOUNT_MISMATCH", "the voucher's value differs from the entry price")
)

// ErrNegativeFee refuses a negative fee. A fee may be zero (a free entry
// to the house), so this is NEGATIVE_AMOUNT, not AMOUNT_NOT_POSITIVE.
var ErrNegativeFee = fault.New(fault.Invalid, "NEGATIVE_AMOUNT", "fee must not be negative")

// ContributionRequest is a tournament entry, rebuy or add-on: PrizePart
// goes to the event's prize pool and Fee to the house (TR-04, "50 + 11 €").
type ContributionRequest struct {
	Key       string `json:"-"`
	Player    string
	Event     string
	Currency  string
	PrizePart int64
	Fee       int64
	// VoucherID pays an entry with a satellite voucher instead of the wallet.
	VoucherID string
	Actor     string `json:"-"`
}

// lane is the event's: its prize pool.
func (r ContributionRequest) lane() string { return "event:" + r.Event }

func (r ContributionRequest) eventPayment() {}

func (r ContributionRequest) validate() (ledger.Currency, error) {
	if err := cmp.Or(validPlayer(r.Player), ledger.ValidOwner("event_id", r.Event), validAmount("prize_part", r.PrizePart)); err != nil {
		return "", err
	}
	if r.Fee < 0 {
		return "", ErrNegativeFee.Withf("fee must not be negative, got %d", r.Fee).With("field", "fee")
	}
	if _, err := ledger.Add(r.PrizePart, r.Fee); err != nil {
		return "", err
	}
	return ledger.ParseCurrency(r.Currency)
}

// Enter pays a tournament entry: the prize part to the event's prize pool
// and the fee to the house, from the player's account or from a voucher
// won in a satellite for this event.
func (b *Bank) Enter(ctx context.Context, r ContributionRequest) (TransferResult, error) {
	return b.contribute(ctx, "Enter", ledger.EventEntry, r)
}

// Rebuy pays a rebuy into the prize pool (TR-14; the fee is usually zero).
func (b *Bank) Rebuy(ctx context.Context, r ContributionRequest) (TransferResult, error) {
	r.VoucherID = ""
	return b.contribute(ctx, "Rebuy", ledger.Rebuy, r)
}

// AddOn pays an add-on into the prize pool (TR-17).
func (b *Bank) AddOn(ctx context.Context, r ContributionRequest) (TransferResult, error) {
	r.VoucherID = ""
	return b.contribute(ctx, "AddOn", ledger.AddOn, r)
}

func (b *Bank) contribute(ctx context.Context, op string, kind ledger.TransferKind, r ContributionRequest) (TransferResult, error) {
	cur, err := r.validate()
	if err != nil {
		return TransferResult{}, err
	}
	if err := b.withinMaximum("prize_part + fee", r.PrizePart+r.Fee); err != nil { // validate ruled out overflow
		return TransferResult{}, err
	}
	return idempotent(ctx, b, op, r.Key, r, func(tx *store.Tx) (TransferResult, error) {
		player := ledger.PlayerAccount(r.Player, cur)
		if _, err := tx.Account(ctx, player); err != nil {
			return TransferResult{}, err
		}
		from := player
		if r.VoucherID != "" {
			v, err := tx.Voucher(ctx, r.VoucherID)
			if err != nil {
				return TransferResult{}, err
			}
			total := r.PrizePart + r.Fee
			switch {
			case v.Player != r.Player:
				return TransferResult{}, ErrVoucherNotYours.With("voucher_id", v.ID)
			case v.Event != r.Event:
				return TransferResult{}, ErrVoucherWrongEvent.With("voucher_id", v.ID, "event_id", v.Event)
			case v.State != store.VoucherIssued:
				return TransferResult{}, ErrVoucherUsed.With("voucher_id", v.ID)
			case v.Currency != cur || v.Amount != total:
				return TransferResult{}, ErrVoucherAmount.With("voucher_id", v.ID, "voucher_amount", strconv.FormatInt(v.Amount, 10), "entry_amount", strconv.FormatInt(total, 10))
			}
			from = ledger.VoucherAccount(r.Event, cur)
		}
		pool, fees := ledger.PrizePoolAccount(r.Event, cur), ledger.HouseFeesAccount(cur)
		moves := []ledger.Move{{From: from, To: pool, Amount: r.PrizePart}}
		if err := tx.EnsureAccount(ctx, pool); err != nil {
			return TransferResult{}, err
		}
		if r.Fee > 0 {
			if err := tx.EnsureAccount(ctx, fees); err != nil {
				return TransferResult{}, err
			}
			moves = append(moves, ledger.Move{From: from, To: fees, Amount: r.Fee})
		}
		meta := map[string]string{"player": r.Player, "event": r.Event, "prize_part": strconv.FormatInt(r.PrizePart, 10), "fee": strconv.FormatInt(r.Fee, 10)}
		if r.VoucherID != "" {
			meta["voucher"] = r.VoucherID
		}
		transferID := newID("tr_")
		if r.VoucherID != "" {
			// Claim the voucher first, so two entries racing for it get
			// VOUCHER_USED rather than a shortfall.
			ok, err := tx.SetVoucherState(ctx, r.VoucherID, store.VoucherIssued, store.VoucherUsed, transferID)
			if err != nil {
				return TransferResult{}, err
			}
			if !ok {
				return TransferResult{}, ErrVoucherUsed.With("voucher_id", r.VoucherID)
			}
		}
		return b.postID(ctx, tx, transferID, kind, cur, store.Posting{Player: r.Player, Subject: r.Event, Actor: r.Actor}, meta, player, moves...)
	})
}

// PrizeRequest pays a prize from an event's prize pool to a player.
type PrizeRequest struct {
	Key      string `json:"-"`
	Player   string
	Event    string
	Currency string
	Amount   int64
	Place    int64
	Actor    string `json:"-"`
}

// lane is the event's: its prize pool.
func (r PrizeRequest) lane() string { return "event:" + r.Event }

func (r PrizeRequest) eventPayment() {}

// PayPrize pays a prize from the event's prize pool; the pool cannot go
// negative, so an event never pays out more than came in.
func (b *Bank) PayPrize(ctx context.Context, r PrizeRequest) (TransferResult, error) {
	if err := cmp.Or(validPlayer(r.Player), ledger.ValidOwner("event_id", r.Event),
		validAmount("amount", r.Amount), b.withinMaximum("amount", r.Amount)); err != nil {
		return TransferResult{}, err
	}
	cur, err := ledger.ParseCurrency(r.Currency)
	if err != nil {
		return TransferResult{}, err
	}
	return idempotent(ctx, b, "PayPrize", r.Key, r, func(tx *store.Tx) (TransferResult, error) {
		player := ledger.PlayerAccount(r.Player, cur)
		if _, err := tx.Account(ctx, player); err != nil {
			return TransferResult{}, err
		}
		if err := tx.EnsureAccount(ctx, ledger.PrizePoolAccount(r.Event, cur)); err != nil {
			return TransferResult{}, err
		}
		return b.post(ctx, tx, ledger.Prize, cur, store.Posting{Player: r.Player, Subject: r.Event, Actor: r.Actor},
			map[string]string{"player": r.Player, "event": r.Event, "place": strconv.FormatInt(r.Place, 10)},
			player, ledger.Move{From: ledger.PrizePoolAccount(r.Event, cur), To: player, Amount: r.Amount})
	})
}

// VoucherRequest pays a satellite prize as an entry voucher for a target event.
type VoucherRequest struct {
	Key         string `json:"-"`
	Player      string
	SourceEvent string
	TargetEvent string
	Currency    string
	Amount      int64
	Actor       string `json:"-"`
}

// lane is the event's: its prize pool.
func (r VoucherRequest) lane() string { return "event:" + r.SourceEvent }

func (r VoucherRequest) eventPayment() {}

// VoucherResult is an issued voucher.
type VoucherResult struct {
	VoucherID   string
	Player      string
	TargetEvent string
	Currency    ledger.Currency
	Amount      int64
	TransferID  string
	At          time.Time
}

// IssueVoucher moves a satellite prize from the source event's pool to the
// target event's voucher account, as a voucher only Player can use (TR-19).
func (b *Bank) IssueVoucher(ctx context.Context, r VoucherRequest) (VoucherResult, error) {
	if err := validPlayer(r.Player); err != nil {
		return VoucherResult{}, err
	}
	for field, ev := range map[string]string{"source_event_id": r.SourceEvent, "target_event_id": r.TargetEvent} {
		if err := ledger.ValidOwner(field, ev); err != nil {
			return VoucherResult{}, err
		}
	}
	if r.SourceEvent == r.TargetEvent {
		return VoucherResult{}, fault.Invalidf("target_event_id", "must differ from the satellite")
	}
	if err := cmp.Or(validAmount("amount", r.Amount), b.withinMaximum("amount", r.Amount)); err != nil {
		return VoucherResult{}, err
	}
	cur, err := ledger.ParseCurrency(r.Currency)
	if err != nil {
		return VoucherResult{}, err
	}
	return idempotent(ctx, b, "IssueVoucher", r.Key, r, func(tx *store.Tx) (VoucherResult, error) {
		if _, err := tx.Account(ctx, ledger.PlayerAccount(r.Player, cur)); err != nil {
			return VoucherResult{}, err
		}
		pool, vouchers := ledger.PrizePoolAccount(r.SourceEvent, cur), ledger.VoucherAccount(r.TargetEvent, cur)
		for _, a := range []ledger.AccountID{pool, vouchers} {
			if err := tx.EnsureAccount(ctx, a); err != nil {
				return VoucherResult{}, err
			}
		}
		v := store.Voucher{ID: newID("vch_"), Player: r.Player, Event: r.TargetEvent, Currency: cur, Amount: r.Amount, CreatedAt: tx.Now()}
		res, err := b.post(ctx, tx, ledger.VoucherIssue, cur, store.Posting{Player: r.Player, Subject: r.SourceEvent, Actor: r.Actor},
			map[string]string{"player": r.Player, "event": r.SourceEvent, "target_event": r.TargetEvent, "voucher": v.ID},
			"", ledger.Move{From: pool, To: vouchers, Amount: r.Amount})
		if err != nil {
			return VoucherResult{}, err
		}
		v.IssueTransfer = res.TransferID
		if err := tx.InsertVoucher(ctx, v); err != nil {
			return VoucherResult{}, err
		}
		return VoucherResult{VoucherID: v.ID, Player: r.Player, TargetEvent: r.TargetEvent, Currency: cur, Amount: r.Amount, TransferID: res.TransferID, At: tx.Now()}, nil
	})
}

// RefundRequest refunds a cancelled event.
type RefundRequest struct {
	Key   string `json:"-"`
	Event string
	// Reason is recorded on every reversal.
	Reason string
	Actor  string `json:"-"`
}

// lane is the event's: its prize pool.
func (r RefundRequest) lane() string { return "event:" + r.Event }

func (r RefundRequest) eventPayment() {}

// RefundResult lists the reversals a refund posted.
type RefundResult struct {
	Event     string
	Reversals []string
	Total     int64
	At        time.Time
}

// Refund reverses every entry, rebuy and add-on of a cancelled event
// (TR-03; settlement is gap G-30, whose default here is a full refund):
// money goes back to each player's account, voucher entries back to the
// voucher. It fails as a whole if prizes were already paid from the pool.
func (b *Bank) Refund(ctx context.Context, r RefundRequest) (RefundResult, error) {
	if err := ledger.ValidOwner("event_id", r.Event); err != nil {
		return RefundResult{}, err
	}
	return idempotent(ctx, b, "Refund", r.Key, r, func(tx *store.Tx) (RefundResult, error) {
		ids, err := tx.UnreversedTransfers(ctx, r.Event, ledger.EventEntry, ledger.Rebuy, ledger.AddOn)
		if err != nil {
			return RefundResult{}, err
		}
		out := RefundResult{Event: r.Event, At: tx.Now(), Reversals: []string{}}
		day := b.profile.Day.Of(tx.Now())
		for _, id := range ids {
			orig, err := tx.Transfer(ctx, id)
			if err != nil {
				return RefundResult{}, err
			}
			rev := ledger.Reverse(orig, newID("tr_"), tx.Now(), map[string]string{"reason": r.Reason, "event": r.Event, "player": orig.Meta["player"]})
			if _, err := tx.Post(ctx, rev, store.Posting{Player: orig.Meta["player"], Subject: r.Event, Actor: r.Actor, GamingDay: day}); err != nil {
				return RefundResult{}, err
			}
			if vid, ok, err := tx.VoucherUsedBy(ctx, id); err != nil {
				return RefundResult{}, err
			} else if ok {
				if _, err := tx.SetVoucherState(ctx, vid, store.VoucherUsed, store.VoucherIssued, ""); err != nil {
					return RefundResult{}, err
				}
			}
			out.Reversals = append(out.Reversals, rev.ID)
			if out.Total, err = ledger.Add(out.Total, rev.Amount()); err != nil {
				return RefundResult{}, err
			}
		}
		return out, nil
	})
}

// ErrEntryNotRefundable refuses an entry refund naming a transfer that is
// not that player's entry to that event.
var ErrEntryNotRefundable = fault.Rule(fault.Precondition, "TR-04", "ENTRY_NOT_REFUNDABLE", "the transfer is not this player's entry to this event")

// EntryRefundRequest refunds one tournament entry withdrawn before the
// start (TR-04).
type EntryRefundRequest struct {
	Key    string `json:"-"`
	Event  string
	Player string
	// TransferID is the entry's transfer.
	TransferID string
	Reason     string
	Actor      string `json:"-"`
}

// lane is the event's: its prize pool.
func (r EntryRefundRequest) lane() string { return "event:" + r.Event }

func (r EntryRefundRequest) eventPayment() {}

// RefundEntry posts the exact reversal of one entry (TR-04): the prize
// part back out of the pool and the fee out of the house's account, to
// the player or to the voucher that paid, which becomes usable again.
// Only an entry transfer of that player to that event qualifies, and a
// transfer is reversed at most once (the ledger's unique reverses), so a
// refund never gives back more than was paid. It may come after the
// event's cancellation refund (Refund) in either order: the second is
// ALREADY_REVERSED.
func (b *Bank) RefundEntry(ctx context.Context, r EntryRefundRequest) (TransferResult, error) {
	if err := cmp.Or(validPlayer(r.Player), ledger.ValidOwner("event_id", r.Event)); err != nil {
		return TransferResult{}, err
	}
	if r.TransferID == "" {
		return TransferResult{}, fault.Invalidf("transfer_id", "is required")
	}
	if r.Reason == "" {
		return TransferResult{}, fault.Invalidf("reason", "is required")
	}
	return idempotent(ctx, b, "RefundEntry", r.Key, r, func(tx *store.Tx) (TransferResult, error) {
		orig, err := tx.Transfer(ctx, r.TransferID)
		if err != nil {
			return TransferResult{}, err
		}
		if orig.Kind != ledger.EventEntry || orig.Meta["event"] != r.Event || orig.Meta["player"] != r.Player {
			return TransferResult{}, ErrEntryNotRefundable.With("transfer_id", r.TransferID)
		}
		now := tx.Now()
		day := b.profile.Day.Of(now)
		rev := ledger.Reverse(orig, newID("tr_"), now, map[string]string{"reason": r.Reason, "event": r.Event, "player": r.Player})
		balances, err := tx.Post(ctx, rev, store.Posting{Player: r.Player, Subject: r.Event, Actor: r.Actor, GamingDay: day})
		if err != nil {
			return TransferResult{}, err
		}
		if vid, ok, err := tx.VoucherUsedBy(ctx, orig.ID); err != nil {
			return TransferResult{}, err
		} else if ok {
			if _, err := tx.SetVoucherState(ctx, vid, store.VoucherUsed, store.VoucherIssued, ""); err != nil {
				return TransferResult{}, err
			}
		}
		player := ledger.PlayerAccount(r.Player, orig.Currency)
		return TransferResult{TransferID: rev.ID, Kind: rev.Kind, Currency: rev.Currency, Amount: rev.Amount(), Account: player,
			Balance: balances[player], GamingDay: day, At: now}, nil
	})
}

// PoolSettlementRequest settles what is left in a finished event's prize
// pool after its prizes (TR-34, G-24).
type PoolSettlementRequest struct {
	Key      string `json:"-"`
	Event    string
	Currency string
	Amount   int64
	// Player receives the amount; empty gives it to the house.
	Player string
	// ToEvent receives it in its prize pool instead: a Day 1 flight's
	// pool moved to its Day 2 (issue 13).
	ToEvent string
	Reason  string
	Actor   string `json:"-"`
}

// lane is the event's: its prize pool.
func (r PoolSettlementRequest) lane() string { return "event:" + r.Event }

func (r PoolSettlementRequest) eventPayment() {}

// SettlePrizePool moves Amount from the event's prize pool to the player
// or the house. The pool cannot go negative, so no settlement takes more
// than the pool holds.
func (b *Bank) SettlePrizePool(ctx context.Context, r PoolSettlementRequest) (TransferResult, error) {
	if r.Player != "" {
		if err := validPlayer(r.Player); err != nil {
			return TransferResult{}, err
		}
	}
	if r.ToEvent != "" {
		if r.Player != "" || r.ToEvent == r.Event {
			return TransferResult{}, fault.Invalidf("to_event_id", "moves the pool to another event's pool, not to a player")
		}
		if err := ledger.ValidOwner("to_event_id", r.ToEvent); err != nil {
			return TransferResult{}, err
		}
	}
	if err := cmp.Or(ledger.ValidOwner("event_id", r.Event), validAmount("amount", r.Amount), b.withinMaximum("amount", r.Amount)); err != nil {
		return TransferResult{}, err
	}
	if r.Reason == "" {
		return TransferResult{}, fault.Invalidf("reason", "is required")
	}
	cur, err := ledger.ParseCurrency(r.Currency)
	if err != nil {
		return TransferResult{}, err
	}
	return idempotent(ctx, b, "SettlePrizePool", r.Key, r, func(tx *store.Tx) (TransferResult, error) {
		pool := ledger.PrizePoolAccount(r.Event, cur)
		if err := tx.EnsureAccount(ctx, pool); err != nil {
			return TransferResult{}, err
		}
		to, player := ledger.HouseFeesAccount(cur), ledger.AccountID("")
		if r.ToEvent != "" {
			to = ledger.PrizePoolAccount(r.ToEvent, cur)
			if err := tx.EnsureAccount(ctx, to); err != nil {
				return TransferResult{}, err
			}
		} else if r.Player != "" {
			to, player = ledger.PlayerAccount(r.Player, cur), ledger.PlayerAccount(r.Player, cur)
			if _, err := tx.Account(ctx, to); err != nil {
				return TransferResult{}, err
			}
		} else if err := tx.EnsureAccount(ctx, to); err != nil {
			return TransferResult{}, err
		}
		meta := map[string]string{"event": r.Event, "reason": r.Reason}
		if r.ToEvent != "" {
			meta["to_event"] = r.ToEvent
		}
		if r.Player != "" {
			meta["player"] = r.Player
		}
		return b.post(ctx, tx, ledger.PoolSettlement, cur, store.Posting{Player: r.Player, Subject: r.Event, Actor: r.Actor}, meta,
			player, ledger.Move{From: pool, To: to, Amount: r.Amount})
	})
}
