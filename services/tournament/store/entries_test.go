package store

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/house"
	"github.com/cardroom/cardroom/services/tournament/standings"
)

// TestEntriesContract runs the entry, payment and draw storage on SQLite
// and PostgreSQL.
func TestEntriesContract(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "tournament", Migrations: Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s := New(db)
		ctx := t.Context()
		now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
		e := event.Event{
			ID: "r1", Name: "Rebuy", Game: "HOLDEM", Structure: "NO_LIMIT", Format: event.Rebuy,
			BuyIn: event.BuyIn{PrizePool: 5000, Fee: 1100, Currency: "EUR"}, StartingStack: 10000,
			StartsAt: now.Add(6 * time.Hour), Status: event.Scheduled, CreatedAt: now,
		}
		rules := house.Rules{Entry: entry.Policy{AddOn: true, LateRegistration: time.Hour}}.WithDefaults(e)
		if err := s.Create(ctx, e, rules); err != nil {
			t.Fatal(err)
		}
		got, err := s.Load(ctx, "r1")
		if err != nil {
			t.Fatal(err)
		}
		if got.Event != e || got.Rules.Entry != rules.Entry || len(got.Rules.Sheet.Levels) != len(rules.Sheet.Levels) ||
			got.Rules.Payouts.Unit != rules.Payouts.Unit || !got.Clock.Started.IsZero() {
			t.Fatalf("Load = %+v", got)
		}
		if _, err := s.Load(ctx, "nope"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Load(unknown) = %v", err)
		}

		ann := entry.Entry{EventID: "r1", PlayerID: "ann", Status: entry.Paying, RegisteredAt: now}
		pay := entry.Payment{Key: "trn/r1/ann/entry/1", Kind: entry.PayEntry, EventID: "r1", PlayerID: "ann", Currency: "EUR", PrizePart: 5000, Fee: 1100, Note: "n"}
		err = s.Update(ctx, "r1", func(tx *Tx, tr *Tournament) error {
			if en, err := tx.Entry("ann"); err != nil || en != nil {
				t.Fatalf("Entry before = %v, %v", en, err)
			}
			if err := tx.PutEntry(ann); err != nil {
				return err
			}
			if err := tx.AddPayment(pay, 0, now); err != nil {
				return err
			}
			// The same step again is a no-op; other content under the key is refused.
			if err := tx.AddPayment(pay, 0, now); err != nil {
				return err
			}
			other := pay
			other.PrizePart = 1
			if err := tx.AddPayment(other, 0, now); !errors.Is(err, ErrKeyReused) {
				t.Fatalf("key reuse = %v", err)
			}
			tr.Event.Status = event.Running
			tr.Clock.Started = now
			tr.HandForHand.Start([]string{"1", "2"})
			tr.PendingKnockouts = []standings.Knockout{{PlayerID: "x", TableID: "2", Hand: 7, StartStack: 900}}
			tr.Rules.Payouts.Unit = 500
			tr.RebuyHands = map[int]int{2: 3}
			return tx.AddDraw("seats", map[string]int{"ann": 3}, now)
		})
		if err != nil {
			t.Fatal(err)
		}
		err = s.Update(ctx, "r1", func(tx *Tx, tr *Tournament) error {
			if tr.Event.Status != event.Running || !tr.Clock.Started.Equal(now) || !tr.HandForHand.Active ||
				len(tr.HandForHand.Tables) != 2 || tr.Rules.Payouts.Unit != 500 || len(tr.PendingKnockouts) != 1 || tr.PendingKnockouts[0].StartStack != 900 || tr.RebuyHands[2] != 3 {
				t.Fatalf("status/clock/hand-for-hand/rules not written back: %+v", tr)
			}
			tr.HandForHand.Stop()
			tr.PendingKnockouts = nil
			pending, err := tx.PendingPayments("ann")
			if err != nil || len(pending) != 1 || pending[0].Payment != pay || pending[0].State != PaymentPending {
				t.Fatalf("PendingPayments = %+v, %v", pending, err)
			}
			if n, err := tx.Entrants(); err != nil || n != 1 {
				t.Fatalf("Entrants = %d, %v", n, err)
			}
			if ok, err := tx.SettlePayment(pay.Key, true, "tr-1", ""); err != nil || !ok {
				t.Fatalf("SettlePayment = %v, %v", ok, err)
			}
			if ok, err := tx.SettlePayment(pay.Key, false, "", "late"); err != nil || ok {
				t.Fatalf("second settle = %v, %v (want no-op)", ok, err)
			}
			en, err := tx.Entry("ann")
			if err != nil {
				return err
			}
			en.Paid("tr-1")
			en.Table, en.Seat = 1, 3
			return tx.PutEntry(*en)
		})
		if err != nil {
			t.Fatal(err)
		}
		// A refused step may be tried again under its key, with new content.
		refused := entry.Payment{Key: "trn/r1/bob/entry/1", Kind: entry.PayEntry, EventID: "r1", PlayerID: "bob", Currency: "EUR", PrizePart: 5000, Fee: 1100}
		err = s.Update(ctx, "r1", func(tx *Tx, _ *Tournament) error {
			if err := tx.AddPayment(refused, 0, now); err != nil {
				return err
			}
			if _, err := tx.SettlePayment(refused.Key, false, "", "insufficient funds"); err != nil {
				return err
			}
			withVoucher := refused
			withVoucher.VoucherID = "v1"
			if err := tx.AddPayment(withVoucher, 0, now); err != nil {
				return err
			}
			got, ok, err := tx.Payment(refused.Key)
			if err != nil || !ok || got.State != PaymentPending || got.VoucherID != "v1" || got.Failure != "" {
				t.Fatalf("retried refused payment = %+v, %v, %v", got, ok, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		ens, err := s.Entries(ctx, "r1")
		if err != nil || len(ens) != 1 || ens[0].Status != entry.Active || ens[0].TransferID != "tr-1" || ens[0].Seat != 3 {
			t.Fatalf("Entries = %+v, %v", ens, err)
		}
		pool, n, err := s.Contributions(ctx, "r1")
		if err != nil || pool != 5000 || n != 1 {
			t.Fatalf("Contributions = %d, %d, %v", pool, n, err)
		}
		if err := s.Update(ctx, "r1", func(tx *Tx, _ *Tournament) error { return tx.Withdraw(pay.Key) }); err != nil {
			t.Fatal(err)
		}
		if pool, _, _ := s.Contributions(ctx, "r1"); pool != 0 {
			t.Fatalf("a withdrawn payment still counts: pool %d", pool)
		}
		draws, err := s.Draws(ctx, "r1")
		var rec map[string]int
		if err != nil || len(draws) != 1 || draws[0].Kind != "seats" || json.Unmarshal(draws[0].Record, &rec) != nil || rec["ann"] != 3 {
			t.Fatalf("Draws = %+v, %v", draws, err)
		}
		// A failing fn rolls everything back.
		boom := fault.New(fault.Precondition, "BOOM", "boom")
		err = s.Update(ctx, "r1", func(tx *Tx, tr *Tournament) error {
			tr.Event.Status = event.Cancelled
			_ = tx.AddDraw("button", 1, now)
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("Update = %v", err)
		}
		if got, _ := s.Load(ctx, "r1"); got.Event.Status != event.Running || got.HandForHand.Active {
			t.Fatalf("failed update wrote the status, or hand-for-hand did not stop: %+v", got)
		}
		if d, _ := s.Draws(ctx, "r1"); len(d) != 1 {
			t.Fatal("failed update wrote a draw")
		}
	})
}
