package table_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table"
)

// tourEnv is a table service driven as the tournament service drives it.
type tourEnv struct {
	*env
	tc tablev1.TournamentTableServiceClient
}

func startTour(t *testing.T, db *sqlstore.DB, clk *clock.Fake) *tourEnv {
	t.Helper()
	e := start(t, db, clk, seededDecks(31), table.Deps{})
	return &tourEnv{env: e, tc: tablev1.NewTournamentTableServiceClient(e.g.Conn)}
}

func (e *tourEnv) svc() context.Context { return e.g.As(e.t, "cardroom-tournament", auth.Service) }

func nlhe2550() *gamev1.Game {
	return &gamev1.Game{Variant: gamev1.Variant_VARIANT_HOLDEM, Structure: gamev1.Structure_STRUCTURE_NO_LIMIT,
		Stakes: &gamev1.Stakes{SmallBlind: 25, BigBlind: 50}}
}

func (e *tourEnv) openTable(tournament string, n int, mode tablev1.TableMode) string {
	e.t.Helper()
	resp, err := e.tc.OpenTournamentTable(e.svc(), &tablev1.OpenTournamentTableRequest{IdempotencyKey: fmt.Sprintf("trn/%s/table/%d", tournament, n),
		TournamentId: tournament, Name: fmt.Sprintf("%s T%d", tournament, n), Game: nlhe2550(), Seats: 9, Mode: mode, ActionSeconds: -1})
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.GetTable().GetTableId()
}

func (e *tourEnv) seat(table, player string, seat int32, stack int64) {
	e.t.Helper()
	if _, err := e.tc.SeatEntrant(e.svc(), &tablev1.SeatEntrantRequest{TableId: table, IdempotencyKey: "seat/" + player, PlayerId: player,
		Seat: seat, Stack: stack}); err != nil {
		e.t.Fatalf("seat %s: %v", player, err)
	}
}

func (e *tourEnv) count(tournament string) *tablev1.CountTournamentChipsResponse {
	e.t.Helper()
	resp, err := e.tc.CountTournamentChips(e.svc(), &tablev1.CountTournamentChipsRequest{TournamentId: tournament})
	if err != nil {
		e.t.Fatal(err)
	}
	return resp
}

func (e *tourEnv) tournamentTable(id string) *tablev1.TournamentTableStatus {
	e.t.Helper()
	resp, err := e.tc.GetTournamentTable(e.svc(), &tablev1.GetTournamentTableRequest{TableId: id})
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.GetStatus()
}

func (e *tourEnv) reports(id string) []*tablev1.HandEnded {
	e.t.Helper()
	resp, err := e.tc.ListHandResults(e.svc(), &tablev1.ListHandResultsRequest{TableId: id})
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.GetHands()
}

// finishHand plays the hand in progress at id to its end: each player in
// turn checks when they may, otherwise folds.
func (e *env) finishHand(id string) {
	e.t.Helper()
	st := e.state(id, "nobody")
	if st.GetHand() == nil {
		e.t.Fatalf("no hand in progress at %s", id)
	}
	no := st.GetHand().GetHandNo()
	for range 100 {
		st := e.state(id, "nobody")
		if h := st.GetHand(); h == nil || h.GetHandNo() != no || h.GetDone() {
			return
		}
		who := playerInTurn(st)
		mine := e.state(id, who)
		kind := tablev1.ActionKind_ACTION_KIND_FOLD
		for _, l := range mine.GetHand().GetLegal() {
			if l.GetKind() == tablev1.ActionKind_ACTION_KIND_CHECK {
				kind = l.GetKind()
			}
		}
		if _, err := e.c.Act(e.player(who), &tablev1.ActRequest{TableId: id, Kind: kind}); err != nil {
			e.t.Fatalf("%s %v: %v", who, kind, err)
		}
	}
	e.t.Fatalf("hand %d at %s never ended", no, id)
}

// openTournament opens a tournament table of 9 seats for tournament ev
// through the tournament's controls and seats players in seats 0.. with
// stacks (the last one for the rest). With held, they are all seated before
// dealing starts (the first hand deals them all in); otherwise hands start
// as soon as two sit.
func (e *env) openTournament(ev string, mode tablev1.TableMode, stakes *gamev1.Stakes, players []string, held bool, stacks ...int64) string {
	e.t.Helper()
	tc := tablev1.NewTournamentTableServiceClient(e.g.Conn)
	svc := e.g.As(e.t, "cardroom-tournament", auth.Service)
	resp, err := tc.OpenTournamentTable(svc, &tablev1.OpenTournamentTableRequest{IdempotencyKey: "open/" + ev, TournamentId: ev,
		Name: ev + " T1", Seats: 9, Mode: mode, ActionSeconds: -1,
		Game: &gamev1.Game{Variant: gamev1.Variant_VARIANT_HOLDEM, Structure: gamev1.Structure_STRUCTURE_NO_LIMIT, Stakes: stakes}})
	if err != nil {
		e.t.Fatal(err)
	}
	id := resp.GetTable().GetTableId()
	if held {
		if _, err := tc.HoldDealing(svc, &tablev1.HoldDealingRequest{TableId: id, Hold: &tablev1.DealingHold{HoldId: "seating",
			Reason: tablev1.HoldReason_HOLD_REASON_FLOOR}}); err != nil {
			e.t.Fatal(err)
		}
	}
	for i, p := range players {
		if _, err := tc.SeatEntrant(svc, &tablev1.SeatEntrantRequest{TableId: id, IdempotencyKey: ev + "/seat/" + p, PlayerId: p,
			Seat: int32(i), Stack: stacks[min(i, len(stacks)-1)]}); err != nil {
			e.t.Fatalf("seat %s: %v", p, err)
		}
	}
	if held {
		if _, err := tc.ReleaseDealing(svc, &tablev1.ReleaseDealingRequest{TableId: id, HoldId: "seating"}); err != nil {
			e.t.Fatal(err)
		}
	}
	return id
}

func wantReason(t *testing.T, what string, err error, code codes.Code, reason, rule string) {
	t.Helper()
	i := errorInfo(err)
	if status.Code(err) != code || i.GetReason() != reason || i.GetMetadata()["rule_id"] != rule {
		t.Fatalf("%s: %v (%s %v), want %s %s %s", what, err, status.Code(err), i.GetMetadata(), code, reason, rule)
	}
}

func levelsAt(start time.Time) []*tablev1.TournamentLevel {
	return []*tablev1.TournamentLevel{
		{Level: 1, StartTime: timestamppb.New(start), Stakes: &gamev1.Stakes{SmallBlind: 25, BigBlind: 50}},
		{Level: 2, StartTime: timestamppb.New(start.Add(20 * time.Minute)), Stakes: &gamev1.Stakes{SmallBlind: 50, BigBlind: 100},
			ChipUnit: 25},
	}
}

// TestTournamentTables_SeatLevelsMove_TR06_TR20_TR23 drives two tables of
// one event as the tournament does: open, hold, seat, draw the button,
// release; a move between the tables during a hand (pending, in transit
// at the hand's end, delivered at the other table); a level change 1.8 s
// before a hand starts. Every control is idempotent, the chips counted on
// the tables plus in transit stay those issued, each hand plays the level
// in force at its start, and each report's next button and big blind are
// where the next hand puts them.
func TestTournamentTables_SeatLevelsMove_TR06_TR20_TR23(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, table.DBOptions(), func(t *testing.T, db *sqlstore.DB) {
		clk := clock.NewFake(t0)
		e := startTour(t, db, clk)
		svc := e.svc()
		const ev = "e1"
		t1, t2 := e.openTable(ev, 1, tablev1.TableMode_TABLE_MODE_DIGITAL), e.openTable(ev, 2, tablev1.TableMode_TABLE_MODE_DIGITAL)
		again, err := e.tc.OpenTournamentTable(svc, &tablev1.OpenTournamentTableRequest{IdempotencyKey: "trn/e1/table/1", TournamentId: ev,
			Name: "e1 T1", Game: nlhe2550(), Seats: 9, Mode: tablev1.TableMode_TABLE_MODE_DIGITAL})
		if err != nil || !again.GetDuplicate() || again.GetTable().GetTableId() != t1 || again.GetTable().GetTournamentId() != ev {
			t.Fatalf("opening again: %v %v", again, err)
		}
		for _, id := range []string{t1, t2} {
			if _, err := e.tc.SetLevels(svc, &tablev1.SetLevelsRequest{TableId: id, Revision: 1, Levels: levelsAt(t0)}); err != nil {
				t.Fatal(err)
			}
			if _, err := e.tc.HoldDealing(svc, &tablev1.HoldDealingRequest{TableId: id, Hold: &tablev1.DealingHold{HoldId: "seating",
				Reason: tablev1.HoldReason_HOLD_REASON_FLOOR}}); err != nil {
				t.Fatal(err)
			}
		}
		for i, p := range []string{"ann", "bob", "cat"} {
			e.seat(t1, p, int32(i), 1000)
		}
		for i, p := range []string{"dan", "eve", "fay"} {
			e.seat(t2, p, int32(i), 1000)
		}
		_, err = e.tc.SeatEntrant(svc, &tablev1.SeatEntrantRequest{TableId: t2, IdempotencyKey: "other", PlayerId: "ann", Seat: 7, Stack: 1000})
		wantReason(t, "a second seat for ann", err, codes.FailedPrecondition, "ENTRANT_SEATED_ELSEWHERE", "TR-06")
		if m := errorInfo(err).GetMetadata(); m["table_id"] != t1 || m["seat"] != "0" {
			t.Fatalf("the refusal names %v", m)
		}
		if r, err := e.tc.SeatEntrant(svc, &tablev1.SeatEntrantRequest{TableId: t1, IdempotencyKey: "seat/ann", PlayerId: "ann", Seat: 0,
			Stack: 1000}); err != nil || !r.GetDuplicate() || r.GetSeat().GetStack() != 1000 {
			t.Fatalf("seating ann again: %v %v", r, err)
		}
		_, err = e.tc.SeatEntrant(svc, &tablev1.SeatEntrantRequest{TableId: t1, IdempotencyKey: "seat/ann", PlayerId: "ann", Seat: 0, Stack: 999999})
		wantReason(t, "the key with another stack", err, codes.AlreadyExists, "IDEMPOTENCY_KEY_REUSED", "")
		_, err = e.tc.SeatEntrant(e.floor(), &tablev1.SeatEntrantRequest{TableId: t1, IdempotencyKey: "floor", PlayerId: "zed", Seat: 5, Stack: 999999})
		if status.Code(err) != codes.PermissionDenied {
			t.Fatalf("the floor seating an entrant: %v", err)
		}
		if _, err := e.tc.SetButton(svc, &tablev1.SetButtonRequest{TableId: t1, IdempotencyKey: "button/1", Seat: 1}); err != nil {
			t.Fatal(err)
		}
		if st := e.tournamentTable(t1); st.GetInHand() || st.GetDealing() || st.GetNextButton() != 1 || st.GetNextBigBlind() != 0 {
			t.Fatalf("held table %v", st)
		}
		for _, id := range []string{t1, t2} {
			if _, err := e.tc.ReleaseDealing(svc, &tablev1.ReleaseDealingRequest{TableId: id, HoldId: "seating"}); err != nil {
				t.Fatal(err)
			}
		}
		if c := e.count(ev); c.GetTotal() != 6000 || c.GetChipsInTransit() != 0 || len(c.GetTables()) != 2 {
			t.Fatalf("count %v", c)
		}

		// cat moves to table 2 during table 1's first hand.
		out := &tablev1.MoveOutRequest{TableId: t1, MoveId: "trn/e1/move/1", PlayerId: "cat", ToTableId: t2, ToSeat: 5}
		mo, err := e.tc.MoveOut(svc, out)
		if err != nil || mo.GetMove().GetState() != tablev1.MoveState_MOVE_STATE_PENDING {
			t.Fatalf("move out during a hand: %v %v", mo, err)
		}
		_, err = e.tc.MoveIn(svc, &tablev1.MoveInRequest{TableId: t2, MoveId: "trn/e1/move/1"})
		wantReason(t, "moving in before the chips left", err, codes.FailedPrecondition, "MOVE_NOT_IN_TRANSIT", "TR-23")
		if c := e.count(ev); c.GetTotal() != 6000 || c.GetChipsInTransit() != 0 {
			t.Fatalf("count with a move pending %v", c)
		}
		e.finishHand(t1)
		ms, err := e.tc.ListMoves(svc, &tablev1.ListMovesRequest{TournamentId: ev})
		if err != nil || len(ms.GetMoves()) != 1 || ms.GetMoves()[0].GetState() != tablev1.MoveState_MOVE_STATE_IN_TRANSIT {
			t.Fatalf("moves after the hand %v %v", ms, err)
		}
		inTransit := ms.GetMoves()[0].GetChips()
		if c := e.count(ev); c.GetTotal() != 6000 || c.GetChipsInTransit() != inTransit || inTransit == 0 {
			t.Fatalf("count with cat in transit (%d) %v", inTransit, c)
		}
		rep := e.reports(t1)
		if len(rep) != 1 || len(rep[0].GetMoves()) != 1 || rep[0].GetMoves()[0].GetChips() != inTransit || rep[0].GetTournamentId() != ev {
			t.Fatalf("hand 1's report %v", rep)
		}
		out.ToSeat = 6
		_, err = e.tc.MoveOut(svc, out)
		wantReason(t, "the move id for another move", err, codes.AlreadyExists, "IDEMPOTENCY_KEY_REUSED", "")
		_, err = e.tc.MoveIn(svc, &tablev1.MoveInRequest{TableId: t1, MoveId: "trn/e1/move/1"})
		wantReason(t, "moving in at the wrong table", err, codes.FailedPrecondition, "MOVE_WRONG_TABLE", "TR-23")
		for i := range 2 {
			mi, err := e.tc.MoveIn(svc, &tablev1.MoveInRequest{TableId: t2, MoveId: "trn/e1/move/1"})
			if err != nil || mi.GetMove().GetState() != tablev1.MoveState_MOVE_STATE_DELIVERED || mi.GetDuplicate() != (i == 1) {
				t.Fatalf("move in (%d): %v %v", i, mi, err)
			}
		}
		st := e.tournamentTable(t2)
		if s := st.GetSeats()[5]; s.GetPlayerId() != "cat" || s.GetStack() != inTransit {
			t.Fatalf("cat at table 2: %v", s)
		}
		if c := e.count(ev); c.GetTotal() != 6000 || c.GetChipsInTransit() != 0 {
			t.Fatalf("count after the move %v", c)
		}
		_, err = e.tc.SeatEntrant(svc, &tablev1.SeatEntrantRequest{TableId: t1, IdempotencyKey: "cat-again", PlayerId: "cat", Seat: 2, Stack: 1000})
		wantReason(t, "seating a moved entrant again", err, codes.FailedPrecondition, "ENTRANT_SEATED_ELSEWHERE", "TR-06")

		// Level 2 starts while table 1 plays a hand; the next hand starts
		// 1.8 s into it.
		e.finishHand(t2)
		clk.Advance(20*time.Minute - time.Second)
		e.finishHand(t1) // started in level 1
		clk.Advance(time.Second + 1800*time.Millisecond)
		e.finishHand(t1) // started in level 1 at the previous hand's end
		e.finishHand(t1) // started 1.8 s into level 2
		e.finishHand(t2)
		for _, id := range []string{t1, t2} {
			reps := e.reports(id)
			for i, r := range reps {
				want, bb := int32(1), int64(50)
				if !r.GetStartTime().AsTime().Before(t0.Add(20 * time.Minute)) {
					want, bb = 2, 100
				}
				if r.GetLevel() != want || r.GetStakes().GetBigBlind() != bb {
					t.Fatalf("%s hand %d started %s: level %d stakes %v", id, r.GetHandNo(), r.GetStartTime().AsTime(), r.GetLevel(), r.GetStakes())
				}
				for _, p := range r.GetPosts() {
					if p.GetKind() == "big_blind" && p.GetAmount() != bb {
						t.Fatalf("%s hand %d posted a big blind of %d in level %d", id, r.GetHandNo(), p.GetAmount(), want)
					}
				}
				if i > 0 && (reps[i-1].GetNextButton() != r.GetButton() || reps[i-1].GetNextBigBlind() != r.GetBigBlindSeat()) {
					t.Fatalf("%s hand %d: button %d big blind %d, the hand before said %d and %d", id, r.GetHandNo(), r.GetButton(),
						r.GetBigBlindSeat(), reps[i-1].GetNextButton(), reps[i-1].GetNextBigBlind())
				}
			}
			if len(reps) < 2 {
				t.Fatalf("%s: %d reports", id, len(reps))
			}
		}
		if e.reports(t1)[len(e.reports(t1))-1].GetLevel() != 2 {
			t.Fatal("no hand of level 2 at table 1")
		}
		if c := e.count(ev); c.GetTotal() != 6000 {
			t.Fatalf("count at the end %v", c)
		}
	})
}

// TestTournamentTables_LevelOneAndBreakDealByTheClock_G07: a table given
// a schedule deals nothing before level 1 nor in a break, and deals by
// itself when the next level starts.
func TestTournamentTables_LevelOneAndBreakDealByTheClock_G07(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, table.DBOptions())
	clk := clock.NewFake(t0)
	e := startTour(t, db, clk)
	id := e.openTable("e2", 1, tablev1.TableMode_TABLE_MODE_DIGITAL)
	start := t0.Add(time.Minute)
	levels := []*tablev1.TournamentLevel{
		{Level: 1, StartTime: timestamppb.New(start), Stakes: &gamev1.Stakes{SmallBlind: 25, BigBlind: 50}},
		{Level: 2, StartTime: timestamppb.New(start.Add(time.Hour)), IsBreak: true},
		{Level: 3, StartTime: timestamppb.New(start.Add(75 * time.Minute)), Stakes: &gamev1.Stakes{SmallBlind: 50, BigBlind: 100}},
	}
	if _, err := e.tc.SetLevels(e.svc(), &tablev1.SetLevelsRequest{TableId: id, Revision: 1, Levels: levels}); err != nil {
		t.Fatal(err)
	}
	e.seat(id, "ann", 0, 5000)
	e.seat(id, "bob", 1, 5000)
	if st := e.tournamentTable(id); st.GetInHand() || st.GetDealing() {
		t.Fatalf("deals before level 1: %v", st)
	}
	clk.Advance(time.Minute)
	testkit.Eventually(t, 5*time.Second, func() error {
		if st := e.tournamentTable(id); !st.GetInHand() || st.GetLevel() != 1 {
			return fmt.Errorf("no hand of level 1: %v", st)
		}
		return nil
	})
	clk.Advance(time.Hour)
	e.finishHand(id) // started in level 1, ends in the break
	if st := e.tournamentTable(id); st.GetInHand() || !st.GetOnBreak() || st.GetDealing() {
		t.Fatalf("in the break: %v", st)
	}
	clk.Advance(15 * time.Minute)
	testkit.Eventually(t, 5*time.Second, func() error {
		if st := e.tournamentTable(id); !st.GetInHand() || st.GetLevel() != 3 {
			return fmt.Errorf("no hand after the break: %v", st)
		}
		return nil
	})
}

// TestTournamentTables_PenaltyStacksRemoval_TR14_TR33_TR34 drives the
// seat controls: a rebuy (keyed), a missed-hand penalty, a kill, removals.
func TestTournamentTables_PenaltyStacksRemoval_TR14_TR33_TR34(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, table.DBOptions(), func(t *testing.T, db *sqlstore.DB) {
		e := startTour(t, db, clock.NewFake(t0))
		svc := e.svc()
		id := e.openTable("e3", 1, tablev1.TableMode_TABLE_MODE_DIGITAL)
		hold := &tablev1.HoldDealingRequest{TableId: id, Hold: &tablev1.DealingHold{HoldId: "start", Reason: tablev1.HoldReason_HOLD_REASON_FLOOR}}
		if _, err := e.tc.HoldDealing(svc, hold); err != nil {
			t.Fatal(err)
		}
		for i, p := range []string{"ann", "bob", "cat"} {
			e.seat(id, p, int32(i), 1000)
		}
		if _, err := e.tc.ReleaseDealing(svc, &tablev1.ReleaseDealingRequest{TableId: id, HoldId: "start"}); err != nil {
			t.Fatal(err)
		}
		st := e.tournamentTable(id)
		if !st.GetInHand() {
			t.Fatalf("no hand: %v", st)
		}
		for i := range 2 {
			r, err := e.tc.AdjustStack(svc, &tablev1.AdjustStackRequest{TableId: id, IdempotencyKey: "trn/e3/ann/add-on", PlayerId: "ann",
				Amount: 2000, Change: tablev1.StackChange_STACK_CHANGE_ADD_ON})
			if err != nil || r.GetDuplicate() != (i == 1) || r.GetSeat().GetPendingChips() != 2000 {
				t.Fatalf("add-on (%d): %v %v", i, r, err)
			}
		}
		if c := e.count("e3"); c.GetTotal() != 5000 {
			t.Fatalf("count with an add-on pending %v", c)
		}
		_, err := e.tc.RemoveEntrant(svc, &tablev1.RemoveEntrantRequest{TableId: id, IdempotencyKey: "out/bob", PlayerId: "bob",
			Reason: tablev1.RemovalReason_REMOVAL_REASON_BUSTED})
		wantReason(t, "bob out as busted with chips", err, codes.FailedPrecondition, "ENTRANT_HAS_CHIPS", "")
		hand := st.GetHandNo()
		k, err := e.tc.KillEntrantHand(svc, &tablev1.KillEntrantHandRequest{TableId: id, IdempotencyKey: "kill/1", PlayerId: "bob", HandNo: hand})
		if err != nil || k.GetStatus().GetHandNo() != hand {
			t.Fatalf("kill: %v %v", k, err)
		}
		_, err = e.tc.KillEntrantHand(svc, &tablev1.KillEntrantHandRequest{TableId: id, IdempotencyKey: "kill/2", PlayerId: "cat", HandNo: hand + 5})
		wantReason(t, "a kill for another hand", err, codes.FailedPrecondition, "NO_HAND_IN_PROGRESS", "")
		if _, err := e.tc.SetAbsence(svc, &tablev1.SetAbsenceRequest{TableId: id, IdempotencyKey: "pen/1", PlayerId: "cat", MissedHands: 3}); err != nil {
			t.Fatal(err)
		}
		dq, err := e.tc.RemoveEntrant(svc, &tablev1.RemoveEntrantRequest{TableId: id, IdempotencyKey: "out/ann", PlayerId: "ann",
			Reason: tablev1.RemovalReason_REMOVAL_REASON_DISQUALIFIED})
		if err != nil || dq.GetRemoved() {
			t.Fatalf("ann disqualified during her hand: %v %v", dq, err)
		}
		if st := e.tournamentTable(id); !st.GetInHand() {
			e.t.Fatalf("the hand is over already: %v", st)
		}
		e.finishHand(id)
		rep := e.reports(id)
		first := rep[0]
		if first.GetHandNo() != hand || len(first.GetRemoved()) != 1 || first.GetRemoved()[0].GetPlayerId() != "ann" ||
			first.GetRemoved()[0].GetChipsRemoved() < 2000 {
			t.Fatalf("removals at the hand's end %v (%v)", first.GetRemoved(), rep)
		}
		removed := first.GetRemoved()[0].GetChipsRemoved()
		if c := e.count("e3"); c.GetTotal()+removed != 5000 {
			t.Fatalf("count %d + removed %d, issued 5000", c.GetTotal(), removed)
		}
		// TR-34: a repeat of the removal (its first answer lost) answers
		// the removal as it was made, at the hand's end: removed, with
		// the chips that left play, each time.
		for i := range 2 {
			again, err := e.tc.RemoveEntrant(svc, &tablev1.RemoveEntrantRequest{TableId: id, IdempotencyKey: "out/ann", PlayerId: "ann",
				Reason: tablev1.RemovalReason_REMOVAL_REASON_DISQUALIFIED})
			if err != nil || !again.GetDuplicate() || !again.GetRemoved() || again.GetChipsRemoved() != removed {
				t.Fatalf("repeat %d of ann's removal: %v %v, want removed with %d chips", i, again, err, removed)
			}
		}
		// cat's three missed hands: dealt dead heads-up, each over as it
		// is dealt (TR-33, TP-57), the blinds posted.
		if len(rep) < 4 {
			t.Fatalf("%d reports: %v", len(rep), rep)
		}
		for i, r := range rep[1:4] {
			var cat *tablev1.SeatStack
			for _, s := range r.GetStacks() {
				if s.GetPlayerId() == "cat" {
					cat = s
				}
			}
			if cat.GetMissedHands() != int32(2-i) || cat.GetStack() >= cat.GetStartStack() {
				t.Fatalf("hand %d of cat's penalty: %v", r.GetHandNo(), cat)
			}
		}
	})
}

// TestTournamentTables_LiveArrivalConfirmedByTheDealer_TR23: at a live
// table the moved player's seat is held, not dealt in, and the chips count
// in transit until the dealer confirms the player sat down with them.
func TestTournamentTables_LiveArrivalConfirmedByTheDealer_TR23(t *testing.T) {
	t.Parallel()
	e := startTour(t, testkit.SQLite(t, table.DBOptions()), clock.NewFake(t0))
	svc := e.svc()
	a := e.openTable("e4", 1, tablev1.TableMode_TABLE_MODE_DIGITAL)
	b := e.openTable("e4", 2, tablev1.TableMode_TABLE_MODE_LIVE)
	for _, id := range []string{a, b} {
		if _, err := e.tc.HoldDealing(svc, &tablev1.HoldDealingRequest{TableId: id, Hold: &tablev1.DealingHold{HoldId: "x",
			Reason: tablev1.HoldReason_HOLD_REASON_FLOOR}}); err != nil {
			t.Fatal(err)
		}
	}
	e.seat(a, "ann", 0, 700)
	e.seat(b, "bob", 0, 1000)
	e.seat(b, "cat", 1, 1000)
	if _, err := e.tc.MoveOut(svc, &tablev1.MoveOutRequest{TableId: a, MoveId: "mv", PlayerId: "ann", ToTableId: b, ToSeat: 4}); err != nil {
		t.Fatal(err)
	}
	mi, err := e.tc.MoveIn(svc, &tablev1.MoveInRequest{TableId: b, MoveId: "mv"})
	if err != nil || mi.GetMove().GetState() != tablev1.MoveState_MOVE_STATE_ARRIVING {
		t.Fatalf("move in at a live table: %v %v", mi, err)
	}
	if c := e.count("e4"); c.GetTotal() != 2700 || c.GetChipsInTransit() != 700 {
		t.Fatalf("count with ann arriving %v", c)
	}
	_, err = e.tc.CloseTournamentTable(svc, &tablev1.CloseTournamentTableRequest{TableId: a})
	if err != nil {
		t.Fatalf("closing the empty table: %v", err)
	}
	_, err = e.c.ConfirmArrival(e.player("ann"), &tablev1.ConfirmArrivalRequest{TableId: b, Seat: 4, MoveId: "mv"})
	if status.Code(err) != codes.PermissionDenied {
		t.Fatalf("a player confirming: %v", err)
	}
	dealer := e.g.As(t, "dealer-1", auth.Dealer)
	// The console's state shows the seat held for ann, with no chips yet.
	st, err := e.c.GetTableState(dealer, &tablev1.GetTableStateRequest{TableId: b})
	if s := st.GetState().GetSeats()[4]; err != nil || !s.GetArriving() || s.GetMoveId() != "mv" || s.GetPlayerId() != "ann" || s.GetStack() != 0 {
		t.Fatalf("the held seat on the console: %v %v", s, err)
	}
	_, err = e.c.ConfirmArrival(dealer, &tablev1.ConfirmArrivalRequest{TableId: b, Seat: 3})
	wantReason(t, "confirming an empty seat", err, codes.FailedPrecondition, "NOT_ARRIVING", "TR-23")
	resp, err := e.c.ConfirmArrival(dealer, &tablev1.ConfirmArrivalRequest{TableId: b, Seat: 4, MoveId: "mv"})
	if err != nil || resp.GetState().GetSeats()[4].GetStack() != 700 {
		t.Fatalf("confirm: %v %v", resp, err)
	}
	ms, err := e.tc.ListMoves(svc, &tablev1.ListMovesRequest{TournamentId: "e4", States: []tablev1.MoveState{tablev1.MoveState_MOVE_STATE_DELIVERED}})
	if err != nil || len(ms.GetMoves()) != 1 || ms.GetMoves()[0].GetChips() != 700 {
		t.Fatalf("delivered moves %v %v", ms, err)
	}
	if c := e.count("e4"); c.GetTotal() != 2700 || c.GetChipsInTransit() != 0 {
		t.Fatalf("count after the arrival %v", c)
	}
	_, err = e.tc.CloseTournamentTable(svc, &tablev1.CloseTournamentTableRequest{TableId: b})
	wantReason(t, "closing a table with entrants", err, codes.FailedPrecondition, "TABLE_NOT_EMPTY", "")
}

// TestTournamentTables_RefusedAtCashTables: the controls are for
// tournament tables only.
func TestTournamentTables_RefusedAtCashTables(t *testing.T) {
	t.Parallel()
	e := startTour(t, testkit.SQLite(t, table.DBOptions()), clock.NewFake(t0))
	id := e.open(6, -1)
	_, err := e.tc.SeatEntrant(e.svc(), &tablev1.SeatEntrantRequest{TableId: id, IdempotencyKey: "k", PlayerId: "ann", Seat: 0, Stack: 100})
	wantReason(t, "seating an entrant at a cash table", err, codes.FailedPrecondition, "NOT_A_TOURNAMENT_TABLE", "")
	_, err = e.tc.HoldDealing(e.svc(), &tablev1.HoldDealingRequest{TableId: id, Hold: &tablev1.DealingHold{HoldId: "h",
		Reason: tablev1.HoldReason_HOLD_REASON_FLOOR}})
	wantReason(t, "holding a cash table", err, codes.FailedPrecondition, "NOT_A_TOURNAMENT_TABLE", "")
	_, err = e.tc.ListHandResults(e.svc(), &tablev1.ListHandResultsRequest{TableId: id})
	wantReason(t, "a cash table's reports", err, codes.FailedPrecondition, "NOT_A_TOURNAMENT_TABLE", "")
}

// TestTournamentTables_ConsoleFeed_TR20_TR23_TR33: a live tournament
// table's dealer watches the console feed: the tournament's controls show
// there as they apply — the seating, a hold and its release, the level a
// hand starts in, a penalty and when it is served, a player arriving from
// another table with the slip and confirmed, a player leaving for another
// table when the hand ends.
func TestTournamentTables_ConsoleFeed_TR20_TR23_TR33(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(t0)
	e := startTour(t, testkit.SQLite(t, table.DBOptions()), clk)
	svc := e.svc()
	a := e.openTable("e5", 1, tablev1.TableMode_TABLE_MODE_DIGITAL)
	b := e.openTable("e5", 2, tablev1.TableMode_TABLE_MODE_LIVE)
	feed, stop := watch(e.g.As(t, "dealer-1", auth.Dealer), t, e.c, b)
	defer stop()
	for _, id := range []string{a, b} {
		if _, err := e.tc.SetLevels(svc, &tablev1.SetLevelsRequest{TableId: id, Revision: 1, Levels: levelsAt(t0)}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.tc.HoldDealing(svc, &tablev1.HoldDealingRequest{TableId: id, Hold: &tablev1.DealingHold{HoldId: "seating",
			Reason: tablev1.HoldReason_HOLD_REASON_FLOOR, Note: "seat draw"}}); err != nil {
			t.Fatal(err)
		}
	}
	e.seat(a, "ann", 0, 700)
	e.seat(b, "bob", 0, 1000)
	e.seat(b, "cat", 1, 1000)
	e.seat(b, "dan", 2, 1000)
	if _, err := e.tc.SetAbsence(svc, &tablev1.SetAbsenceRequest{TableId: b, IdempotencyKey: "pen", PlayerId: "dan", MissedHands: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.tc.MoveOut(svc, &tablev1.MoveOutRequest{TableId: a, MoveId: "mv1", PlayerId: "ann", ToTableId: b, ToSeat: 4}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.tc.MoveIn(svc, &tablev1.MoveInRequest{TableId: b, MoveId: "mv1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.ConfirmArrival(e.g.As(t, "dealer-1", auth.Dealer), &tablev1.ConfirmArrivalRequest{TableId: b, Seat: 4}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.tc.ReleaseDealing(svc, &tablev1.ReleaseDealingRequest{TableId: b, HoldId: "seating"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.tc.MoveOut(svc, &tablev1.MoveOutRequest{TableId: b, MoveId: "mv2", PlayerId: "cat", ToTableId: a, ToSeat: 3}); err != nil {
		t.Fatal(err)
	}
	want := []struct{ kind, player, rule, detail string }{
		{"hold", "", "TR-02", "floor: seat draw"},
		{"seated", "bob", "TR-06", ""},
		{"penalty", "dan", "TR-33", "misses 1 hands"},
		{"arriving", "ann", "TR-23", "from e5 T1, seat 0"},
		{"arrived", "ann", "TR-23", "from e5 T1, seat 0"},
		{"release", "", "TR-02", "floor"},
		{"level", "", "TR-20", "level 1: 25/50"},
		{"penalty_served", "dan", "TR-33", ""},
		{"move_ordered", "cat", "TR-23", "to e5 T1, seat 3"},
	}
	testkit.Eventually(t, 5*time.Second, func() error {
		var got []*tablev1.TableEvent
		for _, m := range feed() {
			got = append(got, m.GetEvents()...)
		}
		next := 0
		for _, ev := range got {
			w := want[next]
			if ev.GetKind() == w.kind && ev.GetPlayerId() == w.player && ev.GetRule() == w.rule && strings.Contains(ev.GetDetail(), w.detail) {
				if next++; next == len(want) {
					return nil
				}
			}
		}
		return fmt.Errorf("the dealer's feed has not shown %+v yet (%d of %d)", want[next], next, len(want))
	})
}

// TestTournamentTables_ConsoleToldOfALevelWhenTheClockTurns_TR20: the
// clock turns to level 2 during a hand. The dealer's console (a live
// table) and a digital table's feed say so at once — "level 2: 50/100,
// from the next hand" — while the hand plays on at level 1, instead of
// only when the next hand starts; that hand plays level 2 and does not
// announce it again.
func TestTournamentTables_ConsoleToldOfALevelWhenTheClockTurns_TR20(t *testing.T) {
	t.Parallel()
	for _, mode := range []tablev1.TableMode{tablev1.TableMode_TABLE_MODE_LIVE, tablev1.TableMode_TABLE_MODE_DIGITAL} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			clk := clock.NewFake(t0)
			e := startTour(t, testkit.SQLite(t, table.DBOptions()), clk)
			id := e.openTable("e9", 1, mode)
			feed, stop := watch(e.g.As(t, "dealer-1", auth.Dealer), t, e.c, id)
			defer stop()
			if _, err := e.tc.SetLevels(e.svc(), &tablev1.SetLevelsRequest{TableId: id, Revision: 1, Levels: levelsAt(t0)}); err != nil {
				t.Fatal(err)
			}
			e.seat(id, "ann", 0, 5000)
			e.seat(id, "bob", 1, 5000)
			levels := func() []string {
				var out []string
				for _, m := range feed() {
					for _, ev := range m.GetEvents() {
						if ev.GetKind() == "level" {
							out = append(out, ev.GetDetail())
						}
					}
				}
				return out
			}
			testkit.Eventually(t, 5*time.Second, func() error {
				if st := e.tournamentTable(id); !st.GetInHand() || st.GetLevel() != 1 || len(levels()) != 1 {
					return fmt.Errorf("no hand of level 1 announced: %v, %q", st, levels())
				}
				return nil
			})
			clk.Advance(20 * time.Minute)
			want := []string{"level 1: 25/50", "level 2: 50/100, from the next hand"}
			testkit.Eventually(t, 5*time.Second, func() error {
				if got := levels(); !slices.Equal(got, want) {
					return fmt.Errorf("TR-20: the feed tells the levels %q, want %q", got, want)
				}
				return nil
			})
			if st := e.tournamentTable(id); !st.GetInHand() || st.GetHandNo() != 1 {
				t.Fatalf("TR-20: hand 1 did not play on: %v", st)
			}
			if mode != tablev1.TableMode_TABLE_MODE_DIGITAL {
				return
			}
			e.finishHand(id)
			testkit.Eventually(t, 5*time.Second, func() error {
				if st := e.tournamentTable(id); !st.GetInHand() || st.GetHandNo() != 2 {
					return fmt.Errorf("no hand 2: %v", st)
				}
				return nil
			})
			e.finishHand(id)
			testkit.Eventually(t, 5*time.Second, func() error {
				rs := e.reports(id)
				if len(rs) < 2 || rs[0].GetLevel() != 1 || rs[1].GetLevel() != 2 {
					return fmt.Errorf("TR-20: hands 1 and 2 played levels %v, want 1 and 2", rs)
				}
				return nil
			})
			if got := levels(); !slices.Equal(got, want) {
				t.Fatalf("TR-20: level 2 announced again at its first hand: %q", got)
			}
		})
	}
}
