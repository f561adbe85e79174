package dealer

import (
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/phh"
)

// History is a finished hand as stored: setup and every event, enough to
// show it to each viewer, audit it and export it as PHH. It holds every
// card, so the service stores it encrypted.
type History struct {
	TableID string         `json:"table_id"`
	HandNo  int64          `json:"hand_no"`
	Config  engine.Config  `json:"config"`
	Setup   engine.Setup   `json:"setup"`
	Events  []engine.Event `json:"events"`
	Hand    *engine.Hand   `json:"hand"`
	Start   time.Time      `json:"start"`
	End     time.Time      `json:"end"`
}

// ErrNotYourHand refuses a player the history of a hand they did not play.
var ErrNotYourHand = fault.New(fault.Forbidden, "NOT_YOUR_HAND", "a player reads only the hands they played")

// Reader is who reads a hand's history: the floor, who sees every card
// (Full, TP-71), or a player of the hand, who sees it from their Seat with
// what the showdown exposed, the hands auto-mucked included (TP-66).
type Reader struct {
	Full bool
	Seat int
}

// Reader returns the reader of the hand that player is, or the floor;
// anyone who did not play the hand is refused.
func (h *History) Reader(player string, floor bool) (Reader, error) {
	if floor {
		return Reader{Full: true, Seat: -1}, nil
	}
	for _, p := range h.Setup.Players {
		if p.ID == player {
			return Reader{Seat: p.Seat}, nil
		}
	}
	return Reader{}, ErrNotYourHand
}

// View returns the hand's final view and its events as r may see them:
// physical cards as they came to be known, and in the events the hole
// cards r's view shows.
func (h *History) View(r Reader) (engine.View, []engine.Event) {
	dealt := engine.Dealt(h.Events, h.Hand)
	if r.Full {
		return h.Hand.FullView(), dealt
	}
	v := h.Hand.HistoryView(r.Seat)
	visible := map[int]bool{}
	for _, s := range v.Seats {
		if len(s.Cards) > 0 && s.Cards[0] != cards.Unknown {
			visible[s.Seat] = true
		}
	}
	evs := engine.VisibleEvents(dealt, r.Seat)
	for i := range evs {
		if e := &evs[i]; (e.Kind == engine.EvDealHole || e.Kind == engine.EvHoleEntry) && visible[e.Seat] {
			e.Cards = dealt[i].Cards
		}
	}
	return v, evs
}

// AutoMucked lists the hands auto-mucked at the showdown (TP-66): visible
// in a history view to anyone, hidden in the table view.
func (h *History) AutoMucked() map[int]bool {
	out := map[int]bool{}
	hist, table := h.Hand.HistoryView(-1), h.Hand.View(-1)
	for i, s := range hist.Seats {
		if len(s.Cards) > 0 && s.Cards[0] != cards.Unknown && table.Seats[i].Cards[0] == cards.Unknown {
			out[s.Seat] = true
		}
	}
	return out
}

// PHH returns the hand as PHH with the cards r may see; the export's error
// names posts, players and amounts, never a card.
func (h *History) PHH(r Reader) (*phh.History, error) {
	ph, err := phh.Export(h.Setup, h.Events, h.Hand)
	if err != nil || r.Full {
		return ph, err
	}
	maskHoleCards(ph, h.Hand.HistoryView(r.Seat))
	return ph, nil
}

// maskHoleCards hides in ph's deals the cards the reader's history view v
// hides, card by card: a stud player who folded on 3rd street keeps the
// door card dealt face up ("d dh p3 ????8d"), as the JSON history shows it.
// PHH numbers players from 1 in its own order, so cards are matched by
// player id and by the order they were dealt, which is the view's order.
func maskHoleCards(ph *phh.History, v engine.View) {
	known := map[string][]cards.Card{}
	for _, s := range v.Seats {
		known[s.ID] = s.Cards
	}
	dealt := map[int]int{} // PHH player → cards dealt so far
	for i := range ph.Actions {
		a := &ph.Actions[i]
		if a.Kind != phh.DealHole {
			continue
		}
		var k []cards.Card
		if a.Player >= 1 && a.Player <= len(ph.Players) {
			k = known[ph.Players[a.Player-1]]
		}
		for j := range a.Cards {
			if n := dealt[a.Player]; n >= len(k) || k[n] == cards.Unknown {
				a.Cards[j] = cards.Unknown
			}
			dealt[a.Player]++
		}
	}
}
