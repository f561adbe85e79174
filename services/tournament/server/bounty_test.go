package server_test

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/testkit"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
)

// potsEnded is a table.hand_ended event with the hand's pots.
func potsEnded(t *testing.T, id string, hand int64, stacks []*tablev1.SeatStack, pots []*tablev1.PotResult, busted ...int32) events.Event {
	t.Helper()
	b, err := proto.Marshal(&tablev1.HandEnded{TableId: "tbl-pko", HandNo: hand, Stacks: stacks, Busted: busted, Pots: pots})
	if err != nil {
		t.Fatal(err)
	}
	return events.Event{ID: id, Topic: events.TopicHandEnded, Key: "tbl-pko", Payload: b, Epoch: 1}
}

// TestProgressiveBounties_G36 feeds three knock-outs of a PKO event
// through table.hand_ended: a chopped pot shares the head by the chips
// each winner took, half in cash and half on their own heads; a
// redelivered hand pays nothing twice; the winner collects their own head
// at the end; the bounties paid are the bounty pool and the prizes the
// rest of the pool, to the cent, and the wallet holds nothing back.
func TestProgressiveBounties_G36(t *testing.T) {
	t.Parallel()
	players := []string{"a", "b", "c", "d"}
	w := newFakeWallet(balances(players...))
	f, bus := startWithBus(t, w)
	id := f.running(t, players, func(r *tournamentv1.CreateTournamentRequest) {
		r.Bounty = &tournamentv1.Bounty{Amount: 2000, Progressive: true}
	})
	if _, err := f.c.AttachTable(f.floor, &tournamentv1.AttachTableRequest{TournamentId: id, Table: 1, TableId: "tbl-pko"}); err != nil {
		t.Fatal(err)
	}
	payouts, err := f.c.GetPayouts(f.floor, &tournamentv1.GetPayoutsRequest{TournamentId: id})
	if err != nil || payouts.GetPrizePool() != 4*(5000-2000) {
		t.Fatalf("prize pool %v, %v: the bounties are not the structure's", payouts.GetPrizePool(), err)
	}
	bounties := func() []*tournamentv1.BountyPayment {
		t.Helper()
		r, err := f.c.GetResults(f.floor, &tournamentv1.GetResultsRequest{TournamentId: id})
		if err != nil {
			t.Fatal(err)
		}
		return r.GetBounties()
	}
	publish := func(ev events.Event, want int) {
		t.Helper()
		if err := bus.Publish(t.Context(), ev); err != nil {
			t.Fatal(err)
		}
		testkit.Eventually(t, 10*time.Second, func() error {
			if got := bounties(); len(got) != want {
				return fmt.Errorf("after %s: bounties %v, want %d", ev.ID, got, want)
			}
			return nil
		})
	}
	seat := func(s int32, p string, stack int64) *tablev1.SeatStack {
		return &tablev1.SeatStack{Seat: s, PlayerId: p, Stack: stack, StartStack: 1}
	}
	// a (seat 1) is all in against b and c, who chop: a's head of 2000
	// is half cash, half on heads, each split 50/50.
	first := potsEnded(t, "ev-1", 1, []*tablev1.SeatStack{seat(1, "a", 0), seat(2, "b", 30000), seat(3, "c", 30000), seat(4, "d", 20000)},
		[]*tablev1.PotResult{{Amount: 1200, EligibleSeats: []int32{1, 2, 3}, Winners: []*tablev1.PotShare{{Seat: 2, Amount: 600}, {Seat: 3, Amount: 600}}},
			{Amount: 800, EligibleSeats: []int32{2, 3}, Winners: []*tablev1.PotShare{{Seat: 3, Amount: 800}}}}, 1)
	publish(first, 2)
	publish(first, 2) // redelivered: applied once
	// d (seat 4) loses to b: head 2000, 1000 cash and b's head 2500 → 3500.
	publish(potsEnded(t, "ev-2", 2, []*tablev1.SeatStack{seat(2, "b", 50000), seat(3, "c", 30000), seat(4, "d", 0)},
		[]*tablev1.PotResult{{Amount: 40000, EligibleSeats: []int32{2, 4}, Winners: []*tablev1.PotShare{{Seat: 2, Amount: 40000}}}}, 4), 3)
	// c (head 2500) loses to b: 1250 cash, b's head 4750, which b collects
	// as the winner.
	publish(potsEnded(t, "ev-3", 3, []*tablev1.SeatStack{seat(2, "b", 80000), seat(3, "c", 0)},
		[]*tablev1.PotResult{{Amount: 60000, EligibleSeats: []int32{2, 3}, Winners: []*tablev1.PotShare{{Seat: 2, Amount: 60000}}}}, 3), 5)

	type got struct {
		winner, out string
		cash, head  int64
	}
	want := []got{{"b", "a", 500, 500}, {"c", "a", 500, 500}, {"b", "d", 1000, 1000}, {"b", "c", 1250, 1250}, {"b", "b", 4750, 0}}
	var cash int64
	var gots []got
	for _, b := range bounties() {
		gots = append(gots, got{b.GetPlayerId(), b.GetKnockedOutPlayerId(), b.GetAmount(), b.GetHeadAdded()})
		if b.GetState() != tournamentv1.PrizeState_PRIZE_STATE_PAID || b.GetTransferId() == "" {
			t.Errorf("bounty %v: %v", gots[len(gots)-1], b.GetState())
		}
		cash += b.GetAmount()
	}
	order := func(a, b got) int { return cmp.Or(cmp.Compare(a.out, b.out), cmp.Compare(a.winner, b.winner)) }
	slices.SortFunc(gots, order)
	slices.SortFunc(want, order)
	if !slices.Equal(gots, want) {
		t.Errorf("bounties %v, want %v", gots, want)
	}
	r, err := f.c.GetResults(f.floor, &tournamentv1.GetResultsRequest{TournamentId: id})
	if err != nil {
		t.Fatal(err)
	}
	var prizes int64
	for _, p := range r.GetPrizes() {
		prizes += p.GetAmount()
	}
	if cash != 4*2000 || prizes != 4*3000 {
		t.Fatalf("bounties paid %d of %d, prizes %d of %d", cash, 4*2000, prizes, 4*3000)
	}
	w.mu.Lock()
	left := w.pool[id]
	w.mu.Unlock()
	if left != 0 {
		t.Fatalf("the pool holds %d after every prize and bounty", left)
	}
	tr, err := f.c.GetTournament(f.floor, &tournamentv1.GetTournamentRequest{TournamentId: id})
	if err != nil || tr.GetTournament().GetState() != tournamentv1.TournamentState_TOURNAMENT_STATE_FINISHED ||
		tr.GetTournament().GetBounty().GetAmount() != 2000 {
		t.Fatalf("tournament %v, %v", tr.GetTournament(), err)
	}
}

// TestFloorKnockoutBounties_G36 enters the knock-outs of a PKO event as
// the floor (RecordKnockouts) with the players it saw win them: the head
// goes to them as a table's knock-out credits it — shared equally when
// two chopped, half in cash and half on their heads — and the winner
// collects their own head; the bounties paid are the bounty pool to the
// cent. An eliminator not in play, or out in the same report, is refused.
func TestFloorKnockoutBounties_G36(t *testing.T) {
	t.Parallel()
	players := []string{"a", "b", "c", "d"}
	w := newFakeWallet(balances(players...))
	f := startWithWallet(t, w)
	id := f.running(t, players, func(r *tournamentv1.CreateTournamentRequest) {
		r.Bounty = &tournamentv1.Bounty{Amount: 2000, Progressive: true}
	})
	out := func(player string, by ...string) error {
		_, err := f.c.RecordKnockouts(f.floor, &tournamentv1.RecordKnockoutsRequest{TournamentId: id,
			Knockouts: []*tournamentv1.Knockout{{PlayerId: player, Table: 1, Hand: 1, StartStack: 1, EliminatedBy: by}}})
		return err
	}
	for _, tc := range []struct {
		name string
		ko   *tournamentv1.RecordKnockoutsRequest
	}{
		{"eliminator unknown", &tournamentv1.RecordKnockoutsRequest{TournamentId: id,
			Knockouts: []*tournamentv1.Knockout{{PlayerId: "a", Table: 1, EliminatedBy: []string{"zed"}}}}},
		{"eliminator out in the same report", &tournamentv1.RecordKnockoutsRequest{TournamentId: id,
			Knockouts: []*tournamentv1.Knockout{{PlayerId: "a", Table: 1, EliminatedBy: []string{"d"}}, {PlayerId: "d", Table: 1}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.c.RecordKnockouts(f.floor, tc.ko)
			wantRule(t, err, codes.FailedPrecondition, "ENTRY_NOT_ACTIVE", "")
		})
	}
	if err := out("a", "b", "c"); err != nil {
		t.Fatal(err)
	}
	if err := out("d", "b"); err != nil {
		t.Fatal(err)
	}
	if err := out("c", "b"); err != nil {
		t.Fatal(err)
	}
	r, err := f.c.GetResults(f.floor, &tournamentv1.GetResultsRequest{TournamentId: id})
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		winner, out string
		cash, head  int64
	}
	want := []got{{"b", "a", 500, 500}, {"c", "a", 500, 500}, {"b", "d", 1000, 1000}, {"b", "c", 1250, 1250}, {"b", "b", 4750, 0}}
	var gots []got
	var cash int64
	for _, b := range r.GetBounties() {
		gots = append(gots, got{b.GetPlayerId(), b.GetKnockedOutPlayerId(), b.GetAmount(), b.GetHeadAdded()})
		cash += b.GetAmount()
	}
	order := func(a, b got) int { return cmp.Or(cmp.Compare(a.out, b.out), cmp.Compare(a.winner, b.winner)) }
	slices.SortFunc(gots, order)
	slices.SortFunc(want, order)
	if !slices.Equal(gots, want) || cash != 4*2000 {
		t.Fatalf("bounties %v (%d paid), want %v (%d)", gots, cash, want, 4*2000)
	}
}
