// Package bank is the wallet's application layer: each operation of the
// chip bank (cashier deposits and withdrawals, the table buy-in saga of
// hold → commit or release, cash-outs, tournament entries, prizes,
// vouchers and refunds) validates its input, applies the buy-in policy and
// posts balanced transfers through the store, once per idempotency key.
package bank

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/wallet/buyin"
	"github.com/cardroom/cardroom/services/wallet/ledger"
	"github.com/cardroom/cardroom/services/wallet/store"
)

// Config tunes the bank.
type Config struct {
	// Profile is the room's buy-in policy (CS-01…CS-11, G-19, G-20).
	Profile buyin.Profile
	// HoldTTL is how long a buy-in hold waits for the table to commit it
	// before the sweeper releases it; 0 means 2 minutes.
	HoldTTL time.Duration
	// IdempotencyRetention is how long an idempotency key is kept before
	// the sweeper prunes it; 0 means DefaultIdempotencyRetention.
	IdempotencyRetention time.Duration
	// PruneBatch is how many keys one prune statement deletes at most; 0
	// means 1000.
	PruneBatch int
	// MaxAmount is the largest amount one transaction may bring into the
	// books (a deposit, withdrawal, buy-in, entry, prize or voucher); 0
	// means DefaultMaxAmount.
	MaxAmount int64
	// Epochs tells which fencing epochs the table service issued; nil
	// trusts the callers' epochs (tests of the wallet alone).
	Epochs Epochs
	// Tables counts the cash tables' chips for the audit; nil audits the
	// ledger alone.
	Tables ChipCounter
	// Logger logs what needs a person (an epoch brought back down); nil
	// means slog.Default().
	Logger *slog.Logger
}

// DefaultMaxAmount is the default per-transaction maximum: 10^12 minor
// units (ten billion in a currency of cents), far above any real cash-in,
// and low enough that no sum of the books can reach the int64 range (9.2 ×
// 10^18) before some nine million transactions at the maximum.
const DefaultMaxAmount int64 = 1_000_000_000_000

// ErrAboveMaximum refuses an amount above the per-transaction maximum.
var ErrAboveMaximum = fault.New(fault.Invalid, "AMOUNT_ABOVE_TRANSACTION_MAXIMUM", "the amount is above the per-transaction maximum")

// DefaultIdempotencyRetention keeps idempotency keys for 7 days. Callers
// replay within minutes (the table retries a commit until the wallet takes
// it, apps retry a timed-out request), but a disputed cash-in or buy-in is
// looked at days later, and whoever investigates may replay the request
// to see what the wallet answered. A week covers both with room to spare
// and keeps the table to a week of requests.
const DefaultIdempotencyRetention = 7 * 24 * time.Hour

// Bank runs the wallet's operations.
type Bank struct {
	store      *store.Store
	clock      clock.Clock
	profile    buyin.Profile
	holdTTL    time.Duration
	retention  time.Duration
	pruneBatch int
	maxAmount  int64
	epochs     Epochs
	tables     ChipCounter
	log        *slog.Logger
}

// New returns a bank over the store, telling time with clk.
func New(st *store.Store, clk clock.Clock, cfg Config) *Bank {
	if cfg.HoldTTL <= 0 {
		cfg.HoldTTL = 2 * time.Minute
	}
	if cfg.Profile.MaxBigBlinds == 0 {
		cfg.Profile = buyin.DefaultProfile()
	}
	if cfg.IdempotencyRetention <= 0 {
		cfg.IdempotencyRetention = DefaultIdempotencyRetention
	}
	if cfg.PruneBatch <= 0 {
		cfg.PruneBatch = 1000
	}
	if cfg.MaxAmount <= 0 {
		cfg.MaxAmount = DefaultMaxAmount
	}
	cfg.Logger = cmp.Or(cfg.Logger, slog.Default())
	return &Bank{store: st, clock: clk, profile: cfg.Profile, holdTTL: cfg.HoldTTL, retention: cfg.IdempotencyRetention, pruneBatch: cfg.PruneBatch,
		maxAmount: cfg.MaxAmount, epochs: cfg.Epochs, tables: cfg.Tables, log: cfg.Logger}
}

// Store returns the bank's store (for reads and the audit).
func (b *Bank) Store() *store.Store { return b.store }

// Profile returns the buy-in policy in force.
func (b *Bank) Profile() buyin.Profile { return b.profile }

// newID returns a random 128-bit hex ID for transfers, holds and vouchers.
// Replays of an idempotent request return the stored IDs, so IDs need not
// be derived from the key.
func newID(prefix string) string {
	var buf [16]byte
	if _, err := rand.Read(buf[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // never fails on supported platforms
	}
	return prefix + hex.EncodeToString(buf[:])
}

// idempotent runs fn once per key: the request's content (without the key)
// is hashed with the operation name, and fn's result is stored as JSON and
// decoded for every caller, so the first caller and every retry get
// identical responses.
func idempotent[Req, Res any](ctx context.Context, b *Bank, op, key string, req Req, fn func(tx *store.Tx) (Res, error)) (Res, error) {
	var res Res
	body, err := json.Marshal(req)
	if err != nil {
		return res, fmt.Errorf("%s: encode request: %w", op, err)
	}
	var lane string
	if l, ok := any(req).(laned); ok {
		lane = l.lane()
	}
	_, lasting := any(req).(eventPayment)
	var exclusive []string
	if p, ok := any(req).(pipelinable); ok {
		exclusive = p.exclusive()
	}
	raw, _, err := b.store.Idempotent(ctx, store.Request{Key: key, Operation: op, Body: body, Lane: lane, Lasting: lasting, Exclusive: exclusive}, b.clock.Now().UTC(), func(tx *store.Tx) ([]byte, error) {
		r, err := fn(tx)
		if err != nil {
			return nil, err
		}
		if raw, ok := tx.RecordedResponse(); ok {
			return raw, nil // fn recorded its response with its transfer (KeyRow)
		}
		return json.Marshal(r)
	})
	if err != nil {
		return res, err
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return res, fmt.Errorf("%s: decode stored response: %w", op, err)
	}
	return res, nil
}

// eventPayment is a payment to or from an event's prize pool: its key is
// kept for good (store.Request.Lasting), so that a retry after the
// idempotency key was pruned gets the original answer instead of paying
// again. The tournament service names these payments by event, player,
// kind and number, and may retry one long after the retention window (a
// saga left pending, a director replaying its books).
type eventPayment interface{ eventPayment() }

// laned is a request that names the rows it mostly touches (a table's,
// the cage's, an event's): the store batches requests of one lane
// together (store.GroupCommit), so they share a commit instead of waiting
// for each other's.
type laned interface{ lane() string }

// pipelinable is a request the store may pipeline with the others of its
// batch (store.Request.Exclusive): exclusive names what it reads that
// another request may write.
type pipelinable interface{ exclusive() []string }

// TransferResult is the outcome of an operation that posted one transfer.
type TransferResult struct {
	TransferID string
	Kind       ledger.TransferKind
	Currency   ledger.Currency
	Amount     int64
	// Account is the player account the transfer touched and Balance its
	// balance right after it.
	Account   ledger.AccountID
	Balance   int64
	GamingDay string
	At        time.Time
}

// post builds and posts a transfer and reports the player account's
// balance after it.
func (b *Bank) post(ctx context.Context, tx *store.Tx, kind ledger.TransferKind, cur ledger.Currency, p store.Posting, meta map[string]string, player ledger.AccountID, moves ...ledger.Move) (TransferResult, error) {
	return b.postID(ctx, tx, newID("tr_"), kind, cur, p, meta, player, moves...)
}

// postID is post with the transfer ID chosen by the caller, for flows that
// claim a hold or voucher (naming the transfer) before posting it.
func (b *Bank) postID(ctx context.Context, tx *store.Tx, id string, kind ledger.TransferKind, cur ledger.Currency, p store.Posting, meta map[string]string, player ledger.AccountID, moves ...ledger.Move) (TransferResult, error) {
	return b.postWith(ctx, tx, id, nil, kind, cur, p, meta, player, moves...)
}

// postWith is postID that also inserts rows belonging with the transfer.
func (b *Bank) postWith(ctx context.Context, tx *store.Tx, id string, with []store.Row, kind ledger.TransferKind, cur ledger.Currency, p store.Posting, meta map[string]string, player ledger.AccountID, moves ...ledger.Move) (TransferResult, error) {
	now := tx.Now()
	p.GamingDay = b.profile.Day.Of(now)
	tr, err := ledger.Build(id, kind, cur, now, meta, moves...)
	if err != nil {
		return TransferResult{}, err
	}
	balances, err := tx.Post(ctx, tr, p, with...)
	if err != nil {
		return TransferResult{}, err
	}
	return TransferResult{TransferID: tr.ID, Kind: kind, Currency: cur, Amount: tr.Amount(), Account: player, Balance: balances[player], GamingDay: p.GamingDay, At: now}, nil
}

func validPlayer(player string) error { return ledger.ValidOwner("player_id", player) }

func validAmount(field string, amount int64) error {
	if amount <= 0 {
		return ledger.ErrAmountNotPositive.Withf("%s must be positive, got %d", field, amount).With("field", field)
	}
	return nil
}

// withinMaximum refuses an amount a transaction would bring into the
// books above the per-transaction maximum: with every amount bounded, no
// balance and no sum the audit takes comes near the int64 range.
func (b *Bank) withinMaximum(field string, amount int64) error {
	if amount > b.maxAmount {
		return ErrAboveMaximum.Withf("%s %d is above the per-transaction maximum %d", field, amount, b.maxAmount).
			With("field", field, "max", strconv.FormatInt(b.maxAmount, 10))
	}
	return nil
}

// OpenAccount opens a player's account in a currency.
func (b *Bank) OpenAccount(ctx context.Context, key, player, currency string) (ledger.Account, error) {
	if err := validPlayer(player); err != nil {
		return ledger.Account{}, err
	}
	cur, err := ledger.ParseCurrency(currency)
	if err != nil {
		return ledger.Account{}, err
	}
	req := struct{ Player, Currency string }{player, currency}
	return idempotent(ctx, b, "OpenAccount", key, req, func(tx *store.Tx) (ledger.Account, error) {
		return tx.CreateAccount(ctx, ledger.PlayerAccount(player, cur))
	})
}

// CashierRequest is a deposit or withdrawal at the cage.
type CashierRequest struct {
	Key      string `json:"-"`
	Player   string
	Currency string
	Amount   int64
	// Cashier is the cashier's subject, recorded for the cage report.
	Cashier string
}

// lane is the cage's: every deposit and withdrawal moves its balance.
func (r CashierRequest) lane() string { return "cage:" + r.Currency }

func (r CashierRequest) validate() (ledger.Currency, error) {
	if err := cmp.Or(validPlayer(r.Player), validAmount("amount", r.Amount)); err != nil {
		return "", err
	}
	return ledger.ParseCurrency(r.Currency)
}

// Deposit takes cash in at the cage and credits the player's account.
func (b *Bank) Deposit(ctx context.Context, r CashierRequest) (TransferResult, error) {
	cur, err := r.validate()
	if err != nil {
		return TransferResult{}, err
	}
	if err := b.withinMaximum("amount", r.Amount); err != nil {
		return TransferResult{}, err
	}
	return idempotent(ctx, b, "Deposit", r.Key, r, func(tx *store.Tx) (TransferResult, error) {
		player := ledger.PlayerAccount(r.Player, cur)
		if _, err := tx.Account(ctx, player); err != nil {
			return TransferResult{}, err
		}
		if err := tx.EnsureAccount(ctx, ledger.CageAccount(cur)); err != nil {
			return TransferResult{}, err
		}
		return b.post(ctx, tx, ledger.Deposit, cur, store.Posting{Player: r.Player, Actor: r.Cashier},
			map[string]string{"cashier": r.Cashier, "player": r.Player}, player,
			ledger.Move{From: ledger.CageAccount(cur), To: player, Amount: r.Amount})
	})
}

// Withdraw debits the player's account and pays cash out at the cage.
func (b *Bank) Withdraw(ctx context.Context, r CashierRequest) (TransferResult, error) {
	cur, err := r.validate()
	if err != nil {
		return TransferResult{}, err
	}
	if err := b.withinMaximum("amount", r.Amount); err != nil {
		return TransferResult{}, err
	}
	return idempotent(ctx, b, "Withdraw", r.Key, r, func(tx *store.Tx) (TransferResult, error) {
		player := ledger.PlayerAccount(r.Player, cur)
		if err := tx.EnsureAccount(ctx, ledger.CageAccount(cur)); err != nil {
			return TransferResult{}, err
		}
		return b.post(ctx, tx, ledger.Withdrawal, cur, store.Posting{Player: r.Player, Actor: r.Cashier},
			map[string]string{"cashier": r.Cashier, "player": r.Player}, player,
			ledger.Move{From: player, To: ledger.CageAccount(cur), Amount: r.Amount})
	})
}

// ReverseRequest corrects a posted transfer by posting its reversal.
type ReverseRequest struct {
	Key        string `json:"-"`
	TransferID string
	Reason     string
	Actor      string
}

// reversible are the kinds an operator may reverse directly; the others
// belong to a flow (holds, cash-outs, tournament refunds) whose own
// operations undo them.
var reversible = map[ledger.TransferKind]bool{ledger.Deposit: true, ledger.Withdrawal: true, ledger.Prize: true}

// Reverse posts the reversal of a deposit, withdrawal or prize: the only
// way to correct the ledger.
func (b *Bank) Reverse(ctx context.Context, r ReverseRequest) (TransferResult, error) {
	if r.TransferID == "" {
		return TransferResult{}, fault.Invalidf("transfer_id", "is required")
	}
	if r.Reason == "" {
		return TransferResult{}, fault.Invalidf("reason", "is required")
	}
	return idempotent(ctx, b, "Reverse", r.Key, r, func(tx *store.Tx) (TransferResult, error) {
		orig, err := tx.Transfer(ctx, r.TransferID)
		if err != nil {
			return TransferResult{}, err
		}
		if !reversible[orig.Kind] {
			return TransferResult{}, fault.New(fault.Precondition, "NOT_REVERSIBLE", fmt.Sprintf("a %s transfer is undone by its own flow, not reversed", orig.Kind))
		}
		rev := ledger.Reverse(orig, newID("tr_"), tx.Now(), map[string]string{"reason": r.Reason, "actor": r.Actor})
		day := b.profile.Day.Of(tx.Now())
		if _, err := tx.Post(ctx, rev, store.Posting{Player: orig.Meta["player"], Actor: r.Actor, GamingDay: day}); err != nil {
			return TransferResult{}, err
		}
		return TransferResult{TransferID: rev.ID, Kind: rev.Kind, Currency: rev.Currency, Amount: rev.Amount(), GamingDay: day, At: tx.Now()}, nil
	})
}

// Today is the current gaming day (YYYY-MM-DD).
func (b *Bank) Today() string { return b.profile.Day.Of(b.clock.Now()) }
