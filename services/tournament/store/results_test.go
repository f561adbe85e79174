package store

import (
	"slices"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/house"
	"github.com/cardroom/cardroom/services/tournament/standings"
)

// TestResultsContract stores places, penalties and prize steps on SQLite
// and PostgreSQL.
func TestResultsContract(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "tournament", Migrations: Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s := New(db)
		ctx := t.Context()
		now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
		e := event.Event{ID: "f1", Name: "F", Game: "HOLDEM", Structure: "NO_LIMIT", Format: event.Freezeout,
			BuyIn: event.BuyIn{PrizePool: 5000, Fee: 1100, Currency: "EUR"}, StartingStack: 10000, StartsAt: now, Status: event.Running, CreatedAt: now}
		if err := s.Create(ctx, e, house.Rules{}.WithDefaults(e)); err != nil {
			t.Fatal(err)
		}
		want := []standings.Finish{{PlayerID: "c", Place: 3, Shared: 1}, {PlayerID: "a", Place: 1, Shared: 2, Removed: true}, {PlayerID: "b", Place: 1, Shared: 2}}
		pen := standings.Penalty{Type: standings.MissedHands, Reason: "phone", IssuedBy: "floor-1", Hand: 42, Rounds: 2, HandsToMiss: 14, Override: true, Issued: now}
		prize := entry.Payment{Key: "trn/f1/b/prize/1", Kind: entry.PayPrize, EventID: "f1", PlayerID: "b", Currency: "EUR", Amount: 7000, Place: 1}
		bounty := entry.Payment{Key: "trn/f1/c/bounty/1/b", Kind: entry.PayBounty, EventID: "f1", PlayerID: "b", Currency: "EUR", Amount: 1250}
		err := s.Update(ctx, "f1", func(tx *Tx, _ *Tournament) error {
			if err := tx.PutEntry(entry.Entry{EventID: "f1", PlayerID: "a", Status: entry.Active, RegisteredAt: now, HandsToMiss: 14, Left: true}); err != nil {
				return err
			}
			if err := tx.AddFinishes(want[:1], now); err != nil {
				return err
			}
			if err := tx.AddFinishes(want[1:], now); err != nil {
				return err
			}
			if err := tx.AddPenalty("a", standings.Penalty{Type: standings.Warning, Reason: "language", IssuedBy: "floor-1", Issued: now}); err != nil {
				return err
			}
			if err := tx.AddPenalty("a", pen); err != nil {
				return err
			}
			if err := tx.AddAudit("admin-1", "update", map[string]string{"reason": "typo"}, now); err != nil {
				return err
			}
			if err := tx.PutEntry(entry.Entry{EventID: "f1", PlayerID: "b", Status: entry.Active, RegisteredAt: now}); err != nil {
				return err
			}
			if err := tx.AddPayment(bounty, 0, now); err != nil {
				return err
			}
			return tx.AddPayment(prize, 0, now)
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Results(ctx, "f1")
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("Results = %+v, %v", got, err)
		}
		err = s.Update(ctx, "f1", func(tx *Tx, _ *Tournament) error {
			ps, err := tx.Penalties("a")
			if err != nil || len(ps) != 2 || ps[1] != pen || ps[0].Type != standings.Warning {
				t.Fatalf("Penalties = %+v, %v", ps, err)
			}
			en, err := tx.Entry("a")
			if err != nil || en.HandsToMiss != 14 || !en.Left {
				t.Fatalf("entry = %+v, %v", en, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// A player's history (issue 13): place, prize and bounty apart.
		hist, err := s.PlayerHistory(ctx, "b")
		if err != nil || len(hist) != 1 || hist[0].Place != 1 || hist[0].Prize != 7000 || hist[0].Bounties != 1250 {
			t.Fatalf("PlayerHistory(b) = %+v, %v", hist, err)
		}
		if hist, err := s.PlayerHistory(ctx, "a"); err != nil || len(hist) != 1 || len(hist[0].Penalties) != 2 || hist[0].Prize != 0 {
			t.Fatalf("PlayerHistory(a) = %+v, %v", hist, err)
		}
		if all, err := s.PendingPayments(ctx); err != nil || len(all) != 2 {
			t.Fatalf("PendingPayments = %+v, %v", all, err)
		}
		pays, err := s.Payments(ctx, "f1", int(entry.PayPrize), int(entry.PayVoucher))
		if err != nil || len(pays) != 1 || pays[0].Payment != prize || pays[0].State != PaymentPending {
			t.Fatalf("Payments = %+v, %v", pays, err)
		}
	})
}

func TestAuditContract(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "tournament", Migrations: Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s := New(db)
		ctx := t.Context()
		now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
		e := event.Event{ID: "a1", Name: "A", Game: "HOLDEM", Structure: "NO_LIMIT", Format: event.Freezeout,
			BuyIn: event.BuyIn{PrizePool: 5000, Currency: "EUR"}, StartingStack: 10000, StartsAt: now.Add(time.Hour), Status: event.Scheduled, CreatedAt: now}
		if err := s.Create(ctx, e, house.Rules{}.WithDefaults(e)); err != nil {
			t.Fatal(err)
		}
		err := s.Update(ctx, "a1", func(tx *Tx, tr *Tournament) error {
			tr.Event.Name, tr.Event.StartsAt = "B", now.Add(2*time.Hour)
			if err := tx.AddAudit("admin-1", "update", map[string]string{"reason": "later"}, now); err != nil {
				return err
			}
			return tx.AddAudit("admin-2", "cancel", map[string]string{"reason": "storm"}, now.Add(time.Minute))
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Load(ctx, "a1")
		if err != nil || got.Event.Name != "B" || !got.Event.StartsAt.Equal(now.Add(2*time.Hour)) {
			t.Fatalf("TR-03 change not stored: %+v, %v", got.Event, err)
		}
		log, err := s.Audit(ctx, "a1")
		if err != nil || len(log) != 2 || log[0].Actor != "admin-1" || log[1].Action != "cancel" || string(log[1].Detail) != `{"reason":"storm"}` || log[0].Seq != 1 {
			t.Fatalf("Audit = %+v, %v", log, err)
		}
	})
}
