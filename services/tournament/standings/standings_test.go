package standings

import (
	"slices"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/tournament/event"
)

func TestKnockOut_TR37(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		remaining int
		out       []Knockout
		want      []Finish
	}{
		{"TR-37 one player: last place", 9, []Knockout{{PlayerID: "a", TableID: "t1", Hand: 5, StartStack: 100}},
			[]Finish{{PlayerID: "a", Place: 9, Shared: 1}}},
		{"TR-37 same hand: more chips at the start finishes higher", 9, []Knockout{
			{PlayerID: "small", TableID: "t1", Hand: 5, StartStack: 800},
			{PlayerID: "big", TableID: "t1", Hand: 5, StartStack: 3000},
			{PlayerID: "mid", TableID: "t1", Hand: 5, StartStack: 1200}},
			[]Finish{{PlayerID: "big", Place: 7, Shared: 1}, {PlayerID: "mid", Place: 8, Shared: 1}, {PlayerID: "small", Place: 9, Shared: 1}}},
		{"TR-37 same hand, equal stacks share", 9, []Knockout{
			{PlayerID: "b", TableID: "t1", Hand: 5, StartStack: 1000},
			{PlayerID: "a", TableID: "t1", Hand: 5, StartStack: 1000},
			{PlayerID: "c", TableID: "t1", Hand: 5, StartStack: 5000}},
			[]Finish{{PlayerID: "c", Place: 7, Shared: 1}, {PlayerID: "a", Place: 8, Shared: 2}, {PlayerID: "b", Place: 8, Shared: 2}}},
		{"TR-37 different tables in hand-for-hand share, whatever the stacks", 20, []Knockout{
			{PlayerID: "x", TableID: "t1", Hand: 80, StartStack: 9000},
			{PlayerID: "y", TableID: "t2", Hand: 61, StartStack: 100}},
			[]Finish{{PlayerID: "x", Place: 19, Shared: 2}, {PlayerID: "y", Place: 19, Shared: 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := &Board{Entrants: 20, Remaining: tt.remaining}
			got, err := b.KnockOut(tt.out)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) || b.Remaining != tt.remaining-len(tt.out) {
				t.Fatalf("KnockOut = %+v (remaining %d)\nwant %+v", got, b.Remaining, tt.want)
			}
		})
	}
}

func TestBoardLifecycle(t *testing.T) {
	t.Parallel()
	b := &Board{Entrants: 4, Remaining: 4}
	if _, err := b.KnockOut([]Knockout{{PlayerID: "d", TableID: "t", Hand: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.KnockOut([]Knockout{{PlayerID: "d"}}); fault.KindOf(err) != fault.Conflict {
		t.Fatalf("knocked out twice: %v", err)
	}
	if _, err := b.Win("a"); err == nil {
		t.Fatal("winner with three left")
	}
	// TR-34 disqualified: placed at that moment; expelled: placed, no prize.
	if f, err := b.Remove("c", false); err != nil || f.Place != 3 || f.Removed {
		t.Fatalf("TR-34 disqualify: %+v, %v", f, err)
	}
	if _, err := b.KnockOut([]Knockout{{PlayerID: "a"}, {PlayerID: "b"}}); err == nil {
		t.Fatal("everyone knocked out")
	}
	if f, err := b.Remove("b", true); err != nil || f.Place != 2 || !f.Removed {
		t.Fatalf("TR-34 expel: %+v, %v", f, err)
	}
	if f, err := b.Win("a"); err != nil || f.Place != 1 || b.Remaining != 0 {
		t.Fatalf("Win = %+v, %v", f, err)
	}
	awards := Awards(b.Finishes, []int64{6000, 3000, 1000})
	want := []Award{{PlayerID: "a", Place: 1, Amount: 6000}, {PlayerID: "b", Place: 2, Withheld: 3000}, {PlayerID: "c", Place: 3, Amount: 1000}}
	if !slices.Equal(awards, want) {
		t.Fatalf("TR-34 awards = %+v, want %+v", awards, want)
	}
}

func TestStructure_TR36_G30(t *testing.T) {
	t.Parallel()
	if err := DefaultStructure().Validate(); err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		name   string
		s      Structure
		reason string
	}{
		{"TR-36 empty", Structure{}, "PAYOUTS_EMPTY"},
		{"G-30 shares not 100 %", Structure{Tiers: []Tier{{Shares: []int{6000, 3000}}}}, "PAYOUTS_NOT_WHOLE"},
		{"shares grow", Structure{Tiers: []Tier{{Shares: []int{4000, 6000}}}}, "INVALID_ARGUMENT"},
		{"open tier not last", Structure{Tiers: []Tier{{Shares: []int{10000}}, {MaxEntrants: 9, Shares: []int{10000}}}}, "INVALID_ARGUMENT"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if f, ok := fault.As(tt.s.Validate()); !ok || f.Reason != tt.reason {
				t.Fatalf("Validate = %v, want %s", f, tt.reason)
			}
		})
	}
	prizes := []struct {
		name     string
		entrants int
		pool     int64
		want     []int64
	}{
		{"TR-36 winner takes all for 5", 5, 25000, []int64{25000}},
		{"G-30 rounded to whole euros, remainder to first", 11, 55555, []int64{36155, 19400}},
		{"TR-36 27 entrants: three places", 27, 135000, []int64{67500, 40500, 27000}},
		{"TR-36 big field: five places", 40, 200000, []int64{80000, 50000, 30000, 24000, 16000}},
		{"one entrant", 1, 5000, []int64{5000}},
	}
	for _, tt := range prizes {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := DefaultStructure().Prizes(tt.entrants, tt.pool)
			var sum int64
			for _, p := range got {
				sum += p
			}
			if !slices.Equal(got, tt.want) || sum != tt.pool {
				t.Fatalf("Prizes = %v (sum %d), want %v", got, sum, tt.want)
			}
		})
	}
}

func TestCheckChange_TR36(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		status event.Status
		now    time.Time
		locked bool
	}{
		{"TR-36 before the start: may change", event.Scheduled, start.Add(-time.Hour), false},
		{"TR-36 at the start: locked", event.Scheduled, start, true},
		{"TR-36 running: locked", event.Running, start.Add(time.Hour), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := CheckChange(event.Event{Status: tt.status, StartsAt: start}, tt.now)
			if (err != nil) != tt.locked {
				t.Fatalf("CheckChange = %v", err)
			}
		})
	}
}

func TestAwards_TR37_G30(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		finishes []Finish
		prizes   []int64
		want     []Award
	}{
		{"TR-37 G-30 two share places 2 and 3: pooled and split, odd cent to the first id", []Finish{
			{PlayerID: "w", Place: 1, Shared: 1}, {PlayerID: "b", Place: 2, Shared: 2}, {PlayerID: "a", Place: 2, Shared: 2}},
			[]int64{5000, 3001, 2000},
			[]Award{{PlayerID: "w", Place: 1, Amount: 5000}, {PlayerID: "a", Place: 2, Amount: 2501}, {PlayerID: "b", Place: 2, Amount: 2500}}},
		{"TR-37 sharing the last paid place and the first unpaid one", []Finish{
			{PlayerID: "w", Place: 1, Shared: 1}, {PlayerID: "x", Place: 2, Shared: 2}, {PlayerID: "y", Place: 2, Shared: 2}},
			[]int64{7000, 3000},
			[]Award{{PlayerID: "w", Place: 1, Amount: 7000}, {PlayerID: "x", Place: 2, Amount: 1500}, {PlayerID: "y", Place: 2, Amount: 1500}}},
		{"unpaid places get nothing", []Finish{{PlayerID: "z", Place: 4, Shared: 1}}, []int64{7000, 3000}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Awards(tt.finishes, tt.prizes); !slices.Equal(got, tt.want) {
				t.Fatalf("Awards = %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestSatelliteAwards_TR19_G24(t *testing.T) {
	t.Parallel()
	finishes := []Finish{{PlayerID: "p1", Place: 1, Shared: 1}, {PlayerID: "p2", Place: 2, Shared: 1}, {PlayerID: "p3", Place: 3, Shared: 1}, {PlayerID: "p4", Place: 4, Shared: 1}}
	// Pool 25000, seat 11000: two seats, 3000 cash to third (G-24).
	got := SatelliteAwards(finishes, 25000, 11000)
	want := []Award{{PlayerID: "p1", Place: 1, Amount: 11000, Voucher: true}, {PlayerID: "p2", Place: 2, Amount: 11000, Voucher: true}, {PlayerID: "p3", Place: 3, Amount: 3000}}
	if !slices.Equal(got, want) {
		t.Fatalf("TR-19 G-24 SatelliteAwards = %+v\nwant %+v", got, want)
	}
	// Exactly two seats: nothing left over.
	if got := SatelliteAwards(finishes, 22000, 11000); len(got) != 2 || !got[1].Voucher {
		t.Fatalf("TR-19 exact pool = %+v", got)
	}
	// Two players share places 2 and 3 across the last seat: cash, split.
	shared := []Finish{{PlayerID: "p1", Place: 1, Shared: 1}, {PlayerID: "p2", Place: 2, Shared: 2}, {PlayerID: "p3", Place: 2, Shared: 2}}
	got = SatelliteAwards(shared, 25000, 11000)
	if got[1].Voucher || got[1].Amount != 7000 || got[2].Amount != 7000 || !got[0].Voucher {
		t.Fatalf("TR-37 shared across the last seat = %+v", got)
	}
}

func TestPenalties_TR32_TR33_G27(t *testing.T) {
	t.Parallel()
	if n, err := HandsToMiss(7, 3); err != nil || n != 21 {
		t.Fatalf("TR-33 7 players x 3 rounds = %d, %v; want 21", n, err)
	}
	for _, rounds := range []int{0, 5} {
		if _, err := HandsToMiss(7, rounds); err == nil {
			t.Fatalf("TR-33 %d rounds accepted", rounds)
		}
	}
	steps := []struct {
		name    string
		p       Penalty
		players int
		reason  string
		missing int
	}{
		{"TR-32 first: a warning", Penalty{Type: Warning, Reason: "language"}, 8, "", 0},
		{"TR-32 repeat may not be a warning again", Penalty{Type: Warning}, 8, "PENALTY_NOT_ESCALATED", 0},
		{"TR-02 unless the floor overrides", Penalty{Type: Warning, Override: true}, 8, "", 0},
		{"TR-33 G-27 missed hands counted now: 6 x 1", Penalty{Type: MissedHands, Rounds: 1}, 6, "", 6},
		{"TR-32 the next missed-hand penalty must be longer", Penalty{Type: MissedHands, Rounds: 1}, 6, "PENALTY_NOT_ESCALATED", 6},
		{"TR-33 two rounds at 9 players", Penalty{Type: MissedHands, Rounds: 2}, 9, "", 24},
		{"TR-33 five rounds", Penalty{Type: MissedHands, Rounds: 5}, 9, "PENALTY_ROUNDS", 24},
	}
	var r Record
	for _, s := range steps {
		err := r.Issue(s.p, s.players)
		if s.reason == "" && err != nil || s.reason != "" && func() bool { f, ok := fault.As(err); return !ok || f.Reason != s.reason }() {
			t.Fatalf("%s: Issue = %v, want %q", s.name, err, s.reason)
		}
		if r.Missing != s.missing {
			t.Fatalf("%s: missing %d, want %d", s.name, r.Missing, s.missing)
		}
	}
	// The count runs down by hands started, wherever the player sits.
	out := 0
	for range 30 {
		if r.HandStarted() {
			out++
		}
	}
	if out != 24 || r.Missing != 0 {
		t.Fatalf("TR-33 sat out %d hands, %d left", out, r.Missing)
	}
}

// TestGrowAndReenter_G23_TR37: during late registration the field grows
// after players are out, and a busted player may enter again; the places
// given move so that the next knock-out never lands on a place already
// taken, and the places end up 1..entrants.
func TestGrowAndReenter_G23_TR37(t *testing.T) {
	t.Parallel()
	out := func(b *Board, ps ...string) {
		t.Helper()
		var kos []Knockout
		for _, p := range ps {
			kos = append(kos, Knockout{PlayerID: p, TableID: "t1", Hand: int64(len(b.Finishes) + 1), StartStack: 100})
		}
		if _, err := b.KnockOut(kos); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		play func(b *Board)
		want []Finish
	}{
		{"G-23 a late registration after a knock-out", func(b *Board) {
			out(b, "a") // 5 in play: a 5th
			b.Finishes, b.Remaining = Grow(b.Finishes), b.Remaining+1
			out(b, "b")
		}, []Finish{{PlayerID: "a", Place: 6, Shared: 1}, {PlayerID: "b", Place: 5, Shared: 1}}},
		{"G-23 a re-entry takes the place back, later ones move down", func(b *Board) {
			out(b, "a")
			out(b, "b")
			b.Finishes, b.Remaining = Reenter(b.Finishes, "a"), b.Remaining+1
			out(b, "c")
			out(b, "a")
		}, []Finish{{PlayerID: "b", Place: 5, Shared: 1}, {PlayerID: "c", Place: 4, Shared: 1}, {PlayerID: "a", Place: 3, Shared: 1}}},
		{"G-23 a re-entry out of a shared place", func(b *Board) {
			out(b, "a", "b") // same hand, same stack: 4th and 5th shared
			out(b, "c")
			b.Finishes, b.Remaining = Reenter(b.Finishes, "a"), b.Remaining+1
		}, []Finish{{PlayerID: "b", Place: 5, Shared: 1}, {PlayerID: "c", Place: 4, Shared: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := &Board{Entrants: 5, Remaining: 5}
			tt.play(b)
			if !slices.Equal(b.Finishes, tt.want) {
				t.Fatalf("places %+v\nwant %+v", b.Finishes, tt.want)
			}
			seen := map[int]string{}
			for _, f := range b.Finishes {
				for p := f.Place; p < f.Place+f.Shared; p++ {
					if other, dup := seen[p]; dup && f.Shared == 1 {
						t.Fatalf("place %d given to %s and %s", p, other, f.PlayerID)
					}
					seen[p] = f.PlayerID
				}
			}
		})
	}
}
