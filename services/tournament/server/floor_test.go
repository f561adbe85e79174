package server_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cardroom/cardroom/platform/auth"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
)

func TestHandForHand_G26(t *testing.T) {
	t.Parallel()
	f := startWithWallet(t, nil)
	var players []string
	for i := range 12 {
		players = append(players, fmt.Sprintf("p%02d", i))
	}
	id := f.running(t, players, func(r *tournamentv1.CreateTournamentRequest) { r.SeatsPerTable = 6 })
	dealer := f.g.As(t, "dealer", auth.Dealer)
	started := func(table int32) error {
		_, err := f.c.ReportHandStarted(dealer, &tournamentv1.ReportHandStartedRequest{TournamentId: id, Table: table})
		return err
	}
	ended := func(table int32) *tournamentv1.ReportHandEndedResponse {
		t.Helper()
		r, err := f.c.ReportHandEnded(dealer, &tournamentv1.ReportHandEndedRequest{TournamentId: id, Table: table})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	_, err := f.c.ReportHandEnded(dealer, &tournamentv1.ReportHandEndedRequest{TournamentId: id, Table: 1})
	wantRule(t, err, codes.FailedPrecondition, "HAND_FOR_HAND_OFF", "G-26")
	on, err := f.c.SetHandForHand(f.floor, &tournamentv1.SetHandForHandRequest{TournamentId: id, On: true})
	if err != nil || !on.GetHandForHand().GetActive() || !slices.Equal(on.GetHandForHand().GetPlaying(), []int32{1, 2}) {
		t.Fatalf("G-26 on: %v, %v", on, err)
	}
	if err := started(1); err != nil {
		t.Fatal(err)
	}
	if r := ended(1); r.GetNextRound() || !slices.Equal(r.GetHandForHand().GetWaiting(), []int32{1}) {
		t.Fatalf("G-26 table 1 done: %v", r)
	}
	wantRule(t, started(1), codes.FailedPrecondition, "HAND_FOR_HAND_WAIT", "G-26")
	if r := ended(2); !r.GetNextRound() || r.GetHandForHand().GetRound() != 2 {
		t.Fatalf("G-26 round over: %v", r)
	}
	if err := started(1); err != nil {
		t.Fatalf("G-26 next round: %v", err)
	}
	off, err := f.c.SetHandForHand(f.floor, &tournamentv1.SetHandForHandRequest{TournamentId: id})
	if err != nil || off.GetHandForHand().GetActive() {
		t.Fatalf("off: %v, %v", off, err)
	}
}

func TestUpdatePayouts_TR36(t *testing.T) {
	t.Parallel()
	f := startWithWallet(t, nil)
	id := f.create(t, nil)
	req := &tournamentv1.UpdatePayoutsRequest{TournamentId: id, Payouts: &tournamentv1.PayoutStructure{Unit: 100,
		Tiers: []*tournamentv1.PayoutTier{{Shares: []int32{7000, 3000}}}}}
	up, err := f.c.UpdatePayouts(f.floor, req)
	if err != nil || len(up.GetTournament().GetPayouts().GetTiers()) != 1 {
		t.Fatalf("TR-36 before the start: %v, %v", up, err)
	}
	bad := &tournamentv1.UpdatePayoutsRequest{TournamentId: id, Payouts: &tournamentv1.PayoutStructure{Tiers: []*tournamentv1.PayoutTier{{Shares: []int32{7000}}}}}
	_, err = f.c.UpdatePayouts(f.floor, bad)
	wantRule(t, err, codes.InvalidArgument, "PAYOUTS_NOT_WHOLE", "G-30")
	f.register(t, id, "a")
	f.register(t, id, "b")
	f.clk.Advance(6 * time.Hour)
	_, err = f.c.UpdatePayouts(f.floor, req)
	wantRule(t, err, codes.FailedPrecondition, "PAYOUTS_LOCKED", "TR-36")
	p, err := f.c.GetPayouts(f.g.As(t, "a", auth.Player), &tournamentv1.GetPayoutsRequest{TournamentId: id})
	if err != nil || !slices.Equal(p.GetPrizes(), []int64{7000, 3000}) || !p.GetLocked() {
		t.Fatalf("TR-36 published payouts: %v, %v", p, err)
	}
}

func TestClaimSeat_TR05(t *testing.T) {
	t.Parallel()
	f := startWithWallet(t, nil)
	id := f.running(t, []string{"a", "b", "c"}, nil)
	if r, err := f.c.ClaimSeat(f.floor, &tournamentv1.ClaimSeatRequest{TournamentId: id, PlayerId: "a", PresenterId: "a"}); err != nil || r.GetEntry().GetSeat() == 0 {
		t.Fatalf("TR-05 own entry: %v, %v", r, err)
	}
	_, err := f.c.ClaimSeat(f.floor, &tournamentv1.ClaimSeatRequest{TournamentId: id, PlayerId: "b", PresenterId: "mallory"})
	wantRule(t, err, codes.PermissionDenied, "ENTRY_NOT_PERSONAL", "TR-05")
	_, err = f.c.ClaimSeat(f.floor, &tournamentv1.ClaimSeatRequest{TournamentId: id, PlayerId: "b", PresenterId: "mallory", Forfeit: true})
	wantRule(t, err, codes.PermissionDenied, "ENTRY_NOT_PERSONAL", "TR-05")
	list, _ := f.c.ListEntries(f.floor, &tournamentv1.ListEntriesRequest{TournamentId: id})
	for _, e := range list.GetEntries() {
		if e.GetPlayerId() == "b" && (e.GetStatus() != tournamentv1.EntryStatus_ENTRY_STATUS_FORFEITED || e.GetSeat() != 0) {
			t.Fatalf("TR-05 forfeited entry %v", e)
		}
	}
}

func TestConfiscateBlindsAndDrawLog_TR24_TR06(t *testing.T) {
	t.Parallel()
	f := startWithWallet(t, nil)
	id := f.running(t, []string{"a", "b", "c"}, nil)
	r, err := f.c.ConfiscateBlinds(f.floor, &tournamentv1.ConfiscateBlindsRequest{TournamentId: id, PlayerId: "a", Stack: 5000,
		SmallBlind: 100, BigBlind: 200, MissedSmall: true, MissedBig: true})
	if err != nil || r.GetStack() != 4700 || r.GetDeadMoney() != 300 {
		t.Fatalf("TR-24 confiscate: %v, %v", r, err)
	}
	log, err := f.c.ListDraws(f.g.As(t, "c", auth.Player), &tournamentv1.ListDrawsRequest{TournamentId: id})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, d := range log.GetDraws() {
		kinds = append(kinds, d.GetKind())
	}
	if !slices.Equal(kinds, []string{"seats", "button", "confiscation"}) {
		t.Fatalf("TR-06 log kinds %v", kinds)
	}
	var seats struct {
		Seats []struct{ PlayerID string } `json:"seats"`
	}
	if err := json.Unmarshal([]byte(log.GetDraws()[0].GetRecordJson()), &seats); err != nil || len(seats.Seats) != 3 {
		t.Fatalf("TR-06 seat draw record %s, %v", log.GetDraws()[0].GetRecordJson(), err)
	}
}

func TestClockForHand_TR20(t *testing.T) {
	t.Parallel()
	f := startWithWallet(t, nil)
	id := f.running(t, []string{"a", "b"}, func(r *tournamentv1.CreateTournamentRequest) {
		r.Levels = []*tournamentv1.Level{
			{SmallBlind: 25, BigBlind: 50, Duration: durationpb.New(20 * time.Minute)},
			{SmallBlind: 50, BigBlind: 100, Duration: durationpb.New(20 * time.Minute)},
		}
	})
	start := f.clk.Now()
	tests := []struct {
		name string
		at   time.Duration
		bb   int64
	}{
		{"TR-20 shuffled a second before the level ends", 20*time.Minute - time.Second, 50},
		{"TR-20 shuffled as the level ends", 20 * time.Minute, 100},
	}
	f.clk.Advance(30 * time.Minute)
	for _, tt := range tests {
		c, err := f.c.GetClock(f.g.As(t, "svc", auth.Service), &tournamentv1.GetClockRequest{TournamentId: id, HandStartTime: timestamppb.New(start.Add(tt.at))})
		if err != nil || c.GetLevel().GetBigBlind() != tt.bb {
			t.Fatalf("%s: %v, %v", tt.name, c, err)
		}
	}
}

// TestHandForHandKnockouts_TR37: players knocked out at different tables
// in one hand-for-hand round are reported separately and share their
// places when the round ends, whatever their stacks.
func TestHandForHandKnockouts_TR37(t *testing.T) {
	t.Parallel()
	f := startWithWallet(t, nil)
	var players []string
	for i := range 12 {
		players = append(players, fmt.Sprintf("p%02d", i))
	}
	id := f.running(t, players, func(r *tournamentv1.CreateTournamentRequest) { r.SeatsPerTable = 6 })
	list, _ := f.c.ListEntries(f.floor, &tournamentv1.ListEntriesRequest{TournamentId: id})
	at := map[int32]string{}
	for _, e := range list.GetEntries() {
		at[e.GetTable()] = e.GetPlayerId()
	}
	if _, err := f.c.SetHandForHand(f.floor, &tournamentv1.SetHandForHandRequest{TournamentId: id, On: true}); err != nil {
		t.Fatal(err)
	}
	svc := f.g.As(t, "svc", auth.Service)
	for table, stack := range map[int32]int64{1: 9000, 2: 100} {
		r, err := f.c.RecordKnockouts(svc, &tournamentv1.RecordKnockoutsRequest{TournamentId: id,
			Knockouts: []*tournamentv1.Knockout{{PlayerId: at[table], Table: table, Hand: 40, StartStack: stack}}})
		if err != nil || !r.GetDeferred() || len(r.GetFinishes()) != 0 {
			t.Fatalf("TR-37 knock-out during hand-for-hand: %v, %v", r, err)
		}
	}
	if r, err := f.c.ReportHandEnded(svc, &tournamentv1.ReportHandEndedRequest{TournamentId: id, Table: 1}); err != nil || len(r.GetFinishes()) != 0 {
		t.Fatalf("round not over: %v, %v", r, err)
	}
	r, err := f.c.ReportHandEnded(svc, &tournamentv1.ReportHandEndedRequest{TournamentId: id, Table: 2})
	if err != nil || !r.GetNextRound() {
		t.Fatal(r, err)
	}
	got := places(r.GetFinishes())
	slices.Sort(got)
	want := []string{at[1] + ":11/2", at[2] + ":11/2"}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("TR-37 hand-for-hand places %v, want %v", got, want)
	}
	// A knock-out left waiting when hand-for-hand is turned off is placed then.
	var third string
	for _, e := range list.GetEntries() {
		if e.GetTable() == 1 && e.GetPlayerId() != at[1] {
			third = e.GetPlayerId()
			break
		}
	}
	if _, err := f.c.RecordKnockouts(svc, &tournamentv1.RecordKnockoutsRequest{TournamentId: id, Knockouts: []*tournamentv1.Knockout{{PlayerId: third, Table: 1}}}); err != nil {
		t.Fatal(err)
	}
	off, err := f.c.SetHandForHand(f.floor, &tournamentv1.SetHandForHandRequest{TournamentId: id})
	if err != nil || !slices.Equal(places(off.GetFinishes()), []string{third + ":10/1"}) {
		t.Fatalf("off with a waiting knock-out: %v, %v", off, err)
	}
}
