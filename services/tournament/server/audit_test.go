package server_test

import (
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cardroom/cardroom/platform/auth"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
)

func TestUpdateAndAudit_TR03(t *testing.T) {
	t.Parallel()
	f := startWithWallet(t, nil)
	id := f.create(t, nil)
	later := now.Add(8 * time.Hour)
	req := &tournamentv1.UpdateTournamentRequest{TournamentId: id, Name: "Monday Deepstack II", StartTime: timestamppb.New(later),
		Levels: []*tournamentv1.Level{{SmallBlind: 50, BigBlind: 100, Duration: durationpb.New(30 * time.Minute)}}, Reason: "late dealers"}
	if _, err := f.c.UpdateTournament(f.floor, req); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("TR-03 floor updating = %v", err)
	}
	up, err := f.c.UpdateTournament(f.admin, req)
	if err != nil || up.GetTournament().GetName() != "Monday Deepstack II" || !up.GetTournament().GetStartTime().AsTime().Equal(later) ||
		len(up.GetTournament().GetLevels()) != 1 {
		t.Fatalf("TR-03 update = %v, %v", up, err)
	}
	clk, _ := f.c.GetClock(f.floor, &tournamentv1.GetClockRequest{TournamentId: id})
	if clk.GetLevel().GetBigBlind() != 100 {
		t.Fatalf("G-07 new sheet not in the clock: %v", clk)
	}
	if _, err := f.c.UpdatePayouts(f.floor, &tournamentv1.UpdatePayoutsRequest{TournamentId: id, Payouts: &tournamentv1.PayoutStructure{
		Tiers: []*tournamentv1.PayoutTier{{Shares: []int32{10000}}}}}); err != nil {
		t.Fatal(err)
	}
	f.register(t, id, "a")
	f.register(t, id, "b")
	f.clk.Set(later)
	if _, err := f.c.StartTournament(f.floor, &tournamentv1.StartTournamentRequest{TournamentId: id}); err != nil {
		t.Fatalf("start at the new time: %v", err)
	}
	_, err = f.c.UpdateTournament(f.admin, &tournamentv1.UpdateTournamentRequest{TournamentId: id, Name: "x", Reason: "y"})
	wantRule(t, err, codes.FailedPrecondition, "EVENT_NOT_CHANGEABLE", "TR-03")
	if _, err := f.c.CancelTournament(f.admin, &tournamentv1.CancelTournamentRequest{TournamentId: id, Reason: "fire alarm"}); err != nil {
		t.Fatal(err)
	}
	log, err := f.c.ListAudit(f.floor, &tournamentv1.ListAuditRequest{TournamentId: id})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range log.GetRecords() {
		got = append(got, r.GetActor()+":"+r.GetAction())
	}
	if !slices.Equal(got, []string{"admin-1:update", "floor-1:update_payouts", "admin-1:cancel"}) ||
		log.GetRecords()[2].GetDetailJson() != `{"reason":"fire alarm"}` {
		t.Fatalf("TR-03 audit %v %v", got, log.GetRecords())
	}
	if _, err := f.c.ListAudit(f.g.As(t, "a", auth.Player), &tournamentv1.ListAuditRequest{TournamentId: id}); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("player reading the audit = %v", err)
	}
}
