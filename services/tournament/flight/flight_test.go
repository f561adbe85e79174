package flight

import (
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
)

var day = time.Date(2026, 12, 1, 23, 0, 0, 0, time.UTC)

// TestCarry_G34: a player who bagged in two flights goes to Day 2 with
// one bag by the house policy (the larger by default, ties to the
// earlier); the other is forfeited; every other bag is kept; chips kept
// plus forfeited are the chips bagged.
func TestCarry_G34(t *testing.T) {
	t.Parallel()
	bags := []Bag{
		{Flight: "1A", Player: "ann", Chips: 12_000, BaggedAt: day},
		{Flight: "1A", Player: "bob", Chips: 30_000, BaggedAt: day},
		{Flight: "1B", Player: "ann", Chips: 41_000, BaggedAt: day.Add(24 * time.Hour)},
		{Flight: "1B", Player: "cat", Chips: 9_000, BaggedAt: day.Add(24 * time.Hour)},
		{Flight: "1A", Player: "dan", Chips: 5_000, BaggedAt: day},
		{Flight: "1B", Player: "dan", Chips: 5_000, BaggedAt: day.Add(24 * time.Hour)},
	}
	tests := []struct {
		policy     Policy
		ann, dan   string // the flight whose bag goes on
		forfeitAnn int64
	}{
		{"", "1B", "1A", 12_000},
		{KeepLarger, "1B", "1A", 12_000},
		{KeepFirst, "1A", "1A", 41_000},
		{KeepLast, "1B", "1B", 12_000},
	}
	for _, tt := range tests {
		t.Run(string(tt.policy), func(t *testing.T) {
			t.Parallel()
			kept, lost := Carry(bags, tt.policy)
			if len(kept) != 4 || len(lost) != 2 || Chips(kept)+Chips(lost) != Chips(bags) {
				t.Fatalf("kept %v, forfeited %v", kept, lost)
			}
			got := map[string]Bag{}
			for _, b := range kept {
				got[b.Player] = b
			}
			if got["ann"].Flight != tt.ann || got["dan"].Flight != tt.dan || got["bob"].Chips != 30_000 || got["cat"].Chips != 9_000 {
				t.Fatalf("G-34 %q kept %v", tt.policy, kept)
			}
			for _, b := range lost {
				if b.Player == "ann" && b.Chips != tt.forfeitAnn {
					t.Fatalf("G-34 %q forfeited %v", tt.policy, b)
				}
			}
		})
	}
}

// TestOver: the day ends at the stop level or at the player count,
// whichever comes first.
func TestOver(t *testing.T) {
	t.Parallel()
	f := Flight{Day2: "d2", StopLevel: 4, StopPlayers: 3}
	tests := []struct {
		row, left int
		want      bool
	}{{0, 10, false}, {3, 4, false}, {4, 10, true}, {5, 10, true}, {0, 3, true}, {1, 2, true}}
	for _, tt := range tests {
		if got := f.Over(tt.row, tt.left); got != tt.want {
			t.Errorf("Over(%d, %d) = %v, want %v", tt.row, tt.left, got, tt.want)
		}
	}
	if (Flight{Day2: "d2", StopPlayers: 3}).Over(40, 4) {
		t.Error("no stop level: the level never ends the day")
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		f    Flight
		ok   bool
		name string
	}{
		{Flight{Day2: "d2", StopPlayers: 2}, true, "player count only"},
		{Flight{Day2: "d2", StopPlayers: 2, StopLevel: 5}, true, "and a level"},
		{Flight{StopPlayers: 2}, false, "no Day 2"},
		{Flight{Day2: "d2", StopPlayers: 1}, false, "down to a winner"},
		{Flight{Day2: "d2", StopPlayers: 2, StopLevel: 6}, false, "past the sheet"},
	}
	for _, tt := range tests {
		err := tt.f.Validate(6)
		if _, isFault := fault.As(err); (err == nil) != tt.ok || (err != nil && !isFault) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}
