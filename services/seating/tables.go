package seating

import (
	"context"
	"fmt"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/seating/room"
)

// TableSeats carries seating's absence decisions to the table service over
// its gRPC API, with seating's service identity (the connection's token):
// SitOut, Return and Leave of TableService, which take the service role for
// any seat. Each call first reads the table's seat, so that a late event
// about a player who has left changes nobody else's seat.
type TableSeats struct {
	Client tablev1.TableServiceClient
}

var _ room.Tables = TableSeats{}

// SitOut takes the away player out of the deal from the next hand (TP-56)
// and, in a hand they are still in, has the house act for the seat (G-43),
// so the hand does not wait for a player who is not there.
func (l TableSeats) SitOut(ctx context.Context, table string, seat int, player string) error {
	return l.change(ctx, table, seat, player, func(s *tablev1.SeatState) error {
		if s.GetSittingOut() && !s.GetInHand() {
			return nil
		}
		_, err := l.Client.SitOut(ctx, &tablev1.SitOutRequest{TableId: table, Seat: int32(seat), Away: true})
		return err
	})
}

// Return deals the player in again: they wait for the big blind, or post
// what they owe if they return at the table with post_now (TP-15, TP-18).
func (l TableSeats) Return(ctx context.Context, table string, seat int, player string) error {
	return l.change(ctx, table, seat, player, func(s *tablev1.SeatState) error {
		if !s.GetSittingOut() {
			return nil
		}
		_, err := l.Client.Return(ctx, &tablev1.ReturnRequest{TableId: table, Seat: int32(seat)})
		return err
	})
}

// Release stands the player up: the table cashes them out (at the end of
// the hand in progress if they are in it) and reports the seat empty,
// which seating offers to the next player (CS-13).
func (l TableSeats) Release(ctx context.Context, table string, seat int, player string) error {
	return l.change(ctx, table, seat, player, func(s *tablev1.SeatState) error {
		if s.GetLeaving() {
			return nil
		}
		_, err := l.Client.Leave(ctx, &tablev1.LeaveRequest{TableId: table, Seat: int32(seat)})
		return err
	})
}

// change runs do on the seat when it still holds player at an open table;
// otherwise there is nothing left to do. A seat emptied or a table closed
// meanwhile is not a failure either.
func (l TableSeats) change(ctx context.Context, table string, seat int, player string, do func(*tablev1.SeatState) error) error {
	resp, err := l.Client.GetTableState(ctx, &tablev1.GetTableStateRequest{TableId: table})
	if gone(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read table %s: %w", table, err)
	}
	st := resp.GetState()
	if st.GetClosed() {
		return nil
	}
	for _, s := range st.GetSeats() {
		if int(s.GetSeat()) == seat && s.GetPlayerId() == player {
			if err := do(s); err != nil && !gone(err) {
				return err
			}
			return nil
		}
	}
	return nil
}

// gone reports whether the table answered that the table or the seat's
// player is not there any more.
func gone(err error) bool {
	st, ok := status.FromError(err)
	if !ok || err == nil {
		return false
	}
	if st.Code() == codes.NotFound {
		return true
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			switch info.GetReason() {
			case "SEAT_EMPTY", "TABLE_CLOSED":
				return true
			}
		}
	}
	return false
}
