package proto_test

import (
	"errors"
	"testing"
	"time"

	"buf.build/go/protovalidate"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	seatingv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/seating/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"
)

func holdem() *gamev1.Game {
	return &gamev1.Game{
		Variant:   gamev1.Variant_VARIANT_HOLDEM,
		Structure: gamev1.Structure_STRUCTURE_NO_LIMIT,
		Stakes:    &gamev1.Stakes{SmallBlind: 100, BigBlind: 200},
	}
}

func stud() *gamev1.Game {
	return &gamev1.Game{
		Variant:   gamev1.Variant_VARIANT_STUD,
		Structure: gamev1.Structure_STRUCTURE_FIXED_LIMIT,
		Stakes:    &gamev1.Stakes{Ante: 25, BringIn: 50, SmallBet: 100, BigBet: 200},
	}
}

// TestRequestConstraints checks that the protovalidate rules on our request
// messages compile and accept and refuse what they should, naming the field
// (the gateway's 400 relies on that).
func TestRequestConstraints(t *testing.T) {
	t.Parallel()
	validator, err := protovalidate.New()
	if err != nil {
		t.Fatal(err)
	}
	table := func(edit func(*tablev1.CreateTableRequest)) *tablev1.CreateTableRequest {
		r := &tablev1.CreateTableRequest{Name: "Table 1", Game: holdem(), Seats: 9, Kind: tablev1.TableKind_TABLE_KIND_CASH, Mode: tablev1.TableMode_TABLE_MODE_DIGITAL}
		if edit != nil {
			edit(r)
		}
		return r
	}
	tournament := func(edit func(*tournamentv1.CreateTournamentRequest)) *tournamentv1.CreateTournamentRequest {
		r := &tournamentv1.CreateTournamentRequest{
			Name: "Sunday 100", Variant: gamev1.Variant_VARIANT_HOLDEM, Structure: gamev1.Structure_STRUCTURE_NO_LIMIT,
			Currency: "EUR", BuyIn: 9000, Fee: 1000, StartingStack: 20000,
			StartTime: timestamppb.New(time.Date(2026, 12, 6, 18, 0, 0, 0, time.UTC)),
		}
		if edit != nil {
			edit(r)
		}
		return r
	}
	tests := []struct {
		name  string
		msg   proto.Message
		field string // "" means valid; otherwise the field path or rule ID expected in the violation
	}{
		{"open account", &walletv1.OpenAccountRequest{OwnerId: "alice", Currency: "EUR", Kind: walletv1.AccountKind_ACCOUNT_KIND_PLAYER}, ""},
		{"open account lower-case currency", &walletv1.OpenAccountRequest{OwnerId: "alice", Currency: "eur", Kind: walletv1.AccountKind_ACCOUNT_KIND_PLAYER}, "currency"},
		{"open account no owner", &walletv1.OpenAccountRequest{Currency: "EUR", Kind: walletv1.AccountKind_ACCOUNT_KIND_PLAYER}, "owner_id"},
		{"open account no kind", &walletv1.OpenAccountRequest{OwnerId: "alice", Currency: "EUR"}, "kind"},
		{"open account undefined kind", &walletv1.OpenAccountRequest{OwnerId: "alice", Currency: "EUR", Kind: 99}, "kind"},
		{"balance", &walletv1.GetBalanceRequest{AccountId: "acc_01"}, ""},
		{"balance bad id", &walletv1.GetBalanceRequest{AccountId: "../etc"}, "account_id"},
		{"table holdem", table(nil), ""},
		{"table stud", table(func(r *tablev1.CreateTableRequest) { r.Game = stud() }), ""},
		{"table one seat", table(func(r *tablev1.CreateTableRequest) { r.Seats = 1 }), "seats"},
		{"table eleven seats", table(func(r *tablev1.CreateTableRequest) { r.Seats = 11 }), "seats"},
		{"table no name", table(func(r *tablev1.CreateTableRequest) { r.Name = "" }), "name"},
		{"table no game", table(func(r *tablev1.CreateTableRequest) { r.Game = nil }), "game"},
		{"table no mode", table(func(r *tablev1.CreateTableRequest) { r.Mode = 0 }), "mode"},
		{"table negative ante", table(func(r *tablev1.CreateTableRequest) { r.Game.Stakes.Ante = -1 }), "game.stakes.ante"},
		{"table blinds reversed", table(func(r *tablev1.CreateTableRequest) { r.Game.Stakes.SmallBlind = 300 }), "game.blinds"},
		{"table stud without bring-in", table(func(r *tablev1.CreateTableRequest) { r.Game = stud(); r.Game.Stakes.BringIn = 0 }), "game.bring_in"},
		{"table TP-27 fixed limit without bets", table(func(r *tablev1.CreateTableRequest) {
			r.Game.Structure = gamev1.Structure_STRUCTURE_FIXED_LIMIT
		}), "game.fixed_limit_bets"},
		{"table unknown variant", table(func(r *tablev1.CreateTableRequest) { r.Game.Variant = 42 }), "game.variant"},
		{"get table", &tablev1.GetTableRequest{TableId: "t1"}, ""},
		{"get table empty id", &tablev1.GetTableRequest{}, "table_id"},
		{"list tables page too big", &tablev1.ListTablesRequest{PageSize: 101}, "page_size"},
		{"waitlist", &seatingv1.CreateWaitlistRequest{Game: holdem()}, ""},
		{"waitlist no game", &seatingv1.CreateWaitlistRequest{}, "game"},
		{"tournament", tournament(nil), ""},
		{"tournament free entry", tournament(func(r *tournamentv1.CreateTournamentRequest) { r.BuyIn = 0 }), "buy_in"},
		{"tournament negative fee", tournament(func(r *tournamentv1.CreateTournamentRequest) { r.Fee = -1 }), "fee"},
		{"tournament no stack", tournament(func(r *tournamentv1.CreateTournamentRequest) { r.StartingStack = 0 }), "starting_stack"},
		{"tournament no start", tournament(func(r *tournamentv1.CreateTournamentRequest) { r.StartTime = nil }), "start_time"},
		{"tournament no variant", tournament(func(r *tournamentv1.CreateTournamentRequest) { r.Variant = 0 }), "variant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := validator.Validate(tt.msg)
			if tt.field == "" {
				if err != nil {
					t.Fatalf("Validate = %v, want valid", err)
				}
				return
			}
			var verr *protovalidate.ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("Validate = %v, want a ValidationError naming %s", err, tt.field)
			}
			for _, v := range verr.Violations {
				path := protovalidate.FieldPathString(v.Proto.GetField())
				if path == tt.field || v.Proto.GetRuleId() == tt.field || (path != "" && path+"."+v.Proto.GetRuleId() == tt.field) {
					return
				}
			}
			t.Fatalf("violations %v do not name %s", verr, tt.field)
		})
	}
}
