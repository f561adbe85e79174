package button

import (
	"errors"
	"github.com/cardroom/cardroom/services/table/engine/refusal"
	"testing"
)

// byteReader hands out fuzz bytes, then zeros.
type byteReader struct {
	b []byte
	i int
}

func (r *byteReader) next() byte {
	if r.i >= len(r.b) {
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

func (r *byteReader) seat(s *Seat, name string) {
	f := r.next()
	if f&1 == 0 {
		*s = Seat{}
		return
	}
	*s = Seat{
		Player:     name,
		Stack:      int64(r.next()%40) * 5,
		SittingOut: f&2 != 0 && f&0x80 != 0,
		New:        f&4 != 0,
		PostNow:    f&8 != 0,
		Debt:       Debt{SmallBlind: f&16 != 0, BigBlind: f&32 != 0},
		Rebought:   f&64 != 0,
	}
}

// FuzzPlanHand plans a run of hands at random tables, with players leaving,
// arriving, sitting out and going broke between hands, and checks every plan:
// exactly one big blind, posts never above the stacks, debts only on
// occupied seats that were not dealt in, and the big blind always advancing.
func FuzzPlanHand(f *testing.F) {
	f.Add([]byte{4, 0, 3, 1, 2, 1, 20, 1, 20, 1, 20, 1, 20, 0, 0})
	f.Add([]byte{1, 1, 0, 0, 0, 0, 0x81, 3, 0x0d, 9, 0x31, 10, 0x39, 8})
	f.Add([]byte{8, 2, 5, 0, 1, 2, 0xff, 39, 0x0f, 2, 0x35, 1, 1, 1, 1, 7, 5, 3, 0x11, 0x22, 0x44})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &byteReader{b: data}
		n := 2 + int(r.next()%9)
		mode := r.next()
		tb := Table{
			Seats:      make([]Seat, n),
			Tournament: mode&1 != 0,
			Method:     Method(mode >> 1 & 1),
		}
		bb := 2 + int64(r.next()%10)*2
		tb.Stakes = Stakes{SmallBlind: bb / 2, BigBlind: bb, Ante: int64(r.next() % 3), BigBlindAnte: mode&4 != 0}
		tb.Previous = Positions{Button: int(r.next()) % n, SmallBlind: int(r.next())%(n+1) - 1, BigBlind: int(r.next())%(n+1) - 1}
		for i := range tb.Seats {
			r.seat(&tb.Seats[i], string(rune('A'+i)))
		}
		if mode&8 != 0 {
			tb.Seats[int(r.next())%n].Straddle = true
		}
		for hand := range 8 {
			plan, err := PlanHand(tb)
			if err != nil {
				var re *refusal.Error
				if !errors.As(err, &re) {
					t.Fatalf("hand %d: untyped error %v", hand, err)
				}
				if re.Reason == refusal.StraddleNotAllowed || re.Reason == refusal.StraddleShort {
					for i := range tb.Seats {
						tb.Seats[i].Straddle = false
					}
					continue
				}
				return
			}
			check(t, tb, plan)
			// Between hands: the posts are lost, one seat changes.
			seats := plan.Next(tb.Seats)
			for _, q := range plan.Posts {
				seats[q.Seat].Stack -= q.Amount
			}
			r.seat(&seats[int(r.next())%n], string(rune('a'+hand)))
			tb.Seats, tb.Previous = seats, plan.Positions
		}
	})
}

func check(t *testing.T, tb Table, p Plan) {
	t.Helper()
	n := len(tb.Seats)
	dealt := make([]bool, n)
	for _, pl := range p.Players {
		if dealt[pl.Seat] {
			t.Fatalf("seat %d dealt twice", pl.Seat)
		}
		dealt[pl.Seat] = true
		s := tb.Seats[pl.Seat]
		if !s.Occupied() || s.Stack <= 0 || pl.Stack != s.Stack || pl.ID != s.Player {
			t.Fatalf("dealt-in seat %d is %+v, player %+v", pl.Seat, s, pl)
		}
		if !tb.Tournament && s.SittingOut {
			t.Fatalf("TP-12: cash seat %d sitting out but dealt in", pl.Seat)
		}
	}
	if len(p.Players) < 2 {
		t.Fatalf("TP-10: %d players dealt in", len(p.Players))
	}
	if last := p.Players[len(p.Players)-1].Seat; dealt[p.Positions.Button] && last != p.Positions.Button {
		t.Fatalf("TP-09: button %d dealt in but not last (%d)", p.Positions.Button, last)
	}
	bbs, sbs := 0, 0
	paid := make([]int64, n)
	for _, q := range p.Posts {
		if q.Amount <= 0 || !dealt[q.Seat] || q.Live != q.Kind.Live() {
			t.Fatalf("bad post %+v", q)
		}
		paid[q.Seat] += q.Amount
		if paid[q.Seat] > tb.Seats[q.Seat].Stack {
			t.Fatalf("seat %d posts %d with a stack of %d", q.Seat, paid[q.Seat], tb.Seats[q.Seat].Stack)
		}
		if q.AllIn != (paid[q.Seat] == tb.Seats[q.Seat].Stack) {
			t.Fatalf("post %+v: all-in flag wrong (paid %d of %d)", q, paid[q.Seat], tb.Seats[q.Seat].Stack)
		}
		switch q.Kind {
		case PostBigBlind:
			bbs++
			if q.Seat != p.Positions.BigBlind {
				t.Fatalf("big blind posted by %d, position %d", q.Seat, p.Positions.BigBlind)
			}
		case PostSmallBlind:
			sbs++
			if q.Seat != p.Positions.SmallBlind || p.SmallBlindDead {
				t.Fatalf("small blind posted by %d, position %d dead=%v", q.Seat, p.Positions.SmallBlind, p.SmallBlindDead)
			}
		case PostStraddle:
			if tb.Tournament || q.Seat != p.StraddleOffer || q.Seat != p.Straddler || q.Amount != 2*tb.Stakes.BigBlind {
				t.Fatalf("TP-20: bad straddle %+v (offer %d)", q, p.StraddleOffer)
			}
		case PostMissedBigBlind, PostDeadSmallBlind, PostNewPlayerBigBlind:
			if tb.Tournament {
				t.Fatalf("tournament debt post %+v", q)
			}
		}
	}
	if bbs != 1 || sbs > 1 || !dealt[p.Positions.BigBlind] {
		t.Fatalf("%d big blinds, %d small blinds, big blind dealt=%v", bbs, sbs, dealt[p.Positions.BigBlind])
	}
	pos := p.Positions
	if pos.BigBlind == pos.SmallBlind || pos.BigBlind == pos.Button {
		t.Fatalf("positions %+v heads-up=%v", pos, p.HeadsUp)
	}
	// G-04: two dealt in play heads-up, the button on the player not in
	// the big blind and posting the small blind unless it is dead.
	if p.HeadsUp != (len(p.Players) == 2) {
		t.Fatalf("G-04: heads-up=%v with %d dealt in", p.HeadsUp, len(p.Players))
	}
	if p.HeadsUp && (!dealt[pos.Button] || (!p.SmallBlindDead && pos.Button != pos.SmallBlind)) {
		t.Fatalf("G-04: heads-up positions %+v (small blind dead %v, button dealt %v)", pos, p.SmallBlindDead, dealt[pos.Button])
	}
	if !p.HeadsUp && pos.Button == pos.SmallBlind {
		t.Fatalf("positions %+v: the button posts the small blind only heads-up", pos)
	}
	if tb.Previous.BigBlind != NoSeat && pos.BigBlind == tb.Previous.BigBlind {
		t.Fatalf("the big blind did not advance from %d", pos.BigBlind)
	}
	if len(p.Debts) != n {
		t.Fatalf("%d debts for %d seats", len(p.Debts), n)
	}
	for i, d := range p.Debts {
		if d.Owes() && (tb.Tournament || dealt[i] || !tb.Seats[i].Occupied()) {
			t.Fatalf("seat %d owes %+v (dealt %v, %+v)", i, d, dealt[i], tb.Seats[i])
		}
	}
}
