package tables

import (
	"testing"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/table/engine"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	nl := func() Definition {
		return Definition{Name: "Table 7", Seats: 9, Kind: Cash,
			Config: engine.Config{Game: engine.Holdem, Structure: engine.NoLimit, Stakes: engine.Stakes{SmallBlind: 200, BigBlind: 500}}}
	}
	stud := func() Definition {
		return Definition{Name: "Stud 1", Seats: 8, Kind: Cash,
			Config: engine.Config{Game: engine.Stud, Structure: engine.FixedLimit, Stakes: engine.Stakes{Ante: 100, BringIn: 200, SmallBet: 500, BigBet: 1000}}}
	}
	tests := []struct {
		name      string
		def       func() Definition
		edit      func(*Definition)
		wantField string
		wantRule  string
	}{
		{name: "NL hold'em 2/5", def: nl},
		{name: "FL stud", def: stud},
		{name: "TP-27 FL hold'em bets default from the big blind", def: nl, edit: func(d *Definition) { d.Config.Structure = engine.FixedLimit }},
		{name: "empty name", def: nl, edit: func(d *Definition) { d.Name = " " }, wantField: "name"},
		{name: "one seat", def: nl, edit: func(d *Definition) { d.Seats = 1 }, wantField: "seats"},
		{name: "eleven seats", def: nl, edit: func(d *Definition) { d.Seats = 11 }, wantField: "seats"},
		{name: "nine-handed stud", def: stud, edit: func(d *Definition) { d.Seats = 9 }, wantField: "seats"},
		{name: "TP-27 no-limit stud", def: stud, edit: func(d *Definition) { d.Config.Structure = engine.NoLimit }, wantField: "game.structure", wantRule: "TP-27"},
		{name: "stud without bring-in", def: stud, edit: func(d *Definition) { d.Config.Stakes.BringIn = 0 }, wantField: "game.stakes.bring_in"},
		{name: "small blind above big", def: nl, edit: func(d *Definition) { d.Config.Stakes.SmallBlind = 600 }, wantField: "game.stakes.small_blind"},
		{name: "negative ante", def: nl, edit: func(d *Definition) { d.Config.Stakes.Ante = -1 }, wantField: "game.stakes"},
		{name: "limit units on NL", def: nl, edit: func(d *Definition) { d.Config.Stakes.BigBet = 1000 }, wantField: "game.stakes"},
		{name: "no kind", def: nl, edit: func(d *Definition) { d.Kind = KindUnspecified }, wantField: "kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := tt.def()
			if tt.edit != nil {
				tt.edit(&d)
			}
			err := d.Validate()
			if tt.wantField == "" {
				if err != nil {
					t.Fatalf("Validate = %v", err)
				}
				if d.Config.Profile.Name == "" {
					t.Fatal("profile not defaulted")
				}
				if d.Config.Structure == engine.FixedLimit && (d.Config.Stakes.SmallBet <= 0 || d.Config.Stakes.BigBet != 2*d.Config.Stakes.SmallBet) {
					t.Fatalf("fixed-limit units %+v", d.Config.Stakes)
				}
				return
			}
			f, ok := fault.As(err)
			if !ok || f.Kind != fault.Invalid || f.Meta["field"] != tt.wantField || f.Rule != tt.wantRule {
				t.Fatalf("Validate = %v (%+v), want invalid %s rule %q", err, f, tt.wantField, tt.wantRule)
			}
		})
	}
}

func TestValidateMarksTournamentTables(t *testing.T) {
	t.Parallel()
	d := Definition{Name: "Final", Seats: 9, Kind: Tournament,
		Config: engine.Config{Game: engine.Holdem, Structure: engine.NoLimit, Stakes: engine.Stakes{SmallBlind: 100, BigBlind: 200}}}
	if err := d.Validate(); err != nil || !d.Config.Tournament {
		t.Fatalf("Validate = %v, tournament = %v", err, d.Config.Tournament)
	}
}

// TestChipUnit_TP31: a cash table's smallest chip defaults to the one its
// stakes are posted in, an explicit one is kept, and one that does not
// divide every stake is refused citing TP-31.
func TestChipUnit_TP31(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		stakes engine.Stakes
		unit   int64 // asked for
		want   int64 // 0: refused
	}{
		{"default at 5/10", engine.Stakes{SmallBlind: 5, BigBlind: 10}, 0, 5},
		{"default at 25/50 with a 5 ante", engine.Stakes{SmallBlind: 25, BigBlind: 50, Ante: 5}, 0, 5},
		{"default at 1/2", engine.Stakes{SmallBlind: 1, BigBlind: 2}, 0, 1},
		{"explicit 25 at 50/100", engine.Stakes{SmallBlind: 50, BigBlind: 100}, 25, 25},
		{"3 does not divide 5/10", engine.Stakes{SmallBlind: 5, BigBlind: 10}, 3, 0},
		{"negative", engine.Stakes{SmallBlind: 5, BigBlind: 10}, -5, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			k := tt.stakes
			k.ChipUnit = tt.unit
			d := Definition{Name: "T", Seats: 6, Kind: Cash, Config: engine.Config{Game: engine.Holdem, Structure: engine.NoLimit, Stakes: k}}
			err := d.Validate()
			if tt.want == 0 {
				f, ok := fault.As(err)
				if !ok || f.Kind != fault.Invalid || f.Meta["field"] != "min_chip_unit" {
					t.Fatalf("Validate = %v, want invalid min_chip_unit", err)
				}
				if tt.unit > 0 && (f.Rule != "TP-31" || f.Reason != "NOT_CHIP_UNIT_MULTIPLE") {
					t.Fatalf("Validate = %+v, want TP-31 NOT_CHIP_UNIT_MULTIPLE", f)
				}
				return
			}
			if err != nil || d.Config.Stakes.ChipUnit != tt.want {
				t.Fatalf("Validate = %v, chip unit %d, want %d", err, d.Config.Stakes.ChipUnit, tt.want)
			}
		})
	}
}
