package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/sqlstore"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table/store"
	"github.com/cardroom/cardroom/services/table/tablepb"
	"github.com/cardroom/cardroom/services/table/tables"
)

// Open opens table d: it checks d, names it, and writes it (at fencing
// epoch 1) with its table.opened event in one transaction, holding the
// table's lock. It is claimed on first use.
func (r *Runner) Open(ctx context.Context, d tables.Definition) (tables.Definition, error) {
	return r.open(ctx, d, nil)
}

// OpenTournament opens tournament table d under the tournament's
// idempotency key, recorded in the table's transaction; a repeated key
// returns the id of the table it opened, duplicate.
func (r *Runner) OpenTournament(ctx context.Context, d tables.Definition, key string) (_ tables.Definition, duplicate bool, err error) {
	const kind = "open"
	if id, ok, err := r.d.Store.ControlTable(ctx, key, kind); err != nil || ok {
		return tables.Definition{ID: id}, ok, err
	}
	d, err = r.open(ctx, d, func(tx *sqlstore.Tx, d tables.Definition) error {
		return r.d.Store.AddControl(ctx, tx, store.Control{Key: key, TableID: d.ID, Kind: kind, Fingerprint: d.TournamentID, Created: d.CreatedAt})
	})
	return d, false, err
}

func (r *Runner) open(ctx context.Context, d tables.Definition, also func(tx *sqlstore.Tx, d tables.Definition) error) (tables.Definition, error) {
	if err := d.Validate(); err != nil {
		return tables.Definition{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return tables.Definition{}, err
	}
	// Stored to the millisecond: a table reads back as it was created.
	d.ID, d.CreatedAt = id.String(), r.d.Clock.Now().UTC().Truncate(time.Millisecond)
	t := tablepb.TableToProto(d)
	payload, err := proto.Marshal(&tablev1.TableOpened{TableId: d.ID, Name: d.Name, Game: t.GetGame(), Seats: t.GetSeats(), Kind: t.GetKind()})
	if err != nil {
		return tables.Definition{}, err
	}
	lease, err := r.d.Locker.Acquire(ctx, LockKey(d.ID))
	if err != nil {
		return tables.Definition{}, fmt.Errorf("create table %s: %w", d.ID, err)
	}
	defer func() { _ = lease.Release(context.WithoutCancel(ctx)) }()
	err = r.d.Store.Create(lease.Context(), d, func(tx *sqlstore.Tx) error {
		if also != nil {
			if err := also(tx, d); err != nil {
				return err
			}
		}
		return r.d.Relay.Add(ctx, tx, events.Event{Topic: events.TopicTableOpened, Key: d.ID, Payload: payload, Epoch: 1})
	})
	return d, err
}
