// Package store keeps the table service's tables in its SQL database
// (platform/sqlstore: SQLite embedded, PostgreSQL distributed).
package store

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/table/tables"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations returns the service's goose migrations for
// sqlstore.Options.Migrations; the same files run on both dialects.
func Migrations() fs.FS {
	sub, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	return sub
}

// Store reads and writes tables.
type Store struct{ db *sqlstore.DB }

// New returns a Store over an open, migrated database.
func New(db *sqlstore.DB) *Store { return &Store{db: db} }

// DB returns the database the store reads and writes.
func (s *Store) DB() *sqlstore.DB { return s.db }

// ErrNotFound is returned for an unknown table id.
var ErrNotFound = fault.New(fault.NotFound, "TABLE_NOT_FOUND", "no such table")

// ErrBadPageToken is returned for a page token this store did not issue.
var ErrBadPageToken = fault.Invalidf("page_token", "not a token from a previous page")

const columns = `id, name, config, seats, kind, created_at_ms, currency, settings, closed`

// Create inserts a validated definition (its ID must be set) owned by
// epoch 1, the creator's fencing epoch, and runs also in the same
// transaction (the outbox write of the table's opening event), so that a
// table never exists without its event or the other way round.
func (s *Store) Create(ctx context.Context, d tables.Definition, also func(tx *sqlstore.Tx) error) error {
	cfg, err := json.Marshal(d.Config)
	if err != nil {
		return fmt.Errorf("create table %s: %w", d.ID, err)
	}
	err = s.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO tables (`+columns+`, epoch) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 1)`,
			d.ID, d.Name, string(cfg), d.Seats, int(d.Kind), d.CreatedAt.UnixMilli(), d.Currency, settingsJSON(d), d.Closed)
		if err != nil || also == nil {
			return err
		}
		return also(tx)
	})
	if err != nil {
		return fmt.Errorf("create table %s: %w", d.ID, err)
	}
	return nil
}

// Get returns one table.
func (s *Store) Get(ctx context.Context, id string) (tables.Definition, error) {
	d, err := scan(s.db.SQL().QueryRowContext(ctx, `SELECT `+columns+` FROM tables WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return tables.Definition{}, ErrNotFound.Withf("no table %q", id)
	}
	if err != nil {
		return tables.Definition{}, fmt.Errorf("get table %s: %w", id, err)
	}
	return d, nil
}

// List returns open tables in id order (ids are time-ordered UUIDv7, so
// this is creation order) after the id in token ("" for the first page),
// and the token of the next page ("" on the last).
func (s *Store) List(ctx context.Context, size int, token string) ([]tables.Definition, string, error) {
	if len(token) > 128 {
		return nil, "", ErrBadPageToken
	}
	rows, err := s.db.SQL().QueryContext(ctx, `SELECT `+columns+` FROM tables
		WHERE NOT closed AND id > $1 ORDER BY id LIMIT $2`, token, size+1)
	if err != nil {
		return nil, "", fmt.Errorf("list tables: %w", err)
	}
	defer rows.Close()
	var out []tables.Definition
	for rows.Next() {
		d, err := scan(rows)
		if err != nil {
			return nil, "", fmt.Errorf("list tables: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, "", fmt.Errorf("list tables: %w", err)
	}
	next := ""
	if len(out) > size {
		out = out[:size]
		next = out[size-1].ID
	}
	return out, next, nil
}

type scanner interface{ Scan(dest ...any) error }

func scan(r scanner) (tables.Definition, error) {
	var d tables.Definition
	var cfg string
	var kind int
	var created int64
	var settings string
	if err := r.Scan(&d.ID, &d.Name, &cfg, &d.Seats, &kind, &created, &d.Currency, &settings, &d.Closed); err != nil {
		return d, err
	}
	var st tableSettings
	if err := json.Unmarshal([]byte(settings), &st); err != nil {
		return d, fmt.Errorf("table %s settings: %w", d.ID, err)
	}
	d.ActionTimeout = time.Duration(st.ActionMillis) * time.Millisecond
	d.Kind = tables.Kind(kind)
	d.CreatedAt = time.UnixMilli(created).UTC()
	if err := json.Unmarshal([]byte(cfg), &d.Config); err != nil {
		return d, fmt.Errorf("table %s config: %w", d.ID, err)
	}
	return d, nil
}

// tableSettings is the settings column: house settings beside the engine
// configuration.
type tableSettings struct {
	ActionMillis int64 `json:"action_ms,omitempty"`
}

func settingsJSON(d tables.Definition) string {
	b, _ := json.Marshal(tableSettings{ActionMillis: d.ActionTimeout.Milliseconds()})
	return string(b)
}
