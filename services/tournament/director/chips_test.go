package director_test

import (
	"testing"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// TestAddChips_AFailedTryIsMadeAgain_TR14_TR17: a rebuy paid whose chips
// the table could not take (the table service unreachable) has them put
// on the player's stack by the next recovery pass, once: a later pass
// adds nothing, and the audit records them added once.
func TestAddChips_AFailedTryIsMadeAgain_TR14_TR17(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	s, f, d := started(t, db, 27)
	ctx := t.Context()
	x := tablePlayers(t, s, 1)[0]
	const key = "trn/ev1/rebuy/x/1"
	if err := s.Update(ctx, "ev1", func(tx *store.Tx, _ *store.Tournament) error {
		p := entry.Payment{Key: key, Kind: entry.PayRebuy, EventID: "ev1", PlayerID: x, Currency: "EUR", PrizePart: 1000}
		if err := tx.AddPayment(p, 1000, now); err != nil {
			return err
		}
		_, err := tx.SettlePayment(key, true, "transfer-1", "")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	edit(t, s, func(en *entry.Entry) { en.Rebuys++ }, x)
	f.mu.Lock()
	before := f.tables["tbl1"].stacks[x]
	f.fail["add_chips"] = 1
	f.mu.Unlock()
	if err := d.AddChips(ctx, "ev1", x, key, 1000, false); err == nil {
		t.Fatal("the chips were added though the table could not be reached")
	}
	for range 2 {
		if err := d.Recover(ctx, []string{"ev1"}); err != nil {
			t.Fatal(err)
		}
	}
	f.mu.Lock()
	after := f.tables["tbl1"].stacks[x]
	f.mu.Unlock()
	if after != before+1000 {
		t.Fatalf("TR-14: %s's stack %d after the recovery passes, want %d + 1000 once", x, after, before)
	}
	recs, err := s.AuditOf(ctx, "ev1", "chips_added/"+key)
	if err != nil || len(recs) != 1 {
		t.Fatalf("chips_added records %v (%v), want one", recs, err)
	}
}
