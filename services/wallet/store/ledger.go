package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

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
	n, err := sqlstore.Exec(ctx, t.tx, `INSERT INTO accounts (id, kind, owner, currency, allow_negative, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
		[]any{string(a.ID), string(a.Kind), a.Owner, string(a.Currency), a.Kind.AllowsNegative(), t.now.UnixMilli()}, "open account %s", id)
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
//
// with are rows that belong with the transfer (a hold naming it, say): they
// are inserted in the same statement on PostgreSQL, right after it on SQLite.
func (t *Tx) Post(ctx context.Context, tr ledger.Transfer, p Posting, with ...Row) (Balances, error) {
	if err := tr.CheckBalanced(); err != nil {
		return nil, err
	}
	tr = tr.Netted()
	if len(tr.Entries) == 0 {
		return nil, ledger.ErrUnbalanced.Withf("transfer %s moves nothing", tr.ID)
	}
	meta, err := json.Marshal(tr.Meta)
	if err != nil {
		return nil, fmt.Errorf("encode transfer meta: %w", err)
	}
	var reverses any
	if tr.Reverses != "" {
		reverses = tr.Reverses
	}
	args := []any{tr.ID, string(tr.Kind), string(tr.Currency), tr.Amount(), reverses, p.Player, p.Subject, p.Actor, p.GamingDay, string(meta), tr.CreatedAt.UnixMilli()}
	var balances Balances
	if t.tx.Dialect() == sqlstore.Postgres {
		balances, err = t.postOneStatement(ctx, tr, args, with)
	} else {
		balances, err = t.postStepByStep(ctx, tr, args, with)
	}
	if err != nil {
		if isKeyViolation(err) {
			// A KeyRow among with: a concurrent duplicate committed the
			// key first (Idempotent answers with its response).
			return nil, fmt.Errorf("post %s: %w", tr.ID, errKeyTaken)
		}
		if isPendingHoldViolation(err) {
			// A concurrent request held a buy-in for the same player and
			// table after this one read that none was pending.
			return nil, ErrHoldPending.Wrap(err)
		}
		if sqlstore.IsUniqueViolation(err) {
			if tr.Reverses != "" {
				return nil, fault.New(fault.Precondition, "ALREADY_REVERSED", "transfer "+tr.Reverses+" is already reversed")
			}
			return nil, fault.New(fault.Conflict, "TRANSFER_EXISTS", "transfer "+tr.ID+" already exists")
		}
		return nil, err
	}
	for _, r := range with {
		if r.written != nil {
			r.written()
		}
	}
	return balances, nil
}

// Row is one row to insert along with a transfer.
type Row struct {
	Table   string
	Columns []string
	Values  []any
	// written runs once the row is written (KeyRow records the response).
	written func()
}

// insert renders the row's INSERT with placeholders numbered from first.
func (r Row) insert(first int) string {
	ph := make([]string, len(r.Values))
	for i := range ph {
		ph[i] = "$" + strconv.Itoa(first+i)
	}
	return "INSERT INTO " + r.Table + " (" + strings.Join(r.Columns, ", ") + ") VALUES (" + strings.Join(ph, ", ") + ")"
}

const insertTransfer = `INSERT INTO transfers (id, kind, currency, amount, reverses, player, subject, actor, gaming_day, meta, created_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`

// updateBalance adds $A to account $I if the result is allowed: not
// negative unless the account may be, and inside int64 (SQLite would
// silently turn an overflowing sum into a float). $C is the currency.
const updateBalance = `UPDATE accounts SET balance = balance + $A, entry_count = entry_count + 1
	WHERE id = $I AND currency = $C
	  AND (allow_negative OR balance + $A >= 0)
	  AND ($A < 0 OR balance <= 9223372036854775807 - $A)
	  AND ($A > 0 OR balance >= (-9223372036854775807 - 1) - $A)
	RETURNING id, balance, entry_count`

// updateBalancePostgres is updateBalance for PostgreSQL, which raises an
// error ("bigint out of range", a 500) where SQLite turns an overflowing
// sum into a float: the bounds are checked in numeric, which cannot
// overflow, so a balance near the int64 range is refused like any other
// (postRefusal explains it: AMOUNT_OVERFLOW).
const updateBalancePostgres = `UPDATE accounts SET balance = balance + $A, entry_count = entry_count + 1
	WHERE id = $I AND currency = $C
	  AND balance::numeric + $A BETWEEN -9223372036854775808 AND 9223372036854775807
	  AND (allow_negative OR balance::numeric + $A >= 0)
	RETURNING id, balance, entry_count`

func balanceUpdate(amount, id, currency string) string {
	return strings.NewReplacer("$A", amount, "$I", id, "$C", currency).Replace(updateBalance)
}

func balanceUpdatePostgres(amount, id, currency string) string {
	return strings.NewReplacer("$A", amount, "$I", id, "$C", currency).Replace(updateBalancePostgres)
}

// updateBalanceStep is updateBalance for postStepByStep, rendered once.
var updateBalanceStep = balanceUpdate("$1", "$2", "$3")

// postStatements caches postOneStatement's SQL by the transfer's shape
// (entry count and the with rows' tables and columns): the text depends on
// nothing else, and rendering it on every buy-in cost the client more CPU
// than the round trip's encoding.
var postStatements sync.Map // shape string → postShape

// postStepByStep writes a transfer one statement at a time (SQLite, where
// the round trips are function calls).
func (t *Tx) postStepByStep(ctx context.Context, tr ledger.Transfer, args []any, with []Row) (Balances, error) {
	if _, err := t.tx.ExecContext(ctx, insertTransfer, args...); err != nil {
		return nil, fmt.Errorf("insert transfer %s: %w", tr.ID, err)
	}
	var values strings.Builder
	entryArgs := make([]any, 0, len(tr.Entries)*6)
	balances := make(Balances, len(tr.Entries))
	for i, e := range tr.Entries {
		var id string
		var balance, seq int64
		err := t.tx.QueryRowContext(ctx, updateBalanceStep, e.Amount, string(e.Account), string(tr.Currency)).Scan(&id, &balance, &seq)
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
		n := len(entryArgs)
		fmt.Fprintf(&values, "($%d, $%d, $%d, $%d, $%d, $%d)", n+1, n+2, n+3, n+4, n+5, n+6)
		entryArgs = append(entryArgs, string(e.Account), seq, tr.ID, e.Amount, balance, tr.CreatedAt.UnixMilli())
	}
	_, err := t.tx.ExecContext(ctx, `INSERT INTO entries (account_id, seq, transfer_id, amount, balance_after, created_at) VALUES `+values.String(), entryArgs...)
	if err != nil {
		return nil, fmt.Errorf("insert entries of %s: %w", tr.ID, err)
	}
	for _, r := range with {
		if _, err := t.tx.ExecContext(ctx, r.insert(1), r.Values...); err != nil {
			return nil, &rowError{table: r.Table, transfer: tr.ID, err: err}
		}
	}
	return balances, nil
}

// postOneStatement writes a transfer in one PostgreSQL statement: the
// transfer row, a conditional update per account and the entries, as
// data-modifying CTEs. An account whose update is refused yields no entry
// row, which the caller sees as missing and explains; the transaction is
// then rolled back with everything the statement wrote. One round trip
// instead of 2 + accounts keeps the buy-in hot path short.
func (t *Tx) postOneStatement(ctx context.Context, tr ledger.Transfer, args []any, with []Row) (Balances, error) {
	for _, e := range tr.Entries {
		args = append(args, e.Amount, string(e.Account))
	}
	for _, r := range with {
		args = append(args, r.Values...)
	}
	balances := make(Balances, len(tr.Entries))
	q, merge := postStatement(len(tr.Entries), with)
	err := t.tx.QueryMerged(ctx, q, args, merge, func(rows sqlstore.Rows) error {
		for rows.Next() {
			var id string
			var balance int64
			if err := rows.Scan(&id, &balance); err != nil {
				return err
			}
			balances[ledger.AccountID(id)] = balance
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("post %s: %w", tr.ID, err)
	}
	for _, e := range tr.Entries {
		if _, ok := balances[e.Account]; !ok {
			return nil, t.postRefusal(ctx, tr, e)
		}
	}
	return balances, nil
}

// postStatement renders postOneStatement's SQL for a transfer of entries
// entries with the rows with: after the 11 transfer arguments come each
// entry's amount and account, then each with row's values. merge posts
// several such transfers in one statement (postMerged), which a pipelined
// batch sends instead of one statement per transfer.
func postStatement(entries int, with []Row) (string, *sqlstore.Merge) {
	var shape strings.Builder
	shape.WriteString(strconv.Itoa(entries))
	for _, r := range with {
		shape.WriteString("|" + r.Table + ":" + strings.Join(r.Columns, ","))
	}
	if p, ok := postStatements.Load(shape.String()); ok {
		p := p.(postShape)
		return p.query, p.merge
	}
	const transferArgs = 11
	var q strings.Builder
	q.WriteString("WITH tr AS (" + insertTransfer + " RETURNING id)")
	var union strings.Builder
	for i := range entries {
		a, id := fmt.Sprintf("$%d::bigint", transferArgs+2*i+1), fmt.Sprintf("$%d", transferArgs+2*i+2)
		fmt.Fprintf(&q, ", u%d AS (%s)", i, balanceUpdatePostgres(a, id, "$3"))
		if i > 0 {
			union.WriteString(" UNION ALL ")
		}
		fmt.Fprintf(&union, "SELECT id, balance, entry_count, %s AS amount FROM u%d", a, i)
	}
	next := transferArgs + 2*entries + 1
	for i, r := range with {
		fmt.Fprintf(&q, ", w%d AS (%s)", i, r.insert(next))
		next += len(r.Values)
	}
	q.WriteString(", e AS (INSERT INTO entries (account_id, seq, transfer_id, amount, balance_after, created_at) SELECT u.id, u.entry_count, (SELECT id FROM tr), u.amount, u.balance, $11 FROM (")
	q.WriteString(union.String())
	q.WriteString(") u RETURNING account_id, balance_after) SELECT account_id, balance_after FROM e")
	cols := make([][]string, len(with))
	tables := make([]string, len(with))
	for i, r := range with {
		tables[i], cols[i] = r.Table, r.Columns
	}
	p := postShape{query: q.String(), merge: &sqlstore.Merge{Key: "post|" + shape.String(), Statement: func(parts [][]any) (string, []any, bool) {
		return postMerged(entries, tables, cols, parts)
	}}}
	postStatements.Store(shape.String(), p)
	return p.query, p.merge
}

// postShape is postStatement's SQL for one shape of transfer, and its Merge.
type postShape struct {
	query string
	merge *sqlstore.Merge
}

// postMerged renders the statement that posts several transfers of one
// shape (parts: each the arguments postOneStatement's statement takes),
// as if each were posted in turn, in their order: every transfer row,
// every balance update, entry and with row. An account several of them
// move is updated once, by their sum, when every balance it passes
// through on the way is allowed (the bounds and, unless the account may
// go negative, zero — what each update would check in turn); each entry
// gets the sequence number and balance it would have had. An account
// refused, or in another currency, is not updated and its entries are
// missing, as in postOneStatement. The rows returned are each part's
// (account_id, balance_after), after the part's index. ok is false when
// a with row's column has values of a type it cannot send as an array.
func postMerged(entries int, tables []string, cols [][]string, parts [][]any) (query string, args []any, ok bool) {
	n := len(parts)
	idx := make([]int64, n)
	for i := range idx {
		idx[i] = int64(i)
	}
	args = append(args, idx)
	// The transfer's 11 columns, in insertTransfer's order.
	transferTypes := []string{"text", "text", "text", "bigint", "text", "text", "text", "text", "text", "text", "bigint"}
	for c, typ := range transferTypes {
		a, ok := arrayOf(parts, c, typ)
		if !ok {
			return "", nil, false
		}
		args = append(args, a)
	}
	entryPart := make([]int64, 0, n*entries)
	entryAccount := make([]string, 0, n*entries)
	entryAmount := make([]int64, 0, n*entries)
	for i, p := range parts {
		for e := range entries {
			amount, ok1 := p[11+2*e].(int64)
			account, ok2 := p[11+2*e+1].(string)
			if !ok1 || !ok2 {
				return "", nil, false
			}
			entryPart, entryAccount, entryAmount = append(entryPart, int64(i)), append(entryAccount, account), append(entryAmount, amount)
		}
	}
	args = append(args, entryPart, entryAccount, entryAmount)
	var q strings.Builder
	q.WriteString(`WITH t AS (SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::bigint[])
		AS t (part, id, kind, currency, amount, reverses, player, subject, actor, gaming_day, meta, created_at)),
	tr AS (INSERT INTO transfers (id, kind, currency, amount, reverses, player, subject, actor, gaming_day, meta, created_at)
		SELECT id, kind, currency, amount, reverses, player, subject, actor, gaming_day, meta, created_at FROM t ORDER BY part RETURNING id),
	m AS (SELECT m.account, m.amount, t.id AS transfer_id, t.currency, t.created_at,
			sum(m.amount) OVER w AS run, row_number() OVER w AS k
		FROM unnest($13::bigint[], $14::text[], $15::bigint[]) WITH ORDINALITY AS m (part, account, amount, ord) JOIN t USING (part)
		WINDOW w AS (PARTITION BY m.account ORDER BY m.ord)),
	d AS (SELECT account, currency, sum(amount) AS total, count(*) AS n, min(run) AS lo, max(run) AS hi FROM m GROUP BY account, currency),
	u AS (UPDATE accounts a SET balance = a.balance + d.total, entry_count = a.entry_count + d.n FROM d
		WHERE a.id = d.account AND a.currency = d.currency
		  AND a.balance::numeric + d.lo >= -9223372036854775808 AND a.balance::numeric + d.hi <= 9223372036854775807
		  AND (a.allow_negative OR a.balance::numeric + d.lo >= 0)
		RETURNING a.id, a.currency, a.balance - d.total AS b0, a.entry_count - d.n AS s0)`)
	next := 16
	first := 11 + 2*entries
	for w, table := range tables {
		ph := make([]string, len(cols[w]))
		for c := range cols[w] {
			a, typ, ok := arrayOfAny(parts, first+c)
			if !ok {
				return "", nil, false
			}
			args = append(args, a)
			ph[c] = "$" + strconv.Itoa(next) + "::" + typ + "[]"
			next++
		}
		first += len(cols[w])
		fmt.Fprintf(&q, ",\n\tw%d AS (INSERT INTO %s (%s) SELECT * FROM unnest(%s))", w, table, strings.Join(cols[w], ", "), strings.Join(ph, ", "))
	}
	q.WriteString(`,
	e AS (INSERT INTO entries (account_id, seq, transfer_id, amount, balance_after, created_at)
		SELECT m.account, u.s0 + m.k, m.transfer_id, m.amount, u.b0 + m.run, m.created_at FROM m JOIN u ON u.id = m.account AND u.currency = m.currency
		RETURNING account_id, transfer_id, balance_after)
SELECT t.part, e.account_id, e.balance_after FROM e JOIN t ON t.id = e.transfer_id`)
	return q.String(), args, true
}

// arrayOf is column c of every part as an array of typ (text, which may
// hold NULLs, or bigint), or ok false when a value is not of that type.
func arrayOf(parts [][]any, c int, typ string) (array any, ok bool) {
	switch typ {
	case "text":
		a := make([]pgtype.Text, len(parts))
		for i, p := range parts {
			switch v := p[c].(type) {
			case nil:
			case string:
				a[i] = pgtype.Text{String: v, Valid: true}
			default:
				return nil, false
			}
		}
		return a, true
	case "bigint":
		a := make([]int64, len(parts))
		for i, p := range parts {
			v, ok := p[c].(int64)
			if !ok {
				return nil, false
			}
			a[i] = v
		}
		return a, true
	}
	return nil, false
}

// arrayOfAny is column c of every part as an array of the SQL type its
// values have (text, bigint, boolean or bytea), or ok false when they have
// none of these or not all the same.
func arrayOfAny(parts [][]any, c int) (array any, typ string, ok bool) {
	switch parts[0][c].(type) {
	case string:
		typ = "text"
	case int64:
		typ = "bigint"
	case bool:
		a := make([]bool, len(parts))
		for i, p := range parts {
			if a[i], ok = p[c].(bool); !ok {
				return nil, "", false
			}
		}
		return a, "boolean", true
	case []byte:
		a := make([][]byte, len(parts))
		for i, p := range parts {
			if a[i], ok = p[c].([]byte); !ok {
				return nil, "", false
			}
		}
		return a, "bytea", true
	default:
		return nil, "", false
	}
	array, ok = arrayOf(parts, c, typ)
	return array, typ, ok
}

// postRefusal explains why a conditional balance update touched no row.
func (t *Tx) postRefusal(ctx context.Context, tr ledger.Transfer, e ledger.Entry) error {
	if t.tx.Pipelined() {
		// Explained by the same request run the ordinary way.
		return fmt.Errorf("post %s to %s: refused: %w", tr.ID, e.Account, sqlstore.ErrNotPipelined)
	}
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
	tr.Entries, err = sqlstore.Collect(ctx, q, "read entries of "+id, `SELECT account_id, amount FROM entries WHERE transfer_id = $1 ORDER BY account_id`,
		[]any{id}, func(r sqlstore.Scanner) (e ledger.Entry, err error) {
			err = r.Scan((*string)(&e.Account), &e.Amount)
			return e, err
		})
	if err != nil {
		return ledger.Transfer{}, err
	}
	return tr, nil
}
