// Package tournament wires the tournament service: its store, its gRPC
// server, and what cmd/cardroom needs to open its database.
package tournament

import (
	"context"
	"io/fs"

	"google.golang.org/grpc"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"github.com/cardroom/cardroom/services/tournament/draw"
	"github.com/cardroom/cardroom/services/tournament/server"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// Name is the service's name: its SQLite file, its PostgreSQL schema, its
// health-check service name.
const Name = "tournament"

// Migrations returns the service's migrations for sqlstore.Options.
func Migrations() fs.FS { return store.Migrations() }

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
	// Its method set matches the table engine's cards.Source, so
	// cards.NewSeeded works for replays.
	Random draw.Source
}

// Service is the tournament service.
type Service struct{ server *server.Server }

// New wires the service over deps.
func New(deps Deps) *Service {
	opts := []server.Option{server.WithWallet(deps.Wallet)}
	if deps.Random != nil {
		opts = append(opts, server.WithRandom(deps.Random))
	}
	return &Service{server: server.New(store.New(deps.DB), deps.Clock, opts...)}
}

// Run finishes wallet payments left unanswered (a crash, the wallet down)
// at once and then every minute, until ctx ends. Run it as one of the
// process's loops; without it a pending payment is finished only when its
// request is repeated (RegisterPlayer, PayPrizes, CancelTournament).
func (s *Service) Run(ctx context.Context) error { return s.server.Run(ctx) }

// Register exposes the service on a gRPC server.
func (s *Service) Register(r grpc.ServiceRegistrar) {
	tournamentv1.RegisterTournamentServiceServer(r, s.server)
}
