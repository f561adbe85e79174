package server_test

import (
	"context"
	"strings"
	"sync"
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
	"github.com/cardroom/cardroom/services/tournament/director"
	"github.com/cardroom/cardroom/services/tournament/server"
	"github.com/cardroom/cardroom/services/tournament/store"
	"github.com/cardroom/cardroom/services/tournament/wallet"
)

// heldTables is the table service as a deal sees it: one table per
// seated entrant set, its holds, and whether a hand is in play. The
// controls a deal never uses are left to the embedded interface.
type heldTables struct {
	director.Tables
	// mu guards seats, holds and inHand.
	mu     sync.Mutex
	seats  map[string][]director.SeatStatus
	holds  map[string]bool // table/hold id
	inHand bool
}

func (h *heldTables) Open(_ context.Context, t director.OpenTable) (string, error) {
	return "tbl-" + t.Key[strings.LastIndex(t.Key, "/")+1:], nil
}

func (h *heldTables) Seat(_ context.Context, tableID, _, player string, seat int, stack int64) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seats[tableID] = append(h.seats[tableID], director.SeatStatus{Seat: seat, Player: player, Stack: stack})
	return nil
}

func (h *heldTables) SetButton(context.Context, string, string, int) error { return nil }

func (h *heldTables) SetLevels(context.Context, string, int64, []director.Row) error { return nil }

func (h *heldTables) Hold(_ context.Context, tableID, holdID string, _ director.HoldReason, _ int64) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.holds[tableID+"/"+holdID] = true
	return nil
}

func (h *heldTables) Release(_ context.Context, tableID, holdID string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.holds, tableID+"/"+holdID)
	return nil
}

func (h *heldTables) Status(_ context.Context, tableID string) (director.TableStatus, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return director.TableStatus{HandNo: 1, InHand: h.inHand, Seats: append([]director.SeatStatus(nil), h.seats[tableID]...)}, nil
}

// dealHeld reports whether every table with players has the deal's hold.
func (h *heldTables) dealHeld() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for tb := range h.seats {
		if !h.holds[tb+"/"+director.HoldDeal] {
			return false
		}
	}
	return len(h.seats) > 0
}

// TestProposeDealHoldsTables_TR38: the deal's hold on the tables. A
// proposal made while a hand is in play is refused and leaves the tables
// held after it — the floor's pause for the deal; one refused for any
// other reason (custom amounts that do not share the prizes left) lets
// them deal again; a proposal in force keeps them held, and a player's
// refusal releases them.
func TestProposeDealHoldsTables_TR38(t *testing.T) {
	t.Parallel()
	players := []string{"a", "b", "c"}
	w := newFakeWallet(balances(players...))
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	st := store.New(db)
	clk := clock.NewFake(now)
	tables := &heldTables{seats: map[string][]director.SeatStatus{}, holds: map[string]bool{}}
	g := testkit.StartGRPC(t, func(r grpc.ServiceRegistrar) {
		tournamentv1.RegisterTournamentServiceServer(r, server.New(desk.New(desk.Deps{Store: st, Clock: clk, Random: random.Seeded(11),
			Wallet: wallet.New(w), Tables: tables})))
	})
	f := &fixture{g: g, c: tournamentv1.NewTournamentServiceClient(g.Conn), clk: clk, w: w,
		floor: g.As(t, "floor-1", auth.Floor), admin: g.As(t, "admin-1", auth.Admin)}
	id := f.running(t, players, nil)
	if len(tables.seats) == 0 || tables.dealHeld() {
		t.Fatalf("after the start: seats %v, holds %v", tables.seats, tables.holds)
	}
	propose := func(req *tournamentv1.ProposeDealRequest) (*tournamentv1.ProposeDealResponse, error) {
		req.TournamentId = id
		return f.c.ProposeDeal(f.floor, req)
	}

	tables.inHand = true
	_, err := propose(&tournamentv1.ProposeDealRequest{Method: tournamentv1.DealMethod_DEAL_METHOD_ICM, Reason: "three left"})
	wantRule(t, err, codes.FailedPrecondition, "DEAL_TABLES_IN_HAND", "TR-38")
	if !tables.dealHeld() {
		t.Fatalf("a proposal during a hand left the tables free to deal the next: %v", tables.holds)
	}
	tables.inHand = false
	_, err = propose(&tournamentv1.ProposeDealRequest{Method: tournamentv1.DealMethod_DEAL_METHOD_CUSTOM, Reason: "their own split",
		Shares: []*tournamentv1.DealShare{{PlayerId: "a", Amount: 1}, {PlayerId: "b", Amount: 1}, {PlayerId: "c", Amount: 1}}})
	wantRule(t, err, codes.InvalidArgument, "DEAL_AMOUNTS_MISMATCH", "TR-38")
	if tables.dealHeld() {
		t.Fatalf("a refused proposal kept the tables held: %v", tables.holds)
	}
	resp, err := propose(&tournamentv1.ProposeDealRequest{Method: tournamentv1.DealMethod_DEAL_METHOD_ICM, Reason: "three left"})
	if err != nil || len(resp.GetDeal().GetPlayers()) != 3 {
		t.Fatalf("proposal %v, %v", resp, err)
	}
	if !tables.dealHeld() {
		t.Fatalf("a proposal in force left the tables free: %v", tables.holds)
	}
	if _, err := f.c.AgreeDeal(g.As(t, "b", auth.Player), &tournamentv1.AgreeDealRequest{TournamentId: id,
		DealId: resp.GetDeal().GetDealId(), PlayerId: "b", Agree: false}); err != nil {
		t.Fatal(err)
	}
	if tables.dealHeld() {
		t.Fatalf("a declined deal kept the tables held: %v", tables.holds)
	}
}
