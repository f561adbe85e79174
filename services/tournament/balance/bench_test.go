package balance

import (
	"fmt"
	"testing"
)

// BenchmarkBalanceAfterBust1100Tables is the decision the tournament makes
// after a bust at 1,100 nine-seat tables (target < 1 ms): which tables halt
// (G-25), which player moves where (TR-23), and whether a table can break.
// Half the tables have 9 players and half 8; the bust leaves one of the
// 8-player tables with 7, so the decision is one move from a full table.
func BenchmarkBalanceAfterBust1100Tables(b *testing.B) {
	const n = 1100
	tables := make([]Table, n)
	for i := range tables {
		seats := []int{1, 2, 3, 4, 5, 6, 7, 8, 9}
		if i%2 == 1 {
			seats = seats[:8]
		}
		tables[i] = table(fmt.Sprintf("t%04d", i), 9, 1+i%len(seats), seats...)
	}
	delete(tables[n-1].Seats, 3) // the bust
	b.ReportAllocs()
	var moves []Move
	for b.Loop() {
		_ = Halted(tables, Policy{})
		moves = Plan(tables, Policy{})
		_ = CanBreak(tables)
	}
	// The first full table gives its player: ties go to the earlier table.
	if len(moves) != 1 || moves[0].FromTable != tables[0].ID || moves[0].ToTable != tables[n-1].ID {
		b.Fatalf("after the bust at %s: moves %+v, want one move from %s to it", tables[n-1].ID, moves, tables[0].ID)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/decision")
}
