package server_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
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

// startResumable is startWithWallet that also hands back the desk, for
// its resume loop (Service.Run's work).
func startResumable(t *testing.T, w *fakeWallet) (*fixture, *desk.Desk) {
	t.Helper()
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	clk := clock.NewFake(now)
	dk := desk.New(desk.Deps{Store: store.New(db), Clock: clk, Wallet: wallet.New(w), Random: random.Seeded(5)})
	srv := server.New(dk)
	g := testkit.StartGRPC(t, func(r grpc.ServiceRegistrar) { tournamentv1.RegisterTournamentServiceServer(r, srv) })
	return &fixture{g: g, c: tournamentv1.NewTournamentServiceClient(g.Conn), clk: clk, w: w,
		floor: g.As(t, "floor-1", auth.Floor), admin: g.As(t, "admin-1", auth.Admin)}, dk
}

func (f *fixture) entries(ctx context.Context, t *testing.T, id string) map[string]*tournamentv1.Entry {
	t.Helper()
	list, err := f.c.ListEntries(ctx, &tournamentv1.ListEntriesRequest{TournamentId: id})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*tournamentv1.Entry{}
	for _, en := range list.GetEntries() {
		out[en.GetPlayerId()] = en
	}
	return out
}

func (f *fixture) state(t *testing.T, id string) tournamentv1.TournamentState {
	t.Helper()
	got, err := f.c.GetTournament(f.floor, &tournamentv1.GetTournamentRequest{TournamentId: id})
	if err != nil {
		t.Fatal(err)
	}
	return got.GetTournament().GetState()
}

// TestUnregisterRefund_WalletDown_TR04: the refund of a withdrawn entry is
// a saga step: the wallet not answering leaves it pending, and the resume
// loop or the same request finishes it under its key, paying once.
func TestUnregisterRefund_WalletDown_TR04(t *testing.T) {
	t.Parallel()
	w := newFakeWallet(balances("a", "b"))
	f, dk := startResumable(t, w)
	id := f.create(t, nil)
	f.register(t, id, "a")
	f.register(t, id, "b")
	a, b := f.g.As(t, "a", auth.Player), f.g.As(t, "b", auth.Player)

	w.down = 1
	_, err := f.c.UnregisterPlayer(a, &tournamentv1.UnregisterPlayerRequest{TournamentId: id, PlayerId: "a"})
	wantRule(t, err, codes.Unavailable, "PAYMENT_PENDING", "")
	en := f.entries(f.floor, t, id)["a"]
	if en.GetStatus() != tournamentv1.EntryStatus_ENTRY_STATUS_UNREGISTERED || en.GetRefundTransferId() != "" || en.GetPaid() != 6100 || w.get("a") != 100000-6100 {
		t.Fatalf("TR-04 refund pending: %v, balance %d", en, w.get("a"))
	}
	// The pool no longer counts the withdrawn entry.
	if pay, err := f.c.GetPayouts(f.floor, &tournamentv1.GetPayoutsRequest{TournamentId: id}); err != nil || pay.GetPrizePool() != 5000 {
		t.Fatalf("payouts while the refund is pending: %v, %v", pay, err)
	}
	// The resume loop finishes it.
	if err := dk.ResumePayments(t.Context()); err != nil {
		t.Fatal(err)
	}
	en = f.entries(f.floor, t, id)["a"]
	if en.GetRefundTransferId() == "" || en.GetPaid() != 0 || w.get("a") != 100000 {
		t.Fatalf("TR-04 refund after resume: %v, balance %d", en, w.get("a"))
	}

	// b's refund is finished by b asking again; the wallet is asked twice
	// under one key and pays once.
	w.down = 1
	_, err = f.c.UnregisterPlayer(b, &tournamentv1.UnregisterPlayerRequest{TournamentId: id, PlayerId: "b"})
	wantRule(t, err, codes.Unavailable, "PAYMENT_PENDING", "")
	if _, err := f.c.UnregisterPlayer(b, &tournamentv1.UnregisterPlayerRequest{TournamentId: id, PlayerId: "b"}); err != nil {
		t.Fatal(err)
	}
	if key := "trn/" + id + "/b/entry-refund/1"; w.calls[key] != 2 || w.get("b") != 100000 || w.pool[id] != 0 || w.house != 0 {
		t.Fatalf("b's refund: calls %d, balance %d, pool %d, house %d", w.calls[key], w.get("b"), w.pool[id], w.house)
	}
	if err := dk.ResumePayments(t.Context()); err != nil || w.get("b") != 100000 {
		t.Fatalf("nothing left to resume: %v, balance %d", err, w.get("b"))
	}
}

// TestListEntriesMoney: a player sees the money fields of their own entry
// only; staff see everyone's.
func TestListEntriesMoney(t *testing.T) {
	t.Parallel()
	w := newFakeWallet(balances("a", "b"))
	f := startWithWallet(t, w)
	id := f.create(t, nil)
	f.register(t, id, "a")
	f.register(t, id, "b")
	for _, c := range []struct {
		name   string
		ctx    context.Context
		viewer string
	}{
		{"player a", f.g.As(t, "a", auth.Player), "a"},
		{"player b", f.g.As(t, "b", auth.Player), "b"},
		{"floor", f.floor, ""},
		{"dealer", f.g.As(t, "d", auth.Dealer), ""},
		{"cashier", f.g.As(t, "c", auth.Cashier), ""},
	} {
		for player, en := range f.entries(c.ctx, t, id) {
			mine := c.viewer == "" || c.viewer == player
			if shown := en.GetTransferId() != "" && en.GetPaid() == 6100; shown != mine {
				t.Errorf("%s sees %s's money = %v (transfer %q, paid %d), want %v", c.name, player, shown, en.GetTransferId(), en.GetPaid(), mine)
			}
			if en.GetStatus() != tournamentv1.EntryStatus_ENTRY_STATUS_ACTIVE {
				t.Errorf("%s sees %s's entry as %v", c.name, player, en.GetStatus())
			}
		}
	}
}

// TestReentry_G23: a busted player re-registering during late
// registration gets a new entry, paid in full under its own key, when the
// event takes re-entries; otherwise, past the limit or after late
// registration, the refusal names the rule.
func TestReentry_G23(t *testing.T) {
	t.Parallel()
	players := []string{"a", "b", "c", "d"}
	w := newFakeWallet(balances(players...))
	f := startWithWallet(t, w)
	late := func(reentry bool, limit int32) func(*tournamentv1.CreateTournamentRequest) {
		return func(r *tournamentv1.CreateTournamentRequest) {
			r.EntryPolicy = &tournamentv1.EntryPolicy{LateRegistration: durationpb.New(time.Hour), Reentry: reentry, MaxReentries: limit}
		}
	}
	id := f.running(t, players, late(true, 1))
	bust := func(id, player string) {
		t.Helper()
		if _, err := f.c.RecordKnockouts(f.floor, &tournamentv1.RecordKnockoutsRequest{TournamentId: id,
			Knockouts: []*tournamentv1.Knockout{{PlayerId: player, Table: 1, Hand: 1}}}); err != nil {
			t.Fatal(err)
		}
	}
	bust(id, "d")
	again := f.register(t, id, "d")
	if again.GetStatus() != tournamentv1.EntryStatus_ENTRY_STATUS_ACTIVE || again.GetReentries() != 1 || again.GetTable() == 0 || again.GetPaid() != 2*6100 {
		t.Fatalf("G-23 re-entry: %v", again)
	}
	if key := "trn/" + id + "/d/entry/2"; w.calls[key] != 1 || w.get("d") != 100000-2*6100 || w.pool[id] != 5*5000 {
		t.Fatalf("G-23 re-entry paid: calls %v, balance %d, pool %d", w.calls, w.get("d"), w.pool[id])
	}
	if en := f.entries(f.floor, t, id)["d"]; en.GetPaid() != 2*6100 {
		t.Fatalf("d paid %d, want two entries", en.GetPaid())
	}
	// Back in the field: d's earlier place is taken back and given again.
	res, err := f.c.GetResults(f.floor, &tournamentv1.GetResultsRequest{TournamentId: id})
	if err != nil || len(res.GetFinishes()) != 0 {
		t.Fatalf("places after the re-entry: %v, %v", res.GetFinishes(), err)
	}
	pay, err := f.c.GetPayouts(f.floor, &tournamentv1.GetPayoutsRequest{TournamentId: id})
	if err != nil || pay.GetEntrants() != 5 || pay.GetPrizePool() != 25000 {
		t.Fatalf("payouts count the re-entry: %v, %v", pay, err)
	}
	bust(id, "d")
	_, err = f.c.RegisterPlayer(f.g.As(t, "d", auth.Player), &tournamentv1.RegisterPlayerRequest{TournamentId: id, PlayerId: "d"})
	wantRule(t, err, codes.FailedPrecondition, "REENTRY_LIMIT_REACHED", "G-23")
	_, err = f.c.RegisterPlayer(f.g.As(t, "a", auth.Player), &tournamentv1.RegisterPlayerRequest{TournamentId: id, PlayerId: "a"})
	wantRule(t, err, codes.AlreadyExists, "ALREADY_REGISTERED", "")

	// Late registration over: no re-entry either.
	bust(id, "c")
	f.clk.Advance(time.Hour)
	_, err = f.c.RegisterPlayer(f.g.As(t, "c", auth.Player), &tournamentv1.RegisterPlayerRequest{TournamentId: id, PlayerId: "c"})
	wantRule(t, err, codes.FailedPrecondition, "REGISTRATION_CLOSED", "TR-04")

	// A re-entry is an entry under the cap: four players and one re-entry fill five places.
	capped := f.running(t, players, func(r *tournamentv1.CreateTournamentRequest) {
		late(true, 0)(r)
		r.EntryPolicy.MaxEntrants = 5
	})
	bust(capped, "d")
	f.register(t, capped, "d")
	bust(capped, "d")
	_, err = f.c.RegisterPlayer(f.g.As(t, "d", auth.Player), &tournamentv1.RegisterPlayerRequest{TournamentId: capped, PlayerId: "d"})
	wantRule(t, err, codes.FailedPrecondition, "EVENT_FULL", "")

	// An event without re-entry refuses it with the rule.
	other := f.running(t, players, late(false, 0))
	bust(other, "d")
	_, err = f.c.RegisterPlayer(f.g.As(t, "d", auth.Player), &tournamentv1.RegisterPlayerRequest{TournamentId: other, PlayerId: "d"})
	wantRule(t, err, codes.FailedPrecondition, "REENTRY_NOT_ALLOWED", "G-23")
	if w.calls["trn/"+other+"/d/entry/2"] != 0 {
		t.Fatal("a refused re-entry asked the wallet")
	}
}

// TestPayingUntilPaid_TR36: the event reads PAYING while a prize is
// pending and FINISHED when the resume loop pays the last one.
func TestPayingUntilPaid_TR36(t *testing.T) {
	t.Parallel()
	w := newFakeWallet(balances("a", "b", "c"))
	f, dk := startResumable(t, w)
	id := f.create(t, nil)
	for _, p := range []string{"a", "b", "c"} {
		f.register(t, id, p)
	}
	f.clk.Advance(6 * time.Hour)
	if _, err := f.c.StartTournament(f.floor, &tournamentv1.StartTournamentRequest{TournamentId: id}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.RecordKnockouts(f.floor, &tournamentv1.RecordKnockoutsRequest{TournamentId: id, Knockouts: []*tournamentv1.Knockout{{PlayerId: "c", Table: 1}}}); err != nil {
		t.Fatal(err)
	}
	w.down = 1
	r, err := f.c.RecordKnockouts(f.floor, &tournamentv1.RecordKnockoutsRequest{TournamentId: id, Knockouts: []*tournamentv1.Knockout{{PlayerId: "b", Table: 1}}})
	if err != nil || !r.GetFinished() || r.GetPrizes()[0].GetState() != tournamentv1.PrizeState_PRIZE_STATE_PENDING {
		t.Fatalf("last knock-out with the wallet down: %v, %v", r, err)
	}
	if got := f.state(t, id); got != tournamentv1.TournamentState_TOURNAMENT_STATE_PAYING {
		t.Fatalf("state with a prize pending = %v, want PAYING", got)
	}
	_, err = f.c.SettlePrizePool(f.floor, &tournamentv1.SettlePrizePoolRequest{TournamentId: id, Reason: "too early"})
	wantRule(t, err, codes.FailedPrecondition, "PRIZES_NOT_PAID", "TR-34")
	if err := dk.ResumePayments(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := f.state(t, id); got != tournamentv1.TournamentState_TOURNAMENT_STATE_FINISHED || w.get("a") != 100000-6100+15000 {
		t.Fatalf("after the resume loop paid: %v, balance %d", got, w.get("a"))
	}
}

// TestSettlePrizePool_TR34: the prize withheld from an expelled player
// stays in the pool until the floor settles it — once, audited, to the
// house or a player — and the pool ends empty.
func TestSettlePrizePool_TR34(t *testing.T) {
	t.Parallel()
	players := []string{"a", "b", "c", "d", "e", "f", "g"}
	w := newFakeWallet(balances(players...))
	f := startWithWallet(t, w)
	id := f.running(t, players, nil)
	_, err := f.c.SettlePrizePool(f.floor, &tournamentv1.SettlePrizePoolRequest{TournamentId: id, Reason: "r"})
	wantRule(t, err, codes.FailedPrecondition, "PRIZES_NOT_PAID", "TR-34")
	for _, p := range []string{"g", "f", "e", "d", "c"} {
		if _, err := f.c.RecordKnockouts(f.floor, &tournamentv1.RecordKnockoutsRequest{TournamentId: id, Knockouts: []*tournamentv1.Knockout{{PlayerId: p, Table: 1}}}); err != nil {
			t.Fatal(err)
		}
	}
	// TR-34: b is expelled in second place; the 12200 of second place is withheld.
	if _, err := f.c.IssuePenalty(f.floor, &tournamentv1.IssuePenaltyRequest{TournamentId: id, PlayerId: "b",
		Type: tournamentv1.PenaltyType_PENALTY_TYPE_EXPULSION, Reason: "collusion"}); err != nil {
		t.Fatal(err)
	}
	if got := f.state(t, id); got != tournamentv1.TournamentState_TOURNAMENT_STATE_FINISHED || w.pool[id] != 12200 || w.get("b") != 100000-6100 {
		t.Fatalf("after the expulsion: %v, pool %d, b %d", got, w.pool[id], w.get("b"))
	}
	if _, err := f.c.SettlePrizePool(f.g.As(t, "a", auth.Player), &tournamentv1.SettlePrizePoolRequest{TournamentId: id, Reason: "mine"}); err == nil {
		t.Fatal("a player settled the pool")
	}
	w.down = 1
	_, err = f.c.SettlePrizePool(f.floor, &tournamentv1.SettlePrizePoolRequest{TournamentId: id, Reason: "withheld prize of an expelled player"})
	wantRule(t, err, codes.Unavailable, "PAYMENT_PENDING", "")
	// Asking again finishes the pending step, whatever the new request says.
	s, err := f.c.SettlePrizePool(f.admin, &tournamentv1.SettlePrizePoolRequest{TournamentId: id, PlayerId: "c", Reason: "another idea"})
	if err != nil || s.GetAmount() != 12200 || s.GetPlayerId() != "" || s.GetTransferId() == "" {
		t.Fatalf("settlement = %v, %v", s, err)
	}
	if key := "trn/" + id + "/pool-settlement/1"; w.calls[key] != 2 || w.pool[id] != 0 || w.balance["house"] != 12200 {
		t.Fatalf("settled: calls %d, pool %d, house %d", w.calls[key], w.pool[id], w.balance["house"])
	}
	_, err = f.c.SettlePrizePool(f.floor, &tournamentv1.SettlePrizePoolRequest{TournamentId: id, Reason: "again"})
	wantRule(t, err, codes.FailedPrecondition, "NOTHING_TO_SETTLE", "TR-34")
	log, err := f.c.ListAudit(f.floor, &tournamentv1.ListAuditRequest{TournamentId: id})
	if err != nil || len(log.GetRecords()) != 1 || log.GetRecords()[0].GetAction() != "settle_pool" || log.GetRecords()[0].GetActor() != "floor-1" {
		t.Fatalf("audit = %v, %v", log, err)
	}
}

// TestLateEntriesKeepPlacesApart_G23_TR37: places given while late
// registration is open move as the field grows — a new entrant, a
// re-entry taking its place back — so no two players hold one place and
// the event ends with places 1..players (the "places collide after
// re-entry in late registration" defect: the next knock-out was given a
// place already taken). A player out in a hand-for-hand round who
// re-enters before the round ends leaves the round's knock-outs instead
// of being placed while in play.
func TestLateEntriesKeepPlacesApart_G23_TR37(t *testing.T) {
	t.Parallel()
	players := []string{"a", "b", "c", "d", "e", "f"}
	w := newFakeWallet(balances(append(slices.Clone(players), "late")...))
	f := startWithWallet(t, w)
	id := f.running(t, players, func(r *tournamentv1.CreateTournamentRequest) {
		r.EntryPolicy = &tournamentv1.EntryPolicy{LateRegistration: durationpb.New(time.Hour), Reentry: true}
		r.SeatsPerTable = 3
	})
	svc := f.g.As(t, "svc", auth.Service)
	bust := func(player string) *tournamentv1.RecordKnockoutsResponse {
		t.Helper()
		en := f.entries(f.floor, t, id)[player]
		r, err := f.c.RecordKnockouts(svc, &tournamentv1.RecordKnockoutsRequest{TournamentId: id,
			Knockouts: []*tournamentv1.Knockout{{PlayerId: player, Table: en.GetTable(), Hand: 1}}})
		if err != nil {
			t.Fatalf("knock out %s: %v", player, err)
		}
		return r
	}
	bust("a")                 // 6th of 6
	f.register(t, id, "late") // 7 entrants: a is 7th now
	bust("b")                 // 6th
	f.register(t, id, "a")    // a re-enters: b moves to 7th
	bust("c")                 // 6th
	// G-26: hand-for-hand; d goes out in the round and re-enters before it ends.
	if _, err := f.c.SetHandForHand(f.floor, &tournamentv1.SetHandForHandRequest{TournamentId: id, On: true}); err != nil {
		t.Fatal(err)
	}
	if r := bust("d"); !r.GetDeferred() {
		t.Fatalf("d's knock-out in hand-for-hand not held for the round: %v", r)
	}
	f.register(t, id, "d")
	if _, err := f.c.SetHandForHand(f.floor, &tournamentv1.SetHandForHandRequest{TournamentId: id}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"e", "a", "late", "f"} {
		bust(p)
	}
	res, err := f.c.GetResults(f.floor, &tournamentv1.GetResultsRequest{TournamentId: id})
	if err != nil {
		t.Fatal(err)
	}
	got := places(res.GetFinishes())
	if want := []string{"d:1/1", "f:2/1", "late:3/1", "a:4/1", "e:5/1", "c:6/1", "b:7/1"}; !slices.Equal(got, want) {
		t.Fatalf("places %v, want %v", got, want)
	}
}
