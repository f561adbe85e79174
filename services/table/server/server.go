// Package server is the table service's gRPC face: it translates between
// proto and the domain (tables, engine) and leaves authorization by role to
// the platform interceptor (the (cardroom.auth.v1.access) option).
package server

import (
	"context"

	"github.com/google/uuid"

	"github.com/cardroom/cardroom/platform/clock"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table/store"
)

// DefaultPageSize is the page size when a request leaves it 0.
const DefaultPageSize = 50

// Server implements tablev1.TableServiceServer.
type Server struct {
	tablev1.UnimplementedTableServiceServer
	store *store.Store
	clock clock.Clock
}

// New returns a Server over s.
func New(s *store.Store, clk clock.Clock) *Server { return &Server{store: s, clock: clk} }

// CreateTable opens a table.
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
	if err := s.store.Create(ctx, d); err != nil {
		return nil, err
	}
	return &tablev1.CreateTableResponse{Table: tableToProto(d)}, nil
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
