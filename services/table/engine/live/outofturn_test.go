package live

import (
	"errors"
	"github.com/cardroom/cardroom/services/table/engine/refusal"
	"reflect"
	"testing"
)

func TestSkippedPlayer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		s     Skipped
		want  SkipOutcome
		rule  string
		floor bool
	}{
		{"TP-46 a skipped player who reacts gets the action back", Skipped{Reacted: true, ActedSince: 1}, ActionReturns, "TP-46", false},
		{"TP-46 one player acted after the skip: the skipped player must act now", Skipped{ActedSince: 1, FacedBet: true}, ActionReturns, "TP-46", false},
		{"TP-47 two players acted, no bet faced: deemed checked", Skipped{ActedSince: 2}, DeemedChecked, "TP-47", false},
		{"TP-47 two players acted, facing a bet: deemed folded", Skipped{ActedSince: 3, FacedBet: true}, DeemedFolded, "TP-47", false},
		{"TP-47 takes precedence over a later deal", Skipped{ActedSince: 2, FacedBet: true, NextStreetDealt: true}, DeemedFolded, "TP-47", false},
		{"TP-48 next round dealt before the skipped player could react: floor", Skipped{ActedSince: 1, NextStreetDealt: true}, FloorDecision, "TP-48", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := SkippedPlayer(tc.s)
			if r.Outcome != tc.want || r.CallFloor != tc.floor || len(r.Rules) == 0 || r.Rules[0].Rule != tc.rule {
				t.Errorf("got %v floor=%v %+v, want %v %s", r.Outcome, r.CallFloor, r.Rules, tc.want, tc.rule)
			}
		})
	}
}

// The seed's examples (RULES.md TP-50): A bets 200, B is skipped, C raises
// out of turn to 1000; or A checks, B and C are skipped, D bets 500.
var (
	cRaises = OutOfTurn{Faced: 200, Action: Wager{Raise, 1000}, SkippedCount: 1}
	dBets   = OutOfTurn{Faced: 0, Action: Wager{Bet, 500}, SkippedCount: 2}
)

func then(o OutOfTurn, tournament bool, skipped ...Wager) OutOfTurn {
	o.Tournament = tournament
	o.Skipped = skipped
	return o
}

type oot struct {
	outcome  Outcome
	wager    int64
	returned int64
	options  []Action
	decided  Action
	canRaise bool
	scenario string
	rule     string
}

func checkOOT(t *testing.T, o OutOfTurn, w oot) {
	t.Helper()
	r, err := ResolveOutOfTurn(o)
	if err != nil {
		t.Fatalf("ResolveOutOfTurn: %v", err)
	}
	if r.Outcome != w.outcome || r.Wager != w.wager || r.Returned != w.returned || !reflect.DeepEqual(r.Options, w.options) ||
		r.Decided != w.decided || r.CanBetOrRaise != w.canRaise || r.Scenario != w.scenario {
		t.Errorf("got %v wager %d returned %d options %v decided %v canRaise %v scenario %q\nwant %v wager %d returned %d options %v decided %v canRaise %v scenario %q",
			r.Outcome, r.Wager, r.Returned, r.Options, r.Decided, r.CanBetOrRaise, r.Scenario,
			w.outcome, w.wager, w.returned, w.options, w.decided, w.canRaise, w.scenario)
	}
	// A ruling either decides the action or leaves a choice, never both
	// (the proto's OutOfTurnRuling.options are empty when it decided).
	if r.Decided != ActionNone && len(r.Options) > 0 {
		t.Errorf("decided %v and still offers %v", r.Decided, r.Options)
	}
	if len(r.Rules) == 0 || r.Rules[0].Rule != w.rule {
		t.Errorf("rules %+v, want %s first", r.Rules, w.rule)
	}
}

func TestTP50_S1_SkippedCallsSoOutOfTurnRaiseBecomesCall(t *testing.T) {
	t.Parallel()
	checkOOT(t, then(cRaises, false, Wager{Call, 200}),
		oot{outcome: CheckOrCall, wager: 200, returned: 800, decided: Call, scenario: "TP-50/S1", rule: "TP-50"})
}

func TestTP50_S2_SkippedRaisesSoOutOfTurnRaiseIsReturned(t *testing.T) {
	t.Parallel()
	checkOOT(t, then(cRaises, false, Wager{Raise, 600}),
		oot{outcome: Withdrawn, wager: 0, returned: 1000, options: []Action{Fold, Call, Raise}, canRaise: true, scenario: "TP-50/S2", rule: "TP-50"})
}

func TestTP50_S3_SkippedFoldsSoOutOfTurnRaiseStands(t *testing.T) {
	t.Parallel()
	checkOOT(t, then(cRaises, false, Wager{Action: Fold}),
		oot{outcome: Stands, wager: 1000, decided: Raise, canRaise: true, scenario: "TP-50/S3", rule: "TP-50"})
}

func TestTP50_S4_SkippedCheckSoOutOfTurnBetIsReturnedAndMustCheck(t *testing.T) {
	t.Parallel()
	checkOOT(t, then(dBets, false, Wager{Action: Check}, Wager{Action: Check}),
		oot{outcome: CheckOrCall, wager: 0, returned: 500, decided: Check, scenario: "TP-50/S4", rule: "TP-50"})
}

func TestTP50_S5_SkippedBetsSoOutOfTurnBetIsReturned(t *testing.T) {
	t.Parallel()
	for _, skipped := range [][]Wager{
		{{Action: Check}, {Bet, 100}}, // C bets less than D did
		{{Bet, 800}},                  // B bets more; C still to act does not matter
	} {
		checkOOT(t, then(dBets, false, skipped...),
			oot{outcome: Withdrawn, wager: 0, returned: 500, options: []Action{Fold, Call, Raise}, canRaise: true, scenario: "TP-50/S5", rule: "TP-50"})
	}
}

func TestTP50_PendingUntilEverySkippedPlayerActed(t *testing.T) {
	t.Parallel()
	checkOOT(t, then(dBets, false, Wager{Action: Check}),
		oot{outcome: Pending, wager: 500, canRaise: true, rule: "TP-46"})
}

func TestTP50_BlindInFrontIsNotReturned(t *testing.T) {
	t.Parallel()
	// The big blind (100 in front) raises out of turn to 600 facing 300; the
	// skipped player calls: the big blind must call 300 and gets 300 back.
	o := OutOfTurn{Faced: 300, InFront: 100, Action: Wager{Raise, 600}, SkippedCount: 1, Skipped: []Wager{{Call, 300}}}
	checkOOT(t, o, oot{outcome: CheckOrCall, wager: 300, returned: 300, decided: Call, scenario: "TP-50/S1", rule: "TP-50"})
}

func TestTP52_S1_TournamentSkippedCallsOutOfTurnRaiseStands(t *testing.T) {
	t.Parallel()
	checkOOT(t, then(cRaises, true, Wager{Call, 200}),
		oot{outcome: Stands, wager: 1000, decided: Raise, canRaise: true, scenario: "TP-52/S1", rule: "TP-52"})
}

func TestTP52_S2_TournamentSmallerRaiseOutOfTurnRaiseStands(t *testing.T) {
	t.Parallel()
	checkOOT(t, then(cRaises, true, Wager{Raise, 600}),
		oot{outcome: Stands, wager: 1000, decided: Raise, canRaise: true, scenario: "TP-52/S2", rule: "TP-52"})
}

func TestTP52_S3_TournamentSkippedFoldsOutOfTurnRaiseStands(t *testing.T) {
	t.Parallel()
	checkOOT(t, then(cRaises, true, Wager{Action: Fold}),
		oot{outcome: Stands, wager: 1000, decided: Raise, canRaise: true, scenario: "TP-52/S3", rule: "TP-52"})
}

func TestTP52_S4_TournamentSkippedCheckOutOfTurnBetStands(t *testing.T) {
	t.Parallel()
	checkOOT(t, then(dBets, true, Wager{Action: Check}, Wager{Action: Check}),
		oot{outcome: Stands, wager: 500, decided: Bet, canRaise: true, scenario: "TP-52/S4", rule: "TP-52"})
}

func TestTP52_S5_TournamentSkippedBetsMoreGivesOptions(t *testing.T) {
	t.Parallel()
	checkOOT(t, then(dBets, true, Wager{Action: Check}, Wager{Bet, 800}),
		oot{outcome: Choose, wager: 500, options: []Action{Call, Fold, Raise}, canRaise: true, scenario: "TP-52/S5", rule: "TP-52"})
	// A skipped bet of no more than the out-of-turn bet leaves it standing.
	checkOOT(t, then(dBets, true, Wager{Bet, 300}),
		oot{outcome: Stands, wager: 500, decided: Bet, canRaise: true, rule: "TP-52"})
}

func TestOutOfTurnCheckAndFold(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		o    OutOfTurn
		want oot
	}{
		{"TP-49 out-of-turn check: no bet or raise later, options while pending",
			OutOfTurn{Action: Wager{Action: Check}, SkippedCount: 2, Skipped: []Wager{{Action: Check}}},
			oot{outcome: CheckedNoRaise, options: []Action{Check, Call, Fold}, rule: "TP-49"}},
		{"TP-49 out-of-turn check, a skipped player bets: call or fold only",
			OutOfTurn{Action: Wager{Action: Check}, SkippedCount: 1, Skipped: []Wager{{Bet, 300}}},
			oot{outcome: CheckedNoRaise, options: []Action{Call, Fold}, rule: "TP-49"}},
		{"TP-49 out-of-turn check, skipped players check: the check stands",
			OutOfTurn{Action: Wager{Action: Check}, SkippedCount: 1, Skipped: []Wager{{Action: Check}}},
			oot{outcome: CheckedNoRaise, decided: Check, rule: "TP-49"}},
		{"TP-49 TP-52 tournament out-of-turn check falls back to TP-49 (P-2)",
			OutOfTurn{Tournament: true, Action: Wager{Action: Check}, SkippedCount: 1, Skipped: []Wager{{Action: Check}}},
			oot{outcome: CheckedNoRaise, decided: Check, rule: "TP-49"}},
		{"TP-51 out-of-turn fold is binding",
			OutOfTurn{Faced: 200, Action: Wager{Action: Fold}, SkippedCount: 1, Skipped: []Wager{{Raise, 600}}},
			oot{outcome: Folded, decided: Fold, rule: "TP-51"}},
		{"TP-51 TP-52 tournament out-of-turn fold is binding too",
			OutOfTurn{Tournament: true, Faced: 200, InFront: 100, Action: Wager{Action: Fold}, SkippedCount: 1},
			oot{outcome: Folded, wager: 100, decided: Fold, rule: "TP-51"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkOOT(t, tc.o, tc.want)
		})
	}
	r, _ := ResolveOutOfTurn(tests[3].o)
	if len(r.Rules) != 2 || r.Rules[1].Rule != "TP-52" {
		t.Errorf("tournament fallback not cited: %+v", r.Rules)
	}
}

func TestOutOfTurnErrors(t *testing.T) {
	t.Parallel()
	for _, o := range []OutOfTurn{
		{Faced: 200, Action: Wager{Action: Check}, SkippedCount: 1}, // check facing a bet
		{Faced: 200, Action: Wager{Raise, 200}, SkippedCount: 1},    // raise not above the bet
		{Faced: 200, Action: Wager{Call, 300}, SkippedCount: 1},     // call of the wrong amount
		{Faced: 200, Action: Wager{Raise, 600}, SkippedCount: 0},    // nobody skipped
		{Faced: 200, Action: Wager{Raise, 600}, SkippedCount: 1, Skipped: []Wager{{}, {}}},
		{Faced: 200, InFront: 300, Action: Wager{Raise, 600}, SkippedCount: 1},
	} {
		_, err := ResolveOutOfTurn(o)
		var re *refusal.Error
		if !errors.As(err, &re) || re.Reason != refusal.BadOutOfTurnCase {
			t.Errorf("%+v: err = %v", o, err)
		}
	}
}
