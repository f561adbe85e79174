package server_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cardroom/cardroom/platform/auth"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
)

// running creates a tournament with players registered and starts it.
func (f *fixture) running(t *testing.T, players []string, edit func(*tournamentv1.CreateTournamentRequest)) string {
	t.Helper()
	id := f.create(t, func(r *tournamentv1.CreateTournamentRequest) {
		r.StartTime = timestamppb.New(f.clk.Now().Add(time.Hour))
		if edit != nil {
			edit(r)
		}
	})
	for _, p := range players {
		f.register(t, id, p)
	}
	f.clk.Advance(time.Hour)
	if _, err := f.c.StartTournament(f.floor, &tournamentv1.StartTournamentRequest{TournamentId: id}); err != nil {
		t.Fatal(err)
	}
	return id
}

func balances(players ...string) map[string]int64 {
	m := map[string]int64{}
	for _, p := range players {
		m[p] = 100000
	}
	return m
}

func places(fs []*tournamentv1.Finish) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s:%d/%d", f.GetPlayerId(), f.GetPlace(), f.GetShared()))
	}
	return out
}

func TestKnockoutsAndPrizes_TR37_TR36(t *testing.T) {
	t.Parallel()
	players := []string{"a", "b", "c", "d", "e", "f", "g"}
	w := newFakeWallet(balances(players...))
	f := startWithWallet(t, w)
	id := f.running(t, players, nil)
	svc := f.g.As(t, "table-svc", auth.Service)
	ko := func(kos ...*tournamentv1.Knockout) *tournamentv1.RecordKnockoutsResponse {
		t.Helper()
		resp, err := f.c.RecordKnockouts(svc, &tournamentv1.RecordKnockoutsRequest{TournamentId: id, Knockouts: kos})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	// TR-37 same hand, same table: the bigger starting stack finishes higher.
	r := ko(&tournamentv1.Knockout{PlayerId: "g", Table: 1, Hand: 10, StartStack: 500}, &tournamentv1.Knockout{PlayerId: "f", Table: 1, Hand: 10, StartStack: 900})
	if got := places(r.GetFinishes()); !slices.Equal(got, []string{"f:6/1", "g:7/1"}) || r.GetFinished() {
		t.Fatalf("TR-37 same hand: %v", got)
	}
	// TR-37 equal stacks share.
	r = ko(&tournamentv1.Knockout{PlayerId: "e", Table: 1, Hand: 20, StartStack: 700}, &tournamentv1.Knockout{PlayerId: "d", Table: 1, Hand: 20, StartStack: 700})
	if got := places(r.GetFinishes()); !slices.Equal(got, []string{"d:4/2", "e:4/2"}) {
		t.Fatalf("TR-37 equal stacks: %v", got)
	}
	_, err := f.c.RecordKnockouts(svc, &tournamentv1.RecordKnockoutsRequest{TournamentId: id, Knockouts: []*tournamentv1.Knockout{{PlayerId: "g", Table: 1}}})
	wantRule(t, err, codes.FailedPrecondition, "ENTRY_NOT_ACTIVE", "")
	if _, err := f.c.RecordKnockouts(f.g.As(t, "a", auth.Player), &tournamentv1.RecordKnockoutsRequest{TournamentId: id, Knockouts: []*tournamentv1.Knockout{{PlayerId: "b", Table: 1}}}); err == nil {
		t.Fatal("a player recorded a knockout")
	}
	ko(&tournamentv1.Knockout{PlayerId: "c", Table: 1, Hand: 30})
	r = ko(&tournamentv1.Knockout{PlayerId: "b", Table: 1, Hand: 31})
	if !r.GetFinished() || !slices.Equal(places(r.GetFinishes()), []string{"b:2/1", "a:1/1"}) {
		t.Fatalf("final knockout: %v", r)
	}
	// 7 entrants: 65/35 of 35000, rounded to whole euros (G-30).
	// 22750 and 12250 round down to 22700 and 12200; first place takes the 100 left.
	want := map[string]int64{"a": 22800, "b": 12200}
	if len(r.GetPrizes()) != 2 {
		t.Fatalf("prizes %v", r.GetPrizes())
	}
	for _, p := range r.GetPrizes() {
		if p.GetAmount() != want[p.GetPlayerId()] || p.GetState() != tournamentv1.PrizeState_PRIZE_STATE_PAID || p.GetTransferId() == "" {
			t.Fatalf("TR-36 prize %v", p)
		}
	}
	if w.get("a") != 100000-6100+22800 || w.get("b") != 100000-6100+12200 || w.pool[id] != 0 {
		t.Fatalf("balances a=%d b=%d pool=%d", w.get("a"), w.get("b"), w.pool[id])
	}
	res, err := f.c.GetResults(f.g.As(t, "g", auth.Player), &tournamentv1.GetResultsRequest{TournamentId: id})
	if err != nil || !slices.Equal(places(res.GetFinishes()), []string{"a:1/1", "b:2/1", "c:3/1", "d:4/2", "e:4/2", "f:6/1", "g:7/1"}) {
		t.Fatalf("results %v, %v", places(res.GetFinishes()), err)
	}
	got, _ := f.c.GetTournament(f.floor, &tournamentv1.GetTournamentRequest{TournamentId: id})
	if got.GetTournament().GetState() != tournamentv1.TournamentState_TOURNAMENT_STATE_FINISHED {
		t.Fatalf("state %v", got.GetTournament().GetState())
	}
}

// TestPrizes_WalletDown: an unpaid prize stays pending; PayPrizes pays it
// under the same key.
func TestPrizes_WalletDown(t *testing.T) {
	t.Parallel()
	w := newFakeWallet(balances("a", "b"))
	f := startWithWallet(t, w)
	id := f.running(t, []string{"a", "b"}, nil)
	w.down = 1
	r, err := f.c.RecordKnockouts(f.floor, &tournamentv1.RecordKnockoutsRequest{TournamentId: id, Knockouts: []*tournamentv1.Knockout{{PlayerId: "b", Table: 1}}})
	if err != nil || len(r.GetPrizes()) != 1 || r.GetPrizes()[0].GetState() != tournamentv1.PrizeState_PRIZE_STATE_PENDING {
		t.Fatalf("prize while the wallet is down: %v, %v", r, err)
	}
	p, err := f.c.PayPrizes(f.admin, &tournamentv1.PayPrizesRequest{TournamentId: id})
	if err != nil || p.GetPrizes()[0].GetState() != tournamentv1.PrizeState_PRIZE_STATE_PAID || p.GetPrizes()[0].GetAmount() != 10000 {
		t.Fatalf("PayPrizes = %v, %v", p, err)
	}
	if w.calls["trn/"+id+"/a/prize/1"] != 2 || w.get("a") != 100000-6100+10000 {
		t.Fatalf("calls %v, balance %d", w.calls, w.get("a"))
	}
}

func TestSatellite_TR19_G24(t *testing.T) {
	t.Parallel()
	players := []string{"a", "b", "c", "d", "e"}
	w := newFakeWallet(balances(players...))
	f := startWithWallet(t, w)
	// Target: 110 + 10. Satellite: 50 + 5, five players: pool 250 = two seats and 10 over.
	target := f.create(t, func(r *tournamentv1.CreateTournamentRequest) {
		r.BuyIn, r.Fee = 11000, 1000
		r.StartTime = timestamppb.New(f.clk.Now().Add(48 * time.Hour))
	})
	// TR-19: the target must exist.
	_, err := f.c.CreateTournament(f.floor, func() *tournamentv1.CreateTournamentRequest {
		r := newRequest()
		r.Format, r.TargetTournamentId = tournamentv1.TournamentFormat_TOURNAMENT_FORMAT_SATELLITE, "no-such-event"
		return r
	}())
	wantRule(t, err, codes.NotFound, "TOURNAMENT_NOT_FOUND", "")
	id := f.running(t, players, func(r *tournamentv1.CreateTournamentRequest) {
		r.Format = tournamentv1.TournamentFormat_TOURNAMENT_FORMAT_SATELLITE
		r.TargetTournamentId = target
		r.BuyIn, r.Fee = 5000, 500
	})
	// TR-36 published in advance: two seats of 120 and 10 in cash.
	pay, err := f.c.GetPayouts(f.floor, &tournamentv1.GetPayoutsRequest{TournamentId: id})
	if err != nil || !slices.Equal(pay.GetPrizes(), []int64{12000, 12000, 1000}) {
		t.Fatalf("TR-19 satellite payouts %v, %v", pay, err)
	}
	for _, p := range []string{"e", "d", "c", "b"} {
		if _, err := f.c.RecordKnockouts(f.floor, &tournamentv1.RecordKnockoutsRequest{TournamentId: id, Knockouts: []*tournamentv1.Knockout{{PlayerId: p, Table: 1}}}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := f.c.GetResults(f.floor, &tournamentv1.GetResultsRequest{TournamentId: id})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range res.GetPrizes() {
		got = append(got, fmt.Sprintf("%s:%d:%v:%v:%v", p.GetPlayerId(), p.GetAmount(), p.GetVoucher(), p.GetTargetTournamentId() == target, p.GetState()))
	}
	want := []string{"a:12000:true:true:PRIZE_STATE_PAID", "b:12000:true:true:PRIZE_STATE_PAID", "c:1000:false:false:PRIZE_STATE_PAID"}
	if !slices.Equal(got, want) {
		t.Fatalf("TR-19 G-24 prizes %v\nwant %v", got, want)
	}
	if w.get("voucher:a:"+target) != 12000 || w.get("c") != 100000-5500+1000 {
		t.Fatalf("voucher for a %d, c's balance %d", w.get("voucher:a:"+target), w.get("c"))
	}
}

func TestPenalties_TR32_TR33_TR34(t *testing.T) {
	t.Parallel()
	f := startWithWallet(t, nil)
	id := f.running(t, []string{"a", "b", "c", "d"}, nil)
	pen := func(player string, typ tournamentv1.PenaltyType, rounds, players int32) (*tournamentv1.IssuePenaltyResponse, error) {
		return f.c.IssuePenalty(f.floor, &tournamentv1.IssuePenaltyRequest{TournamentId: id, PlayerId: player, Type: typ, Reason: "r",
			Rounds: rounds, PlayersAtTable: players})
	}
	if r, err := pen("a", tournamentv1.PenaltyType_PENALTY_TYPE_WARNING, 0, 0); err != nil || r.GetHistory() != 1 {
		t.Fatalf("TR-32 warning: %v, %v", r, err)
	}
	_, err := pen("a", tournamentv1.PenaltyType_PENALTY_TYPE_WARNING, 0, 0)
	wantRule(t, err, codes.FailedPrecondition, "PENALTY_NOT_ESCALATED", "TR-32")
	r, err := pen("a", tournamentv1.PenaltyType_PENALTY_TYPE_MISSED_HANDS, 1, 4)
	if err != nil || r.GetHandsToMiss() != 4 {
		t.Fatalf("TR-33 4 players x 1 round: %v, %v", r, err)
	}
	// The count runs down with hands started at the player's table.
	for i := range 5 {
		h, err := f.c.ReportHandStarted(f.g.As(t, "dealer", auth.Dealer), &tournamentv1.ReportHandStartedRequest{TournamentId: id, Table: 1, PlayerIds: []string{"a", "b", "c", "d"}})
		if err != nil {
			t.Fatal(err)
		}
		if sits := slices.Contains(h.GetSittingOut(), "a"); sits != (i < 4) || slices.Contains(h.GetSittingOut(), "b") {
			t.Fatalf("TR-33 hand %d sitting out %v", i+1, h.GetSittingOut())
		}
	}
	_, err = pen("b", tournamentv1.PenaltyType_PENALTY_TYPE_MISSED_HANDS, 5, 4)
	if err == nil {
		t.Fatal("TR-33 five rounds accepted")
	}
	// TR-34: disqualification places the player now; expulsion too, without a prize.
	r, err = pen("d", tournamentv1.PenaltyType_PENALTY_TYPE_DISQUALIFICATION, 0, 0)
	if err != nil || r.GetFinish().GetPlace() != 4 || r.GetFinish().GetRemoved() {
		t.Fatalf("TR-34 disqualify: %v, %v", r, err)
	}
	r, err = pen("c", tournamentv1.PenaltyType_PENALTY_TYPE_EXPULSION, 0, 0)
	if err != nil || r.GetFinish().GetPlace() != 3 || !r.GetFinish().GetRemoved() {
		t.Fatalf("TR-34 expel: %v, %v", r, err)
	}
	_, err = pen("d", tournamentv1.PenaltyType_PENALTY_TYPE_WARNING, 0, 0)
	wantRule(t, err, codes.FailedPrecondition, "ENTRY_NOT_ACTIVE", "")

	// TR-35: b leaves; the stack stays in play and sits out every hand.
	if _, err := f.c.LeaveTournament(f.g.As(t, "a", auth.Player), &tournamentv1.LeaveTournamentRequest{TournamentId: id, PlayerId: "b"}); err == nil {
		t.Fatal("a player left for another")
	}
	left, err := f.c.LeaveTournament(f.g.As(t, "b", auth.Player), &tournamentv1.LeaveTournamentRequest{TournamentId: id, PlayerId: "b"})
	if err != nil || !left.GetEntry().GetLeft() || left.GetEntry().GetStatus() != tournamentv1.EntryStatus_ENTRY_STATUS_ACTIVE {
		t.Fatalf("TR-35 leave: %v, %v", left, err)
	}
	_, err = f.c.LeaveTournament(f.floor, &tournamentv1.LeaveTournamentRequest{TournamentId: id, PlayerId: "b"})
	wantRule(t, err, codes.FailedPrecondition, "ENTRY_ALREADY_LEFT", "TR-35")
	h, err := f.c.ReportHandStarted(f.g.As(t, "dealer", auth.Dealer), &tournamentv1.ReportHandStartedRequest{TournamentId: id, Table: 1, PlayerIds: []string{"a", "b"}})
	if err != nil || !slices.Equal(h.GetSittingOut(), []string{"b"}) {
		t.Fatalf("TR-35 hand with a player who left: %v, %v", h, err)
	}
	// The player who left still finishes, and wins here: a is knocked out.
	r2, err := f.c.RecordKnockouts(f.floor, &tournamentv1.RecordKnockoutsRequest{TournamentId: id, Knockouts: []*tournamentv1.Knockout{{PlayerId: "a", Table: 1}}})
	if err != nil || !r2.GetFinished() || !slices.Equal(places(r2.GetFinishes()), []string{"a:2/1", "b:1/1"}) {
		t.Fatalf("TR-35 finish: %v, %v", r2, err)
	}
}

func TestBalanceAndBreak_TR23_G25(t *testing.T) {
	t.Parallel()
	f := startWithWallet(t, nil)
	var players []string
	for i := range 12 {
		players = append(players, fmt.Sprintf("p%02d", i))
	}
	// TR-19: the target must exist.
	_, err := f.c.CreateTournament(f.floor, func() *tournamentv1.CreateTournamentRequest {
		r := newRequest()
		r.Format, r.TargetTournamentId = tournamentv1.TournamentFormat_TOURNAMENT_FORMAT_SATELLITE, "no-such-event"
		return r
	}())
	wantRule(t, err, codes.NotFound, "TOURNAMENT_NOT_FOUND", "")
	id := f.running(t, players, func(r *tournamentv1.CreateTournamentRequest) { r.SeatsPerTable = 6 })
	list, _ := f.c.ListEntries(f.floor, &tournamentv1.ListEntriesRequest{TournamentId: id})
	var table1 []*tournamentv1.Entry
	for _, e := range list.GetEntries() {
		if e.GetTable() == 1 {
			table1 = append(table1, e)
		}
	}
	// Three players out at table 1: 3 against 6, play halts there (G-25) and two move.
	var kos []*tournamentv1.Knockout
	for _, e := range table1[:3] {
		kos = append(kos, &tournamentv1.Knockout{PlayerId: e.GetPlayerId(), Table: 1})
		if _, err := f.c.RecordKnockouts(f.floor, &tournamentv1.RecordKnockoutsRequest{TournamentId: id, Knockouts: kos[len(kos)-1:]}); err != nil {
			t.Fatal(err)
		}
	}
	b, err := f.c.BalanceTables(f.g.As(t, "svc", auth.Service), &tournamentv1.BalanceTablesRequest{TournamentId: id,
		Buttons: []*tournamentv1.TableButton{{Table: 1, ButtonSeat: 1}, {Table: 2, ButtonSeat: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b.GetHalted(), []int32{1}) || len(b.GetMoves()) != 1 || b.GetMoves()[0].GetFromTable() != 2 || b.GetMoves()[0].GetRuleId() != "TR-23" {
		t.Fatalf("TR-23 G-25 balance: %v", b)
	}
	// Four at table 1, five at table 2: no room to break either.
	_, err = f.c.BalanceTables(f.floor, &tournamentv1.BalanceTablesRequest{TournamentId: id, BreakTable: 2})
	wantRule(t, err, codes.FailedPrecondition, "TABLE_BREAK_NO_ROOM", "")
	// Three more out at table 2, then break it: its two players go to table 1.
	list, _ = f.c.ListEntries(f.floor, &tournamentv1.ListEntriesRequest{TournamentId: id})
	out := 0
	for _, e := range list.GetEntries() {
		if out < 3 && e.GetTable() == 2 && e.GetStatus() == tournamentv1.EntryStatus_ENTRY_STATUS_ACTIVE {
			if _, err := f.c.RecordKnockouts(f.floor, &tournamentv1.RecordKnockoutsRequest{TournamentId: id, Knockouts: []*tournamentv1.Knockout{{PlayerId: e.GetPlayerId(), Table: 2}}}); err != nil {
				t.Fatal(err)
			}
			out++
		}
	}
	br, err := f.c.BalanceTables(f.floor, &tournamentv1.BalanceTablesRequest{TournamentId: id, BreakTable: 2})
	if err != nil || len(br.GetMoves()) != 2 || br.GetMoves()[0].GetRuleId() != "TR-06" || br.GetMoves()[0].GetToTable() != 1 {
		t.Fatalf("break: %v, %v", br, err)
	}
	// Table 2 is broken: nobody sits there, so it cannot be broken again.
	_, err = f.c.BalanceTables(f.floor, &tournamentv1.BalanceTablesRequest{TournamentId: id, BreakTable: 2})
	wantRule(t, err, codes.FailedPrecondition, "TABLE_EMPTY", "")
	// TR-07: the final table draws for the button again, all six seats.
	if fb := br.GetFinalTableButton(); fb.GetTable() != 1 || len(fb.GetCards()) != 6 || fb.GetCards()[fb.GetButtonSeat()] == "" {
		t.Fatalf("TR-07 final table button: %v", fb)
	}
	list, _ = f.c.ListEntries(f.floor, &tournamentv1.ListEntriesRequest{TournamentId: id})
	seats := map[int32]bool{}
	for _, e := range list.GetEntries() {
		if e.GetStatus() != tournamentv1.EntryStatus_ENTRY_STATUS_ACTIVE {
			continue
		}
		if e.GetTable() != 1 || seats[e.GetSeat()] {
			t.Fatalf("after the break %v", e)
		}
		seats[e.GetSeat()] = true
	}
	if len(seats) != 6 {
		t.Fatalf("seats after break %v", seats)
	}
	// TR-22 chip race at the one table left.
	var counts []*tournamentv1.ChipCount
	for _, e := range list.GetEntries() {
		if e.GetStatus() == tournamentv1.EntryStatus_ENTRY_STATUS_ACTIVE {
			counts = append(counts, &tournamentv1.ChipCount{Seat: e.GetSeat(), PlayerId: e.GetPlayerId(), Stack: 20025, Chips: 1})
		}
	}
	race, err := f.c.RaceChips(f.g.As(t, "dealer", auth.Dealer), &tournamentv1.RaceChipsRequest{TournamentId: id, Table: 1, Removed: 25, Into: 100, Lowest: 100, Seats: counts})
	if err != nil {
		t.Fatal(err)
	}
	won := 0
	for _, r := range race.GetResults() {
		if len(r.GetCards()) != 1 {
			t.Fatalf("G-08 one card per odd chip: %v", r)
		}
		if r.GetWon() {
			won++
		}
	}
	// 6 x 25 = 150: one chip and a leftover of 50, half a chip, rounds up (G-08).
	if won != 2 {
		t.Fatalf("G-08 chips won %d, want 2", won)
	}
	_, err = f.c.RaceChips(f.floor, &tournamentv1.RaceChipsRequest{TournamentId: id, Table: 2, Removed: 25, Into: 100, Lowest: 100, Seats: counts[:1]})
	wantRule(t, err, codes.FailedPrecondition, "ENTRY_NOT_ACTIVE", "")
}
