// Package server is the table service's gRPC face: it translates between
// proto and the domain (tables, engine) and leaves authorization by role to
// the platform interceptor (the (cardroom.auth.v1.access) option).
package server

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table/store"
)

// DefaultPageSize is the page size when a request leaves it 0.
const DefaultPageSize = 50

// TopicTableOpened is the topic of tablev1.TableOpened events.
const TopicTableOpened = "table.opened"

// Server implements tablev1.TableServiceServer.
type Server struct {
	tablev1.UnimplementedTableServiceServer
	store  *store.Store
	clock  clock.Clock
	locker lock.Locker
	relay  *events.Relay
}

// New returns a Server. Table mutations run under the table's lock from
// locker; events go out through relay's outbox.
func New(s *store.Store, clk clock.Clock, locker lock.Locker, relay *events.Relay) *Server {
	return &Server{store: s, clock: clk, locker: locker, relay: relay}
}

// LockKey is the lock that guards table id's mutations.
func LockKey(tableID string) string { return "table:" + tableID }

// CreateTable opens a table. The creator holds the table's lock while it
// writes the table (at fencing epoch 1) and its table.opened event in one
// transaction.
func (s *Server) CreateTable(ctx context.Context, req *tablev1.CreateTableRequest) (*tablev1.CreateTableResponse, error) {
	d := definitionFromProto(req)
	if err := d.Validate(); err != nil {
		return nil, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	d.ID, d.CreatedAt = id.String(), s.clock.Now().UTC()
	t := tableToProto(d)
	payload, err := proto.Marshal(&tablev1.TableOpened{TableId: d.ID, Name: d.Name, Game: t.GetGame(), Seats: t.GetSeats(), Kind: t.GetKind()})
	if err != nil {
		return nil, err
	}

	lease, err := s.locker.Acquire(ctx, LockKey(d.ID))
	if err != nil {
		return nil, fmt.Errorf("create table %s: %w", d.ID, err)
	}
	defer func() { _ = lease.Release(context.WithoutCancel(ctx)) }()
	err = s.store.Create(lease.Context(), d, func(tx *sqlstore.Tx) error {
		return s.relay.Add(ctx, tx, events.Event{Topic: TopicTableOpened, Key: d.ID, Payload: payload, Epoch: 1})
	})
	if err != nil {
		return nil, err
	}
	return &tablev1.CreateTableResponse{Table: t}, nil
}

// ListTables lists open tables in the order they were opened.
func (s *Server) ListTables(ctx context.Context, req *tablev1.ListTablesRequest) (*tablev1.ListTablesResponse, error) {
	size := int(req.GetPageSize())
	if size == 0 {
		size = DefaultPageSize
	}
	ds, next, err := s.store.List(ctx, size, req.GetPageToken())
	if err != nil {
		return nil, err
	}
	resp := &tablev1.ListTablesResponse{NextPageToken: next}
	for _, d := range ds {
		resp.Tables = append(resp.Tables, tableToProto(d))
	}
	return resp, nil
}

// GetTable returns one table.
func (s *Server) GetTable(ctx context.Context, req *tablev1.GetTableRequest) (*tablev1.GetTableResponse, error) {
	d, err := s.store.Get(ctx, req.GetTableId())
	if err != nil {
		return nil, err
	}
	return &tablev1.GetTableResponse{Table: tableToProto(d)}, nil
}
