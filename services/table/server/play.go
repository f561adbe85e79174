package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/fault"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table/dealer"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/phh"
	"github.com/cardroom/cardroom/services/table/runner"
)

// OfferVerifier confirms that a player accepted a seating offer for a seat
// at a table (the seating service's answer).
type OfferVerifier interface {
	// VerifyOffer returns nil when offerID is player's pending or
	// accepted offer of seat at tableID.
	VerifyOffer(ctx context.Context, offerID, player, tableID string, seat int) error
}

// ErrOfferRequired is returned when a player sits without an offer.
var ErrOfferRequired = fault.New(fault.Precondition, "SEATING_OFFER_REQUIRED", "a player sits with a seating offer they accepted; the floor may seat anyone")

// ErrOffersUnavailable is returned when offers cannot be checked.
var ErrOffersUnavailable = fault.New(fault.Unavailable, "SEATING_UNAVAILABLE", "seating offers cannot be checked now")

// caller is who the request acts as, in the one role platform/rpc chose
// for it from the roles the RPC allows: a token that also holds a staff
// role acts as the player on a player's route, never as staff.
func caller(ctx context.Context) runner.Caller {
	a, _ := auth.FromContext(ctx)
	c := runner.Caller{Player: a.Subject, Role: string(a.Role)}
	switch a.Role {
	case auth.Floor, auth.Admin:
		c.Staff, c.Floor = true, true
	case auth.Dealer, auth.Cashier, auth.Service: // act for any seat, see no hole card
		c.Staff = true
	}
	return c
}

// viewer is whose cards a caller may see: a player their own; staff (a
// dealer, the floor) see no hole card, but what the seat in turn may do.
func viewer(c runner.Caller) runner.Viewer {
	if c.Staff {
		return runner.Viewer{Staff: true}
	}
	return runner.Viewer{Player: c.Player}
}

// CloseTable closes a table.
func (s *Server) CloseTable(ctx context.Context, req *tablev1.CloseTableRequest) (*tablev1.CloseTableResponse, error) {
	if err := s.locked(ctx, req.GetTableId(), "TR-23", "a tournament breaks its tables as it balances them; close it through the tournament"); err != nil {
		return nil, err
	}
	if _, err := s.runner.CloseTable(ctx, req.GetTableId()); err != nil {
		return nil, err
	}
	return s.tableResponse(ctx, req.GetTableId())
}

func (s *Server) tableResponse(ctx context.Context, id string) (*tablev1.CloseTableResponse, error) {
	t, err := s.getTable(ctx, id)
	if err != nil {
		return nil, err
	}
	return &tablev1.CloseTableResponse{Table: t}, nil
}

// Sit seats a player.
func (s *Server) Sit(ctx context.Context, req *tablev1.SitRequest) (*tablev1.SitResponse, error) {
	if err := s.locked(ctx, req.GetTableId(), "TR-06", "seats at a tournament table are drawn and given by the tournament"); err != nil {
		return nil, err
	}
	c := caller(ctx)
	player := req.GetPlayerId()
	switch {
	case c.Staff && player == "":
		return nil, fault.Invalidf("player_id", "the floor names the player to seat")
	case c.Staff && !c.Floor && c.Role != string(auth.Service):
		return nil, fault.New(fault.Forbidden, "FLOOR_ONLY", "a dealer does not seat players")
	case !c.Staff && player != "" && player != c.Player:
		return nil, fault.New(fault.Forbidden, "NOT_YOURSELF", "a player sits only themselves")
	case !c.Staff:
		player = c.Player
	}
	seat := int(req.GetSeat())
	if !c.Floor && c.Role != string(auth.Service) {
		if req.GetOfferId() == "" {
			return nil, ErrOfferRequired
		}
		if seat < 0 {
			return nil, fault.Invalidf("seat", "a player sits in the seat offered")
		}
		if s.offers == nil {
			return nil, ErrOffersUnavailable
		}
	}
	key := req.GetIdempotencyKey()
	if key == "" && req.GetOfferId() != "" {
		key = "offer/" + req.GetOfferId()
	}
	args := runner.SitArgs{Seat: seat, Player: player, Amount: req.GetAmount(),
		PostNow: req.GetPostNow(), OfferID: req.GetOfferId(), Key: key}
	if !c.Floor && c.Role != string(auth.Service) {
		// Checked after a retry of this sit-down is answered: the offer is
		// used up once the player sits.
		args.Verify = func(ctx context.Context) error {
			return s.offers.VerifyOffer(ctx, req.GetOfferId(), player, req.GetTableId(), seat)
		}
	}
	res, err := s.runner.Sit(ctx, req.GetTableId(), args)
	if err != nil {
		return nil, err
	}
	return &tablev1.SitResponse{Seat: seatToProto(res.Seat)}, nil
}

// TopUp adds chips.
func (s *Server) TopUp(ctx context.Context, req *tablev1.TopUpRequest) (*tablev1.TopUpResponse, error) {
	if err := s.locked(ctx, req.GetTableId(), "TR-10", "tournament chips are not bought at the table: rebuys and add-ons go through the tournament"); err != nil {
		return nil, err
	}
	c := caller(ctx)
	player := req.GetPlayerId()
	player = cmp.Or(player, c.Player)
	if !c.Staff && player != c.Player {
		return nil, fault.New(fault.Forbidden, "NOT_YOURSELF", "a player tops up only their own stack")
	}
	sv, err := s.runner.TopUp(ctx, req.GetTableId(), c, player, req.GetAmount(), req.GetIdempotencyKey())
	if err != nil {
		return nil, err
	}
	return &tablev1.TopUpResponse{Seat: seatToProto(sv)}, nil
}

// SitOut takes a player out of the deal.
func (s *Server) SitOut(ctx context.Context, req *tablev1.SitOutRequest) (*tablev1.SitOutResponse, error) {
	sv, err := s.runner.SitOut(ctx, req.GetTableId(), caller(ctx), int(req.GetSeat()), req.GetAway())
	if err != nil {
		return nil, err
	}
	return &tablev1.SitOutResponse{Seat: seatToProto(sv)}, nil
}

// Return brings a player back.
func (s *Server) Return(ctx context.Context, req *tablev1.ReturnRequest) (*tablev1.ReturnResponse, error) {
	sv, err := s.runner.Return(ctx, req.GetTableId(), caller(ctx), int(req.GetSeat()), req.GetPostNow())
	if err != nil {
		return nil, err
	}
	return &tablev1.ReturnResponse{Seat: seatToProto(sv)}, nil
}

// Straddle records or withdraws a player's request to straddle the next
// hand (TP-20).
func (s *Server) Straddle(ctx context.Context, req *tablev1.StraddleRequest) (*tablev1.StraddleResponse, error) {
	sv, err := s.runner.Straddle(ctx, req.GetTableId(), caller(ctx), int(req.GetSeat()), !req.GetCancel())
	if err != nil {
		return nil, err
	}
	return &tablev1.StraddleResponse{Seat: seatToProto(sv)}, nil
}

// Leave takes a player away with their stack.
func (s *Server) Leave(ctx context.Context, req *tablev1.LeaveRequest) (*tablev1.LeaveResponse, error) {
	if err := s.locked(ctx, req.GetTableId(), "TR-35", "leaving a tournament goes through the tournament: the stack stays in play"); err != nil {
		return nil, err
	}
	left, stack, err := s.runner.Leave(ctx, req.GetTableId(), caller(ctx), int(req.GetSeat()))
	if err != nil {
		return nil, err
	}
	return &tablev1.LeaveResponse{Left: left, Stack: stack}, nil
}

var actionFromProto = map[tablev1.ActionKind]engine.ActionKind{
	tablev1.ActionKind_ACTION_KIND_FOLD: engine.Fold, tablev1.ActionKind_ACTION_KIND_CHECK: engine.Check,
	tablev1.ActionKind_ACTION_KIND_CALL: engine.Call, tablev1.ActionKind_ACTION_KIND_BET: engine.Bet,
	tablev1.ActionKind_ACTION_KIND_RAISE: engine.Raise, tablev1.ActionKind_ACTION_KIND_BRING_IN: engine.BringIn,
	tablev1.ActionKind_ACTION_KIND_COMPLETE: engine.Complete, tablev1.ActionKind_ACTION_KIND_SHOW: engine.Show,
	tablev1.ActionKind_ACTION_KIND_MUCK: engine.Muck, tablev1.ActionKind_ACTION_KIND_WITHDRAW: engine.Withdraw,
}

var actionToProto = func() map[engine.ActionKind]tablev1.ActionKind {
	m := map[engine.ActionKind]tablev1.ActionKind{}
	for k, v := range actionFromProto {
		m[v] = k
	}
	return m
}()

// Act applies a player's action for their own seat.
func (s *Server) Act(ctx context.Context, req *tablev1.ActRequest) (*tablev1.ActResponse, error) {
	c := caller(ctx)
	kind, ok := actionFromProto[req.GetKind()]
	if !ok {
		return nil, fault.Invalidf("kind", "unknown action")
	}
	a := runner.ActArgs{Kind: kind, Amount: req.GetAmount(), ActionID: req.GetActionId()}
	if req.ExpectedSequence != nil {
		seq := req.GetExpectedSequence()
		a.ExpectedSeq = &seq
	}
	v, dup, err := s.runner.Act(ctx, req.GetTableId(), c, a)
	if err != nil {
		return nil, err
	}
	return &tablev1.ActResponse{State: stateToProto(v), Duplicate: dup}, nil
}

// GetTableState returns the table as the caller sees it.
func (s *Server) GetTableState(ctx context.Context, req *tablev1.GetTableStateRequest) (*tablev1.GetTableStateResponse, error) {
	v, err := s.runner.State(ctx, req.GetTableId(), viewer(caller(ctx)))
	if err != nil {
		return nil, err
	}
	return &tablev1.GetTableStateResponse{State: stateToProto(v)}, nil
}

// WatchTable streams the table as the caller sees it.
func (s *Server) WatchTable(req *tablev1.WatchTableRequest, stream grpc.ServerStreamingServer[tablev1.WatchTableResponse]) error {
	ctx := stream.Context()
	first, ch, stop, err := s.runner.Watch(ctx, req.GetTableId(), viewer(caller(ctx)))
	if err != nil {
		return err
	}
	defer stop()
	if err := stream.Send(&tablev1.WatchTableResponse{State: stateToProto(first)}); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case c, ok := <-ch:
			if !ok {
				return fault.New(fault.Unavailable, "WATCH_ENDED", "the table's feed ended; watch again")
			}
			if err := stream.Send(changeToProto(c)); err != nil {
				return err
			}
		}
	}
}

// GetHandHistory returns a finished hand.
func (s *Server) GetHandHistory(ctx context.Context, req *tablev1.GetHandHistoryRequest) (*tablev1.GetHandHistoryResponse, error) {
	c := caller(ctx)
	h, err := s.runner.History(ctx, req.GetTableId(), req.GetHandNo())
	if err != nil {
		return nil, err
	}
	r, err := h.Reader(c.Player, c.Floor)
	if err != nil {
		return nil, err
	}
	if req.GetFormat() == tablev1.HistoryFormat_HISTORY_FORMAT_PHH {
		ph, err := h.PHH(r)
		if err != nil {
			return nil, fault.New(fault.Precondition, "PHH_UNSUPPORTED", "this hand cannot be written as PHH: "+phhReason(err))
		}
		var b strings.Builder
		if _, err := ph.WriteTo(&b); err != nil {
			return nil, fmt.Errorf("write PHH: %w", err)
		}
		return &tablev1.GetHandHistoryResponse{Content: b.String(), ContentType: "application/toml"}, nil
	}
	return &tablev1.GetHandHistoryResponse{History: historyProto(h, r), ContentType: "application/json"}, nil
}

// historyProto is a hand's history as r may see it (dealer.History.View).
// Cards are written "As", "Td"; "??" is a card the reader may not see.
func historyProto(h *dealer.History, r dealer.Reader) *tablev1.HandHistory {
	v, evs := h.View(r)
	doc := &tablev1.HandHistory{TableId: h.TableID, HandNo: h.HandNo, StartTime: timestamppb.New(h.Start), EndTime: timestamppb.New(h.End),
		Game: h.Config.Game.String(), Button: int32(h.Setup.Button), Board: cardStrings(v.Board)}
	res := h.Hand.Results()
	autoMucked := h.AutoMucked()
	for _, sv := range v.Seats {
		hs := &tablev1.HandHistorySeat{Seat: int32(sv.Seat), PlayerId: sv.ID, FinalStack: sv.Stack, Cards: cardStrings(sv.Cards),
			CardsUp: make([]bool, len(sv.Cards)), Folded: sv.Folded, Shown: sv.Shown || sv.Exposed, Mucked: sv.Mucked, Killed: sv.Killed,
			AutoMucked: autoMucked[sv.Seat]}
		for k := range hs.CardsUp {
			hs.CardsUp[k] = sv.Up&(1<<k) != 0
		}
		for _, r := range res.Seats {
			if r.Seat == sv.Seat {
				hs.StartStack, hs.Net = r.Start, r.Net
			}
		}
		doc.Seats = append(doc.Seats, hs)
	}
	doc.ButtonDead = !h.Config.Game.IsStud() // stud has no button to speak of
	for _, p := range h.Setup.Players {
		if p.Seat == h.Setup.Button {
			doc.ButtonDead = false
		}
	}
	doc.Pots = potsToProto(res.Pots, v.Seats)
	for i := range evs {
		e := &evs[i]
		name, ok := eventNames[e.Kind]
		if !ok {
			name = e.Kind.String()
		}
		he := &tablev1.HandHistoryEvent{Kind: name, Seat: int32(e.Seat), Amount: e.Amount, Cards: cardStrings(e.CardList()),
			Rule: e.Rule, AllIn: e.AllIn, Pot: int32(e.Pot), Low: e.Low}
		if e.Kind == engine.EvPost {
			he.Post, he.Dead = e.Post.String(), e.Dead
		}
		doc.Events = append(doc.Events, he)
	}
	return doc
}

// phhReason names why export failed without quoting cards: the export's
// own reasons name posts, players and amounts, never a card.
func phhReason(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, phh.ErrUnsupported):
		return strings.TrimSuffix(err.Error(), ": "+phh.ErrUnsupported.Error())
	}
	return "unsupported"
}

// ListPlayerHands lists a player's recent hands.
func (s *Server) ListPlayerHands(ctx context.Context, req *tablev1.ListPlayerHandsRequest) (*tablev1.ListPlayerHandsResponse, error) {
	c := caller(ctx)
	if !c.Floor && req.GetPlayerId() != c.Player {
		return nil, fault.New(fault.Forbidden, "NOT_YOURSELF", "a player lists only their own hands")
	}
	n := int(req.GetPageSize())
	n = cmp.Or(n, 20)
	hs, err := s.runner.PlayerHands(ctx, req.GetPlayerId(), n)
	if err != nil {
		return nil, err
	}
	resp := &tablev1.ListPlayerHandsResponse{}
	for _, h := range hs {
		resp.Hands = append(resp.Hands, playerHandToProto(h))
	}
	return resp, nil
}
