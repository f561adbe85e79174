package server_test

import (
	"fmt"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/desk"
	"github.com/cardroom/cardroom/services/tournament/server"
	"github.com/cardroom/cardroom/services/tournament/store"
	"github.com/cardroom/cardroom/services/tournament/wallet"
)

// TestConcurrentRegistration: players race for the last places of a
// capped field on both databases; exactly the cap get in, each pays once,
// and the others are told the event is full.
func TestConcurrentRegistration(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		const players, capacity = 16, 5
		names := make([]string, players)
		for i := range names {
			names[i] = fmt.Sprintf("p%02d", i)
		}
		w := newFakeWallet(balances(names...))
		clk := clock.NewFake(now)
		g := testkit.StartGRPC(t, func(r grpc.ServiceRegistrar) {
			tournamentv1.RegisterTournamentServiceServer(r, server.New(desk.New(desk.Deps{Store: store.New(db), Clock: clk, Wallet: wallet.New(w)})))
		})
		f := &fixture{g: g, c: tournamentv1.NewTournamentServiceClient(g.Conn), clk: clk, w: w, floor: g.As(t, "floor-1", auth.Floor)}
		id := f.create(t, func(r *tournamentv1.CreateTournamentRequest) {
			r.EntryPolicy = &tournamentv1.EntryPolicy{MaxEntrants: capacity}
		})
		var wg sync.WaitGroup
		codesSeen := make([]codes.Code, players)
		for i, p := range names {
			ctx := g.As(t, p, auth.Player)
			wg.Go(func() {
				_, err := f.c.RegisterPlayer(ctx, &tournamentv1.RegisterPlayerRequest{TournamentId: id, PlayerId: p})
				codesSeen[i] = status.Code(err)
			})
		}
		wg.Wait()
		ok, full := 0, 0
		for i, c := range codesSeen {
			switch c {
			case codes.OK:
				ok++
				if w.get(names[i]) != 100000-6100 {
					t.Fatalf("%s paid %d", names[i], 100000-w.get(names[i]))
				}
			case codes.FailedPrecondition:
				full++
				if w.get(names[i]) != 100000 {
					t.Fatalf("%s refused but charged", names[i])
				}
			default:
				t.Fatalf("%s: unexpected %v", names[i], c)
			}
		}
		list, err := f.c.ListEntries(f.floor, &tournamentv1.ListEntriesRequest{TournamentId: id})
		if ok != capacity || full != players-capacity || err != nil || len(list.GetEntries()) != capacity {
			t.Fatalf("admitted %d, refused %d, entries %d (%v); want %d in", ok, full, len(list.GetEntries()), err, capacity)
		}
	})
}
