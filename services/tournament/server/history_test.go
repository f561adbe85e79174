package server_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cardroom/cardroom/platform/auth"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
)

// TestPlayerHistory_G23_G36_TR32_TR36: a player's history across events
// over REST (GET /v1/players/{id}/tournament-history; issue 13 item 6).
// In a progressive knockout event (G-36) with re-entry (G-23) d is
// warned (TR-32), knocked out, re-enters and is knocked out again; the
// event plays to a winner and pays its prizes (TR-36). A second event d
// registered for starts later. d's history lists that one first, then
// the knockout event with the re-entry, both entries paid, the warning
// with who gave it and why, d's place; every player's place, prize and
// bounties in it agree with the event's results. A player reads their
// own history only; the floor reads anyone's; nobody without a token.
func TestPlayerHistory_G23_G36_TR32_TR36(t *testing.T) {
	t.Parallel()
	players := []string{"a", "b", "c", "d"}
	w := newFakeWallet(balances(players...))
	f := startWithWallet(t, w)
	id := f.running(t, players, func(r *tournamentv1.CreateTournamentRequest) {
		r.Bounty = &tournamentv1.Bounty{Amount: 2000, Progressive: true}
		r.EntryPolicy = &tournamentv1.EntryPolicy{LateRegistration: durationpb.New(time.Hour), Reentry: true}
	})
	later := f.create(t, func(r *tournamentv1.CreateTournamentRequest) {
		r.Name, r.StartTime = "Tuesday Turbo", timestamppb.New(f.clk.Now().Add(24*time.Hour))
	})
	f.register(t, later, "d")
	if _, err := f.c.IssuePenalty(f.floor, &tournamentv1.IssuePenaltyRequest{TournamentId: id, PlayerId: "d",
		Type: tournamentv1.PenaltyType_PENALTY_TYPE_WARNING, Reason: "exposed a card"}); err != nil {
		t.Fatal(err)
	}
	out := func(player string, by ...string) {
		t.Helper()
		if _, err := f.c.RecordKnockouts(f.floor, &tournamentv1.RecordKnockoutsRequest{TournamentId: id,
			Knockouts: []*tournamentv1.Knockout{{PlayerId: player, Table: 1, Hand: 1, StartStack: 1, EliminatedBy: by}}}); err != nil {
			t.Fatal(err)
		}
	}
	out("d", "a")
	f.register(t, id, "d") // G-23: the re-entry
	out("d", "b")
	out("c", "a")
	out("b", "a")
	res, err := f.c.GetResults(f.floor, &tournamentv1.GetResultsRequest{TournamentId: id})
	if err != nil || len(res.GetFinishes()) != 4 {
		t.Fatalf("results %v, %v", res, err)
	}
	type result struct {
		place           int32
		prize, bounties int64
	}
	want := map[string]result{}
	for _, fin := range res.GetFinishes() {
		r := want[fin.GetPlayerId()]
		r.place = fin.GetPlace()
		want[fin.GetPlayerId()] = r
	}
	var prizes int64
	for _, p := range res.GetPrizes() {
		r := want[p.GetPlayerId()]
		r.prize += p.GetAmount()
		prizes += p.GetAmount()
		want[p.GetPlayerId()] = r
	}
	var bounties int64
	for _, b := range res.GetBounties() {
		r := want[b.GetPlayerId()]
		r.bounties += b.GetAmount()
		bounties += b.GetAmount()
		want[b.GetPlayerId()] = r
	}
	// Five entries (d's re-entry one of them): 5 × 2000 in heads, the rest
	// in prizes.
	if bounties != 5*2000 || prizes != 5*(5000-2000) || want["a"].place != 1 || want["a"].bounties == 0 || want["d"].place != 4 {
		t.Fatalf("the event's results: %v, bounties %d, prizes %d", want, bounties, prizes)
	}

	srv := f.rest(t)
	history := func(player, token string) (int, *tournamentv1.GetPlayerHistoryResponse) {
		t.Helper()
		var raw json.RawMessage
		code := call(t, "GET", srv.URL+"/v1/players/"+player+"/tournament-history", token, "", &raw)
		out := &tournamentv1.GetPlayerHistoryResponse{}
		if code == http.StatusOK {
			if err := protojson.Unmarshal(raw, out); err != nil {
				t.Fatalf("history of %s: %v in %s", player, err, raw)
			}
		}
		return code, out
	}
	for _, p := range players {
		code, h := history(p, f.bearer(t, p, auth.Player))
		events := h.GetEvents()
		if p == "d" {
			if code != http.StatusOK || len(events) != 2 || events[0].GetTournamentId() != later || events[0].GetPlace() != 0 ||
				events[0].GetState() != tournamentv1.TournamentState_TOURNAMENT_STATE_SCHEDULED {
				t.Fatalf("d's history, latest first: %d %v", code, h)
			}
			events = events[1:]
		}
		if code != http.StatusOK || len(events) != 1 || events[0].GetTournamentId() != id {
			t.Fatalf("%s's history: %d %v", p, code, h)
		}
		e := events[0]
		got := result{e.GetPlace(), e.GetPrize(), e.GetBounties()}
		if got != want[p] || e.GetEntry().GetPlayerId() != p || e.GetState() != tournamentv1.TournamentState_TOURNAMENT_STATE_FINISHED {
			t.Fatalf("%s's history %v: place, prize, bounties %v; the results say %v", p, e, got, want[p])
		}
		if p != "d" {
			if e.GetEntry().GetReentries() != 0 || len(e.GetPenalties()) != 0 {
				t.Fatalf("%s's history %v", p, e)
			}
			continue
		}
		// G-23: the re-entry and both entries paid; TR-32: the warning.
		pen := e.GetPenalties()
		if e.GetEntry().GetReentries() != 1 || e.GetEntry().GetPaid() != 2*6100 || len(pen) != 1 ||
			pen[0].GetType() != tournamentv1.PenaltyType_PENALTY_TYPE_WARNING || pen[0].GetReason() != "exposed a card" ||
			pen[0].GetIssuedBy() != "floor-1" || !pen[0].GetIssueTime().AsTime().Equal(now.Add(time.Hour)) {
			t.Fatalf("d's knockout event: %v", e)
		}
	}
	if code, _ := history("d", f.bearer(t, "c", auth.Player)); code != http.StatusForbidden {
		t.Fatalf("c reading d's history: %d", code)
	}
	if code, h := history("d", f.bearer(t, "floor-2", auth.Floor)); code != http.StatusOK || len(h.GetEvents()) != 2 {
		t.Fatalf("the floor reading d's history: %d %v", code, h)
	}
	if code, _ := history("d", ""); code != http.StatusUnauthorized {
		t.Fatalf("d's history with no token: %d", code)
	}
	if code, h := history("zed", f.bearer(t, "zed", auth.Player)); code != http.StatusOK || len(h.GetEvents()) != 0 {
		t.Fatalf("the history of a player who never entered: %d %v", code, h)
	}
}
