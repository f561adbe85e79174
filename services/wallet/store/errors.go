package store

import (
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cardroom/cardroom/platform/sqlstore"
)

// isPendingHoldViolation reports a violation of holds_one_pending: a second
// hold held for the same player and table, inserted by a request that did
// not see the first one yet.
func isPendingHoldViolation(err error) bool {
	if !sqlstore.IsUniqueViolation(err) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.ConstraintName == "holds_one_pending"
	}
	// SQLite names a unique index's columns, not the index:
	// "UNIQUE constraint failed: holds.player, holds.table_id". No other
	// unique constraint of holds has these columns.
	return strings.Contains(err.Error(), "holds.player, holds.table_id")
}

// isKeyViolation reports a second insert of an idempotency key (a KeyRow
// posted with a transfer) while a concurrent request holds or committed it.
func isKeyViolation(err error) bool {
	if !sqlstore.IsUniqueViolation(err) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.ConstraintName == "idempotency_keys_pkey"
	}
	return strings.Contains(err.Error(), "idempotency_keys.key")
}
