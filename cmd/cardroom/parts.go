package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/config"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/table"
	"github.com/cardroom/cardroom/services/tournament"
)

// part is one service of the suite as this binary builds it.
type part struct {
	name string
	// grpcService is the full gRPC service name its health is reported under.
	grpcService string
	dbOptions   func() sqlstore.Options
	build       func(env *environment, db *sqlstore.DB) (*built, error)
}

// built is a part ready to serve.
type built struct {
	register func(grpc.ServiceRegistrar)
	// loops run in the background until their context ends (relays,
	// consumers, sweepers); each returns once it has drained.
	loops []func(context.Context) error
	// close releases what the part holds (locks, leases) after its loops
	// have stopped.
	close func(context.Context) error
}

// environment is what every part shares in one process: configuration,
// time, locks and the event bus (Redis, or in-process when REDIS_URL is
// empty).
type environment struct {
	cfg    config.Config
	clock  clock.Clock
	log    *slog.Logger
	redis  *redis.Client
	locker lock.Locker
	bus    events.Bus
}

// allParts lists the suite's services in the order they start.
var allParts = []part{
	{
		name:        tournament.Name,
		grpcService: tournamentv1.TournamentService_ServiceDesc.ServiceName,
		dbOptions: func() sqlstore.Options {
			return sqlstore.Options{Service: tournament.Name, Migrations: tournament.Migrations()}
		},
		build: func(env *environment, db *sqlstore.DB) (*built, error) {
			svc := tournament.New(tournament.Deps{DB: db, Clock: env.clock})
			return &built{register: svc.Register}, nil
		},
	},
	{
		name:        table.Name,
		grpcService: tablev1.TableService_ServiceDesc.ServiceName,
		dbOptions:   table.DBOptions,
		build: func(env *environment, db *sqlstore.DB) (*built, error) {
			relay := events.NewRelay(db, env.bus, events.RelayOptions{Clock: env.clock, Logger: env.log})
			key, err := table.ResolveSealKey(os.Getenv(table.SealKeyEnv), env.cfg.DataDir)
			if err != nil {
				return nil, err
			}
			svc, err := table.New(table.Deps{DB: db, Clock: env.clock, Locker: env.locker, Relay: relay, SealKey: key, Logger: env.log})
			if err != nil {
				return nil, err
			}
			return &built{register: svc.Register, loops: []func(context.Context) error{relay.Run, svc.Run}}, nil
		},
	},
}

// newEnvironment connects the shared backing services.
func newEnvironment(cfg config.Config, log *slog.Logger) (*environment, error) {
	env := &environment{cfg: cfg, clock: clock.Real{}, log: log}
	if cfg.RedisURL == "" {
		env.locker = lock.NewLocal()
		env.bus = events.NewMemory(events.MemoryOptions{})
		return env, nil
	}
	client, err := lock.NewRedisClient(cfg.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("connect redis: %w", err)
	}
	env.redis = client
	env.locker = lock.NewRedis(client, lock.RedisOptions{Prefix: cfg.RedisPrefix + "lock:"})
	env.bus = events.NewRedisStreams(client, events.RedisStreamsOptions{Prefix: cfg.RedisPrefix + "events:", Logger: log})
	return env, nil
}

// close disconnects the backing services.
func (env *environment) close() error {
	if env.redis != nil {
		return env.redis.Close()
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
