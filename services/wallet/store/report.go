package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/wallet/ledger"
)

// StatementLine is one entry of an account statement.
type StatementLine struct {
	Seq          int64
	TransferID   string
	Kind         ledger.TransferKind
	Amount       int64
	BalanceAfter int64
	Meta         map[string]string
	At           time.Time
}

// Statement returns up to limit entries of the account after sequence
// number after, oldest first, and the sequence number to continue from
// (0 when there are no more).
func (s *Store) Statement(ctx context.Context, account ledger.AccountID, after int64, limit int) ([]StatementLine, int64, error) {
	if _, err := s.Account(ctx, account); err != nil {
		return nil, 0, err
	}
	rows, err := s.db.SQL().QueryContext(ctx, `SELECT e.seq, e.transfer_id, t.kind, e.amount, e.balance_after, t.meta, e.created_at
		FROM entries e JOIN transfers t ON t.id = e.transfer_id
		WHERE e.account_id = $1 AND e.seq > $2 ORDER BY e.seq LIMIT $3`, string(account), after, limit+1)
	if err != nil {
		return nil, 0, fmt.Errorf("statement of %s: %w", account, err)
	}
	defer rows.Close()
	var lines []StatementLine
	for rows.Next() {
		var l StatementLine
		var kind, meta string
		var at int64
		if err := rows.Scan(&l.Seq, &l.TransferID, &kind, &l.Amount, &l.BalanceAfter, &meta, &at); err != nil {
			return nil, 0, err
		}
		l.Kind, l.At = ledger.TransferKind(kind), time.UnixMilli(at).UTC()
		if err := json.Unmarshal([]byte(meta), &l.Meta); err != nil {
			return nil, 0, fmt.Errorf("decode meta of %s: %w", l.TransferID, err)
		}
		lines = append(lines, l)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	var next int64
	if len(lines) > limit {
		lines = lines[:limit]
		next = lines[limit-1].Seq
	}
	return lines, next, nil
}

// CageLine is one cashier's movements in one currency on one gaming day.
type CageLine struct {
	Cashier         string
	Currency        ledger.Currency
	Deposits        int64
	DepositTotal    int64
	Withdrawals     int64
	WithdrawalTotal int64
	Reversals       int64
	ReversalTotal   int64
	NetCashIn       int64 // deposits − withdrawals − reversed deposits + reversed withdrawals
}

// CageReport returns the cage's movements per cashier and currency for a gaming day.
func (s *Store) CageReport(ctx context.Context, gamingDay string) ([]CageLine, error) {
	rows, err := s.db.SQL().QueryContext(ctx, `SELECT t.actor, t.currency, t.kind, COUNT(*), COALESCE(SUM(e.amount), 0)
		FROM transfers t JOIN entries e ON e.transfer_id = t.id AND e.account_id = 'cage:' || t.currency
		WHERE t.gaming_day = $1 GROUP BY t.actor, t.currency, t.kind ORDER BY t.actor, t.currency, t.kind`, gamingDay)
	if err != nil {
		return nil, fmt.Errorf("cage report %s: %w", gamingDay, err)
	}
	defer rows.Close()
	var out []CageLine
	index := map[[2]string]int{}
	for rows.Next() {
		var actor, cur, kind string
		var n, cageSum int64
		if err := rows.Scan(&actor, &cur, &kind, &n, &cageSum); err != nil {
			return nil, err
		}
		i, ok := index[[2]string{actor, cur}]
		if !ok {
			i = len(out)
			index[[2]string{actor, cur}] = i
			out = append(out, CageLine{Cashier: actor, Currency: ledger.Currency(cur)})
		}
		l := &out[i]
		// The cage's entry is −amount on a deposit and +amount on a withdrawal.
		switch ledger.TransferKind(kind) {
		case ledger.Deposit:
			l.Deposits, l.DepositTotal = n, -cageSum
		case ledger.Withdrawal:
			l.Withdrawals, l.WithdrawalTotal = n, cageSum
		default:
			l.Reversals, l.ReversalTotal = l.Reversals+n, l.ReversalTotal+cageSum
		}
		l.NetCashIn -= cageSum
	}
	return out, rows.Err()
}

// Audit checks the ledger's invariants over the whole database: per
// currency debits equal credits and balances sum to zero, every balance
// equals the sum of its entries, no forbidden account is negative, and
// every transfer balances. It reads in one read-only transaction so the
// figures are consistent with each other.
func Audit(ctx context.Context, db *sqlstore.DB) (ledger.AuditReport, error) {
	var r ledger.AuditReport
	err := db.ReadTx(ctx, func(tx *sqlstore.Tx) error {
		r = ledger.AuditReport{}
		for _, q := range []struct {
			sql string
			dst *int64
		}{
			{`SELECT COUNT(*) FROM accounts`, &r.Accounts},
			{`SELECT COUNT(*) FROM transfers`, &r.Transfers},
			{`SELECT COUNT(*) FROM entries`, &r.Entries},
		} {
			if err := tx.QueryRowContext(ctx, q.sql).Scan(q.dst); err != nil {
				return fmt.Errorf("audit count: %w", err)
			}
		}
		totals := map[ledger.Currency]*ledger.CurrencyTotals{}
		var order []ledger.Currency
		get := func(c string) *ledger.CurrencyTotals {
			cur := ledger.Currency(c)
			if totals[cur] == nil {
				totals[cur] = &ledger.CurrencyTotals{Currency: cur}
				order = append(order, cur)
			}
			return totals[cur]
		}
		rows, err := tx.QueryContext(ctx, `SELECT t.currency,
				COALESCE(SUM(CASE WHEN e.amount < 0 THEN -e.amount ELSE 0 END), 0),
				COALESCE(SUM(CASE WHEN e.amount > 0 THEN e.amount ELSE 0 END), 0)
			FROM entries e JOIN transfers t ON t.id = e.transfer_id GROUP BY t.currency ORDER BY t.currency`)
		if err != nil {
			return fmt.Errorf("audit debits and credits: %w", err)
		}
		for rows.Next() {
			var cur string
			var debits, credits int64
			if err := rows.Scan(&cur, &debits, &credits); err != nil {
				rows.Close()
				return err
			}
			c := get(cur)
			c.Debits, c.Credits = debits, credits
		}
		rows.Close()
		rows, err = tx.QueryContext(ctx, `SELECT currency, COALESCE(SUM(balance), 0) FROM accounts GROUP BY currency ORDER BY currency`)
		if err != nil {
			return fmt.Errorf("audit balances: %w", err)
		}
		for rows.Next() {
			var cur string
			var sum int64
			if err := rows.Scan(&cur, &sum); err != nil {
				rows.Close()
				return err
			}
			get(cur).Balances = sum
		}
		rows.Close()
		for _, c := range order {
			r.Currencies = append(r.Currencies, *totals[c])
		}

		rows, err = tx.QueryContext(ctx, `SELECT a.id, a.balance, COALESCE(s.total, 0), a.allow_negative FROM accounts a
			LEFT JOIN (SELECT account_id, SUM(amount) AS total FROM entries GROUP BY account_id) s ON s.account_id = a.id
			WHERE a.balance <> COALESCE(s.total, 0) OR (a.balance < 0 AND NOT a.allow_negative) ORDER BY a.id`)
		if err != nil {
			return fmt.Errorf("audit accounts: %w", err)
		}
		for rows.Next() {
			var m ledger.Mismatch
			var neg bool
			if err := rows.Scan((*string)(&m.Account), &m.Balance, &m.EntrySum, &neg); err != nil {
				rows.Close()
				return err
			}
			m.Problem = "balance differs from the sum of its entries"
			if m.Balance == m.EntrySum {
				m.Problem = "negative balance on an account that may not go negative"
			}
			r.Mismatches = append(r.Mismatches, m)
		}
		rows.Close()

		rows, err = tx.QueryContext(ctx, `SELECT t.id FROM transfers t LEFT JOIN entries e ON e.transfer_id = t.id
			GROUP BY t.id, t.amount
			HAVING COALESCE(SUM(e.amount), 0) <> 0 OR COUNT(e.transfer_id) = 0
			    OR COALESCE(SUM(CASE WHEN e.amount > 0 THEN e.amount ELSE 0 END), 0) <> t.amount
			ORDER BY t.id`)
		if err != nil {
			return fmt.Errorf("audit transfers: %w", err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			r.UnbalancedTransfers = append(r.UnbalancedTransfers, id)
		}
		rows.Close()
		return nil
	})
	return r, err
}

// Audit checks the ledger's invariants (see the package function Audit).
func (s *Store) Audit(ctx context.Context) (ledger.AuditReport, error) { return Audit(ctx, s.db) }
