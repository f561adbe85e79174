package server_test

import (
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/random"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/desk"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/flight"
	"github.com/cardroom/cardroom/services/tournament/server"
	"github.com/cardroom/cardroom/services/tournament/store"
	"github.com/cardroom/cardroom/services/tournament/wallet"
)

// TestFlightsIntoDay2_G34: two Day 1 flights feed one Day 2 (issue 13). A
// flight must name a scheduled Day 2 (NOT_A_DAY2); nobody registers for
// the Day 2 itself (ENTER_A_FLIGHT); it starts once every flight has
// bagged (FLIGHTS_NOT_BAGGED). Each flight's bags (as the director records
// them) and its pool moved by the wallet give the Day 2 its field: one
// entry per survivor, the player who bagged twice with the bag the Day 2's
// survivor policy keeps (G-34: the larger by default, or the first or the
// last, as GetTournament shows it), seated by a new draw; its prize pool is the sum of the flights'
// and its payouts count every flight entry. The history shows a player's
// flights and Day 2 to them and to the floor, and to nobody else.
func TestFlightsIntoDay2_G34(t *testing.T) {
	t.Parallel()
	// c bags 30 000 in flight 1A, then 41 000 in 1B (G-34).
	for _, tc := range []struct {
		policy, shown tournamentv1.SurvivorPolicy
		carried       int64 // c's bag carried to Day 2
	}{
		{tournamentv1.SurvivorPolicy_SURVIVOR_POLICY_UNSPECIFIED, tournamentv1.SurvivorPolicy_SURVIVOR_POLICY_KEEP_LARGER, 41000},
		{tournamentv1.SurvivorPolicy_SURVIVOR_POLICY_KEEP_FIRST, tournamentv1.SurvivorPolicy_SURVIVOR_POLICY_KEEP_FIRST, 30000},
		{tournamentv1.SurvivorPolicy_SURVIVOR_POLICY_KEEP_LAST, tournamentv1.SurvivorPolicy_SURVIVOR_POLICY_KEEP_LAST, 41000},
	} {
		t.Run(tc.policy.String(), func(t *testing.T) {
			t.Parallel()
			db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
			st := store.New(db)
			clk := clock.NewFake(now)
			w := newFakeWallet(map[string]int64{"a": 20000, "b": 20000, "c": 20000, "d": 20000, "e": 20000, "f": 20000})
			dk := desk.New(desk.Deps{Store: st, Clock: clk, Random: random.Seeded(11), Wallet: wallet.New(w)})
			srv := server.New(dk)
			g := testkit.StartGRPC(t, func(r grpc.ServiceRegistrar) { tournamentv1.RegisterTournamentServiceServer(r, srv) })
			f := &fixture{g: g, c: tournamentv1.NewTournamentServiceClient(g.Conn), clk: clk, w: w,
				floor: g.As(t, "floor-1", auth.Floor), admin: g.As(t, "admin-1", auth.Admin)}
			ctx := t.Context()

			plain := f.create(t, nil)
			day2 := f.create(t, func(r *tournamentv1.CreateTournamentRequest) {
				r.Name, r.StartTime = "Main Event Day 2", timestamppb.New(now.Add(30*time.Hour))
				r.Day2 = &tournamentv1.Day2{Survivors: tc.policy}
			})
			_, err := f.c.CreateTournament(f.floor, withFlight(newRequest(), plain))
			wantRule(t, err, codes.FailedPrecondition, "NOT_A_DAY2", "")
			flightA := f.create(t, func(r *tournamentv1.CreateTournamentRequest) { withFlight(r, day2).Name = "Main Event Day 1A" })
			flightB := f.create(t, func(r *tournamentv1.CreateTournamentRequest) {
				withFlight(r, day2).Name = "Main Event Day 1B"
				r.StartTime = timestamppb.New(now.Add(7 * time.Hour))
			})
			got, _ := f.c.GetTournament(f.floor, &tournamentv1.GetTournamentRequest{TournamentId: flightA})
			if got.GetTournament().GetFlight().GetDay2TournamentId() != day2 || got.GetTournament().GetFlight().GetStopPlayers() != 2 {
				t.Fatalf("flight settings %v", got.GetTournament().GetFlight())
			}
			got, _ = f.c.GetTournament(f.floor, &tournamentv1.GetTournamentRequest{TournamentId: day2})
			if p := got.GetTournament().GetDay2().GetSurvivors(); p != tc.shown {
				t.Fatalf("G-34 the Day 2's survivor policy shows %v, want %v", p, tc.shown)
			}
			_, err = f.c.RegisterPlayer(f.g.As(t, "a", auth.Player), &tournamentv1.RegisterPlayerRequest{TournamentId: day2, PlayerId: "a"})
			wantRule(t, err, codes.FailedPrecondition, "ENTER_A_FLIGHT", "")

			for _, p := range []string{"a", "b", "c", "d"} {
				f.register(t, flightA, p)
			}
			for _, p := range []string{"c", "e", "f"} {
				f.register(t, flightB, p)
			}
			f.clk.Advance(7 * time.Hour)
			for _, id := range []string{flightA, flightB} {
				if _, err := f.c.StartTournament(f.floor, &tournamentv1.StartTournamentRequest{TournamentId: id}); err != nil {
					t.Fatal(err)
				}
			}
			f.clk.Advance(24 * time.Hour)
			_, err = f.c.StartTournament(f.floor, &tournamentv1.StartTournamentRequest{TournamentId: day2})
			wantRule(t, err, codes.FailedPrecondition, "FLIGHTS_NOT_BAGGED", "")

			// What the director does at the end of each flight's day (its own
			// test drives real tables): bags from the tables, the flight
			// finished, the pool step recorded and paid.
			bag := func(id string, bags map[string]int64) {
				t.Helper()
				var pay entry.Payment
				err := st.Update(ctx, id, func(tx *store.Tx, tr *store.Tournament) error {
					var bs []flight.Bag
					for p, c := range bags {
						bs = append(bs, flight.Bag{Flight: id, Player: p, Chips: c, Table: 1, Seat: 1, BaggedAt: f.clk.Now()})
					}
					if err := tx.PutBags(day2, bs); err != nil {
						return err
					}
					pool, _, err := tx.Contributions()
					if err != nil {
						return err
					}
					tr.Event.Status = event.Finished
					pay = entry.Payment{Key: "trn/" + id + "/pool-to-day2", Kind: entry.SettlePool, EventID: id, Currency: "EUR", Amount: pool,
						TargetEventID: day2, Note: "flight prize pool to Day 2"}
					return tx.AddPayment(pay, 0, f.clk.Now())
				})
				if err != nil {
					t.Fatal(err)
				}
				if err := dk.FlightBagged(ctx, id, pay); err != nil {
					t.Fatal(err)
				}
			}
			bag(flightA, map[string]int64{"a": 50000, "c": 30000}) // b and d busted
			f.clk.Advance(time.Hour)
			bag(flightB, map[string]int64{"c": 41000, "e": 19000}) // f busted

			bags, err := f.c.ListBags(f.g.As(t, "e", auth.Player), &tournamentv1.ListBagsRequest{TournamentId: day2})
			if err != nil || len(bags.GetBags()) != 4 || bags.GetChipsBagged() != 140000 || bags.GetChipsCarried() != 50000+19000+tc.carried {
				t.Fatalf("G-34 bags %v, %v", bags, err)
			}
			for _, b := range bags.GetBags() {
				if b.GetPlayerId() == "c" && b.GetCarried() != (b.GetChips() == tc.carried) {
					t.Fatalf("G-34 c's bags: %v", bags.GetBags())
				}
			}
			start, err := f.c.StartTournament(f.floor, &tournamentv1.StartTournamentRequest{TournamentId: day2})
			if err != nil {
				t.Fatal(err)
			}
			var seated []string
			for _, s := range start.GetSeats() {
				seated = append(seated, s.GetPlayerId())
			}
			slices.Sort(seated)
			if !slices.Equal(seated, []string{"a", "c", "e"}) {
				t.Fatalf("Day 2 seats %v", seated)
			}
			pay, err := f.c.GetPayouts(f.floor, &tournamentv1.GetPayoutsRequest{TournamentId: day2})
			if err != nil || pay.GetPrizePool() != 7*5000 || pay.GetEntrants() != 7 {
				t.Fatalf("Day 2 payouts: pool %d over %d entrants (%v), want the flights' 35000 over 7", pay.GetPrizePool(), pay.GetEntrants(), err)
			}
			w.mu.Lock()
			pools := [3]int64{w.pool[flightA], w.pool[flightB], w.pool[day2]}
			w.mu.Unlock()
			if pools != [3]int64{0, 0, 35000} {
				t.Fatalf("wallet pools (1A, 1B, Day 2) = %v", pools)
			}

			hist, err := f.c.GetPlayerHistory(f.g.As(t, "c", auth.Player), &tournamentv1.GetPlayerHistoryRequest{PlayerId: "c"})
			if err != nil || len(hist.GetEvents()) != 3 {
				t.Fatalf("c's history %v, %v", hist, err)
			}
			var bagged []int64
			for _, e := range hist.GetEvents() {
				bagged = append(bagged, e.GetBagged())
				if e.GetEntry().GetPlayerId() != "c" {
					t.Fatalf("history entry %v", e.GetEntry())
				}
			}
			if hist.GetEvents()[0].GetTournamentId() != day2 || !slices.Equal(bagged, []int64{0, 41000, 30000}) {
				t.Fatalf("c's history, latest first: %v", hist.GetEvents())
			}
			if _, err := f.c.GetPlayerHistory(f.floor, &tournamentv1.GetPlayerHistoryRequest{PlayerId: "c"}); err != nil {
				t.Fatalf("the floor reading c's history: %v", err)
			}
			_, err = f.c.GetPlayerHistory(f.g.As(t, "e", auth.Player), &tournamentv1.GetPlayerHistoryRequest{PlayerId: "c"})
			if status.Code(err) != codes.PermissionDenied {
				t.Fatalf("e reading c's history = %v", err)
			}
		})
	}
}

func withFlight(r *tournamentv1.CreateTournamentRequest, day2 string) *tournamentv1.CreateTournamentRequest {
	r.Flight = &tournamentv1.Flight{Day2TournamentId: day2, StopPlayers: 2}
	return r
}
