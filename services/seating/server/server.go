// Package server is the seating service's gRPC face: it translates between
// proto and the room, decides who a caller may act for (a player only for
// themselves; the floor, admin, dealers and services for anyone), and
// leaves authorization by role to the platform interceptor (the
// (cardroom.auth.v1.access) option).
package server

import (
	"cmp"
	"context"
	"slices"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/fault"
	seatingv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/seating/v1"
	"github.com/cardroom/cardroom/services/seating/room"
	"github.com/cardroom/cardroom/services/seating/store"
	"github.com/cardroom/cardroom/services/seating/waitlist"
	"github.com/cardroom/cardroom/services/seating/wire"
)

// DefaultPageSize is the page size when a request leaves it 0.
const DefaultPageSize = 50

// Faults of the server's own checks.
var (
	// ErrNotYourself: a player acts only for their own entry, offer and seat.
	ErrNotYourself = fault.New(fault.Forbidden, "NOT_YOURSELF", "a player may act only for themselves")
	// ErrPlayerRequired: the floor names the player it acts for.
	ErrPlayerRequired = fault.Invalidf("player_id", "name the player")
)

// Server implements seatingv1.SeatingServiceServer.
type Server struct {
	seatingv1.UnimplementedSeatingServiceServer
	room  *room.Room
	names names
}

// New returns a Server over r.
func New(r *room.Room) *Server { return &Server{room: r, names: names{known: map[string]string{}}} }

// actor returns who calls, in the one role platform/rpc chose for the
// request: anyone acting in a staff role the RPC allows acts for anyone; a
// request acting as a player (also from a token that holds a staff role
// besides) acts only for that player.
func actor(ctx context.Context) room.Actor {
	c, _ := auth.FromContext(ctx)
	return room.Actor{Subject: c.Subject, Floor: c.Role != "" && !c.Is(auth.Player)}
}

// playerFor returns the player a request is about: a player's own id
// (requested may be empty or theirs), or the one staff names.
func playerFor(ctx context.Context, requested string) (string, room.Actor, error) {
	a := actor(ctx)
	switch {
	case a.Floor && requested == "":
		return "", a, ErrPlayerRequired
	case a.Floor:
		return requested, a, nil
	case requested != "" && requested != a.Subject:
		return "", a, ErrNotYourself.With("player_id", requested)
	}
	return a.Subject, a, nil
}

// CreateWaitlist opens a game's list.
func (s *Server) CreateWaitlist(ctx context.Context, req *seatingv1.CreateWaitlistRequest) (*seatingv1.CreateWaitlistResponse, error) {
	g, err := s.room.CreateWaitlist(ctx, wire.Spec(req.GetGame()), wire.PolicyFrom(req.GetPolicy(), s.room.Defaults()))
	if err != nil {
		return nil, err
	}
	return &seatingv1.CreateWaitlistResponse{Waitlist: wire.Waitlist(g)}, nil
}

// ListWaitlists lists the lists in the order they were opened.
func (s *Server) ListWaitlists(ctx context.Context, req *seatingv1.ListWaitlistsRequest) (*seatingv1.ListWaitlistsResponse, error) {
	size := int(req.GetPageSize())
	size = cmp.Or(size, DefaultPageSize)
	recs, next, err := s.room.List(ctx, size, req.GetPageToken())
	if err != nil {
		return nil, err
	}
	resp := &seatingv1.ListWaitlistsResponse{NextPageToken: next}
	for _, r := range recs {
		resp.Waitlists = append(resp.Waitlists, wire.Waitlist(r.Game))
	}
	return resp, nil
}

// GetWaitlist returns one list's board.
func (s *Server) GetWaitlist(ctx context.Context, req *seatingv1.GetWaitlistRequest) (*seatingv1.GetWaitlistResponse, error) {
	rec, err := s.room.Get(ctx, req.GetWaitlistId())
	if err != nil {
		return nil, err
	}
	boards, err := s.boardsFor(ctx, []*seatingv1.WaitlistBoard{wire.Board(rec.Game, rec.Version)})
	if err != nil {
		return nil, err
	}
	return &seatingv1.GetWaitlistResponse{Board: boards[0]}, nil
}

// SetPolicy replaces a game's policy.
func (s *Server) SetPolicy(ctx context.Context, req *seatingv1.SetPolicyRequest) (*seatingv1.SetPolicyResponse, error) {
	rec, err := s.room.SetPolicy(ctx, req.GetWaitlistId(), wire.PolicyFrom(req.GetPolicy(), s.room.Defaults()), actor(ctx))
	if err != nil {
		return nil, err
	}
	return &seatingv1.SetPolicyResponse{Waitlist: wire.Waitlist(rec.Game)}, nil
}

// JoinWaitlist puts a player on a list.
func (s *Server) JoinWaitlist(ctx context.Context, req *seatingv1.JoinWaitlistRequest) (*seatingv1.JoinWaitlistResponse, error) {
	player, a, err := playerFor(ctx, req.GetPlayerId())
	if err != nil {
		return nil, err
	}
	if err := s.remember(ctx); err != nil {
		return nil, err
	}
	rec, err := s.room.Join(ctx, req.GetWaitlistId(), player, a)
	if err != nil {
		return nil, err
	}
	return &seatingv1.JoinWaitlistResponse{Entry: entryOrSeat(rec.Game, player)}, nil
}

// entryOrSeat is the player's entry; a player offered a seat the moment
// they joined keeps theirs until they answer, so there always is one.
func entryOrSeat(g *waitlist.Game, player string) *seatingv1.Entry {
	if e := wire.EntryOf(g, player); e != nil {
		return e
	}
	return &seatingv1.Entry{PlayerId: player}
}

// LeaveWaitlist takes a player off a list.
func (s *Server) LeaveWaitlist(ctx context.Context, req *seatingv1.LeaveWaitlistRequest) (*seatingv1.LeaveWaitlistResponse, error) {
	player, a, err := playerFor(ctx, req.GetPlayerId())
	if err != nil {
		return nil, err
	}
	if _, err := s.room.Leave(ctx, req.GetWaitlistId(), player, req.GetReason(), a); err != nil {
		return nil, err
	}
	return &seatingv1.LeaveWaitlistResponse{}, nil
}

// MoveEntry reorders a list.
func (s *Server) MoveEntry(ctx context.Context, req *seatingv1.MoveEntryRequest) (*seatingv1.MoveEntryResponse, error) {
	rec, err := s.room.Move(ctx, req.GetWaitlistId(), req.GetPlayerId(), int(req.GetPosition()), req.GetReason(), actor(ctx))
	if err != nil {
		return nil, err
	}
	return &seatingv1.MoveEntryResponse{Entries: wire.Entries(rec.Game)}, nil
}

// RequestTableChange puts a seated player on the table-change list.
func (s *Server) RequestTableChange(ctx context.Context, req *seatingv1.RequestTableChangeRequest) (*seatingv1.RequestTableChangeResponse, error) {
	player, a, err := playerFor(ctx, req.GetPlayerId())
	if err != nil {
		return nil, err
	}
	if err := s.remember(ctx); err != nil {
		return nil, err
	}
	rec, err := s.room.RequestTableChange(ctx, req.GetWaitlistId(), player, a)
	if err != nil {
		return nil, err
	}
	return &seatingv1.RequestTableChangeResponse{Entry: entryOrSeat(rec.Game, player)}, nil
}

// ListOffers lists a player's pending offers.
func (s *Server) ListOffers(ctx context.Context, req *seatingv1.ListOffersRequest) (*seatingv1.ListOffersResponse, error) {
	player, _, err := playerFor(ctx, req.GetPlayerId())
	if err != nil {
		return nil, err
	}
	offers, err := s.room.Offers(ctx, player)
	if err != nil {
		return nil, err
	}
	resp := &seatingv1.ListOffersResponse{}
	for _, o := range offers {
		resp.Offers = append(resp.Offers, wire.Offer(o.Game, o.Offer))
	}
	return resp, nil
}

// AcceptOffer takes an offered seat.
func (s *Server) AcceptOffer(ctx context.Context, req *seatingv1.AcceptOfferRequest) (*seatingv1.AcceptOfferResponse, error) {
	if err := s.remember(ctx); err != nil {
		return nil, err
	}
	o, err := s.answer(ctx, req.GetOfferId(), true)
	if err != nil {
		return nil, err
	}
	return &seatingv1.AcceptOfferResponse{Offer: o}, nil
}

// DeclineOffer passes an offered seat on.
func (s *Server) DeclineOffer(ctx context.Context, req *seatingv1.DeclineOfferRequest) (*seatingv1.DeclineOfferResponse, error) {
	o, err := s.answer(ctx, req.GetOfferId(), false)
	if err != nil {
		return nil, err
	}
	return &seatingv1.DeclineOfferResponse{Offer: o}, nil
}

func (s *Server) answer(ctx context.Context, offerID string, accept bool) (*seatingv1.Offer, error) {
	a := actor(ctx)
	player := a.Subject
	if a.Floor {
		player = "" // staff answer for the player offered the seat
	}
	o, err := s.room.Answer(ctx, offerID, player, accept, a)
	if err != nil {
		return nil, err
	}
	return wire.Offer(o.Game, o.Offer), nil
}

// SetMustMove marks a table must-move or main.
func (s *Server) SetMustMove(ctx context.Context, req *seatingv1.SetMustMoveRequest) (*seatingv1.SetMustMoveResponse, error) {
	t, err := s.room.SetMustMove(ctx, req.GetTableId(), req.GetMustMove(), actor(ctx))
	if err != nil {
		return nil, err
	}
	return &seatingv1.SetMustMoveResponse{Table: wire.Table(t)}, nil
}

// BreakTable gives a breaking table's players the head of the list.
func (s *Server) BreakTable(ctx context.Context, req *seatingv1.BreakTableRequest) (*seatingv1.BreakTableResponse, error) {
	moved, rec, err := s.room.BreakTable(ctx, req.GetTableId(), req.GetReason(), actor(ctx))
	if err != nil {
		return nil, err
	}
	resp := &seatingv1.BreakTableResponse{}
	for _, e := range moved {
		if p := wire.EntryOf(rec.Game, e.Player); p != nil {
			resp.Entries = append(resp.Entries, p)
		}
	}
	return resp, nil
}

// MarkAway starts an absence.
func (s *Server) MarkAway(ctx context.Context, req *seatingv1.MarkAwayRequest) (*seatingv1.MarkAwayResponse, error) {
	player, a, err := playerFor(ctx, req.GetPlayerId())
	if err != nil {
		return nil, err
	}
	if err := s.remember(ctx); err != nil {
		return nil, err
	}
	abs, g, err := s.room.MarkAway(ctx, req.GetTableId(), player, waitlist.AbsenceKind(req.GetKind()), req.GetLimit().AsDuration(), a)
	if err != nil {
		return nil, err
	}
	return &seatingv1.MarkAwayResponse{Absence: wire.Absence(g, abs)}, nil
}

// MarkBack ends an absence.
func (s *Server) MarkBack(ctx context.Context, req *seatingv1.MarkBackRequest) (*seatingv1.MarkBackResponse, error) {
	player, _, err := playerFor(ctx, req.GetPlayerId())
	if err != nil {
		return nil, err
	}
	if err := s.room.MarkBack(ctx, req.GetTableId(), player); err != nil {
		return nil, err
	}
	return &seatingv1.MarkBackResponse{}, nil
}

// ListAbsences lists absences, or the decisions waiting for the floor.
func (s *Server) ListAbsences(ctx context.Context, req *seatingv1.ListAbsencesRequest) (*seatingv1.ListAbsencesResponse, error) {
	abs, err := s.room.Absences(ctx, req.GetOverdueOnly())
	if err != nil {
		return nil, err
	}
	resp := &seatingv1.ListAbsencesResponse{}
	for _, a := range abs {
		resp.Absences = append(resp.Absences, wire.Absence(a.Game, a.Absence))
	}
	return resp, nil
}

// DecideAbsence applies and records the floor's decision.
func (s *Server) DecideAbsence(ctx context.Context, req *seatingv1.DecideAbsenceRequest) (*seatingv1.DecideAbsenceResponse, error) {
	d, err := s.room.DecideAbsence(ctx, req.GetTableId(), req.GetPlayerId(), req.GetRelease(), req.GetExtend().AsDuration(), req.GetReason(), actor(ctx))
	if err != nil {
		return nil, err
	}
	return &seatingv1.DecideAbsenceResponse{Decision: decision(d)}, nil
}

// ListFloorDecisions lists a game's recorded decisions.
func (s *Server) ListFloorDecisions(ctx context.Context, req *seatingv1.ListFloorDecisionsRequest) (*seatingv1.ListFloorDecisionsResponse, error) {
	n := int(req.GetPageSize())
	n = cmp.Or(n, DefaultPageSize)
	ds, err := s.room.Decisions(ctx, req.GetWaitlistId(), n)
	if err != nil {
		return nil, err
	}
	resp := &seatingv1.ListFloorDecisionsResponse{}
	for _, d := range ds {
		resp.Decisions = append(resp.Decisions, decision(d))
	}
	return resp, nil
}

func decision(d store.Decision) *seatingv1.FloorDecision {
	return &seatingv1.FloorDecision{
		DecisionId: d.ID, WaitlistId: d.Waitlist, FloorId: d.Floor, Action: d.Action,
		PlayerId: d.Player, Reason: d.Reason, DecideTime: timestamppb.New(d.At),
	}
}

// WatchBoard streams every list (or one), then each list again when it
// changes, until the caller goes away or the server stops.
func (s *Server) WatchBoard(req *seatingv1.WatchBoardRequest, stream grpc.ServerStreamingServer[seatingv1.WatchBoardResponse]) error {
	ctx := stream.Context()
	// Subscribe before the snapshot, so no change falls between the two.
	w := s.room.Board().Watch()
	defer w.Close()
	var boards []*seatingv1.WaitlistBoard
	if id := req.GetWaitlistId(); id != "" {
		rec, err := s.room.Get(ctx, id)
		if err != nil {
			return err
		}
		boards = append(boards, wire.Board(rec.Game, rec.Version))
	} else {
		recs, _, err := s.room.List(ctx, 0, "")
		if err != nil {
			return err
		}
		for _, r := range recs {
			boards = append(boards, wire.Board(r.Game, r.Version))
		}
	}
	sent := map[string]int64{}
	for _, b := range boards {
		sent[b.GetWaitlist().GetWaitlistId()] = b.GetVersion()
	}
	boards, err := s.boardsFor(ctx, boards)
	if err != nil {
		return err
	}
	if err := stream.Send(&seatingv1.WatchBoardResponse{Boards: boards, Snapshot: true}); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-w.Wake():
		}
		var update []*seatingv1.WaitlistBoard
		for _, id := range w.Changed() {
			if req.GetWaitlistId() != "" && id != req.GetWaitlistId() {
				continue
			}
			rec, err := s.room.Get(ctx, id)
			if err != nil {
				return err
			}
			// The local notice and the poll can both report one change.
			if v, ok := sent[id]; ok && v == rec.Version {
				continue
			}
			sent[id] = rec.Version
			update = append(update, wire.Board(rec.Game, rec.Version))
		}
		if len(update) == 0 {
			continue
		}
		slices.SortFunc(update, func(a, b *seatingv1.WaitlistBoard) int {
			return a.GetWaitlist().GetCreateTime().AsTime().Compare(b.GetWaitlist().GetCreateTime().AsTime())
		})
		update, err := s.boardsFor(ctx, update)
		if err != nil {
			return err
		}
		if err := stream.Send(&seatingv1.WatchBoardResponse{Boards: update}); err != nil {
			return err
		}
	}
}

// WatchOffers streams a player's open offers, then each of their offers
// again whenever it is made or changes state, until the caller goes away or
// the server stops. It rides the board's change notices (committed changes
// of this replica, and the version poll for the others), so an expiry the
// timers run shows up as it happens without the stream polling the store.
func (s *Server) WatchOffers(req *seatingv1.WatchOffersRequest, stream grpc.ServerStreamingServer[seatingv1.WatchOffersResponse]) error {
	ctx := stream.Context()
	player, _, err := playerFor(ctx, req.GetPlayerId())
	if err != nil {
		return err
	}
	// Subscribe before the snapshot, so no change falls between the two.
	w := s.room.Board().Watch()
	defer w.Close()
	recs, _, err := s.room.List(ctx, 0, "")
	if err != nil {
		return err
	}
	// sent is what the stream has told (or, for offers closed before it
	// started, what it will not tell) of each of the player's offers.
	sent := offerViews{}
	snapshot := &seatingv1.WatchOffersResponse{Snapshot: true}
	for _, r := range recs {
		for _, o := range r.Game.Offers {
			if o.Player == player {
				sent.changed(o)
			}
		}
	}
	offers, err := s.room.Offers(ctx, player)
	if err != nil {
		return err
	}
	for _, o := range offers {
		sent.changed(o.Offer)
		snapshot.Offers = append(snapshot.Offers, wire.Offer(o.Game, o.Offer))
	}
	if err := stream.Send(snapshot); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-w.Wake():
		}
		update := &seatingv1.WatchOffersResponse{}
		for _, id := range w.Changed() {
			rec, err := s.room.Get(ctx, id)
			if err != nil {
				return err
			}
			for _, o := range rec.Game.Offers {
				if o.Player == player && sent.changed(o) {
					update.Offers = append(update.Offers, wire.Offer(rec.Game, o))
				}
			}
		}
		if len(update.Offers) == 0 {
			continue
		}
		slices.SortFunc(update.Offers, func(a, b *seatingv1.Offer) int {
			return a.GetCreateTime().AsTime().Compare(b.GetCreateTime().AsTime())
		})
		if err := stream.Send(update); err != nil {
			return err
		}
	}
}

// offerView is what a watcher has seen of an offer: its state and hold.
type offerView struct {
	state waitlist.OfferState
	hold  int64
}

// offerViews are the views a watcher has seen, by offer id.
type offerViews map[string]offerView

// changed records o and reports whether it differs from what was seen.
func (v offerViews) changed(o waitlist.Offer) bool {
	now := offerView{state: o.State, hold: o.HoldUntil.UnixNano()}
	if old, ok := v[o.ID]; ok && old == now {
		return false
	}
	v[o.ID] = now
	return true
}
