package reconcile_test

import (
	"strings"
	"testing"

	"github.com/cardroom/cardroom/services/wallet/ledger"
	"github.com/cardroom/cardroom/services/wallet/reconcile"
)

func TestReconcile(t *testing.T) {
	t.Parallel()
	esc := func(table string) ledger.AccountID { return ledger.TableAccount(table, "EUR") }
	tests := []struct {
		name     string
		counts   []reconcile.TableCount
		books    reconcile.Books
		clean    bool
		problem  string // a problem line contains it
		expected int64  // of the first line
		stuck    int
	}{
		{"quiet table", []reconcile.TableCount{{Table: "T1", Currency: "EUR", Chips: 20000}},
			reconcile.Books{Escrow: map[ledger.AccountID]int64{esc("T1"): 20000}}, true, "", 20000, 0},
		{"buy-in not yet committed is in the hold account", []reconcile.TableCount{{Table: "T1", Currency: "EUR", Chips: 30000,
			Pending: []reconcile.Move{{Kind: reconcile.BuyIn, Amount: 10000, Hold: "h1"}}}},
			reconcile.Books{Escrow: map[ledger.AccountID]int64{esc("T1"): 20000}}, true, "", 20000, 0},
		{"buy-in committed but not marked done at the table", []reconcile.TableCount{{Table: "T1", Currency: "EUR", Chips: 30000,
			Pending: []reconcile.Move{{Kind: reconcile.BuyIn, Amount: 10000, Hold: "h1"}}}},
			reconcile.Books{Escrow: map[ledger.AccountID]int64{esc("T1"): 30000}, Committed: map[string]bool{"h1": true}}, true, "", 30000, 0},
		{"one-step sit-down not yet bought is in the player's account", []reconcile.TableCount{{Table: "T1", Currency: "EUR", Chips: 30000,
			Pending: []reconcile.Move{{Kind: reconcile.BuyIn, Amount: 10000, Sitting: "sit_1"}}}},
			reconcile.Books{Escrow: map[ledger.AccountID]int64{esc("T1"): 20000}, Bought: map[string]bool{"T1/sit_1": false}}, true, "", 20000, 0},
		{"one-step sit-down bought but not marked paid at the table", []reconcile.TableCount{{Table: "T1", Currency: "EUR", Chips: 30000,
			Pending: []reconcile.Move{{Kind: reconcile.BuyIn, Amount: 10000, Sitting: "sit_1"}}}},
			reconcile.Books{Escrow: map[ledger.AccountID]int64{esc("T1"): 30000}, Bought: map[string]bool{"T1/sit_1": true}}, true, "", 30000, 0},
		{"a bought sit-down is not another table's", []reconcile.TableCount{{Table: "T1", Currency: "EUR", Chips: 30000,
			Pending: []reconcile.Move{{Kind: reconcile.BuyIn, Amount: 10000, Sitting: "sit_1"}}}},
			reconcile.Books{Escrow: map[ledger.AccountID]int64{esc("T1"): 30000}, Bought: map[string]bool{"T2/sit_1": true}}, false, "20000 expected", 20000, 0},
		{"cash-out not yet paid is still in escrow", []reconcile.TableCount{{Table: "T1", Currency: "EUR", Chips: 10000,
			Pending: []reconcile.Move{{Kind: reconcile.CashOut, Amount: 10300, Sitting: "s1"}}}},
			reconcile.Books{Escrow: map[ledger.AccountID]int64{esc("T1"): 20300}, Open: map[string]bool{"T1/s1": true}}, true, "", 20300, 0},
		{"cash-out paid, not yet marked done", []reconcile.TableCount{{Table: "T1", Currency: "EUR", Chips: 10000,
			Pending: []reconcile.Move{{Kind: reconcile.CashOut, Amount: 10300, Sitting: "s1"}}}},
			reconcile.Books{Escrow: map[ledger.AccountID]int64{esc("T1"): 10000}}, true, "", 10000, 0},
		{"issue 9: chips stuck in escrow", []reconcile.TableCount{{Table: "T1", Currency: "EUR", Chips: 10000,
			Pending: []reconcile.Move{{Kind: reconcile.CashOut, Player: "ann", Amount: 4000, Sitting: "s2", Attempts: 40, Stuck: true, LastError: "NOT_SEATED"}}}},
			reconcile.Books{Escrow: map[ledger.AccountID]int64{esc("T1"): 14000}, Open: map[string]bool{}}, false, "stuck after 40 attempts", 10000, 1},
		{"escrow differs", []reconcile.TableCount{{Table: "T1", Currency: "EUR", Chips: 10000}},
			reconcile.Books{Escrow: map[ledger.AccountID]int64{esc("T1"): 10001}}, false, "10000 expected", 10000, 0},
		{"escrow with no table counted", nil,
			reconcile.Books{Escrow: map[ledger.AccountID]int64{esc("T9"): 500}}, false, "counts no open table", 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := reconcile.Reconcile(tc.counts, tc.books)
			if r.Clean() != tc.clean || len(r.Stuck) != tc.stuck {
				t.Fatalf("clean %v, stuck %d; problems %v", r.Clean(), len(r.Stuck), r.Problems)
			}
			if tc.problem != "" && !strings.Contains(strings.Join(r.Problems, "\n"), tc.problem) {
				t.Fatalf("problems %v, want one with %q", r.Problems, tc.problem)
			}
			if len(r.Lines) > 0 && r.Lines[0].Expected != tc.expected {
				t.Fatalf("expected escrow %d, want %d", r.Lines[0].Expected, tc.expected)
			}
		})
	}
}
