package store

import (
	"context"
	"fmt"

	"github.com/cardroom/cardroom/platform/sqlstore"
)

// SettleMoneyMove marks the saga step under key done in tx, the
// transaction of the change that settles it at the table (a seat dealt in,
// a top-up's chips added or taken back, a seat undone): the step and its
// effect are stored together or not at all.
func (s *Store) SettleMoneyMove(ctx context.Context, tx *sqlstore.Tx, key string) error {
	if _, err := tx.ExecContext(ctx, `UPDATE money_moves SET done = TRUE WHERE key = $1`, key); err != nil {
		return fmt.Errorf("settle money move %s: %w", key, err)
	}
	return nil
}
