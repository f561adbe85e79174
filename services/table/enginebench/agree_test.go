package enginebench

import (
	"testing"

	"github.com/cardrank/cardrank"
	chehsunliu "github.com/chehsunliu/poker"
	paulhankin "github.com/paulhankin/poker"

	"github.com/cardroom/cardroom/services/table/engine/eval"
)

// TestPeersAgree proves the card conversions are right, so the benchmark
// compares evaluators doing the same job: on neighbouring benchmark hands,
// every peer must order the two hands as eval.High does. cardrank and
// chehsunliu rank 1 as the best hand; paulhankin ranks higher as better.
func TestPeersAgree(t *testing.T) {
	prepare()
	sign := func(d int64) int {
		switch {
		case d > 0:
			return 1
		case d < 0:
			return -1
		}
		return 0
	}
	const n = 4000
	for i := 0; i+1 < n; i++ {
		want := sign(int64(eval.High(ours[i][:])) - int64(eval.High(ours[i+1][:])))
		got := map[string]int{
			"paulhankin-v1":       sign(int64(paulhankin.Eval7(&ph[i])) - int64(paulhankin.Eval7(&ph[i+1]))),
			"cardrank-twoplustwo": sign(int64(tpt(cr[i+1][:])) - int64(tpt(cr[i][:]))),
			"cardrank-holdem": sign(int64(cardrank.Holdem.Eval(cr[i+1][:2], cr[i+1][2:]).HiRank) -
				int64(cardrank.Holdem.Eval(cr[i][:2], cr[i][2:]).HiRank)),
			"chehsunliu": sign(int64(chehsunliu.Evaluate(ch[i+1][:])) - int64(chehsunliu.Evaluate(ch[i][:]))),
		}
		for name, g := range got {
			if g != want {
				t.Fatalf("hand %d vs %d: %s orders them %d, cardroom %d (%#x vs %#x)", i, i+1, name, g, want,
					uint32(eval.High(ours[i][:])), uint32(eval.High(ours[i+1][:])))
			}
		}
	}
}
