// Package seating wires the seating service — waitlists, seat offers,
// table changes and must-move lists, breaks and absence — from its
// packages: waitlist (the pure domain), store (one fenced row per game),
// room (fenced updates, outbox events, timers, table-event consumers, the
// board feed), wire (proto conversions) and server (gRPC).
//
// # Running it (cmd/cardroom)
//
//	opts := seating.DBOptions()              // fill in URL and DataDir
//	db, err := sqlstore.Open(ctx, opts)      // then db.Migrate(ctx)
//	settings, err := config.Parse[seating.Settings](nil) // CARDROOM_SEATING_*
//	cfg, err := settings.Config()            // a timer out of range names its variable
//	relay := events.NewRelay(db, bus, events.RelayOptions{Clock: clk, Logger: log})
//	svc, err := seating.New(cfg, seating.Deps{DB: db, Clock: clk, Locker: locker,
//		Bus: bus, Relay: relay, Tables: tablev1.NewTableServiceClient(tableConn), Logger: log})
//	svc.Register(grpcServer)
//	go relay.Run(ctx) // publishes seating's outbox; drains once more when ctx ends
//	go svc.Run(ctx)   // offer/absence/hold timers, table-event consumers, board poll
//	// on shutdown: cancel ctx, wait for both to return nil, svc.Close(), db.Close()
//
// # What the table service does with it (issue 6)
//
// Seating consumes, as consumer group "seating":
//   - table.opened (tablev1.TableOpened): a cash table's seats are offered
//     to its game's list (the list is opened with the default policy when
//     the game has none); tournament tables are ignored;
//   - table.seat_opened (tablev1.SeatOpened): publish it whenever a seat
//     empties — a player left, a released or vacated seat was cleared;
//   - table.player_seated (tablev1.PlayerSeated): confirms the sit-down of
//     an accepted offer (otherwise the seat opens again at hold_until), and
//     records players the floor seated directly (the table is the truth);
//   - table.closed (tablev1.TableClosed): the table breaks as BreakTable
//     breaks it — its open offers are withdrawn, it leaves the game, and
//     the players the table reports seated at the close get the head of
//     the list for the game's other tables; later events about it change
//     nothing. Publish it in the close's transaction, and no
//     table.seat_opened for the closed table's seats after it.
//
// One seat per player across games (G-21): a player holding a seat in one
// game (seated, or with an accepted offer) is not offered seats in
// another and keeps their place on its list; accepting an offer withdraws
// the player's pending offers in every other game, which go to the next
// players there, and a withdrawn offer can no longer be accepted
// (OFFER_CLOSED). Refusals name their rule (G-21, G-20 for timers, CS-13
// and CS-14 for absences); requests at odds with the list's state —
// NOT_SEATED, NOT_AWAY, NO_DECISION_PENDING, OFFER_CLOSED, OFFER_EXPIRED
// (an offer whose time ran out, before or after the sweep closed it) —
// are conflicts, 409 over REST.
//
// The table checks an offer at sit-down with ListOffers(player_id) under
// its service token: the offer must be the player's, for that table and
// seat, and pending or accepted with hold_until in the future. offer_id is
// the natural idempotency key of the buy-in hold that follows.
//
// Seating publishes (outbox, key = table id, epoch = the game's fencing
// epoch): seating.offer_made / offer_accepted / offer_declined /
// offer_expired / offer_withdrawn / hold_lapsed (seatingv1.OfferEvent);
// seating.player_away / player_back / absence_overdue / seat_released
// (seatingv1.AbsenceEvent); seating itself carries them to the table
// (Deps.Tables, consumer group "seating.table"): an away player is sat
// out (TP-56; in a hand they are still in, the house acts for the seat,
// G-43), a returning one dealt in again under TP-15/TP-18, a
// released one stood up and cashed out, after which the table reports
// table.seat_opened and the seat is offered (CS-13, CS-14);
// seating.open_table_suggested (seatingv1.OpenTableSuggested, key = list id).
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
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
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

// DBOptions returns the service's database options (its migrations and
// the outbox's); the caller fills in URL (empty: SQLite) and DataDir.
func DBOptions() sqlstore.Options {
	return sqlstore.Options{Service: Name, Migrations: Migrations(), Shared: Shared()}
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
	// Bus delivers the table events seating consumes; nil consumes none.
	Bus events.Bus
	// Tables is the table service (a client under seating's service
	// token): an absence recorded here sits the seat out there, a return
	// deals it in again and the floor's release stands the player up
	// (TableSeats). Nil leaves that to the app.
	Tables tablev1.TableServiceClient
	// Relay is the outbox relay of DB; the service adds its events through
	// it so they go out at commit. The caller runs it (Relay.Run).
	Relay *events.Relay
	// Logger reports failures of the background loops; nil means slog.Default().
	Logger *slog.Logger
}

// Service is the seating service.
type Service struct {
	room   *room.Room
	server *server.Server
}

// New wires the service over deps; cfg tunes it (zero: the defaults). It
// fails when a dependency is missing or the configuration's timers are out
// of range (TIMER_OUT_OF_RANGE).
func New(cfg Config, deps Deps) (*Service, error) {
	if deps.DB == nil || deps.Locker == nil {
		return nil, errors.New("seating: DB and Locker are required")
	}
	var tables room.Tables
	if deps.Tables != nil {
		tables = TableSeats{Client: deps.Tables}
	}
	r, err := room.New(room.Deps{
		Store: store.New(deps.DB, deps.Locker), Relay: deps.Relay, Bus: deps.Bus, Tables: tables,
		Clock: deps.Clock, Logger: deps.Logger,
	}, cfg)
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
// timer sweeper (offer expiry, absence timers, lapsed seat holds; every
// Config.SweepInterval, default 1 s), the consumers of table.opened,
// table.seat_opened, table.player_seated and table.closed (group
// "seating"; none when
// Deps.Bus is nil), and the live board's poll for changes made by other
// replicas (every Config.BoardPoll, default 1 s). Run it once per process;
// every replica may run it (each timer round and event takes the game's
// lock and fence).
func (s *Service) Run(ctx context.Context) error { return s.room.Run(ctx) }

// Close releases what New took; the service holds nothing beyond what
// Run's context stops, so it only exists for symmetry with other parts.
func (s *Service) Close() error { return nil }
