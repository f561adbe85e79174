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
// sqlstore.Options.Migrations; the same files run on both dialects, but
// for those named .postgres.sql, which run on PostgreSQL alone.
func Migrations() fs.FS { return sqlstore.Embedded(migrationFiles, "migrations") }

// Store reads and writes tables.
type Store struct{ db *sqlstore.DB }

// New returns a Store over an open, migrated database.
func New(db *sqlstore.DB) *Store { return &Store{db: db} }

// ErrNotFound is returned for an unknown table id.
var ErrNotFound = fault.New(fault.NotFound, "TABLE_NOT_FOUND", "no such table")

// ErrBadPageToken is returned for a page token this store did not issue.
var ErrBadPageToken = fault.Invalidf("page_token", "not a token from a previous page")

const columns = `id, name, config, seats, kind, created_at_ms, currency, settings, closed, tournament_id`

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
		_, err := tx.ExecContext(ctx, `INSERT INTO tables (`+columns+`, epoch) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 1)`,
			d.ID, d.Name, string(cfg), d.Seats, int(d.Kind), d.CreatedAt.UnixMilli(), d.Currency, settingsJSON(d), d.Closed, d.TournamentID)
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

// Listed is a table as listed: its definition and its stored public play
// state (nil before its first change), read from its row at once, so that
// a listing with seats reads each row once.
type Listed struct {
	tables.Definition
	Public []byte
}

// Get returns one table.
func (s *Store) Get(ctx context.Context, id string) (tables.Definition, error) {
	l, err := s.GetListed(ctx, id)
	return l.Definition, err
}

// GetListed returns one table with its public play state.
func (s *Store) GetListed(ctx context.Context, id string) (Listed, error) {
	l, err := scan(s.db.SQL().QueryRowContext(ctx, `SELECT `+columns+`, state FROM tables WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Listed{}, ErrNotFound.Withf("no table %q", id)
	}
	if err != nil {
		return Listed{}, fmt.Errorf("get table %s: %w", id, err)
	}
	return l, nil
}

// ListListed returns open tables, each with its public play state, in id
// order (ids are time-ordered UUIDv7, so this is creation order) after
// the id in token ("" for the first page), and the token of the next page
// ("" on the last); with includeClosed it lists closed tables too.
func (s *Store) ListListed(ctx context.Context, size int, token string, includeClosed bool) ([]Listed, string, error) {
	if len(token) > 128 {
		return nil, "", ErrBadPageToken
	}
	out, err := sqlstore.Collect(ctx, s.db.SQL(), "list tables", `SELECT `+columns+`, state FROM tables
		WHERE (NOT closed OR $3) AND id > $1 ORDER BY id LIMIT $2`, []any{token, size + 1, includeClosed}, scan)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(out) > size {
		out = out[:size]
		next = out[size-1].ID
	}
	return out, next, nil
}

// scan scans columns followed by state.
func scan(r sqlstore.Scanner) (Listed, error) {
	var l Listed
	d := &l.Definition
	var cfg string
	var kind int
	var created int64
	var settings string
	var public sql.NullString
	if err := r.Scan(&d.ID, &d.Name, &cfg, &d.Seats, &kind, &created, &d.Currency, &settings, &d.Closed, &d.TournamentID, &public); err != nil {
		return l, err
	}
	if public.Valid {
		l.Public = []byte(public.String)
	}
	var st tableSettings
	if err := json.Unmarshal([]byte(settings), &st); err != nil {
		return l, fmt.Errorf("table %s settings: %w", d.ID, err)
	}
	d.ActionTimeout = time.Duration(st.ActionMillis) * time.Millisecond
	d.Kind = tables.Kind(kind)
	d.CreatedAt = time.UnixMilli(created).UTC()
	if err := json.Unmarshal([]byte(cfg), &d.Config); err != nil {
		return l, fmt.Errorf("table %s config: %w", d.ID, err)
	}
	if k := &d.Config.Stakes; k.ChipUnit == 0 && d.Kind == tables.Cash {
		// A cash table stored before it had a smallest chip (TP-31) gets
		// the one a new table at its stakes gets, not the engine's 1.
		k.ChipUnit = k.SmallestChip()
	}
	return l, nil
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
