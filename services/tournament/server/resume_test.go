package server_test

import (
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"

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

// TestResumePayments: steps the wallet did not answer are finished by the
// resume loop with their own keys, and money moves once.
func TestResumePayments(t *testing.T) {
	t.Parallel()
	w := newFakeWallet(balances("a", "b", "c"))
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	clk := clock.NewFake(now)
	dk := desk.New(desk.Deps{Store: store.New(db), Clock: clk, Wallet: wallet.New(w), Random: random.Seeded(5)})
	srv := server.New(dk)
	g := testkit.StartGRPC(t, func(r grpc.ServiceRegistrar) { tournamentv1.RegisterTournamentServiceServer(r, srv) })
	f := &fixture{g: g, c: tournamentv1.NewTournamentServiceClient(g.Conn), clk: clk, w: w,
		floor: g.As(t, "floor-1", auth.Floor), admin: g.As(t, "admin-1", auth.Admin)}
	id := f.create(t, nil)
	f.register(t, id, "a")
	w.down = 1
	_, err := f.c.RegisterPlayer(f.g.As(t, "b", auth.Player), &tournamentv1.RegisterPlayerRequest{TournamentId: id, PlayerId: "b"})
	wantRule(t, err, codes.Unavailable, "PAYMENT_PENDING", "")
	if err := dk.ResumePayments(t.Context()); err != nil {
		t.Fatal(err)
	}
	list, _ := f.c.ListEntries(f.floor, &tournamentv1.ListEntriesRequest{TournamentId: id})
	if len(list.GetEntries()) != 2 || list.GetEntries()[1].GetStatus() != tournamentv1.EntryStatus_ENTRY_STATUS_ACTIVE || w.get("b") != 100000-6100 {
		t.Fatalf("after resume: %v, balance %d", list, w.get("b"))
	}
	// A cancellation whose refund did not get through is finished too.
	w.down = 1
	_, err = f.c.CancelTournament(f.admin, &tournamentv1.CancelTournamentRequest{TournamentId: id, Reason: "power cut"})
	wantRule(t, err, codes.Unavailable, "PAYMENT_PENDING", "")
	if err := dk.ResumePayments(t.Context()); err != nil {
		t.Fatal(err)
	}
	if w.get("a") != 100000 || w.get("b") != 100000 {
		t.Fatalf("refund not finished: a %d b %d", w.get("a"), w.get("b"))
	}
	if err := dk.ResumePayments(t.Context()); err != nil || w.calls["trn/"+id+"/refund"] != 2 {
		t.Fatalf("nothing left to resume: %v, calls %v", err, w.calls)
	}
}
