package dealer

import (
	"testing"
)

// TestTopUpUnconfirmedNeverPlays_G41: a top-up's chips wait for the
// wallet's commit and never play before it. A hand dealt while they wait
// is dealt with the stack alone; a commit confirmed during a hand the seat
// plays queues them for the next (CS-05), one confirmed between hands adds
// them at once; a refused commit takes them back even in the middle of a
// hand the seat plays (before, TakeBack refused CHIPS_IN_PLAY and the
// escrow was short); a seat that asks to leave while they wait leaves once
// they are settled, cashed out with the chips that are the table's.
func TestTopUpUnconfirmedNeverPlays_G41(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// settle confirms (true) or refuses the commit, during the hand
		// (inHand) or after it.
		confirm, inHand bool
		// leave asks seat 0 to leave before the commit is settled.
		leave bool
		// wantPending is seat 0's queued chips when settled during the
		// hand; wantCashOut is what the top-up adds to what the seat
		// leaves with.
		wantPending, wantCashOut int64
	}{
		{name: "confirmed during the hand", confirm: true, inHand: true, wantPending: 50},
		{name: "refused during the hand", inHand: true},
		{name: "confirmed after the hand", confirm: true},
		{name: "refused after the hand"},
		{name: "leave, then confirmed", confirm: true, leave: true, wantCashOut: 50},
		{name: "leave, then refused", leave: true, wantCashOut: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tb := newTable(t, Settings{}, 100, 100)
			if _, err := tb.TopUpUnpaid(0, 50); err != nil {
				t.Fatal(err)
			}
			if got := tb.Chips(); got != 250 {
				t.Fatalf("the table counts %d chips with the top-up waiting, want 250 (the audit takes uncommitted holds off)", got)
			}
			mustStart(t, tb, 5, t0)
			if got := tb.Hand().Stack(0) + tb.Hand().Stack(1) + tb.Hand().PotTotal(); got != 200 {
				t.Fatalf("G-41: the hand plays %d chips, want the 200 paid for", got)
			}
			if got := tb.StackNow(0); got > 100 {
				t.Fatalf("G-41: seat 0 plays %d, more than the 100 paid for", got)
			}
			settle := func() Output {
				t.Helper()
				var out Output
				var err error
				if tc.confirm {
					out, err = tb.TopUpPaid(0, 50)
				} else {
					out, err = tb.TakeBack(0, 50)
				}
				if err != nil {
					t.Fatalf("settle the top-up: %v", err)
				}
				return out
			}
			var left []CashOut
			if tc.inHand {
				settle()
				if tb.seats[0].Pending != tc.wantPending || tb.seats[0].Unconfirmed != 0 {
					t.Fatalf("during the hand: pending %d, unconfirmed %d; want %d, 0", tb.seats[0].Pending, tb.seats[0].Unconfirmed, tc.wantPending)
				}
			}
			end := foldAround(t, tb)
			// stack0 is what the hand left seat 0, before queued chips.
			stack0 := int64(0)
			for _, s := range end.Ended.Result.Seats {
				if s.Seat == 0 {
					stack0 = s.Stack
				}
			}
			if tc.leave {
				out, err := tb.Leave(0, t0)
				if err != nil {
					t.Fatal(err)
				}
				if len(out.CashOuts) != 0 || !tb.seats[0].Leaving {
					t.Fatalf("G-41: seat 0 left with a top-up unsettled: %+v", out.CashOuts)
				}
				left = settle().CashOuts
				if len(left) != 1 || left[0].Stack != stack0+tc.wantCashOut || tb.seats[0].Occupied() {
					t.Fatalf("G-41: settled, seat 0 (%d after the hand) cashes out %+v, want %d", stack0, left, stack0+tc.wantCashOut)
				}
				return
			}
			if !tc.inHand {
				if tb.seats[0].Stack != stack0 || tb.seats[0].Unconfirmed != 50 {
					t.Fatalf("G-41: after the hand seat 0 has %d (+%d unconfirmed), want %d (+50)", tb.seats[0].Stack, tb.seats[0].Unconfirmed, stack0)
				}
				settle()
			}
			want := stack0
			if tc.confirm {
				want += 50
			}
			if tb.seats[0].Stack != want || tb.seats[0].Pending != 0 || tb.seats[0].Unconfirmed != 0 {
				t.Fatalf("seat 0 ends with %d (pending %d, unconfirmed %d), want %d", tb.seats[0].Stack, tb.seats[0].Pending, tb.seats[0].Unconfirmed, want)
			}
			if got, wantChips := tb.Chips(), int64(200)+want-stack0; got != wantChips {
				t.Fatalf("the table counts %d chips, want %d", got, wantChips)
			}
		})
	}
}

// TestTopUpUnconfirmed_SnapshotKeepsThem_G41: chips waiting for the
// wallet's commit survive the table being stored and read back (the next
// owner settles them).
func TestTopUpUnconfirmed_SnapshotKeepsThem_G41(t *testing.T) {
	t.Parallel()
	tb := newTable(t, Settings{}, 100, 100)
	if _, err := tb.TopUpUnpaid(1, 70); err != nil {
		t.Fatal(err)
	}
	public, private, err := tb.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal(public, private)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Seats()[1].Unconfirmed; got != 70 {
		t.Fatalf("read back: %d unconfirmed, want 70", got)
	}
	if chips, err := PublicChips(public); err != nil || chips != 270 {
		t.Fatalf("public count: %d, %v; want 270", chips, err)
	}
}
