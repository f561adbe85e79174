package server_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/random"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/desk"
	"github.com/cardroom/cardroom/services/tournament/server"
	"github.com/cardroom/cardroom/services/tournament/store"
	"github.com/cardroom/cardroom/services/tournament/wallet"
)

// startWithBus is startWithWallet with the events tables in the database
// and the desk consuming table.hand_ended from an in-memory bus.
func startWithBus(t *testing.T, w *fakeWallet) (*fixture, events.Bus) {
	t.Helper()
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations(),
		Shared: []sqlstore.MigrationSet{events.Migrations}})
	clk := clock.NewFake(now)
	dk := desk.New(desk.Deps{Store: store.New(db), Clock: clk, Random: random.Seeded(11), Wallet: wallet.New(w)})
	srv := server.New(dk)
	g := testkit.StartGRPC(t, func(r grpc.ServiceRegistrar) { tournamentv1.RegisterTournamentServiceServer(r, srv) })
	bus := events.NewMemory(events.MemoryOptions{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = bus.Subscribe(t.Context(), events.TopicHandEnded, desk.Consumer, dk.HandleHandEnded)
	}()
	t.Cleanup(func() { <-done })
	return &fixture{g: g, c: tournamentv1.NewTournamentServiceClient(g.Conn), clk: clk, w: w,
		floor: g.As(t, "floor-1", auth.Floor), admin: g.As(t, "admin-1", auth.Admin), dk: dk}, bus
}

// handEnded is a table.hand_ended event as the table service publishes it.
func handEnded(t *testing.T, id, tableID string, hand int64, stacks []*tablev1.SeatStack, busted ...int32) events.Event {
	t.Helper()
	b, err := proto.Marshal(&tablev1.HandEnded{TableId: tableID, HandNo: hand, Stacks: stacks, Busted: busted})
	if err != nil {
		t.Fatal(err)
	}
	return events.Event{ID: id, Topic: events.TopicHandEnded, Key: tableID, Payload: b, Epoch: 1}
}

func TestAttachTable(t *testing.T) {
	t.Parallel()
	players := []string{"a", "b", "c"}
	f, _ := startWithBus(t, newFakeWallet(balances(players...)))
	scheduled := f.create(t, nil)
	id := f.running(t, players, nil)
	attach := func(ctx context.Context, tournament string, table int32, tableID string) error {
		_, err := f.c.AttachTable(ctx, &tournamentv1.AttachTableRequest{TournamentId: tournament, Table: table, TableId: tableID})
		return err
	}
	if err := attach(f.floor, id, 1, "tbl-1"); err != nil {
		t.Fatal(err)
	}
	if err := attach(f.floor, id, 1, "tbl-1"); err != nil {
		t.Fatalf("repeat: %v", err)
	}
	wantRule(t, attach(f.floor, scheduled, 1, "tbl-2"), codes.FailedPrecondition, "TOURNAMENT_NOT_RUNNING", "")
	wantRule(t, attach(f.floor, "missing", 1, "tbl-2"), codes.NotFound, "TOURNAMENT_NOT_FOUND", "")
	if err := attach(f.g.As(t, "a", auth.Player), id, 1, "tbl-3"); err == nil {
		t.Fatal("a player attached a table")
	}
	audit, err := f.c.ListAudit(f.floor, &tournamentv1.ListAuditRequest{TournamentId: id})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range audit.GetRecords() {
		if r.GetAction() == "attach_table" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("attach_table audited %d times, want once (the repeat changes nothing): %v", n, audit.GetRecords())
	}
}

// TestHandEnded_TR37_G26 feeds table.hand_ended through the bus: the
// attached tables' busted players are knocked out, same-hand ones by their
// starting stacks (TR-37); a redelivery and a cash table's hand change
// nothing; during hand-for-hand a table's hand ends its round hand and the
// round's knock-outs wait for the round (G-26).
func TestHandEnded_TR37_G26(t *testing.T) {
	t.Parallel()
	players := []string{"a", "b", "c", "d", "e", "f", "g"}
	f, bus := startWithBus(t, newFakeWallet(balances(players...)))
	id := f.running(t, players, func(r *tournamentv1.CreateTournamentRequest) { r.SeatsPerTable = 4 })
	list, err := f.c.ListEntries(f.floor, &tournamentv1.ListEntriesRequest{TournamentId: id})
	if err != nil {
		t.Fatal(err)
	}
	at := map[int32][]string{}
	for _, en := range list.GetEntries() {
		at[en.GetTable()] = append(at[en.GetTable()], en.GetPlayerId())
	}
	if len(at[1]) < 3 || len(at[2]) < 3 {
		t.Fatalf("draw: %v", at)
	}
	for n, tableID := range map[int32]string{1: "tbl-one", 2: "tbl-two"} {
		if _, err := f.c.AttachTable(f.floor, &tournamentv1.AttachTableRequest{TournamentId: id, Table: n, TableId: tableID}); err != nil {
			t.Fatal(err)
		}
	}
	results := func() []string {
		t.Helper()
		r, err := f.c.GetResults(f.floor, &tournamentv1.GetResultsRequest{TournamentId: id})
		if err != nil {
			t.Fatal(err)
		}
		return places(r.GetFinishes())
	}
	publish := func(ev events.Event) {
		t.Helper()
		if err := bus.Publish(t.Context(), ev); err != nil {
			t.Fatal(err)
		}
	}

	// TR-37 case 1: two players out in one hand at table 1; the one who
	// started it with more chips finishes higher.
	big, small, winner := at[1][0], at[1][1], at[1][2]
	ko := handEnded(t, "ev-1", "tbl-one", 12, []*tablev1.SeatStack{
		{Seat: 1, PlayerId: small, Stack: 0, StartStack: 800},
		{Seat: 4, PlayerId: winner, Stack: 42000, StartStack: 20000},
		{Seat: 6, PlayerId: big, Stack: 0, StartStack: 1200},
	}, 1, 6)
	publish(ko)
	want := []string{big + ":6/1", small + ":7/1"}
	// The first delivery may wait for the consumer to join the group.
	testkit.Eventually(t, 10*time.Second, func() error {
		if got := results(); !slices.Equal(got, want) {
			return fmt.Errorf("TR-37 same hand: results %v, want %v", got, want)
		}
		return nil
	})

	// Redelivered: applied once.
	publish(ko)
	if got := results(); !slices.Equal(got, want) {
		t.Fatalf("after redelivery: %v, want %v", got, want)
	}
	// A table no tournament attached (a cash table) is not ours, even
	// when its player ids match.
	publish(handEnded(t, "ev-cash", "cash-7", 3, []*tablev1.SeatStack{{Seat: 2, PlayerId: at[2][0], Stack: 0, StartStack: 500}}, 2))
	if got := results(); !slices.Equal(got, want) {
		t.Fatalf("after a cash table's hand: %v, want %v", got, want)
	}

	// G-26: hand-for-hand over tables 1 and 2. Table 2's knock-out waits
	// for table 1's hand, which ends the round and places it.
	h4h, err := f.c.SetHandForHand(f.floor, &tournamentv1.SetHandForHandRequest{TournamentId: id, On: true})
	if err != nil || !slices.Equal(h4h.GetHandForHand().GetPlaying(), []int32{1, 2}) {
		t.Fatalf("hand-for-hand on: %v, %v", h4h, err)
	}
	out := at[2][0]
	publish(handEnded(t, "ev-2", "tbl-two", 30, []*tablev1.SeatStack{
		{Seat: 3, PlayerId: out, Stack: 0, StartStack: 300},
		{Seat: 5, PlayerId: at[2][1], Stack: 9000, StartStack: 8700},
	}, 3))
	if got := results(); !slices.Equal(got, want) {
		t.Fatalf("knock-out during the round placed before the round ended: %v", got)
	}
	// Table 2 played its round hand; a second one is out of turn and
	// counts for nothing.
	publish(handEnded(t, "ev-3", "tbl-two", 31, nil))
	publish(handEnded(t, "ev-4", "tbl-one", 13, []*tablev1.SeatStack{{Seat: 4, PlayerId: winner, Stack: 42000, StartStack: 42000}}))
	want = append([]string{out + ":5/1"}, want...)
	if got := results(); !slices.Equal(got, want) {
		t.Fatalf("after the round: %v, want %v", got, want)
	}
	list, err = f.c.ListEntries(f.floor, &tournamentv1.ListEntriesRequest{TournamentId: id})
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range list.GetEntries() {
		busted := en.GetStatus() == tournamentv1.EntryStatus_ENTRY_STATUS_BUSTED
		if busted != slices.Contains([]string{big, small, out}, en.GetPlayerId()) {
			t.Errorf("%s: status %v", en.GetPlayerId(), en.GetStatus())
		}
	}
}

// TestHandEnded_RebuyWindowClosesByItself_TR13_TR16: in a rebuy event the
// tables' own hands count the last rebuy hands (TR-16) — the caller's
// count is not needed — and a player out of chips is held at the table
// while they may rebuy (TR-13), then knocked out by the first hand to end
// after the window closed at their table; a player whose rebuy was paid
// but whose chips have not reached the table yet stays in.
func TestHandEnded_RebuyWindowClosesByItself_TR13_TR16(t *testing.T) {
	t.Parallel()
	players := []string{"a", "b", "c", "d"}
	f, bus := startWithBus(t, newFakeWallet(balances(players...)))
	id := f.running(t, players, func(r *tournamentv1.CreateTournamentRequest) {
		r.Format = tournamentv1.TournamentFormat_TOURNAMENT_FORMAT_REBUY
		r.EntryPolicy = &tournamentv1.EntryPolicy{RebuyPeriod: durationpb.New(30 * time.Minute), LastRebuyHands: 2}
	})
	if _, err := f.c.AttachTable(f.floor, &tournamentv1.AttachTableRequest{TournamentId: id, Table: 1, TableId: "tbl-one"}); err != nil {
		t.Fatal(err)
	}
	seat := map[string]int32{}
	for _, en := range f.entries(f.floor, t, id) {
		seat[en.GetPlayerId()] = en.GetSeat()
	}
	hand := func(no int64, started time.Time, stacks map[string]int64, busted ...string) {
		t.Helper()
		msg := &tablev1.HandEnded{TableId: "tbl-one", HandNo: no, StartTime: timestamppb.New(started)}
		for _, p := range players {
			msg.Stacks = append(msg.Stacks, &tablev1.SeatStack{Seat: seat[p], PlayerId: p, Stack: stacks[p], StartStack: stacks[p]})
		}
		for _, p := range busted {
			msg.Busted = append(msg.Busted, seat[p])
		}
		b, err := proto.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		if err := bus.Publish(t.Context(), events.Event{ID: fmt.Sprintf("h%d", no), Topic: events.TopicHandEnded, Key: "tbl-one", Payload: b, Epoch: 1}); err != nil {
			t.Fatal(err)
		}
	}
	status := func(p string) tournamentv1.EntryStatus {
		t.Helper()
		return f.entries(f.floor, t, id)[p].GetStatus()
	}
	waitStatus := func(p string, want tournamentv1.EntryStatus) {
		t.Helper()
		testkit.Eventually(t, 10*time.Second, func() error {
			if got := status(p); got != want {
				return fmt.Errorf("%s: %v, want %v", p, got, want)
			}
			return nil
		})
	}
	start := f.clk.Now()
	active, busted := tournamentv1.EntryStatus_ENTRY_STATUS_ACTIVE, tournamentv1.EntryStatus_ENTRY_STATUS_BUSTED
	// Hand 1 in the rebuy period: a goes out and is held (TR-13).
	hand(1, start.Add(time.Minute), map[string]int64{"b": 3000, "c": 3000, "d": 2000}, "a")
	f.clk.Advance(31 * time.Minute)
	// Hand 2 is the first of the last two rebuy hands: b goes out.
	hand(2, start.Add(31*time.Minute), map[string]int64{"b": 0, "c": 4000, "d": 4000}, "b")
	// The cage sells b a rebuy; its chips are not at the table yet.
	cage := f.g.As(t, "cage", auth.Cashier)
	testkit.Eventually(t, 10*time.Second, func() error {
		if _, err := f.c.Rebuy(cage, &tournamentv1.RebuyRequest{TournamentId: id, PlayerId: "b"}); err != nil {
			return fmt.Errorf("TR-16 rebuy in the last rebuy hands: %w", err)
		}
		return nil
	})
	if status("a") != active {
		t.Fatalf("TR-13 a, out in the rebuy period, knocked out while rebuys are open: %v", status("a"))
	}
	// Hand 3, the last rebuy hand, ends: the window is closed at the table.
	hand(3, start.Add(32*time.Minute), map[string]int64{"c": 4000, "d": 4000})
	waitStatus("a", busted)
	if status("b") != active {
		t.Fatalf("b, whose rebuy was paid, knocked out before the chips arrived: %v", status("b"))
	}
	_, err := f.c.Rebuy(cage, &tournamentv1.RebuyRequest{TournamentId: id, PlayerId: "c"})
	wantRule(t, err, codes.FailedPrecondition, "REBUY_PERIOD_OVER", "TR-16")
	// b's chips arrived; b is out again later and stays out.
	hand(4, start.Add(33*time.Minute), map[string]int64{"b": 5000, "c": 3000, "d": 0}, "d")
	waitStatus("d", busted)
	if status("b") != active {
		t.Fatalf("b after the rebuy's chips arrived: %v", status("b"))
	}
	res, err := f.c.GetResults(f.floor, &tournamentv1.GetResultsRequest{TournamentId: id})
	if got := places(res.GetFinishes()); err != nil || !slices.Equal(got, []string{"d:3/1", "a:4/1"}) {
		t.Fatalf("places %v, %v", got, err)
	}
}

// TestHandEnded_LiveArrivalIsNoKnockout_TR23: at a live table a seat held
// for a moved player the dealer has not confirmed yet is reported with no
// chips (they are in transit, TR-23): the books do not knock the player
// out; a player really out in the same hand is.
func TestHandEnded_LiveArrivalIsNoKnockout_TR23(t *testing.T) {
	t.Parallel()
	players := []string{"a", "b", "c", "d"}
	f, bus := startWithBus(t, newFakeWallet(balances(players...)))
	id := f.running(t, players, nil)
	if _, err := f.c.AttachTable(f.floor, &tournamentv1.AttachTableRequest{TournamentId: id, Table: 1, TableId: "tbl-live"}); err != nil {
		t.Fatal(err)
	}
	ev := handEnded(t, "ev-1", "tbl-live", 5, []*tablev1.SeatStack{
		{Seat: 1, PlayerId: "a", Stack: 0, StartStack: 900},
		{Seat: 2, PlayerId: "b", Stack: 60900, StartStack: 20000},
		{Seat: 3, PlayerId: "c", Stack: 0, Arriving: true},
	}, 1)
	if err := bus.Publish(t.Context(), ev); err != nil {
		t.Fatal(err)
	}
	var got []string
	testkit.Eventually(t, 10*time.Second, func() error {
		r, err := f.c.GetResults(f.floor, &tournamentv1.GetResultsRequest{TournamentId: id})
		if err != nil {
			return err
		}
		if got = places(r.GetFinishes()); len(got) == 0 {
			return errors.New("the knock-out was never recorded")
		}
		return nil
	})
	if !slices.Equal(got, []string{"a:4/1"}) {
		t.Fatalf("results %v: only a is out; c is walking to the table", got)
	}
}

// TestHandEnded_RebuyPaidBeforeTheHandIsHandledIsNoKnockout_TR13: a
// player goes out in a hand, and the cage sells them a rebuy (their last
// one, G-23) before the books have handled that hand: its report names
// them out with no chips, yet the rebuy was asked for after the hand
// ended, so its chips are theirs at the table and they stay in. A player
// out of their last rebuy's chips in the same hand is knocked out. (On a
// cluster the player was knocked out with the rebuy's chips in front of
// them, and their seat was given to another.)
func TestHandEnded_RebuyPaidBeforeTheHandIsHandledIsNoKnockout_TR13(t *testing.T) {
	t.Parallel()
	players := []string{"a", "b", "c", "d"}
	f, bus := startWithBus(t, newFakeWallet(balances(players...)))
	id := f.running(t, players, func(r *tournamentv1.CreateTournamentRequest) {
		r.Format = tournamentv1.TournamentFormat_TOURNAMENT_FORMAT_REBUY
		r.EntryPolicy = &tournamentv1.EntryPolicy{RebuyPeriod: durationpb.New(30 * time.Minute), MaxRebuys: 1}
	})
	if _, err := f.c.AttachTable(f.floor, &tournamentv1.AttachTableRequest{TournamentId: id, Table: 1, TableId: "tbl-one"}); err != nil {
		t.Fatal(err)
	}
	seat := map[string]int32{}
	for _, en := range f.entries(f.floor, t, id) {
		seat[en.GetPlayerId()] = en.GetSeat()
	}
	cage := f.g.As(t, "cage", auth.Cashier)
	// d has had their one rebuy before the hand.
	if _, err := f.c.Rebuy(cage, &tournamentv1.RebuyRequest{TournamentId: id, PlayerId: "d"}); err != nil {
		t.Fatal(err)
	}
	f.clk.Advance(time.Minute)
	ended := f.clk.Now()
	f.clk.Advance(time.Second)
	// a went out in the hand that ended; the cage sells the rebuy first.
	if _, err := f.c.Rebuy(cage, &tournamentv1.RebuyRequest{TournamentId: id, PlayerId: "a"}); err != nil {
		t.Fatal(err)
	}
	msg := &tablev1.HandEnded{TableId: "tbl-one", HandNo: 1, StartTime: timestamppb.New(ended.Add(-time.Minute)), EndTime: timestamppb.New(ended),
		Busted: []int32{seat["a"], seat["d"]}}
	for p, n := range map[string]int64{"a": 0, "b": 5000, "c": 5000, "d": 0} {
		msg.Stacks = append(msg.Stacks, &tablev1.SeatStack{Seat: seat[p], PlayerId: p, Stack: n, StartStack: 2500})
	}
	b, err := proto.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.Publish(t.Context(), events.Event{ID: "h1", Topic: events.TopicHandEnded, Key: "tbl-one", Payload: b, Epoch: 1}); err != nil {
		t.Fatal(err)
	}
	busted := tournamentv1.EntryStatus_ENTRY_STATUS_BUSTED
	testkit.Eventually(t, 10*time.Second, func() error {
		if got := f.entries(f.floor, t, id)["d"].GetStatus(); got != busted {
			return fmt.Errorf("d, out of their last rebuy's chips: %v", got)
		}
		return nil
	})
	if got := f.entries(f.floor, t, id)["a"].GetStatus(); got != tournamentv1.EntryStatus_ENTRY_STATUS_ACTIVE {
		t.Fatalf("TR-13 a, whose rebuy was paid after the hand ended, is %v", got)
	}
}

// startRebuyTables starts a rebuy event of six players at two attached
// tables (tbl-one, tbl-two) of seatsPerTable seats, three drawn to each,
// with a 30-minute rebuy period and one last rebuy hand (TR-13, TR-16).
// It returns the fixture, the event, each table's players in name order,
// a function publishing a hand at a table (handPublisher) and one reading
// a player's entry status.
func startRebuyTables(t *testing.T, seatsPerTable int32) (*fixture, string, map[int32][]string,
	func(tb string, started time.Time, stacks map[string]int64, busted ...string), func(p string) tournamentv1.EntryStatus) {
	t.Helper()
	players := []string{"a", "b", "c", "d", "e", "f"}
	f, bus := startWithBus(t, newFakeWallet(balances(players...)))
	id := f.running(t, players, func(r *tournamentv1.CreateTournamentRequest) {
		r.Format = tournamentv1.TournamentFormat_TOURNAMENT_FORMAT_REBUY
		r.SeatsPerTable = seatsPerTable
		r.EntryPolicy = &tournamentv1.EntryPolicy{RebuyPeriod: durationpb.New(30 * time.Minute), LastRebuyHands: 1}
	})
	for n, tb := range []string{"tbl-one", "tbl-two"} {
		if _, err := f.c.AttachTable(f.floor, &tournamentv1.AttachTableRequest{TournamentId: id, Table: int32(n + 1), TableId: tb}); err != nil {
			t.Fatal(err)
		}
	}
	at := map[int32][]string{}
	seat := map[string]int32{}
	for _, en := range f.entries(f.floor, t, id) {
		at[en.GetTable()] = append(at[en.GetTable()], en.GetPlayerId())
		seat[en.GetPlayerId()] = en.GetSeat()
	}
	if len(at[1]) != 3 || len(at[2]) != 3 {
		t.Fatalf("the draw: %v", at)
	}
	slices.Sort(at[1])
	slices.Sort(at[2])
	status := func(p string) tournamentv1.EntryStatus {
		t.Helper()
		return f.entries(f.floor, t, id)[p].GetStatus()
	}
	return f, id, at, handPublisher(t, bus, seat), status
}

// handPublisher returns a function that publishes table.hand_ended for
// tournament table tb as its table would: the hand numbered in order,
// started and ended at started, the players' stacks at its end (starting
// from 3,000) and the seats of those busted in it.
func handPublisher(t *testing.T, bus events.Bus, seat map[string]int32) func(tb string, started time.Time, stacks map[string]int64, busted ...string) {
	no := int64(0)
	return func(tb string, started time.Time, stacks map[string]int64, busted ...string) {
		t.Helper()
		no++
		msg := &tablev1.HandEnded{TableId: tb, HandNo: no, StartTime: timestamppb.New(started), EndTime: timestamppb.New(started)}
		for p, chips := range stacks {
			msg.Stacks = append(msg.Stacks, &tablev1.SeatStack{Seat: seat[p], PlayerId: p, Stack: chips, StartStack: 3000})
		}
		for _, p := range busted {
			msg.Busted = append(msg.Busted, seat[p])
		}
		b, err := proto.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		if err := bus.Publish(t.Context(), events.Event{ID: fmt.Sprintf("h%d", no), Topic: events.TopicHandEnded, Key: tb, Payload: b, Epoch: 1}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHandEnded_HeldAtATableThatCannotDealAreKnockedOut_TR13_TR16_G42:
// two players out at table 2 in the rebuy period are held there while
// they may rebuy (TR-13), and table 2, its last player with chips about to
// be moved, deals no more hands: nothing of its own would count its last
// rebuy hands (TR-16) or knock them out. A hand at table 1 in the period
// leaves them held; once the period is over they may not rebuy, and the
// first hand to end anywhere knocks them out, placed together below that
// hand's players (G-42).
func TestHandEnded_HeldAtATableThatCannotDealAreKnockedOut_TR13_TR16_G42(t *testing.T) {
	t.Parallel()
	f, id, at, hand, status := startRebuyTables(t, 3)
	active, busted := tournamentv1.EntryStatus_ENTRY_STATUS_ACTIVE, tournamentv1.EntryStatus_ENTRY_STATUS_BUSTED
	start := f.clk.Now()
	x, y, z := at[2][0], at[2][1], at[2][2]
	one := map[string]int64{at[1][0]: 3000, at[1][1]: 3000, at[1][2]: 3000}
	// In the period: x and y go out at table 2 and are held (TR-13).
	hand("tbl-two", start.Add(time.Minute), map[string]int64{x: 0, y: 0, z: 9000}, x, y)
	hand("tbl-one", start.Add(2*time.Minute), one)
	testkit.Eventually(t, 10*time.Second, func() error {
		res, err := f.c.GetResults(f.floor, &tournamentv1.GetResultsRequest{TournamentId: id})
		if err != nil {
			return err
		}
		if len(res.GetFinishes()) != 0 || status(x) != active || status(y) != active {
			return fmt.Errorf("TR-13: knocked out while rebuys are open: %v", places(res.GetFinishes()))
		}
		return nil
	})
	f.clk.Advance(31 * time.Minute)
	// The period is over and table 2 deals no more: its last rebuy hand is
	// over too, so x may not rebuy (TR-13, G-42).
	_, err := f.c.Rebuy(f.floor, &tournamentv1.RebuyRequest{TournamentId: id, PlayerId: x, Stack: 0})
	wantRule(t, err, codes.FailedPrecondition, "REBUY_PERIOD_OVER", "G-42")
	// Table 1's hand ends.
	hand("tbl-one", start.Add(31*time.Minute), one)
	testkit.Eventually(t, 10*time.Second, func() error {
		if status(x) != busted || status(y) != busted {
			return fmt.Errorf("G-42: %s %v and %s %v, held at a table that cannot deal", x, status(x), y, status(y))
		}
		return nil
	})
	res, err := f.c.GetResults(f.floor, &tournamentv1.GetResultsRequest{TournamentId: id})
	if got, want := places(res.GetFinishes()), []string{x + ":5/2", y + ":5/2"}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("places %v (%v), want %v", got, err, want)
	}
	if status(z) != active {
		t.Fatalf("%s, with chips, %v", z, status(z))
	}
}

// TestKnockOutHeld_FinalTableDue_TR07_TR13_G42: once the players left fit
// at one table, every table is held for the final table's redraw (TR-07),
// which waits for the players held there for a rebuy (TR-13): no table
// deals again, so none plays its last rebuy hands (TR-16). A player held
// at a table that still has two players with chips may not rebuy once the
// period is over (G-42), and the director's recovery pass knocks them out
// (KnockOutHeld); before, the redraw waited for a hand that never came.
func TestKnockOutHeld_FinalTableDue_TR07_TR13_G42(t *testing.T) {
	t.Parallel()
	f, id, at, hand, status := startRebuyTables(t, 4)
	active, busted := tournamentv1.EntryStatus_ENTRY_STATUS_ACTIVE, tournamentv1.EntryStatus_ENTRY_STATUS_BUSTED
	start := f.clk.Now()
	a, b, c := at[1][0], at[1][1], at[1][2]
	x, y, z := at[2][0], at[2][1], at[2][2]
	// In the period x goes out at table 2 and is held (TR-13); y and z
	// have chips there.
	hand("tbl-two", start.Add(time.Minute), map[string]int64{x: 0, y: 4500, z: 4500}, x)
	f.clk.Advance(31 * time.Minute)
	// After the period table 1 plays its last rebuy hand, in which a and b
	// go out for good: four players are left, who fit at one table.
	hand("tbl-one", start.Add(31*time.Minute), map[string]int64{a: 0, b: 0, c: 9000}, a, b)
	testkit.Eventually(t, 10*time.Second, func() error {
		if status(a) != busted || status(b) != busted {
			return fmt.Errorf("%s %v and %s %v, out after table 1's last rebuy hand", a, status(a), b, status(b))
		}
		return nil
	})
	if status(x) != active {
		t.Fatalf("%s, held before the final table was due, %v", x, status(x))
	}
	// Table 2 still has two players with chips, but it deals no more
	// hands before the redraw: x may not rebuy (G-42).
	_, err := f.c.Rebuy(f.floor, &tournamentv1.RebuyRequest{TournamentId: id, PlayerId: x, Stack: 0})
	wantRule(t, err, codes.FailedPrecondition, "REBUY_PERIOD_OVER", "G-42")
	out, err := f.dk.KnockOutHeld(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int{x: 2}; !maps.Equal(out, want) {
		t.Fatalf("knocked out %v, want %v (G-42)", out, want)
	}
	if status(x) != busted {
		t.Fatalf("G-42: %s %v once the final table is due", x, status(x))
	}
	res, err := f.c.GetResults(f.floor, &tournamentv1.GetResultsRequest{TournamentId: id})
	if got, want := places(res.GetFinishes()), []string{x + ":4/1", a + ":5/2", b + ":5/2"}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("places %v (%v), want %v", got, err, want)
	}
}
