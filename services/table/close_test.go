package table_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/testkit"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table"
)

// outboxRow is one event the table wrote to its outbox.
type outboxRow struct {
	topic   string
	payload []byte
}

// outbox returns the events written for table id, in commit order; rows
// stay after the relay publishes them, so what was not written is
// asserted without waiting for a bus.
func (e *env) outbox(id string) []outboxRow {
	e.t.Helper()
	rows, err := e.db.SQL().QueryContext(e.t.Context(), `SELECT topic, payload FROM outbox WHERE event_key = $1 ORDER BY seq`, id)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	var out []outboxRow
	for rows.Next() {
		var r outboxRow
		if err := rows.Scan(&r.topic, &r.payload); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		e.t.Fatal(err)
	}
	return out
}

// TestCloseTable_PublishesTableClosed: closing a table during a hand
// writes one table.closed in the close's transaction, naming the players
// seated then but not one who had already asked to leave; closing again
// writes no second one, and the seats the close empties at the end of the
// hand are not announced as open (seating has taken the table out).
func TestCloseTable_PublishesTableClosed(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, table.DBOptions())
	e := start(t, db, clock.NewFake(t0), seededDecks(11), table.Deps{})
	id := e.open(6, 30)
	e.sit(id, 0, "ann", 200)
	e.sit(id, 2, "bob", 200)
	e.sit(id, 4, "cat", 200)
	if e.state(id, "ann").GetHand() == nil {
		t.Fatal("no hand in progress")
	}
	if _, err := e.c.Leave(e.player("bob"), &tablev1.LeaveRequest{TableId: id, Seat: 2}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := e.c.CloseTable(e.floor(), &tablev1.CloseTableRequest{TableId: id}); err != nil {
			t.Fatal(err)
		}
	}
	if e.state(id, "ann").GetHand() == nil {
		t.Fatal("the close ended the hand in progress")
	}
	closedAt := -1
	var closed tablev1.TableClosed
	for i, r := range e.outbox(id) {
		if r.topic != "table.closed" {
			continue
		}
		if closedAt >= 0 {
			t.Fatalf("a second table.closed (row %d after row %d)", i, closedAt)
		}
		closedAt = i
		if err := proto.Unmarshal(r.payload, &closed); err != nil {
			t.Fatal(err)
		}
	}
	if closedAt < 0 {
		t.Fatal("no table.closed in the outbox")
	}
	type seat struct {
		seat   int32
		player string
	}
	var players []seat
	for _, p := range closed.GetPlayers() {
		players = append(players, seat{p.GetSeat(), p.GetPlayerId()})
	}
	if want := []seat{{0, "ann"}, {4, "cat"}}; !slices.Equal(players, want) {
		t.Errorf("table.closed players = %v, want %v (bob had asked to leave)", players, want)
	}
	if closed.GetTableId() != id || closed.GetKind() != tablev1.TableKind_TABLE_KIND_CASH ||
		closed.GetGame().GetVariant() != gamev1.Variant_VARIANT_HOLDEM || closed.GetGame().GetStakes().GetBigBlind() != 2 {
		t.Errorf("table.closed = %v", &closed)
	}

	// The hand ends: everyone is cashed out; no seat of the closed table opens.
	e.playHands(id, []string{"ann", "cat"}, rand.New(rand.NewPCG(4, 4)), 1000)
	left := map[string]bool{}
	for _, r := range e.outbox(id)[closedAt+1:] {
		switch r.topic {
		case "table.seat_opened":
			t.Errorf("table.seat_opened after table.closed")
		case "table.player_left":
			var m tablev1.PlayerLeft
			if err := proto.Unmarshal(r.payload, &m); err != nil {
				t.Fatal(err)
			}
			left[m.GetPlayerId()] = true
		}
	}
	if len(left) != 3 {
		t.Errorf("left after the close: %v, want ann, bob and cat", left)
	}
	got, err := e.c.GetTable(e.floor(), &tablev1.GetTableRequest{TableId: id})
	if err != nil || !got.GetTable().GetClosed() {
		t.Fatalf("table not closed: %v %v", got, err)
	}
}
