package server

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/director"
)

// ListMovementSlips returns every movement slip of the tournament with
// where its move stands at the tables (issue 10 item 4).
func (s *Server) ListMovementSlips(ctx context.Context, req *tournamentv1.ListMovementSlipsRequest) (*tournamentv1.ListMovementSlipsResponse, error) {
	slips, err := s.desk.MovementSlips(ctx, req.GetTournamentId())
	if err != nil {
		return nil, err
	}
	resp := &tournamentv1.ListMovementSlipsResponse{}
	for _, sl := range slips {
		resp.Slips = append(resp.Slips, slipToProto(sl))
	}
	return resp, nil
}

var slipStateToProto = map[director.SlipState]tournamentv1.MovementSlipState{
	director.SlipRecorded:  tournamentv1.MovementSlipState_MOVEMENT_SLIP_STATE_RECORDED,
	director.SlipOrdered:   tournamentv1.MovementSlipState_MOVEMENT_SLIP_STATE_ORDERED,
	director.SlipInTransit: tournamentv1.MovementSlipState_MOVEMENT_SLIP_STATE_IN_TRANSIT,
	director.SlipArriving:  tournamentv1.MovementSlipState_MOVEMENT_SLIP_STATE_ARRIVING,
	director.SlipDelivered: tournamentv1.MovementSlipState_MOVEMENT_SLIP_STATE_DELIVERED,
	director.SlipCancelled: tournamentv1.MovementSlipState_MOVEMENT_SLIP_STATE_CANCELLED,
}

func slipToProto(s director.Slip) *tournamentv1.MovementSlip {
	return &tournamentv1.MovementSlip{MoveId: s.MoveID, PlayerId: s.PlayerID, FromTable: int32(s.FromTable), FromSeat: int32(s.FromSeat),
		ToTable: int32(s.ToTable), ToSeat: int32(s.ToSeat), Stack: s.Stack, RuleId: s.Rule, Reason: s.Reason, HandNo: s.HandNo,
		CreateTime: timestamppb.New(s.At), Actor: s.Actor, State: slipStateToProto[s.State]}
}

// WatchLobby streams the tournament's lobby (issue 13 item 2): the clock's
// picture with what lies ahead on the sheet, the stacks, the leaderboard,
// the latest movement slips and hand-for-hand, sent first and again
// whenever anything on it changes other than the times running down.
func (s *Server) WatchLobby(req *tournamentv1.WatchLobbyRequest, stream grpc.ServerStreamingServer[tournamentv1.WatchLobbyResponse]) error {
	id := req.GetTournamentId()
	// A move over stays over: its slip is not asked of the table service
	// again by this watch.
	over := map[string]director.Slip{}
	return poll(stream.Context(), func(ctx context.Context) (lobby, error) {
		return s.lobby(ctx, id, over)
	}, lobby.same, func(l lobby) error { return stream.Send(l.msg) })
}

// lobby is one reading of the lobby.
type lobby struct {
	picture
	msg *tournamentv1.WatchLobbyResponse
}

// lobby reads the tournament's lobby; over caches the slips of the moves
// already over.
func (s *Server) lobby(ctx context.Context, id string, over map[string]director.Slip) (lobby, error) {
	l, err := s.desk.Lobby(ctx, id, over)
	if err != nil {
		return lobby{}, err
	}
	p := pictureOf(l.Picture)
	msg := &tournamentv1.WatchLobbyResponse{Clock: p.msg, HandForHand: handForHandToProto(l.Tournament.HandForHand)}
	for _, st := range l.Leaderboard {
		msg.ChipCounts = append(msg.ChipCounts, &tournamentv1.LeaderboardEntry{PlayerId: st.PlayerID, Table: int32(st.Table),
			Seat: int32(st.Seat), Stack: st.Stack, HandNo: st.HandNo, Rank: int32(st.Rank)})
	}
	if l.PlayersLeft > 0 {
		msg.AverageStack = l.ChipsInPlay / int64(l.PlayersLeft)
	}
	if len(msg.ChipCounts) > 0 {
		msg.LargestStack = msg.ChipCounts[0].GetStack()
	}
	if l.Ahead.HasNext {
		msg.NextLevel = levelToProto(l.Ahead.Next)
	}
	if l.Ahead.HasBreak {
		msg.TimeToBreak = durationpb.New(l.Ahead.ToBreak)
	}
	for _, sl := range l.Slips {
		msg.MovementSlips = append(msg.MovementSlips, slipToProto(sl))
	}
	return lobby{picture: p, msg: msg}, nil
}

// same reports whether l shows what o showed: the same clock picture, the
// same everything else, and the time to the break ending at the same
// moment.
func (l lobby) same(o lobby) bool {
	if !l.picture.same(o.picture) {
		return false
	}
	a, b := proto.CloneOf(l.msg), proto.CloneOf(o.msg)
	a.Clock, b.Clock = nil, nil
	ta, tb := a.GetTimeToBreak(), b.GetTimeToBreak()
	a.TimeToBreak, b.TimeToBreak = nil, nil
	if !proto.Equal(a, b) || (ta == nil) != (tb == nil) {
		return false
	}
	return ta == nil || sameDeadline(l.running(), l.at, ta.AsDuration(), o.at, tb.AsDuration())
}
