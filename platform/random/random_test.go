package random_test

import (
	"sync"
	"testing"

	"github.com/cardroom/cardroom/platform/random"
)

func TestSeededRepeatsAndSeedsDiffer(t *testing.T) {
	t.Parallel()
	draw := func(seed uint64) [8]uint64 {
		var out [8]uint64
		src := random.Seeded(seed)
		for i := range out {
			out[i] = src.Uint64()
		}
		return out
	}
	if draw(7) != draw(7) {
		t.Fatal("one seed gave two streams")
	}
	if draw(7) == draw(8) {
		t.Fatal("two seeds gave one stream")
	}
}

// TestCryptoNeverRepeats: two reads of crypto/rand agreeing on 8 values
// has probability 2^-512; a source that returned a constant fails.
func TestCryptoNeverRepeats(t *testing.T) {
	t.Parallel()
	src := random.Crypto()
	var a, b [8]uint64
	for i := range a {
		a[i], b[i] = src.Uint64(), src.Uint64()
	}
	if a == b {
		t.Fatalf("crypto source repeated itself: %v", a)
	}
}

// TestLockedSharesOneStream: a locked source read from many goroutines
// hands out the wrapped stream's values, each exactly once (run with
// -race, an unlocked PCG fails).
func TestLockedSharesOneStream(t *testing.T) {
	t.Parallel()
	const workers, each = 8, 500
	want := map[uint64]int{}
	ref := random.Seeded(3)
	for range workers * each {
		want[ref.Uint64()]++
	}
	src := random.Locked(random.Seeded(3))
	got := make([][]uint64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for range each {
				got[w] = append(got[w], src.Uint64())
			}
		})
	}
	wg.Wait()
	for _, vs := range got {
		for _, v := range vs {
			want[v]--
		}
	}
	for v, n := range want {
		if n != 0 {
			t.Fatalf("value %d drawn %d times too few", v, n)
		}
	}
}
