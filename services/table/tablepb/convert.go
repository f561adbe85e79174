// Package tablepb translates between the table service's domain types
// (tables, engine, dealer) and its proto messages. It is the one place the
// proto enums (numbered from 1) meet the engine's (numbered from 0).
package tablepb

import (
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/tables"
)

// The proto enums number from 1 (0 is UNSPECIFIED and refused by
// protovalidate); the engine's from 0. These tables are the one place the two
// meet.
var (
	gameFromProto = map[gamev1.Variant]engine.Game{
		gamev1.Variant_VARIANT_HOLDEM: engine.Holdem, gamev1.Variant_VARIANT_OMAHA: engine.Omaha,
		gamev1.Variant_VARIANT_OMAHA_HI_LO: engine.OmahaHiLo, gamev1.Variant_VARIANT_STUD: engine.Stud,
		gamev1.Variant_VARIANT_STUD_HI_LO: engine.StudHiLo, gamev1.Variant_VARIANT_RAZZ: engine.Razz,
	}
	structureFromProto = map[gamev1.Structure]engine.Structure{
		gamev1.Structure_STRUCTURE_NO_LIMIT: engine.NoLimit, gamev1.Structure_STRUCTURE_POT_LIMIT: engine.PotLimit,
		gamev1.Structure_STRUCTURE_FIXED_LIMIT: engine.FixedLimit,
	}
	modeFromProto = map[tablev1.TableMode]engine.Mode{
		tablev1.TableMode_TABLE_MODE_DIGITAL: engine.Digital, tablev1.TableMode_TABLE_MODE_LIVE: engine.Live,
	}
	kindFromProto = map[tablev1.TableKind]tables.Kind{
		tablev1.TableKind_TABLE_KIND_CASH: tables.Cash, tablev1.TableKind_TABLE_KIND_TOURNAMENT: tables.Tournament,
	}
	gameToProto      = invert(gameFromProto)
	structureToProto = invert(structureFromProto)
	modeToProto      = invert(modeFromProto)
	kindToProto      = invert(kindFromProto)
)

func invert[K, V comparable](m map[K]V) map[V]K {
	out := make(map[V]K, len(m))
	for k, v := range m {
		out[v] = k
	}
	return out
}

// DefinitionFromProto reads a CreateTableRequest.
func DefinitionFromProto(req *tablev1.CreateTableRequest) tables.Definition {
	g := req.GetGame()
	k := g.GetStakes()
	return tables.Definition{
		Name:     req.GetName(),
		Seats:    int(req.GetSeats()),
		Kind:     kindFromProto[req.GetKind()],
		Currency: req.GetCurrency(),
		Config: engine.Config{
			Game:      gameFromProto[g.GetVariant()],
			Structure: structureFromProto[g.GetStructure()],
			Mode:      modeFromProto[req.GetMode()],
			Stakes: engine.Stakes{
				SmallBlind: k.GetSmallBlind(), BigBlind: k.GetBigBlind(), Ante: k.GetAnte(),
				BringIn: k.GetBringIn(), SmallBet: k.GetSmallBet(), BigBet: k.GetBigBet(),
				ChipUnit: req.GetMinChipUnit(),
			},
			HoleEntry:   req.GetLiveCards().GetHoleCardEntry(),
			WinnerEntry: req.GetLiveCards().GetWinnerEntry(),
		},
	}
}

// TableToProto writes a table definition.
func TableToProto(d tables.Definition) *tablev1.Table {
	k := d.Config.Stakes
	var lc *tablev1.LiveCards
	if d.Config.Mode == engine.Live {
		lc = &tablev1.LiveCards{HoleCardEntry: d.Config.HoleEntry, WinnerEntry: d.Config.WinnerEntry}
	}
	return &tablev1.Table{
		LiveCards: lc,
		TableId:   d.ID,
		Name:      d.Name,
		Game: &gamev1.Game{
			Variant:   gameToProto[d.Config.Game],
			Structure: structureToProto[d.Config.Structure],
			Stakes: &gamev1.Stakes{
				SmallBlind: k.SmallBlind, BigBlind: k.BigBlind, Ante: k.Ante,
				BringIn: k.BringIn, SmallBet: k.SmallBet, BigBet: k.BigBet,
			},
		},
		Seats:         int32(d.Seats),
		Kind:          kindToProto[d.Kind],
		Mode:          modeToProto[d.Config.Mode],
		CreateTime:    timestamppb.New(d.CreatedAt),
		Currency:      d.Currency,
		ActionSeconds: int32(d.ActionTimeout / time.Second),
		Closed:        d.Closed,
		TournamentId:  d.TournamentID,
		MinChipUnit:   max(k.ChipUnit, 1),
	}
}

// GameToProto writes the game a table deals, as the wallet and seating
// want it.
func GameToProto(c engine.Config) *gamev1.Game {
	k := c.Stakes
	return &gamev1.Game{
		Variant:   gameToProto[c.Game],
		Structure: structureToProto[c.Structure],
		Stakes: &gamev1.Stakes{
			SmallBlind: k.SmallBlind, BigBlind: k.BigBlind, Ante: k.Ante,
			BringIn: k.BringIn, SmallBet: k.SmallBet, BigBet: k.BigBet,
		},
	}
}
