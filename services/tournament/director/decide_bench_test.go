package director_test

import (
	"fmt"
	"testing"

	"github.com/cardroom/cardroom/services/tournament/balance"
	"github.com/cardroom/cardroom/services/tournament/director"
	"github.com/cardroom/cardroom/services/tournament/entry"
)

// field1100 is 1,100 nine-seat tables, full but the last with 8, and
// the entry of the player who busts there.
func field1100() (ens []entry.Entry, bust entry.Entry) {
	const tables = 1100
	for tb := 1; tb <= tables; tb++ {
		n := 9
		if tb == tables {
			n = 8
		}
		for s := 1; s <= n; s++ {
			ens = append(ens, entry.Entry{PlayerID: fmt.Sprintf("p%d-%d", tb, s), Status: entry.Active, Table: tb, Seat: s})
		}
	}
	return ens, ens[len(ens)-1]
}

// BenchmarkDecideAfterBust1100Tables is the director's whole decision
// after a bust at one of 1,100 nine-seat tables (issue 10, target < 1 ms)
// as HandEnded makes it: the seating it keeps between hands brought up to
// date by the entries that changed (Seating.Apply: the bust), the move the
// hand allows (DecideInOrder, TR-23, G-25) and the tables that halt (G-25). Every
// table is full but the last, left with 7 by the bust — too many players
// for a table to break — and the hand that ends is at table 1, so the
// decision is one move from it to the last table. Each iteration also
// seats the busted player again (a second Apply), so that every iteration
// decides on the same seating.
func BenchmarkDecideAfterBust1100Tables(b *testing.B) {
	ens, bust := field1100()
	seating := director.NewSeating(ens, 9)
	out := bust
	out.Status = entry.Busted
	hand := director.Hand{Table: 1, No: 40, DueBigBlind: "p1-3"}
	b.ReportAllocs()
	var moves []balance.Move
	for b.Loop() {
		seating.Apply(out)
		moves = director.DecideInOrder(seating.Plan(), hand, nil, nil)
		_ = balance.Halted(seating.Plan(), balance.Policy{})
		seating.Apply(bust)
	}
	if len(moves) != 1 || moves[0].PlayerID != "p1-3" || moves[0].ToTable != "1100" {
		b.Fatalf("after the bust: moves %+v, want p1-3 from table 1 to table 1100", moves)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/decision")
}

// BenchmarkDecideAfterBust1100TablesRebuilt is the same decision with the
// seating rebuilt from all 9,898 active entries (Plan), as the director
// made it before it kept the seating: the cost the kept seating saves.
func BenchmarkDecideAfterBust1100TablesRebuilt(b *testing.B) {
	ens, _ := field1100()
	ens[len(ens)-1].Status = entry.Busted
	hand := director.Hand{Table: 1, No: 40, DueBigBlind: "p1-3"}
	b.ReportAllocs()
	var moves []balance.Move
	for b.Loop() {
		plan := director.Plan(ens, 9)
		moves = director.DecideInOrder(plan, hand, nil, nil)
		_ = balance.Halted(plan, balance.Policy{})
	}
	if len(moves) != 1 || moves[0].PlayerID != "p1-3" || moves[0].ToTable != "1100" {
		b.Fatalf("after the bust: moves %+v, want p1-3 from table 1 to table 1100", moves)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/decision")
}
