package ledger

import (
	"math"
	"math/big"
)

// Wide is an exact sum of many amounts, beyond the int64 range of one
// amount: the audit and the cage report add up every entry of the books,
// and books written before amounts were bounded may hold sums no int64
// can (two deposit and withdrawal round trips of 2^62 leave debits of
// 2^63). The zero value is 0.
type Wide struct{ n big.Int }

// WideOf returns the Wide of one amount.
func WideOf(v int64) Wide {
	var w Wide
	w.n.SetInt64(v)
	return w
}

// JoinSplit joins, exactly, a sum that a SQL query handed over in two
// halves because it may not fit in int64: the sums of the high and low 32
// bits of each amount (amount >> 32 and amount & 0xFFFFFFFF), neither of
// which can overflow for fewer than 2^31 rows.
func JoinSplit(high, low int64) Wide {
	var w, l big.Int
	w.SetInt64(high)
	w.Lsh(&w, 32)
	l.SetInt64(low)
	w.Add(&w, &l)
	return Wide{n: w}
}

// Add returns w + v.
func (w Wide) Add(v Wide) Wide {
	var out Wide
	out.n.Add(&w.n, &v.n)
	return out
}

// Neg returns −w.
func (w Wide) Neg() Wide {
	var out Wide
	out.n.Neg(&w.n)
	return out
}

// Cmp compares w and v: −1, 0 or +1.
func (w Wide) Cmp(v Wide) int { return w.n.Cmp(&v.n) }

// Sign is −1, 0 or +1.
func (w Wide) Sign() int { return w.n.Sign() }

// Int64 returns w as an int64 when it fits (ok), and otherwise the int64
// end of the range it lies beyond.
func (w Wide) Int64() (v int64, ok bool) {
	if w.n.IsInt64() {
		return w.n.Int64(), true
	}
	if w.n.Sign() < 0 {
		return math.MinInt64, false
	}
	return math.MaxInt64, false
}

// String is the exact decimal value.
func (w Wide) String() string { return w.n.String() }
