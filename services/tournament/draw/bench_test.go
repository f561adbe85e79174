package draw

import (
	"testing"

	"github.com/cardroom/cardroom/platform/random"
)

// benchEntrants is the field of issue 10's draw benchmarks.
const benchEntrants = 10_000

// BenchmarkSeatDraw10000 draws seats for 10,000 entrants at 9-handed
// tables (TR-06): 1,112 tables.
func BenchmarkSeatDraw10000(b *testing.B) {
	field, src := players(benchEntrants), random.Seeded(1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Seats(field, 9, src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTablePlan10000 is the whole opening plan for 10,000 entrants:
// the seat draw, then each table's seats gathered and its button drawn
// (TR-06, TR-07, G-28) — what the tournament needs to open its tables.
func BenchmarkTablePlan10000(b *testing.B) {
	field, src := players(benchEntrants), random.Seeded(1)
	b.ReportAllocs()
	tables := 0
	for b.Loop() {
		seats, err := Seats(field, 9, src)
		if err != nil {
			b.Fatal(err)
		}
		tables = 0
		for lo := 0; lo < len(seats); {
			hi := lo
			var at []int
			for ; hi < len(seats) && seats[hi].Table == seats[lo].Table; hi++ {
				at = append(at, seats[hi].Seat)
			}
			if _, err := Button(at, src); err != nil {
				b.Fatal(err)
			}
			tables++
			lo = hi
		}
	}
	if tables != (benchEntrants+8)/9 {
		b.Fatalf("planned %d tables for %d entrants, want %d", tables, benchEntrants, (benchEntrants+8)/9)
	}
	b.ReportMetric(float64(tables), "tables")
}
