package server_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/random"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/desk"
	"github.com/cardroom/cardroom/services/tournament/server"
	"github.com/cardroom/cardroom/services/tournament/store"
	"github.com/cardroom/cardroom/services/tournament/wallet"
)

// TestWatchLobby_G07_G26: the public lobby (no token) sends the clock's
// picture with the next level and the time to the break from the sheet
// (G-07), the leaderboard from the starting stacks before any hand and
// from the tables' stacks after each (ranks shared by equal stacks), the
// average and largest stack and the hand-for-hand state (G-26: off, then
// round 1 with the table to play it once the floor starts it, off again
// once stopped); a new count after a hand is sent again, and nothing
// while only time runs down.
func TestWatchLobby_G07_G26(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	st := store.New(db)
	clk := clock.NewFake(now)
	g := testkit.StartGRPC(t, func(r grpc.ServiceRegistrar) {
		tournamentv1.RegisterTournamentServiceServer(r, server.New(desk.New(desk.Deps{Store: st, Clock: clk, Random: random.Seeded(11),
			Wallet: wallet.New(newFakeWallet(map[string]int64{"ann": 10000, "bob": 10000, "cat": 10000}))})))
	})
	f := &fixture{g: g, c: tournamentv1.NewTournamentServiceClient(g.Conn), clk: clk, floor: g.As(t, "floor-1", auth.Floor)}
	id := f.create(t, func(r *tournamentv1.CreateTournamentRequest) {
		r.Levels = []*tournamentv1.Level{
			{SmallBlind: 25, BigBlind: 50, Duration: durationpb.New(20 * time.Minute)},
			{SmallBlind: 50, BigBlind: 100, Duration: durationpb.New(20 * time.Minute)},
			{Break: true, Duration: durationpb.New(10 * time.Minute)},
			{SmallBlind: 100, BigBlind: 200, Ante: 200, BigBlindAnte: true, Duration: durationpb.New(20 * time.Minute)},
		}
	})
	for _, p := range []string{"ann", "bob", "cat"} {
		f.register(t, id, p)
	}
	f.clk.Advance(6 * time.Hour)
	if _, err := f.c.StartTournament(f.floor, &tournamentv1.StartTournamentRequest{TournamentId: id}); err != nil {
		t.Fatal(err)
	}
	f.clk.Advance(5 * time.Minute)

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	feed, err := f.c.WatchLobby(ctx, &tournamentv1.WatchLobbyRequest{TournamentId: id}) // no token: public
	if err != nil {
		t.Fatal(err)
	}
	type rankRow struct {
		rank   int32
		player string
		stack  int64
	}
	// playing are the tables the lobby shows playing a hand-for-hand round (G-26); nil: not hand for hand.
	var playing []int32
	next := func(step string, want []rankRow, largest int64) *tournamentv1.WatchLobbyResponse {
		t.Helper()
		m, err := feed.Recv()
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		var got []rankRow
		for _, c := range m.GetChipCounts() {
			got = append(got, rankRow{c.GetRank(), c.GetPlayerId(), c.GetStack()})
			if c.GetTable() != 1 || c.GetSeat() < 1 {
				t.Fatalf("%s: %v seated nowhere", step, c)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%s: leaderboard %v, want %v", step, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: leaderboard %v, want %v", step, got, want)
			}
		}
		if m.GetLargestStack() != largest || m.GetAverageStack() != 20000 || m.GetClock().GetPlayersLeft() != 3 ||
			m.GetClock().GetPayouts().GetPrizePool() != 15000 {
			t.Fatalf("%s: largest %d average %d: %v", step, m.GetLargestStack(), m.GetAverageStack(), m)
		}
		hfh := m.GetHandForHand()
		if hfh == nil || hfh.GetActive() != (playing != nil) || !slices.Equal(hfh.GetPlaying(), playing) ||
			len(hfh.GetWaiting()) != 0 || hfh.GetRound() != map[bool]int32{true: 1}[playing != nil] {
			t.Fatalf("%s: hand-for-hand %v, want playing %v", step, hfh, playing)
		}
		return m
	}
	m := next("the first lobby", []rankRow{{1, "ann", 20000}, {1, "bob", 20000}, {1, "cat", 20000}}, 20000)
	// Level 1 of 20 minutes, 5 played: level 2 next, the break after both.
	if m.GetNextLevel().GetBigBlind() != 100 || m.GetTimeToBreak().AsDuration() != 35*time.Minute ||
		m.GetClock().GetClock().GetRemaining().AsDuration() != 15*time.Minute {
		t.Fatalf("ahead: next %v, to the break %v", m.GetNextLevel(), m.GetTimeToBreak())
	}
	// A hand at table 1 ends: the director saves its stacks; the lobby
	// shows them at once, ranked.
	if err := st.SaveStacks(t.Context(), id, []store.Stack{
		{PlayerID: "ann", TableID: "tbl", HandNo: 1, Chips: 15000, EndedAt: now},
		{PlayerID: "bob", TableID: "tbl", HandNo: 1, Chips: 30000, EndedAt: now},
		{PlayerID: "cat", TableID: "tbl", HandNo: 1, Chips: 15000, EndedAt: now},
	}); err != nil {
		t.Fatal(err)
	}
	m = next("after hand 1", []rankRow{{1, "bob", 30000}, {2, "ann", 15000}, {2, "cat", 15000}}, 30000)
	if m.GetChipCounts()[0].GetHandNo() != 1 {
		t.Fatalf("counted after hand %d", m.GetChipCounts()[0].GetHandNo())
	}
	// Level 2 starts: the break is next, then level 3 with its ante.
	f.clk.Advance(15 * time.Minute)
	m = next("level 2", []rankRow{{1, "bob", 30000}, {2, "ann", 15000}, {2, "cat", 15000}}, 30000)
	if m.GetNextLevel().GetAnte() != 200 || m.GetTimeToBreak().AsDuration() != 20*time.Minute {
		t.Fatalf("level 2: next %v, to the break %v", m.GetNextLevel(), m.GetTimeToBreak())
	}
	// The floor starts hand-for-hand (G-26): the lobby shows round 1 with
	// table 1 to play it; stopped, it shows it off again.
	for _, on := range []bool{true, false} {
		if _, err := f.c.SetHandForHand(f.floor, &tournamentv1.SetHandForHandRequest{TournamentId: id, On: on}); err != nil {
			t.Fatal(err)
		}
		playing = map[bool][]int32{true: {1}}[on]
		next(fmt.Sprintf("hand-for-hand %v", on), []rankRow{{1, "bob", 30000}, {2, "ann", 15000}, {2, "cat", 15000}}, 30000)
	}
}
