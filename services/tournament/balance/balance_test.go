package balance

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cardroom/cardroom/platform/random"
)

// table builds a table of maxSeats with the given occupied seats; player
// ids are "<id>-<seat>".
func table(id string, maxSeats, button int, seats ...int) Table {
	t := Table{ID: id, MaxSeats: maxSeats, Button: button, Seats: map[int]string{}}
	for _, s := range seats {
		t.Seats[s] = fmt.Sprintf("%s-%d", id, s)
	}
	return t
}

func TestWorstSeat_G25(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		t    Table
		want int
	}{
		{"G-25 the seat that posts the big blind next", table("a", 9, 1, 1, 2, 3, 5, 6, 7, 8), 4},
		{"G-25 never the small blind: the next worst", table("a", 9, 2, 1, 2, 3, 5, 6, 7, 8), 9},
		{"G-25 only the small blind's seat is free: still seated", table("a", 9, 2, 1, 2, 3, 5, 6, 7, 8, 9), 4},
		{"G-25 soonest big blind among several", table("a", 9, 6, 1, 3, 6, 8), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := tt.t.WorstSeat()
			if !ok || got != tt.want {
				t.Fatalf("WorstSeat = %d, %v; want %d", got, ok, tt.want)
			}
		})
	}
	if _, ok := table("full", 2, 1, 1, 2).WorstSeat(); ok {
		t.Fatal("full table offered a seat")
	}
}

func TestDueBigBlind_TR23(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		t    Table
		want int
	}{
		{"TR-23 button 1: big blind at 4", table("a", 9, 1, 1, 2, 3, 4, 5), 4},
		{"TR-23 gaps are skipped", table("a", 9, 1, 1, 2, 3, 5, 6), 5},
		{"TR-23 wraps round the table", table("a", 9, 7, 1, 2, 7, 8, 9), 1},
		{"G-04 heads-up: the button posts the small blind", table("a", 9, 2, 2, 6), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.t.DueBigBlind(); got != tt.want {
				t.Fatalf("DueBigBlind = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestPlan_TR23_G25(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    []Table
		moves []Move
	}{
		{"TR-23 balanced within one: nothing moves", []Table{table("a", 9, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9), table("b", 9, 1, 1, 2, 3, 4, 5, 6, 7, 8)}, nil},
		{"TR-23 G-25 two short: big blind next moves to the worst seat", []Table{
			table("a", 9, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9), table("b", 9, 1, 1, 2, 3, 5, 6, 7, 8)},
			[]Move{{PlayerID: "a-4", FromTable: "a", FromSeat: 4, ToTable: "b", ToSeat: 4, Rule: "TR-23"}}},
		{"TR-23 four short: two move, each the next big blind", []Table{
			table("a", 9, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9), table("b", 9, 1, 1, 2, 3, 5, 6)},
			[]Move{
				{PlayerID: "a-4", FromTable: "a", FromSeat: 4, ToTable: "b", ToSeat: 4, Rule: "TR-23"},
				{PlayerID: "a-5", FromTable: "a", FromSeat: 5, ToTable: "b", ToSeat: 7, Rule: "TR-23"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := clone(tt.in)
			got := Plan(tt.in, Policy{})
			if !slices.Equal(got, tt.moves) {
				t.Fatalf("Plan = %+v\nwant %+v", got, tt.moves)
			}
			for i := range tt.in {
				if len(tt.in[i].Seats) != len(before[i].Seats) {
					t.Fatal("Plan changed its input")
				}
			}
		})
	}
}

func TestHalted_G25(t *testing.T) {
	t.Parallel()
	tables := []Table{table("a", 9, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9), table("b", 9, 1, 1, 2, 3, 4, 5, 6), table("c", 9, 1, 1, 2, 3, 4, 5, 6, 7)}
	if got := Halted(tables, Policy{}); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("G-25 3 short halts: Halted = %v, want [b]", got)
	}
	if got := Halted(tables, Policy{HaltShortBy: 4}); got != nil {
		t.Fatalf("house threshold 4: Halted = %v", got)
	}
}

func TestBreak(t *testing.T) {
	t.Parallel()
	tables := []Table{table("a", 9, 1, 1, 2, 3, 4, 5, 6), table("b", 9, 1, 1, 2, 3, 4, 5, 6, 7), table("c", 9, 1, 1, 3, 5, 7)}
	if !CanBreak(tables) {
		t.Fatal("17 players on 3 nine-max tables fit on two")
	}
	moves, err := Break(tables, "c", random.Seeded(7))
	if err != nil {
		t.Fatal(err)
	}
	if len(moves) != 4 {
		t.Fatalf("moves %+v", moves)
	}
	size := map[string]int{"a": 6, "b": 7}
	taken := map[string]bool{}
	for _, m := range moves {
		if m.FromTable != "c" || m.Rule != "TR-06" || m.ToTable == "c" {
			t.Fatalf("move %+v", m)
		}
		key := fmt.Sprintf("%s/%d", m.ToTable, m.ToSeat)
		if _, occupied := tables[slices.IndexFunc(tables, func(t Table) bool { return t.ID == m.ToTable })].Seats[m.ToSeat]; occupied || taken[key] {
			t.Fatalf("seat %s given twice or occupied", key)
		}
		taken[key] = true
		size[m.ToTable]++
	}
	if d := size["a"] - size["b"]; size["a"]+size["b"] != 17 || d < -1 || d > 1 {
		t.Fatalf("after the break a=%d b=%d, want the fewest filled first: 9 and 8 either way", size["a"], size["b"])
	}
	if CanBreak([]Table{table("a", 9, 1, 1, 2, 3, 4, 5, 6), table("b", 9, 1, 1, 2, 3, 4)}) {
		t.Fatal("10 players do not fit on one table")
	}
	if _, err := Break([]Table{table("a", 2, 1, 1, 2), table("b", 2, 1, 1, 2)}, "b", random.Seeded(0)); err == nil {
		t.Fatal("break without room accepted")
	}
}

func TestDodgedBlinds_TR24(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name             string
		stack            int64
		sb, bb           bool
		wantStack, wantD int64
	}{
		{"TR-24 dodged both blinds", 5000, true, true, 4700, 300},
		{"TR-24 dodged the big blind", 5000, false, true, 4800, 200},
		{"TR-24 never more than the stack", 150, true, true, 0, 150},
		{"nothing dodged", 5000, false, false, 5000, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, d := DodgedBlinds(tt.stack, 100, 200, tt.sb, tt.bb)
			if s != tt.wantStack || d != tt.wantD {
				t.Fatalf("DodgedBlinds = %d, %d; want %d, %d", s, d, tt.wantStack, tt.wantD)
			}
		})
	}
}

func TestPlace_G23(t *testing.T) {
	t.Parallel()
	tables := []Table{table("1", 9, 1, 1, 2, 3, 4, 5, 6, 7), table("2", 9, 1, 1, 2, 3, 4, 5), table("3", 9, 1, 2, 4, 6, 8, 9)}
	seen := map[int]bool{}
	for seed := range uint64(200) {
		id, seat, ok := Place(tables, random.Seeded(seed))
		if !ok || id == "1" {
			t.Fatalf("G-23 late entry placed at %s/%d, %v; want a table with five", id, seat, ok)
		}
		if _, taken := tables[slices.IndexFunc(tables, func(t Table) bool { return t.ID == id })].Seats[seat]; taken {
			t.Fatalf("seat %s/%d taken", id, seat)
		}
		if id == "2" {
			seen[seat] = true
		}
	}
	if len(seen) != 4 {
		t.Fatalf("TR-06 empty seats at table 2 drawn: %v, want all four", seen)
	}
	if _, _, ok := Place([]Table{table("1", 2, 1, 1, 2)}, random.Seeded(0)); ok {
		t.Fatal("placed at a full table")
	}
}
