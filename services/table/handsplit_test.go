package table_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table"
	"github.com/cardroom/cardroom/services/table/dealer"
	"github.com/cardroom/cardroom/services/table/seal"
)

// storedHand reads a table's sealed hand as stored: what its actions
// change (hand) and what stays the same through the hand (hand_fixed).
func storedHand(t *testing.T, db *sqlstore.DB, id string) (hand, fixed []byte) {
	t.Helper()
	if err := db.SQL().QueryRowContext(t.Context(), `SELECT hand, hand_fixed FROM tables WHERE id = $1`, id).Scan(&hand, &fixed); err != nil {
		t.Fatal(err)
	}
	return hand, fixed
}

// actOnce has the player in turn make a seeded legal action, or with a
// nil r check or call.
func (e *env) actOnce(id, viewer string, r *rand.Rand) {
	e.t.Helper()
	who := playerInTurn(e.state(id, viewer))
	kind, amount := tablev1.ActionKind_ACTION_KIND_CHECK, int64(0)
	if r != nil {
		kind, amount = policy(r, e.state(id, who).GetHand().GetLegal())
	} else if e.state(id, who).GetHand().GetLegal()[0].GetKind() != kind {
		for _, l := range e.state(id, who).GetHand().GetLegal() {
			if l.GetKind() == tablev1.ActionKind_ACTION_KIND_CALL {
				kind, amount = l.GetKind(), l.GetMin()
			}
		}
	}
	if _, err := e.c.Act(e.player(who), &tablev1.ActRequest{TableId: id, Kind: kind, Amount: amount}); err != nil {
		e.t.Fatalf("%s %v %d: %v", who, kind, amount, err)
	}
}

// TestPlay_HandFixedPartSealedOncePerHand: the part of the hand in
// progress that its actions do not change is sealed once per hand and
// stored again byte for byte with every action, by a process that read
// the table after a crash too, while the rest is sealed anew (migration
// 00011: what PostgreSQL then leaves out of each action's WAL); the next
// hand has a fixed part of its own.
func TestPlay_HandFixedPartSealedOncePerHand(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, table.DBOptions(), func(t *testing.T, db *sqlstore.DB) {
		decks := seededDecks(5)
		e := start(t, db, clock.NewFake(t0), decks, table.Deps{})
		id := e.open(6, -1)
		for i, p := range []string{"ann", "bob", "cat"} {
			e.sit(id, int32(i), p, 300)
		}
		hand1, fixed1 := storedHand(t, db, id)
		if hand1 == nil || fixed1 == nil {
			t.Fatalf("hand 1 stored as %d + %d bytes", len(hand1), len(fixed1))
		}
		check := func(when string, prev []byte) []byte {
			t.Helper()
			hand, fixed := storedHand(t, db, id)
			if e.state(id, "ann").GetHand().GetHandNo() != 1 {
				t.Fatalf("%s: hand 1 ended", when)
			}
			if !bytes.Equal(fixed, fixed1) {
				t.Fatalf("%s: the fixed part was sealed again", when)
			}
			if bytes.Equal(hand, prev) {
				t.Fatalf("%s: the moving part was not stored again", when)
			}
			return hand
		}
		hand := hand1
		e.actOnce(id, "ann", nil)
		hand = check("after an action", hand)
		// kill -9: a new process reads the table and acts on it.
		e = start(t, db, clock.NewFake(t0), decks, table.Deps{})
		e.actOnce(id, "ann", nil)
		check("after an action of a new process", hand)
		for e.state(id, "ann").GetHand().GetHandNo() == 1 {
			e.actOnce(id, "ann", nil)
		}
		if _, fixed := storedHand(t, db, id); fixed == nil || bytes.Equal(fixed, fixed1) {
			t.Fatalf("hand 2's fixed part: %d bytes, the same as hand 1's: %v", len(fixed), bytes.Equal(fixed, fixed1))
		}
	})
}

// TestPlay_RecoversAHandStoredWhole: a hand in progress stored before the
// split (hand holds all of it, hand_fixed is NULL) is read back and played
// on the same as without the change of format.
func TestPlay_RecoversAHandStoredWhole(t *testing.T) {
	t.Parallel()
	sealer, err := seal.New(sealKey)
	if err != nil {
		t.Fatal(err)
	}
	testkit.EachStore(t, table.DBOptions(), func(t *testing.T, db *sqlstore.DB) {
		run := func(rewriteAt int, suffix string) []string {
			decks := seededDecks(13)
			e := start(t, db, clock.NewFake(t0), decks, table.Deps{})
			id := e.open(6, -1)
			// A player holds one seat in the room (G-21): each run has its
			// own players, their names told apart by a suffix.
			players := []string{"ann" + suffix, "bob" + suffix, "cat" + suffix}
			for i, p := range players {
				e.sit(id, int32(i), p, 300)
			}
			r := rand.New(rand.NewPCG(13, 13))
			for actions := 0; e.state(id, players[0]).GetHand().GetHandNo() <= 3; actions++ {
				if actions == rewriteAt {
					storeWhole(t, db, sealer, id)
					e = start(t, db, clock.NewFake(t0), decks, table.Deps{})
				}
				e.actOnce(id, players[0], r)
			}
			var hands []string
			for n := int64(1); n <= 3; n++ {
				h, err := e.c.GetHandHistory(e.floor(), &tablev1.GetHandHistoryRequest{TableId: id, HandNo: n, Format: tablev1.HistoryFormat_HISTORY_FORMAT_PHH})
				if err != nil {
					t.Fatal(err)
				}
				hands = append(hands, strings.ReplaceAll(h.GetContent(), suffix, ""))
			}
			return hands
		}
		want, got := run(-1, "_ref"), run(4, "_old")
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("hand %d differs after the hand stored whole was read:\n%s\n---\n%s", i+1, got[i], want[i])
			}
		}
	})
}

// storeWhole rewrites a table's hand in progress as it was stored before
// migration 00011: sealed whole in hand, for "hand/<table>".
func storeWhole(t *testing.T, db *sqlstore.DB, sealer *seal.Sealer, id string) {
	t.Helper()
	var public string
	var hand, fixed []byte
	if err := db.SQL().QueryRowContext(t.Context(), `SELECT state, hand, hand_fixed FROM tables WHERE id = $1`, id).Scan(&public, &hand, &fixed); err != nil {
		t.Fatal(err)
	}
	if fixed == nil {
		t.Fatal("no hand in progress stored split")
	}
	plainFixed, err := sealer.Open(fixed, "hand-fixed/"+id)
	if err != nil {
		t.Fatal(err)
	}
	moving, err := sealer.Open(hand, "hand/"+id+"/"+string(fixed))
	if err != nil {
		t.Fatal(err)
	}
	dt, err := dealer.UnmarshalSplit([]byte(public), plainFixed, moving)
	if err != nil {
		t.Fatal(err)
	}
	_, private, err := dt.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().ExecContext(t.Context(), `UPDATE tables SET hand = $1, hand_fixed = NULL WHERE id = $2`,
		sealer.Seal(private, "hand/"+id), id); err != nil {
		t.Fatal(err)
	}
}
