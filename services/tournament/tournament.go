// Package tournament wires the tournament service: its store, its gRPC
// server, and what cmd/cardroom needs to open its database.
package tournament

import (
	"cmp"
	"context"
	"io/fs"
	"log/slog"
	"sync"
	"time"

	"google.golang.org/grpc"

	"math/rand/v2"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/sqlstore"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"github.com/cardroom/cardroom/services/tournament/desk"
	"github.com/cardroom/cardroom/services/tournament/director"
	"github.com/cardroom/cardroom/services/tournament/server"
	"github.com/cardroom/cardroom/services/tournament/store"
	"github.com/cardroom/cardroom/services/tournament/wallet"
)

// Name is the service's name: its SQLite file, its PostgreSQL schema, its
// health-check service name.
const Name = "tournament"

// Migrations returns the service's migrations for sqlstore.Options.
func Migrations() fs.FS { return store.Migrations() }

// DBOptions returns the service's database options: its migrations and
// the events package's (processed_events, for the table.hand_ended
// consumer). The caller fills in URL (empty: SQLite) and DataDir.
func DBOptions() sqlstore.Options {
	return sqlstore.Options{Service: Name, Migrations: Migrations(), Shared: []sqlstore.MigrationSet{events.Migrations}}
}

// Config is the tournament service's settings. It has none yet: the
// parameter gives New the shape of the other services' (New(cfg, deps)).
type Config struct{}

// Deps is what the service needs from its process.
type Deps struct {
	DB    *sqlstore.DB
	Clock clock.Clock
	// Wallet takes entries, rebuys and add-ons and refunds cancelled
	// events. Dial it with the service's own token
	// (rpc.Options.ServiceToken): the service drops the caller's token
	// before calling, so the wallet sees the tournament service, which
	// ROLE_SERVICE lets call Enter, Rebuy, AddOn and Refund. Nil keeps the
	// books without money (tests only).
	Wallet walletv1.WalletServiceClient
	// Random draws seats and buttons (TR-06, TR-07); nil uses crypto/rand.
	// random.Seeded replays a draw.
	Random rand.Source
	// Bus delivers the table service's table.hand_ended: the attached
	// tables' knock-outs and hand-for-hand hands. Nil leaves them to the
	// floor (RecordKnockouts, ReportHandEnded).
	Bus events.Bus
	// Logger logs the consumer's dropped events; nil is slog.Default().
	Logger *slog.Logger
	// Tables drives the tournament's tables at the table service
	// (tables.New over a TournamentTableService client dialled with the
	// service's own token): the director opens and seats them at the
	// start, balances and breaks them after every hand. Nil leaves the
	// tables to the floor (AttachTable).
	Tables director.Tables
}

// Service is the tournament service.
type Service struct {
	desk   *desk.Desk
	server *server.Server
	bus    events.Bus
	clock  clock.Clock
	log    *slog.Logger
}

// New wires the service over deps: the store, the desk over it (with the
// director when Deps.Tables drives the tables) and the gRPC server over
// the desk. It returns no error yet; the signature is every service's.
func New(_ Config, deps Deps) (*Service, error) {
	log := deps.Logger
	log = cmp.Or(log, slog.Default())
	dd := desk.Deps{Store: store.New(deps.DB), Clock: deps.Clock, Random: deps.Random, Logger: log, Tables: deps.Tables}
	if deps.Wallet != nil {
		dd.Wallet = wallet.New(deps.Wallet)
	}
	d := desk.New(dd)
	svc := &Service{desk: d, server: server.New(d), bus: deps.Bus, clock: deps.Clock, log: log}
	return svc, nil
}

// Run finishes wallet payments left unanswered (a crash, the wallet down)
// at once and then every minute, and, with a bus, consumes
// table.hand_ended (consumer group desk.Consumer), until ctx ends. Run
// it as one of the process's loops; without it a pending payment is
// finished only when its request is repeated (RegisterPlayer, PayPrizes,
// CancelTournament) and the tables' knock-outs are not recorded.
func (s *Service) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Go(func() { _ = s.desk.Run(ctx) })
	if s.bus != nil {
		wg.Go(func() {
			for ctx.Err() == nil {
				err := s.bus.Subscribe(ctx, events.TopicHandEnded, desk.Consumer, s.HandleHandEnded)
				if err == nil || ctx.Err() != nil {
					continue
				}
				s.log.ErrorContext(ctx, "tournament consumer", "topic", events.TopicHandEnded, "error", err)
				select {
				case <-ctx.Done():
				case <-s.clock.After(time.Second):
				}
			}
		})
	}
	wg.Wait()
	return nil
}

// HandleHandEnded is the table.hand_ended consumer Run subscribes, for
// tests and processes that deliver events themselves: the event's books
// (knock-outs), then, with Deps.Tables, the director's moves
// (desk.HandleHandEnded).
func (s *Service) HandleHandEnded(ctx context.Context, ev events.Event) error {
	return s.desk.HandleHandEnded(ctx, ev)
}

// Close releases what New took: nothing beyond what Run's context stops
// (the caller closes the database), so it returns nil.
func (s *Service) Close() error { return nil }

// Register exposes the service on a gRPC server.
func (s *Service) Register(r grpc.ServiceRegistrar) {
	tournamentv1.RegisterTournamentServiceServer(r, s.server)
}
