package dealer

import (
	"testing"

	"github.com/cardroom/cardroom/platform/random"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/phh"
)

// TestPHHKeepsPublicStudCards: in a player's PHH copy of a stud hand, the
// door card of a player who folded on 3rd street stays as it was dealt,
// face up, and only the down cards are "??" (the export used to write
// "d dh p3 ??????" while the JSON history showed ["??","??","8d"]); the
// reader's own cards are all there.
func TestPHHKeepsPublicStudCards(t *testing.T) {
	t.Parallel()
	cfg := engine.Config{Game: engine.Stud, Structure: engine.FixedLimit,
		Stakes: engine.Stakes{Ante: 1, BringIn: 2, SmallBet: 5, BigBet: 10}}
	d := cards.NewDeck()
	d.Shuffle(random.Seeded(17))
	st := engine.Setup{Button: 2, Deck: d, Players: []engine.Player{
		{Seat: 0, ID: "ann", Stack: 100}, {Seat: 1, ID: "bob", Stack: 100}, {Seat: 2, ID: "cat", Stack: 100}}}
	rec, err := phh.Record(cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	// Everyone but the bring-in folds on 3rd street.
	for !rec.Hand().Done() {
		l := rec.Hand().LegalActions()[0]
		a := engine.Action{Seat: l.Seat, Kind: engine.Fold}
		if l.Kind == engine.BringIn {
			a.Kind = engine.BringIn
		}
		if _, err := rec.Apply(a); err != nil {
			t.Fatalf("%+v: %v", a, err)
		}
	}
	full, err := rec.History()
	if err != nil {
		t.Fatal(err)
	}
	const reader = 0 // ann reads her copy
	masked, err := rec.History()
	if err != nil {
		t.Fatal(err)
	}
	maskHoleCards(masked, rec.Hand().HistoryView(reader))
	doors := 0
	for i, a := range masked.Actions {
		if a.Kind != phh.DealHole {
			continue
		}
		want := full.Actions[i].Cards
		own := masked.Players[a.Player-1] == "ann"
		for j, c := range a.Cards {
			switch {
			case own || j == 2: // the reader's cards; every door card
				if c != want[j] {
					t.Fatalf("%s card %d: %s, dealt %s (own %v)", masked.Players[a.Player-1], j, c, want[j], own)
				}
				if !own {
					doors++
				}
			case c != cards.Unknown:
				t.Fatalf("%s's down card %d shows %s to seat %d", masked.Players[a.Player-1], j, c, reader)
			}
		}
	}
	if doors != 2 {
		t.Fatalf("%d other players' door cards checked, want 2", doors)
	}
}
