package store

import (
	"fmt"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/house"
)

// TestAttachTable checks the table links on both dialects: a table plays
// one tournament table at a time and the latest attachment wins, and
// UpdateIn writes inside a transaction the caller holds.
func TestAttachTable(t *testing.T) {
	t.Parallel()
	opts := sqlstore.Options{Service: "tournament", Migrations: Migrations(), Shared: []sqlstore.MigrationSet{events.Migrations}}
	testkit.EachStore(t, opts, func(t *testing.T, db *sqlstore.DB) {
		s := New(db)
		ctx := t.Context()
		at := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
		for _, id := range []string{"t1", "t2"} {
			e := event.Event{ID: id, Name: id, Game: "HOLDEM", Structure: "NO_LIMIT", Format: event.Freezeout,
				BuyIn: event.BuyIn{PrizePool: 5000, Fee: 1100, Currency: "EUR"}, StartingStack: 20000, StartsAt: at,
				Status: event.Running, CreatedAt: at}
			if err := s.Create(ctx, e, house.Rules{}.WithDefaults(e)); err != nil {
				t.Fatal(err)
			}
		}
		attach := func(id string, no int, table string) {
			t.Helper()
			if err := s.Update(ctx, id, func(tx *Tx, _ *Tournament) error { return tx.AttachTable(no, table, at) }); err != nil {
				t.Fatal(err)
			}
		}
		link := func(table string) string {
			t.Helper()
			l, ok, err := s.TableLink(ctx, table)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				return "-"
			}
			return fmt.Sprintf("%s/%d", l.TournamentID, l.Table)
		}
		attach("t1", 1, "a")
		attach("t1", 1, "a") // a repeat
		attach("t1", 2, "b")
		attach("t2", 1, "c")
		if got := link("a") + " " + link("b") + " " + link("c") + " " + link("cash"); got != "t1/1 t1/2 t2/1 -" {
			t.Fatalf("links %s", got)
		}
		attach("t1", 2, "d") // table 2 moves to d: b is forgotten
		attach("t2", 3, "a") // a moves to another event
		if got := link("a") + " " + link("b") + " " + link("d"); got != "t2/3 - t1/2" {
			t.Fatalf("after re-attaching: %s", got)
		}
		err := db.Tx(ctx, func(tx *sqlstore.Tx) error {
			return s.UpdateIn(ctx, tx, "t1", func(_ *Tx, tr *Tournament) error { tr.Event.Name = "renamed"; return nil })
		})
		if got, _ := s.Get(ctx, "t1"); err != nil || got.Name != "renamed" {
			t.Fatalf("UpdateIn: %v, name %q", err, got.Name)
		}
	})
}
