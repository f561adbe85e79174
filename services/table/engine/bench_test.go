package engine

import (
	"encoding/json"
	"syscall"
	"testing"
	"time"

	"math/rand/v2"

	"github.com/cardroom/cardroom/platform/random"
	"github.com/cardroom/cardroom/services/table/engine/cards"
)

// randomPolicy plays a hand to the end with cheap random choices from
// LegalActions: mostly check/call, sometimes fold, sometimes a random raise.
func randomPolicy(h *Hand, rng rand.Source) int {
	n := 0
	for !h.Done() {
		legal := h.LegalActions()
		r := rng.Uint64()
		l := legal[0]
		switch x := r % 100; {
		case x < 15:
			l = legal[0] // fold (or check / show)
		case x < 80:
			for _, c := range legal {
				if c.Kind == Check || c.Kind == Call || c.Kind == Show {
					l = c
				}
			}
		default:
			l = legal[len(legal)-1] // the aggressive option when offered
		}
		amt := l.Min
		if l.Max > l.Min {
			amt = l.Min + int64((r>>8)%uint64(l.Max-l.Min+1))
		}
		if _, err := h.Apply(Action{Seat: l.Seat, Kind: l.Kind, Amount: amt}); err != nil {
			panic(err)
		}
		n++
	}
	return n
}

// BenchmarkRandomHand6MaxNL plays complete random 6-max no-limit hold'em
// hands (shuffle, posts, deal, betting, showdown) on one reused Hand.
func BenchmarkRandomHand6MaxNL(b *testing.B) {
	cfg := nlhe(50, 100)
	ps := players(10000, 10000, 10000, 10000, 10000, 10000)
	deck := cards.NewDeck()
	rng := random.Seeded(1)
	var h Hand
	actions := 0
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		deck.Shuffle(rng)
		if err := h.Reset(cfg, Setup{Button: i % 6, Players: ps, Deck: deck}); err != nil {
			b.Fatal(err)
		}
		actions += randomPolicy(&h, rng)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "hands/s")
	// On a shared machine wall time overstates the cost; hands per second
	// of this process's CPU time is the one-core figure.
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(b.N)/cpu.Seconds(), "hands/cpu-s")
	}
	b.ReportMetric(float64(actions)/float64(b.N), "actions/hand")
}

// cpuTime is the user+system CPU time of this process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestResetMatchesNewHand plays the same random hands on one reused Hand
// (Reset, as the benchmark and a pool do) and on fresh ones: no state may
// leak from one hand into the next.
func TestResetMatchesNewHand(t *testing.T) {
	t.Parallel()
	cfg := nlhe(50, 100)
	ps := players(3000, 10000, 500, 10000, 10000, 2500)
	deck := cards.NewDeck()
	src := random.Seeded(9)
	var reused Hand
	for i := 0; i < 300; i++ {
		deck.Shuffle(src)
		seed := src.Uint64()
		if err := reused.Reset(cfg, Setup{Button: i % 6, Players: ps, Deck: deck}); err != nil {
			t.Fatal(err)
		}
		fresh := mustHand(t, cfg, Setup{Button: i % 6, Players: ps, Deck: deck})
		randomPolicy(&reused, random.Seeded(seed))
		randomPolicy(fresh, random.Seeded(seed))
		a, _ := json.Marshal(reused.Results())
		b, _ := json.Marshal(fresh.Results())
		if string(a) != string(b) {
			t.Fatalf("hand %d: reused %s, fresh %s", i, a, b)
		}
		checkConserved(t, &reused)
	}
}
