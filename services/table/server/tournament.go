package server

import (
	"cmp"
	"context"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/cardroom/cardroom/platform/fault"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table/dealer"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/runner"
	"github.com/cardroom/cardroom/services/table/store"
	"github.com/cardroom/cardroom/services/table/tablepb"
	"github.com/cardroom/cardroom/services/table/tables"
)

// Tournament implements tablev1.TournamentTableServiceServer: the
// tournament service's controls of its tables (README, "Tournament
// tables"). The service role alone may call it (the access option); the
// runner refuses cash tables.
type Tournament struct {
	tablev1.UnimplementedTournamentTableServiceServer
	s *Server
}

// Tournament returns the server of the tournament controls, over the same
// runner as s.
func (s *Server) Tournament() *Tournament { return &Tournament{s: s} }

// OpenTournamentTable opens a tournament table bound to its tournament; a
// repeated key returns the table it opened.
func (t *Tournament) OpenTournamentTable(ctx context.Context, req *tablev1.OpenTournamentTableRequest) (*tablev1.OpenTournamentTableResponse, error) {
	s := t.s
	d := tablepb.DefinitionFromProto(&tablev1.CreateTableRequest{Name: req.GetName(), Game: req.GetGame(), Seats: req.GetSeats(),
		Kind: tablev1.TableKind_TABLE_KIND_TOURNAMENT, Mode: req.GetMode()})
	d.TournamentID = req.GetTournamentId()
	d, dup, err := s.runner.OpenTournament(ctx, s.timed(d, req.GetActionSeconds()), req.GetIdempotencyKey())
	if err != nil {
		return nil, err
	}
	if !dup {
		return &tablev1.OpenTournamentTableResponse{Table: tablepb.TableToProto(d)}, nil
	}
	tab, err := s.getTable(ctx, d.ID)
	if err != nil {
		return nil, err
	}
	if tab.GetTournamentId() != req.GetTournamentId() {
		return nil, store.ErrKeyReused.Withf("the key opened a table of another tournament")
	}
	return &tablev1.OpenTournamentTableResponse{Table: tab, Duplicate: true}, nil
}

// CloseTournamentTable closes an empty tournament table.
func (t *Tournament) CloseTournamentTable(ctx context.Context, req *tablev1.CloseTournamentTableRequest) (*tablev1.CloseTournamentTableResponse, error) {
	if err := t.s.runner.CloseTournament(ctx, req.GetTableId()); err != nil {
		return nil, err
	}
	tab, err := t.s.getTable(ctx, req.GetTableId())
	if err != nil {
		return nil, err
	}
	return &tablev1.CloseTournamentTableResponse{Table: tab}, nil
}

// SeatEntrant seats an entrant with a stack.
func (t *Tournament) SeatEntrant(ctx context.Context, req *tablev1.SeatEntrantRequest) (*tablev1.SeatEntrantResponse, error) {
	sv, dup, err := t.s.runner.SeatEntrant(ctx, req.GetTableId(), req.GetIdempotencyKey(), req.GetPlayerId(), int(req.GetSeat()), req.GetStack())
	if err != nil {
		return nil, err
	}
	return &tablev1.SeatEntrantResponse{Seat: tournamentSeatToProto(sv), Duplicate: dup}, nil
}

// SetButton places the drawn button.
func (t *Tournament) SetButton(ctx context.Context, req *tablev1.SetButtonRequest) (*tablev1.SetButtonResponse, error) {
	st, dup, err := t.s.runner.SetButton(ctx, req.GetTableId(), req.GetIdempotencyKey(), int(req.GetSeat()))
	if err != nil {
		return nil, err
	}
	return &tablev1.SetButtonResponse{Status: t.status(req.GetTableId(), st, nil), Duplicate: dup}, nil
}

// SetLevels gives the table its level schedule.
func (t *Tournament) SetLevels(ctx context.Context, req *tablev1.SetLevelsRequest) (*tablev1.SetLevelsResponse, error) {
	def, err := t.s.runner.Definition(ctx, req.GetTableId())
	if err != nil {
		return nil, err
	}
	levels := make([]dealer.Level, len(req.GetLevels()))
	for i, l := range req.GetLevels() {
		if levels[i], err = levelFromProto(def, i, l); err != nil {
			return nil, err
		}
	}
	st, stale, err := t.s.runner.SetLevels(ctx, req.GetTableId(), req.GetRevision(), levels)
	if err != nil {
		return nil, err
	}
	return &tablev1.SetLevelsResponse{Stale: stale, Status: t.status(req.GetTableId(), st, nil)}, nil
}

// levelFromProto reads row i of a schedule, its stakes checked against
// the table's game as a table opened with them would be (G-07).
func levelFromProto(def tables.Definition, i int, l *tablev1.TournamentLevel) (dealer.Level, error) {
	out := dealer.Level{No: int(l.GetLevel()), Start: l.GetStartTime().AsTime(), Break: l.GetIsBreak()}
	field := fmt.Sprintf("levels[%d]", i)
	if l.GetIsBreak() {
		if l.GetStakes() != nil {
			return out, fault.Invalidf(field+".stakes", "a break has no stakes")
		}
		return out, nil
	}
	k := l.GetStakes()
	if k == nil {
		return out, fault.Invalidf(field+".stakes", "a playing level needs its stakes")
	}
	d := def
	d.Config.Stakes = engine.Stakes{SmallBlind: k.GetSmallBlind(), BigBlind: k.GetBigBlind(), Ante: k.GetAnte(), BringIn: k.GetBringIn(),
		SmallBet: k.GetSmallBet(), BigBet: k.GetBigBet()}
	if err := d.Validate(); err != nil {
		return out, fault.Invalidf(field+".stakes", "%v", err)
	}
	out.Stakes = d.Config.Stakes
	if l.GetBigBlindAnte() {
		if d.Config.Game.IsStud() {
			return out, fault.Invalidf(field+".big_blind_ante", "stud has no big blind")
		}
		out.Stakes.BigBlindAnte, out.Stakes.Ante = out.Stakes.Ante, 0
	}
	out.Stakes.ChipUnit = l.GetChipUnit()
	return out, nil
}

var holdReasons = map[tablev1.HoldReason]dealer.HoldReason{
	tablev1.HoldReason_HOLD_REASON_BREAK: dealer.HoldBreak, tablev1.HoldReason_HOLD_REASON_HAND_FOR_HAND: dealer.HoldHandForHand,
	tablev1.HoldReason_HOLD_REASON_BALANCING: dealer.HoldBalancing, tablev1.HoldReason_HOLD_REASON_CLOCK_PAUSED: dealer.HoldClockPaused,
	tablev1.HoldReason_HOLD_REASON_FLOOR: dealer.HoldFloor,
}

var holdReasonsToProto = invertMap(holdReasons)

func invertMap[K, V comparable](m map[K]V) map[V]K {
	out := make(map[V]K, len(m))
	for k, v := range m {
		out[v] = k
	}
	return out
}

// HoldDealing sets a hold on dealing.
func (t *Tournament) HoldDealing(ctx context.Context, req *tablev1.HoldDealingRequest) (*tablev1.HoldDealingResponse, error) {
	h := req.GetHold()
	reason, ok := holdReasons[h.GetReason()]
	if !ok {
		return nil, fault.Invalidf("hold.reason", "unknown hold reason")
	}
	if h.GetHoldId() == "" || len(h.GetHoldId()) > 128 || len(h.GetNote()) > 500 || h.GetDealThroughHand() < 0 {
		return nil, fault.Invalidf("hold", "hold_id (1 to 128 characters), note (at most 500) and deal_through_hand (>= 0) are needed")
	}
	st, err := t.s.runner.Hold(ctx, req.GetTableId(), dealer.Hold{ID: h.GetHoldId(), Reason: reason, Through: h.GetDealThroughHand(), Note: h.GetNote()})
	if err != nil {
		return nil, err
	}
	return &tablev1.HoldDealingResponse{Status: t.status(req.GetTableId(), st, nil)}, nil
}

// ReleaseDealing lifts a hold.
func (t *Tournament) ReleaseDealing(ctx context.Context, req *tablev1.ReleaseDealingRequest) (*tablev1.ReleaseDealingResponse, error) {
	st, err := t.s.runner.Release(ctx, req.GetTableId(), req.GetHoldId())
	if err != nil {
		return nil, err
	}
	return &tablev1.ReleaseDealingResponse{Status: t.status(req.GetTableId(), st, nil)}, nil
}

// AdjustStack adds or takes chips.
func (t *Tournament) AdjustStack(ctx context.Context, req *tablev1.AdjustStackRequest) (*tablev1.AdjustStackResponse, error) {
	var expected *int64
	if req.ExpectedStack != nil {
		e := req.GetExpectedStack()
		expected = &e
	}
	sv, dup, err := t.s.runner.AdjustStack(ctx, req.GetTableId(), req.GetIdempotencyKey(), req.GetPlayerId(), req.GetAmount(), expected,
		dealer.StackChange(req.GetChange())) // the proto's values are the dealer's
	if err != nil {
		return nil, err
	}
	return &tablev1.AdjustStackResponse{Seat: tournamentSeatToProto(sv), Duplicate: dup}, nil
}

// SetAbsence deals an entrant dead for N hands or as left.
func (t *Tournament) SetAbsence(ctx context.Context, req *tablev1.SetAbsenceRequest) (*tablev1.SetAbsenceResponse, error) {
	sv, dup, err := t.s.runner.SetAbsence(ctx, req.GetTableId(), req.GetIdempotencyKey(), req.GetPlayerId(), int(req.GetMissedHands()), req.GetLeft())
	if err != nil {
		return nil, err
	}
	return &tablev1.SetAbsenceResponse{Seat: tournamentSeatToProto(sv), Duplicate: dup}, nil
}

// KillEntrantHand kills an entrant's hand in progress.
func (t *Tournament) KillEntrantHand(ctx context.Context, req *tablev1.KillEntrantHandRequest) (*tablev1.KillEntrantHandResponse, error) {
	st, dup, err := t.s.runner.KillEntrantHand(ctx, req.GetTableId(), req.GetIdempotencyKey(), req.GetPlayerId(), req.GetHandNo())
	if err != nil {
		return nil, err
	}
	return &tablev1.KillEntrantHandResponse{Status: t.status(req.GetTableId(), st, nil), Duplicate: dup}, nil
}

// RemoveEntrant takes an entrant off the table.
func (t *Tournament) RemoveEntrant(ctx context.Context, req *tablev1.RemoveEntrantRequest) (*tablev1.RemoveEntrantResponse, error) {
	removed, chips, dup, err := t.s.runner.RemoveEntrant(ctx, req.GetTableId(), req.GetIdempotencyKey(), req.GetPlayerId(),
		dealer.RemovalReason(req.GetReason())) // the proto's values are the dealer's
	if err != nil {
		return nil, err
	}
	return &tablev1.RemoveEntrantResponse{Removed: removed, ChipsRemoved: chips, Duplicate: dup}, nil
}

// MoveOut is a move's first step.
func (t *Tournament) MoveOut(ctx context.Context, req *tablev1.MoveOutRequest) (*tablev1.MoveOutResponse, error) {
	if req.GetToTableId() == req.GetTableId() {
		return nil, fault.Invalidf("to_table_id", "a move goes to another table")
	}
	m, dup, err := t.s.runner.MoveOut(ctx, req.GetTableId(), runner.MoveOutArgs{Move: req.GetMoveId(), Player: req.GetPlayerId(),
		ToTable: req.GetToTableId(), ToSeat: int(req.GetToSeat())})
	if err != nil {
		return nil, err
	}
	return &tablev1.MoveOutResponse{Move: runner.MoveToProto(m), Duplicate: dup}, nil
}

// MoveIn is a move's second step.
func (t *Tournament) MoveIn(ctx context.Context, req *tablev1.MoveInRequest) (*tablev1.MoveInResponse, error) {
	m, dup, err := t.s.runner.MoveIn(ctx, req.GetTableId(), req.GetMoveId())
	if err != nil {
		return nil, err
	}
	return &tablev1.MoveInResponse{Move: runner.MoveToProto(m), Duplicate: dup}, nil
}

// ListMoves lists a tournament's moves.
func (t *Tournament) ListMoves(ctx context.Context, req *tablev1.ListMovesRequest) (*tablev1.ListMovesResponse, error) {
	size := int(req.GetPageSize())
	size = cmp.Or(size, 100)
	states := make([]store.MoveState, len(req.GetStates()))
	for i, st := range req.GetStates() {
		states[i] = store.MoveState(st)
	}
	moves, next, err := t.s.runner.Moves(ctx, req.GetTournamentId(), states, size, req.GetPageToken())
	if err != nil {
		return nil, err
	}
	resp := &tablev1.ListMovesResponse{NextPageToken: next}
	for _, m := range moves {
		resp.Moves = append(resp.Moves, runner.MoveToProto(m))
	}
	return resp, nil
}

// CountTournamentChips counts a tournament's chips in one snapshot.
func (t *Tournament) CountTournamentChips(ctx context.Context, req *tablev1.CountTournamentChipsRequest) (*tablev1.CountTournamentChipsResponse, error) {
	tabs, moves, err := t.s.runner.TournamentChips(ctx, req.GetTournamentId())
	if err != nil {
		return nil, err
	}
	resp := &tablev1.CountTournamentChipsResponse{}
	for _, tab := range tabs {
		tc := &tablev1.TableChips{TableId: tab.ID, Closed: tab.Closed}
		if tab.Public != nil {
			if tc.Chips, err = dealer.PublicChips(tab.Public); err != nil {
				return nil, err
			}
			if tc.HandNo, err = dealer.PublicHandNo(tab.Public); err != nil {
				return nil, err
			}
		}
		resp.Tables = append(resp.Tables, tc)
		resp.OnTables += tc.Chips
	}
	for _, m := range moves {
		resp.InTransit = append(resp.InTransit, runner.MoveToProto(m))
		resp.ChipsInTransit += m.Chips
	}
	resp.Total = resp.OnTables + resp.ChipsInTransit
	return resp, nil
}

// GetTournamentTable returns a tournament table as its tournament sees it.
func (t *Tournament) GetTournamentTable(ctx context.Context, req *tablev1.GetTournamentTableRequest) (*tablev1.GetTournamentTableResponse, error) {
	st, seats, err := t.s.runner.TournamentStatus(ctx, req.GetTableId())
	if err != nil {
		return nil, err
	}
	return &tablev1.GetTournamentTableResponse{Status: t.status(req.GetTableId(), st, seats)}, nil
}

// ListHandResults returns a table's hand reports.
func (t *Tournament) ListHandResults(ctx context.Context, req *tablev1.ListHandResultsRequest) (*tablev1.ListHandResultsResponse, error) {
	def, err := t.s.runner.Definition(ctx, req.GetTableId())
	if err != nil {
		return nil, err
	}
	if !def.Config.Tournament {
		return nil, dealer.ErrNotTournamentTable
	}
	size := int(req.GetPageSize())
	size = cmp.Or(size, 100)
	raw, err := t.s.runner.HandReports(ctx, req.GetTableId(), req.GetAfterHandNo(), size)
	if err != nil {
		return nil, err
	}
	resp := &tablev1.ListHandResultsResponse{}
	for _, b := range raw {
		var h tablev1.HandEnded
		if err := proto.Unmarshal(b, &h); err != nil {
			return nil, fmt.Errorf("hand report of %s: %w", req.GetTableId(), err)
		}
		resp.Hands = append(resp.Hands, &h)
	}
	return resp, nil
}

// status writes a tournament table's status; seats may be nil (the
// controls' responses leave them out: GetTournamentTable has them).
func (t *Tournament) status(id string, st dealer.Status, seats []runner.SeatView) *tablev1.TournamentTableStatus {
	p := &tablev1.TournamentTableStatus{TableId: id, TournamentId: st.TournamentID, HandNo: st.HandNo, InHand: st.InHand,
		Dealing: st.Dealing, LevelsRevision: st.Tour.Revision, Level: int32(st.Level), OnBreak: st.OnBreak, Chips: st.Chips,
		Closed: st.Closed}
	for _, h := range st.Tour.Holds {
		p.Holds = append(p.Holds, &tablev1.DealingHold{HoldId: h.ID, Reason: holdReasonsToProto[h.Reason], DealThroughHand: h.Through, Note: h.Note})
	}
	if n := st.Next; n != nil {
		b, bb := int32(n.Button), int32(n.BigBlind)
		p.NextButton, p.NextBigBlind = &b, &bb
	}
	for _, s := range seats {
		p.Seats = append(p.Seats, tournamentSeatToProto(s))
	}
	return p
}

func tournamentSeatToProto(s runner.SeatView) *tablev1.TournamentSeat {
	p := &tablev1.TournamentSeat{Seat: int32(s.No), PlayerId: s.Player, Stack: s.Stack, PendingChips: s.Pending,
		MissedHands: int32(s.MissedHands), Left: s.Left, Absent: s.Absent(), MoveId: s.MoveOut}
	if h := s.InHand; h != nil {
		p.InHand, p.Stack = true, h.Stack
	}
	if a := s.Arriving; a != nil {
		p.Arriving, p.MoveId, p.MissedHands, p.Left = true, a.Move, int32(a.MissedHands), a.Left
	}
	return p
}

// ConfirmArrival is a live dealer's confirmation that a moved player sat
// down with their chips.
func (s *Server) ConfirmArrival(ctx context.Context, req *tablev1.ConfirmArrivalRequest) (*tablev1.ConfirmArrivalResponse, error) {
	c := caller(ctx)
	v, err := s.runner.ConfirmArrival(ctx, req.GetTableId(), c, int(req.GetSeat()), req.GetMoveId())
	if err != nil {
		return nil, err
	}
	return &tablev1.ConfirmArrivalResponse{State: stateToProto(v)}, nil
}
