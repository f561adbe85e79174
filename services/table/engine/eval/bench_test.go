package eval

import (
	"math/rand/v2"
	"testing"

	"github.com/cardroom/cardroom/services/table/engine/cards"
)

// benchHands is a fixed set of random hands, so every run measures the same
// work; 1<<16 hands cycle through the caches like a real mix of hands would.
func benchHands(n, size int) [][]cards.Card {
	r := rand.New(rand.NewPCG(42, 7))
	hs := make([][]cards.Card, n)
	for i := range hs {
		hs[i] = deal(r, size)
	}
	return hs
}

var sink Value

// reportEvals reports evaluations per second next to ns/op.
func reportEvals(b *testing.B) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(b.N)/s, "evals/s")
	}
}

func BenchmarkHigh7(b *testing.B) {
	hs := benchHands(1<<16, 7)
	b.ReportAllocs()
	var acc Value
	i := 0
	for b.Loop() {
		acc += High(hs[i&(1<<16-1)])
		i++
	}
	sink = acc
	reportEvals(b)
}

func BenchmarkHigh5(b *testing.B) {
	hs := benchHands(1<<16, 5)
	b.ReportAllocs()
	var acc Value
	i := 0
	for b.Loop() {
		acc += High(hs[i&(1<<16-1)])
		i++
	}
	sink = acc
	reportEvals(b)
}

func BenchmarkOmaha(b *testing.B) {
	hs := benchHands(1<<14, 9)
	b.ReportAllocs()
	var acc Value
	i := 0
	for b.Loop() {
		h := hs[i&(1<<14-1)]
		acc += Omaha(h[:4], h[4:])
		i++
	}
	sink = acc
	reportEvals(b)
}

func BenchmarkOmahaLow8(b *testing.B) {
	hs := benchHands(1<<14, 9)
	b.ReportAllocs()
	var acc Value
	i := 0
	for b.Loop() {
		h := hs[i&(1<<14-1)]
		v, _ := OmahaLow8(h[:4], h[4:])
		acc += v
		i++
	}
	sink = acc
	reportEvals(b)
}

func BenchmarkLow8(b *testing.B) {
	hs := benchHands(1<<16, 7)
	b.ReportAllocs()
	var acc Value
	i := 0
	for b.Loop() {
		v, _ := Low8(hs[i&(1<<16-1)])
		acc += v
		i++
	}
	sink = acc
	reportEvals(b)
}

func BenchmarkRazz(b *testing.B) {
	hs := benchHands(1<<16, 7)
	b.ReportAllocs()
	var acc Value
	i := 0
	for b.Loop() {
		acc += Razz(hs[i&(1<<16-1)])
		i++
	}
	sink = acc
	reportEvals(b)
}
