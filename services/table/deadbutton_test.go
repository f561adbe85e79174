package table_test

import (
	"testing"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table"
)

// TestDeadButtonIsSaid_G05_TR21: on a tournament table the button follows
// the dead-button rule (TR-21, G-05). Four entrants, the button drawn at
// seat 0: hand 1 has the small blind at seat 1 and the big at seat 2. The
// player in seat 1 is moved to another table during hand 1, so hand 2's
// big blind advances to seat 3, seat 2 posts the small blind and the
// button rests in front of seat 1, now empty. The table state during hand 2
// and hand 2's history both say so (button 1, button_dead) — the issue's
// app saw the same seat as button two hands running without being told it
// was dead — and hand 1's do not.
func TestDeadButtonIsSaid_G05_TR21(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, table.DBOptions(), func(t *testing.T, db *sqlstore.DB) {
		e := startTour(t, db, clock.NewFake(t0))
		svc := e.svc()
		const ev = "dead"
		t1, t2 := e.openTable(ev, 1, tablev1.TableMode_TABLE_MODE_DIGITAL), e.openTable(ev, 2, tablev1.TableMode_TABLE_MODE_DIGITAL)
		for _, id := range []string{t1, t2} {
			if _, err := e.tc.SetLevels(svc, &tablev1.SetLevelsRequest{TableId: id, Revision: 1, Levels: levelsAt(t0)}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.tc.HoldDealing(svc, &tablev1.HoldDealingRequest{TableId: t1, Hold: &tablev1.DealingHold{HoldId: "seating",
			Reason: tablev1.HoldReason_HOLD_REASON_FLOOR}}); err != nil {
			t.Fatal(err)
		}
		for i, p := range []string{"ann", "bob", "cat", "dan"} {
			e.seat(t1, p, int32(i), 1000)
		}
		if _, err := e.tc.SetButton(svc, &tablev1.SetButtonRequest{TableId: t1, IdempotencyKey: "button/1", Seat: 0}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.tc.ReleaseDealing(svc, &tablev1.ReleaseDealingRequest{TableId: t1, HoldId: "seating"}); err != nil {
			t.Fatal(err)
		}
		said := func(no int64) *tablev1.HandHistory {
			t.Helper()
			resp, err := e.c.GetHandHistory(e.floor(), &tablev1.GetHandHistoryRequest{TableId: t1, HandNo: no,
				Format: tablev1.HistoryFormat_HISTORY_FORMAT_JSON})
			if err != nil {
				t.Fatalf("hand %d's history: %v", no, err)
			}
			return resp.GetHistory()
		}

		h1 := e.state(t1, "nobody").GetHand()
		if h1.GetHandNo() != 1 || h1.GetButton() != 0 || h1.GetButtonDead() {
			t.Fatalf("hand 1: no %d, button %d, dead %v; want 1, 0, false", h1.GetHandNo(), h1.GetButton(), h1.GetButtonDead())
		}
		if _, err := e.tc.MoveOut(svc, &tablev1.MoveOutRequest{TableId: t1, MoveId: "trn/dead/move/1", PlayerId: "bob",
			ToTableId: t2, ToSeat: 0}); err != nil {
			t.Fatal(err)
		}
		e.finishHand(t1)
		if h := said(1); h.GetButton() != 0 || h.GetButtonDead() {
			t.Fatalf("hand 1's history: button %d, dead %v; want 0, false", h.GetButton(), h.GetButtonDead())
		}

		h2 := e.state(t1, "nobody").GetHand()
		if h2.GetHandNo() != 2 || h2.GetButton() != 1 || !h2.GetButtonDead() {
			t.Fatalf("G-05: hand 2 after seat 1 left: no %d, button %d, dead %v; want 2, 1 (the empty seat), true",
				h2.GetHandNo(), h2.GetButton(), h2.GetButtonDead())
		}
		e.finishHand(t1)
		if h := said(2); h.GetButton() != 1 || !h.GetButtonDead() {
			t.Fatalf("G-05: hand 2's history: button %d, dead %v; want 1, true", h.GetButton(), h.GetButtonDead())
		}
	})
}
