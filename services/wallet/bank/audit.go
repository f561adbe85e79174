package bank

import (
	"context"
	"fmt"

	"github.com/cardroom/cardroom/services/wallet/ledger"
	"github.com/cardroom/cardroom/services/wallet/reconcile"
)

// ChipCounter counts the chips on the cash tables, with each table's
// wallet steps still pending (the table service, from its store).
type ChipCounter interface {
	// CountCash counts every open cash table and every closed one with a
	// wallet step pending, each from one snapshot.
	CountCash(ctx context.Context) ([]reconcile.TableCount, error)
}

// Check is a further check the audit runs and whose problems it reports:
// the hook for the tournaments' chip conservation (chips issued = chips on
// the event's tables + in transit), which the tournament service proves.
type Check func(ctx context.Context) (problems []string, err error)

// AuditReport is what the audit found: the ledger's own invariants, each
// cash table's escrow against its chips, and the further checks.
type AuditReport struct {
	Ledger ledger.AuditReport
	// TablesReconciled is false when the tables could not be counted
	// (TablesError says why); the audit is then not clean.
	TablesReconciled bool
	TablesError      error
	Tables           reconcile.Report
	// Checks are the further checks' problems.
	Checks []string
}

// Clean reports whether the audit proved everything and found nothing wrong.
func (r AuditReport) Clean() bool {
	return r.Ledger.Clean() && r.TablesReconciled && r.Tables.Clean() && len(r.Checks) == 0
}

// Problems lists what is wrong, one line each.
func (r AuditReport) Problems() []string {
	p := r.Ledger.Problems()
	if !r.TablesReconciled {
		p = append(p, fmt.Sprintf("tables not reconciled: %v", r.TablesError))
	}
	p = append(p, r.Tables.Problems...)
	return append(p, r.Checks...)
}

// reconcileAttempts is how often the audit counts again when a table's
// escrow differs: the table service's count and the wallet's books are
// two snapshots, and a sit-down or cash-out committed between them shows
// as a difference that the next count no longer has. A real one stays.
const reconcileAttempts = 3

// Audit proves the books: the ledger's invariants (store.Audit), each cash
// table's escrow against the chips the table service counts there
// (reconcile), and the further checks.
func (b *Bank) Audit(ctx context.Context, checks ...Check) (AuditReport, error) {
	var r AuditReport
	var err error
	if r.Ledger, err = b.store.Audit(ctx); err != nil {
		return AuditReport{}, err
	}
	if b.tables == nil {
		r.TablesError = fmt.Errorf("no table service to count the tables' chips")
	} else {
		r.Tables, r.TablesError = b.reconcile(ctx)
		r.TablesReconciled = r.TablesError == nil
	}
	for _, check := range checks {
		problems, err := check(ctx)
		if err != nil {
			return AuditReport{}, err
		}
		r.Checks = append(r.Checks, problems...)
	}
	return r, nil
}

func (b *Bank) reconcile(ctx context.Context) (reconcile.Report, error) {
	var r reconcile.Report
	for range reconcileAttempts {
		counts, err := b.tables.CountCash(ctx)
		if err != nil {
			return reconcile.Report{}, fmt.Errorf("count the tables' chips: %w", err)
		}
		books, err := b.store.TableBooks(ctx, counts)
		if err != nil {
			return reconcile.Report{}, err
		}
		r = reconcile.Reconcile(counts, books)
		if r.Clean() || len(r.Stuck) > 0 && onlyStuck(r) {
			return r, nil
		}
	}
	return r, nil
}

// onlyStuck reports whether every problem of r is a stuck cash-out (which
// counting again does not change).
func onlyStuck(r reconcile.Report) bool {
	for _, l := range r.Lines {
		if !l.Matches() {
			return false
		}
	}
	return len(r.Problems) == len(r.Stuck)
}

// StuckCashOuts lists the cash-outs the tables retried past their limit,
// oldest first, for the cage.
func (b *Bank) StuckCashOuts(ctx context.Context) ([]reconcile.Stuck, error) {
	if b.tables == nil {
		return nil, fmt.Errorf("no table service to ask for stuck cash-outs")
	}
	counts, err := b.tables.CountCash(ctx)
	if err != nil {
		return nil, fmt.Errorf("count the tables' chips: %w", err)
	}
	return reconcile.Reconcile(counts, reconcile.Books{}).Stuck, nil
}
