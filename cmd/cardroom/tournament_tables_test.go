package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/rpc"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
)

// grpcAddr is the gRPC address the suite's process listens on.
func (s *suite) grpcAddr() string {
	for _, kv := range s.env {
		if v, ok := strings.CutPrefix(kv, "CARDROOM_GRPC_ADDR="); ok {
			return v
		}
	}
	s.t.Fatal("the suite has no CARDROOM_GRPC_ADDR")
	return ""
}

// tournamentTables dials addr as the tournament service would: its
// controls of the tables are gRPC only, for the service role.
func tournamentTables(t *testing.T, addr, serviceToken string) (tablev1.TournamentTableServiceClient, context.Context) {
	t.Helper()
	conn, err := rpc.Dial(addr, rpc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return tablev1.NewTournamentTableServiceClient(conn), auth.WithToken(t.Context(), serviceToken)
}

// openTournamentTable opens a digital tournament table of tournament ev
// and seats players in seats 0.. with stack each, all before the first
// hand (a hold while seating).
func openTournamentTable(ctx context.Context, t *testing.T, tc tablev1.TournamentTableServiceClient, ev string, game *gamev1.Game,
	players []string, stack int64) string {
	t.Helper()
	resp, err := tc.OpenTournamentTable(ctx, &tablev1.OpenTournamentTableRequest{IdempotencyKey: "trn/" + ev + "/table/1", TournamentId: ev,
		Name: ev + " T1", Game: game, Seats: 9, Mode: tablev1.TableMode_TABLE_MODE_DIGITAL, ActionSeconds: -1})
	if err != nil {
		t.Fatal(err)
	}
	id := resp.GetTable().GetTableId()
	if _, err := tc.HoldDealing(ctx, &tablev1.HoldDealingRequest{TableId: id, Hold: &tablev1.DealingHold{HoldId: "seating",
		Reason: tablev1.HoldReason_HOLD_REASON_FLOOR}}); err != nil {
		t.Fatal(err)
	}
	for i, p := range players {
		if _, err := tc.SeatEntrant(ctx, &tablev1.SeatEntrantRequest{TableId: id, IdempotencyKey: fmt.Sprintf("trn/%s/seat/%s", ev, p),
			PlayerId: p, Seat: int32(i), Stack: stack}); err != nil {
			t.Fatalf("seat %s: %v", p, err)
		}
	}
	if _, err := tc.ReleaseDealing(ctx, &tablev1.ReleaseDealingRequest{TableId: id, HoldId: "seating"}); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestTournamentTablesAreLocked_TR06_TR10_TR23_TR33_TR35: at a tournament
// table only the tournament seats, tops up or removes players. Over REST a
// player's top-up (TR-10), the floor seating someone (TR-06), a leave by
// the floor or the player (TR-35), the floor closing the table (TR-23),
// the floor opening a tournament table of its own, and a penalised
// player's return (TR-33) are refused with their reason and rule; the
// stacks do not move. The tournament's controls are not on the gateway.
func TestTournamentTablesAreLocked_TR06_TR10_TR23_TR33_TR35(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	s := newSuite(t)
	s.start()
	r := newRoom(t, s, "ann", "bob", "cal")
	tc, svc := tournamentTables(t, s.grpcAddr(), s.token("cardroom-tournament", "service"))
	id := openTournamentTable(svc, t, tc, "e1", nlhe50100Proto(), []string{"ann", "bob"}, 5000)
	if _, err := tc.SetAbsence(svc, &tablev1.SetAbsenceRequest{TableId: id, IdempotencyKey: "trn/e1/penalty/1", PlayerId: "bob",
		MissedHands: 4}); err != nil {
		t.Fatal(err)
	}
	chips := func() int64 {
		var n int64
		for _, seat := range r.state(id, r.floor).Seats {
			n += seat.Stack + seat.Pending + seat.Bet
		}
		if st := r.state(id, r.floor); st.Hand != nil && !st.Hand.Done {
			var bets int64
			for _, seat := range st.Seats {
				bets += seat.Bet
			}
			n += st.Hand.Pot - bets
		}
		return n
	}
	before := chips()
	for _, c := range []struct {
		what, method, path, token string
		body                      map[string]any
		rule                      string
	}{
		{"ann's top-up", "POST", "/v1/tables/" + id + "/top-ups", r.tokens["ann"], map[string]any{"amount": 100000, "idempotency_key": "k1"}, "TR-10"},
		{"the floor's top-up", "POST", "/v1/tables/" + id + "/top-ups", r.floor, map[string]any{"player_id": "ann", "amount": 999999, "idempotency_key": "k2"}, "TR-10"},
		{"the floor seating cal", "POST", "/v1/tables/" + id + "/seats", r.floor, map[string]any{"seat": 5, "player_id": "cal", "amount": 999999}, "TR-06"},
		{"the floor seating ann again", "POST", "/v1/tables/" + id + "/seats", r.floor, map[string]any{"seat": 6, "player_id": "ann", "amount": 5000}, "TR-06"},
		{"ann leaving", "POST", "/v1/tables/" + id + "/seats/0:leave", r.tokens["ann"], map[string]any{}, "TR-35"},
		{"the floor taking bob away", "POST", "/v1/tables/" + id + "/seats/1:leave", r.floor, map[string]any{}, "TR-35"},
		{"the floor closing the table", "POST", "/v1/tables/" + id + ":close", r.floor, map[string]any{}, "TR-23"},
		{"bob returning from a penalty", "POST", "/v1/tables/" + id + "/seats/1:return", r.tokens["bob"], map[string]any{"post_now": true}, "TR-33"},
	} {
		code, e := r.refused(c.method, c.path, c.token, c.body)
		want := "TOURNAMENT_TABLE_LOCKED"
		if c.rule == "TR-33" {
			want = "PENALTY_IN_FORCE"
		}
		if code != http.StatusBadRequest || e.Reason != want || e.RuleID != c.rule {
			t.Errorf("%s: %d %+v, want 400 %s %s", c.what, code, e, want, c.rule)
		}
	}
	code, e := r.refused("POST", "/v1/tables", r.floor, map[string]any{"name": "My own T9", "seats": 9, "kind": "TABLE_KIND_TOURNAMENT",
		"mode": "TABLE_MODE_DIGITAL", "game": nlhe50100})
	if code != http.StatusBadRequest || e.Reason != "TOURNAMENT_TABLE_LOCKED" {
		t.Errorf("the floor opening a tournament table: %d %+v", code, e)
	}
	if got := chips(); got != before || got != 10000 {
		t.Fatalf("chips at the table %d after the refusals, %d before, 10000 issued", got, before)
	}
	st := r.state(id, r.floor)
	if st.seatOf("cal") >= 0 || st.seatOf("ann") != 0 || st.seatOf("bob") != 1 {
		t.Fatalf("seats after the refusals %+v", st.Seats)
	}
	// The controls are for services calling gRPC: the gateway has no route.
	if code, _ := r.do("POST", "/v1/tables/"+id+"/entrants", r.floor, map[string]any{"player_id": "cal"}); code != http.StatusNotFound {
		t.Errorf("a REST route to seat an entrant: %d", code)
	}
}

func nlhe50100Proto() *gamev1.Game {
	return &gamev1.Game{Variant: gamev1.Variant_VARIANT_HOLDEM, Structure: gamev1.Structure_STRUCTURE_NO_LIMIT,
		Stakes: &gamev1.Stakes{SmallBlind: 50, BigBlind: 100}}
}
