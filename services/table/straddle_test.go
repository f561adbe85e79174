package table_test

import (
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/testkit"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table"
)

// foldTo folds (or checks, when nothing is bet) whoever is in turn until
// hand n is in progress.
func (e *env) foldTo(id string, n int64) *tablev1.TableState {
	e.t.Helper()
	for {
		st := e.state(id, "ann")
		if st.GetHand().GetHandNo() >= n {
			return st
		}
		who := playerInTurn(st)
		kind := tablev1.ActionKind_ACTION_KIND_FOLD
		for _, l := range e.state(id, who).GetHand().GetLegal() {
			if l.GetKind() == tablev1.ActionKind_ACTION_KIND_CHECK {
				kind = l.GetKind()
			}
		}
		if _, err := e.c.Act(e.player(who), &tablev1.ActRequest{TableId: id, Kind: kind}); err != nil {
			e.t.Fatal(err)
		}
	}
}

// TestPlay_Straddle_TP20_G12 asks for a straddle over gRPC during a hand
// and sees the next hand dealt with it.
func TestPlay_Straddle_TP20_G12(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, table.DBOptions())
	e := start(t, db, clock.NewFake(t0), seededDecks(20), table.Deps{})
	id := e.open(6, -1)
	players := []string{"ann", "bob", "cat", "dan"}
	for i, p := range players {
		e.sit(id, int32(i), p, 200)
	}
	// Hands 1 and 2 seat everyone in the rotation; in hand 3 four players
	// are in and the blinds move one seat a hand, so the seat after hand
	// 4's big blind is hand 3's button.
	st := e.foldTo(id, 3)
	seat := st.GetHand().GetButton()
	straddler := players[seat]
	other := players[(seat+1)%4]
	_, err := e.c.Straddle(e.player(other), &tablev1.StraddleRequest{TableId: id, Seat: seat})
	if r, _ := reason(err); status.Code(err) != codes.PermissionDenied || r != "NOT_YOUR_SEAT" {
		t.Fatalf("%s asked for %s's seat: %v", other, straddler, err)
	}
	resp, err := e.c.Straddle(e.player(straddler), &tablev1.StraddleRequest{TableId: id, Seat: seat})
	if err != nil || !resp.GetSeat().GetStraddle() {
		t.Fatalf("TP-20: %s asked to straddle: %v, %v", straddler, resp, err)
	}
	st = e.foldTo(id, 4)
	s := st.GetSeats()[seat]
	if s.GetBet() != 4 || s.GetStraddle() {
		t.Fatalf("TP-20: hand 4 seat %d: bet %d (want a straddle of 2×BB = 4), request still standing %v", seat, s.GetBet(), s.GetStraddle())
	}
	first := (seat + 1) % 4
	if st.GetHand().GetToAct() != first {
		t.Fatalf("TP-20: seat %d acts first, want %d (left of the straddler)", st.GetHand().GetToAct(), first)
	}
	// G-12: the straddle sizes raises like the big blind.
	var minRaise int64
	for _, l := range e.state(id, players[first]).GetHand().GetLegal() {
		if l.GetKind() == tablev1.ActionKind_ACTION_KIND_RAISE {
			minRaise = l.GetMin()
		}
	}
	if minRaise != 8 {
		t.Fatalf("G-12: first raise at least %d, want 8", minRaise)
	}
}

func TestPlay_Straddle_RefusedOnTournamentTables_TP20(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, table.DBOptions())
	e := start(t, db, clock.NewFake(t0), seededDecks(21), table.Deps{})
	id := e.openTournament("e1", tablev1.TableMode_TABLE_MODE_DIGITAL, &gamev1.Stakes{SmallBlind: 25, BigBlind: 50},
		[]string{"ann", "bob", "cat"}, false, 10000)
	_, err := e.c.Straddle(e.player("cat"), &tablev1.StraddleRequest{TableId: id, Seat: 2})
	if r, rule := reason(err); status.Code(err) != codes.FailedPrecondition || r != "STRADDLE_NOT_ALLOWED" || rule != "TP-20" {
		t.Fatalf("TP-20: straddle at a tournament table: %v (%s %s)", err, r, rule)
	}
}
