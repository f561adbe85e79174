package room

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/cardroom/cardroom/platform/events"
	seatingv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/seating/v1"
	"github.com/cardroom/cardroom/services/seating/store"
	"github.com/cardroom/cardroom/services/seating/waitlist"
)

// Tables is what seating asks of the table service so that an absence it
// records takes effect at the table without a second call by the app
// (CS-13, CS-14, TP-56): sit an away player out, bring a returning one back
// (TP-15, TP-18), stand a released one up. Each call names the seat and the
// player expected in it and is idempotent.
type Tables interface {
	// SitOut sits player out at seat from the next hand (CS-14, TP-56)
	// and has the house act for the seat in a hand they are still in
	// (G-43).
	SitOut(ctx context.Context, table string, seat int, player string) error
	// Return deals player in again, waiting for the big blind (TP-15, TP-18).
	Return(ctx context.Context, table string, seat int, player string) error
	// Release stands player up: the table cashes them out and opens the
	// seat (CS-13).
	Release(ctx context.Context, table string, seat int, player string) error
}

// absenceTopics are seating's own absence events the table link carries
// out; absence_overdue changes nothing at the table (the player stays sat
// out until the floor decides).
var absenceTopics = []waitlist.EventKind{waitlist.PlayerAway, waitlist.PlayerBack, waitlist.SeatReleased}

// HandleAbsence consumes one of seating's absence events
// (seating.player_away, player_back, seat_released) and makes the table
// match seating's current record of the player (waitlist.Game.DutyAt): the
// record, not the event, decides, so redeliveries and events overtaking
// each other change nothing. A release is carried out only for
// seat_released: a seat is also vacated when its player accepts a seat
// elsewhere in the game, and that player leaves the table themselves.
func (r *Room) HandleAbsence(ctx context.Context, ev events.Event) error {
	if r.tables == nil {
		return nil
	}
	var msg seatingv1.AbsenceEvent
	if err := proto.Unmarshal(ev.Payload, &msg); err != nil {
		r.log.ErrorContext(ctx, "seating: undecodable absence event dropped", "event", ev.ID, "error", err)
		return nil
	}
	table, player := msg.GetAbsence().GetTableId(), msg.GetAbsence().GetPlayerId()
	id, err := r.store.ByTable(ctx, table)
	if errors.Is(err, store.ErrTableNotFound) {
		return nil // the table broke: nobody to sit out
	}
	if err != nil {
		return err
	}
	rec, err := r.store.Get(ctx, id)
	if err != nil {
		return err
	}
	seat, duty := rec.Game.DutyAt(table, player)
	switch {
	case duty == waitlist.SitOutDuty:
		err = r.tables.SitOut(ctx, table, seat, player)
	case duty == waitlist.ReturnDuty:
		err = r.tables.Return(ctx, table, seat, player)
	case duty == waitlist.ReleaseDuty && ev.Topic == waitlist.SeatReleased.Topic():
		err = r.tables.Release(ctx, table, seat, player)
	default:
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %s of %s at %s seat %d: %w", ev.Topic, duty, player, table, seat, err)
	}
	return nil
}
