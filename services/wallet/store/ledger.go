package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/wallet/ledger"
)

// CreateAccount opens an empty account. It returns ErrAccountExists when
// the account is already open.
func (t *Tx) CreateAccount(ctx context.Context, id ledger.AccountID) (ledger.Account, error) {
	created, a, err := t.ensure(ctx, id)
	if err != nil {
		return ledger.Account{}, err
	}
	if !created {
		if a, err = t.Account(ctx, id); err != nil {
			return ledger.Account{}, err
		}
		return a, ErrAccountExists.Withf("account %s already exists", id).With("account_id", string(id))
	}
	return a, nil
}

// EnsureAccount opens the account if it is not open yet. Room-side
// accounts (cage, table escrow, holds, prize pools, fees, vouchers) come
// into being on first use; player accounts are opened explicitly.
func (t *Tx) EnsureAccount(ctx context.Context, id ledger.AccountID) error {
	if _, ok := t.store.opened.Load(id); ok {
		return nil
	}
	if _, _, err := t.ensure(ctx, id); err != nil {
		return err
	}
	// Cache only once the account is surely committed.
	t.tx.AfterCommit(func() { t.store.opened.Store(id, struct{}{}) })
	return nil
}

func (t *Tx) ensure(ctx context.Context, id ledger.AccountID) (bool, ledger.Account, error) {
	a, err := ledger.NewAccount(id, t.now)
	if err != nil {
		return false, ledger.Account{}, err
	}
	res, err := t.tx.ExecContext(ctx, `INSERT INTO accounts (id, kind, owner, currency, allow_negative, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
		string(a.ID), string(a.Kind), a.Owner, string(a.Currency), a.Kind.AllowsNegative(), t.now.UnixMilli())
	if err != nil {
		return false, ledger.Account{}, fmt.Errorf("open account %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, ledger.Account{}, err
	}
	return n == 1, a, nil
}

// Account reads an account inside the transaction.
func (t *Tx) Account(ctx context.Context, id ledger.AccountID) (ledger.Account, error) {
	return readAccount(ctx, t.tx, id)
}

// Account reads an account.
func (s *Store) Account(ctx context.Context, id ledger.AccountID) (ledger.Account, error) {
	return readAccount(ctx, s.db.SQL(), id)
}

func readAccount(ctx context.Context, q sqlstore.Querier, id ledger.AccountID) (ledger.Account, error) {
	var a ledger.Account
	var kind, cur string
	var created int64
	err := q.QueryRowContext(ctx, `SELECT id, kind, owner, currency, balance, created_at FROM accounts WHERE id = $1`, string(id)).
		Scan((*string)(&a.ID), &kind, &a.Owner, &cur, &a.Balance, &created)
	if noRows(err) {
		return ledger.Account{}, ErrAccountNotFound.Withf("account %s not found", id).With("account_id", string(id))
	}
	if err != nil {
		return ledger.Account{}, fmt.Errorf("read account %s: %w", id, err)
	}
	a.Kind, a.Currency, a.CreatedAt = ledger.Kind(kind), ledger.Currency(cur), time.UnixMilli(created).UTC()
	return a, nil
}

// Posting says who and what a transfer is for, stored in indexed columns.
type Posting struct {
	Player    string
	Subject   string // table or event
	Actor     string // the caller: cashier, service or player subject
	GamingDay string
}

// Balances are account balances right after a transfer.
type Balances map[ledger.AccountID]int64

// Post writes a balanced transfer: it applies each entry to its account
// with a conditional update that refuses a forbidden negative balance, an
// overflow, an unknown account or another currency, and records the
// transfer and its entries. It returns the touched accounts' new balances. Accounts are updated in ID order so two
// transfers touching the same accounts cannot deadlock.
func (t *Tx) Post(ctx context.Context, tr ledger.Transfer, p Posting) (Balances, error) {
	if err := tr.CheckBalanced(); err != nil {
		return nil, err
	}
	meta, err := json.Marshal(tr.Meta)
	if err != nil {
		return nil, fmt.Errorf("encode transfer meta: %w", err)
	}
	var reverses any
	if tr.Reverses != "" {
		reverses = tr.Reverses
	}
	_, err = t.tx.ExecContext(ctx, `INSERT INTO transfers (id, kind, currency, amount, reverses, player, subject, actor, gaming_day, meta, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		tr.ID, string(tr.Kind), string(tr.Currency), tr.Amount(), reverses, p.Player, p.Subject, p.Actor, p.GamingDay, string(meta), tr.CreatedAt.UnixMilli())
	if err != nil {
		if isUniqueViolation(err) {
			if tr.Reverses != "" {
				return nil, fault.New(fault.Precondition, "ALREADY_REVERSED", "transfer "+tr.Reverses+" is already reversed")
			}
			return nil, fault.New(fault.Conflict, "TRANSFER_EXISTS", "transfer "+tr.ID+" already exists")
		}
		return nil, fmt.Errorf("insert transfer %s: %w", tr.ID, err)
	}

	entries := slices.Clone(tr.Entries)
	slices.SortStableFunc(entries, func(a, b ledger.Entry) int { return strings.Compare(string(a.Account), string(b.Account)) })
	var values strings.Builder
	args := make([]any, 0, len(entries)*6)
	balances := make(Balances, len(entries))
	for i, e := range entries {
		var balance, seq int64
		// The bounds keep balance + $1 inside int64 (SQLite would silently
		// turn an overflowing sum into a float).
		err := t.tx.QueryRowContext(ctx, `UPDATE accounts SET balance = balance + $1, entry_count = entry_count + 1
			WHERE id = $2 AND currency = $3
			  AND (allow_negative OR balance + $1 >= 0)
			  AND ($1 < 0 OR balance <= 9223372036854775807 - $1)
			  AND ($1 > 0 OR balance >= (-9223372036854775807 - 1) - $1)
			RETURNING balance, entry_count`, e.Amount, string(e.Account), string(tr.Currency)).Scan(&balance, &seq)
		if noRows(err) {
			return nil, t.postRefusal(ctx, tr, e)
		}
		if err != nil {
			return nil, fmt.Errorf("post %s to %s: %w", tr.ID, e.Account, err)
		}
		balances[e.Account] = balance
		if i > 0 {
			values.WriteString(", ")
		}
		n := len(args)
		fmt.Fprintf(&values, "($%d, $%d, $%d, $%d, $%d, $%d)", n+1, n+2, n+3, n+4, n+5, n+6)
		args = append(args, string(e.Account), seq, tr.ID, e.Amount, balance, tr.CreatedAt.UnixMilli())
	}
	_, err = t.tx.ExecContext(ctx, `INSERT INTO entries (account_id, seq, transfer_id, amount, balance_after, created_at) VALUES `+values.String(), args...)
	if err != nil {
		return nil, fmt.Errorf("insert entries of %s: %w", tr.ID, err)
	}
	return balances, nil
}

// postRefusal explains why a conditional balance update touched no row.
func (t *Tx) postRefusal(ctx context.Context, tr ledger.Transfer, e ledger.Entry) error {
	a, err := t.Account(ctx, e.Account)
	if err != nil {
		return err
	}
	if a.Currency != tr.Currency {
		return ledger.ErrCurrencyMismatch.Withf("account %s is in %s, not %s", a.ID, a.Currency, tr.Currency).
			With("account_id", string(a.ID), "currency", string(a.Currency))
	}
	if _, err := a.Apply(e.Amount); err != nil {
		return err
	}
	// The row changed between the update and this read; Tx retries only
	// serialization failures, so report it as a conflict to retry.
	return fault.New(fault.Aborted, "BALANCE_CHANGED", "balance changed concurrently; retry")
}

// Transfer reads a transfer and its entries.
func (t *Tx) Transfer(ctx context.Context, id string) (ledger.Transfer, error) {
	return readTransfer(ctx, t.tx, id)
}

// Transfer reads a transfer and its entries.
func (s *Store) Transfer(ctx context.Context, id string) (ledger.Transfer, error) {
	return readTransfer(ctx, s.db.SQL(), id)
}

func readTransfer(ctx context.Context, q sqlstore.Querier, id string) (ledger.Transfer, error) {
	var tr ledger.Transfer
	var kind, cur, meta string
	var reverses *string
	var created int64
	err := q.QueryRowContext(ctx, `SELECT id, kind, currency, reverses, meta, created_at FROM transfers WHERE id = $1`, id).
		Scan(&tr.ID, &kind, &cur, &reverses, &meta, &created)
	if noRows(err) {
		return ledger.Transfer{}, fault.NotFoundf("transfer", "transfer %s not found", id)
	}
	if err != nil {
		return ledger.Transfer{}, fmt.Errorf("read transfer %s: %w", id, err)
	}
	tr.Kind, tr.Currency, tr.CreatedAt = ledger.TransferKind(kind), ledger.Currency(cur), time.UnixMilli(created).UTC()
	if reverses != nil {
		tr.Reverses = *reverses
	}
	if err := json.Unmarshal([]byte(meta), &tr.Meta); err != nil {
		return ledger.Transfer{}, fmt.Errorf("decode meta of %s: %w", id, err)
	}
	rows, err := q.QueryContext(ctx, `SELECT account_id, amount FROM entries WHERE transfer_id = $1 ORDER BY account_id`, id)
	if err != nil {
		return ledger.Transfer{}, fmt.Errorf("read entries of %s: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var e ledger.Entry
		if err := rows.Scan((*string)(&e.Account), &e.Amount); err != nil {
			return ledger.Transfer{}, err
		}
		tr.Entries = append(tr.Entries, e)
	}
	return tr, rows.Err()
}
