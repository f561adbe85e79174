package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/wallet/ledger"
	"github.com/cardroom/cardroom/services/wallet/reconcile"
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
	lines, err := sqlstore.Collect(ctx, s.db.SQL(), "statement of "+string(account), `SELECT e.seq, e.transfer_id, t.kind, e.amount,
		e.balance_after, t.meta, e.created_at FROM entries e JOIN transfers t ON t.id = e.transfer_id
		WHERE e.account_id = $1 AND e.seq > $2 ORDER BY e.seq LIMIT $3`, []any{string(account), after, limit + 1}, func(r sqlstore.Scanner) (StatementLine, error) {
		var l StatementLine
		var kind, meta string
		var at int64
		if err := r.Scan(&l.Seq, &l.TransferID, &kind, &l.Amount, &l.BalanceAfter, &meta, &at); err != nil {
			return l, err
		}
		l.Kind, l.At = ledger.TransferKind(kind), time.UnixMilli(at).UTC()
		if err := json.Unmarshal([]byte(meta), &l.Meta); err != nil {
			return l, fmt.Errorf("decode meta of %s: %w", l.TransferID, err)
		}
		return l, nil
	})
	if err != nil {
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
	// Overflow is true when a total lies beyond int64 (books written before
	// amounts were bounded): it is clamped at the end of the range.
	Overflow bool
}

// CageReport returns the cage's movements per cashier and currency for a
// gaming day. The totals are summed exactly, so the report answers even
// for books whose sums overflowed int64 (CageLine.Overflow).
func (s *Store) CageReport(ctx context.Context, gamingDay string) ([]CageLine, error) {
	type sums struct{ deposits, withdrawals, reversals, net ledger.Wide }
	var out []CageLine
	var totals []sums
	index := map[[2]string]int{}
	err := sqlstore.Each(ctx, s.db.SQL(), "cage report "+gamingDay, `SELECT t.actor, t.currency, t.kind, COUNT(*), `+splitSum(`e.amount`)+`
		FROM transfers t JOIN entries e ON e.transfer_id = t.id AND e.account_id = 'cage:' || t.currency
		WHERE t.gaming_day = $1 GROUP BY t.actor, t.currency, t.kind ORDER BY t.actor, t.currency, t.kind`, []any{gamingDay}, func(r sqlstore.Scanner) error {
		var actor, cur, kind string
		var n, high, low int64
		if err := r.Scan(&actor, &cur, &kind, &n, &high, &low); err != nil {
			return err
		}
		cageSum := ledger.JoinSplit(high, low)
		i, ok := index[[2]string{actor, cur}]
		if !ok {
			i = len(out)
			index[[2]string{actor, cur}] = i
			out = append(out, CageLine{Cashier: actor, Currency: ledger.Currency(cur)})
			totals = append(totals, sums{})
		}
		l, sum := &out[i], &totals[i]
		// The cage's entry is −amount on a deposit and +amount on a withdrawal.
		switch ledger.TransferKind(kind) {
		case ledger.Deposit:
			l.Deposits, sum.deposits = n, cageSum.Neg()
		case ledger.Withdrawal:
			l.Withdrawals, sum.withdrawals = n, cageSum
		default:
			l.Reversals, sum.reversals = l.Reversals+n, sum.reversals.Add(cageSum)
		}
		sum.net = sum.net.Add(cageSum.Neg())
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range out {
		l, sum := &out[i], totals[i]
		var fits [4]bool
		l.DepositTotal, fits[0] = sum.deposits.Int64()
		l.WithdrawalTotal, fits[1] = sum.withdrawals.Int64()
		l.ReversalTotal, fits[2] = sum.reversals.Int64()
		l.NetCashIn, fits[3] = sum.net.Int64()
		l.Overflow = !fits[0] || !fits[1] || !fits[2] || !fits[3]
	}
	return out, nil
}

// splitSum renders the two columns in which SQL returns a sum of the
// int64 expression e that may not fit in int64: the sums of its high and
// low 32 bits (ledger.JoinSplit joins them). Neither overflows for fewer
// than 2^31 rows, on SQLite (whose SUM fails on an overflow) as on
// PostgreSQL; books written before amounts were bounded can hold sums of
// entries beyond int64, and the audit and the cage report must still
// answer for them.
func splitSum(e string) string { return splitSumAs(e, "") }

// splitSumAs is splitSum naming the columns <name>_high and <name>_low.
func splitSumAs(e, name string) string {
	high, low := "", ""
	if name != "" {
		high, low = " AS "+name+"_high", " AS "+name+"_low"
	}
	return `CAST(COALESCE(SUM((` + e + `) >> 32), 0) AS BIGINT)` + high + `, CAST(COALESCE(SUM((` + e + `) & 4294967295), 0) AS BIGINT)` + low
}

// Audit checks the ledger's invariants over the whole database: per
// currency debits equal credits and balances sum to zero, every balance
// equals the sum of its entries, no forbidden account is negative, and
// every transfer balances. It reads in one read-only transaction so the
// figures are consistent with each other. Every sum over many rows is
// taken exactly (ledger.Wide), so the audit answers, and reports the
// problem, even for books whose sums overflowed int64.
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
		err := sqlstore.Each(ctx, tx, "audit debits and credits", `SELECT t.currency, `+
			splitSum(`CASE WHEN e.amount < 0 THEN -e.amount ELSE 0 END`)+`, `+
			splitSum(`CASE WHEN e.amount > 0 THEN e.amount ELSE 0 END`)+`
			FROM entries e JOIN transfers t ON t.id = e.transfer_id GROUP BY t.currency ORDER BY t.currency`, nil, func(row sqlstore.Scanner) error {
			var cur string
			var dh, dl, ch, cl int64
			if err := row.Scan(&cur, &dh, &dl, &ch, &cl); err != nil {
				return err
			}
			c := get(cur)
			c.Debits, c.Credits = ledger.JoinSplit(dh, dl), ledger.JoinSplit(ch, cl)
			return nil
		})
		if err != nil {
			return err
		}
		err = sqlstore.Each(ctx, tx, "audit balances", `SELECT currency, `+splitSum(`balance`)+` FROM accounts GROUP BY currency ORDER BY currency`,
			nil, func(row sqlstore.Scanner) error {
				var cur string
				var high, low int64
				if err := row.Scan(&cur, &high, &low); err != nil {
					return err
				}
				get(cur).Balances = ledger.JoinSplit(high, low)
				return nil
			})
		if err != nil {
			return err
		}
		for _, c := range order {
			r.Currencies = append(r.Currencies, *totals[c])
		}

		// s.high + (s.low >> 32) and s.low & 0xFFFFFFFF are the entry sum's
		// high and low words (each low half is non-negative, so their sum
		// carries into the high word only upwards): comparing them to the
		// balance's words compares the exact sum without forming it.
		r.Mismatches, err = sqlstore.Collect(ctx, tx, "audit accounts", `SELECT a.id, a.balance, COALESCE(s.s_high, 0), COALESCE(s.s_low, 0),
			a.allow_negative FROM accounts a LEFT JOIN (SELECT account_id, `+splitSumAs(`amount`, "s")+`
				FROM entries GROUP BY account_id) s ON s.account_id = a.id
			WHERE (a.balance >> 32) <> COALESCE(s.s_high + (s.s_low >> 32), 0) OR (a.balance & 4294967295) <> COALESCE(s.s_low & 4294967295, 0)
				OR (a.balance < 0 AND NOT a.allow_negative) ORDER BY a.id`, nil, scanMismatch)
		if err != nil {
			return err
		}

		// Per transfer: the entries sum to zero (high and low words both
		// zero) and the credits to the transfer's amount.
		r.UnbalancedTransfers, err = sqlstore.Collect(ctx, tx, "audit transfers", `SELECT id FROM (SELECT t.id, t.amount, COUNT(e.transfer_id) AS n,
				`+splitSumAs(`e.amount`, "s")+`, `+splitSumAs(`CASE WHEN e.amount > 0 THEN e.amount ELSE 0 END`, "c")+`
				FROM transfers t LEFT JOIN entries e ON e.transfer_id = t.id GROUP BY t.id, t.amount) s
			WHERE n = 0 OR s_high + (s_low >> 32) <> 0 OR (s_low & 4294967295) <> 0
				OR c_high + (c_low >> 32) <> (amount >> 32) OR (c_low & 4294967295) <> (amount & 4294967295)
			ORDER BY id`, nil, sqlstore.ScanString)
		return err
	})
	return r, err
}

// scanMismatch reads an account whose balance is not the sum of its
// entries, or is negative where it may not be.
func scanMismatch(row sqlstore.Scanner) (ledger.Mismatch, error) {
	var m ledger.Mismatch
	var high, low int64
	var neg bool
	err := row.Scan((*string)(&m.Account), &m.Balance, &high, &low, &neg)
	m.EntrySum = ledger.JoinSplit(high, low)
	m.Problem = "balance differs from the sum of its entries"
	if m.EntrySum.Cmp(ledger.WideOf(m.Balance)) == 0 {
		m.Problem = "negative balance on an account that may not go negative"
	}
	return m, err
}

// Audit checks the ledger's invariants (see the package function Audit).
func (s *Store) Audit(ctx context.Context) (ledger.AuditReport, error) { return Audit(ctx, s.db) }

// TableBooks reads, in one transaction, what the ledger holds for the
// counted tables: every table escrow that is not zero and those of the
// counted tables, whether each hold their pending buy-ins name is
// committed, and whether each sitting their pending cash-outs name is open.
func (s *Store) TableBooks(ctx context.Context, counts []reconcile.TableCount) (reconcile.Books, error) {
	books := reconcile.Books{Committed: map[string]bool{}, Bought: map[string]bool{}, Open: map[string]bool{}}
	err := s.db.ReadTx(ctx, func(tx *sqlstore.Tx) error {
		var err error
		books.Escrow, err = sqlstore.Map[ledger.AccountID, int64](ctx, tx, "read table escrows", `SELECT id, balance FROM accounts WHERE kind = 'table'`, nil)
		if err != nil {
			return err
		}
		for _, h := range reconcile.Holds(counts) {
			var state string
			err := tx.QueryRowContext(ctx, `SELECT state FROM holds WHERE id = $1`, h).Scan(&state)
			if err != nil && !noRows(err) {
				return fmt.Errorf("read hold %s: %w", h, err)
			}
			books.Committed[h] = HoldState(state) == Committed
		}
		for _, ts := range reconcile.SitDowns(counts) {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM transfers WHERE id = $1`, SitDownTransferID(ts[1])).Scan(&n); err != nil {
				return fmt.Errorf("read the buy-in of sitting %s at %s: %w", ts[1], ts[0], err)
			}
			books.Bought[ts[0]+"/"+ts[1]] = n > 0
		}
		for _, ts := range reconcile.Sittings(counts) {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sittings WHERE table_id = $1 AND id = $2`, ts[0], ts[1]).Scan(&n); err != nil {
				return fmt.Errorf("read sitting %s at %s: %w", ts[1], ts[0], err)
			}
			books.Open[ts[0]+"/"+ts[1]] = n > 0
		}
		return nil
	})
	return books, err
}
