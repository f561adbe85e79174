// Package tables is the director's adapter to the table service: it
// implements director.Tables over the generated TournamentTableService
// client, translating the tournament's 1-based seats to the table's
// 0-based ones, and classifies the table service's errors in one place:
// no answer is director.ErrUnreachable (repeat the control), a failure of
// the table service's own (Internal, Unknown) director.ErrFailed (repeat
// it, backed off), anything else a definite refusal (director.Refused with
// its reason).
package tables

import (
	"context"
	"fmt"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cardroom/cardroom/platform/auth"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/tournament/director"
)

// Client drives tournament tables through the table service.
type Client struct {
	c tablev1.TournamentTableServiceClient
}

var _ director.Tables = (*Client)(nil)

// New returns a Client over c, which must be dialled with the tournament
// service's own token (rpc.Options.ServiceToken): the controls are for the
// service role, and the caller's token is dropped before each call.
func New(c tablev1.TournamentTableServiceClient) *Client { return &Client{c: c} }

// ctx drops a caller's token (a floor's StartTournament) so the
// connection's service token is sent: the tournament drives its tables.
func serviceContext(ctx context.Context) context.Context { return auth.WithToken(ctx, "") }

// classify turns a gRPC error into the director's: no answer (or an
// answer that says "try again") is ErrUnreachable; the table service's
// own failure ErrFailed; every other status is its decision.
func classify(op string, err error) error {
	if err == nil {
		return nil
	}
	st, _ := status.FromError(err)
	switch st.Code() {
	case codes.Unavailable, codes.DeadlineExceeded, codes.ResourceExhausted, codes.Aborted, codes.Canceled:
		return fmt.Errorf("%s: %w: %w", op, director.ErrUnreachable, err)
	case codes.Unknown, codes.Internal:
		// Repeatable, but no failover will fix a control the table service
		// itself fails: the director backs the step off and reports it.
		return fmt.Errorf("%s: %w: %w", op, director.ErrFailed, err)
	}
	reason := st.Code().String()
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			reason = info.GetReason()
		}
	}
	return fmt.Errorf("%s: %w", op, &director.Refused{Reason: reason, Err: err})
}

// Open opens a TABLE_KIND_TOURNAMENT table: digital, or live when the
// event is dealt live (physical cards entered at the dealer's console,
// TP-68). A live table has no action clock of its own: its dealer calls
// the clock on a player (TP-59), as at a live cash table.
func (c *Client) Open(ctx context.Context, t director.OpenTable) (string, error) {
	mode, clock := tablev1.TableMode_TABLE_MODE_DIGITAL, int32(0)
	if t.Live {
		mode, clock = tablev1.TableMode_TABLE_MODE_LIVE, -1
	}
	resp, err := c.c.OpenTournamentTable(serviceContext(ctx), &tablev1.OpenTournamentTableRequest{
		IdempotencyKey: t.Key, TournamentId: t.TournamentID, Name: t.Name, Seats: int32(t.Seats),
		Mode: mode, ActionSeconds: clock,
		Game: &gamev1.Game{
			Variant:   gamev1.Variant(gamev1.Variant_value["VARIANT_"+t.Game]),
			Structure: gamev1.Structure(gamev1.Structure_value["STRUCTURE_"+t.Structure]),
			Stakes:    &gamev1.Stakes{SmallBlind: t.SmallBlind, BigBlind: t.BigBlind},
		},
	})
	if err != nil {
		return "", classify("open table "+t.Key, err)
	}
	return resp.GetTable().GetTableId(), nil
}

// Close closes a table.
func (c *Client) Close(ctx context.Context, tableID string) error {
	_, err := c.c.CloseTournamentTable(serviceContext(ctx), &tablev1.CloseTournamentTableRequest{TableId: tableID})
	return classify("close table "+tableID, err)
}

// Seat seats an entrant.
func (c *Client) Seat(ctx context.Context, tableID, key, player string, seat int, stack int64) error {
	_, err := c.c.SeatEntrant(serviceContext(ctx), &tablev1.SeatEntrantRequest{TableId: tableID, IdempotencyKey: key, PlayerId: player,
		Seat: int32(seat - 1), Stack: stack})
	return classify("seat "+key, err)
}

// SetButton places the button.
func (c *Client) SetButton(ctx context.Context, tableID, key string, seat int) error {
	_, err := c.c.SetButton(serviceContext(ctx), &tablev1.SetButtonRequest{TableId: tableID, IdempotencyKey: key, Seat: int32(seat - 1)})
	return classify("button "+key, err)
}

// SetLevels sends the schedule.
func (c *Client) SetLevels(ctx context.Context, tableID string, revision int64, rows []director.Row) error {
	req := &tablev1.SetLevelsRequest{TableId: tableID, Revision: revision}
	for _, r := range rows {
		l := &tablev1.TournamentLevel{Level: int32(r.Level), StartTime: timestamppb.New(r.Start), IsBreak: r.Break}
		if !r.Break {
			l.Stakes = &gamev1.Stakes{SmallBlind: r.SmallBlind, BigBlind: r.BigBlind, Ante: r.Ante}
			l.BigBlindAnte = r.BigBlindAnte
		}
		req.Levels = append(req.Levels, l)
	}
	_, err := c.c.SetLevels(serviceContext(ctx), req)
	return classify(fmt.Sprintf("levels of %s revision %d", tableID, revision), err)
}

var holdReasons = map[director.HoldReason]tablev1.HoldReason{
	director.HoldFloor:       tablev1.HoldReason_HOLD_REASON_FLOOR,
	director.HoldBalancing:   tablev1.HoldReason_HOLD_REASON_BALANCING,
	director.HoldHandForHand: tablev1.HoldReason_HOLD_REASON_HAND_FOR_HAND,
	director.HoldClockPaused: tablev1.HoldReason_HOLD_REASON_CLOCK_PAUSED,
}

// Hold sets a hold.
func (c *Client) Hold(ctx context.Context, tableID, holdID string, reason director.HoldReason, dealThrough int64) error {
	_, err := c.c.HoldDealing(serviceContext(ctx), &tablev1.HoldDealingRequest{TableId: tableID, Hold: &tablev1.DealingHold{
		HoldId: holdID, Reason: holdReasons[reason], DealThroughHand: dealThrough}})
	return classify("hold "+tableID+" "+holdID, err)
}

// Release lifts a hold.
func (c *Client) Release(ctx context.Context, tableID, holdID string) error {
	_, err := c.c.ReleaseDealing(serviceContext(ctx), &tablev1.ReleaseDealingRequest{TableId: tableID, HoldId: holdID})
	return classify("release "+tableID+" "+holdID, err)
}

// SetAbsence makes an entrant absent.
func (c *Client) SetAbsence(ctx context.Context, tableID, key, player string, hands int, left bool) error {
	_, err := c.c.SetAbsence(serviceContext(ctx), &tablev1.SetAbsenceRequest{TableId: tableID, IdempotencyKey: key, PlayerId: player,
		MissedHands: int32(hands), Left: left})
	return classify("absence "+key, err)
}

// AddChips adds rebuy or add-on chips.
func (c *Client) AddChips(ctx context.Context, tableID, key, player string, chips int64, addOn bool) error {
	change := tablev1.StackChange_STACK_CHANGE_REBUY
	if addOn {
		change = tablev1.StackChange_STACK_CHANGE_ADD_ON
	}
	_, err := c.c.AdjustStack(serviceContext(ctx), &tablev1.AdjustStackRequest{TableId: tableID, IdempotencyKey: key, PlayerId: player,
		Amount: chips, Change: change})
	return classify("chips "+key, err)
}

// RaceChips applies a chip race's result, checked against the stack it
// was computed from.
func (c *Client) RaceChips(ctx context.Context, tableID, key, player string, amount, before int64) error {
	_, err := c.c.AdjustStack(serviceContext(ctx), &tablev1.AdjustStackRequest{TableId: tableID, IdempotencyKey: key, PlayerId: player,
		Amount: amount, ExpectedStack: &before, Change: tablev1.StackChange_STACK_CHANGE_CHIP_RACE})
	return classify("chip race "+key, err)
}

// RemoveBusted removes a busted entrant.
func (c *Client) RemoveBusted(ctx context.Context, tableID, key, player string) error {
	_, err := c.c.RemoveEntrant(serviceContext(ctx), &tablev1.RemoveEntrantRequest{TableId: tableID, IdempotencyKey: key, PlayerId: player,
		Reason: tablev1.RemovalReason_REMOVAL_REASON_BUSTED})
	return classify("remove "+key, err)
}

// RemoveBagged takes a flight's survivor off the table at the end of the
// day: for the table the event is over (its chips leave play with the
// player; the director has bagged them for Day 2).
func (c *Client) RemoveBagged(ctx context.Context, tableID, key, player string) error {
	_, err := c.c.RemoveEntrant(serviceContext(ctx), &tablev1.RemoveEntrantRequest{TableId: tableID, IdempotencyKey: key, PlayerId: player,
		Reason: tablev1.RemovalReason_REMOVAL_REASON_FINISHED})
	return classify("remove "+key, err)
}

// RemoveOut takes a disqualified or (expel) expelled entrant off the
// table, their chips out of play (TR-34): now between hands (removed,
// with the chips), or when the hand they play ends.
func (c *Client) RemoveOut(ctx context.Context, tableID, key, player string, expel bool) (bool, int64, error) {
	reason := tablev1.RemovalReason_REMOVAL_REASON_DISQUALIFIED
	if expel {
		reason = tablev1.RemovalReason_REMOVAL_REASON_EXPELLED
	}
	resp, err := c.c.RemoveEntrant(serviceContext(ctx), &tablev1.RemoveEntrantRequest{TableId: tableID, IdempotencyKey: key, PlayerId: player,
		Reason: reason})
	if err != nil {
		return false, 0, classify("remove "+key, err)
	}
	return resp.GetRemoved(), resp.GetChipsRemoved(), nil
}

var moveStates = map[tablev1.MoveState]director.MoveState{
	tablev1.MoveState_MOVE_STATE_PENDING:    director.MovePending,
	tablev1.MoveState_MOVE_STATE_IN_TRANSIT: director.MoveInTransit,
	tablev1.MoveState_MOVE_STATE_ARRIVING:   director.MoveArriving,
	tablev1.MoveState_MOVE_STATE_DELIVERED:  director.MoveDelivered,
	tablev1.MoveState_MOVE_STATE_CANCELLED:  director.MoveCancelled,
}

func moveFromProto(m *tablev1.Move) director.Move {
	return director.Move{ID: m.GetMoveId(), Player: m.GetPlayerId(), FromTableID: m.GetFromTableId(), ToTableID: m.GetToTableId(),
		ToSeat: int(m.GetToSeat()) + 1, State: moveStates[m.GetState()], Chips: m.GetChips()}
}

// MoveOut takes the entrant off the table they leave.
func (c *Client) MoveOut(ctx context.Context, m director.Move) (director.MoveState, error) {
	resp, err := c.c.MoveOut(serviceContext(ctx), &tablev1.MoveOutRequest{TableId: m.FromTableID, MoveId: m.ID, PlayerId: m.Player,
		ToTableId: m.ToTableID, ToSeat: int32(m.ToSeat - 1)})
	if err != nil {
		return 0, classify("move out "+m.ID, err)
	}
	return moveStates[resp.GetMove().GetState()], nil
}

// MoveIn seats the entrant at the table they join.
func (c *Client) MoveIn(ctx context.Context, tableID, moveID string) (director.MoveState, error) {
	resp, err := c.c.MoveIn(serviceContext(ctx), &tablev1.MoveInRequest{TableId: tableID, MoveId: moveID})
	if err != nil {
		return 0, classify("move in "+moveID, err)
	}
	return moveStates[resp.GetMove().GetState()], nil
}

// Moves lists moves, every page.
func (c *Client) Moves(ctx context.Context, tournamentID string, states ...director.MoveState) ([]director.Move, error) {
	req := &tablev1.ListMovesRequest{TournamentId: tournamentID, PageSize: 500}
	for pb, s := range moveStates {
		for _, want := range states {
			if s == want {
				req.States = append(req.States, pb)
			}
		}
	}
	var out []director.Move
	for {
		resp, err := c.c.ListMoves(serviceContext(ctx), req)
		if err != nil {
			return nil, classify("moves of "+tournamentID, err)
		}
		for _, m := range resp.GetMoves() {
			out = append(out, moveFromProto(m))
		}
		if resp.GetNextPageToken() == "" {
			return out, nil
		}
		req.PageToken = resp.GetNextPageToken()
	}
}

// CountChips counts the chips on the tables and in transit.
func (c *Client) CountChips(ctx context.Context, tournamentID string) (int64, error) {
	resp, err := c.c.CountTournamentChips(serviceContext(ctx), &tablev1.CountTournamentChipsRequest{TournamentId: tournamentID})
	if err != nil {
		return 0, classify("count chips of "+tournamentID, err)
	}
	return resp.GetTotal(), nil
}

// Status reads where a table stands. The table service refuses to read a
// closed table (TABLE_CLOSED): that is the answer, a closed table.
func (c *Client) Status(ctx context.Context, tableID string) (director.TableStatus, error) {
	resp, err := c.c.GetTournamentTable(serviceContext(ctx), &tablev1.GetTournamentTableRequest{TableId: tableID})
	if err != nil {
		err = classify("table "+tableID, err)
		if director.Refusal(err) == "TABLE_CLOSED" {
			return director.TableStatus{Closed: true}, nil
		}
		return director.TableStatus{}, err
	}
	st := resp.GetStatus()
	out := director.TableStatus{HandNo: st.GetHandNo(), InHand: st.GetInHand(), Closed: st.GetClosed(), Holds: map[string]int64{}}
	for _, h := range st.GetHolds() {
		out.Holds[h.GetHoldId()] = h.GetDealThroughHand()
	}
	for _, s := range st.GetSeats() {
		if s.GetPlayerId() != "" {
			out.Seats = append(out.Seats, director.SeatStatus{Seat: int(s.GetSeat()) + 1, Player: s.GetPlayerId(), Stack: s.GetStack(),
				Pending: s.GetPendingChips(), AllIn: s.GetInHand() && s.GetStack() == 0})
		}
	}
	return out, nil
}
