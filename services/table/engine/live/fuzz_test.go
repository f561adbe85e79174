package live

import (
	"errors"
	"github.com/cardroom/cardroom/services/table/engine/refusal"
	"testing"
)

// FuzzInterpret feeds random entries in random (mostly well-formed) betting
// situations and checks that Interpret never panics, refuses only with a
// *refusal.Error, and that every ruling stays within the player's chips, on the
// chip unit, and adds up: chips pushed − returned + owed = the wager added.
func FuzzInterpret(f *testing.F) {
	f.Add(uint8(0), uint8(0), int64(4), int64(0), int64(200), int64(5000), int64(8), int64(0), int64(12), uint8(3), uint8(1), uint8(0), int64(0), false)
	f.Add(uint8(1), uint8(3), int64(8), int64(4), int64(300), int64(200), int64(8), int64(28), int64(0), uint8(1), uint8(1), uint8(1), int64(8), true)
	f.Add(uint8(2), uint8(4), int64(0), int64(0), int64(0), int64(77), int64(4), int64(12), int64(0), uint8(0), uint8(0), uint8(2), int64(0), false)
	f.Fuzz(func(t *testing.T, structure, decl uint8, bet, inFront, stack, pushed, minInc, maxTo, amount int64, count, motions, flags uint8, lastRaise int64, raiseBy bool) {
		unit := int64(1 + flags%5*5) // 1, 6, 11, 16, 21
		scale := func(v int64, mod int64) int64 {
			if v < 0 {
				v = -v
			}
			if v < 0 { // MinInt64
				v = 0
			}
			return v % mod * unit
		}
		s := Situation{
			Structure:  Structure(structure % 3),
			Tournament: flags&8 != 0,
			Preflop:    flags&16 != 0,
			CurrentBet: scale(bet, 400),
			Stack:      scale(stack, 2000),
			LastRaise:  scale(lastRaise, 400),
			ChipUnit:   unit,
		}
		s.InFront = min(scale(inFront, 400), s.CurrentBet)
		s.MinRaiseTo = s.CurrentBet + max(scale(minInc, 400), unit)
		s.MaxRaiseTo = s.MinRaiseTo + scale(maxTo, 2000)
		if flags&32 != 0 {
			s.RaiseClosed = "TP-23"
		}
		e := Entry{
			Declaration:         Declaration(decl % 7),
			Amount:              scale(amount, 4000),
			RaiseBy:             raiseBy,
			ChipsTotal:          min(scale(pushed, 4000), s.Stack),
			Motions:             int(motions % 4),
			DeclaredBeforeChips: flags&64 != 0,
		}
		if e.ChipsTotal > 0 {
			e.ChipCount = 1 + int(count%6)
			if e.ChipCount == 1 {
				e.LargestChip = e.ChipsTotal
			}
		}
		r, err := Interpret(e, s)
		if err != nil {
			var re *refusal.Error
			if !errors.As(err, &re) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		all := s.InFront + s.Stack
		if r.Amount < 0 || r.Amount > all || r.Amount%unit != 0 || r.Amount < s.InFront {
			t.Fatalf("amount %d outside [%d, %d] or off the unit %d: %+v", r.Amount, s.InFront, all, unit, r)
		}
		if r.Returned < 0 || r.Owed < 0 || r.Returned > e.ChipsTotal || r.Returned%unit != 0 || r.Owed%unit != 0 {
			t.Fatalf("returned %d owed %d for %d pushed", r.Returned, r.Owed, e.ChipsTotal)
		}
		added := r.Amount - s.InFront
		if r.Action == Fold || r.Action == ActionNone {
			added = 0
		}
		if e.ChipsTotal-r.Returned+r.Owed != added {
			t.Fatalf("chips do not add up: pushed %d returned %d owed %d, wager %d→%d", e.ChipsTotal, r.Returned, r.Owed, s.InFront, r.Amount)
		}
		switch r.Action {
		case Bet, Raise:
			if r.Amount <= s.CurrentBet || s.RaiseClosed != "" {
				t.Fatalf("%v to %d facing %d (closed %q)", r.Action, r.Amount, s.CurrentBet, s.RaiseClosed)
			}
			if r.Amount < s.MinRaiseTo && !r.AllIn {
				t.Fatalf("%v to %d below the minimum %d and not all-in", r.Action, r.Amount, s.MinRaiseTo)
			}
			if (s.Structure == PotLimit && r.Amount > s.MaxRaiseTo) || (s.Structure == FixedLimit && r.Amount > max(s.MinRaiseTo, s.BigUnitTo)) {
				t.Fatalf("%v to %d above the %v maximum", r.Action, r.Amount, s.Structure)
			}
		case Call:
			if r.Amount > s.CurrentBet || (r.Amount < s.CurrentBet && !r.AllIn) {
				t.Fatalf("call to %d facing %d", r.Amount, s.CurrentBet)
			}
		case Check:
			if s.CurrentBet != s.InFront || r.Amount != s.InFront {
				t.Fatalf("check facing %d with %d in front", s.CurrentBet, s.InFront)
			}
		}
		if r.AllIn != (r.Action != Fold && r.Action != ActionNone && r.Amount == all) {
			t.Fatalf("all-in flag %v with %d of %d", r.AllIn, r.Amount, all)
		}
		if len(r.Rules) == 0 {
			t.Fatal("a ruling without a rule")
		}
		for _, c := range r.Rules {
			if c.Rule == "" || c.Text == "" {
				t.Fatalf("empty citation %+v", c)
			}
		}
	})
}

// FuzzResolveOutOfTurn checks that out-of-turn rulings never panic, refuse
// only with a *refusal.Error, return no more than the out-of-turn chips, and
// leave a wager between the chips already in front and the out-of-turn total.
func FuzzResolveOutOfTurn(f *testing.F) {
	f.Add(false, int64(200), int64(0), uint8(5), int64(1000), uint8(1), []byte{3, 20})
	f.Add(true, int64(0), int64(0), uint8(4), int64(500), uint8(2), []byte{2, 0, 4, 80})
	f.Fuzz(func(t *testing.T, tournament bool, faced, inFront int64, action uint8, to int64, count uint8, skipped []byte) {
		o := OutOfTurn{Tournament: tournament, Faced: faced, InFront: inFront, Action: Wager{Action(action % 6), to}, SkippedCount: int(count % 5)}
		for i := 0; i+1 < len(skipped) && len(o.Skipped) < 6; i += 2 {
			o.Skipped = append(o.Skipped, Wager{Action(skipped[i] % 6), int64(skipped[i+1]) * 10})
		}
		r, err := ResolveOutOfTurn(o)
		if err != nil {
			var re *refusal.Error
			if !errors.As(err, &re) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		put := max(o.Action.To-o.InFront, 0)
		if r.Returned < 0 || r.Returned > put || r.Wager < o.InFront || r.Wager > max(o.Action.To, o.InFront) {
			t.Fatalf("%+v: wager %d returned %d", o, r.Wager, r.Returned)
		}
		if (o.Action.Action == Bet || o.Action.Action == Raise) && r.Outcome != Choose && r.Wager+r.Returned != o.Action.To {
			t.Fatalf("%+v: wager %d + returned %d != %d", o, r.Wager, r.Returned, o.Action.To)
		}
		if len(r.Rules) == 0 {
			t.Fatal("a ruling without a rule")
		}
	})
}
