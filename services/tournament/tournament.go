// Package tournament wires the tournament service: its store, its gRPC
// server, and what cmd/cardroom needs to open its database.
package tournament

import (
	"io/fs"

	"google.golang.org/grpc"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
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
}

// Service is the tournament service.
type Service struct{ server *server.Server }

// New wires the service over deps.
func New(deps Deps) *Service {
	return &Service{server: server.New(store.New(deps.DB), deps.Clock)}
}

// Register exposes the service on a gRPC server.
func (s *Service) Register(r grpc.ServiceRegistrar) {
	tournamentv1.RegisterTournamentServiceServer(r, s.server)
}
