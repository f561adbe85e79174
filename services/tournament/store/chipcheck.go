package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/cardroom/cardroom/platform/sqlstore"
)

// ChipCheck is a tournament's last chip count: the chips at its tables and
// in transit against the chips it issued.
type ChipCheck struct {
	Issued    int64
	Counted   int64
	CountedAt time.Time
}

// Mismatch is the chips counted minus the chips issued (0: conserved).
func (c ChipCheck) Mismatch() int64 { return c.Counted - c.Issued }

// SaveChipCheck records the tournament's latest chip count; it replaces the
// previous one.
func (s *Store) SaveChipCheck(ctx context.Context, id string, c ChipCheck) error {
	err := s.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO tournament_chip_checks (tournament_id, chips_issued, chips_counted, counted_at_ms)
			VALUES ($1, $2, $3, $4)
			ON CONFLICT (tournament_id) DO UPDATE SET chips_issued = excluded.chips_issued,
				chips_counted = excluded.chips_counted, counted_at_ms = excluded.counted_at_ms`,
			id, c.Issued, c.Counted, c.CountedAt.UnixMilli())
		return err
	})
	if err != nil {
		return fmt.Errorf("save chip check of %s: %w", id, err)
	}
	return nil
}

// ChipCheck returns the tournament's last chip count; ok is false before
// the director has counted it.
func (s *Store) ChipCheck(ctx context.Context, id string) (c ChipCheck, ok bool, err error) {
	err = s.db.ReadTx(ctx, func(tx *sqlstore.Tx) error {
		var ms int64
		err := tx.QueryRowContext(ctx, `SELECT chips_issued, chips_counted, counted_at_ms FROM tournament_chip_checks WHERE tournament_id = $1`, id).
			Scan(&c.Issued, &c.Counted, &ms)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		c.CountedAt, ok = time.UnixMilli(ms).UTC(), true
		return nil
	})
	if err != nil {
		return ChipCheck{}, false, fmt.Errorf("chip check of %s: %w", id, err)
	}
	return c, ok, nil
}
