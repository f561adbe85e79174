package bank_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/wallet"
	"github.com/cardroom/cardroom/services/wallet/bank"
	"github.com/cardroom/cardroom/services/wallet/store"
)

// BenchmarkBuyInTransfers measures buy-in holds — each one idempotency key,
// a fencing-epoch check, the CS rules and one balanced transfer from a
// player to a table — from many goroutines at once, spread over 64 tables
// and 256 players, on SQLite and on PostgreSQL, both ways the store
// commits: grouped (the wallet's default: concurrent buy-ins share a
// transaction and its flush, store.GroupCommit) and each (one transaction
// per buy-in). It reports transfers/s, the p50/p99 latency of one buy-in
// and, grouped, the buy-ins per commit.
func BenchmarkBuyInTransfers(b *testing.B) {
	// The pool sizes are the wallet's own (wallet.SQLiteConns,
	// wallet.PostgresConns) unless WALLET_BENCH_CONNS says otherwise.
	opts := sqlstore.Options{Service: store.ServiceName, Migrations: store.Migrations(),
		MaxOpenConns: benchConns(wallet.PostgresConns), SQLiteMaxOpenConns: benchConns(wallet.SQLiteConns)}
	grouped := func(db *sqlstore.DB) *store.Store { return store.NewGrouped(db, wallet.GroupCommit()) }
	for _, dialect := range []struct {
		name string
		open func(testing.TB, sqlstore.Options) *sqlstore.DB
	}{{"sqlite", testkit.SQLite}, {"postgres", testkit.Postgres}} {
		b.Run(dialect.name, func(b *testing.B) {
			b.Run("grouped", func(b *testing.B) { benchBuyIns(b, grouped(dialect.open(b, opts))) })
			b.Run("each", func(b *testing.B) { benchBuyIns(b, store.New(dialect.open(b, opts))) })
		})
	}
}

func benchBuyIns(b *testing.B, st *store.Store) {
	const players, tables = 256, 64
	ctx := b.Context()
	bk := bank.New(st, clock.NewFake(start), bank.Config{})
	for i := range players {
		p := fmt.Sprintf("p%d", i)
		if _, err := bk.OpenAccount(ctx, "open-"+p, p, "EUR"); err != nil {
			b.Fatal(err)
		}
		// Enough for millions of buy-ins, under the per-transaction maximum.
		if _, err := bk.Deposit(ctx, bank.CashierRequest{Key: "dep-" + p, Player: p, Currency: "EUR", Amount: 1 << 39, Cashier: "c"}); err != nil {
			b.Fatal(err)
		}
	}
	var seq atomic.Int64
	var mu sync.Mutex
	before := st.GroupStats()
	var latencies []time.Duration
	b.SetParallelism(benchParallelism()) // × GOMAXPROCS goroutines
	b.ResetTimer()
	began := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		local := make([]time.Duration, 0, 1024)
		for pb.Next() {
			i := seq.Add(1)
			// A player holds at most one buy-in per table at a time
			// (HOLD_PENDING) and these are never settled, so each round of
			// players moves on to fresh tables; within a round requests
			// still spread over the same number of tables.
			table := fmt.Sprintf("T%d-%d", i/players, i%tables)
			t0 := time.Now()
			_, err := bk.HoldBuyIn(ctx, bank.HoldRequest{
				Key:          fmt.Sprintf("bench-%d", i),
				TableRequest: bank.TableRequest{Table: table, Epoch: 1},
				Player:       fmt.Sprintf("p%d", i%players), Currency: "EUR", Game: nl25, Amount: 20000,
			})
			local = append(local, time.Since(t0))
			if err != nil {
				b.Error(err)
				return
			}
		}
		mu.Lock()
		latencies = append(latencies, local...)
		mu.Unlock()
	})
	elapsed := time.Since(began)
	b.StopTimer()
	if len(latencies) == 0 {
		return
	}
	slices.Sort(latencies)
	pct := func(p float64) float64 {
		return float64(latencies[min(len(latencies)-1, int(p*float64(len(latencies))))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(len(latencies))/elapsed.Seconds(), "transfers/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	if after := st.GroupStats(); after.Batches > before.Batches {
		b.ReportMetric(float64(after.Requests-before.Requests)/float64(after.Batches-before.Batches), "buy-ins/commit")
	}
}

// benchParallelism is WALLET_BENCH_PARALLELISM (goroutines per GOMAXPROCS), default 12.
func benchParallelism() int {
	if n, err := strconv.Atoi(os.Getenv("WALLET_BENCH_PARALLELISM")); err == nil && n > 0 {
		return n
	}
	return 12
}

// benchConns is WALLET_BENCH_CONNS (the connection pool size), or def.
func benchConns(def int) int {
	if n, err := strconv.Atoi(os.Getenv("WALLET_BENCH_CONNS")); err == nil && n > 0 {
		return n
	}
	return def
}
