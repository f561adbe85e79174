package main

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/cardroom/cardroom/platform/testkit"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
)

// TestReSitWhileCashOutPending_CS09 is issue 9's stuck escrow, end to end
// with every part in its own process on Redis + PostgreSQL: the wallet is
// unreachable from the table while ann leaves, so her cash-out is pending,
// and the floor seats her again at the same table.
//
// The sit-down is refused (CASH_OUT_PENDING, CS-09, with the stack she left
// with) whether the wallet is back or not, instead of being ruled a CS-07
// rebuy of the table minimum; once the late cash-out is paid the return is
// judged on it (CS-09: at least the stack left with); and her second
// sitting's cash-out is paid like the first (before the fix, the late
// cash-out of the first seat closed the second sitting, whose cash-out was
// then refused as NOT_SEATED and retried for ever, its chips stuck in the
// table's escrow). Afterwards wallets + escrow = deposits, every escrow
// equals the chips its table shows, and the audit is clean.
func TestReSitWhileCashOutPending_CS09(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every part of the suite in its own process")
	}
	t.Parallel()
	c := newCluster(t, clusterOptions{})
	r := newRoom(t, c.gateway, "ann", "bob")
	r.deposit("ann", 50000)
	r.deposit("bob", 50000)
	table := r.createTable("Escrow", 6)
	for i, p := range []string{"ann", "bob"} {
		r.must("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": i + 1, "player_id": p, "amount": 10000, "post_now": true}, nil)
	}
	r.playHand(table, checkDown)
	r.checkChips("after the first hand")

	// ann leaves during hand 2; the wallet is unreachable when it ends.
	r.waitHand(table)
	var lv struct{ Left bool }
	r.must("POST", "/v1/tables/"+table+"/seats/1:leave", r.tokens["ann"], map[string]any{}, &lv)
	c.walletDown()
	if !lv.Left {
		r.playHand(table, checkDown)
	}
	st := r.state(table, r.floor)
	if st.seatOf("ann") >= 0 {
		t.Fatalf("ann still seated: %+v", st.Seats)
	}
	stack := 20000 - st.Seats[2].Stack - st.Seats[2].Pending // what ann left with: the table's chips less bob's
	if st.live() {
		t.Fatalf("a hand is under way with bob alone: %+v", st.Hand)
	}

	reSit := func(amount int64) (int, apiError) {
		return r.refused("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": 1, "player_id": "ann", "amount": amount, "post_now": true})
	}
	// The table refuses before it asks the wallet: no money moves.
	code, e := reSit(4000)
	if code != http.StatusBadRequest || e.Reason != "CASH_OUT_PENDING" || e.RuleID != "CS-09" || e.Metadata["stack"] != strconv.FormatInt(stack, 10) {
		t.Fatalf("re-sit while the cash-out is pending and the wallet down: %d %+v", code, e)
	}

	// The wallet is back; the floor seats ann again before the table's
	// retry has paid the cash-out (the retry runs every 5 s).
	c.walletUp()
	// The table's connection to the wallet reconnects after a backoff.
	testkit.Eventually(t, 10*time.Second, func() error {
		code, e = reSit(4000)
		if code == http.StatusServiceUnavailable || e.Reason == "UNAVAILABLE" || e.Reason == "INTERNAL" {
			return fmt.Errorf("re-sit with the wallet back: %d %+v", code, e)
		}
		return nil
	})
	switch {
	case code == http.StatusBadRequest && e.Reason == "CASH_OUT_PENDING" && e.RuleID == "CS-09":
	case code == http.StatusBadRequest && e.Reason == "BUY_IN_BELOW_DEPARTURE_STACK" && e.RuleID == "CS-09":
		// The retry paid the cash-out first: the return is judged on it.
	default:
		t.Fatalf("re-sit with the wallet back and the cash-out pending: %d %+v", code, e)
	}

	// The late cash-out is paid.
	want := 50000 - 10000 + stack
	waitFor(t, "ann's late cash-out", 20*time.Second, func() bool { return r.balance("player:ann:EUR") == want })

	// CS-09: back at the same table the same gaming day, with at least the stack left with.
	code, e = reSit(4000)
	if code != http.StatusBadRequest || e.Reason != "BUY_IN_BELOW_DEPARTURE_STACK" || e.RuleID != "CS-09" || e.Metadata["min"] != strconv.FormatInt(stack, 10) {
		t.Fatalf("return below the stack left with: %d %+v", code, e)
	}
	// A write with an epoch the table service never issued cannot fence
	// the table out (issue 9: a hold with epoch 2^63-1 did, for good).
	forged := forgedHold(t, c, table)
	if status.Code(forged) != codes.InvalidArgument || reasonOf(forged) != "EPOCH_NOT_ISSUED" {
		t.Fatalf("hold with epoch 2^63-1: %v, want INVALID_ARGUMENT EPOCH_NOT_ISSUED", forged)
	}
	r.must("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": 1, "player_id": "ann", "amount": stack, "post_now": true}, nil)
	r.checkChips("ann back with the stack she left with")

	// Her second sitting is cashed out like the first: nothing stays in escrow.
	r.waitHand(table)
	r.must("POST", "/v1/tables/"+table+"/seats/1:leave", r.tokens["ann"], map[string]any{}, &lv)
	if !lv.Left {
		r.playHand(table, checkDown)
	}
	waitFor(t, "ann's second cash-out", 20*time.Second, func() bool {
		st := r.state(table, r.floor)
		return st.seatOf("ann") < 0 && r.balance("player:ann:EUR")+r.balance("player:bob:EUR")+r.balance("table:"+table+":EUR") == 100000 &&
			r.balance("table:"+table+":EUR") == st.Seats[2].Stack+st.Seats[2].Pending
	})
	r.checkChips("ann left again")
	r.auditClean("after both cash-outs")
	c.stop()
}

// forgedHold asks the wallet, with a service token, to hold a buy-in at
// table with epoch 2^63-1: a number no lease holder was given.
func forgedHold(t *testing.T, c *cluster, table string) error {
	t.Helper()
	conn, err := grpc.NewClient(envOf(c.wallet.env, "CARDROOM_GRPC_ADDR"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+c.gateway.token("forger", "service"))
	_, err = walletv1.NewWalletServiceClient(conn).HoldBuyIn(ctx, &walletv1.HoldBuyInRequest{IdempotencyKey: "forged", TableId: table,
		Epoch: math.MaxInt64, PlayerId: "bob", Currency: "EUR", Amount: 10000,
		Game: &gamev1.Game{Variant: gamev1.Variant_VARIANT_HOLDEM, Structure: gamev1.Structure_STRUCTURE_NO_LIMIT,
			Stakes: &gamev1.Stakes{SmallBlind: 50, BigBlind: 100}}})
	return err
}

// reasonOf is the ErrorInfo reason of a gRPC error.
func reasonOf(err error) string {
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info.GetReason()
		}
	}
	return ""
}

// TestStuckCashOutIsSurfaced_CS08 is issue 9's "a stuck cash-out (retried
// past a limit) is surfaced: logged, counted in a metric and listed for the
// cage", end to end with every part in its own process: the wallet is cut
// off from the table while ann leaves, so her cash-out is retried every
// 5 s. Past runner.StuckAfter attempts the table replica has logged it as
// an error and counted it (cardroom_table_wallet_steps_stuck_total on its
// /metrics), the cage's list shows it with its table, seat, stack,
// attempts and last error, and the audit is not clean. Once the wallet is
// back the retry pays it: the list empties and the audit is clean again.
func TestStuckCashOutIsSurfaced_CS08(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every part of the suite in its own process")
	}
	t.Parallel()
	c := newCluster(t, clusterOptions{})
	r := newRoom(t, c.gateway, "ann", "bob")
	r.deposit("ann", 50000)
	r.deposit("bob", 50000)
	table := r.createTable("Stuck", 6)
	for i, p := range []string{"ann", "bob"} {
		r.must("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": i + 1, "player_id": p, "amount": 10000, "post_now": true}, nil)
	}
	r.waitHand(table)
	c.walletDown()
	var lv struct{ Left bool }
	r.must("POST", "/v1/tables/"+table+"/seats/1:leave", r.tokens["ann"], map[string]any{}, &lv)
	if !lv.Left {
		r.playHand(table, checkDown)
	}
	st := r.state(table, r.floor)
	stack := 20000 - st.Seats[2].Stack - st.Seats[2].Pending // what ann left with
	if st.seatOf("ann") >= 0 || st.live() {
		t.Fatalf("ann still seated or a hand under way: %+v", st)
	}

	type stuckCashOut struct {
		TableID   string `json:"table_id"`
		PlayerID  string `json:"player_id"`
		Seat      int
		Stack     int64 `json:"stack,string"`
		Attempts  int
		LastError string `json:"last_error"`
	}
	var listed stuckCashOut
	waitFor(t, "ann's cash-out listed as stuck", 150*time.Second, func() bool {
		var out struct {
			CashOuts []stuckCashOut `json:"cash_outs"`
		}
		r.must("GET", "/v1/stuck-cash-outs", r.cashier, nil, &out)
		for _, s := range out.CashOuts {
			if s.TableID == table && s.PlayerID == "ann" {
				listed = s
				return true
			}
		}
		return false
	})
	if listed.Seat != 1 || listed.Stack != stack || listed.Attempts < 12 || !strings.Contains(listed.LastError, "navailable") {
		t.Fatalf("the cage's list: %+v, want seat 1, stack %d, at least 12 attempts, the wallet unavailable", listed, stack)
	}
	// Logged as an error and counted, by the replica that retried it.
	if logs := c.tables[0].stderr.String(); !strings.Contains(logs, `"level":"ERROR","msg":"wallet step stuck`) {
		t.Fatalf("no stuck wallet step logged:\n%s", logs)
	}
	if n, ok := c.tables[0].scrape().sum("cardroom_table_wallet_steps_stuck_total", `cardroom_wallet_step_kind="cash_out"`); !ok || n < 1 {
		t.Fatalf("cardroom_table_wallet_steps_stuck_total for a cash-out: %v (found %v)", n, ok)
	}
	var audit struct {
		Clean         bool
		StuckCashOuts []stuckCashOut `json:"stuck_cash_outs"`
	}
	r.must("GET", "/v1/audit", r.cashier, nil, &audit)
	if audit.Clean || len(audit.StuckCashOuts) != 1 || audit.StuckCashOuts[0].PlayerID != "ann" {
		t.Fatalf("the audit with a stuck cash-out: %+v", audit)
	}

	// The wallet is back: the next retry pays ann, nothing is stuck.
	c.walletUp()
	waitFor(t, "ann's cash-out paid", 30*time.Second, func() bool { return r.balance("player:ann:EUR") == 40000+stack })
	r.checkChips("after the stuck cash-out was paid")
	r.auditClean("after the stuck cash-out was paid")
	c.stop()
}
