package director

import (
	"context"
	"fmt"
	"time"
)

// SlipState is where a recorded move stands at the tables.
type SlipState int

// Slip states: Recorded until the first table has the move, then the
// table service's state of it.
const (
	SlipRecorded SlipState = iota + 1
	SlipOrdered
	SlipInTransit
	SlipArriving
	SlipDelivered
	SlipCancelled
)

// Final reports whether the move is over: nothing about it changes again.
func (s SlipState) Final() bool { return s == SlipDelivered || s == SlipCancelled }

// Slip is a movement slip as the audit records it, with the actor and the
// time of the record and where the move stands (issue 10 item 4).
type Slip struct {
	MoveID    string
	PlayerID  string
	FromTable int
	FromSeat  int
	ToTable   int
	ToSeat    int
	// Stack is the chips carried: the table service's count once the
	// player has left the first table, the recorded stack before.
	Stack  int64
	Rule   string
	Reason string
	HandNo int64
	At     time.Time
	Actor  string
	State  SlipState
}

// RecordedSlips returns the tournament's movement slips from its audit, in
// the order decided, each Recorded: the store alone answers.
func (d *Director) RecordedSlips(ctx context.Context, id string) ([]Slip, error) {
	audit, err := d.store.AuditOf(ctx, id, "move")
	if err != nil {
		return nil, err
	}
	out := make([]Slip, 0, len(audit))
	for _, a := range audit {
		var s slip
		if err := jsonUnmarshal(a.Detail, &s); err != nil {
			return nil, fmt.Errorf("movement slip %d of %s: %w", a.Seq, id, err)
		}
		out = append(out, Slip{MoveID: s.MoveID, PlayerID: s.PlayerID, FromTable: s.FromTable, FromSeat: s.FromSeat,
			ToTable: s.ToTable, ToSeat: s.ToSeat, Stack: s.Stack, Rule: s.Rule, Reason: s.Reason, HandNo: s.HandNo,
			At: a.CreatedAt, Actor: a.Actor, State: SlipRecorded})
	}
	return out, nil
}

// Track fills in where each slip's move stands at the tables and the chips
// it carries as the table service counted them. A move the tables do not
// know yet stays Recorded.
func (d *Director) Track(ctx context.Context, id string, slips []Slip) error {
	if d.tables == nil {
		return nil
	}
	moves, err := d.tables.Moves(ctx, id)
	if err != nil {
		return err
	}
	byID := make(map[string]Move, len(moves))
	for _, m := range moves {
		byID[m.ID] = m
	}
	for i := range slips {
		m, ok := byID[slips[i].MoveID]
		if !ok {
			continue
		}
		slips[i].State = slipStates[m.State]
		if m.Chips > 0 {
			slips[i].Stack = m.Chips
		}
	}
	return nil
}

var slipStates = map[MoveState]SlipState{MovePending: SlipOrdered, MoveInTransit: SlipInTransit, MoveArriving: SlipArriving,
	MoveDelivered: SlipDelivered, MoveCancelled: SlipCancelled}
