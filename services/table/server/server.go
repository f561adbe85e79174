// Package server is the table service's gRPC face: it translates between
// proto and the domain (tables, engine) and leaves authorization by role to
// the platform interceptor (the (cardroom.auth.v1.access) option).
package server

import (
	"cmp"
	"context"
	"time"

	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table/dealer"
	"github.com/cardroom/cardroom/services/table/runner"
	"github.com/cardroom/cardroom/services/table/store"
	"github.com/cardroom/cardroom/services/table/tablepb"
	"github.com/cardroom/cardroom/services/table/tables"
)

// DefaultPageSize is the page size when a request leaves it 0.
const DefaultPageSize = 50

// Config is what a Server needs.
type Config struct {
	Runner *runner.Runner
	// Offers checks the seating offers players sit with; nil refuses
	// players' own sit-downs (the floor still seats anyone).
	Offers OfferVerifier
	// ActionTimeout is the house decision time of a table opened with
	// action_seconds 0 (G-16); zero means none.
	ActionTimeout time.Duration
}

// Server implements tablev1.TableServiceServer.
type Server struct {
	tablev1.UnimplementedTableServiceServer
	runner        *runner.Runner
	offers        OfferVerifier
	actionTimeout time.Duration
}

// New returns a Server; every change goes through the runner.
func New(c Config) *Server {
	return &Server{runner: c.Runner, offers: c.Offers, actionTimeout: c.ActionTimeout}
}

// CreateTable opens a table (runner.Open).
func (s *Server) CreateTable(ctx context.Context, req *tablev1.CreateTableRequest) (*tablev1.CreateTableResponse, error) {
	if req.GetKind() == tablev1.TableKind_TABLE_KIND_TOURNAMENT {
		// Bound to its tournament from the start (OpenTournamentTable).
		return nil, ErrTournamentTableLocked.Withf("a tournament opens its own tables")
	}
	d, err := s.runner.Open(ctx, s.timed(tablepb.DefinitionFromProto(req), req.GetActionSeconds()))
	if err != nil {
		return nil, err
	}
	return &tablev1.CreateTableResponse{Table: tablepb.TableToProto(d)}, nil
}

// timed is d with the decision time actionSeconds asks for (0: the
// service default, -1: none).
func (s *Server) timed(d tables.Definition, actionSeconds int32) tables.Definition {
	switch a := actionSeconds; {
	case a == 0:
		d.ActionTimeout = s.actionTimeout
	case a > 0:
		d.ActionTimeout = time.Duration(a) * time.Second
	}
	return d
}

// ListTables lists open tables in the order they were opened.
func (s *Server) ListTables(ctx context.Context, req *tablev1.ListTablesRequest) (*tablev1.ListTablesResponse, error) {
	size := int(req.GetPageSize())
	size = cmp.Or(size, DefaultPageSize)
	ls, next, err := s.runner.List(ctx, size, req.GetPageToken(), req.GetIncludeClosed())
	if err != nil {
		return nil, err
	}
	resp := &tablev1.ListTablesResponse{NextPageToken: next}
	for _, l := range ls {
		t, err := tableWithSeats(l)
		if err != nil {
			return nil, err
		}
		resp.Tables = append(resp.Tables, t)
	}
	return resp, nil
}

// tableWithSeats is a table with its seat map from its stored state: who
// sits where with how many chips (as of the last stored change).
func tableWithSeats(l store.Listed) (*tablev1.Table, error) {
	seats := make([]dealer.Seat, l.Seats)
	if l.Public != nil {
		var err error
		if seats, err = dealer.PublicSeats(l.Public); err != nil {
			return nil, err
		}
	}
	t := tablepb.TableToProto(l.Definition)
	t.SeatMap = make([]*tablev1.SeatState, len(seats))
	for i, seat := range seats {
		t.SeatMap[i] = seatToProto(runner.SeatView{No: i, Seat: seat})
	}
	return t, nil
}

func (s *Server) getTable(ctx context.Context, id string) (*tablev1.Table, error) {
	l, err := s.runner.Listed(ctx, id)
	if err != nil {
		return nil, err
	}
	return tableWithSeats(l)
}

// GetTable returns one table.
func (s *Server) GetTable(ctx context.Context, req *tablev1.GetTableRequest) (*tablev1.GetTableResponse, error) {
	t, err := s.getTable(ctx, req.GetTableId())
	if err != nil {
		return nil, err
	}
	return &tablev1.GetTableResponse{Table: t}, nil
}
