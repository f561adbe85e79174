// Package reconcile proves that the chips the wallet keeps in each cash
// table's escrow are the chips the table service counts on that table. It
// is pure: the bank gathers the table service's count and the wallet's
// books, and Reconcile compares them.
//
// A table's escrow must hold every chip the table shows, less the chips of
// buy-ins and top-ups the wallet has not committed yet (those still sit in
// the table's hold account, or for a one-step sit-down in the player's
// account), plus the cash-outs the table recorded that
// the wallet has not paid yet (those chips left the table's view but not
// its escrow). A step in flight is told apart by the wallet's own books:
// a buy-in's hold is committed or not, a one-step sit-down's transfer is
// posted or not, a cash-out's sitting is open or ended, so the count is
// exact, not a tolerance.
package reconcile

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cardroom/cardroom/services/wallet/ledger"
)

// MoveKind is the kind of a table's wallet step.
type MoveKind string

// Kinds of wallet steps.
const (
	BuyIn   MoveKind = "buy_in"
	TopUp   MoveKind = "top_up"
	CashOut MoveKind = "cash_out"
)

// Move is a wallet step a table recorded and has not finished.
type Move struct {
	Key    string
	Kind   MoveKind
	Player string
	Seat   int
	Amount int64
	Hold   string // the hold a buy-in or top-up commits; none for a one-step sit-down
	// Sitting is the sitting a cash-out ends, or the one a one-step
	// sit-down (a buy-in without a hold) buys.
	Sitting string
	// Attempts counts the failed wallet calls; Stuck is true once the
	// table gave up counting on a quick success (it still retries).
	Attempts    int
	Stuck       bool
	LastError   string
	Created     time.Time
	LastAttempt time.Time
}

// TableCount is the table service's count of one cash table.
type TableCount struct {
	Table    string
	Currency ledger.Currency
	Closed   bool
	// Chips is every chip the table shows: stacks, chips pending, the pot.
	Chips   int64
	Pending []Move
}

// Books is what the wallet's ledger says about the tables, read in one
// transaction.
type Books struct {
	// Escrow is the balance of every table escrow account that is not
	// zero, and of every one a counted table names.
	Escrow map[ledger.AccountID]int64
	// Committed holds the IDs of the holds the wallet committed, among
	// those the pending moves name.
	Committed map[string]bool
	// Bought holds, as table + "/" + sitting, whether the wallet posted
	// the buy-in of each one-step sit-down the pending moves name.
	Bought map[string]bool
	// Open holds the open sittings among those the pending cash-outs name,
	// as table + "/" + sitting.
	Open map[string]bool
}

// Line is one table's reconciliation.
type Line struct {
	Table       string
	Currency    ledger.Currency
	Escrow      int64
	OnTable     int64
	Uncommitted int64
	Unpaid      int64
	Expected    int64
}

// Matches reports whether the escrow holds what the table says it should.
func (l Line) Matches() bool { return l.Escrow == l.Expected }

// Stuck is a cash-out retried past the table's limit.
type Stuck struct {
	Table string
	Move
}

// Report is the reconciliation of every cash table.
type Report struct {
	Lines []Line
	Stuck []Stuck
	// Problems lists what is wrong, one line each: an escrow that differs
	// from its table's chips, an escrow with no table counted, a stuck
	// cash-out.
	Problems []string
}

// Clean reports whether nothing is wrong.
func (r Report) Clean() bool { return len(r.Problems) == 0 }

// Reconcile compares the tables' counts with the wallet's books.
func Reconcile(counts []TableCount, books Books) Report {
	var r Report
	seen := map[ledger.AccountID]bool{}
	for _, c := range counts {
		seen[ledger.TableAccount(c.Table, c.Currency)] = true
		l := reconcileTable(c, books, &r)
		if !l.Matches() {
			r.Problems = append(r.Problems, fmt.Sprintf("table %s: escrow %d %s, but the table shows %d chips, %d of them not yet committed, and %d cashed out not yet paid: %d expected",
				c.Table, l.Escrow, c.Currency, l.OnTable, l.Uncommitted, l.Unpaid, l.Expected))
		}
		r.Lines = append(r.Lines, l)
	}
	var orphans []string
	for account, balance := range books.Escrow {
		if !seen[account] && balance != 0 {
			orphans = append(orphans, fmt.Sprintf("%s: escrow %d, but the table service counts no open table or pending step there", account, balance))
		}
	}
	slices.Sort(orphans)
	r.Problems = append(r.Problems, orphans...)
	slices.SortFunc(r.Stuck, func(a, b Stuck) int { return a.Created.Compare(b.Created) })
	return r
}

// reconcileTable is table c's line: its escrow against its chips, less
// the buy-ins the wallet has not taken yet, plus the cash-outs it has not
// paid yet. Its stuck cash-outs go into r.
func reconcileTable(c TableCount, books Books, r *Report) Line {
	l := Line{Table: c.Table, Currency: c.Currency, Escrow: books.Escrow[ledger.TableAccount(c.Table, c.Currency)], OnTable: c.Chips}
	for _, m := range c.Pending {
		switch {
		case m.sitDown() && !books.Bought[c.Table+"/"+m.Sitting]:
			l.Uncommitted += m.Amount
		case (m.Kind == BuyIn || m.Kind == TopUp) && !m.sitDown() && !books.Committed[m.Hold]:
			l.Uncommitted += m.Amount
		case m.Kind == CashOut:
			if books.Open[c.Table+"/"+m.Sitting] {
				l.Unpaid += m.Amount
			}
			if m.Stuck {
				r.Stuck = append(r.Stuck, Stuck{Table: c.Table, Move: m})
				r.Problems = append(r.Problems, fmt.Sprintf("table %s: cash-out of %s from seat %d (%d, sitting %s) stuck after %d attempts: %s",
					c.Table, m.Player, m.Seat, m.Amount, m.Sitting, m.Attempts, m.LastError))
			}
		}
	}
	l.Expected = l.OnTable - l.Uncommitted + l.Unpaid
	return l
}

// Holds lists the hold IDs the counts' pending buy-ins and top-ups name,
// for the bank to look up.
func Holds(counts []TableCount) []string {
	var out []string
	for _, c := range counts {
		for _, m := range c.Pending {
			if (m.Kind == BuyIn || m.Kind == TopUp) && m.Hold != "" {
				out = append(out, m.Hold)
			}
		}
	}
	return out
}

// sitDown reports whether m is a one-step sit-down: a buy-in that names
// the sitting it buys and no hold.
func (m Move) sitDown() bool { return m.Kind == BuyIn && m.Hold == "" && m.Sitting != "" }

// SitDowns lists the (table, sitting) pairs the counts' pending one-step
// sit-downs name, for the bank to look up.
func SitDowns(counts []TableCount) [][2]string {
	var out [][2]string
	for _, c := range counts {
		for _, m := range c.Pending {
			if m.sitDown() {
				out = append(out, [2]string{c.Table, m.Sitting})
			}
		}
	}
	return out
}

// Sittings lists the (table, sitting) pairs the counts' pending cash-outs
// name, for the bank to look up.
func Sittings(counts []TableCount) [][2]string {
	var out [][2]string
	for _, c := range counts {
		for _, m := range c.Pending {
			if m.Kind == CashOut {
				out = append(out, [2]string{c.Table, m.Sitting})
			}
		}
	}
	return out
}

// String renders a line for the CLI.
func (l Line) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "table %s: escrow %d %s, on the table %d", l.Table, l.Escrow, l.Currency, l.OnTable)
	if l.Uncommitted != 0 {
		fmt.Fprintf(&b, ", not yet committed %d", l.Uncommitted)
	}
	if l.Unpaid != 0 {
		fmt.Fprintf(&b, ", cashed out not yet paid %d", l.Unpaid)
	}
	if l.Matches() {
		b.WriteString(": matches")
	} else {
		fmt.Fprintf(&b, ": DIFFERS (expected %d)", l.Expected)
	}
	return b.String()
}
