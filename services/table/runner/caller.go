package runner

import "github.com/cardroom/cardroom/platform/fault"

// Caller is who asks: a player acts only for their own seat; staff
// (dealer, floor, admin, service) act for any.
type Caller struct {
	Player string
	Role   string
	Staff  bool
	Floor  bool
}

// Viewer is who watches; a player sees their own hole cards only.
type Viewer struct {
	Player string
	// Staff is a dealer's console or the floor: no hole card, but the
	// legal actions of the seat in turn, the pot at every table and the
	// console's standing proposal.
	Staff bool
}

// Spectator is the seat number views use for someone with no seat: no
// hole card is visible to it.
const Spectator = -2

func (t *Table) viewerSeat(v Viewer) int {
	if v.Player == "" {
		return Spectator
	}
	if s := t.dt.SeatOf(v.Player); s >= 0 {
		return s
	}
	return Spectator
}

func (t *Table) seatFor(c Caller, seat int) error {
	if c.Staff {
		return nil
	}
	seats := t.dt.Seats()
	if seat < 0 || seat >= len(seats) || seats[seat].Player != c.Player {
		return fault.New(fault.Forbidden, "NOT_YOUR_SEAT", "a player acts only for their own seat")
	}
	return nil
}
