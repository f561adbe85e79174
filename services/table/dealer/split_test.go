package dealer

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/cardroom/cardroom/services/table/engine"
)

// TestMarshalSplit_RoundTripsAndKeepsTheFixedPart plays random hands and,
// after every change, stores the table split (MarshalSplit) and restores
// it (UnmarshalSplit): the restored table marshals to the same bytes as
// the one that played, and the fixed part is the same bytes from a hand's
// deal to its end (the service stores it sealed once per hand, which is
// what keeps it out of PostgreSQL's WAL) and differs from one hand to the
// next; between hands there is neither part.
func TestMarshalSplit_RoundTripsAndKeepsTheFixedPart(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	tb := newTable(t, Settings{}, 100, 150, 200, 80)
	check := func(hand int) (fixed []byte) {
		t.Helper()
		pub, fixed, moving, err := tb.MarshalSplit()
		if err != nil {
			t.Fatal(err)
		}
		if tb.InHand() != (fixed != nil) || tb.InHand() != (moving != nil) {
			t.Fatalf("hand %d: in hand %v, fixed part %d bytes, moving %d", hand, tb.InHand(), len(fixed), len(moving))
		}
		back, err := UnmarshalSplit(pub, fixed, moving)
		if err != nil {
			t.Fatalf("hand %d: %v", hand, err)
		}
		p1, s1, _ := tb.Marshal()
		p2, s2, err := back.Marshal()
		if err != nil || !bytes.Equal(p1, p2) || !bytes.Equal(s1, s2) {
			t.Fatalf("hand %d: restored table differs (%v):\n%s\n%s\n%s\n%s", hand, err, p1, p2, s1, s2)
		}
		return fixed
	}
	var last []byte
	for hand := range 60 {
		for i, s := range tb.seats {
			if s.Occupied() && s.Stack == 0 {
				if _, err := tb.TopUp(i, 100); err != nil {
					t.Fatal(err)
				}
			}
		}
		mustStart(t, tb, uint64(hand), t0)
		first := check(hand)
		if bytes.Equal(first, last) {
			t.Fatalf("hand %d: the fixed part is the last hand's", hand)
		}
		for tb.InHand() {
			a := randomAction(r, tb.Hand())
			act(t, tb, a.Seat, a.Kind, a.Amount)
			if fixed := check(hand); tb.InHand() && !bytes.Equal(fixed, first) {
				t.Fatalf("hand %d: the fixed part changed during the hand:\n%s\n%s", hand, first, fixed)
			}
		}
		last = first
	}
}

// TestUnmarshalSplit_HandNotStored refuses a table in a hand whose hand
// parts are missing, as Unmarshal does.
func TestUnmarshalSplit_HandNotStored(t *testing.T) {
	t.Parallel()
	tb := newTable(t, Settings{}, 100, 100)
	mustStart(t, tb, 1, t0)
	pub, fixed, moving, err := tb.MarshalSplit()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ fixed, moving []byte }{{nil, moving}, {fixed, nil}, {nil, nil}} {
		if _, err := UnmarshalSplit(pub, c.fixed, c.moving); err == nil {
			t.Errorf("restored a hand from fixed %d bytes, moving %d bytes", len(c.fixed), len(c.moving))
		}
	}
}

// TestMarshal_WhatAnActionChangesComesLast: an action stores the public
// state again, and PostgreSQL logs the change from the first byte that
// differs, so everything that stays the same through a hand (the last
// hand's summary, positions, configuration, seats) comes before the first
// byte an action changes.
func TestMarshal_WhatAnActionChangesComesLast(t *testing.T) {
	t.Parallel()
	tb := newTable(t, Settings{}, 100, 100, 100)
	mustStart(t, tb, 1, t0)
	foldAround(t, tb) // a last hand to summarize
	mustStart(t, tb, 2, t0)
	before, _, _ := tb.Marshal()
	h := tb.Hand()
	act(t, tb, h.ToAct(), engine.Call, 0)
	after, _, _ := tb.Marshal()
	same := 0
	for same < min(len(before), len(after)) && before[same] == after[same] {
		same++
	}
	for _, key := range []string{`"last_hand"`, `"seats"`} {
		if i := bytes.Index(after, []byte(key)); i < 0 || i > same {
			t.Errorf("%s at byte %d, after the first one the action changed (%d):\n%s\n%s", key, i, same, before, after)
		}
	}
	if rest := len(after) - same; rest > 40 {
		t.Errorf("an action changed the last %d bytes:\n%s\n%s", rest, before, after)
	}
}
