// Package ledger is the wallet's double-entry bookkeeping: accounts, the
// transfers between them and the arithmetic that keeps every chip in exactly
// one place. It is pure (no I/O); the store persists what it decides.
//
// Amounts are int64 minor units of one currency (chips are 1:1 with cash
// minor units). A transfer is a set of entries whose amounts sum to zero, so
// per currency the debits always equal the credits. Entries are never
// changed; a mistake is corrected by posting the transfer's reversal.
package ledger

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
)

// Currency is an ISO 4217 style code of three upper-case letters, e.g. EUR.
type Currency string

var currencyPattern = regexp.MustCompile(`^[A-Z]{3}$`)

// ParseCurrency checks that s is a currency code.
func ParseCurrency(s string) (Currency, error) {
	if !currencyPattern.MatchString(s) {
		return "", fault.Invalidf("currency", "%q is not a three-letter currency code", s)
	}
	return Currency(s), nil
}

// Kind says what an account holds and so who may move chips in and out of it.
type Kind string

// Account kinds. Every chip is in exactly one of these places.
const (
	// Player is a player's wallet money, usable for buy-ins and entries.
	Player Kind = "player"
	// Cage is the cashier cage: the source of chips on a cash-in and their
	// sink on a cash-out. Its balance is minus the chips in circulation, so
	// it is the one account that goes negative.
	Cage Kind = "cage"
	// Table is a cash table's escrow: the chips in play at that table. It is
	// one account per table rather than per seat because chips move between
	// seats in every hand without the wallet being told (ARCHITECTURE.md,
	// "A hand"); the seat is recorded on each transfer instead.
	Table Kind = "table"
	// Hold is a table's pending buy-ins: chips taken from players by a hold
	// and not yet committed to the table or released back.
	Hold Kind = "hold"
	// PrizePool is one tournament's prize pool (TR-04).
	PrizePool Kind = "prize_pool"
	// HouseFees is the house's fee revenue (the "+11" of a 50 + 11 entry).
	HouseFees Kind = "house_fees"
	// Voucher is the value of outstanding entry vouchers for one target event
	// (satellite prizes, TR-19); each voucher is bound to one player.
	Voucher Kind = "voucher"
)

// Kinds lists every account kind.
var Kinds = []Kind{Player, Cage, Table, Hold, PrizePool, HouseFees, Voucher}

// AllowsNegative reports whether an account of kind k may have a negative
// balance. Only the cage may: it issues chips against cash in the drawer.
func (k Kind) AllowsNegative() bool { return k == Cage }

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool { return slices.Contains(Kinds, k) }

// AccountID names an account: "kind:owner:CUR", or "kind:CUR" for the
// room-wide accounts (cage, house fees). IDs are derived, never allocated,
// so every service computes the same ID for the same account.
type AccountID string

var ownerPattern = regexp.MustCompile(`^[A-Za-z0-9_.@-]{1,128}$`)

// ValidOwner checks an owner ID (player, table or event): 1–128 characters
// from letters, digits and _ . @ - (no colon, which separates ID parts).
func ValidOwner(field, owner string) error {
	if !ownerPattern.MatchString(owner) {
		return fault.Invalidf(field, "%q must be 1-128 letters, digits or _.@-", owner)
	}
	return nil
}

// PlayerAccount is the ID of a player's wallet in currency c.
func PlayerAccount(player string, c Currency) AccountID { return id(Player, player, c) }

// CageAccount is the ID of the cage for currency c.
func CageAccount(c Currency) AccountID { return id(Cage, "", c) }

// TableAccount is the ID of a table's escrow.
func TableAccount(table string, c Currency) AccountID { return id(Table, table, c) }

// HoldAccount is the ID of a table's pending buy-ins.
func HoldAccount(table string, c Currency) AccountID { return id(Hold, table, c) }

// PrizePoolAccount is the ID of an event's prize pool.
func PrizePoolAccount(event string, c Currency) AccountID { return id(PrizePool, event, c) }

// HouseFeesAccount is the ID of the house's fee revenue.
func HouseFeesAccount(c Currency) AccountID { return id(HouseFees, "", c) }

// VoucherAccount is the ID of the outstanding vouchers for a target event.
func VoucherAccount(event string, c Currency) AccountID { return id(Voucher, event, c) }

func id(k Kind, owner string, c Currency) AccountID {
	if owner == "" {
		return AccountID(string(k) + ":" + string(c))
	}
	return AccountID(string(k) + ":" + owner + ":" + string(c))
}

// ParseAccountID splits an ID into kind, owner and currency and validates
// each part.
func ParseAccountID(s string) (Kind, string, Currency, error) {
	parts := strings.Split(s, ":")
	// Built only on failure: IDs are parsed on every transfer's hot path.
	bad := func() error { return fault.Invalidf("account_id", "%q is not an account ID (kind:owner:CUR)", s) }
	var k Kind
	var owner, cur string
	switch len(parts) {
	case 2:
		k, cur = Kind(parts[0]), parts[1]
		if k != Cage && k != HouseFees {
			return "", "", "", bad()
		}
	case 3:
		k, owner, cur = Kind(parts[0]), parts[1], parts[2]
		if !k.Valid() || k == Cage || k == HouseFees || ValidOwner("account_id", owner) != nil {
			return "", "", "", bad()
		}
	default:
		return "", "", "", bad()
	}
	c, err := ParseCurrency(cur)
	if err != nil {
		return "", "", "", bad()
	}
	return k, owner, c, nil
}

// Account is one place chips can be, with its current balance.
type Account struct {
	ID        AccountID
	Kind      Kind
	Owner     string
	Currency  Currency
	Balance   int64
	CreatedAt time.Time
}

// NewAccount returns an empty account for the ID.
func NewAccount(accountID AccountID, at time.Time) (Account, error) {
	k, owner, c, err := ParseAccountID(string(accountID))
	if err != nil {
		return Account{}, err
	}
	return Account{ID: accountID, Kind: k, Owner: owner, Currency: c, CreatedAt: at}, nil
}

// Failures of the ledger's arithmetic.
var (
	// ErrInsufficientFunds refuses a debit that would take an account below
	// zero where its kind forbids that.
	ErrInsufficientFunds = fault.New(fault.Precondition, "INSUFFICIENT_FUNDS", "insufficient funds")
	// ErrOverflow refuses an amount whose sum would not fit in int64.
	ErrOverflow = fault.New(fault.Invalid, "AMOUNT_OVERFLOW", "amount overflows")
	// ErrAmountNotPositive refuses a zero or negative amount.
	ErrAmountNotPositive = fault.New(fault.Invalid, "AMOUNT_NOT_POSITIVE", "amount must be positive")
	// ErrCurrencyMismatch refuses a posting to an account of another currency.
	ErrCurrencyMismatch = fault.New(fault.Invalid, "CURRENCY_MISMATCH", "currency does not match the account")
	// ErrUnbalanced is a transfer whose entries do not sum to zero (a bug).
	ErrUnbalanced = fault.New(fault.Internal, "TRANSFER_UNBALANCED", "transfer is not balanced")
)

// Add returns a + b, or ErrOverflow if the sum does not fit in int64.
func Add(a, b int64) (int64, error) {
	c := a + b
	if (c > a) != (b > 0) {
		return 0, ErrOverflow.Withf("%d + %d overflows", a, b)
	}
	return c, nil
}

// Mul returns a × b, or ErrOverflow if the product does not fit in int64.
func Mul(a, b int64) (int64, error) {
	if a == 0 || b == 0 {
		return 0, nil
	}
	c := a * b
	if c/b != a || (a == -1 && b == minInt64) || (b == -1 && a == minInt64) {
		return 0, ErrOverflow.Withf("%d × %d overflows", a, b)
	}
	return c, nil
}

const minInt64 = -1 << 63

// Apply returns the balance after adding delta, refusing overflow and, for
// kinds that may not go negative, a negative result.
func (a Account) Apply(delta int64) (int64, error) {
	b, err := Add(a.Balance, delta)
	if err != nil {
		return 0, fmt.Errorf("account %s: %w", a.ID, err)
	}
	if b < 0 && !a.Kind.AllowsNegative() {
		return 0, ErrInsufficientFunds.Withf("account %s has %d, needs %d", a.ID, a.Balance, -delta).
			With("account", string(a.ID))
	}
	return b, nil
}
