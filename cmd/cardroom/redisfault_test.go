package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/rpc"
	"github.com/cardroom/cardroom/platform/testkit"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
)

// TestRedisLostAndFrozen_OneDealerPerTable is issue 9's "Redis keys lost
// and Redis frozen while tables play": two cash tables, two table
// replicas, every part its own process on a throwaway redis-server and
// PostgreSQL; hands are dealt and played by the house clock (a one-second
// decision time) while the suite's keys are deleted (locks, leases,
// streams: everything under the test's prefix), Redis is frozen (CLIENT
// PAUSE ALL for 3 s), the keys are deleted again, and Redis is restarted
// empty. A lost lease lets the other replica claim a table while the first
// may still run it; only the SQL epoch fences them.
//
// No two dealers ever acted on one table: every hand number from the first
// to the last has one stored history, each dealt with the stacks the hand
// before it ended with, seat by seat (two dealers would fork that chain:
// one of their hands would start from stacks the other never ended with).
// Hands go on after the faults, the chips are conserved (wallets + tables
// = deposits, every escrow = its table's chips), and the audit is clean
// with no cash-out stuck.
func TestRedisLostAndFrozen_OneDealerPerTable(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every part of the suite in its own process")
	}
	t.Parallel()
	srv := testkit.StartRedisServer(t)
	c := newCluster(t, clusterOptions{tables: 2, redisURL: srv.URL()})
	rdb := srv.Client(t)
	prefix := envOf(c.gateway.env, "CARDROOM_REDIS_PREFIX")
	players := []string{"ra", "rb", "rc", "rd"}
	r := newRoom(t, c.gateway, players...)
	for _, p := range players {
		r.deposit(p, 50000)
	}
	tables := []string{
		r.createTableWith("Redis A", 6, map[string]any{"action_seconds": 1}),
		r.createTableWith("Redis B", 6, map[string]any{"action_seconds": 1}),
	}
	for i, p := range players {
		r.must("POST", "/v1/tables/"+tables[i/2]+"/seats", r.floor, map[string]any{"seat": i % 2, "player_id": p, "amount": 10000, "post_now": true}, nil)
	}
	handNo := func(table string) int64 {
		code, raw := r.do("GET", "/v1/tables/"+table+"/state", r.floor, nil)
		var out struct{ State tableState }
		if code != http.StatusOK || json.Unmarshal(raw, &out) != nil || out.State.Hand == nil {
			return 0
		}
		return out.State.Hand.HandNo
	}
	lose := func() {
		ctx := t.Context()
		var keys []string
		iter := rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		if err := iter.Err(); err != nil {
			t.Fatal(err)
		}
		if len(keys) == 0 {
			t.Fatalf("no keys under %q to lose", prefix)
		}
		if err := rdb.Del(ctx, keys...).Err(); err != nil {
			t.Fatal(err)
		}
		t.Logf("deleted %d keys", len(keys))
	}
	// Each claim of a table bumps its epoch in SQL: the epochs show the
	// tables changed hands (or were claimed again) during the faults.
	conn, err := rpc.Dial(envOf(c.tables[0].env, "CARDROOM_GRPC_ADDR"), rpc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ledger := tablev1.NewCashTableLedgerServiceClient(conn)
	svc := auth.WithToken(t.Context(), c.gateway.token("cardroom-wallet", "service"))
	epoch := func(table string) int64 {
		resp, err := ledger.GetIssuedEpoch(svc, &tablev1.GetIssuedEpochRequest{TableId: table})
		if err != nil {
			t.Fatal(err)
		}
		return resp.GetEpoch()
	}
	before := map[string]int64{}
	for _, id := range tables {
		before[id] = epoch(id)
	}
	start := time.Now()
	runFaults(t, start, []fault{
		{3 * time.Second, "every key of the suite deleted", lose},
		{6 * time.Second, "Redis frozen for 3 s", func() {
			if err := rdb.Do(t.Context(), "CLIENT", "PAUSE", "3000", "ALL").Err(); err != nil {
				t.Fatal(err)
			}
		}},
		{11 * time.Second, "every key of the suite deleted again", lose},
		{14 * time.Second, "Redis restarted empty", srv.Restart},
	})
	afterFaults := map[string]int64{}
	for _, id := range tables {
		afterFaults[id] = handNo(id)
	}
	// Hands go on after the faults.
	testkit.Eventually(t, 60*time.Second, func() error {
		for _, id := range tables {
			if n := handNo(id); n < afterFaults[id]+3 {
				return fmt.Errorf("table %s at hand %d, %d after the faults", id, n, afterFaults[id])
			}
		}
		return nil
	})

	for _, id := range tables {
		last := handNo(id) - 1 // the hand in progress is not stored yet
		prev := map[int]int64{}
		for no := int64(1); no <= last; no++ {
			h := r.history(id, no)
			for _, s := range h.Seats {
				if want, ok := prev[s.Seat]; ok && s.Start != want {
					t.Fatalf("table %s hand %d: seat %d dealt in with %d, the hand before ended with %d: two dealers?", id, no, s.Seat, s.Start, want)
				}
			}
			prev = map[int]int64{}
			for _, s := range h.Seats {
				prev[s.Seat] = s.Final
			}
		}
		claims := epoch(id) - before[id]
		t.Logf("table %s: hands 1..%d, one history each, stacks chained; claimed %d times more during and after the faults", id, last, claims)
		if claims == 0 {
			t.Fatalf("table %s was never claimed again: the faults did not reach its lease", id)
		}
		if last < 5 {
			t.Fatalf("table %s played only %d hands", id, last)
		}
	}
	testkit.Eventually(t, 60*time.Second, func() error {
		_, err := r.chipsConserved()
		return err
	})
	r.checkChips("after Redis lost its keys and froze")
	r.auditClean("after Redis lost its keys and froze")
	c.stop()
}
