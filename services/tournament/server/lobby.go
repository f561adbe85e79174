package server

import (
	"cmp"
	"context"
	"slices"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/director"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// lobbySlips is how many of the latest movement slips the lobby shows.
const lobbySlips = 20

// ListMovementSlips returns every movement slip of the tournament with
// where its move stands at the tables (issue 10 item 4).
func (s *Server) ListMovementSlips(ctx context.Context, req *tournamentv1.ListMovementSlipsRequest) (*tournamentv1.ListMovementSlipsResponse, error) {
	if _, err := s.store.Load(ctx, req.GetTournamentId()); err != nil {
		return nil, err
	}
	if s.director == nil {
		return &tournamentv1.ListMovementSlipsResponse{}, nil
	}
	slips, err := s.director.RecordedSlips(ctx, req.GetTournamentId())
	if err != nil {
		return nil, err
	}
	if err := s.director.Track(ctx, req.GetTournamentId(), slips); err != nil {
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
	t, ens, err := s.loadWithEntries(ctx, id)
	if err != nil {
		return lobby{}, err
	}
	p, err := s.pictureOf(ctx, t, ens)
	if err != nil {
		return lobby{}, err
	}
	stacks, err := s.store.Stacks(ctx, id)
	if err != nil {
		return lobby{}, err
	}
	msg := &tournamentv1.WatchLobbyResponse{Clock: p.msg, ChipCounts: leaderboard(t, ens, stacks),
		HandForHand: handForHandToProto(t.HandForHand)}
	if p.msg.GetPlayersLeft() > 0 {
		msg.AverageStack = p.msg.GetChipsInPlay() / int64(p.msg.GetPlayersLeft())
	}
	if len(msg.ChipCounts) > 0 {
		msg.LargestStack = msg.ChipCounts[0].GetStack()
	}
	if t.Clock.Started.IsZero() {
		// Before the start the clock shows level 1, full length.
		t.Clock.Started = p.at
	}
	ahead := t.Clock.Ahead(p.at)
	if ahead.HasNext {
		msg.NextLevel = levelToProto(ahead.Next)
	}
	if ahead.HasBreak {
		msg.TimeToBreak = durationpb.New(ahead.ToBreak)
	}
	slips, err := s.latestSlips(ctx, id, over)
	if err != nil {
		return lobby{}, err
	}
	for _, sl := range slips {
		msg.MovementSlips = append(msg.MovementSlips, slipToProto(sl))
	}
	return lobby{picture: p, msg: msg}, nil
}

// latestSlips returns the latest movement slips, asking the table service
// where their moves stand only while one of them is not over. A table
// service that does not answer leaves them as recorded: the lobby goes on.
func (s *Server) latestSlips(ctx context.Context, id string, over map[string]director.Slip) ([]director.Slip, error) {
	if s.director == nil {
		return nil, nil
	}
	slips, err := s.director.RecordedSlips(ctx, id)
	if err != nil {
		return nil, err
	}
	slips = slips[max(0, len(slips)-lobbySlips):]
	track := false
	for i, sl := range slips {
		if o, ok := over[sl.MoveID]; ok {
			slips[i] = o
		} else {
			track = true
		}
	}
	if !track {
		return slips, nil
	}
	if err := s.director.Track(ctx, id, slips); err != nil {
		s.log.DebugContext(ctx, "lobby: moves not tracked", "tournament", id, "error", err)
		return slips, nil
	}
	for _, sl := range slips {
		if sl.State.Final() {
			over[sl.MoveID] = sl
		}
	}
	return slips, nil
}

// leaderboard ranks the players left by their stacks after their tables'
// last hands (the starting stack and the chips bought since before a
// table has dealt), largest first; equal stacks share a rank.
func leaderboard(t store.Tournament, ens []entry.Entry, stacks map[string]store.Stack) []*tournamentv1.LeaderboardEntry {
	var out []*tournamentv1.LeaderboardEntry
	for _, en := range ens {
		if en.Status != entry.Active {
			continue
		}
		e := &tournamentv1.LeaderboardEntry{PlayerId: en.PlayerID, Table: int32(en.Table), Seat: int32(en.Seat)}
		if c, ok := stacks[en.PlayerID]; ok {
			e.Stack, e.HandNo = c.Chips, c.HandNo
		} else {
			e.Stack = t.Event.StartingStack + int64(en.Rebuys)*t.Rules.Entry.RebuyChips
			if en.AddOn {
				e.Stack += t.Rules.Entry.AddOnChips
			}
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b *tournamentv1.LeaderboardEntry) int {
		return cmp.Or(cmp.Compare(b.GetStack(), a.GetStack()), cmp.Compare(a.GetPlayerId(), b.GetPlayerId()))
	})
	for i, e := range out {
		e.Rank = int32(i + 1)
		if i > 0 && out[i-1].GetStack() == e.GetStack() {
			e.Rank = out[i-1].GetRank()
		}
	}
	return out
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
