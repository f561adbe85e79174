// Package wallet is cardroom's chip bank: a double-entry ledger in SQL,
// the buy-in rules CS-01…CS-11, the table buy-in saga, cash-outs and
// tournament money, served over gRPC. New wires the parts; Register puts
// the gRPC service on a server (the gateway registers the REST routes);
// Run drives the sweeper (hold expiry, idempotency-key retention); Audit
// checks the books for `cardroom wallet audit`.
package wallet

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"time"

	"google.golang.org/grpc"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/gamingday"
	"github.com/cardroom/cardroom/platform/sqlstore"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"github.com/cardroom/cardroom/services/wallet/bank"
	"github.com/cardroom/cardroom/services/wallet/buyin"
	"github.com/cardroom/cardroom/services/wallet/server"
	"github.com/cardroom/cardroom/services/wallet/store"
	"github.com/cardroom/cardroom/services/wallet/tables"
)

// Config is the wallet's room policy, read from the environment with
// platform/config (config.Parse); the zero value means the defaults.
type Config struct {
	// GamingDay is the room's gaming day (G-20), the "evening" of CS-09's
	// one night, one stack; seating reads the same variables. The zero
	// value means the house default, 06:00 in Helsinki.
	GamingDay gamingday.Config
	// QuickReturnWaivesMaximum switches the rule profile to CS-04 (the
	// 20-minute rule) instead of 001's "one night, one stack" cap rules.
	QuickReturnWaivesMaximum bool `env:"CARDROOM_WALLET_CS04_QUICK_RETURN" envDefault:"false" doc:"true applies CS-04: a return to the same table within the quick-return window may exceed the maximum buy-in; later returns are capped at it."`
	// QuickReturnWindow is CS-04's window.
	QuickReturnWindow time.Duration `env:"CARDROOM_WALLET_QUICK_RETURN_WINDOW" envDefault:"20m" doc:"CS-04 quick-return window."`
	// HoldTTL is how long a buy-in hold waits for the table.
	HoldTTL time.Duration `env:"CARDROOM_WALLET_HOLD_TTL" envDefault:"2m" doc:"How long a buy-in hold waits for the table to commit it before it is released."`
	// SweepInterval is how often expired holds are released and old
	// idempotency keys pruned.
	SweepInterval time.Duration `env:"CARDROOM_WALLET_SWEEP_INTERVAL" envDefault:"10s" doc:"How often the wallet releases expired buy-in holds and prunes idempotency keys past their retention."`
	// IdempotencyRetention is how long an idempotency key (and the response
	// stored with it) is kept. A request replayed within it gets the
	// original response; after it, the key is gone and the same request
	// would run again, so it must outlast every caller's retries: those come
	// within minutes, but a dispute about a cash-in or buy-in is looked at
	// days later, by someone who may replay the request to see what the
	// wallet answered. Seven days (168h) covers that; at least an hour is
	// required. The ledger itself is never pruned, nor are the keys of
	// event payments (store.Request.Lasting), which a tournament may retry
	// later than any window.
	IdempotencyRetention time.Duration `env:"CARDROOM_WALLET_IDEMPOTENCY_RETENTION" envDefault:"168h" doc:"How long the wallet keeps an idempotency key and its stored response (a replay within it returns the original response; after it the request would run again). At least 1h; transfers and entries are never pruned."`
	// MaxAmount is the per-transaction maximum: the largest amount one
	// deposit, withdrawal, buy-in, tournament payment, prize or voucher may
	// bring into the books. With every amount bounded, balances and the
	// audit's sums stay far inside int64.
	MaxAmount int64 `env:"CARDROOM_WALLET_MAX_AMOUNT" envDefault:"1000000000000" doc:"Largest amount, in minor units, that one deposit, withdrawal, buy-in, tournament entry, prize or voucher may move (AMOUNT_ABOVE_TRANSACTION_MAXIMUM above it); keeps every balance and sum of the books inside int64."`
	// GroupCommitMax is the most requests one group-committed transaction
	// carries (store.GroupCommit); 1 commits every request alone.
	GroupCommitMax int `env:"CARDROOM_WALLET_GROUP_COMMIT_MAX" envDefault:"64" doc:"Most wallet requests that share one database transaction and its commit (group commit: each keeps its own idempotency key, checks and answer; a refused one is rolled back alone). 1 gives every request a transaction of its own. At most 64."`
}

// GroupCommit is the wallet's default group commit: batches of up to 64
// requests, two in flight. Measured with BenchmarkBuyInTransfers (see
// docs/CAPACITY.md).
func GroupCommit() store.GroupCommit {
	return store.GroupCommit{MaxBatch: store.DefaultMaxBatch, Committers: store.DefaultCommitters}
}

// MinIdempotencyRetention is the shortest IdempotencyRetention New
// accepts: a shorter window risks a caller's ordinary retry (after a
// backoff, a restart, a failover) arriving after its key is gone and
// moving chips twice.
const MinIdempotencyRetention = time.Hour

// Deps are the wallet's collaborators.
type Deps struct {
	// DB is the wallet's database, opened with StoreOptions (and migrated).
	DB *sqlstore.DB
	// Clock tells time; nil means the wall clock.
	Clock clock.Clock
	// Logger logs the sweeper's failures; nil means slog.Default().
	Logger *slog.Logger
	// Tables is the table service's CashTableLedgerService, dialed with the
	// wallet's service token: the wallet takes a table's write only with an
	// epoch it issued, and the audit reconciles the tables' escrow with its
	// count. Nil trusts the callers' epochs and audits the ledger alone
	// (tests of the wallet by itself).
	Tables tablev1.CashTableLedgerServiceClient
	// TableService is the table service's TableService, dialed with the
	// wallet's service token: the buy-in check reads a table's game,
	// currency and the player's stack there from it, so a client need not
	// send them. Nil takes them from the request (tests of the wallet by
	// itself).
	TableService tablev1.TableServiceClient
	// Checks are further checks the audit runs: the hook for the
	// tournaments' chip conservation.
	Checks []bank.Check
}

// Service is the wired wallet.
type Service struct {
	bank   *bank.Bank
	server *server.Server
	cfg    Config
	log    *slog.Logger
}

// StoreOptions are the sqlstore options of the wallet's database: the
// PostgreSQL URL (empty for SQLite under dataDir), the embedded migrations
// and each dialect's pool size. Both pool sizes are set whatever the URL,
// because cmd/cardroom makes these options first and fills the URL in
// afterwards.
func StoreOptions(databaseURL, dataDir string) sqlstore.Options {
	return sqlstore.Options{URL: databaseURL, DataDir: dataDir, Service: store.ServiceName, Migrations: store.Migrations(),
		MaxOpenConns: PostgresConns, SQLiteMaxOpenConns: SQLiteConns}
}

// SQLiteConns is the wallet's SQLite connection pool size. SQLite runs one
// writer at a time anyway; a small pool queues writers in database/sql
// instead of in SQLite's busy-wait, which cut the benchmark's p99 from
// seconds to a few hundred ms.
const SQLiteConns = 4

// PostgresConns is the wallet's PostgreSQL connection pool size. It is
// larger than the cores because a buy-in's connection spends most of its
// time waiting, not computing: sampled during make bench, about half of
// the connections at any moment wait for the WAL flush of their COMMIT
// (WALWrite/WALSync), and the rest mostly for the client between
// statements. Commits waiting together share one flush (group commit), so
// more connections mean more buy-ins per flush: on the 2-core machine, runs
// interleaved under the same load gave 1,320-1,390 buy-ins/s with 16
// against 940-1,000 with sqlstore's default of 8, and 24 no steady gain
// over 16 (930-1,490) for more server processes. It stays well within
// PostgreSQL's default 100 connections with the other services' pools.
const PostgresConns = 16

// Profile returns the buy-in policy cfg describes.
func (cfg Config) Profile() (buyin.Profile, error) {
	p := buyin.DefaultProfile()
	if cfg.GamingDay != (gamingday.Config{}) {
		day, err := cfg.GamingDay.Day()
		if err != nil {
			return buyin.Profile{}, fmt.Errorf("wallet: %w", err)
		}
		p.Day = day
	}
	p.QuickReturnWaivesMaximum = cfg.QuickReturnWaivesMaximum
	if cfg.QuickReturnWindow > 0 {
		p.QuickReturnWindow = cfg.QuickReturnWindow
	}
	return p, nil
}

// New wires the wallet over an opened, migrated database.
func New(cfg Config, deps Deps) (*Service, error) {
	if deps.DB == nil {
		return nil, fmt.Errorf("wallet: no database")
	}
	deps.Clock = cmp.Or[clock.Clock](deps.Clock, clock.Real{})
	deps.Logger = cmp.Or(deps.Logger, slog.Default())
	if cfg.SweepInterval <= 0 {
		cfg.SweepInterval = 10 * time.Second
	}
	cfg.IdempotencyRetention = cmp.Or(cfg.IdempotencyRetention, bank.DefaultIdempotencyRetention)
	if cfg.IdempotencyRetention < MinIdempotencyRetention {
		return nil, fmt.Errorf("wallet idempotency retention %s is shorter than %s", cfg.IdempotencyRetention, MinIdempotencyRetention)
	}
	profile, err := cfg.Profile()
	if err != nil {
		return nil, err
	}
	if cfg.MaxAmount < 0 {
		return nil, fmt.Errorf("wallet per-transaction maximum %d is negative", cfg.MaxAmount)
	}
	st, err := cfg.store(deps.DB)
	if err != nil {
		return nil, err
	}
	bc := bank.Config{Profile: profile, HoldTTL: cfg.HoldTTL, IdempotencyRetention: cfg.IdempotencyRetention, MaxAmount: cfg.MaxAmount,
		Logger: deps.Logger}
	if deps.Tables != nil {
		t := tables.New(deps.Tables)
		bc.Epochs, bc.Tables = t, t
	}
	b := bank.New(st, deps.Clock, bc)
	srv := server.New(b, deps.Checks...)
	if deps.TableService != nil {
		srv.WithTables(tables.NewInfo(deps.TableService))
	}
	return &Service{bank: b, server: srv, cfg: cfg, log: deps.Logger}, nil
}

// store opens the store over db, grouping requests into shared
// transactions as GroupCommitMax says (0 means the default).
func (cfg Config) store(db *sqlstore.DB) (*store.Store, error) {
	gc := GroupCommit()
	switch {
	case cfg.GroupCommitMax == 1:
		return store.New(db), nil
	case cfg.GroupCommitMax < 0 || cfg.GroupCommitMax > store.DefaultMaxBatch:
		return nil, fmt.Errorf("wallet group commit maximum %d is outside 1-%d", cfg.GroupCommitMax, store.DefaultMaxBatch)
	case cfg.GroupCommitMax > 0:
		gc.MaxBatch = cfg.GroupCommitMax
	}
	return store.NewGrouped(db, gc), nil
}

// Register puts the wallet's gRPC service on s.
func (w *Service) Register(s grpc.ServiceRegistrar) {
	walletv1.RegisterWalletServiceServer(s, w.server)
}

// Bank returns the wallet's operations.
func (w *Service) Bank() *bank.Bank { return w.bank }

// Run releases expired buy-in holds and prunes idempotency keys past
// their retention until ctx ends. Every replica may run it: each release
// is conditional on the hold still being held, and a key pruned twice is
// deleted once. It returns nil when ctx ends.
func (w *Service) Run(ctx context.Context) error {
	w.bank.RunSweeper(ctx, w.cfg.SweepInterval, func(err error) {
		w.log.ErrorContext(ctx, "release expired holds", "error", err)
	})
	return nil
}

// Close releases what New took: nothing beyond what Run's context stops
// (the caller closes the database), so it returns nil.
func (w *Service) Close() error { return nil }

// Audit checks the books in db: the ledger (per currency debits equal
// credits and balances sum to zero, each balance equals the sum of its
// entries, no forbidden account is negative, every transfer balances) and,
// with tables, each cash table's escrow against the chips tables counts
// there. Report.Clean() says whether all hold; Report.Problems() lists
// what does not.
func Audit(ctx context.Context, db *sqlstore.DB, tables bank.ChipCounter, checks ...bank.Check) (Report, error) {
	b := bank.New(store.New(db), clock.Real{}, bank.Config{Tables: tables})
	return b.Audit(ctx, checks...)
}

// Report is the audit's result.
type Report = bank.AuditReport
