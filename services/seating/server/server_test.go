package server_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	seatingv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/seating/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/seating/room"
	"github.com/cardroom/cardroom/services/seating/server"
	"github.com/cardroom/cardroom/services/seating/store"
)

var evening = time.Date(2026, 11, 30, 16, 0, 0, 0, time.UTC)

var nlhe = &gamev1.Game{Variant: gamev1.Variant_VARIANT_HOLDEM, Structure: gamev1.Structure_STRUCTURE_NO_LIMIT,
	Stakes: &gamev1.Stakes{SmallBlind: 200, BigBlind: 500}}

type harness struct {
	g     *testkit.GRPC
	c     seatingv1.SeatingServiceClient
	room  *room.Room
	clock *clock.Fake
	bus   *events.Memory
}

func start(t *testing.T) *harness {
	t.Helper()
	db := testkit.SQLite(t, sqlstore.Options{Service: "seating", Migrations: store.Migrations(), Shared: []sqlstore.MigrationSet{events.Migrations}})
	clk := clock.NewFake(evening)
	bus := events.NewMemory(events.MemoryOptions{})
	r, err := room.New(room.Deps{Store: store.New(db, lock.NewLocal()), Relay: events.NewRelay(db, bus, events.RelayOptions{}), Bus: bus, Clock: clk}, room.Config{})
	if err != nil {
		t.Fatal(err)
	}
	g := testkit.StartGRPC(t, func(s grpc.ServiceRegistrar) { seatingv1.RegisterSeatingServiceServer(s, server.New(r)) })
	return &harness{g: g, c: seatingv1.NewSeatingServiceClient(g.Conn), room: r, clock: clk, bus: bus}
}

func (h *harness) openTable(t *testing.T, id string, seats int) {
	t.Helper()
	b, err := proto.Marshal(&tablev1.TableOpened{TableId: id, Name: id, Game: nlhe, Seats: int32(seats), Kind: tablev1.TableKind_TABLE_KIND_CASH})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.room.HandleTableOpened(t.Context(), events.Event{ID: "open-" + id, Topic: events.TopicTableOpened, Key: id, Payload: b}); err != nil {
		t.Fatal(err)
	}
}

// newList opens the NL Hold'em list as floor and returns its id.
func (h *harness) newList(floor context.Context, t *testing.T) string {
	t.Helper()
	created, err := h.c.CreateWaitlist(floor, &seatingv1.CreateWaitlistRequest{Game: nlhe})
	if err != nil {
		t.Fatal(err)
	}
	return created.GetWaitlist().GetWaitlistId()
}

func info(err error) (codes.Code, string, string) {
	st := status.Convert(err)
	for _, d := range st.Details() {
		if i, ok := d.(*errdetails.ErrorInfo); ok {
			return st.Code(), i.GetReason(), i.GetMetadata()["rule_id"]
		}
	}
	return st.Code(), "", ""
}

// TestJoinOfferAcceptOnTheBoard is the app's path over real gRPC: a player
// joins from the app, a table opens, the player sees and accepts the
// offer, and the board stream shows each step.
func TestJoinOfferAcceptOnTheBoard(t *testing.T) {
	t.Parallel()
	h := start(t)
	floor := h.g.As(t, "floor-1", auth.Floor)
	alice := h.g.As(t, "alice", auth.Player)
	created, err := h.c.CreateWaitlist(floor, &seatingv1.CreateWaitlistRequest{Game: nlhe})
	if err != nil {
		t.Fatal(err)
	}
	wl := created.GetWaitlist()
	if wl.GetName() != "NL Hold'em 2/5" || wl.GetPolicy().GetOfferTimeout().AsDuration() != 3*time.Minute {
		t.Fatalf("created %v", wl)
	}

	// The room's screen is a staff device: it sees every player's id
	// (TestBoardHidesOtherPlayersIDs covers what a player's app sees).
	boardCtx, cancel := context.WithCancel(h.g.As(t, "screen-1", auth.Dealer))
	defer cancel()
	board, err := h.c.WatchBoard(boardCtx, &seatingv1.WatchBoardRequest{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := board.Recv()
	if err != nil || !first.GetSnapshot() || len(first.GetBoards()) != 1 || len(first.GetBoards()[0].GetEntries()) != 0 {
		t.Fatalf("snapshot %v, %v", first, err)
	}
	// next reads board updates until one satisfies ok.
	next := func(what string, ok func(*seatingv1.WaitlistBoard) bool) {
		t.Helper()
		for {
			m, err := board.Recv()
			if err != nil {
				t.Fatalf("board while waiting for %s: %v", what, err)
			}
			for _, b := range m.GetBoards() {
				if ok(b) {
					return
				}
			}
		}
	}

	joined, err := h.c.JoinWaitlist(alice, &seatingv1.JoinWaitlistRequest{WaitlistId: wl.GetWaitlistId()})
	if err != nil || joined.GetEntry().GetPosition() != 1 || joined.GetEntry().GetSignUp() != seatingv1.SignUp_SIGN_UP_REMOTE ||
		joined.GetEntry().GetEstimatedWait().AsDuration() != 10*time.Minute {
		t.Fatalf("join = %v, %v", joined, err)
	}
	next("alice on the list", func(b *seatingv1.WaitlistBoard) bool {
		return len(b.GetEntries()) == 1 && b.GetEntries()[0].GetPlayerId() == "alice"
	})

	h.openTable(t, "t1", 6)
	offers, err := h.c.ListOffers(alice, &seatingv1.ListOffersRequest{})
	if err != nil || len(offers.GetOffers()) != 1 {
		t.Fatalf("offers = %v, %v", offers, err)
	}
	offer := offers.GetOffers()[0]
	if offer.GetTableId() != "t1" || offer.GetSeat() != 0 || !offer.GetExpireTime().AsTime().Equal(evening.Add(3*time.Minute)) {
		t.Fatalf("offer %v", offer)
	}
	next("alice's offer", func(b *seatingv1.WaitlistBoard) bool {
		return len(b.GetOffers()) == 1 && b.GetOffers()[0].GetPlayerId() == "alice"
	})

	// Someone else cannot take alice's offer.
	if code, reason, _ := info(func() error {
		_, err := h.c.AcceptOffer(h.g.As(t, "bob", auth.Player), &seatingv1.AcceptOfferRequest{OfferId: offer.GetOfferId()})
		return err
	}()); code != codes.PermissionDenied || reason != "OFFER_NOT_YOURS" {
		t.Fatalf("bob accepts alice's offer: %v %s", code, reason)
	}

	h.clock.Advance(time.Minute)
	accepted, err := h.c.AcceptOffer(alice, &seatingv1.AcceptOfferRequest{OfferId: offer.GetOfferId()})
	if err != nil || accepted.GetOffer().GetState() != seatingv1.OfferState_OFFER_STATE_ACCEPTED ||
		!accepted.GetOffer().GetHoldUntil().AsTime().Equal(evening.Add(6*time.Minute)) {
		t.Fatalf("accept = %v, %v", accepted, err)
	}
	again, err := h.c.AcceptOffer(alice, &seatingv1.AcceptOfferRequest{OfferId: offer.GetOfferId()})
	if err != nil || !proto.Equal(again.GetOffer(), accepted.GetOffer()) {
		t.Fatalf("accept again = %v, %v", again, err)
	}
	// What the table checks when alice sits with the offer (service token).
	held, err := h.c.ListOffers(h.g.As(t, "table", auth.Service), &seatingv1.ListOffersRequest{PlayerId: "alice"})
	if err != nil || len(held.GetOffers()) != 1 || held.GetOffers()[0].GetState() != seatingv1.OfferState_OFFER_STATE_ACCEPTED {
		t.Fatalf("held offers = %v, %v", held, err)
	}
	next("alice seated", func(b *seatingv1.WaitlistBoard) bool {
		if len(b.GetEntries()) != 0 || len(b.GetTables()) != 1 {
			return false
		}
		s := b.GetTables()[0].GetSeats()[0]
		return s.GetState() == seatingv1.SeatState_SEAT_STATE_TAKEN && s.GetPlayerId() == "alice"
	})
}

func TestBadInputIsRefusedWithAReason(t *testing.T) {
	t.Parallel()
	h := start(t)
	floor := h.g.As(t, "floor-1", auth.Floor)
	alice := h.g.As(t, "alice", auth.Player)
	id := h.newList(floor, t)
	if _, err := h.c.JoinWaitlist(alice, &seatingv1.JoinWaitlistRequest{WaitlistId: id}); err != nil {
		t.Fatal(err)
	}
	other := &gamev1.Game{Variant: gamev1.Variant_VARIANT_OMAHA, Structure: gamev1.Structure_STRUCTURE_POT_LIMIT,
		Stakes: &gamev1.Stakes{SmallBlind: 100, BigBlind: 200}}
	tests := []struct {
		name   string
		call   func() error
		code   codes.Code
		reason string
		rule   string
	}{
		{"joining twice", func() error {
			_, err := h.c.JoinWaitlist(alice, &seatingv1.JoinWaitlistRequest{WaitlistId: id})
			return err
		}, codes.AlreadyExists, "ALREADY_ON_LIST", "G-21"},
		{"a player signing up someone else", func() error {
			_, err := h.c.JoinWaitlist(alice, &seatingv1.JoinWaitlistRequest{WaitlistId: id, PlayerId: "bob"})
			return err
		}, codes.PermissionDenied, "NOT_YOURSELF", ""},
		{"the floor without a player", func() error {
			_, err := h.c.JoinWaitlist(floor, &seatingv1.JoinWaitlistRequest{WaitlistId: id})
			return err
		}, codes.InvalidArgument, "INVALID_ARGUMENT", ""},
		{"an unknown list", func() error {
			_, err := h.c.JoinWaitlist(alice, &seatingv1.JoinWaitlistRequest{WaitlistId: "nope"})
			return err
		}, codes.NotFound, "WAITLIST_NOT_FOUND", ""},
		{"a second list for the game", func() error {
			_, err := h.c.CreateWaitlist(floor, &seatingv1.CreateWaitlistRequest{Game: nlhe})
			return err
		}, codes.AlreadyExists, "WAITLIST_EXISTS", ""},
		{"a negative offer timer", func() error {
			_, err := h.c.CreateWaitlist(floor, &seatingv1.CreateWaitlistRequest{Game: other,
				Policy: &seatingv1.Policy{OfferTimeout: durationpb.New(-time.Minute)}})
			return err
		}, codes.InvalidArgument, "INVALID_ARGUMENT", ""},
		{"an absurd offer timer", func() error {
			_, err := h.c.CreateWaitlist(floor, &seatingv1.CreateWaitlistRequest{Game: other,
				Policy: &seatingv1.Policy{OfferTimeout: durationpb.New(5 * time.Hour)}})
			return err
		}, codes.InvalidArgument, "TIMER_OUT_OF_RANGE", "G-20"},
		{"an absurd long break (CS-14)", func() error {
			_, err := h.c.SetPolicy(floor, &seatingv1.SetPolicyRequest{WaitlistId: id,
				Policy: &seatingv1.Policy{LongBreak: durationpb.New(20 * time.Hour)}})
			return err
		}, codes.InvalidArgument, "TIMER_OUT_OF_RANGE", "G-20"},
		{"a player reordering the list", func() error {
			_, err := h.c.MoveEntry(alice, &seatingv1.MoveEntryRequest{WaitlistId: id, PlayerId: "alice", Position: 1, Reason: "me first"})
			return err
		}, codes.PermissionDenied, "PERMISSION_DENIED", ""},
		{"a reorder without a reason", func() error {
			_, err := h.c.MoveEntry(floor, &seatingv1.MoveEntryRequest{WaitlistId: id, PlayerId: "alice", Position: 1})
			return err
		}, codes.InvalidArgument, "INVALID_ARGUMENT", ""},
		{"accepting an offer that does not exist", func() error {
			_, err := h.c.AcceptOffer(alice, &seatingv1.AcceptOfferRequest{OfferId: id + ".7"})
			return err
		}, codes.NotFound, "OFFER_NOT_FOUND", ""},
		{"going away from no seat (CS-13)", func() error {
			_, err := h.c.MarkAway(alice, &seatingv1.MarkAwayRequest{TableId: "t9", Kind: seatingv1.AbsenceKind_ABSENCE_KIND_SHORT})
			return err
		}, codes.NotFound, "TABLE_NOT_FOUND", ""},
	}
	before, err := h.c.GetWaitlist(floor, &seatingv1.GetWaitlistRequest{WaitlistId: id})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		code, reason, rule := info(tt.call())
		if code != tt.code || reason != tt.reason || rule != tt.rule {
			t.Errorf("%s: %v %s %s, want %v %s %s", tt.name, code, reason, rule, tt.code, tt.reason, tt.rule)
		}
	}
	after, err := h.c.GetWaitlist(floor, &seatingv1.GetWaitlistRequest{WaitlistId: id})
	if err != nil || !proto.Equal(before.GetBoard(), after.GetBoard()) {
		t.Fatalf("refusals changed the list:\n%v\n%v", before, after)
	}
	list, err := h.c.ListWaitlists(floor, &seatingv1.ListWaitlistsRequest{})
	if err != nil || len(list.GetWaitlists()) != 1 {
		t.Fatalf("lists %v, %v", list, err)
	}
}

func TestAbsencesAndFloorDecisions_CS13_CS14(t *testing.T) {
	t.Parallel()
	h := start(t)
	floor := h.g.As(t, "floor-1", auth.Floor)
	alice := h.g.As(t, "alice", auth.Player)
	id := h.newList(floor, t)
	for _, p := range []string{"alice", "bob"} {
		if _, err := h.c.JoinWaitlist(floor, &seatingv1.JoinWaitlistRequest{WaitlistId: id, PlayerId: p}); err != nil {
			t.Fatal(err)
		}
	}
	h.openTable(t, "t1", 1)
	offers, err := h.c.ListOffers(alice, &seatingv1.ListOffersRequest{})
	if err != nil || len(offers.GetOffers()) != 1 {
		t.Fatalf("offers %v %v", offers, err)
	}
	if _, err := h.c.AcceptOffer(alice, &seatingv1.AcceptOfferRequest{OfferId: offers.GetOffers()[0].GetOfferId()}); err != nil {
		t.Fatal(err)
	}
	seated, err := proto.Marshal(&tablev1.PlayerSeated{TableId: "t1", Seat: 0, PlayerId: "alice", OfferId: offers.GetOffers()[0].GetOfferId()})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.room.HandlePlayerSeated(t.Context(), events.Event{ID: "seated-1", Topic: events.TopicPlayerSeated, Payload: seated}); err != nil {
		t.Fatal(err)
	}
	away, err := h.c.MarkAway(alice, &seatingv1.MarkAwayRequest{TableId: "t1", Kind: seatingv1.AbsenceKind_ABSENCE_KIND_LONG_BREAK})
	if err != nil || away.GetAbsence().GetDueTime().AsTime() != evening.Add(30*time.Minute) {
		t.Fatalf("CS-14 long break = %v, %v", away, err)
	}
	h.clock.Advance(30 * time.Minute)
	if err := h.room.Sweep(t.Context()); err != nil {
		t.Fatal(err)
	}
	pending, err := h.c.ListAbsences(floor, &seatingv1.ListAbsencesRequest{OverdueOnly: true})
	if err != nil || len(pending.GetAbsences()) != 1 || !pending.GetAbsences()[0].GetOverdue() {
		t.Fatalf("CS-13 pending = %v, %v", pending, err)
	}
	dec, err := h.c.DecideAbsence(floor, &seatingv1.DecideAbsenceRequest{TableId: "t1", PlayerId: "alice",
		Extend: durationpb.New(10 * time.Minute), Reason: "phoned, parking"})
	if err != nil || dec.GetDecision().GetAction() != "extend_absence" {
		t.Fatalf("extend = %v, %v", dec, err)
	}
	if _, err := h.c.MarkBack(alice, &seatingv1.MarkBackRequest{TableId: "t1", PlayerId: "alice"}); err != nil {
		t.Fatal(err)
	}
	_, err = h.c.MarkAway(alice, &seatingv1.MarkAwayRequest{TableId: "t1", Kind: seatingv1.AbsenceKind_ABSENCE_KIND_LONG_BREAK})
	if code, reason, rule := info(err); code != codes.FailedPrecondition || reason != "LONG_BREAK_USED" || rule != "CS-14" {
		t.Fatalf("CS-14 second break: %v %s %s", code, reason, rule)
	}
	ds, err := h.c.ListFloorDecisions(floor, &seatingv1.ListFloorDecisionsRequest{WaitlistId: id})
	if err != nil || len(ds.GetDecisions()) != 3 || ds.GetDecisions()[0].GetAction() != "extend_absence" ||
		ds.GetDecisions()[0].GetFloorId() != "floor-1" {
		t.Fatalf("decisions = %v, %v", ds, err)
	}
}

// seat joins players and seats them at a new table through accepted
// offers confirmed by the table.
func (h *harness) seat(t *testing.T, id, table string, players ...string) {
	t.Helper()
	floor := h.g.As(t, "floor-1", auth.Floor)
	for _, p := range players {
		if _, err := h.c.JoinWaitlist(floor, &seatingv1.JoinWaitlistRequest{WaitlistId: id, PlayerId: p}); err != nil {
			t.Fatal(err)
		}
	}
	h.openTable(t, table, len(players))
	for _, p := range players {
		offers, err := h.c.ListOffers(h.g.As(t, p, auth.Player), &seatingv1.ListOffersRequest{})
		if err != nil || len(offers.GetOffers()) != 1 {
			t.Fatalf("offers of %s = %v, %v", p, offers, err)
		}
		o := offers.GetOffers()[0]
		if _, err := h.c.AcceptOffer(h.g.As(t, p, auth.Player), &seatingv1.AcceptOfferRequest{OfferId: o.GetOfferId()}); err != nil {
			t.Fatal(err)
		}
		b, err := proto.Marshal(&tablev1.PlayerSeated{TableId: table, Seat: o.GetSeat(), PlayerId: p, OfferId: o.GetOfferId()})
		if err != nil {
			t.Fatal(err)
		}
		if err := h.room.HandlePlayerSeated(t.Context(), events.Event{ID: "seated-" + o.GetOfferId(), Topic: events.TopicPlayerSeated, Payload: b}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFloorOperations(t *testing.T) {
	t.Parallel()
	h := start(t)
	floor := h.g.As(t, "floor-1", auth.Floor)
	id := h.newList(floor, t)
	h.seat(t, id, "t1", "ann", "bob")
	h.seat(t, id, "t2", "cat", "dan")

	// A seated player asks for a table change from the app.
	change, err := h.c.RequestTableChange(h.g.As(t, "ann", auth.Player), &seatingv1.RequestTableChangeRequest{WaitlistId: id})
	if err != nil || change.GetEntry().GetKind() != seatingv1.EntryKind_ENTRY_KIND_TABLE_CHANGE || change.GetEntry().GetFromTableId() != "t1" {
		t.Fatalf("table change = %v, %v", change, err)
	}
	for _, p := range []string{"wes", "xav", "yan"} {
		if _, err := h.c.JoinWaitlist(h.g.As(t, p, auth.Player), &seatingv1.JoinWaitlistRequest{WaitlistId: id}); err != nil {
			t.Fatal(err)
		}
	}
	moved, err := h.c.MoveEntry(floor, &seatingv1.MoveEntryRequest{WaitlistId: id, PlayerId: "yan", Position: 2, Reason: "was on the paper list first"})
	if err != nil || moved.GetEntries()[1].GetPlayerId() != "yan" {
		t.Fatalf("move = %v, %v", moved, err)
	}
	if _, err := h.c.LeaveWaitlist(floor, &seatingv1.LeaveWaitlistRequest{WaitlistId: id, PlayerId: "xav", Reason: "left the room"}); err != nil {
		t.Fatal(err)
	}
	mm, err := h.c.SetMustMove(floor, &seatingv1.SetMustMoveRequest{TableId: "t2", MustMove: true})
	if err != nil || !mm.GetTable().GetMustMove() {
		t.Fatalf("must-move = %v, %v", mm, err)
	}
	// t1 breaks: ann and bob go to the head of the list, ann's change
	// request becomes her broken-table place.
	broken, err := h.c.BreakTable(floor, &seatingv1.BreakTableRequest{TableId: "t1", Reason: "short-handed"})
	if err != nil || len(broken.GetEntries()) != 2 || broken.GetEntries()[0].GetPosition() != 1 ||
		broken.GetEntries()[0].GetKind() != seatingv1.EntryKind_ENTRY_KIND_BROKEN_TABLE {
		t.Fatalf("break = %v, %v", broken, err)
	}
	got, err := h.c.GetWaitlist(floor, &seatingv1.GetWaitlistRequest{WaitlistId: id})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, e := range got.GetBoard().GetEntries() {
		order = append(order, e.GetPlayerId())
	}
	if strings.Join(order, ",") != "ann,bob,yan,wes" || len(got.GetBoard().GetTables()) != 1 {
		t.Fatalf("board after the break: %v, %d tables", order, len(got.GetBoard().GetTables()))
	}
	ds, err := h.c.ListFloorDecisions(floor, &seatingv1.ListFloorDecisionsRequest{WaitlistId: id, PageSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, d := range ds.GetDecisions() {
		actions = append(actions, d.GetAction())
	}
	if strings.Join(actions, ",") != "break_table,set_must_move,remove_entry,move_entry" {
		t.Fatalf("decisions %v", actions)
	}
	// Only the floor does these.
	player := h.g.As(t, "ann", auth.Player)
	if _, err := h.c.BreakTable(player, &seatingv1.BreakTableRequest{TableId: "t2"}); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("player breaks a table: %v", err)
	}
	if _, err := h.c.ListFloorDecisions(player, &seatingv1.ListFloorDecisionsRequest{WaitlistId: id}); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("player reads decisions: %v", err)
	}
}

// TestBoardHidesOtherPlayersIDs: on GetWaitlist and the board feed a
// request acting as a player sees its own line with its id and everyone
// else only by display name (the token's name claim) or initials; staff see
// ids. A token that holds a staff role besides the player's acts as the
// player here too.
func TestBoardHidesOtherPlayersIDs(t *testing.T) {
	t.Parallel()
	h := start(t)
	floor := h.g.As(t, "floor-1", auth.Floor)
	id := h.newList(floor, t)
	named := func(sub, name string, roles ...auth.Role) context.Context {
		tok, err := h.g.Issuer.MintNamed(sub, name, roles, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return auth.WithToken(t.Context(), tok)
	}
	anna := named("anna-korhonen-77", "Anna K.", auth.Player)
	for _, join := range []struct {
		ctx  context.Context
		body *seatingv1.JoinWaitlistRequest
	}{
		{anna, &seatingv1.JoinWaitlistRequest{WaitlistId: id}},
		{named("bob-9", "", auth.Player), &seatingv1.JoinWaitlistRequest{WaitlistId: id}},
		{floor, &seatingv1.JoinWaitlistRequest{WaitlistId: id, PlayerId: "cat-lee"}},
	} {
		if _, err := h.c.JoinWaitlist(join.ctx, join.body); err != nil {
			t.Fatal(err)
		}
	}
	type line struct{ id, name string }
	lines := func(b *seatingv1.WaitlistBoard) []line {
		var out []line
		for _, e := range b.GetEntries() {
			out = append(out, line{e.GetPlayerId(), e.GetDisplayName()})
		}
		return out
	}
	tests := []struct {
		name string
		ctx  context.Context
		want []line
	}{
		{"anna sees herself and the others' names", anna, []line{{"anna-korhonen-77", "Anna K."}, {"", "B.9."}, {"", "C.L."}}},
		{"player+dealer acts as the player", named("bob-9", "", auth.Player, auth.Dealer), []line{{"", "Anna K."}, {"bob-9", "B.9."}, {"", "C.L."}}},
		{"a player not on the list sees no id", h.g.As(t, "dan", auth.Player), []line{{"", "Anna K."}, {"", "B.9."}, {"", "C.L."}}},
		{"the floor sees ids", floor, []line{{"anna-korhonen-77", "Anna K."}, {"bob-9", "B.9."}, {"cat-lee", "C.L."}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := h.c.GetWaitlist(tt.ctx, &seatingv1.GetWaitlistRequest{WaitlistId: id})
			if err != nil {
				t.Fatal(err)
			}
			if l := lines(got.GetBoard()); fmt.Sprint(l) != fmt.Sprint(tt.want) {
				t.Fatalf("GetWaitlist lines %v, want %v", l, tt.want)
			}
			feed, err := h.c.WatchBoard(tt.ctx, &seatingv1.WatchBoardRequest{WaitlistId: id})
			if err != nil {
				t.Fatal(err)
			}
			first, err := feed.Recv()
			if err != nil || len(first.GetBoards()) != 1 {
				t.Fatalf("board snapshot %v, %v", first, err)
			}
			if l := lines(first.GetBoards()[0]); fmt.Sprint(l) != fmt.Sprint(tt.want) {
				t.Fatalf("board lines %v, want %v", l, tt.want)
			}
		})
	}
}

// TestRedisOutOfReachIs503: when the lock service cannot be reached a
// change is refused UNAVAILABLE (503 through the gateway: retry), not an
// internal error naming the connection.
func TestRedisOutOfReachIs503(t *testing.T) {
	t.Parallel()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := lis.Addr().String()
	_ = lis.Close()
	client := redis.NewClient(&redis.Options{Addr: dead, MaxRetries: -1, DialTimeout: time.Second})
	t.Cleanup(func() { _ = client.Close() })
	db := testkit.SQLite(t, sqlstore.Options{Service: "seating", Migrations: store.Migrations(), Shared: []sqlstore.MigrationSet{events.Migrations}})
	bus := events.NewMemory(events.MemoryOptions{})
	r, err := room.New(room.Deps{Store: store.New(db, lock.NewRedis(client, lock.RedisOptions{Prefix: "p:", TTL: time.Second})),
		Relay: events.NewRelay(db, bus, events.RelayOptions{}), Bus: bus, Clock: clock.NewFake(evening)}, room.Config{})
	if err != nil {
		t.Fatal(err)
	}
	g := testkit.StartGRPC(t, func(s grpc.ServiceRegistrar) { seatingv1.RegisterSeatingServiceServer(s, server.New(r)) })
	c := seatingv1.NewSeatingServiceClient(g.Conn)
	created, err := c.CreateWaitlist(g.As(t, "floor-1", auth.Floor), &seatingv1.CreateWaitlistRequest{Game: nlhe})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.JoinWaitlist(g.As(t, "ann", auth.Player), &seatingv1.JoinWaitlistRequest{WaitlistId: created.GetWaitlist().GetWaitlistId()})
	if code, reason, _ := info(err); code != codes.Unavailable || reason != "UNAVAILABLE" || strings.Contains(err.Error(), dead) {
		t.Fatalf("join with Redis out of reach: %v (%v %s), want UNAVAILABLE without the address", err, code, reason)
	}
}

// TestWatchOffersStreamsEachChange_G21 is the offer feed the app watches
// instead of polling ListOffers: a player sees their offer arrive when a
// table opens, then its expiry (G-21: the seat goes to the next player),
// and the next player sees theirs arrive and their acceptance. A player may
// not watch another player's offers; the floor may.
func TestWatchOffersStreamsEachChange_G21(t *testing.T) {
	t.Parallel()
	h := start(t)
	floor := h.g.As(t, "floor-1", auth.Floor)
	id := h.newList(floor, t)
	for _, p := range []string{"alice", "bob"} {
		if _, err := h.c.JoinWaitlist(h.g.As(t, p, auth.Player), &seatingv1.JoinWaitlistRequest{WaitlistId: id}); err != nil {
			t.Fatal(err)
		}
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	watch := func(who context.Context, player string) grpc.ServerStreamingClient[seatingv1.WatchOffersResponse] {
		t.Helper()
		feed, err := h.c.WatchOffers(who, &seatingv1.WatchOffersRequest{PlayerId: player})
		if err != nil {
			t.Fatal(err)
		}
		first, err := feed.Recv()
		if err != nil || !first.GetSnapshot() || len(first.GetOffers()) != 0 {
			t.Fatalf("%s snapshot %v, %v", player, first, err)
		}
		return feed
	}
	as := func(name string, role auth.Role) context.Context {
		c, stop := context.WithCancel(h.g.As(t, name, role))
		context.AfterFunc(ctx, stop)
		return c
	}
	alice := watch(as("alice", auth.Player), "alice")
	bob := watch(as("floor-1", auth.Floor), "bob")

	// next reads one update and returns its only offer.
	next := func(feed grpc.ServerStreamingClient[seatingv1.WatchOffersResponse], who string) *seatingv1.Offer {
		t.Helper()
		m, err := feed.Recv()
		if err != nil || m.GetSnapshot() || len(m.GetOffers()) != 1 || m.GetOffers()[0].GetPlayerId() != who {
			t.Fatalf("%s update %v, %v", who, m, err)
		}
		return m.GetOffers()[0]
	}

	h.openTable(t, "t1", 1)
	offered := next(alice, "alice")
	if offered.GetState() != seatingv1.OfferState_OFFER_STATE_PENDING || offered.GetTableId() != "t1" ||
		!offered.GetExpireTime().AsTime().Equal(evening.Add(3*time.Minute)) {
		t.Fatalf("alice offered %v", offered)
	}

	h.clock.Advance(3 * time.Minute)
	if err := h.room.Sweep(t.Context()); err != nil {
		t.Fatal(err)
	}
	if o := next(alice, "alice"); o.GetOfferId() != offered.GetOfferId() || o.GetState() != seatingv1.OfferState_OFFER_STATE_EXPIRED {
		t.Fatalf("alice's offer after its timeout %v", o)
	}
	bobs := next(bob, "bob")
	if bobs.GetState() != seatingv1.OfferState_OFFER_STATE_PENDING || bobs.GetTableId() != "t1" {
		t.Fatalf("bob offered %v", bobs)
	}
	if _, err := h.c.AcceptOffer(h.g.As(t, "bob", auth.Player), &seatingv1.AcceptOfferRequest{OfferId: bobs.GetOfferId()}); err != nil {
		t.Fatal(err)
	}
	if o := next(bob, "bob"); o.GetOfferId() != bobs.GetOfferId() || o.GetState() != seatingv1.OfferState_OFFER_STATE_ACCEPTED || o.GetHoldUntil() == nil {
		t.Fatalf("bob's offer after accepting %v", o)
	}

	// A new watch starts from the open offers: bob's held seat.
	again, err := h.c.WatchOffers(as("bob", auth.Player), &seatingv1.WatchOffersRequest{PlayerId: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := again.Recv(); err != nil || !m.GetSnapshot() || len(m.GetOffers()) != 1 || m.GetOffers()[0].GetOfferId() != bobs.GetOfferId() {
		t.Fatalf("bob's snapshot %v, %v", m, err)
	}

	// alice may not watch bob's offers.
	spy, err := h.c.WatchOffers(as("alice", auth.Player), &seatingv1.WatchOffersRequest{PlayerId: "bob"})
	if err == nil {
		_, err = spy.Recv()
	}
	if code, reason, _ := info(err); code != codes.PermissionDenied || reason != "NOT_YOURSELF" {
		t.Fatalf("alice watches bob: %v %s (%v)", code, reason, err)
	}
}
