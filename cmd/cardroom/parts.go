package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/config"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/rpc"
	"github.com/cardroom/cardroom/platform/sqlstore"
	seatingv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/seating/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"github.com/cardroom/cardroom/services/seating"
	"github.com/cardroom/cardroom/services/table"
	"github.com/cardroom/cardroom/services/tournament"
	tournamenttables "github.com/cardroom/cardroom/services/tournament/tables"
	"github.com/cardroom/cardroom/services/wallet"
	"github.com/cardroom/cardroom/services/wallet/bank"
)

// part is one service of the suite as this binary builds it.
type part struct {
	name string
	// grpcService is the full gRPC service name its health is reported under.
	grpcService string
	dbOptions   func() sqlstore.Options
	build       func(env *environment, db *sqlstore.DB) (*built, error)
}

// service is what every service package's New returns.
type service interface {
	// Register puts the service's gRPC services on a server.
	Register(grpc.ServiceRegistrar)
	// Run runs the background work (consumers, sweepers, timers) until its
	// context ends and returns once it has drained.
	Run(context.Context) error
	// Close releases what the service holds (tables it deals, leases)
	// after Run has returned.
	Close() error
}

// built is a part ready to serve.
type built struct {
	service
	// relay publishes the part's outbox (nil: it has none); it runs beside
	// Run, as long.
	relay *events.Relay
}

// loops are the part's background loops: the relay's and Run.
func (b *built) loops() []func(context.Context) error {
	if b.relay == nil {
		return []func(context.Context) error{b.Run}
	}
	return []func(context.Context) error{b.relay.Run, b.Run}
}

// environment is what every part shares in one process: configuration,
// time, locks, the event bus (Redis, or in-process when REDIS_URL is empty)
// and connections to the other services.
type environment struct {
	cfg    config.Config
	clock  clock.Clock
	log    *slog.Logger
	redis  *redis.Client
	locker lock.Locker
	bus    events.Bus
	issuer *auth.Issuer
	// grpcAddr is this process's own gRPC address: in `cardroom all` every
	// service is reached there.
	grpcAddr string
	all      bool

	// mu guards conns, keyed "caller>service".
	mu    sync.Mutex
	conns map[string]*grpc.ClientConn
}

// allParts lists the suite's services in the order they start.
var allParts = []part{
	{
		name:        "wallet",
		grpcService: walletv1.WalletService_ServiceDesc.ServiceName,
		dbOptions:   func() sqlstore.Options { return wallet.StoreOptions("", "") },
		build: func(e *environment, db *sqlstore.DB) (*built, error) {
			cfg, err := config.Parse[wallet.Config](nil)
			if err != nil {
				return nil, fmt.Errorf("wallet settings: %w", err)
			}
			// The wallet asks the table service which epochs it issued,
			// counts the tables' chips for the audit and reads a table's
			// terms for the buy-in check.
			tableConn, err := e.dial("wallet", table.Name)
			if err != nil {
				return nil, err
			}
			// The audit reports a running tournament whose chips the
			// director found not conserved.
			tournamentConn, err := e.dial("wallet", tournament.Name)
			if err != nil {
				return nil, err
			}
			w, err := wallet.New(cfg, wallet.Deps{DB: db, Clock: e.clock, Logger: e.log, Tables: tablev1.NewCashTableLedgerServiceClient(tableConn),
				TableService: tablev1.NewTableServiceClient(tableConn),
				Checks:       []bank.Check{tournamentChips(chipsOverRPC(tournamentv1.NewTournamentServiceClient(tournamentConn)))}})
			if err != nil {
				return nil, err
			}
			return &built{service: w}, nil
		},
	},
	{
		name:        seating.Name,
		grpcService: seatingv1.SeatingService_ServiceDesc.ServiceName,
		dbOptions:   seating.DBOptions,
		build: func(e *environment, db *sqlstore.DB) (*built, error) {
			settings, err := config.Parse[seating.Settings](nil)
			if err != nil {
				return nil, fmt.Errorf("seating settings: %w", err)
			}
			cfg, err := settings.Config()
			if err != nil {
				return nil, fmt.Errorf("seating settings: %w", err)
			}
			// Seating sits away players out at their tables, and stands
			// up those whose seat the floor released (CS-13, CS-14).
			tableConn, err := e.dial(seating.Name, table.Name)
			if err != nil {
				return nil, err
			}
			relay := events.NewRelay(db, e.bus, events.RelayOptions{Clock: e.clock, Logger: e.log})
			svc, err := seating.New(cfg, seating.Deps{DB: db, Clock: e.clock, Locker: e.locker, Bus: e.bus, Relay: relay,
				Tables: tablev1.NewTableServiceClient(tableConn), Logger: e.log})
			if err != nil {
				return nil, err
			}
			return &built{service: svc, relay: relay}, nil
		},
	},
	{
		name:        table.Name,
		grpcService: tablev1.TableService_ServiceDesc.ServiceName,
		dbOptions:   table.DBOptions,
		build: func(e *environment, db *sqlstore.DB) (*built, error) {
			settings, err := config.Parse[table.Settings](nil)
			if err != nil {
				return nil, fmt.Errorf("table settings: %w", err)
			}
			// With Redis, calls about a table another replica deals are
			// forwarded to the address it advertises with its lease.
			cfg, err := settings.Config(e.cfg.DataDir, e.grpcAddr)
			if err != nil {
				return nil, err
			}
			walletConn, err := e.dial(table.Name, "wallet")
			if err != nil {
				return nil, err
			}
			seatingConn, err := e.dial(table.Name, seating.Name)
			if err != nil {
				return nil, err
			}
			relay := events.NewRelay(db, e.bus, events.RelayOptions{Clock: e.clock, Logger: e.log})
			svc, err := table.New(cfg, table.Deps{
				DB: db, Clock: e.clock, Locker: e.locker, Relay: relay, Logger: e.log, Shuffle: testShuffle,
				Forward: rpc.Options{Logger: e.log},
				Wallet:  walletv1.NewWalletServiceClient(walletConn),
				Seating: seatingv1.NewSeatingServiceClient(seatingConn),
			})
			if err != nil {
				return nil, err
			}
			return &built{service: svc, relay: relay}, nil
		},
	},
	{
		name:        tournament.Name,
		grpcService: tournamentv1.TournamentService_ServiceDesc.ServiceName,
		dbOptions:   tournament.DBOptions,
		build: func(e *environment, db *sqlstore.DB) (*built, error) {
			walletConn, err := e.dial(tournament.Name, "wallet")
			if err != nil {
				return nil, err
			}
			// The tournament drives its tables with its own identity, as it
			// pays through the wallet.
			tableConn, err := e.dial(tournament.Name, table.Name)
			if err != nil {
				return nil, err
			}
			// The bus brings its tables' table.hand_ended: knock-outs, then
			// the director's moves.
			svc, err := tournament.New(tournament.Config{}, tournament.Deps{DB: db, Clock: e.clock,
				Wallet: walletv1.NewWalletServiceClient(walletConn),
				Tables: tournamenttables.New(tablev1.NewTournamentTableServiceClient(tableConn)), Bus: e.bus, Logger: e.log})
			if err != nil {
				return nil, err
			}
			return &built{service: svc}, nil
		},
	},
}

// newEnvironment connects the shared backing services.
func newEnvironment(cfg config.Config, log *slog.Logger, issuer *auth.Issuer) (*environment, error) {
	e := &environment{cfg: cfg, clock: clock.Real{}, log: log, issuer: issuer, conns: map[string]*grpc.ClientConn{}}
	if cfg.RedisURL == "" {
		e.locker = lock.NewLocal()
		e.bus = events.NewMemory(events.MemoryOptions{})
		return e, nil
	}
	client, err := lock.NewRedisClient(cfg.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("connect redis: %w", err)
	}
	e.redis = client
	e.locker = lock.NewRedis(client, lock.RedisOptions{Prefix: cfg.RedisPrefix + "lock:", TTL: cfg.LockTTL})
	e.bus = events.NewRedisStreams(client, events.RedisStreamsOptions{Prefix: cfg.RedisPrefix + "events:", Logger: log})
	return e, nil
}

// dial returns caller's connection to another service, for calls the
// caller makes on its own behalf. It authenticates with a service token
// whose subject names the calling part (cardroom-table, ...), so the callee
// can tell its callers apart. The address is this process's own in
// `cardroom all`, CARDROOM_<SERVICE>_ADDR otherwise.
func (e *environment) dial(caller, service string) (*grpc.ClientConn, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	key := caller + ">" + service
	if c, ok := e.conns[key]; ok {
		return c, nil
	}
	addr := e.grpcAddr
	if !e.all {
		var ok bool
		if addr, ok = e.cfg.Endpoints.Address(service); !ok {
			return nil, fmt.Errorf("no address for the %s service", service)
		}
	}
	c, err := rpc.Dial(addr, rpc.Options{Logger: e.log, ServiceToken: e.issuer.ServiceTokens("cardroom-"+caller, serviceTokenTTL)})
	if err != nil {
		return nil, fmt.Errorf("dial %s at %s: %w", service, addr, err)
	}
	e.conns[key] = c
	return c, nil
}

// close disconnects from the other services and the backing services.
func (e *environment) close() error {
	e.mu.Lock()
	for _, c := range e.conns {
		_ = c.Close()
	}
	e.mu.Unlock()
	if e.redis != nil {
		return e.redis.Close()
	}
	return nil
}

// openDB opens and migrates a part's database: its own SQLite file under
// the data dir, or its own schema in DATABASE_URL's PostgreSQL.
func openDB(ctx context.Context, cfg config.Config, p part) (*sqlstore.DB, error) {
	opts := p.dbOptions()
	opts.URL, opts.DataDir = cfg.DatabaseURL, cfg.DataDir
	db, err := sqlstore.Open(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("open %s database: %w", p.name, err)
	}
	if err := db.Migrate(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("migrate %s database: %w", p.name, err)
	}
	return db, nil
}
