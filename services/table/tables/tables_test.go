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
