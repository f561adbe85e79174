package wallet_test

import (
	"context"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"github.com/cardroom/cardroom/services/wallet"
)

// oneTable is a table service that knows one cash table, T9 (NL 200/500
// in EUR), where the players in seated sit with the stack in state (chips
// behind now) plus pending; the listing shows the stack the hand started
// with, which the buy-in check must not use (G-19).
type oneTable struct {
	tablev1.TableServiceClient
	seated           map[string]int64
	pending, started int64
}

func (o oneTable) GetTable(_ context.Context, r *tablev1.GetTableRequest, _ ...grpc.CallOption) (*tablev1.GetTableResponse, error) {
	if r.GetTableId() != "T9" {
		return nil, status.Error(codes.NotFound, "no table")
	}
	t := &tablev1.Table{TableId: "T9", Currency: "EUR", Game: nl}
	for p := range o.seated {
		t.SeatMap = append(t.SeatMap, &tablev1.SeatState{PlayerId: p, Stack: o.started})
	}
	return &tablev1.GetTableResponse{Table: t}, nil
}

func (o oneTable) GetTableState(_ context.Context, r *tablev1.GetTableStateRequest, _ ...grpc.CallOption) (*tablev1.GetTableStateResponse, error) {
	st := &tablev1.TableState{TableId: r.GetTableId()}
	for p, stack := range o.seated {
		st.Seats = append(st.Seats, &tablev1.SeatState{PlayerId: p, Stack: stack, PendingChips: o.pending})
	}
	return &tablev1.GetTableStateResponse{State: st}, nil
}

// TestCheckBuyInReadsTheTable_CS03_CS07_G19: the buy-in check takes the
// game and currency from the table, so a client sends the table alone
// (issue 17); a game or currency sent must be the table's; a table the
// table service does not know still needs them. For a seated player the
// top-up ceiling is the table's maximum less the stack now plus chips
// pending (G-19, CS-07), not a stack the client sends nor the one the hand
// started with.
func TestCheckBuyInReadsTheTable_CS03_CS07_G19(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, wallet.StoreOptions("", ""), func(t *testing.T, db *sqlstore.DB) {
		// alice's sitting at T9 is opened through the table flow below;
		// the fake table reports her stack now 38 000 with 1 000 pending,
		// after a hand begun with 50 000.
		c := serveWith(t, db, oneTable{seated: map[string]int64{"alice": 38000}, pending: 1000, started: 50000})
		cashier, table := c.as("cashier-1", auth.Cashier), c.as("table-service", auth.Service)
		alice, bob := c.as("alice", auth.Player), c.as("bob", auth.Player)
		for _, p := range []string{"alice", "bob"} {
			if _, err := c.OpenAccount(cashier, &walletv1.OpenAccountRequest{OwnerId: p, Currency: "EUR", Kind: walletv1.AccountKind_ACCOUNT_KIND_PLAYER}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Deposit(cashier, &walletv1.DepositRequest{IdempotencyKey: "d-" + p, PlayerId: p, Currency: "EUR", Amount: 100000}); err != nil {
				t.Fatal(err)
			}
		}

		// bob, not seated, sends the table alone: CS-03's 40 to 100 big
		// blinds of the table's 500.
		chk, err := c.CheckBuyIn(bob, &walletv1.CheckBuyInRequest{PlayerId: "bob", TableId: "T9"})
		if err != nil || chk.GetRange().GetMin() != 20000 || chk.GetRange().GetMax() != 50000 || chk.GetRange().GetRuleId() != "CS-03" ||
			chk.GetTableRange().GetMax() != 50000 {
			t.Fatalf("bob's check of T9 alone = %v, %v", chk, err)
		}
		// Old clients that send the table's game and currency get the same.
		chk, err = c.CheckBuyIn(bob, &walletv1.CheckBuyInRequest{PlayerId: "bob", TableId: "T9", Currency: "EUR", Game: nl})
		if err != nil || chk.GetRange().GetMax() != 50000 {
			t.Fatalf("bob's check with the table's game = %v, %v", chk, err)
		}
		other := &gamev1.Game{Variant: gamev1.Variant_VARIANT_HOLDEM, Structure: gamev1.Structure_STRUCTURE_NO_LIMIT, Stakes: &gamev1.Stakes{SmallBlind: 1000, BigBlind: 2000}}
		for name, req := range map[string]*walletv1.CheckBuyInRequest{
			"another currency":    {PlayerId: "bob", TableId: "T9", Currency: "USD"},
			"another game":        {PlayerId: "bob", TableId: "T9", Game: other},
			"unknown table alone": {PlayerId: "bob", TableId: "T404"},
		} {
			_, err := c.CheckBuyIn(bob, req)
			if status.Code(err) != codes.InvalidArgument {
				t.Errorf("%s: %v, want InvalidArgument", name, err)
			}
		}
		// A table the table service does not know is checked as sent.
		chk, err = c.CheckBuyIn(bob, &walletv1.CheckBuyInRequest{PlayerId: "bob", TableId: "T404", Currency: "EUR", Game: other})
		if err != nil || chk.GetRange().GetMax() != 200000 {
			t.Fatalf("bob's check of an unknown table with its game = %v, %v", chk, err)
		}

		// alice sits at T9 for 50 000 (the wallet's sitting), then asks
		// mid-hand: the ceiling is 50 000 less 38 000 now and 1 000
		// pending, whatever stack she sends.
		h, err := c.HoldBuyIn(table, &walletv1.HoldBuyInRequest{IdempotencyKey: "h1", TableId: "T9", Epoch: 2, PlayerId: "alice", Seat: 1, Currency: "EUR", Game: nl, Amount: 50000})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.CommitHold(table, &walletv1.CommitHoldRequest{IdempotencyKey: "c1", TableId: "T9", Epoch: 2, HoldId: h.GetHold().GetHoldId()}); err != nil {
			t.Fatal(err)
		}
		for _, sent := range []int64{0, 50000} {
			chk, err = c.CheckBuyIn(alice, &walletv1.CheckBuyInRequest{PlayerId: "alice", TableId: "T9", Stack: sent})
			if err != nil || chk.GetRange().GetMax() != 50000-38000-1000 || chk.GetRange().GetCase() != walletv1.BuyInCase_BUY_IN_CASE_TOP_UP {
				t.Fatalf("alice's top-up check (stack sent %d) = %v, %v; want at most 11000 (G-19)", sent, chk, err)
			}
		}
	})
}
