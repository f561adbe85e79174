package dealer

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/engine/button"
)

// snapshot is a table's state as JSON. Secret holds what no one may read
// from storage without the key: the hand (deck and hole cards), its setup
// and its event log.
//
// The fields are in the order of how often they change, what stays the
// same through a hand first and what an action changes (the clock, the
// action ids, the sequence number) last: the service stores this on every
// action, and PostgreSQL logs an update from the first byte that differs
// to the last, so what comes before the first change costs no WAL.
type snapshot struct {
	ID       string           `json:"id"`
	Config   engine.Config    `json:"config"`
	Settings Settings         `json:"settings"`
	Previous button.Positions `json:"previous"`
	Started  bool             `json:"started,omitempty"`
	Tour     *Tour            `json:"tour,omitempty"`
	LastHand *LastHand        `json:"last_hand,omitempty"`
	HandNo   int64            `json:"hand_no"`
	InHand   bool             `json:"in_hand,omitempty"`
	Closing  bool             `json:"closing,omitempty"`
	Seats    []Seat           `json:"seats"`
	Proposal *Proposal        `json:"proposal,omitempty"`
	Called   bool             `json:"clock_called,omitempty"`
	Deadline time.Time        `json:"deadline,omitzero"`
	Recent   []string         `json:"recent,omitempty"`
	Seq      int64            `json:"seq"`
}

type secret struct {
	Hand  *engine.Hand   `json:"hand"`
	Plan  button.Plan    `json:"plan"`
	Setup engine.Setup   `json:"setup"`
	Log   []engine.Event `json:"log"`
	Start time.Time      `json:"start"`
	// OOT are the out-of-turn wagers followed (TP-50, TP-52).
	OOT []*Provisional `json:"oot_wagers,omitempty"`
	// LegacyOOT is the one held wager a table stored before several could
	// be held; read only.
	LegacyOOT *Provisional `json:"oot,omitempty"`
	// Acted are the seats that acted out of turn during the current turn
	// (TP-47), if any.
	Acted *ootActs `json:"oot_acted,omitempty"`
}

// Marshal returns the table's state: public (seats, positions, clock) and
// secret (the hand in progress with its deck; nil between hands). The
// service stores the secret part encrypted.
func (t *Table) Marshal() (public, private []byte, err error) {
	public, err = t.marshalPublic()
	if err != nil || t.hand == nil {
		return public, nil, err
	}
	private, err = json.Marshal(secret{Hand: t.hand, Plan: t.plan, Setup: t.setup, Log: t.log, Start: t.handStart, OOT: t.oot, Acted: t.acted})
	if err != nil {
		return nil, nil, fmt.Errorf("marshal table %s hand %d: %w", t.id, t.handNo, err)
	}
	return public, private, nil
}

// marshalPublic is Marshal's public part.
func (t *Table) marshalPublic() ([]byte, error) {
	public, err := json.Marshal(snapshot{ID: t.id, Config: t.cfg, Settings: t.settings, Seats: t.seats, Previous: t.previous,
		Started: t.started, HandNo: t.handNo, Seq: t.seq, Recent: t.recent, Deadline: t.deadline, Called: t.clockCalled, InHand: t.hand != nil, Closing: t.closing,
		Tour: t.tour, Proposal: t.Proposal(), LastHand: t.last})
	if err != nil {
		return nil, fmt.Errorf("marshal table %s: %w", t.id, err)
	}
	return public, nil
}

// Unmarshal restores a table from Marshal's output.
func Unmarshal(public, private []byte) (*Table, error) {
	t, s, err := unmarshalPublic(public)
	if err != nil || !s.InHand {
		return t, err
	}
	if private == nil {
		return nil, fmt.Errorf("unmarshal table %s: hand %d in progress but not stored", s.ID, s.HandNo)
	}
	var sec secret
	if err := json.Unmarshal(private, &sec); err != nil {
		return nil, fmt.Errorf("unmarshal table %s hand %d: %w", s.ID, s.HandNo, err)
	}
	t.hand, t.plan, t.setup, t.log, t.handStart, t.oot, t.acted = sec.Hand, sec.Plan, sec.Setup, sec.Log, sec.Start, sec.OOT, sec.Acted
	if sec.LegacyOOT != nil {
		t.oot = append(t.oot, sec.LegacyOOT)
	}
	return t, nil
}

// unmarshalPublic restores a table from its public state, without its
// hand, and returns the snapshot read.
func unmarshalPublic(public []byte) (*Table, snapshot, error) {
	var s snapshot
	if err := json.Unmarshal(public, &s); err != nil {
		return nil, s, fmt.Errorf("unmarshal table: %w", err)
	}
	if k := &s.Config.Stakes; k.ChipUnit == 0 && !s.Config.Tournament {
		// A cash table stored before it had a smallest chip deals its next
		// hands in the one a new table at its stakes gets (TP-31), not 1.
		k.ChipUnit = k.SmallestChip()
	}
	t := &Table{id: s.ID, cfg: physical(s.Config), settings: s.Settings, seats: s.Seats, previous: s.Previous, started: s.Started,
		handNo: s.HandNo, seq: s.Seq, recent: s.Recent, deadline: s.Deadline, clockCalled: s.Called, closing: s.Closing, tour: s.Tour,
		proposal: s.Proposal, last: s.LastHand}
	return t, s, nil
}

// PublicSeats reads the seats from a table's public state (Marshal's first
// result), for seat maps read from storage without loading the hand.
func PublicSeats(public []byte) ([]Seat, error) {
	var s snapshot
	if err := json.Unmarshal(public, &s); err != nil {
		return nil, fmt.Errorf("unmarshal table seats: %w", err)
	}
	return s.Seats, nil
}

// handFixed is the part of a hand's secret that stays the same from the
// hand's deal to its end: the engine hand's configuration, the button
// plan, the setup (players, posts, deck) and the start time. Marshalled
// once per hand, it is the same bytes all through the hand, so the
// service seals it once per hand and stores those bytes again with every
// action, which PostgreSQL then leaves out of the WAL (an update logs
// only what changed between the row's two versions, and a blob sealed
// again changes whole).
type handFixed struct {
	Config engine.Config `json:"config"`
	Plan   button.Plan   `json:"plan"`
	Setup  engine.Setup  `json:"setup"`
	Start  time.Time     `json:"start"`
}

// handMoving is the rest of a hand's secret, what an action changes: the
// engine hand's state (engine.Hand.MarshalState), the event log and the
// out-of-turn wagers.
type handMoving struct {
	Hand  json.RawMessage `json:"hand"`
	Log   []engine.Event  `json:"log"`
	OOT   []*Provisional  `json:"oot_wagers,omitempty"`
	Acted *ootActs        `json:"oot_acted,omitempty"`
}

// MarshalSplit is Marshal with the private part in two: fixed, the same
// bytes from a hand's deal to its end (handFixed, marshalled once per
// hand), and moving, the rest; both nil between hands. UnmarshalSplit
// restores the table.
func (t *Table) MarshalSplit() (public, fixed, moving []byte, err error) {
	public, err = t.marshalPublic()
	if err != nil || t.hand == nil {
		return public, nil, nil, err
	}
	if t.fixed == nil {
		// Nothing changes these during the hand: StartHand and the hand's
		// end set them, and drop the bytes.
		if t.fixed, err = json.Marshal(handFixed{Config: t.hand.Config(), Plan: t.plan, Setup: t.setup, Start: t.handStart}); err != nil {
			return nil, nil, nil, fmt.Errorf("marshal table %s hand %d: %w", t.id, t.handNo, err)
		}
	}
	hs, err := t.hand.MarshalState()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("marshal table %s hand %d: %w", t.id, t.handNo, err)
	}
	moving, err = json.Marshal(handMoving{Hand: hs, Log: t.log, OOT: t.oot, Acted: t.acted})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("marshal table %s hand %d: %w", t.id, t.handNo, err)
	}
	return public, t.fixed, moving, nil
}

// UnmarshalSplit restores a table from MarshalSplit's output.
func UnmarshalSplit(public, fixed, moving []byte) (*Table, error) {
	t, s, err := unmarshalPublic(public)
	if err != nil || !s.InHand {
		return t, err
	}
	if fixed == nil || moving == nil {
		return nil, fmt.Errorf("unmarshal table %s: hand %d in progress but not stored", s.ID, s.HandNo)
	}
	var f handFixed
	if err := json.Unmarshal(fixed, &f); err != nil {
		return nil, fmt.Errorf("unmarshal table %s hand %d: %w", s.ID, s.HandNo, err)
	}
	var m handMoving
	if err := json.Unmarshal(moving, &m); err != nil {
		return nil, fmt.Errorf("unmarshal table %s hand %d: %w", s.ID, s.HandNo, err)
	}
	t.hand = new(engine.Hand)
	if err := t.hand.UnmarshalState(f.Config, m.Hand); err != nil {
		return nil, fmt.Errorf("unmarshal table %s hand %d: %w", s.ID, s.HandNo, err)
	}
	t.plan, t.setup, t.handStart, t.log, t.oot, t.acted = f.Plan, f.Setup, f.Start, m.Log, m.OOT, m.Acted
	t.fixed = fixed
	return t, nil
}
