package ledger

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
)

// TransferKind says why chips moved; statements and the cage report group by it.
type TransferKind string

// Transfer kinds.
const (
	Deposit      TransferKind = "deposit"       // cage → player (cash in)
	Withdrawal   TransferKind = "withdrawal"    // player → cage (cash out at the cage)
	BuyInHold    TransferKind = "buyin_hold"    // player → table hold
	BuyInCommit  TransferKind = "buyin_commit"  // table hold → table escrow
	BuyInRelease TransferKind = "buyin_release" // table hold → player
	BuyIn        TransferKind = "buyin"         // player → table escrow: a sit-down in one step, no hold
	CashOut      TransferKind = "cash_out"      // table escrow → player, on leaving (CS-08)
	EventEntry   TransferKind = "entry"         // player or voucher → prize pool + house fees (TR-04)
	Rebuy        TransferKind = "rebuy"         // player → prize pool (+ fee) (TR-14)
	AddOn        TransferKind = "add_on"        // player → prize pool (+ fee) (TR-17)
	Prize        TransferKind = "prize"         // prize pool → player
	VoucherIssue TransferKind = "voucher_issue" // prize pool → voucher account (TR-19)
	Reversal     TransferKind = "reversal"      // the exact opposite of an earlier transfer
	// PoolSettlement moves what a finished event's prize pool holds after
	// its prizes to the house or a player (TR-34, G-24).
	PoolSettlement TransferKind = "pool_settlement" // prize pool → house fees or player
)

// Entry is one line of a transfer: Amount is added to the account's balance
// (positive is a credit to the account, negative a debit from it).
type Entry struct {
	Account AccountID
	Amount  int64
}

// Move is a request to take Amount from From and give it to To.
type Move struct {
	From, To AccountID
	Amount   int64
}

// Transfer is a balanced set of entries in one currency, posted atomically.
type Transfer struct {
	ID       string
	Kind     TransferKind
	Currency Currency
	Entries  []Entry
	// Reverses is the ID of the transfer this one reverses, if any.
	Reverses string
	// Meta records who and what the transfer was for: player, table, seat,
	// event, cashier, hold. It is stored with the transfer and never changed.
	Meta      map[string]string
	CreatedAt time.Time
}

// Build returns a transfer of the moves, each turned into a debit of From
// and a credit of To. Every amount must be positive, every account must be
// of currency cur, and no total may overflow.
func Build(transferID string, kind TransferKind, cur Currency, at time.Time, meta map[string]string, moves ...Move) (Transfer, error) {
	if len(moves) == 0 {
		return Transfer{}, fault.Invalidf("amount", "a transfer needs at least one movement")
	}
	t := Transfer{ID: transferID, Kind: kind, Currency: cur, Meta: maps.Clone(meta), CreatedAt: at}
	var total int64
	for _, m := range moves {
		if m.Amount <= 0 {
			return Transfer{}, ErrAmountNotPositive.Withf("amount %d must be positive", m.Amount).With("field", "amount")
		}
		if m.From == m.To {
			return Transfer{}, fault.Invalidf("account", "cannot move chips from %s to itself", m.From)
		}
		for _, a := range []AccountID{m.From, m.To} {
			_, _, c, err := ParseAccountID(string(a))
			if err != nil {
				return Transfer{}, err
			}
			if c != cur {
				return Transfer{}, ErrCurrencyMismatch.Withf("account %s is not in %s", a, cur).With("account", string(a), "currency", string(cur))
			}
		}
		var err error
		if total, err = Add(total, m.Amount); err != nil {
			return Transfer{}, fmt.Errorf("transfer total: %w", err)
		}
		t.Entries = append(t.Entries, Entry{Account: m.From, Amount: -m.Amount}, Entry{Account: m.To, Amount: m.Amount})
	}
	return t, t.CheckBalanced()
}

// CheckBalanced verifies that the entries sum to zero without overflow.
func (t Transfer) CheckBalanced() error {
	var debits, credits int64
	for _, e := range t.Entries {
		var err error
		if e.Amount < 0 {
			debits, err = Add(debits, -e.Amount)
		} else {
			credits, err = Add(credits, e.Amount)
		}
		if err != nil {
			return fmt.Errorf("transfer %s: %w", t.ID, err)
		}
	}
	if debits != credits || len(t.Entries) == 0 {
		return ErrUnbalanced.Withf("transfer %s: debits %d, credits %d", t.ID, debits, credits)
	}
	return nil
}

// Amount is the transfer's size: the sum of its credits.
func (t Transfer) Amount() int64 {
	var s int64
	for _, e := range t.Entries {
		if e.Amount > 0 {
			s += e.Amount
		}
	}
	return s
}

// Reverse returns the transfer that undoes t: the same entries negated. It
// is the only way to correct a posted transfer.
func Reverse(t Transfer, reversalID string, at time.Time, meta map[string]string) Transfer {
	r := Transfer{ID: reversalID, Kind: Reversal, Currency: t.Currency, Reverses: t.ID, Meta: maps.Clone(meta), CreatedAt: at}
	if r.Meta == nil {
		r.Meta = map[string]string{}
	}
	r.Meta["reversed_kind"] = string(t.Kind)
	for _, e := range t.Entries {
		r.Entries = append(r.Entries, Entry{Account: e.Account, Amount: -e.Amount})
	}
	return r
}

// Netted returns t with its entries combined per account (summed, zero
// nets dropped) and sorted by account ID: the form the store writes, one
// entry per account per transfer, always in the same lock order.
func (t Transfer) Netted() Transfer {
	sums := map[AccountID]int64{}
	for _, e := range t.Entries {
		sums[e.Account] += e.Amount // CheckBalanced has ruled out overflow
	}
	out := t
	out.Entries = make([]Entry, 0, len(sums))
	for a, s := range sums {
		if s != 0 {
			out.Entries = append(out.Entries, Entry{Account: a, Amount: s})
		}
	}
	slices.SortFunc(out.Entries, func(a, b Entry) int { return strings.Compare(string(a.Account), string(b.Account)) })
	return out
}
