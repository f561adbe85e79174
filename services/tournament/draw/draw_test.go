package draw

import (
	"maps"
	"slices"
	"strconv"
	"testing"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/random"
)

func players(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "p" + strconv.Itoa(i+1)
	}
	return out
}

func TestSeats_TR06(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		n, seats  int
		wantSizes []int
	}{
		{"TR-06 one table", 7, 9, []int{7}},
		{"TR-06 two full tables", 18, 9, []int{9, 9}},
		{"TR-06 sizes differ by at most one", 20, 9, []int{7, 7, 6}},
		{"TR-06 six-max", 13, 6, []int{5, 4, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Seats(players(tt.n), tt.seats, random.Seeded(42))
			if err != nil {
				t.Fatal(err)
			}
			sizes := make([]int, len(tt.wantSizes))
			seen := map[string]bool{}
			places := map[[2]int]bool{}
			for _, s := range got {
				if s.Table < 1 || s.Table > len(sizes) || s.Seat < 1 || s.Seat > tt.seats {
					t.Fatalf("seat out of range: %+v", s)
				}
				sizes[s.Table-1]++
				if seen[s.PlayerID] || places[[2]int{s.Table, s.Seat}] {
					t.Fatalf("player or seat twice: %+v", s)
				}
				seen[s.PlayerID], places[[2]int{s.Table, s.Seat}] = true, true
			}
			if !slices.Equal(sizes, tt.wantSizes) || len(seen) != tt.n {
				t.Fatalf("sizes %v (players %d), want %v", sizes, len(seen), tt.wantSizes)
			}
			// The same seed replays the same draw; it is a log, not a secret.
			again, _ := Seats(players(tt.n), tt.seats, random.Seeded(42))
			if !slices.Equal(got, again) {
				t.Fatal("same seed, different draw")
			}
		})
	}
}

// TestSeats_TR06_Random checks that the draw is not a fixed order: over
// many seeds, the first player lands in every seat of a one-table event.
func TestSeats_TR06_Random(t *testing.T) {
	t.Parallel()
	hits := map[int]int{}
	for seed := range uint64(900) {
		got, err := Seats(players(9), 9, random.Seeded(seed))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range got {
			if s.PlayerID == "p1" {
				hits[s.Seat]++
			}
		}
	}
	for seat := 1; seat <= 9; seat++ {
		// Expected 100 each; 50 is far outside chance for a fair draw.
		if hits[seat] < 50 {
			t.Fatalf("p1 drew seat %d only %d times in 900: %v", seat, hits[seat], hits)
		}
	}
}

func TestSeatsRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		players []string
		seats   int
		reason  string
	}{
		{"no players", nil, 9, "NO_ENTRIES"},
		{"table too big", players(3), 11, "INVALID_ARGUMENT"},
		{"duplicate player", []string{"a", "b", "a"}, 9, "INVALID_ARGUMENT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Seats(tt.players, tt.seats, random.Seeded(0))
			if f, ok := fault.As(err); !ok || f.Reason != tt.reason {
				t.Fatalf("err = %v, want %s", err, tt.reason)
			}
		})
	}
}

// zero is a source that always answers 0.
type zero struct{}

func (zero) Uint64() uint64 { return 0 }

func TestButton_TR07_G28(t *testing.T) {
	t.Parallel()
	t.Run("G-28 highest card by suit wins", func(t *testing.T) {
		t.Parallel()
		for seed := range uint64(200) {
			b, err := Button([]int{1, 3, 4, 7, 9}, random.Seeded(seed))
			if err != nil {
				t.Fatal(err)
			}
			cards := slices.Collect(maps.Values(b.Cards))
			if len(cards) != 5 || len(slices.Compact(slices.Sorted(slices.Values(cards)))) != 5 {
				t.Fatalf("cards %v", b.Cards)
			}
			if b.Cards[b.Winner] != slices.Max(cards) {
				t.Fatalf("winner %d with %s, cards %v", b.Winner, b.Cards[b.Winner], b.Cards)
			}
		}
	})
	t.Run("G-28 same rank: spades beat hearts", func(t *testing.T) {
		t.Parallel()
		as, ah := Card(12*4+3), Card(12*4+2)
		if as.String() != "As" || ah.String() != "Ah" || as <= ah {
			t.Fatalf("As=%s Ah=%s", as, ah)
		}
	})
	t.Run("TR-07 needs two players", func(t *testing.T) {
		t.Parallel()
		if _, err := Button([]int{4}, zero{}); err == nil {
			t.Fatal("one-seat draw accepted")
		}
		if _, err := Button([]int{4, 4}, zero{}); err == nil {
			t.Fatal("duplicate seat accepted")
		}
	})
}
