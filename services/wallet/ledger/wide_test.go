package ledger_test

import (
	"math"
	"testing"

	"github.com/cardroom/cardroom/services/wallet/ledger"
)

// split is what the SQL of the audit sends for a column of amounts: the
// sums of their high and low 32-bit halves.
func split(amounts ...int64) (high, low int64) {
	for _, a := range amounts {
		high += a >> 32
		low += a & 0xFFFFFFFF
	}
	return high, low
}

func TestWideSumsBeyondInt64(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		amounts []int64
		want    string
		fits    bool
	}{
		{"empty", nil, "0", true},
		{"small", []int64{5, -3, 100}, "102", true},
		{"two debits of 2^62 (issue 9)", []int64{1 << 62, 1 << 62}, "9223372036854775808", false},
		{"max and min", []int64{math.MaxInt64, math.MinInt64}, "-1", true},
		{"three minimums", []int64{math.MinInt64, math.MinInt64, math.MinInt64}, "-27670116110564327424", false},
		{"round trips net to zero", []int64{1 << 62, -(1 << 62), 1 << 62, -(1 << 62)}, "0", true},
		{"negatives", []int64{-1, -(1 << 40), -7}, "-1099511627784", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := ledger.JoinSplit(split(tc.amounts...))
			if w.String() != tc.want {
				t.Fatalf("sum = %s, want %s", w, tc.want)
			}
			var added ledger.Wide
			for _, a := range tc.amounts {
				added = added.Add(ledger.WideOf(a))
			}
			if added.Cmp(w) != 0 {
				t.Fatalf("added one by one = %s, split = %s", added, w)
			}
			if _, ok := w.Int64(); ok != tc.fits {
				t.Fatalf("fits int64 = %v, want %v", ok, tc.fits)
			}
		})
	}
}

// FuzzWideSplit checks that the split sums the audit's SQL returns always
// join to the exact sum, whatever the amounts.
func FuzzWideSplit(f *testing.F) {
	f.Add(int64(1<<62), int64(1<<62), int64(-5))
	f.Add(int64(math.MinInt64), int64(math.MaxInt64), int64(0))
	f.Fuzz(func(t *testing.T, a, b, c int64) {
		var exact ledger.Wide
		for _, v := range []int64{a, b, c} {
			exact = exact.Add(ledger.WideOf(v))
		}
		if got := ledger.JoinSplit(split(a, b, c)); got.Cmp(exact) != 0 {
			t.Fatalf("split of %d %d %d joins to %s, want %s", a, b, c, got, exact)
		}
	})
}
