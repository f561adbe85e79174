// Package seating wires the seating service — waitlists, seat offers,
// table changes and must-move lists, breaks and absence — from its
// packages: waitlist (the pure domain), store (one fenced row per game),
// room (fenced updates, outbox events, timers, table-event consumers, the
// board feed) and server (gRPC).
//
// In cmd/cardroom:
//
//	db, _ := sqlstore.Open(ctx, sqlstore.Options{URL: dbURL, DataDir: dir, Service: seating.Name,
//		Migrations: seating.Migrations(), Shared: seating.Shared()})
//	_ = db.Migrate(ctx)
//	svc, _ := seating.New(ctx, seating.Deps{DB: db, Clock: clock.Real{}, Locker: locker,
//		Bus: bus, Relay: events.NewRelay(db, bus, events.RelayOptions{}), Logger: log})
//	svc.Register(grpcServer)
//	go relay.Run(ctx)  // the service's own outbox relay
//	go svc.Run(ctx)    // timers, table-event consumers, board feed; returns nil once ctx ends
//	...
//	svc.Close()        // after Run returned; then db.Close()
package seating

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	_ "time/tzdata" // the gaming day's time zone must load on hosts without zoneinfo

	"google.golang.org/grpc"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	seatingv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/seating/v1"
	"github.com/cardroom/cardroom/services/seating/room"
	"github.com/cardroom/cardroom/services/seating/server"
	"github.com/cardroom/cardroom/services/seating/store"
)

// Name is the service's name: its SQLite file, its PostgreSQL schema, its
// health-check service name.
const Name = "seating"

// Migrations returns the service's own migrations for sqlstore.Options.
func Migrations() fs.FS { return store.Migrations() }

// Shared returns the platform migration sets the service's database needs
// (the events outbox and processed-events tables), for
// sqlstore.Options.Shared.
func Shared() []sqlstore.MigrationSet { return []sqlstore.MigrationSet{events.Migrations} }

// DBOptions returns the sqlstore options of the service's database: url
// empty means SQLite in dataDir.
func DBOptions(url, dataDir string) sqlstore.Options {
	return sqlstore.Options{URL: url, DataDir: dataDir, Service: Name, Migrations: Migrations(), Shared: Shared()}
}

// Config is the seating configuration (timers, gaming day, loop intervals);
// the zero value is the house default: 3-minute offers, 15-minute short
// absences, a 30-minute long break, gaming day from 06:00 Europe/Helsinki.
type Config = room.Config

// Deps is what the service needs from its process.
type Deps struct {
	// DB is the service's migrated database (DBOptions).
	DB *sqlstore.DB
	// Clock drives offers, absences and the loops; nil means real time.
	Clock clock.Clock
	// Locker takes the per-game lock: lock.Redis across replicas,
	// lock.Local in the single-process mode.
	Locker lock.Locker
	// Bus delivers table.opened and table.seat_opened; nil consumes none.
	Bus events.Bus
	// Relay is the outbox relay of DB; the service adds its events through
	// it so they go out at commit. The caller runs it (Relay.Run).
	Relay *events.Relay
	// Config tunes the service; zero means the defaults.
	Config Config
	// Logger reports failures of the background loops; nil means slog.Default().
	Logger *slog.Logger
}

// Service is the seating service.
type Service struct {
	room   *room.Room
	server *server.Server
}

// New wires the service over deps. It fails when a dependency is missing
// or the configuration's timers are out of range.
func New(_ context.Context, deps Deps) (*Service, error) {
	if deps.DB == nil || deps.Locker == nil {
		return nil, errors.New("seating: DB and Locker are required")
	}
	r, err := room.New(room.Deps{
		Store: store.New(deps.DB, deps.Locker), Relay: deps.Relay, Bus: deps.Bus,
		Clock: deps.Clock, Logger: deps.Logger,
	}, deps.Config)
	if err != nil {
		return nil, err
	}
	return &Service{room: r, server: server.New(r)}, nil
}

// Register exposes the service on a gRPC server.
func (s *Service) Register(r grpc.ServiceRegistrar) {
	seatingv1.RegisterSeatingServiceServer(r, s.server)
}

// Run runs the background loops until ctx ends and returns nil then: the
// offer/absence timer sweeper, the consumers of table.opened and
// table.seat_opened (group "seating"), and the live board's poll for
// changes made by other replicas. Run it once per process.
func (s *Service) Run(ctx context.Context) error { return s.room.Run(ctx) }

// Close releases what New took; the service holds nothing beyond what
// Run's context stops, so it only exists for symmetry with other parts.
func (s *Service) Close() error { return nil }
