// Package server is the table service's gRPC face: it translates between
// proto and the domain (tables, engine) and leaves authorization by role to
// the platform interceptor (the (cardroom.auth.v1.access) option).
package server

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/sqlstore"
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
	Store  *store.Store
	Clock  clock.Clock
	Locker lock.Locker
	Relay  *events.Relay
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
	store         *store.Store
	clock         clock.Clock
	locker        lock.Locker
	relay         *events.Relay
	runner        *runner.Runner
	offers        OfferVerifier
	actionTimeout time.Duration
}

// New returns a Server. Table mutations run under the table's lock from
// locker; events go out through relay's outbox.
func New(c Config) *Server {
	return &Server{store: c.Store, clock: c.Clock, locker: c.Locker, relay: c.Relay, runner: c.Runner, offers: c.Offers,
		actionTimeout: c.ActionTimeout}
}

// CreateTable opens a table. The creator holds the table's lock while it
// writes the table (at fencing epoch 1) and its table.opened event in one
// transaction.
func (s *Server) CreateTable(ctx context.Context, req *tablev1.CreateTableRequest) (*tablev1.CreateTableResponse, error) {
	if req.GetKind() == tablev1.TableKind_TABLE_KIND_TOURNAMENT {
		// Bound to its tournament from the start (OpenTournamentTable).
		return nil, ErrTournamentTableLocked.Withf("a tournament opens its own tables")
	}
	t, err := s.create(ctx, tablepb.DefinitionFromProto(req), req.GetActionSeconds(), nil)
	if err != nil {
		return nil, err
	}
	return &tablev1.CreateTableResponse{Table: t}, nil
}

// create opens table d with the decision time actionSeconds asks for (0:
// the service default, -1: none): it checks d, names it, and writes it (at
// fencing epoch 1) with its table.opened event and also in one
// transaction, holding the table's lock.
func (s *Server) create(ctx context.Context, d tables.Definition, actionSeconds int32, also func(tx *sqlstore.Tx, d tables.Definition) error) (*tablev1.Table, error) {
	switch a := actionSeconds; {
	case a == 0:
		d.ActionTimeout = s.actionTimeout
	case a > 0:
		d.ActionTimeout = time.Duration(a) * time.Second
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	// Stored to the millisecond: a table reads back as it was created.
	d.ID, d.CreatedAt = id.String(), s.clock.Now().UTC().Truncate(time.Millisecond)
	t := tablepb.TableToProto(d)
	payload, err := proto.Marshal(&tablev1.TableOpened{TableId: d.ID, Name: d.Name, Game: t.GetGame(), Seats: t.GetSeats(), Kind: t.GetKind()})
	if err != nil {
		return nil, err
	}

	lease, err := s.locker.Acquire(ctx, runner.LockKey(d.ID))
	if err != nil {
		return nil, fmt.Errorf("create table %s: %w", d.ID, err)
	}
	defer func() { _ = lease.Release(context.WithoutCancel(ctx)) }()
	err = s.store.Create(lease.Context(), d, func(tx *sqlstore.Tx) error {
		if also != nil {
			if err := also(tx, d); err != nil {
				return err
			}
		}
		return s.relay.Add(ctx, tx, events.Event{Topic: events.TopicTableOpened, Key: d.ID, Payload: payload, Epoch: 1})
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// ListTables lists open tables in the order they were opened.
func (s *Server) ListTables(ctx context.Context, req *tablev1.ListTablesRequest) (*tablev1.ListTablesResponse, error) {
	size := int(req.GetPageSize())
	if size == 0 {
		size = DefaultPageSize
	}
	ls, next, err := s.store.ListListed(ctx, size, req.GetPageToken(), req.GetIncludeClosed())
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
	l, err := s.store.GetListed(ctx, id)
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
