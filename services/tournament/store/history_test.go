package store

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
)

// TestPlayerHistoryUsesAnIndex: a player's history (issue 13) finds their
// entries by the index tournament_entries_by_player (migration 00020),
// not by reading every entry of every event the room ever ran, on SQLite
// and on PostgreSQL.
func TestPlayerHistoryUsesAnIndex(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "tournament", Migrations: Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		var plan []string
		err := db.Tx(ctx, func(tx *sqlstore.Tx) error {
			plan = nil
			explain := "EXPLAIN QUERY PLAN "
			if tx.Dialect() == sqlstore.Postgres {
				// The planner scans a table this small whatever its
				// indexes; with scans priced out it scans only when no
				// index serves the query.
				if _, err := tx.ExecContext(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
					return err
				}
				explain = "EXPLAIN "
			}
			rows, err := tx.QueryContext(ctx, explain+historyEntries, "ann")
			if err != nil {
				return err
			}
			defer rows.Close()
			cols, err := rows.Columns()
			if err != nil {
				return err
			}
			for rows.Next() {
				vals := make([]any, len(cols))
				var detail sql.NullString
				for i := range vals {
					vals[i] = new(any)
				}
				vals[len(vals)-1] = &detail // the plan's text is the last column on both
				if err := rows.Scan(vals...); err != nil {
					return err
				}
				plan = append(plan, detail.String)
			}
			return rows.Err()
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(plan, "\n"); !strings.Contains(got, "tournament_entries_by_player") {
			t.Fatalf("a player's entries are read by\n%s\nnot by the index tournament_entries_by_player", got)
		}
	})
}
