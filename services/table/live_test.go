package table_test

import (
	"testing"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/testkit"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table"
)

// TestLive_DealerEntry_TP34 runs a live table: the dealer enters a single
// oversized chip pushed without a word by the player facing the big blind;
// the service proposes a call (TP-34) with the change returned (the chips
// already in front count, TP-36), and the
// dealer confirms it. Players cannot act from the app at a live table.
func TestLive_DealerEntry_TP34(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, table.DBOptions())
	e := start(t, db, clock.NewFake(t0), seededDecks(3), table.Deps{})
	resp, err := e.c.CreateTable(e.floor(), &tablev1.CreateTableRequest{Name: "Live NL 1/2", Seats: 6,
		Kind: tablev1.TableKind_TABLE_KIND_CASH, Mode: tablev1.TableMode_TABLE_MODE_LIVE, ActionSeconds: -1,
		Game: &gamev1.Game{Variant: gamev1.Variant_VARIANT_HOLDEM, Structure: gamev1.Structure_STRUCTURE_NO_LIMIT, Stakes: &gamev1.Stakes{SmallBlind: 1, BigBlind: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	id := resp.GetTable().GetTableId()
	for i, p := range []string{"ann", "bob", "cat"} {
		e.sit(id, int32(i), p, 200)
	}
	st := e.state(id, "ann")
	who := playerInTurn(st)
	if _, err := e.c.Act(e.player(who), &tablev1.ActRequest{TableId: id, Kind: tablev1.ActionKind_ACTION_KIND_CALL}); reasonOf(err) != "LIVE_TABLE" {
		t.Fatalf("a player acted from the app at a live table: %v", err)
	}
	dealer := e.g.As(t, "dealer-1", auth.Dealer)
	ru, err := e.c.InterpretEntry(dealer, &tablev1.InterpretEntryRequest{TableId: id, ChipsTotal: 25, ChipCount: 1, LargestChip: 25})
	if err != nil {
		t.Fatal(err)
	}
	cited := false
	for _, r := range ru.GetRules() {
		cited = cited || r.GetRuleId() == "TP-34"
	}
	if ru.GetAction() != tablev1.ActionKind_ACTION_KIND_CALL || ru.GetAmount() != 2 || ru.GetReturned() != 25-(2-st.GetSeats()[ru.GetSeat()].GetBet()) || !cited {
		t.Fatalf("TP-34 single chip facing a bet is a call: %v", ru)
	}
	if e.state(id, "ann").GetSequence() != st.GetSequence() {
		t.Fatal("interpreting changed the table")
	}
	seq := ru.GetSequence()
	if _, err := e.c.DealerAction(dealer, &tablev1.DealerActionRequest{TableId: id, Kind: tablev1.DealerActionKind_DEALER_ACTION_KIND_PLAYER_ACTION,
		Seat: ru.GetSeat(), Action: ru.GetAction(), Amount: ru.GetAmount(), ExpectedSequence: &seq}); err != nil {
		t.Fatal(err)
	}
	after := e.state(id, "ann")
	if after.GetSeats()[ru.GetSeat()].GetBet() != 2 || after.GetHand().GetToAct() == ru.GetSeat() {
		t.Fatalf("confirmed call not applied: %v", after)
	}
	// A dealer may not revive a hand: that is the floor's ruling (TP-60).
	if _, err := e.c.DealerAction(dealer, &tablev1.DealerActionRequest{TableId: id, Kind: tablev1.DealerActionKind_DEALER_ACTION_KIND_REVIVE,
		Seat: ru.GetSeat()}); reasonOf(err) != "FLOOR_ONLY" {
		t.Fatalf("dealer revived: %v", err)
	}
}

func reasonOf(err error) string {
	r, _ := reason(err)
	return r
}
