package chiprace

import (
	"slices"
	"testing"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/random"
)

func TestRun_TR22_G08(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		players []Player
		// wantPrizes is how many new chips are raced for.
		wantPrizes int
		// wantFixed are stacks that do not depend on the cards.
		wantFixed map[int]int64
	}{
		{"TR-22 full sets colour up without racing", []Player{{Seat: 1, Stack: 1000, Chips: 4}, {Seat: 2, Stack: 2000, Chips: 8}}, 0,
			map[int]int64{1: 1000, 2: 2000}},
		{"G-08 odd chips pooled: 3 x 25 + 1 x 25 = one 100", []Player{{Seat: 1, Stack: 1075, Chips: 3}, {Seat: 2, Stack: 525, Chips: 1}, {Seat: 3, Stack: 500}}, 1,
			map[int]int64{3: 500}},
		{"G-08 leftover of half a chip rounds up", []Player{{Seat: 1, Stack: 1025, Chips: 1}, {Seat: 4, Stack: 1025, Chips: 1}}, 1, nil},
		{"G-08 leftover under half a chip is lost", []Player{{Seat: 1, Stack: 1025, Chips: 1}, {Seat: 2, Stack: 900}}, 0,
			map[int]int64{1: 1000, 2: 900}},
		{"TR-22 at most one chip each: 3+3+3 x 25 = 225 -> two chips", []Player{{Seat: 2, Stack: 75, Chips: 3}, {Seat: 5, Stack: 75, Chips: 3}, {Seat: 7, Stack: 75, Chips: 3}}, 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for seed := range uint64(50) {
				res, err := Run(Race{Removed: 25, Into: 100, Lowest: 100, Players: tt.players}, random.Seeded(seed))
				if err != nil {
					t.Fatal(err)
				}
				won := 0
				for i, r := range res {
					if r.Won {
						won++
						// The winner holds the highest card among the losers' too.
						for _, o := range res {
							if !o.Won && len(o.Cards) > 0 && slices.Max(o.Cards) > slices.Max(r.Cards) {
								t.Fatalf("seat %d won with %v over seat %d's %v", r.Seat, r.Cards, o.Seat, o.Cards)
							}
						}
					}
					if int64(len(r.Cards))*25 != r.OddValue {
						t.Fatalf("seat %d: %d cards for %d odd value", r.Seat, len(r.Cards), r.OddValue)
					}
					if i > 0 && res[i-1].Seat > r.Seat {
						t.Fatal("results not in seat order")
					}
					if want, ok := tt.wantFixed[r.Seat]; ok && r.Stack != want {
						t.Fatalf("seat %d stack %d, want %d", r.Seat, r.Stack, want)
					}
					if r.Stack <= 0 {
						t.Fatalf("TR-22 seat %d knocked out by the race", r.Seat)
					}
					if r.Stack%100 != 0 {
						t.Fatalf("seat %d keeps %d: odd chips left", r.Seat, r.Stack)
					}
				}
				if won != tt.wantPrizes {
					t.Fatalf("%d chips won, want %d", won, tt.wantPrizes)
				}
			}
		})
	}
}

// TestRun_TR22_NoKnockOut: a player whose only chips are one odd chip and
// who loses the race gets one chip of the lowest denomination in play.
func TestRun_TR22_NoKnockOut(t *testing.T) {
	t.Parallel()
	for seed := range uint64(20) {
		res, err := Run(Race{Removed: 25, Into: 100, Lowest: 100, Players: []Player{
			{Seat: 1, PlayerID: "a", Stack: 25, Chips: 1}, {Seat: 2, PlayerID: "b", Stack: 25, Chips: 1}, {Seat: 3, PlayerID: "c", Stack: 25, Chips: 1},
		}}, random.Seeded(seed))
		if err != nil {
			t.Fatal(err)
		}
		// 75 pooled: one chip (75 >= 50). One winner, two who get the minimum.
		won := 0
		for _, r := range res {
			if r.Stack != 100 {
				t.Fatalf("seed %d seat %d stack %d, want 100", seed, r.Seat, r.Stack)
			}
			if r.Won {
				won++
			}
		}
		if won != 1 {
			t.Fatalf("seed %d: %d winners", seed, won)
		}
	}
}

// TestRun_TR22_DealFromSeatOne: the same deck gives the same cards to the
// same seats whatever order the players are listed in, because the deal
// always starts from the lowest seat.
func TestRun_TR22_DealFromSeatOne(t *testing.T) {
	t.Parallel()
	players := []Player{{Seat: 6, Stack: 125, Chips: 1}, {Seat: 2, Stack: 125, Chips: 1}, {Seat: 4, Stack: 150, Chips: 2}}
	reversed := slices.Clone(players)
	slices.Reverse(reversed)
	a, errA := Run(Race{Removed: 25, Into: 100, Lowest: 100, Players: players}, random.Seeded(3))
	b, errB := Run(Race{Removed: 25, Into: 100, Lowest: 100, Players: reversed}, random.Seeded(3))
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if a[0].Seat != 2 || a[1].Seat != 4 || a[2].Seat != 6 {
		t.Fatalf("results not from the lowest seat: %+v", a)
	}
	// Round-robin from seat 2: 2 gets card 0, 4 gets 1, 6 gets 2, 4 gets 3.
	if len(a[1].Cards) != 2 || a[1].Cards[1] == a[0].Cards[0] {
		t.Fatalf("seat 4 cards %v", a[1].Cards)
	}
	for i := range a {
		if !slices.Equal(a[i].Cards, b[i].Cards) || a[i].Won != b[i].Won {
			t.Fatalf("input order changed the race: %+v vs %+v", a[i], b[i])
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		r    Race
	}{
		{"into not a multiple", Race{Removed: 25, Into: 60, Lowest: 100}},
		{"more chips than stack", Race{Removed: 25, Into: 100, Lowest: 100, Players: []Player{{Seat: 1, Stack: 50, Chips: 3}}}},
		{"seat twice", Race{Removed: 25, Into: 100, Lowest: 100, Players: []Player{{Seat: 1, Stack: 50}, {Seat: 1, Stack: 50}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := Run(tt.r, random.Seeded(0)); fault.KindOf(err) != fault.Invalid {
				t.Fatalf("Run = %v", err)
			}
		})
	}
}
