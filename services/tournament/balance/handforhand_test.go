package balance

import (
	"errors"
	"slices"
	"testing"

	"github.com/cardroom/cardroom/platform/fault"
)

func TestHandForHand_G26(t *testing.T) {
	t.Parallel()
	var h HandForHand
	if err := h.MayDeal("a"); err != nil {
		t.Fatalf("off: every table deals, got %v", err)
	}
	if _, err := h.HandEnded("a"); !errors.Is(err, ErrHandForHandOff) {
		t.Fatalf("HandEnded while off = %v", err)
	}
	h.Start([]string{"c", "a", "b"})
	steps := []struct {
		name     string
		table    string
		wantErr  error
		wantNext bool
		round    int
	}{
		{"G-26 first table finishes its hand", "a", nil, false, 1},
		{"G-26 it may not deal again before the others", "a", ErrWaitForTables, false, 1},
		{"G-26 second table", "b", nil, false, 1},
		{"G-26 last table: next round", "c", nil, true, 2},
		{"G-26 round two starts fresh", "a", nil, false, 2},
		{"unknown table", "z", ErrUnknownH4HTable, false, 2},
	}
	for _, s := range steps {
		next, err := h.HandEnded(s.table)
		if !errors.Is(err, s.wantErr) || next != s.wantNext || h.Round != s.round {
			t.Fatalf("%s: HandEnded(%s) = %v, %v; round %d", s.name, s.table, next, err, h.Round)
		}
		if f, ok := fault.As(err); s.table == "z" && (!ok || f.Reason != "TABLE_NOT_IN_HAND_FOR_HAND" || f.Kind != fault.Precondition) {
			t.Fatalf("%s: HandEnded(%s) = %v, want a TABLE_NOT_IN_HAND_FOR_HAND precondition", s.name, s.table, err)
		}
	}
	if err := h.MayDeal("a"); !errors.Is(err, ErrWaitForTables) {
		t.Fatalf("MayDeal(a) = %v", err)
	}
	if err := h.MayDeal("b"); err != nil {
		t.Fatalf("MayDeal(b) = %v", err)
	}
	// b breaks; c finishes: a and c are done, so the round completes.
	if h.TableClosed("b") {
		t.Fatal("closing b alone completed the round")
	}
	if next, err := h.HandEnded("c"); err != nil || !next || h.Round != 3 {
		t.Fatalf("G-26 after a table break: next=%v err=%v round=%d", next, err, h.Round)
	}
	h.Stop()
	if h.Active || h.MayDeal("a") != nil {
		t.Fatal("Stop left hand-for-hand on")
	}
}

// TestHandForHandFollowsTheTablesAndCountsIdleOnes_G26: a table broken
// leaves the round and may complete it; a table opened since joins it;
// tables that cannot deal are done with it, and when that completes the
// round every table is to be let deal.
func TestHandForHandFollowsTheTablesAndCountsIdleOnes_G26(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		done        []string
		inPlay      []string
		idle        []string
		wantTables  []string
		wantDone    []string
		wantNext    bool
		wantRelease []string
	}{
		{"nothing changes", []string{"2"}, []string{"1", "2", "3"}, nil, []string{"1", "2", "3"}, []string{"2"}, false, nil},
		{"a table broken completes the round", []string{"1", "2"}, []string{"1", "2"}, nil, []string{"1", "2"}, nil, true, []string{"1", "2"}},
		{"a final table joins", nil, []string{"4"}, nil, []string{"4"}, nil, false, nil},
		{"an idle table is done", []string{"2"}, []string{"1", "2", "3"}, []string{"3"}, []string{"1", "2", "3"}, []string{"2", "3"}, false, nil},
		{"the idle table was the last", []string{"2", "3"}, []string{"1", "2", "3"}, []string{"1"}, []string{"1", "2", "3"}, nil, true, []string{"1", "2", "3"}},
		{"an idle table done already is not counted again", []string{"1"}, []string{"1", "2", "3"}, []string{"1"}, []string{"1", "2", "3"}, []string{"1"}, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var h HandForHand
			h.Start([]string{"1", "2", "3"})
			h.Done = tc.done
			next := h.Follow(tc.inPlay)
			n, err := h.PlayNone(tc.idle)
			if err != nil {
				t.Fatal(err)
			}
			next = next || n
			if next != tc.wantNext || !slices.Equal(h.Tables, tc.wantTables) || !slices.Equal(h.Done, tc.wantDone) || !slices.Equal(h.Release, tc.wantRelease) {
				t.Fatalf("next %v tables %v done %v release %v; want %v %v %v %v", next, h.Tables, h.Done, h.Release,
					tc.wantNext, tc.wantTables, tc.wantDone, tc.wantRelease)
			}
		})
	}
}
