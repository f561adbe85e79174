package enginebench

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"sync"
	"testing"

	"github.com/cardrank/cardrank"
	chehsunliu "github.com/chehsunliu/poker"
	paulhankin "github.com/paulhankin/poker"

	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/engine/eval"
)

// numHands random seven-card hands are generated once, converted to each
// library's card type before timing, and evaluated in the same order by
// every evaluator.
const numHands = 1 << 16

var (
	ours   [numHands][7]cards.Card
	ph     [numHands][7]paulhankin.Card
	cr     [numHands][7]cardrank.Card
	ch     [numHands][7]chehsunliu.Card
	sinkI  int64
	setup  sync.Once
	tpt    func([]cardrank.Card) cardrank.EvalRank
	rates  = map[string]float64{}
	ratesM sync.Mutex
)

func prepare() {
	setup.Do(func() {
		r := rand.New(rand.NewPCG(2026, 11))
		for i := range ours {
			var deck [cards.NumCards]cards.Card
			for j := range deck {
				deck[j] = cards.Card(j)
			}
			for j := 0; j < 7; j++ {
				k := j + r.IntN(cards.NumCards-j)
				deck[j], deck[k] = deck[k], deck[j]
				c := deck[j]
				ours[i][j] = c
				ph[i][j] = toPaulHankin(c)
				cr[i][j] = toCardrank(c)
				ch[i][j] = chehsunliu.NewCard(c.String())
			}
		}
		// The raw Two-Plus-Two lookup is cardrank's fastest seven-card
		// path; its Holdem.Eval uses it too but allocates around it.
		tpt = cardrank.NewTwoPlusTwoEval()
	})
}

func toPaulHankin(c cards.Card) paulhankin.Card {
	r := paulhankin.Rank(c.Rank()) // ace is 1 there, king 13
	if c.Rank() == cards.Ace {
		r = 1
	}
	s := [...]paulhankin.Suit{paulhankin.Club, paulhankin.Diamond, paulhankin.Heart, paulhankin.Spade}[c.Suit()]
	pc, err := paulhankin.MakeCard(s, r)
	if err != nil {
		panic(err)
	}
	return pc
}

func toCardrank(c cards.Card) cardrank.Card {
	s := [...]cardrank.Suit{cardrank.Club, cardrank.Diamond, cardrank.Heart, cardrank.Spade}[c.Suit()]
	return cardrank.New(cardrank.Rank(c.Rank()-2), s) // cardrank: Two = 0 … Ace = 12
}

// record keeps the evaluations per second of the final (reported) run.
func record(b *testing.B, name string) {
	s := b.Elapsed().Seconds()
	if s <= 0 {
		return
	}
	rate := float64(b.N) / s
	b.ReportMetric(rate, "evals/s")
	ratesM.Lock()
	rates[name] = rate
	ratesM.Unlock()
}

func BenchmarkEval7(b *testing.B) {
	prepare()
	b.Run("cardroom", func(b *testing.B) {
		b.ReportAllocs()
		var acc int64
		i := 0
		for b.Loop() {
			acc += int64(eval.High(ours[i&(numHands-1)][:]))
			i++
		}
		sinkI = acc
		record(b, "cardroom")
	})
	b.Run("cardrank-twoplustwo", func(b *testing.B) {
		b.ReportAllocs()
		var acc int64
		i := 0
		for b.Loop() {
			acc += int64(tpt(cr[i&(numHands-1)][:]))
			i++
		}
		sinkI = acc
		record(b, "cardrank-twoplustwo")
	})
	b.Run("cardrank-holdem", func(b *testing.B) {
		b.ReportAllocs()
		var acc int64
		i := 0
		for b.Loop() {
			h := &cr[i&(numHands-1)]
			acc += int64(cardrank.Holdem.Eval(h[:2], h[2:]).HiRank)
			i++
		}
		sinkI = acc
		record(b, "cardrank-holdem")
	})
	b.Run("paulhankin-v1", func(b *testing.B) {
		b.ReportAllocs()
		var acc int64
		i := 0
		for b.Loop() {
			acc += int64(paulhankin.Eval7(&ph[i&(numHands-1)]))
			i++
		}
		sinkI = acc
		record(b, "paulhankin-v1")
	})
	b.Run("chehsunliu", func(b *testing.B) {
		b.ReportAllocs()
		var acc int64
		i := 0
		for b.Loop() {
			acc += int64(chehsunliu.Evaluate(ch[i&(numHands-1)][:]))
			i++
		}
		sinkI = acc
		record(b, "chehsunliu")
	})
}

// TestMain prints, after a benchmark run, each evaluator's rate and how
// many times faster cardroom's is, so one run gives the whole comparison.
func TestMain(m *testing.M) {
	code := m.Run()
	ratesM.Lock()
	defer ratesM.Unlock()
	if ours, ok := rates["cardroom"]; ok && len(rates) > 1 {
		names := make([]string, 0, len(rates))
		for n := range rates {
			names = append(names, n)
		}
		sort.Slice(names, func(i, j int) bool { return rates[names[i]] > rates[names[j]] })
		fmt.Println("seven-card evaluations per second (same hands, same run):")
		fastestPeer := 0.0
		for _, n := range names {
			fmt.Printf("  %-22s %14.0f  cardroom is %.1fx\n", n, rates[n], ours/rates[n])
			if n != "cardroom" && rates[n] > fastestPeer {
				fastestPeer = rates[n]
			}
		}
		fmt.Printf("cardroom vs fastest peer: %.2fx (target 2x)\n", ours/fastestPeer)
	}
	os.Exit(code)
}
