package director_test

import (
	"fmt"
	"testing"

	"github.com/cardroom/cardroom/services/tournament/balance"
	"github.com/cardroom/cardroom/services/tournament/director"
	"github.com/cardroom/cardroom/services/tournament/entry"
)

// BenchmarkDecideAfterBust1100Tables is the director's whole decision
// after a bust at one of 1,100 nine-seat tables (issue 10, target < 1 ms):
// the seating rebuilt from the 9,898 active entries (Plan), the move the
// hand allows (Decide, TR-23, G-25) and the tables that halt (G-25). Every
// table is full but the last, left with 7 by the bust — too many players
// for a table to break — and the hand that ends is at table 1, so the
// decision is one move from it to the last table.
func BenchmarkDecideAfterBust1100Tables(b *testing.B) {
	const tables = 1100
	var ens []entry.Entry
	for tb := 1; tb <= tables; tb++ {
		n := 9
		if tb == tables {
			n = 7 // the bust
		}
		for s := 1; s <= n; s++ {
			ens = append(ens, entry.Entry{PlayerID: fmt.Sprintf("p%d-%d", tb, s), Status: entry.Active, Table: tb, Seat: s})
		}
	}
	hand := director.Hand{Table: 1, No: 40, DueBigBlind: "p1-3"}
	b.ReportAllocs()
	var moves []balance.Move
	for b.Loop() {
		plan := director.Plan(ens, 9)
		moves = director.Decide(plan, hand, nil)
		_ = balance.Halted(plan, balance.Policy{})
	}
	if len(moves) != 1 || moves[0].PlayerID != "p1-3" || moves[0].ToTable != fmt.Sprint(tables) {
		b.Fatalf("after the bust: moves %+v, want p1-3 from table 1 to table %d", moves, tables)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/decision")
}
