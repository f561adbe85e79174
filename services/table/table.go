// Package table wires the table service: its store, its gRPC server, and
// what cmd/cardroom needs to open its database.
package table

import (
	"google.golang.org/grpc"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table/server"
	"github.com/cardroom/cardroom/services/table/store"
)

// Name is the service's name: its SQLite file, its PostgreSQL schema, its
// health-check service name.
const Name = "table"

// DBOptions returns the service's database options (migrations, including
// the outbox's); the caller fills in URL and DataDir.
func DBOptions() sqlstore.Options {
	return sqlstore.Options{Service: Name, Migrations: store.Migrations(), Shared: []sqlstore.MigrationSet{events.Migrations}}
}

// Deps is what the service needs from its process.
type Deps struct {
	DB     *sqlstore.DB
	Clock  clock.Clock
	Locker lock.Locker
	Relay  *events.Relay
}

// Service is the table service.
type Service struct{ server *server.Server }

// New wires the service over deps.
func New(deps Deps) *Service {
	return &Service{server: server.New(store.New(deps.DB), deps.Clock, deps.Locker, deps.Relay)}
}

// Register exposes the service on a gRPC server.
func (s *Service) Register(r grpc.ServiceRegistrar) {
	tablev1.RegisterTableServiceServer(r, s.server)
}
