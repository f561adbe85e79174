package table_test

import (
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/testkit"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table"
)

// TestHandEnded_StartStacks_TR37: table.hand_ended gives every seat's
// stack when the hand started as well as after it: a tournament places
// players busted in the same hand by their starting stacks (TR-37).
func TestHandEnded_StartStacks_TR37(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, table.DBOptions())
	e := start(t, db, clock.NewFake(t0), seededDecks(12), table.Deps{})
	sat := map[string]int64{"ann": 1000, "bob": 2000, "cat": 3000}
	id := e.openTournament("e1", tablev1.TableMode_TABLE_MODE_DIGITAL, &gamev1.Stakes{SmallBlind: 25, BigBlind: 50},
		[]string{"ann", "bob", "cat"}, false, 1000, 2000, 3000)
	e.playHands(id, []string{"ann", "bob", "cat"}, rand.New(rand.NewPCG(3, 4)), 2)

	rows, err := db.SQL().QueryContext(t.Context(), `SELECT payload FROM outbox WHERE topic = $1 AND event_key = $2 ORDER BY seq`,
		"table.hand_ended", id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var hands []*tablev1.HandEnded
	for rows.Next() {
		var payload []byte
		if err := rows.Scan(&payload); err != nil {
			t.Fatal(err)
		}
		var ended tablev1.HandEnded
		if err := proto.Unmarshal(payload, &ended); err != nil {
			t.Fatal(err)
		}
		hands = append(hands, &ended)
	}
	if err := rows.Err(); err != nil || len(hands) < 2 {
		t.Fatalf("%d hand_ended events (%v)", len(hands), err)
	}
	// Hand 1 was dealt when bob sat down: cat, seated during it, was not
	// dealt in and started it with nothing in play. Hand 2 started from
	// hand 1's stacks.
	want := map[int64]map[string]int64{1: {"ann": sat["ann"], "bob": sat["bob"], "cat": 0}, 2: {}}
	for _, s := range hands[0].GetStacks() {
		want[2][s.GetPlayerId()] = s.GetStack()
	}
	for _, ended := range hands[:2] {
		var before, after int64
		for _, s := range ended.GetStacks() {
			if w := want[ended.GetHandNo()][s.GetPlayerId()]; s.GetStartStack() != w {
				t.Errorf("hand %d seat %d (%s): start_stack %d, want %d", ended.GetHandNo(), s.GetSeat(), s.GetPlayerId(), s.GetStartStack(), w)
			}
			if s.GetStartStack() > 0 {
				before += s.GetStartStack()
				after += s.GetStack()
			}
		}
		if len(ended.GetStacks()) != 3 || before != after || before == 0 {
			t.Fatalf("hand_ended %v: %d chips at the start, %d after", ended, before, after)
		}
	}
}
