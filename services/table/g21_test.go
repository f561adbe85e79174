package table_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"github.com/cardroom/cardroom/services/table"
)

// errorInfo returns the google.rpc.ErrorInfo of a refusal.
func errorInfo(err error) *errdetails.ErrorInfo {
	for _, d := range status.Convert(err).Details() {
		if i, ok := d.(*errdetails.ErrorInfo); ok {
			return i
		}
	}
	return nil
}

// wantSeatedElsewhere fails unless err is G-21's refusal naming the seat
// the player holds.
func wantSeatedElsewhere(t *testing.T, what string, err error, table string, seat int) {
	t.Helper()
	i := errorInfo(err)
	if status.Code(err) != codes.FailedPrecondition || i.GetReason() != "SEATED_AT_ANOTHER_TABLE" || i.GetMetadata()["rule_id"] != "G-21" ||
		i.GetMetadata()["table_id"] != table || i.GetMetadata()["seat"] != strconv.Itoa(seat) {
		t.Fatalf("%s: %v (%v), want G-21 SEATED_AT_ANOTHER_TABLE naming seat %d at %s", what, err, i.GetMetadata(), seat, table)
	}
}

// sitDowns returns how many sittings the wallet bought.
func (w *fakeWallet) sitDowns() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.sittings)
}

func (w *fakeWallet) balanceOf(player string) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.balance[player]
}

// TestG21_OneSeatAcrossTables: a player seated at one cash table is
// refused a seat at another (G-21: a player may not hold seats in two
// games) — by the floor or with an offer, in any game — before the wallet
// is asked, so nothing moves; the seat is theirs to take once they have
// left the first table, or once it closed; a player leaving at the end of
// the hand in progress holds the seat until the hand ends and they are
// cashed out (so no one dodges CS-09/CS-10 by leaving mid-hand).
func TestG21_OneSeatAcrossTables(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, table.DBOptions(), func(t *testing.T, db *sqlstore.DB) {
		w := newFakeWallet(map[string]int64{"ann": 1000, "bob": 1000, "cat": 1000, "dan": 1000})
		e := start(t, db, clock.NewFake(t0), seededDecks(21), table.Deps{Wallet: w})
		first, second := e.open(6, -1), e.open(6, -1)
		plo, err := e.c.CreateTable(e.floor(), &tablev1.CreateTableRequest{Name: "PLO 1/2", Seats: 6, Kind: tablev1.TableKind_TABLE_KIND_CASH,
			Mode: tablev1.TableMode_TABLE_MODE_DIGITAL, ActionSeconds: -1,
			Game: &gamev1.Game{Variant: gamev1.Variant_VARIANT_OMAHA, Structure: gamev1.Structure_STRUCTURE_POT_LIMIT, Stakes: &gamev1.Stakes{SmallBlind: 1, BigBlind: 2}}})
		if err != nil {
			t.Fatal(err)
		}
		other := plo.GetTable().GetTableId()
		e.sit(first, 2, "ann", 200)

		// Refused at a table of the same game and at one of another game,
		// in a named seat and in the lowest free one: no seat, no money
		// moved, the table's sequence unchanged.
		before := e.state(second, "ann").GetSequence()
		for _, c := range []struct {
			name  string
			table string
			seat  int32
		}{{"same game", second, 1}, {"another game", other, 0}, {"lowest free seat", second, -1}} {
			_, err := e.c.Sit(e.floor(), &tablev1.SitRequest{TableId: c.table, Seat: c.seat, PlayerId: "ann", Amount: 200, IdempotencyKey: "ann-" + c.name})
			wantSeatedElsewhere(t, c.name, err, first, 2)
			st := e.state(c.table, "ann")
			for _, s := range st.GetSeats() {
				if s.GetPlayerId() != "" {
					t.Fatalf("%s: the refusal seated %v", c.name, s)
				}
			}
		}
		if got := e.state(second, "ann").GetSequence(); got != before {
			t.Fatalf("the refusals changed the table: sequence %d, was %d", got, before)
		}
		if bal := w.balanceOf("ann"); bal != 800 {
			t.Fatalf("after the refusals ann has %d, want 800", bal)
		}
		if asked := w.sitDowns(); asked != 1 {
			t.Fatalf("the wallet bought %d sittings, want 1 (the refusals come before the wallet is asked)", asked)
		}

		// Left: allowed (and now the first table refuses her).
		if _, err := e.c.Leave(e.player("ann"), &tablev1.LeaveRequest{TableId: first, Seat: 2}); err != nil {
			t.Fatal(err)
		}
		e.sit(second, 1, "ann", 200)
		_, err = e.c.Sit(e.floor(), &tablev1.SitRequest{TableId: first, Seat: 2, PlayerId: "ann", Amount: 200})
		wantSeatedElsewhere(t, "back at the first table", err, second, 1)

		// Closed: allowed.
		if _, err := e.c.CloseTable(e.floor(), &tablev1.CloseTableRequest{TableId: second}); err != nil {
			t.Fatal(err)
		}
		e.sit(other, 3, "ann", 200)

		// Leaving at the end of the hand in progress: the seat folds or
		// checks until then and is held until the player is cashed out.
		e.sit(first, 0, "bob", 200)
		e.sit(first, 1, "cat", 200)
		e.sit(first, 3, "dan", 200)
		st := e.state(first, "bob")
		if st.GetHand() == nil {
			t.Fatal("no hand dealt at the first table")
		}
		leaver, seat := "bob", int32(0)
		if playerInTurn(st) == "bob" {
			leaver, seat = "cat", 1
		}
		lv, err := e.c.Leave(e.player(leaver), &tablev1.LeaveRequest{TableId: first, Seat: seat})
		if err != nil || lv.GetLeft() {
			t.Fatalf("%s leaves during the hand: %v %v, want to leave at its end", leaver, lv, err)
		}
		_, err = e.c.Sit(e.floor(), &tablev1.SitRequest{TableId: other, Seat: 4, PlayerId: leaver, Amount: 200})
		wantSeatedElsewhere(t, leaver+" leaving mid-hand", err, first, int(seat))
		e.foldTo(first, st.GetHand().GetHandNo()+1)
		e.sit(other, 4, leaver, 200)
		if bal, escrow := w.totals(); bal+escrow != 4000 {
			t.Fatalf("wallets %d + escrow %d != 4000", bal, escrow)
		}
	})
}

// TestG21_TournamentTablesAreNotSeats: a tournament table's seats are the
// tournament's to assign; they neither hold a player under G-21 nor refuse
// one.
func TestG21_TournamentTablesAreNotSeats(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, table.DBOptions())
	e := start(t, db, clock.NewFake(t0), seededDecks(22), table.Deps{})
	cash := e.open(6, -1)
	e.sit(cash, 0, "ann", 200)
	// Seated at a tournament table while she holds a cash seat, and bob
	// the other way round.
	e.openTournament("e1", tablev1.TableMode_TABLE_MODE_DIGITAL, &gamev1.Stakes{SmallBlind: 25, BigBlind: 50}, []string{"ann", "bob"}, false, 10000)
	e.sit(cash, 1, "bob", 200)
}

// TestG21_SeatWaitingForTheWalletHoldsThePlayer: two processes (their
// own locks) run one table each; ann's seat at the first table is stored
// before the wallet is asked to buy it, and while the wallet has not
// answered, the second table refuses her (G-21) before its own wallet call:
// she holds one seat, bought once. (Two sit-downs that both pass the
// check race to their seats' transactions, where the seated-player row's
// primary key refuses the loser before any wallet call:
// TestG21_ConcurrentSitDowns.)
func TestG21_SeatWaitingForTheWalletHoldsThePlayer(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, table.DBOptions(), func(t *testing.T, db *sqlstore.DB) {
		w := newFakeWallet(map[string]int64{"ann": 1000})
		e1 := start(t, db, clock.NewFake(t0), seededDecks(23), table.Deps{Wallet: w})
		e2 := start(t, db, clock.NewFake(t0), seededDecks(24), table.Deps{Wallet: w})
		a, b := e1.open(6, -1), e2.open(6, -1)
		var once sync.Once
		w.beforeSitDown = func(in *walletv1.SitDownRequest) {
			if in.GetTableId() != a {
				return
			}
			once.Do(func() {
				_, err := e2.c.Sit(e2.floor(), &tablev1.SitRequest{TableId: b, Seat: 4, PlayerId: "ann", Amount: 300})
				wantSeatedElsewhere(t, "ann at the second table while the first buys her seat", err, a, 0)
			})
		}
		if _, err := e1.c.Sit(e1.floor(), &tablev1.SitRequest{TableId: a, Seat: 0, PlayerId: "ann", Amount: 200}); err != nil {
			t.Fatal(err)
		}
		if s := e2.state(b, "ann").GetSeats()[4]; s.GetPlayerId() != "" {
			t.Fatalf("the refused seat is taken: %v", s)
		}
		if s := e1.state(a, "ann").GetSeats()[0]; s.GetPlayerId() != "ann" || s.GetStack() != 200 {
			t.Fatalf("the first seat: %v", s)
		}
		if bal, n := w.balanceOf("ann"), w.sitDowns(); bal != 800 || n != 1 {
			t.Fatalf("ann has %d after %d sittings bought, want 800 after 1", bal, n)
		}
	})
}

// TestG21_ConcurrentSitDowns: one player sits down at eight tables run by
// two processes at once; exactly one sit-down wins, the others are refused
// with G-21, and no money is left held.
func TestG21_ConcurrentSitDowns(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, table.DBOptions(), func(t *testing.T, db *sqlstore.DB) {
		w := newFakeWallet(map[string]int64{"ann": 10000})
		envs := []*env{
			start(t, db, clock.NewFake(t0), seededDecks(25), table.Deps{Wallet: w}),
			start(t, db, clock.NewFake(t0), seededDecks(26), table.Deps{Wallet: w}),
		}
		const n = 8
		ids := make([]string, n)
		for i := range ids {
			ids[i] = envs[i%2].open(6, -1)
		}
		errs := make([]error, n)
		floors := []context.Context{envs[0].floor(), envs[1].floor()}
		var wg sync.WaitGroup
		for i, id := range ids {
			wg.Go(func() {
				e := envs[i%2]
				_, errs[i] = e.c.Sit(floors[i%2], &tablev1.SitRequest{TableId: id, Seat: 0, PlayerId: "ann", Amount: 500,
					IdempotencyKey: fmt.Sprintf("ann-%d", i)})
			})
		}
		wg.Wait()
		won := -1
		for i, err := range errs {
			if err == nil {
				if won >= 0 {
					t.Fatalf("ann sat at %s and at %s", ids[won], ids[i])
				}
				won = i
			}
		}
		if won < 0 {
			t.Fatalf("no sit-down won: %v", errs)
		}
		for i, err := range errs {
			if i != won {
				wantSeatedElsewhere(t, "a losing sit-down", err, ids[won], 0)
			}
			seated := envs[i%2].state(ids[i], "ann").GetSeats()[0].GetPlayerId() == "ann"
			if seated != (i == won) {
				t.Fatalf("table %d: ann seated %v", i, seated)
			}
		}
		if bal, n := w.balanceOf("ann"), w.sitDowns(); bal != 9500 || n != 1 {
			t.Fatalf("ann has %d after %d sittings bought, want 9500 after 1 (the losers are refused before the wallet is asked)", bal, n)
		}
	})
}
