package store

import (
	"errors"
	"fmt"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// isPendingHoldViolation reports a violation of holds_one_pending: a second
// hold held for the same player and table, inserted by a request that did
// not see the first one yet. On SQLite it is the one unique index of holds
// (its id is the primary key).
func isPendingHoldViolation(err error) bool {
	return violates(err, "holds", "holds_one_pending", sqlite3.SQLITE_CONSTRAINT_UNIQUE)
}

// isKeyViolation reports a second insert of an idempotency key (a KeyRow
// posted with a transfer) while a concurrent request holds or committed it.
func isKeyViolation(err error) bool {
	return violates(err, "idempotency_keys", "idempotency_keys_pkey", sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY)
}

// violates reports whether err is the unique violation of constraint, a
// constraint of table: PostgreSQL names the constraint; SQLite does not,
// so there it is the violation of the kind sqliteCode in the insert of a
// row of table (rowError).
func violates(err error, table, constraint string, sqliteCode int) bool {
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok {
		return pgErr.Code == pgerrcode.UniqueViolation && pgErr.ConstraintName == constraint
	}
	var sqliteErr *sqlite.Error
	var row *rowError
	return errors.As(err, &sqliteErr) && sqliteErr.Code() == sqliteCode && errors.As(err, &row) && row.table == table
}

// rowError is the failure to insert a row of table posted with transfer
// (Post's with rows, one statement each on SQLite).
type rowError struct {
	table, transfer string
	err             error
}

func (e *rowError) Error() string {
	return fmt.Sprintf("insert %s with %s: %v", e.table, e.transfer, e.err)
}

func (e *rowError) Unwrap() error { return e.err }
