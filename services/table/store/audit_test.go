package store

import (
	"slices"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
)

// TestAuditLogKeepsTheRecordedOrder_TP02: a table's rulings (TP-02, TP-60,
// the out-of-turn rulings of TP-46…TP-52) come back in the order they were
// recorded, though one entry records several in the same millisecond and
// ids are random — here chosen to sort the other way — and another table's
// rulings are recorded in between.
func TestAuditLogKeepsTheRecordedOrder_TP02(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "table", Migrations: Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s := New(db)
		ctx := t.Context()
		at := time.Date(2026, 11, 30, 21, 0, 0, 0, time.UTC)
		record := func(table string, ids ...string) {
			t.Helper()
			if err := db.Tx(ctx, func(tx *sqlstore.Tx) error {
				for _, id := range ids {
					if err := s.AddAudit(ctx, tx, Audit{ID: id, TableID: table, HandNo: 7, Actor: "dealer-1", Role: "dealer",
						Action: "out_of_turn:pending:TP-50", Seat: 3, Reason: "re-ruled", At: at, RuleIDs: []string{"TP-46", "TP-50"}}); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		record("t1", "z1", "m1")
		record("t2", "b2", "a2")
		record("t1", "a1")
		for table, want := range map[string][]string{"t1": {"z1", "m1", "a1"}, "t2": {"b2", "a2"}} {
			log, err := s.AuditLog(ctx, table)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range log {
				got = append(got, a.ID)
				if !slices.Equal(a.RuleIDs, []string{"TP-46", "TP-50"}) {
					t.Errorf("%s's ruling %s names the rules %v", table, a.ID, a.RuleIDs)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s's rulings %v, want %v (as recorded)", table, got, want)
			}
		}
	})
}
