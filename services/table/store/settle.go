package store

import (
	"context"

	"github.com/cardroom/cardroom/platform/sqlstore"
)

// SettleMoneyMove marks the saga step under key done in q: the
// transaction of the change that settles it at the table (a seat dealt in,
// a top-up's chips added or taken back, a seat undone), so the step and
// its effect are stored together or not at all; or the database, for a
// step with nothing left to change at the table (a cash-out paid, a
// buy-in's chips given back, a top-up whose seat went).
func (s *Store) SettleMoneyMove(ctx context.Context, q sqlstore.Querier, key string) error {
	_, err := sqlstore.Exec(ctx, q, `UPDATE money_moves SET done = TRUE WHERE key = $1`, []any{key}, "settle money move %s", key)
	return err
}

// SettleRefusedMoneyMove is SettleMoneyMove for a buy-in the wallet
// refused, keeping the refusal (as the table's Wallet recorded it) to
// answer a retry of the sit-down with.
func (s *Store) SettleRefusedMoneyMove(ctx context.Context, q sqlstore.Querier, key, refusal string) error {
	_, err := sqlstore.Exec(ctx, q, `UPDATE money_moves SET done = TRUE, refusal = $2 WHERE key = $1`, []any{key, refusal}, "settle refused money move %s", key)
	return err
}
