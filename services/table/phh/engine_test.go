package phh

import (
	"strings"
	"testing"

	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/engine/cards"
)

// TestDeck checks the deck built for the engine: first-round cards
// round-robin from p1 (TP-09), then board and later-street cards in deal
// order, unknown cards filled (showdown reveals first; in stud from the aces
// down, in razz from the aces up), the unused cards after.
func TestDeck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		file   string
		game   engine.Game
		prefix string
	}{
		{
			name: "hold'em",
			file: `variant = "NT"` + "\n" + `actions = ["d dh p1 AcKd", "d dh p2 QcQd", "d dh p3 7h2s", "p3 f", "p1 cc", "p2 cc", "d db 2c3c4c", "d db 5c"]`,
			game: engine.Holdem, prefix: "AcQc7hKdQd2s2c3c4c5c",
		},
		{
			name: "hold'em, unknown cards revealed at showdown",
			file: `variant = "NT"` + "\n" + `actions = ["d dh p1 ????", "d dh p2 QcQd", "p1 sm AsKs"]`,
			game: engine.Holdem, prefix: "AsQcKsQd2c",
		},
		{
			name: "stud, streets sorted from p1, an unknown hand filled from the aces",
			file: `variant = "F7S"` + "\n" + `actions = ["d dh p1 2c3c4c", "d dh p2 ??????", "p1 cc", "d dh p2 5d", "d dh p1 5c"]`,
			game: engine.Stud, prefix: "2cAs3cAh4cAd5c5d",
		},
		{
			name: "stud, streets dealt out after an all-in, one card each per street",
			file: `variant = "F7S"` + "\n" + `actions = ["d dh p1 2c3c4c", "d dh p2 2d3d4d", "p1 cc", "d dh p1 5c", "d dh p2 5d", "d dh p1 6c", "d dh p2 6d"]`,
			game: engine.Stud, prefix: "2c2d3c3d4c4d5c5d6c6d",
		},
		{
			name: "razz, an unknown hand filled from the aces up",
			file: `variant = "FR"` + "\n" + `actions = ["d dh p1 KcQcJc", "d dh p2 ??????"]`,
			game: engine.Razz, prefix: "KcAcQcAdJcAh",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			file := tt.file + "\nstarting_stacks = [100, 100" + strings.Repeat(", 100", strings.Count(tt.file, "d dh p3")) + "]\n"
			h, err := ParseBytes([]byte(file))
			if err != nil {
				t.Fatal(err)
			}
			d, err := deck(h, tt.game)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Validate(); err != nil || len(d) != cards.NumCards {
				t.Fatalf("deck of %d cards: %v", len(d), err)
			}
			if got := cards.Format(d); !strings.HasPrefix(got, tt.prefix) {
				t.Fatalf("deck %s…, want %s…", got[:len(tt.prefix)], tt.prefix)
			}
		})
	}
}
