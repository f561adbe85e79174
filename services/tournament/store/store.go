// Package store keeps tournaments in the service's SQL database
// (platform/sqlstore: SQLite embedded, PostgreSQL distributed).
package store

import (
	"context"
	"database/sql"
	"embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/house"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations returns the service's goose migrations for
// sqlstore.Options.Migrations; the same files run on both dialects.
func Migrations() fs.FS { return sqlstore.Embedded(migrationFiles, "migrations") }

// Store reads and writes tournaments.
type Store struct{ db *sqlstore.DB }

// New returns a Store over an open, migrated database.
func New(db *sqlstore.DB) *Store { return &Store{db: db} }

// ErrNotFound is returned for an unknown tournament id.
var ErrNotFound = fault.New(fault.NotFound, "TOURNAMENT_NOT_FOUND", "no such tournament")

const columns = `id, name, game, structure, format, currency, prize_pool_part, fee_part,
	starting_stack, starts_at_ms, target_event_id, status, created_at_ms`

// Create inserts a new event with the house rules it publishes (TR-36);
// its ID must be set.
func (s *Store) Create(ctx context.Context, e event.Event, r house.Rules) error {
	rules, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("create tournament %s: %w", e.ID, err)
	}
	err = s.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO tournaments (`+columns+`, rules)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
			e.ID, e.Name, e.Game, e.Structure, int(e.Format), e.BuyIn.Currency, e.BuyIn.PrizePool, e.BuyIn.Fee,
			e.StartingStack, e.StartsAt.UnixMilli(), e.TargetEventID, int(e.Status), e.CreatedAt.UnixMilli(), string(rules))
		if err != nil || r.Flight == nil {
			return err
		}
		return linkFlight(ctx, tx, e.ID, r.Flight.Day2)
	})
	if err != nil {
		return fmt.Errorf("create tournament %s: %w", e.ID, err)
	}
	return nil
}

// Get returns one event.
func (s *Store) Get(ctx context.Context, id string) (event.Event, error) {
	row := s.db.SQL().QueryRowContext(ctx, `SELECT `+columns+` FROM tournaments WHERE id = $1`, id)
	e, err := scan(row)
	if errors.Is(err, sql.ErrNoRows) {
		return event.Event{}, ErrNotFound.Withf("no tournament %q", id)
	}
	if err != nil {
		return event.Event{}, fmt.Errorf("get tournament %s: %w", id, err)
	}
	return e, nil
}

// Page is one page of a listing and the token for the next one.
type Page struct {
	Events []event.Event
	Next   string
}

// ErrBadPageToken is returned for a page token this store did not issue.
var ErrBadPageToken = fault.Invalidf("page_token", "not a token from a previous page")

// List returns events ordered by start time, then id, starting after the
// position encoded in token ("" for the first page).
func (s *Store) List(ctx context.Context, size int, token string) (Page, error) {
	afterStart, afterID, err := decodeToken(token)
	if err != nil {
		return Page{}, err
	}
	var p Page
	p.Events, err = sqlstore.Collect(ctx, s.db.SQL(), "list tournaments", `SELECT `+columns+` FROM tournaments
		WHERE starts_at_ms > $1 OR (starts_at_ms = $1 AND id > $2)
		ORDER BY starts_at_ms, id LIMIT $3`, []any{afterStart, afterID, size + 1}, scan)
	if err != nil {
		return Page{}, err
	}
	if len(p.Events) > size {
		p.Events = p.Events[:size]
		last := p.Events[size-1]
		p.Next = encodeToken(last.StartsAt.UnixMilli(), last.ID)
	}
	return p, nil
}

func scan(r sqlstore.Scanner) (event.Event, error) {
	var e event.Event
	var format, status int
	var startsAt, createdAt int64
	err := r.Scan(&e.ID, &e.Name, &e.Game, &e.Structure, &format, &e.BuyIn.Currency, &e.BuyIn.PrizePool, &e.BuyIn.Fee,
		&e.StartingStack, &startsAt, &e.TargetEventID, &status, &createdAt)
	e.Format, e.Status = event.Format(format), event.Status(status)
	e.StartsAt, e.CreatedAt = time.UnixMilli(startsAt).UTC(), time.UnixMilli(createdAt).UTC()
	return e, err
}

// Tokens are opaque to clients; inside they are "startMillis|id".
func encodeToken(startMillis int64, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(startMillis, 10) + "|" + id))
}

func decodeToken(token string) (int64, string, error) {
	if token == "" {
		return -1 << 62, "", nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return 0, "", ErrBadPageToken
	}
	ms, id, ok := strings.Cut(string(raw), "|")
	n, err := strconv.ParseInt(ms, 10, 64)
	if !ok || err != nil || id == "" {
		return 0, "", ErrBadPageToken
	}
	return n, id, nil
}
