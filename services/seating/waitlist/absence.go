package waitlist

import (
	"slices"
	"time"
)

// MarkAway starts a seated player's absence. A short absence runs the
// policy's seat-hold timer (CS-13); the long break is allowed once per
// gaming day (CS-14): the caller says whether the player has had it
// (longBreakUsed), since the allowance spans every game. limit, when not
// zero, is the floor's own limit for this absence.
func (g *Game) MarkAway(table, player string, kind AbsenceKind, limit time.Duration, day string, longBreakUsed bool, now time.Time) (Absence, []Event, error) {
	s, err := g.seatAt(table, player)
	if err != nil {
		return Absence{}, nil, err
	}
	if g.absence(player) != nil {
		return Absence{}, nil, ErrAlreadyAway
	}
	d, r := g.Policy.ShortAbsence, ShortAbsenceRange
	if kind == LongBreak {
		if longBreakUsed {
			return Absence{}, nil, ErrLongBreakUsed.With("gaming_day", day)
		}
		d, r = g.Policy.LongBreak, LongBreakRange
	}
	if limit != 0 {
		if err := r.Check("limit", limit); err != nil {
			return Absence{}, nil, err
		}
		d = limit
	}
	a := Absence{Player: player, Table: table, Seat: s.Number, Kind: kind, Start: now, Due: now.Add(d), GamingDay: day}
	g.Absences = append(g.Absences, a)
	return a, []Event{{Kind: PlayerAway, Absence: a}}, nil
}

// MarkBack ends a player's absence, overdue or not, as long as the floor
// has not released the seat.
func (g *Game) MarkBack(table, player string) (Absence, []Event, error) {
	a := g.absence(player)
	if a == nil || a.Table != table {
		return Absence{}, nil, ErrNotAway
	}
	back := *a
	g.dropAbsence(player)
	return back, []Event{{Kind: PlayerBack, Absence: back}}, nil
}

// DecideAbsence is the floor's decision once an absence's timer ran out
// (CS-13, CS-14): release the seat (it is vacated until the table reports
// it empty, and the player's table-change request goes too) or keep it for
// extend more.
func (g *Game) DecideAbsence(table, player string, release bool, extend time.Duration, now time.Time) (Absence, []Event, error) {
	a := g.absence(player)
	if a == nil || a.Table != table {
		return Absence{}, nil, ErrNotAway
	}
	if !a.Overdue {
		return Absence{}, nil, ErrNoDecisionPending.With("due_time", a.Due.UTC().Format(time.RFC3339))
	}
	if release {
		decided := *a
		g.dropAbsence(player)
		if _, s := g.SeatOf(player); s != nil {
			s.State = Vacating
		}
		g.Entries = slices.DeleteFunc(g.Entries, func(e Entry) bool { return e.Player == player && e.Kind == TableChange })
		return decided, g.settle(now, []Event{{Kind: SeatReleased, Absence: decided}}), nil
	}
	if extend == 0 {
		return Absence{}, nil, ErrExtendRequired.With("field", "extend")
	}
	r := ShortAbsenceRange
	if a.Kind == LongBreak {
		r = LongBreakRange
	}
	if err := r.Check("extend", extend); err != nil {
		return Absence{}, nil, err
	}
	a.Overdue, a.Due = false, now.Add(extend)
	return *a, []Event{{Kind: PlayerAway, Absence: *a}}, nil
}

// OverdueAbsences are the absences waiting for the floor's decision.
func (g *Game) OverdueAbsences() []Absence {
	var out []Absence
	for _, a := range g.Absences {
		if a.Overdue {
			out = append(out, a)
		}
	}
	return out
}

func (g *Game) absence(player string) *Absence {
	for i := range g.Absences {
		if g.Absences[i].Player == player {
			return &g.Absences[i]
		}
	}
	return nil
}

func (g *Game) seatAt(table, player string) (*Seat, error) {
	t := g.Table(table)
	if t == nil {
		return nil, ErrTableNotFound.With("table_id", table)
	}
	for i := range t.Seats {
		if s := &t.Seats[i]; s.State == Taken && s.Player == player {
			return s, nil
		}
	}
	return nil, ErrNotSeated.With("table_id", table)
}

// TableDuty is what the table must do with a player's seat so that the
// deal follows seating's record of their absence.
type TableDuty int

// Table duties.
const (
	// NoDuty: the player holds no seat at that table in this game any more
	// (they left it, the table broke); the table has nothing to do.
	NoDuty TableDuty = iota
	// SitOutDuty: the player is away (CS-13, CS-14) and is not dealt in
	// (TP-56); the blinds that pass them are owed (TP-15, TP-18).
	SitOutDuty
	// ReturnDuty: the player is back at their seat and is dealt in again
	// under TP-15/TP-18 (they wait for the big blind unless they post).
	ReturnDuty
	// ReleaseDuty: the floor released the seat (CS-13): the table stands
	// the player up and cashes them out, and reports the seat empty.
	ReleaseDuty
)

// String names the duty.
func (d TableDuty) String() string {
	return [...]string{"none", "sit out", "return", "release"}[d]
}

// DutyAt returns the seat the player holds (or is being released from) at
// table and what the table must do with it now. It reads the game as it
// stands, not the event that asked: absence events come at least once and
// in no guaranteed order across topics, so carrying out the current record
// is what makes a late or repeated event harmless.
func (g *Game) DutyAt(table, player string) (int, TableDuty) {
	t := g.Table(table)
	if t == nil {
		return 0, NoDuty
	}
	for _, s := range t.Seats {
		if s.Player != player {
			continue
		}
		switch s.State {
		case Vacating:
			return s.Number, ReleaseDuty
		case Taken:
			if a := g.absence(player); a != nil && a.Table == table {
				return s.Number, SitOutDuty
			}
			return s.Number, ReturnDuty
		}
	}
	return 0, NoDuty
}
