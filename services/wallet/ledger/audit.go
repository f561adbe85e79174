package ledger

import "fmt"

// CurrencyTotals is what the audit found for one currency.
type CurrencyTotals struct {
	Currency Currency
	Debits   Wide // sum of all negative entries, as a positive number
	Credits  Wide // sum of all positive entries
	Balances Wide // sum of all account balances; zero when nothing leaked
}

// Mismatch is an account whose stored balance differs from its entries, or
// that is negative although its kind forbids that.
type Mismatch struct {
	Account  AccountID
	Balance  int64
	EntrySum Wide
	Problem  string
}

// AuditReport proves (or disproves) the ledger's invariants: per currency
// debits equal credits and balances sum to zero; each balance equals the sum
// of its entries; no forbidden account is negative; every transfer balances.
type AuditReport struct {
	Currencies          []CurrencyTotals
	Mismatches          []Mismatch
	UnbalancedTransfers []string
	Accounts            int64
	Transfers           int64
	Entries             int64
}

// Clean reports whether the audit found nothing wrong.
func (r AuditReport) Clean() bool {
	if len(r.Mismatches) > 0 || len(r.UnbalancedTransfers) > 0 {
		return false
	}
	for _, c := range r.Currencies {
		if c.Debits.Cmp(c.Credits) != 0 || c.Balances.Sign() != 0 {
			return false
		}
	}
	return true
}

// Problems lists what is wrong, one line each, for logs and the CLI.
func (r AuditReport) Problems() []string {
	var p []string
	for _, c := range r.Currencies {
		if c.Debits.Cmp(c.Credits) != 0 {
			p = append(p, fmt.Sprintf("%s: debits %s != credits %s", c.Currency, c.Debits, c.Credits))
		}
		if c.Balances.Sign() != 0 {
			p = append(p, fmt.Sprintf("%s: balances sum to %s, not 0", c.Currency, c.Balances))
		}
	}
	for _, m := range r.Mismatches {
		p = append(p, fmt.Sprintf("account %s: %s (balance %d, entries sum %s)", m.Account, m.Problem, m.Balance, m.EntrySum))
	}
	for _, t := range r.UnbalancedTransfers {
		p = append(p, "transfer "+t+" is not balanced")
	}
	return p
}
