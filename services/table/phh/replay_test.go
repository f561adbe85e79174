package phh

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cardroom/cardroom/services/table/engine"
)

func replayFile(t *testing.T, path string) (*History, Line) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line := Replay(f, path)
	return parseFile(t, path), line
}

// TestReplayPluribusSamples replays every Pluribus sample through the engine
// and compares the stacks it computes with the file's finishing_stacks.
func TestReplayPluribusSamples(t *testing.T) {
	t.Parallel()
	files := sampleFiles(t, "pluribus")
	if len(files) != 15 {
		t.Fatalf("%d Pluribus samples, want 15", len(files))
	}
	for _, path := range files {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			h, line := replayFile(t, path)
			if line.Err != nil || line.Reject != nil {
				t.Fatalf("replay: %s", line)
			}
			if got, want := numberList(line.Stacks), numberList(h.FinishingStacks); got != want {
				t.Fatalf("stacks %s, finishing_stacks %s", got, want)
			}
		})
	}
}

// TestReplayVariants replays the hand-written samples in the other variants
// (FT, PO, FO/8, F7S, F7S/8, FR, heads-up NT with unknown cards, a straddle
// with a big-blind ante), whose finishing_stacks were worked out by hand,
// and real stud, Omaha hi/lo and razz hands from the 2023 WSOP whose
// finishing_stacks PokerKit's tests assert.
func TestReplayVariants(t *testing.T) {
	t.Parallel()
	for _, path := range append(sampleFiles(t, "variants"), sampleFiles(t, "wsop2023")...) {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			h, line := replayFile(t, path)
			if line.Err != nil || line.Reject != nil {
				t.Fatalf("replay: %s", line)
			}
			if got, want := numberList(line.Stacks), numberList(h.FinishingStacks); got != want {
				t.Fatalf("stacks %s, finishing_stacks %s", got, want)
			}
		})
	}
}

// TestReplayRejects checks that an illegal action is reported as REJECT@k,
// k being its index in actions, with the engine's reason (or the format
// reason for a card dealt twice).
func TestReplayRejects(t *testing.T) {
	t.Parallel()
	const nt3 = "variant = \"NT\"\nantes = [0, 0, 0]\nblinds_or_straddles = [1, 2, 0]\nmin_bet = 2\nstarting_stacks = [100, 100, 100]\n"
	const deal = `"d dh p1 AcKd", "d dh p2 QcQd", "d dh p3 7h2s", `
	tests := []struct {
		name   string
		file   string
		index  int
		reason error // errors.Is target
		text   string
	}{
		{
			name: "TP-22 raise below the minimum", file: nt3 + "actions = [" + deal + `"p3 cbr 3"]`,
			index: 3, reason: engine.ErrRaiseBelowMinimum, text: "REJECT@3\t",
		},
		{
			name: "TP-46 acting out of turn", file: nt3 + "actions = [" + deal + `"p1 f"]`,
			index: 3, reason: engine.ErrOutOfTurn, text: "REJECT@3\t",
		},
		{
			name: "check facing a bet", file: nt3 + "actions = [" + deal + `"p3 cbr 6", "p1 cc", "p2 cc"]`,
			// cc maps to call when facing a bet, so this is legal; the
			// rejection comes from the bet above the stack below.
			index: -1,
		},
		{
			name: "bet above the stack", file: nt3 + "actions = [" + deal + `"p3 cbr 101"]`,
			index: 3, reason: engine.ErrAboveStack, text: "REJECT@3\t",
		},
		{
			name: "duplicate card", file: nt3 + `actions = ["d dh p1 AcKd", "d dh p2 AcQd", "d dh p3 7h2s"]`,
			index: 1, reason: ErrDuplicateCard, text: "REJECT@1\t",
		},
		{
			name: "flop dealt before the round closed", file: nt3 + "actions = [" + deal + `"p3 cc", "d db 2c3c4c"]`,
			index: 4, reason: ErrDealtEarly, text: "REJECT@4\t",
		},
		{
			name: "action after the hand ended", file: nt3 + "actions = [" + deal + `"p3 f", "p1 f", "p2 cc"]`,
			index: 5, reason: engine.ErrHandOver, text: "REJECT@5\t",
		},
		{
			name: "TP-66 showing out of turn with no show by the player in turn",
			file: "variant = \"NT\"\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\nstarting_stacks = [100, 100]\n" +
				`actions = ["d dh p1 AsTd", "d dh p2 8sQc", "p2 cc", "p1 cbr 10", "p2 cc", "d db 6sJhQs", "p1 cc", "p2 cc", "d db 7h", "p1 cc", "p2 cc", "d db 4h", "p1 cc", "p2 cc", "p2 sm 8sQc"]`,
			index: 14, reason: engine.ErrOutOfTurn, text: "REJECT@14\t",
		},
		{
			name: "no such player", file: nt3 + "actions = [" + deal + `"p4 f"]`,
			index: 3, reason: ErrNoSuchPlayer, text: "REJECT@3\t",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			line := Replay(strings.NewReader(tt.file), "x.phh")
			if tt.index < 0 {
				if line.Reject != nil || line.Err != nil {
					t.Fatalf("want accepted, got %s", line)
				}
				return
			}
			if line.Reject == nil {
				t.Fatalf("want REJECT@%d, got %s", tt.index, line)
			}
			if line.Reject.Index != tt.index || !errors.Is(line.Reject, tt.reason) {
				t.Fatalf("got %s (%v); want index %d reason %v", line, line.Reject.Err, tt.index, tt.reason)
			}
			if s := line.String(); !strings.HasPrefix(s, "x.phh\t"+tt.text) || strings.Count(s, "\t") != 2 || strings.Contains(s, "\n") {
				t.Fatalf("line %q", s)
			}
		})
	}
}

// TestReplayLines checks accepted histories beyond the samples: a partial
// history (stacks behind), amounts in floats, an unknown (inf) stack, and
// files that cannot be replayed at all.
func TestReplayLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		file string
		want string
	}{
		{
			name: "partial history gives the stacks behind",
			file: "variant = \"NT\"\nantes = [0, 0, 0]\nblinds_or_straddles = [1, 2, 0]\nmin_bet = 2\nstarting_stacks = [100, 100, 100]\n" +
				`actions = ["d dh p1 AcKd", "d dh p2 QcQd", "d dh p3 7h2s", "p3 cbr 6"]`,
			want: "f\tSTACKS\t[99, 98, 94]",
		},
		{
			name: "finishing_stacks is ignored",
			file: "variant = \"NT\"\nantes = [0, 0, 0]\nblinds_or_straddles = [1, 2, 0]\nmin_bet = 2\nstarting_stacks = [100, 100, 100]\n" +
				`actions = ["d dh p1 AcKd", "d dh p2 QcQd", "d dh p3 7h2s", "p3 f", "p1 f"]` + "\nfinishing_stacks = [1, 2, 297]",
			want: "f\tSTACKS\t[99, 101, 100]",
		},
		{
			name: "showdown listed in another order than TP-62/TP-63",
			file: "variant = \"NT\"\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\nstarting_stacks = [100, 100]\n" +
				`actions = ["d dh p1 AsTd", "d dh p2 8sQc", "p2 cc", "p1 cbr 10", "p2 cc", "d db 6sJhQs", "p1 cc", "p2 cc", "d db 7h", "p1 cc", "p2 cc", "d db 4h", "p1 cc", "p2 cc", "p2 sm 8sQc", "p1 sm AsTd"]`,
			want: "f\tSTACKS\t[90, 110]",
		},
		{
			name: "float amounts",
			file: "variant = \"NT\"\nantes = [0.0, 0.0, 0.0]\nblinds_or_straddles = [0.25, 0.5, 0.0]\nmin_bet = 0.5\nstarting_stacks = [50.0, 50.0, 50.0]\n" +
				`actions = ["d dh p1 AcKd", "d dh p2 QcQd", "d dh p3 7h2s", "p3 cbr 1.75", "p1 f", "p2 f"]`,
			want: "f\tSTACKS\t[49.75, 49.5, 50.75]",
		},
		{
			name: "unknown stack",
			file: "variant = \"NT\"\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\nstarting_stacks = [inf, 100]\n" +
				`actions = ["d dh p1 ????", "d dh p2 ????", "p2 cbr 100", "p1 f"]`,
			want: "f\tSTACKS\t[inf, 102]",
		},
		{
			name: "unknown cards at showdown are filled from what is shown",
			file: "variant = \"FT\"\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nsmall_bet = 2\nbig_bet = 4\nstarting_stacks = [10, 10]\n" +
				`actions = ["d dh p1 ????", "d dh p2 ????", "p2 cc", "p1 cc", "d db 2c3d4h", "p1 cc", "p2 cc", "d db 9s", "p1 cc", "p2 cc", "d db Kd", "p1 cc", "p2 cc", "p1 sm AsAh", "p2 sm 7c7d"]`,
			want: "f\tSTACKS\t[12, 8]",
		},
		{
			name: "unsupported variant",
			file: "variant = \"NS\"\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\nstarting_stacks = [100, 100]\nactions = []",
			want: "f\tERROR\tvariant NS: not supported by the engine",
		},
		{
			name: "not TOML",
			file: "variant = ",
			want: "f\tERROR\tinvalid PHH: toml:",
		},
		{
			name: "wrong number of hole cards",
			file: "variant = \"NT\"\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\nstarting_stacks = [100, 100]\n" +
				`actions = ["d dh p1 AcKdQh", "d dh p2 ????"]`,
			want: "f\tREJECT@0\tdeals 3 cards, NT deals 2 first: wrong number of cards",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Replay(strings.NewReader(tt.file), "f").String()
			if !strings.HasPrefix(got, tt.want) {
				t.Fatalf("got  %q\nwant %q…", got, tt.want)
			}
		})
	}
}

// FuzzReplay checks that the replayer never panics and always gives exactly
// one of stacks, a rejection or an error, whatever the file.
func FuzzReplay(f *testing.F) {
	for _, dir := range []string{"pluribus", "variants"} {
		for _, p := range sampleFiles(f, dir) {
			data, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		line := Replay(strings.NewReader(string(data)), "f")
		set := 0
		if line.Reject != nil {
			set++
		}
		if line.Err != nil {
			set++
		}
		if line.Stacks != nil {
			set++
		}
		if set != 1 {
			t.Fatalf("line %+v", line)
		}
		if s := line.String(); strings.Count(s, "\t") != 2 || strings.Contains(s, "\n") {
			t.Fatalf("line %q", s)
		}
	})
}

// TestReplayDataset replays a real tournament hand from the PHH dataset:
// the file as published leaves out the button's fold, which the engine
// refuses as acting out of turn (TP-46); with the fold put back the hand
// must end with the dataset's finishing_stacks.
func TestReplayDataset(t *testing.T) {
	t.Parallel()
	_, line := replayFile(t, "testdata/dataset/wsop-2019-42-3-00-01-07.phh")
	if line.Reject == nil || line.Reject.Index != 13 || !errors.Is(line.Reject, engine.ErrOutOfTurn) {
		t.Fatalf("published file: %s; want REJECT@13 out of turn", line)
	}
	h, line := replayFile(t, "testdata/dataset/wsop-2019-42-3-00-01-07-fixed.phh")
	if line.Err != nil || line.Reject != nil {
		t.Fatalf("fixed file: %s", line)
	}
	got, want := numberList(line.Stacks), numberList(h.FinishingStacks)
	// The big blind's ante is dead money in the main pot (TP-44): an engine
	// that counts it as the big blind's contribution hands it back to the
	// big blind as a side pot and ends 500000 off here.
	if got != want {
		t.Fatalf("stacks %s, finishing_stacks %s", got, want)
	}
}

// TestReplayExactAmounts replays the Antonius–Blom pot-limit Omaha hand of
// 2009, whose stacks are in dollars and cents: every amount is scaled to
// whole cents exactly, so the winner ends with 1937923.75, the chips of
// both starting stacks and not a quarter more (rounding 1259450.25 to a
// whole chip used to end at 1937924). An amount with more decimal places
// than the replayer can scale exactly is refused, naming the amount,
// never rounded.
func TestReplayExactAmounts(t *testing.T) {
	t.Parallel()
	h, line := replayFile(t, "testdata/famous/antonius-blom-2009.phh")
	if line.Err != nil || line.Reject != nil {
		t.Fatalf("replay: %s", line)
	}
	if got, want := line.String(), "testdata/famous/antonius-blom-2009.phh\tSTACKS\t[1937923.75, 0.0]"; got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	for i, n := range line.Stacks {
		if n.Value() != h.FinishingStacks[i].Value() {
			t.Fatalf("p%d ends with %s, finishing_stacks says %s", i+1, n, h.FinishingStacks[i])
		}
	}

	tests := []struct {
		name, stacks, bet, want string
	}{
		{name: "cents", stacks: "[100.05, 50.1]", bet: "2.5", want: "f\tSTACKS\t[99.05, 51.1]"},
		{name: "a tenth of a cent", stacks: "[100.001, 100]", bet: "2", want: "f\tSTACKS\t[99.001, 101.0]"},
		{name: "more decimals than exact", stacks: "[100.0000000001, 100]", bet: "2",
			want: "f\tERROR\tamount 100.0000000001 has 10 decimal places, at most 9 can be replayed exactly"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Heads-up p2 is the button: it raises and p1 folds its big
			// blind to it.
			file := "variant = \"NT\"\nantes = [0, 0]\nblinds_or_straddles = [0.5, 1]\nmin_bet = 1\nstarting_stacks = " + tt.stacks +
				"\nactions = [\"d dh p1 AcKd\", \"d dh p2 QcQd\", \"p2 cbr " + tt.bet + "\", \"p1 f\"]\n"
			got := Replay(strings.NewReader(file), "f").String()
			if !strings.HasPrefix(got, tt.want) {
				t.Fatalf("got  %q\nwant %q…", got, tt.want)
			}
		})
	}
}

// TestReplayBlindVectors replays hands whose blinds_or_straddles the engine
// does not post as its own blinds (one blind, a big blind alone, a double
// straddle, a small blind larger than the big): pre-flop action starts
// after the player with the largest blind or straddle, the later one on a
// tie, as in PokerKit, so each file's first actor is not refused as acting
// out of turn (TP-46) and the blinds go to the player nobody called.
func TestReplayBlindVectors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, blinds, stacks, actions, want string
	}{
		{name: "one blind", blinds: "[5, 0, 0]", stacks: "[100, 100, 100]",
			actions: `"p2 f", "p3 f"`, want: "[100, 100, 100]"},
		{name: "big blind alone", blinds: "[0, 2, 0]", stacks: "[100, 100, 100]",
			actions: `"p3 cbr 6", "p1 f", "p2 f"`, want: "[100, 98, 102]"},
		{name: "double straddle", blinds: "[1, 2, 4, 8]", stacks: "[100, 100, 100, 100]",
			actions: `"p1 f", "p2 f", "p3 f"`, want: "[99, 98, 96, 107]"},
		{name: "small blind above the big", blinds: "[4, 2, 0]", stacks: "[100, 100, 100]",
			actions: `"p2 f", "p3 f"`, want: "[102, 98, 100]"},
		{name: "standard with straddle", blinds: "[1, 2, 4]", stacks: "[100, 100, 100]",
			actions: `"p1 f", "p2 f"`, want: "[99, 98, 103]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n := strings.Count(tt.stacks, ",") + 1
			var deal []string
			for i, c := range []string{"AcKd", "QcQd", "7h2s", "9c9d"}[:n] {
				deal = append(deal, fmt.Sprintf(`"d dh p%d %s"`, i+1, c))
			}
			file := "variant = \"NT\"\nantes = " + strings.Repeat("0, ", n) + "\nblinds_or_straddles = " + tt.blinds +
				"\nmin_bet = 2\nstarting_stacks = " + tt.stacks + "\nactions = [" + strings.Join(deal, ", ") + ", " + tt.actions + "]\n"
			file = strings.Replace(file, "antes = "+strings.Repeat("0, ", n), "antes = ["+strings.TrimSuffix(strings.Repeat("0, ", n), ", ")+"]", 1)
			if got, want := Replay(strings.NewReader(file), "f").String(), "f\tSTACKS\t"+tt.want; got != want {
				t.Fatalf("got  %q\nwant %q\n%s", got, want, file)
			}
		})
	}
}

// TestReplayAntesAreDeadMoney replays hands whose antes are not all posted
// in full: PHH's antes are dead money in the main pot, as PokerKit builds
// its pots, so a player all in for less than the ante still plays for
// every ante (13 here), not only for a pot of its own contribution level
// (9, which the replayer used to give as it would at a table, TP-44). A
// dead small blind exported as an ante (TP-18) is dead money the same way:
// its poster, losing at the showdown, gets none of it back.
func TestReplayAntesAreDeadMoney(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, antes, stacks, p3, actions, want string
	}{
		{name: "all in for less than the ante", antes: "[5, 5, 5]", stacks: "[100, 100, 3]", p3: "AcAd",
			actions: `"p1 cc", "p2 cc", "d db 2c5h9d", "p1 cc", "p2 cc", "d db Js", "p1 cc", "p2 cc", "d db Qc", "p1 cc", "p2 cc",
				"p1 sm 7c2d", "p2 sm KsKh", "p3 sm AcAd"`,
			want: "[93, 97, 13]"},
		{name: "a dead small blind as an ante", antes: "[0, 0, 1]", stacks: "[100, 100, 100]", p3: "AcQd",
			actions: `"p3 cc", "p1 cc", "p2 cc", "d db 2c5h9d", "p1 cc", "p2 cc", "p3 cc", "d db Js", "p1 cc", "p2 cc", "p3 cc",
				"d db Qc", "p1 cc", "p2 cc", "p3 cc", "p1 sm 7c2d", "p2 sm KsKh", "p3 sm AcQd"`,
			want: "[98, 105, 97]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			file := "variant = \"NT\"\nantes = " + tt.antes + "\nblinds_or_straddles = [1, 2, 0]\nmin_bet = 2\nstarting_stacks = " + tt.stacks +
				"\nactions = [\"d dh p1 7c2d\", \"d dh p2 KsKh\", \"d dh p3 " + tt.p3 + "\", " + tt.actions + "]\n"
			if got, want := Replay(strings.NewReader(file), "f").String(), "f\tSTACKS\t"+tt.want; got != want {
				t.Fatalf("got  %q\nwant %q\n%s", got, want, file)
			}
		})
	}
}
