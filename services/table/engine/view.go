package engine

import (
	"encoding/json"
	"slices"

	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/engine/refusal"
)

// SeatView is one seat as a viewer may see it. Cards hides what the viewer
// may not see as cards.Unknown; Up marks face-up cards (bit i = Cards[i]).
type SeatView struct {
	Seat    int          `json:"seat"`
	ID      string       `json:"id"`
	Stack   int64        `json:"stack"`
	Bet     int64        `json:"bet"`
	Total   int64        `json:"total"`
	Cards   []cards.Card `json:"cards"`
	Up      uint8        `json:"up,omitempty"`
	Folded  bool         `json:"folded,omitempty"`
	AllIn   bool         `json:"all_in,omitempty"`
	Killed  bool         `json:"killed,omitempty"`
	Shown   bool         `json:"shown,omitempty"`
	Mucked  bool         `json:"mucked,omitempty"`
	Exposed bool         `json:"exposed,omitempty"`
	Won     int64        `json:"won,omitempty"`
}

// View is the hand as one viewer sees it (View) or in full for audit
// (FullView, TP-71: every card including folded and mucked hands).
type View struct {
	Viewer int          `json:"viewer"` // seat, or -1 for the full view
	Game   Game         `json:"game"`
	Button int          `json:"button"`
	Street Street       `json:"street"`
	Phase  Phase        `json:"phase"`
	ToAct  int          `json:"to_act"` // seat, -1 none
	Board  []cards.Card `json:"board"`
	Pot    int64        `json:"pot"` // everything put in, current bets included
	Seats  []SeatView   `json:"seats"`
	Legal  []Legal      `json:"legal,omitempty"` // the viewer's options when in turn
	Pots   []PotResult  `json:"pots,omitempty"`  // when the hand is over
	// Awaiting are the physical cards the hand waits for; nil when none.
	Awaiting *Awaited `json:"awaiting,omitempty"`
	// ExposurePending are seats whose exposure awaits the floor (TP-58).
	ExposurePending []int `json:"exposure_pending,omitempty"`
	// ToAward are the pots the floor has still to award (WinnerEntry).
	ToAward []PendingPot `json:"to_award,omitempty"`
	// Unit is the fixed-limit betting unit of the round (TP-27; the big
	// unit after an open-pair big bet, TP-28), 0 in no-limit and
	// pot-limit: betting context every viewer may see.
	Unit int64 `json:"unit,omitempty"`
	// BringIn is the stud seat that brought in (G-18), -1 none yet or not
	// stud; BringInDue the one that must bring in now, -1 none.
	BringIn    int `json:"bring_in"`
	BringInDue int `json:"bring_in_due"`
}

// View returns what the player in seat sees: their own cards, up cards,
// and other hands only once exposed or shown (TP-45, TP-64–TP-67). Unshown
// mucked hands are never displayed.
func (h *Hand) View(seat int) View { return h.view(seat, false, false) }

// HistoryView is the hand history a player seated at the table may see:
// View plus the hands auto-mucked at the showdown because they could not
// win (TP-66). Hands mucked by choice stay hidden (TP-64).
func (h *Hand) HistoryView(seat int) View { return h.view(seat, false, true) }

// FullView returns every card of every hand, for staff and audit (TP-71).
func (h *Hand) FullView() View { return h.view(-1, true, false) }

func (h *Hand) view(viewer int, full, history bool) View {
	st := &h.s
	v := View{Viewer: viewer, Game: h.cfg.Game, Button: st.Button, Street: st.Street, Phase: st.Phase, ToAct: h.ToAct(),
		Board: append([]cards.Card(nil), st.Board[:st.NBoard]...), BringIn: st.BringInBy - 1, BringInDue: -1}
	if h.isFL() {
		v.Unit = st.Unit
	}
	if st.BringIn && st.ToAct >= 0 {
		v.BringInDue = st.Seats[st.ToAct].Seat
	}
	for i := range st.Seats {
		p := &st.Seats[i]
		v.Pot += p.Total
		sv := SeatView{Seat: p.Seat, ID: p.ID, Stack: p.Stack, Bet: p.Bet, Total: p.Total, Up: p.Up,
			Folded: p.Folded, AllIn: p.AllIn, Killed: p.Killed, Shown: p.Shown, Mucked: p.Mucked, Exposed: p.Exposed, Won: p.Won}
		visible := full || p.Seat == viewer || ((p.Shown || p.Exposed) && !p.Mucked) || (history && p.AutoMucked)
		sv.Cards = make([]cards.Card, p.N)
		for k := uint8(0); k < p.N; k++ {
			if visible || p.Up&(1<<k) != 0 {
				sv.Cards[k] = p.Hole[k]
			} else {
				sv.Cards[k] = cards.Unknown
			}
		}
		v.Seats = append(v.Seats, sv)
	}
	for _, l := range h.LegalActions() {
		if full || l.Seat == viewer {
			v.Legal = append(v.Legal, l)
		}
	}
	if st.Phase == PhaseDone {
		v.Pot = 0
		v.Pots = clonePots(st.Pots)
	}
	if a, ok := h.Awaiting(); ok {
		v.Awaiting = &a
	}
	v.ExposurePending = h.ExposurePending()
	v.ToAward = h.PotsToAward()
	return v
}

func clonePots(ps []PotResult) []PotResult {
	out := make([]PotResult, len(ps))
	for i, p := range ps {
		out[i] = PotResult{Amount: p.Amount, Eligible: p.Eligible, Winners: append([]Award(nil), p.Winners...)}
	}
	return out
}

// Done reports whether the pots have been awarded.
func (h *Hand) Done() bool { return h.s.Phase == PhaseDone }

// Phase returns where the hand is.
func (h *Hand) Phase() Phase { return h.s.Phase }

// Street returns the current (or last) betting round.
func (h *Hand) Street() Street { return h.s.Street }

// ToAct returns the seat whose decision is awaited, or -1.
func (h *Hand) ToAct() int {
	if h.s.ToAct < 0 {
		return -1
	}
	return h.s.Seats[h.s.ToAct].Seat
}

// Board returns the community cards dealt so far.
func (h *Hand) Board() []cards.Card { return h.s.Board[:h.s.NBoard] }

// Seats returns the seat numbers in the hand, clockwise from seat 0.
func (h *Hand) Seats() []int {
	out := make([]int, len(h.s.Seats))
	for i := range h.s.Seats {
		out[i] = h.s.Seats[i].Seat
	}
	return out
}

// Stack returns seat's chips behind (not in the pot), or -1 if not in the hand.
func (h *Hand) Stack(seat int) int64 {
	if i := h.indexOf(seat); i >= 0 {
		return h.s.Seats[i].Stack
	}
	return -1
}

// PotTotal returns all chips put in so far (current bets included).
func (h *Hand) PotTotal() int64 {
	var t int64
	for i := range h.s.Seats {
		t += h.s.Seats[i].Total
	}
	return t
}

// SeatResult is one seat's outcome.
type SeatResult struct {
	Seat  int    `json:"seat"`
	ID    string `json:"id"`
	Start int64  `json:"start"`
	Stack int64  `json:"stack"` // final stack
	Net   int64  `json:"net"`
}

// Result is the outcome of a finished hand.
type Result struct {
	Pots  []PotResult  `json:"pots"`
	Seats []SeatResult `json:"seats"`
}

// Results returns the pots with their winners and the final stacks. Before
// the hand is done Pots is empty and stacks are current.
func (h *Hand) Results() Result {
	r := Result{Pots: clonePots(h.s.Pots)}
	for i := range h.s.Seats {
		p := &h.s.Seats[i]
		r.Seats = append(r.Seats, SeatResult{Seat: p.Seat, ID: p.ID, Start: p.Start, Stack: p.Stack, Net: p.Stack - p.Start})
	}
	return r
}

type snapshot struct {
	Version int    `json:"v"`
	Config  Config `json:"config"`
	State   state  `json:"state"`
}

// MarshalJSON serializes the whole hand state losslessly (storage, crash
// recovery, audit).
func (h *Hand) MarshalJSON() ([]byte, error) {
	return json.Marshal(snapshot{Version: 1, Config: h.cfg, State: h.s})
}

// UnmarshalJSON restores a hand serialized by MarshalJSON.
func (h *Hand) UnmarshalJSON(b []byte) error {
	var s snapshot
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s.Version != 1 {
		return ruleErr("", refusal.BadSetup, "unknown hand snapshot version")
	}
	*h = Hand{cfg: s.Config, s: s.State}
	return nil
}

// stateSnapshot is snapshot without the configuration.
type stateSnapshot struct {
	Version int   `json:"v"`
	State   state `json:"state"`
}

// MarshalState is MarshalJSON without the configuration (Config), for a
// store that keeps the configuration apart, since it stays the same
// through the hand; UnmarshalState restores the hand from both.
func (h *Hand) MarshalState() ([]byte, error) {
	return json.Marshal(stateSnapshot{Version: 1, State: h.s})
}

// UnmarshalState restores a hand of configuration cfg (as Config returns
// it) from MarshalState's output.
func (h *Hand) UnmarshalState(cfg Config, b []byte) error {
	var s stateSnapshot
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s.Version != 1 {
		return ruleErr("", refusal.BadSetup, "unknown hand snapshot version")
	}
	*h = Hand{cfg: cfg, s: s.State}
	return nil
}

// MarshalBinary is MarshalJSON, for encoding.BinaryMarshaler users.
func (h *Hand) MarshalBinary() ([]byte, error) { return h.MarshalJSON() }

// UnmarshalBinary is UnmarshalJSON.
func (h *Hand) UnmarshalBinary(b []byte) error { return h.UnmarshalJSON(b) }

// Clone returns an independent deep copy (engine/live uses it to try a
// ruling before committing it).
func (h *Hand) Clone() *Hand {
	c := &Hand{cfg: h.cfg, s: h.s}
	c.s.Seats = append([]seat(nil), h.s.Seats...)
	c.s.Deck = append([]cards.Card(nil), h.s.Deck...)
	c.s.Burned = append([]cards.Card(nil), h.s.Burned...)
	c.s.SetAside = append([]cards.Card(nil), h.s.SetAside...)
	c.s.Awards = make([]potAward, len(h.s.Awards))
	for i, a := range h.s.Awards {
		c.s.Awards[i] = potAward{Pot: a.Pot, Hi: slices.Clone(a.Hi), Lo: slices.Clone(a.Lo)}
	}
	c.s.Order = append([]int(nil), h.s.Order...)
	c.s.Pots = clonePots(h.s.Pots)
	return c
}

// VisibleEvents copies evs with every card the viewer in seat may not see
// replaced by cards.Unknown: hole cards are private to their seat; burn
// cards, mucked and killed hands are nobody's; up cards, the board and
// shown or exposed hands are everyone's.
func VisibleEvents(evs []Event, seat int) []Event {
	out := slices.Clone(evs)
	for i := range out {
		e := &out[i]
		switch {
		case e.Kind == EvDealUp || e.Kind == EvDealBoard || e.Kind == EvShow || e.Kind == EvExpose:
		case (e.Kind == EvDealHole || e.Kind == EvHoleEntry) && e.Seat == seat && seat >= 0:
		default:
			for k := range e.Cards {
				e.Cards[k] = cards.Unknown
			}
		}
	}
	return out
}
