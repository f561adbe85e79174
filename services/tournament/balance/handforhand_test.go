package balance

import (
	"errors"
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
