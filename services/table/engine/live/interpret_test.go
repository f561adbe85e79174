package live

import (
	"errors"
	"github.com/cardroom/cardroom/services/table/engine/refusal"
	"testing"
)

// Situations used below. Chip unit 25, big blind 100.
var (
	nlOpen   = Situation{Structure: NoLimit, CurrentBet: 0, Stack: 5000, MinRaiseTo: 100, ChipUnit: 25}
	nlFacing = Situation{Structure: NoLimit, CurrentBet: 200, Stack: 5000, MinRaiseTo: 400, ChipUnit: 25}
	plOpen   = Situation{Structure: PotLimit, CurrentBet: 0, Stack: 5000, MinRaiseTo: 100, MaxRaiseTo: 300, ChipUnit: 25}
	plFacing = Situation{Structure: PotLimit, CurrentBet: 200, Stack: 5000, MinRaiseTo: 400, MaxRaiseTo: 700, ChipUnit: 25}
	flFacing = Situation{Structure: FixedLimit, CurrentBet: 100, Stack: 5000, MinRaiseTo: 200, ChipUnit: 25}
	// The big blind of 100 facing a raise to 300 before the flop.
	bbFacing = Situation{Structure: NoLimit, Preflop: true, CurrentBet: 300, InFront: 100, Stack: 5000, MinRaiseTo: 500, ChipUnit: 25}
	// The big blind's option: everyone called 100.
	bbOption = Situation{Structure: NoLimit, Preflop: true, CurrentBet: 100, InFront: 100, Stack: 5000, MinRaiseTo: 200, ChipUnit: 25}
)

func tourn(s Situation) Situation { s.Tournament = true; return s }
func short(s Situation, stack int64) Situation {
	s.Stack = stack
	return s
}
func closedBy(s Situation, rule string) Situation { s.RaiseClosed = rule; return s }

// chips is an undeclared push of n chips worth total in one motion; the
// largest chip is not recorded.
func chips(total int64, n int) Entry {
	return Entry{ChipsTotal: total, ChipCount: n, Motions: 1}
}

func chip(v int64) Entry { return Entry{ChipsTotal: v, ChipCount: 1, LargestChip: v, Motions: 1} }

func declare(d Declaration, amount int64, e Entry) Entry {
	e.Declaration, e.Amount, e.DeclaredBeforeChips = d, amount, true
	return e
}

func TestInterpret(t *testing.T) {
	t.Parallel()
	type want struct {
		action   Action
		amount   int64
		returned int64
		owed     int64
		allIn    bool
		floor    bool
		await    bool
		rules    []string // must be cited
		notCited []string
	}
	tests := []struct {
		name string
		e    Entry
		s    Situation
		want want
	}{
		// TP-32
		{"TP-32 a declared amount is the total", declare(DeclareBetOrRaise, 600, Entry{}), nlFacing,
			want{action: Raise, amount: 600, owed: 600, rules: []string{"TP-32"}}},
		{"TP-32 raise by, clearly stated, is added to the bet", Entry{Declaration: DeclareBetOrRaise, Amount: 600, RaiseBy: true, DeclaredBeforeChips: true}, nlFacing,
			want{action: Raise, amount: 800, owed: 800, rules: []string{"TP-32"}}},
		// TP-33
		{"TP-33 single chip opening NL: the chip's full value", chip(500), nlOpen,
			want{action: Bet, amount: 500, rules: []string{"TP-33"}}},
		{"TP-33 TP-25 single chip opening PL: capped at the pot", chip(1000), plOpen,
			want{action: Bet, amount: 300, returned: 700, rules: []string{"TP-33", "TP-25"}}},
		{"TP-33 TP-40 single chip below the minimum bet is completed", chip(25), nlOpen,
			want{action: Bet, amount: 100, owed: 75, rules: []string{"TP-33", "TP-40"}}},
		// TP-34
		{"TP-34 single chip facing a bet is a call", chip(1000), nlFacing,
			want{action: Call, amount: 200, returned: 800, rules: []string{"TP-34"}, notCited: []string{"TP-41"}}},
		{"TP-34 single chip facing a bet before the flop (cash) is a call", chip(1000), bbFacing,
			want{action: Call, amount: 300, returned: 800, rules: []string{"TP-34"}}},
		{"TP-34 a declared raise with a single chip is a raise", declare(DeclareBetOrRaise, 0, chip(1000)), nlFacing,
			want{action: Raise, amount: 1000, rules: []string{"TP-07"}, notCited: []string{"TP-34"}}},
		// TP-35
		{"TP-35 tournament pre-flop: an oversized chip is a call", chip(1000), tourn(bbFacing),
			want{action: Call, amount: 300, returned: 800, rules: []string{"TP-35"}}},
		{"TP-35 tournament pre-flop big blind option: an oversized chip is a call, i.e. a check", chip(500), tourn(bbOption),
			want{action: Check, amount: 100, returned: 500, rules: []string{"TP-35"}}},
		{"TP-35 tournament post-flop, not facing a bet: a bet of the chip (TP-33 by P-2)", chip(500), tourn(nlOpen),
			want{action: Bet, amount: 500, rules: []string{"TP-35", "TP-33"}}},
		{"TP-35 G-13 tournament post-flop facing a bet: a call, floor to confirm", chip(1000), tourn(nlFacing),
			want{action: Call, amount: 200, returned: 800, floor: true, rules: []string{"TP-35", "G-13"}}},
		// TP-36
		{"TP-36 big blind pushes the raise amount: a call, the blind is not extra", chips(300, 3), bbFacing,
			want{action: Call, amount: 300, returned: 100, rules: []string{"TP-36"}, notCited: []string{"TP-41"}}},
		{"TP-36 TP-41 big blind pushes more than the raise amount: extra chips, 50 % rule", chips(350, 4), bbFacing,
			want{action: Raise, amount: 500, owed: 50, rules: []string{"TP-41"}, notCited: []string{"TP-36"}}},
		// TP-37
		{"TP-37 cash: raise declared, call chips then the raise in one more motion", Entry{Declaration: DeclareBetOrRaise, DeclaredBeforeChips: true, ChipsTotal: 600, ChipCount: 6, LargestChip: 100, Motions: 2}, nlFacing,
			want{action: Raise, amount: 600, rules: []string{"TP-37"}}},
		{"TP-37 tournament: after raise the chips must go in in one motion, floor", Entry{Declaration: DeclareBetOrRaise, DeclaredBeforeChips: true, ChipsTotal: 600, ChipCount: 6, LargestChip: 100, Motions: 2}, tourn(nlFacing),
			want{action: Raise, amount: 400, returned: 200, floor: true, rules: []string{"TP-37", "TP-38"}}},
		{"TP-37 tournament: raise declared, one motion", Entry{Declaration: DeclareBetOrRaise, DeclaredBeforeChips: true, ChipsTotal: 600, ChipCount: 6, LargestChip: 100, Motions: 1}, tourn(nlFacing),
			want{action: Raise, amount: 600}},
		{"TP-37 cash: three motions after raise is a string bet, floor", Entry{Declaration: DeclareBetOrRaise, DeclaredBeforeChips: true, ChipsTotal: 600, ChipCount: 6, LargestChip: 100, Motions: 3}, nlFacing,
			want{action: Raise, amount: 400, returned: 200, floor: true, rules: []string{"TP-37", "TP-38"}}},
		{"TP-37 raise said after a one-motion push: the chips decide", Entry{Declaration: DeclareBetOrRaise, ChipsTotal: 250, ChipCount: 2, LargestChip: 200, Motions: 1}, nlFacing,
			want{action: Call, amount: 200, returned: 50, rules: []string{"TP-37", "TP-41"}}},
		// TP-38
		{"TP-38 undeclared chips in two motions facing a bet: string bet, a call (G-15), floor", Entry{ChipsTotal: 700, ChipCount: 7, LargestChip: 100, Motions: 2}, nlFacing,
			want{action: Call, amount: 200, returned: 500, floor: true, rules: []string{"TP-38", "G-15"}}},
		{"TP-38 an amount said after the first chips, two motions: a string bet, floor", Entry{Declaration: DeclareBetOrRaise, Amount: 500, ChipsTotal: 500, ChipCount: 5, LargestChip: 100, Motions: 2}, nlFacing,
			want{action: Call, amount: 200, returned: 300, floor: true, rules: []string{"TP-38", "G-15"}, notCited: []string{"TP-32"}}},
		{"TP-38 TP-37 an amount said after a one-motion push: the chips decide", Entry{Declaration: DeclareBetOrRaise, Amount: 500, ChipsTotal: 250, ChipCount: 2, LargestChip: 200, Motions: 1}, nlFacing,
			want{action: Call, amount: 200, returned: 50, rules: []string{"TP-37", "TP-41"}, notCited: []string{"TP-32"}}},
		{"TP-38 bet declared with no amount, nothing to call, two motions: a string bet, floor", declare(DeclareBetOrRaise, 0, Entry{ChipsTotal: 300, ChipCount: 3, LargestChip: 100, Motions: 2}), nlOpen,
			want{action: Bet, amount: 100, returned: 200, floor: true, rules: []string{"TP-38"}}},
		{"TP-38 the big blind's option: raise declared, two motions, nothing to call: a string bet, floor", declare(DeclareBetOrRaise, 0, Entry{ChipsTotal: 300, ChipCount: 3, LargestChip: 100, Motions: 2}), bbOption,
			want{action: Raise, amount: 200, returned: 200, floor: true, rules: []string{"TP-38"}}},
		{"TP-38 chips in several motions are fine after a declared amount", Entry{Declaration: DeclareBetOrRaise, Amount: 700, DeclaredBeforeChips: true, ChipsTotal: 700, ChipCount: 7, LargestChip: 100, Motions: 3}, nlFacing,
			want{action: Raise, amount: 700, rules: []string{"TP-38", "TP-32"}}},
		// TP-39
		{"TP-39 declared raise amount below the minimum is completed", declare(DeclareBetOrRaise, 300, chips(300, 3)), nlFacing,
			want{action: Raise, amount: 400, owed: 100, rules: []string{"TP-39"}}},
		{"TP-39 raise with too few chips is completed to the minimum", declare(DeclareBetOrRaise, 0, chips(250, 2)), nlFacing,
			want{action: Raise, amount: 400, owed: 150, rules: []string{"TP-39"}}},
		{"TP-39 raise completed to all-in when the stack is smaller", declare(DeclareBetOrRaise, 0, chips(250, 2)), short(nlFacing, 300),
			want{action: Raise, amount: 300, owed: 50, allIn: true, rules: []string{"TP-39"}}},
		{"TP-39 raise with no chips yet: the minimum raise", declare(DeclareBetOrRaise, 0, Entry{}), nlFacing,
			want{action: Raise, amount: 400, owed: 400, rules: []string{"TP-39"}}},
		// TP-40
		{"TP-40 declared opening bet below the minimum is completed", declare(DeclareBetOrRaise, 50, Entry{}), nlOpen,
			want{action: Bet, amount: 100, owed: 100, rules: []string{"TP-40"}}},
		{"TP-40 pushed opening bet below the minimum is completed", chips(50, 2), nlOpen,
			want{action: Bet, amount: 100, owed: 50, rules: []string{"TP-40"}}},
		{"TP-40 opening bet completed to all-in when the stack is smaller", chips(50, 2), short(nlOpen, 75),
			want{action: Bet, amount: 75, owed: 25, allIn: true, rules: []string{"TP-40"}}},
		// TP-41
		{"TP-41 a full raise pushed silently", chips(500, 5), nlFacing,
			want{action: Raise, amount: 500, rules: []string{"TP-41"}}},
		{"TP-41 at least half the minimum raise: completed (200 -> 300 made 400)", chips(300, 3), nlFacing,
			want{action: Raise, amount: 400, owed: 100, rules: []string{"TP-41"}}},
		{"TP-41 less than half the minimum raise: a call, the excess returned (200 -> 280)", chips(280, 4),
			Situation{Structure: NoLimit, CurrentBet: 200, Stack: 5000, MinRaiseTo: 400, ChipUnit: 20},
			want{action: Call, amount: 200, returned: 80, rules: []string{"TP-41"}}},
		{"TP-41 G-14 tournament: 50 % of the previous bet, exactly the minimum raise", chips(300, 3), tourn(Situation{Structure: NoLimit, CurrentBet: 200, Stack: 5000, MinRaiseTo: 400, LastRaise: 200, ChipUnit: 25}),
			want{action: Raise, amount: 400, owed: 100, rules: []string{"TP-41", "G-14"}}},
		{"TP-41 G-14 tournament base differs from cash: same push, cash calls", chips(650, 7), Situation{Structure: NoLimit, CurrentBet: 500, Stack: 5000, MinRaiseTo: 900, LastRaise: 300, ChipUnit: 25},
			want{action: Call, amount: 500, returned: 150, rules: []string{"TP-41"}}},
		{"TP-41 G-14 tournament base differs from cash: tournament completes", chips(650, 7), tourn(Situation{Structure: NoLimit, CurrentBet: 500, Stack: 5000, MinRaiseTo: 900, LastRaise: 300, ChipUnit: 25}),
			want{action: Raise, amount: 900, owed: 250, rules: []string{"TP-41", "G-14"}}},
		{"TP-41 big blind option: a silent raise of at least half is completed", chips(75, 3), bbOption,
			want{action: Raise, amount: 200, owed: 25, rules: []string{"TP-41"}}},
		{"TP-33 TP-41 big blind option: a small single chip is a check", chip(25), bbOption,
			want{action: Check, amount: 100, returned: 25, rules: []string{"TP-33", "TP-41"}}},
		{"TP-41 fixed limit: half a unit extra is completed to the raise", chips(150, 2), flFacing,
			want{action: Raise, amount: 200, owed: 50, rules: []string{"TP-41"}}},
		// TP-42
		{"TP-42 pot in no-limit: locked as a raise, the amount is awaited", declare(DeclarePot, 0, Entry{}), nlFacing,
			want{action: Raise, amount: 400, owed: 400, await: true, rules: []string{"TP-42"}}},
		{"TP-42 pot in no-limit with the amount then stated", declare(DeclarePot, 900, Entry{}), nlFacing,
			want{action: Raise, amount: 900, owed: 900, rules: []string{"TP-42", "TP-32"}}},
		{"TP-42 TP-40 pot in no-limit with a stated amount below the minimum", declare(DeclarePot, 50, Entry{}), nlOpen,
			want{action: Bet, amount: 100, owed: 100, rules: []string{"TP-42", "TP-40"}}},
		{"TP-42 pot in fixed limit: one unit", declare(DeclarePot, 0, Entry{}), flFacing,
			want{action: Raise, amount: 200, owed: 200, rules: []string{"TP-42"}}},
		{"TP-42 pot when raising is closed: a call, floor", declare(DeclarePot, 0, Entry{}), closedBy(flFacing, "TP-29"),
			want{action: Call, amount: 100, owed: 100, floor: true, rules: []string{"TP-42", "TP-29"}}},
		// TP-25 with "pot" (PL)
		{"TP-25 pot in pot-limit is the pot-limit maximum", declare(DeclarePot, 0, Entry{}), plFacing,
			want{action: Raise, amount: 700, owed: 700, rules: []string{"TP-25"}}},
		{"TP-25 all-in declared in pot-limit is cut to the maximum", declare(DeclareAllIn, 0, Entry{}), plFacing,
			want{action: Raise, amount: 700, owed: 700, rules: []string{"TP-25"}}},
		{"TP-25 declared amount above the pot-limit maximum is cut", declare(DeclareBetOrRaise, 2000, Entry{}), plFacing,
			want{action: Raise, amount: 700, owed: 700, rules: []string{"TP-25"}}},
		// TP-27
		{"TP-27 fixed limit: a declared raise of the wrong size is one unit", declare(DeclareBetOrRaise, 500, Entry{}), flFacing,
			want{action: Raise, amount: 200, owed: 200, rules: []string{"TP-27"}}},
		// Betting closed and all-in.
		{"TP-23 a raise when betting was not reopened is a call", declare(DeclareBetOrRaise, 800, Entry{}), closedBy(nlFacing, "TP-23"),
			want{action: Call, amount: 200, owed: 200, rules: []string{"TP-23"}}},
		{"TP-49 after an out-of-turn check the player cannot bet", chips(500, 5), closedBy(nlOpen, "TP-49"),
			want{action: Check, amount: 0, returned: 500, rules: []string{"TP-49"}}},
		{"TP-44 all-in declared in no-limit", declare(DeclareAllIn, 0, Entry{}), short(nlFacing, 1000),
			want{action: Raise, amount: 1000, owed: 1000, allIn: true}},
		{"TP-44 all-in for less than the call", declare(DeclareAllIn, 0, Entry{}), short(nlFacing, 150),
			want{action: Call, amount: 150, owed: 150, allIn: true, rules: []string{"TP-44"}}},
		{"TP-44 TP-23 whole stack pushed for less than a full raise is an all-in raise", chips(250, 2), short(nlFacing, 250),
			want{action: Raise, amount: 250, allIn: true, rules: []string{"TP-44"}}},
		{"TP-44 whole stack short of the call is an all-in call", chips(150, 2), short(nlFacing, 150),
			want{action: Call, amount: 150, allIn: true, rules: []string{"TP-44"}}},
		{"TP-02 chips short of the call, stack left: floor", chips(150, 2), nlFacing,
			want{action: Call, amount: 200, owed: 50, floor: true, rules: []string{"TP-02"}}},
		// TP-07 verbal actions
		{"TP-07 verbal call returns extra chips", declare(DeclareCall, 0, chips(500, 5)), nlFacing,
			want{action: Call, amount: 200, returned: 300, rules: []string{"TP-07"}}},
		{"TP-07 call with nothing to call is a check", declare(DeclareCall, 0, Entry{}), bbOption,
			want{action: Check, amount: 100}},
		{"TP-07 fold is binding", declare(DeclareFold, 0, Entry{}), bbFacing,
			want{action: Fold, amount: 100, rules: []string{"TP-07"}}},
		{"TP-07 check not facing a bet", declare(DeclareCheck, 0, Entry{}), nlOpen,
			want{action: Check, amount: 0}},
		{"TP-02 check facing a bet: floor", declare(DeclareCheck, 0, Entry{}), nlFacing,
			want{action: ActionNone, amount: 0, floor: true, rules: []string{"TP-02"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := Interpret(tc.e, tc.s)
			if err != nil {
				t.Fatalf("Interpret: %v", err)
			}
			w := tc.want
			if r.Action != w.action || r.Amount != w.amount || r.Returned != w.returned || r.Owed != w.owed ||
				r.AllIn != w.allIn || r.CallFloor != w.floor || r.AwaitAmount != w.await {
				t.Errorf("got %v to %d returned %d owed %d all-in %v floor %v await %v\nwant %v to %d returned %d owed %d all-in %v floor %v await %v\nrules %+v",
					r.Action, r.Amount, r.Returned, r.Owed, r.AllIn, r.CallFloor, r.AwaitAmount,
					w.action, w.amount, w.returned, w.owed, w.allIn, w.floor, w.await, r.Rules)
			}
			for _, rule := range w.rules {
				if !r.Rule(rule) {
					t.Errorf("%s not cited: %+v", rule, r.Rules)
				}
			}
			for _, rule := range w.notCited {
				if r.Rule(rule) {
					t.Errorf("%s cited: %+v", rule, r.Rules)
				}
			}
			for _, c := range r.Rules {
				if c.Rule == "" || c.Text == "" {
					t.Errorf("empty citation %+v", c)
				}
			}
		})
	}
}

func TestInterpretErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		e      Entry
		s      Situation
		rule   string
		reason refusal.Reason
	}{
		{"TP-31 chips not a multiple of the chip unit", chips(110, 2), nlFacing, "TP-31", refusal.NotChipMultiple},
		{"TP-31 declared amount not a multiple of the chip unit", declare(DeclareBetOrRaise, 410, Entry{}), nlFacing, "TP-31", refusal.NotChipMultiple},
		{"TP-31 no chip unit", chip(100), Situation{Stack: 100, MinRaiseTo: 100}, "TP-31", refusal.BadSituation},
		{"chips above the stack", chips(600, 6), short(nlFacing, 500), "", refusal.AboveStack},
		{"TP-44 a player with no chips behind cannot act", declare(DeclareCheck, 0, Entry{}), short(nlOpen, 0), "TP-44", refusal.NoChipsBehind},
		{"nothing declared, nothing pushed", Entry{}, nlFacing, "", refusal.EmptyEntry},
		{"negative chips", Entry{ChipsTotal: -25, ChipCount: 1}, nlFacing, "", refusal.BadEntry},
		{"one chip that is not the total", Entry{ChipsTotal: 200, ChipCount: 1, LargestChip: 100}, nlFacing, "", refusal.BadEntry},
		{"TP-22 minimum raise-to not above the bet", chip(100), Situation{CurrentBet: 200, MinRaiseTo: 200, Stack: 1000, ChipUnit: 25}, "TP-22", refusal.BadSituation},
		{"TP-25 pot-limit maximum below the minimum", chip(100), Situation{Structure: PotLimit, CurrentBet: 200, MinRaiseTo: 400, MaxRaiseTo: 300, Stack: 1000, ChipUnit: 25}, "TP-25", refusal.BadSituation},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Interpret(tc.e, tc.s)
			var re *refusal.Error
			if !errors.As(err, &re) || re.Rule != tc.rule || re.Reason != tc.reason {
				t.Fatalf("err = %v, want %q %s", err, tc.rule, tc.reason)
			}
		})
	}
}

// TestInterpretOpenPair_TP28 rules on fixed-limit stud wagers with an open
// pair on fourth street at 10/20, where a bet or raise may be by either
// unit until someone has made it by the larger (TP-28).
func TestInterpretOpenPair_TP28(t *testing.T) {
	t.Parallel()
	open := Situation{Structure: FixedLimit, Stack: 500, MinRaiseTo: 10, BigUnitTo: 20, ChipUnit: 5}
	facing := Situation{Structure: FixedLimit, CurrentBet: 10, Stack: 500, MinRaiseTo: 20, BigUnitTo: 30, ChipUnit: 5}
	tests := []struct {
		name   string
		e      Entry
		s      Situation
		action Action
		amount int64
		cites  string
	}{
		{"TP-28 the open bet by the larger unit", declare(DeclareBetOrRaise, 20, Entry{}), open, Bet, 20, "TP-28"},
		{"TP-28 the open bet by the smaller unit", declare(DeclareBetOrRaise, 10, Entry{}), open, Bet, 10, ""},
		{"TP-28 a raise by the larger unit after a small bet", declare(DeclareBetOrRaise, 30, Entry{}), facing, Raise, 30, "TP-28"},
		{"TP-28 chips for a raise by the larger unit", chips(30, 3), facing, Raise, 30, "TP-28"},
		{"TP-28 more than the larger unit is the larger unit", declare(DeclareBetOrRaise, 60, Entry{}), facing, Raise, 30, "TP-28"},
		{"TP-28 between the units is the smaller unit", declare(DeclareBetOrRaise, 25, Entry{}), facing, Raise, 20, "TP-28"},
		{"TP-28 a stack short of the larger unit is all in", declare(DeclareBetOrRaise, 30, Entry{}), short(facing, 25), Raise, 25, "TP-28"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := Interpret(tc.e, tc.s)
			if err != nil {
				t.Fatalf("Interpret: %v", err)
			}
			if r.Action != tc.action || r.Amount != tc.amount || (tc.cites != "" && !r.Rule(tc.cites)) || r.Rule("TP-27") {
				t.Fatalf("got %v to %d, rules %+v; want %v to %d citing %q and not TP-27", r.Action, r.Amount, r.Rules, tc.action, tc.amount, tc.cites)
			}
		})
	}
}
