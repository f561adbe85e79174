package server

import (
	"context"
	"testing"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/fault"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"github.com/cardroom/cardroom/services/wallet/buyin"
	"github.com/cardroom/cardroom/services/wallet/ledger"
)

func TestGameOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		structure gamev1.Structure
		want      buyin.Structure
		ok        bool
	}{
		{gamev1.Structure_STRUCTURE_NO_LIMIT, buyin.NoLimit, true},
		{gamev1.Structure_STRUCTURE_POT_LIMIT, buyin.PotLimit, true},
		{gamev1.Structure_STRUCTURE_FIXED_LIMIT, buyin.FixedLimit, true},
		{gamev1.Structure_STRUCTURE_UNSPECIFIED, "", false},
	}
	for _, tc := range tests {
		g, err := gameOf("T1", &gamev1.Game{Structure: tc.structure, Stakes: &gamev1.Stakes{BigBlind: 500, BigBet: 200}})
		if (err == nil) != tc.ok || g.Structure != tc.want || (tc.ok && (g.Table != "T1" || g.BigBlind != 500 || g.BigBet != 200)) {
			t.Errorf("gameOf(%v) = %+v, %v", tc.structure, g, err)
		}
	}
}

func TestRangeProto_CS02Unbounded(t *testing.T) {
	t.Parallel()
	r := rangeProto(buyin.Range{Min: 2000, Max: buyin.NoMaximum}, "CS-02", buyin.NewBuyIn)
	if !r.GetUnbounded() || r.GetMax() != 0 || r.GetMin() != 2000 || r.GetRuleId() != "CS-02" || r.GetCase() != walletv1.BuyInCase_BUY_IN_CASE_NEW {
		t.Fatalf("FL range = %v", r)
	}
	r = rangeProto(buyin.Range{Min: 20000, Max: 50000}, "CS-03", buyin.TableChange)
	if r.GetUnbounded() || r.GetMax() != 50000 || r.GetCase() != walletv1.BuyInCase_BUY_IN_CASE_TABLE_CHANGE {
		t.Fatalf("NL range = %v", r)
	}
}

func TestEveryKindHasAProtoValue(t *testing.T) {
	t.Parallel()
	for _, k := range ledger.Kinds {
		if accountKinds[k] == walletv1.AccountKind_ACCOUNT_KIND_UNSPECIFIED {
			t.Errorf("account kind %s has no proto value", k)
		}
	}
	for _, k := range []ledger.TransferKind{ledger.Deposit, ledger.Withdrawal, ledger.BuyInHold, ledger.BuyInCommit, ledger.BuyInRelease,
		ledger.CashOut, ledger.EventEntry, ledger.Rebuy, ledger.AddOn, ledger.Prize, ledger.VoucherIssue, ledger.Reversal, ledger.PoolSettlement} {
		if transferKind(k) == walletv1.TransferKind_TRANSFER_KIND_UNSPECIFIED {
			t.Errorf("transfer kind %s has no proto value", k)
		}
	}
	for c := range cases {
		if cases[c] == walletv1.BuyInCase_BUY_IN_CASE_UNSPECIFIED {
			t.Errorf("case %s has no proto value", c)
		}
	}
}

func TestReadableAccount(t *testing.T) {
	t.Parallel()
	as := func(subject string, role auth.Role) context.Context {
		return auth.NewContext(t.Context(), auth.Caller{Subject: subject, Role: role})
	}
	tests := []struct {
		name    string
		ctx     context.Context
		account string
		kind    fault.Kind // the refusal's kind when not allowed
		allowed bool
	}{
		{"player reads own", as("alice", auth.Player), "player:alice:EUR", 0, true},
		{"player reads another player's", as("alice", auth.Player), "player:bob:EUR", fault.Forbidden, false},
		{"player reads the cage", as("alice", auth.Player), "cage:EUR", fault.Forbidden, false},
		{"player sends garbage", as("alice", auth.Player), "nonsense", fault.Forbidden, false},
		{"cashier reads anyone's", as("c1", auth.Cashier), "player:bob:EUR", 0, true},
		{"cashier reads the cage", as("c1", auth.Cashier), "cage:EUR", 0, true},
		{"cashier sends garbage", as("c1", auth.Cashier), "nonsense", fault.Invalid, false},
		{"no caller", t.Context(), "player:alice:EUR", fault.Unauthenticated, false},
	}
	for _, tc := range tests {
		_, err := readableAccount(tc.ctx, tc.account)
		if tc.allowed != (err == nil) || (!tc.allowed && fault.KindOf(err) != tc.kind) {
			t.Errorf("%s: err = %v, want allowed=%v kind %v", tc.name, err, tc.allowed, tc.kind)
		}
	}
}
