package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/cardroom/cardroom/platform/sqlstore"
)

// IssuedEpoch returns the highest fencing epoch issued for the table (every
// claim takes the next): the wallet takes a table's writes only with an
// epoch no higher than this, so no caller can fence a table out with a
// number of its own.
func (s *Store) IssuedEpoch(ctx context.Context, id string) (int64, error) {
	var epoch int64
	err := s.db.SQL().QueryRowContext(ctx, `SELECT epoch FROM tables WHERE id = $1`, id).Scan(&epoch)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNotFound.Withf("no table %q", id)
	}
	if err != nil {
		return 0, fmt.Errorf("issued epoch of %s: %w", id, err)
	}
	return epoch, nil
}

// TablesToCount lists the tables whose chips the wallet's audit counts:
// every open table, and every closed one with a wallet step still pending
// (its cash-outs are chips still in its escrow).
func (s *Store) TablesToCount(ctx context.Context) ([]string, error) {
	return sqlstore.Collect(ctx, s.db.SQL(), "list tables to count", `SELECT id FROM tables WHERE NOT closed
		OR id IN (SELECT table_id FROM money_moves WHERE NOT done) ORDER BY id`, nil, sqlstore.ScanString)
}

// Snapshot is a table's public state, whether it is closed, and its
// pending wallet steps, read in one read-only transaction: the seat
// changes and the steps they record are written together, so the two
// agree.
type Snapshot struct {
	Public []byte
	Closed bool
	Moves  []MoneyMove
}

// ReadSnapshot reads a table's Snapshot.
func (s *Store) ReadSnapshot(ctx context.Context, id string) (Snapshot, error) {
	var snap Snapshot
	err := s.db.ReadTx(ctx, func(tx *sqlstore.Tx) error {
		var public sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT state, closed FROM tables WHERE id = $1`, id).Scan(&public, &snap.Closed)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound.Withf("no table %q", id)
		}
		if err != nil {
			return fmt.Errorf("read table %s: %w", id, err)
		}
		if public.Valid {
			snap.Public = []byte(public.String)
		}
		snap.Moves, err = s.PendingMoneyMovesTx(ctx, tx, id)
		return err
	})
	return snap, err
}
