package dealer

import (
	"bytes"
	"math/rand/v2"
	"testing"
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
