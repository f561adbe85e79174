package bank_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
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
//
// Each way's database, accounts and deposits are set up once, not again
// for every b.N the benchmark is run with (the run with b.N = 1 first, then
// the real one): the buy-ins go on where the last run left off.
//
// A hold is half of a buy-in's work in the wallet: BenchmarkSeatedBuyIns
// measures the whole of it.
func BenchmarkBuyInTransfers(b *testing.B) { benchBuyIns(b, holdOnly) }

// BenchmarkSeatedBuyIns is BenchmarkBuyInTransfers with every buy-in
// taken to its end, as a table does when the player sits down: the hold,
// then its commit (CommitHold: the chips move from the hold to the
// table's escrow and the player's sitting opens), one after the other
// from the same goroutine. Its p50/p99 and buy-ins/s are those of the two
// calls together; transfers/s counts both transfers.
func BenchmarkSeatedBuyIns(b *testing.B) { benchBuyIns(b, holdAndCommit) }

// BenchmarkSitDowns is BenchmarkSeatedBuyIns the way a table seats a
// player now: one request (SitDown) moves the buy-in from the player to
// the table's escrow and opens the sitting, where a hold and its commit
// were two. Its buy-ins/s is the wallet's whole buy-in rate.
func BenchmarkSitDowns(b *testing.B) { benchBuyIns(b, sitDown) }

// buyInWay is how the benchmark's buy-ins are made.
type buyInWay int

const (
	holdOnly      buyInWay = iota // HoldBuyIn, never settled
	holdAndCommit                 // HoldBuyIn, then CommitHold
	sitDown                       // SitDown
)

// benchBuyIns runs the buy-in benchmarks one way.
func benchBuyIns(b *testing.B, way buyInWay) {
	// The pool sizes are the wallet's own (wallet.SQLiteConns,
	// wallet.PostgresConns) unless WALLET_BENCH_CONNS says otherwise.
	opts := sqlstore.Options{Service: store.ServiceName, Migrations: store.Migrations(),
		MaxOpenConns: benchConns(wallet.PostgresConns), SQLiteMaxOpenConns: benchConns(wallet.SQLiteConns)}
	grouped := func(db *sqlstore.DB) *store.Store { return store.NewGrouped(db, benchGroupCommit()) }
	for _, dialect := range []struct {
		name string
		open func(testing.TB, sqlstore.Options) *sqlstore.DB
	}{{"sqlite", testkit.SQLite}, {"postgres", testkit.Postgres}} {
		b.Run(dialect.name, func(b *testing.B) {
			// Set up in this benchmark, whose run outlasts its two
			// sub-benchmarks' runs (each of which ends in its cleanups).
			setup := func(newStore func(*sqlstore.DB) *store.Store) func() (*buyInBench, error) {
				return sync.OnceValues(func() (*buyInBench, error) { return newBuyInBench(b, newStore(dialect.open(b, opts))) })
			}
			for _, commits := range []struct {
				name  string
				bench func() (*buyInBench, error)
			}{{"grouped", setup(grouped)}, {"each", setup(store.New)}} {
				b.Run(commits.name, func(b *testing.B) {
					w, err := commits.bench()
					if err != nil {
						b.Fatal(err)
					}
					w.run(b, way)
				})
			}
		})
	}
}

// buyInBench is one store's accounts, funded, and the buy-ins made so far.
type buyInBench struct {
	st  *store.Store
	bk  *bank.Bank
	seq atomic.Int64
}

const benchPlayers, benchTables = 256, 64

func newBuyInBench(b *testing.B, st *store.Store) (*buyInBench, error) {
	ctx := b.Context()
	bk := bank.New(st, clock.NewFake(start), bank.Config{})
	for i := range benchPlayers {
		p := fmt.Sprintf("p%d", i)
		if _, err := bk.OpenAccount(ctx, "open-"+p, p, "EUR"); err != nil {
			return nil, err
		}
		// Enough for millions of buy-ins, under the per-transaction maximum.
		if _, err := bk.Deposit(ctx, bank.CashierRequest{Key: "dep-" + p, Player: p, Currency: "EUR", Amount: 1 << 39, Cashier: "c"}); err != nil {
			return nil, err
		}
	}
	return &buyInBench{st: st, bk: bk}, nil
}

// request is the i-th buy-in: a player holds at most one buy-in per table
// at a time (HOLD_PENDING) and these are never settled, so each player
// moves on to the next table every round of players, and to a fresh set
// of tables once it has been to all of them. A table thus takes a buy-in
// from every player before it is left, as a room's tables take many, and
// its first one (which records the table's epoch, verified once per table)
// is one in benchPlayers; within a round the requests in flight go to
// consecutive tables.
func (w *buyInBench) request(i int64) bank.HoldRequest {
	player, round := i%benchPlayers, i/benchPlayers
	table := fmt.Sprintf("T%d-%d", round/benchTables, (player+round)%benchTables)
	return bank.HoldRequest{
		Key:          fmt.Sprintf("bench-%d", i),
		TableRequest: bank.TableRequest{Table: table, Epoch: 1},
		Player:       fmt.Sprintf("p%d", player), Currency: "EUR", Game: nl25, Amount: 20000,
	}
}

// run makes the benchmark's buy-ins the way asked.
func (w *buyInBench) run(b *testing.B, way buyInWay) {
	ctx := b.Context()
	// WALLET_BENCH_TELEMETRY=1 measures the bank with its telemetry as
	// deployed (testkit.DeployedTelemetry): its group commits' and SQL
	// statements' spans recorded and exported, its metrics recorded. The
	// benchmark calls the bank, not its gRPC server, so each buy-in's
	// server span and RPC metrics are not in it.
	var exported func() int64
	if os.Getenv("WALLET_BENCH_TELEMETRY") == "1" {
		exported = testkit.DeployedTelemetry(b, "cardroom-wallet")
	}
	var mu sync.Mutex
	before := w.st.GroupStats()
	var latencies []time.Duration
	b.SetParallelism(benchParallelism()) // × GOMAXPROCS goroutines
	b.ResetTimer()
	began, cpu0 := time.Now(), processCPU()
	b.RunParallel(func(pb *testing.PB) {
		local := make([]time.Duration, 0, 1024)
		for pb.Next() {
			r := w.request(w.seq.Add(1) - 1)
			t0 := time.Now()
			var err error
			if way == sitDown {
				_, err = w.bk.SitDown(ctx, bank.SitDownRequest{Key: r.Key, TableRequest: r.TableRequest, Player: r.Player, Currency: r.Currency,
					Game: r.Game, Amount: r.Amount, Sitting: "sit-" + r.Key})
			} else {
				var hold bank.HoldResult
				hold, err = w.bk.HoldBuyIn(ctx, r)
				if err == nil && way == holdAndCommit {
					_, err = w.bk.CommitHold(ctx, bank.SettleRequest{Key: r.Key + "-seat", TableRequest: r.TableRequest, HoldID: hold.HoldID, Player: r.Player})
				}
			}
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
	elapsed, cpu := time.Since(began), processCPU()-cpu0
	b.StopTimer()
	if len(latencies) == 0 {
		return
	}
	slices.Sort(latencies)
	pct := func(p float64) float64 {
		return float64(latencies[min(len(latencies)-1, int(p*float64(len(latencies))))].Microseconds()) / 1000
	}
	// A hold is one transfer, a seated buy-in two (the hold's, the
	// commit's), a sit-down one; the store's requests likewise.
	transfers, per := 1, "buy-in"
	switch way {
	case holdAndCommit:
		transfers, per = 2, "request"
		b.ReportMetric(float64(len(latencies))/elapsed.Seconds(), "buy-ins/s")
	case sitDown:
		b.ReportMetric(float64(len(latencies))/elapsed.Seconds(), "buy-ins/s")
	}
	b.ReportMetric(float64(transfers*len(latencies))/elapsed.Seconds(), "transfers/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	// The CPU this process (bank, store, driver and the benchmark's
	// callers) spent per buy-in: on a shared machine, steadier than the
	// rate, which also waits for cores other processes hold.
	b.ReportMetric(float64(cpu.Microseconds())/float64(len(latencies)), "cpu-us/buy-in")
	if exported != nil {
		b.ReportMetric(float64(exported())/float64(len(latencies)), "otlp-B/buy-in")
	}
	if after := w.st.GroupStats(); after.Batches > before.Batches {
		b.ReportMetric(float64(after.Requests-before.Requests)/float64(after.Batches-before.Batches), per+"s/commit")
		if after.Requests > before.Requests && (after.Pipelined > before.Pipelined || after.PipelineFailures > before.PipelineFailures) {
			// The share of buy-ins committed by a pipeline (PostgreSQL), and
			// the pipelines that failed and left their batch to run in turn.
			b.ReportMetric(float64(after.Pipelined-before.Pipelined)/float64(after.Requests-before.Requests), "pipelined/"+per)
			b.ReportMetric(float64(after.PipelineFailures-before.PipelineFailures), "pipelines-failed")
		}
	}
}

// benchGroupCommit is the wallet's group commit, with
// WALLET_BENCH_COMMITTERS committers when set.
func benchGroupCommit() store.GroupCommit {
	cfg := wallet.GroupCommit()
	if n, err := strconv.Atoi(os.Getenv("WALLET_BENCH_COMMITTERS")); err == nil && n > 0 {
		cfg.Committers = n
	}
	return cfg
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

// processCPU is the user and system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
