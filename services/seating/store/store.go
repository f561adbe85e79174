// Package store keeps seating's games in its SQL database (platform/sqlstore:
// SQLite embedded, PostgreSQL distributed). A game — its list, tables,
// offers and absences — is one row holding waitlist.Game as JSON, so one
// fenced UPDATE moves the whole aggregate from one valid state to the next.
// Beside it: the table → game index, the player → game index of seat
// holders (G-21: one seat in the room, enforced by its primary key), the
// CS-14 long-break ledger (which spans games) and the floor's decisions.
package store

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/seating/waitlist"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations returns the service's goose migrations for
// sqlstore.Options.Migrations; the same files run on both dialects.
func Migrations() fs.FS { return sqlstore.Embedded(migrationFiles, "migrations") }

// Entity is the fenced table; lock keys are "waitlists:<id>" (lock.Claim).
const Entity = "waitlists"

// Faults the store reports.
var (
	// ErrNotFound is an unknown waitlist.
	ErrNotFound = fault.New(fault.NotFound, "WAITLIST_NOT_FOUND", "no such waitlist")
	// ErrExists: one list per game.
	ErrExists = fault.New(fault.Conflict, "WAITLIST_EXISTS", "this game already has a waitlist")
	// ErrTableNotFound is a table seating has not heard of.
	ErrTableNotFound = fault.New(fault.NotFound, "TABLE_NOT_FOUND", "seating knows no such table")
	// ErrBadPageToken is a page token this store did not issue.
	ErrBadPageToken = fault.Invalidf("page_token", "not a token from a previous page")
)

// Record is a stored game and its version (which grows with every save).
type Record struct {
	Game    *waitlist.Game
	Version int64
}

// Decision is one recorded decision of the floor.
type Decision struct {
	ID, Waitlist, Floor, Action, Player, Reason string
	At                                          time.Time
}

// Store reads and writes games under the per-game lock and fence.
type Store struct {
	db     *sqlstore.DB
	locker lock.Locker
}

// New returns a Store over an open, migrated database.
func New(db *sqlstore.DB, locker lock.Locker) *Store { return &Store{db: db, locker: locker} }

// DB returns the database, for callers that run their own transactions
// (the idempotent event consumer).
func (s *Store) DB() *sqlstore.DB { return s.db }

// Create stores a new game; a game that already has a list is ErrExists,
// with that list's id in its metadata (waitlist_id).
func (s *Store) Create(ctx context.Context, g *waitlist.Game) error {
	state, err := json.Marshal(g)
	if err != nil {
		return fmt.Errorf("create waitlist %s: %w", g.ID, err)
	}
	err = s.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO waitlists (id, game_key, state, next_due_ms, created_at_ms)
			VALUES ($1, $2, $3, NULL, $4) ON CONFLICT DO NOTHING`, g.ID, g.Spec.Key(), string(state), g.Created.UnixMilli())
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			// The caller learns the existing list's id, so an app that
			// creates a list it finds already there carries on with it.
			var existing string
			if err == nil {
				err = tx.QueryRowContext(ctx, `SELECT id FROM waitlists WHERE game_key = $1`, g.Spec.Key()).Scan(&existing)
			}
			return errors.Join(ErrExists.With("game", g.Spec.Name(), "waitlist_id", existing), err)
		}
		return s.indexTables(ctx, tx, g, nil)
	})
	if err != nil {
		return fmt.Errorf("create waitlist %s: %w", g.ID, err)
	}
	return nil
}

// ByGame returns the id of the game's list, or "" when it has none.
func (s *Store) ByGame(ctx context.Context, spec waitlist.Spec) (string, error) {
	var id string
	err := s.db.SQL().QueryRowContext(ctx, `SELECT id FROM waitlists WHERE game_key = $1`, spec.Key()).Scan(&id)
	if ok, err := sqlstore.Found(err, "find waitlist of %s", spec.Name()); !ok {
		return "", err
	}
	return id, nil
}

// ByTable returns the id of the list of the game the table deals.
func (s *Store) ByTable(ctx context.Context, table string) (string, error) {
	var id string
	err := s.db.SQL().QueryRowContext(ctx, `SELECT waitlist_id FROM seating_tables WHERE table_id = $1`, table).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrTableNotFound.With("table_id", table)
	}
	if err != nil {
		return "", fmt.Errorf("find table %s: %w", table, err)
	}
	return id, nil
}

// Get returns one game.
func (s *Store) Get(ctx context.Context, id string) (Record, error) {
	r, err := scan(s.db.SQL().QueryRowContext(ctx, `SELECT state, version FROM waitlists WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Record{}, ErrNotFound.With("waitlist_id", id)
	}
	if err != nil {
		return Record{}, fmt.Errorf("get waitlist %s: %w", id, err)
	}
	return r, nil
}

// List returns games in id order (UUIDv7: creation order) after the id in
// token ("" for the first page), and the token of the next page ("" on
// the last). size 0 lists every game.
func (s *Store) List(ctx context.Context, size int, token string) ([]Record, string, error) {
	if len(token) > 128 {
		return nil, "", ErrBadPageToken
	}
	limit := size + 1
	if size == 0 {
		limit = -1
	}
	q := `SELECT state, version FROM waitlists WHERE id > $1 ORDER BY id LIMIT $2`
	if limit < 0 {
		q = `SELECT state, version FROM waitlists WHERE id > $1 ORDER BY id`
	}
	args := []any{token}
	if limit > 0 {
		args = append(args, limit)
	}
	out, err := sqlstore.Collect(ctx, s.db.SQL(), "list waitlists", q, args, scan)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if size > 0 && len(out) > size {
		out = out[:size]
		next = out[size-1].Game.ID
	}
	return out, next, nil
}

// Versions returns every game's version, for the board to notice changes
// made by other replicas.
func (s *Store) Versions(ctx context.Context) (map[string]int64, error) {
	return sqlstore.Map[string, int64](ctx, s.db.SQL(), "waitlist versions", `SELECT id, version FROM waitlists`, nil)
}

// Due returns the games with a timer run out by now.
func (s *Store) Due(ctx context.Context, now time.Time) ([]string, error) {
	return sqlstore.Collect(ctx, s.db.SQL(), "due waitlists", `SELECT id FROM waitlists WHERE next_due_ms <= $1 ORDER BY next_due_ms`,
		[]any{now.UnixMilli()}, sqlstore.ScanString)
}

// Locked runs fn holding the game's lock with a freshly claimed epoch
// (lock.Claim); fn's writes go through the owner's fence.
func (s *Store) Locked(ctx context.Context, id string, fn func(ctx context.Context, owner *lock.Owner) error) error {
	owner, err := lock.Claim(ctx, s.locker, s.db, Entity, id)
	if err != nil {
		if fault.KindOf(err) == fault.NotFound {
			return ErrNotFound.With("waitlist_id", id)
		}
		return fmt.Errorf("lock waitlist %s: %w", id, err)
	}
	defer owner.Release(context.WithoutCancel(ctx))
	return fn(owner.Lease.Context(), owner)
}

// Change is a change of a game inside the transaction that saves it;
// epoch is the owner's fencing epoch, which events announcing the change
// carry.
type Change func(tx *sqlstore.Tx, g *waitlist.Game, epoch int64) error

// Update runs fn on the game under its lock, in one transaction that
// checks the fence, and saves the result. When fn fails nothing is saved.
func (s *Store) Update(ctx context.Context, id string, fn Change) (Record, error) {
	var rec Record
	err := s.Locked(ctx, id, func(ctx context.Context, owner *lock.Owner) error {
		return owner.Update(ctx, func(tx *sqlstore.Tx, fence sqlstore.Fence) error {
			r, err := s.Apply(ctx, tx, fence, fn)
			rec = r
			return err
		})
	})
	return rec, err
}

// Apply loads the fenced game inside tx, runs fn, checks the game's
// invariants and saves it with a fenced write: a stale owner's save
// touches no row and fails with sqlstore.ErrFencedOut.
func (s *Store) Apply(ctx context.Context, tx *sqlstore.Tx, fence sqlstore.Fence, fn Change) (Record, error) {
	var before string
	r, err := scanRaw(tx.QueryRowContext(ctx, `SELECT state, version FROM waitlists WHERE id = $1`, fence.ID), &before)
	if errors.Is(err, sql.ErrNoRows) {
		return Record{}, ErrNotFound.With("waitlist_id", fence.ID)
	}
	if err != nil {
		return Record{}, fmt.Errorf("load waitlist %s: %w", fence.ID, err)
	}
	indexed := make(map[string]bool, len(r.Game.Tables))
	for _, t := range r.Game.Tables {
		indexed[t.ID] = true
	}
	if err := fn(tx, r.Game, fence.Epoch); err != nil {
		return Record{}, err
	}
	if err := r.Game.Check(); err != nil {
		return Record{}, fault.New(fault.Internal, "INVARIANT", "seating state check failed").Wrap(err)
	}
	state, err := json.Marshal(r.Game)
	if err != nil {
		return Record{}, fmt.Errorf("save waitlist %s: %w", fence.ID, err)
	}
	if string(state) == before {
		// Nothing changed (a timer round another replica already ran, a
		// repeated report): no write, so the version and the board stay;
		// the fence must still hold for whatever else tx records.
		if err := fence.Check(ctx, tx); err != nil {
			return Record{}, fmt.Errorf("check waitlist %s: %w", fence.ID, err)
		}
		return r, nil
	}
	var due any
	if d := r.Game.NextDue(); !d.IsZero() {
		due = d.UnixMilli()
	}
	if err := fence.Update(ctx, tx, `state = $1, version = version + 1, next_due_ms = $2`, string(state), due); err != nil {
		return Record{}, fmt.Errorf("save waitlist %s: %w", fence.ID, err)
	}
	if err := s.indexTables(ctx, tx, r.Game, indexed); err != nil {
		return Record{}, err
	}
	r.Version++
	return r, nil
}

// indexTables points the table → game index at g for g's tables not in
// indexed: the tables g had when loaded were indexed by the save that
// added them, so a save writes only its new tables' rows.
func (s *Store) indexTables(ctx context.Context, tx *sqlstore.Tx, g *waitlist.Game, indexed map[string]bool) error {
	for _, t := range g.Tables {
		if indexed[t.ID] {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO seating_tables (table_id, waitlist_id) VALUES ($1, $2)
			ON CONFLICT (table_id) DO UPDATE SET waitlist_id = excluded.waitlist_id`, t.ID, g.ID); err != nil {
			return fmt.Errorf("index table %s: %w", t.ID, err)
		}
	}
	return nil
}

// TakeLongBreak records the player's long break of the gaming day (CS-14)
// and reports false, without recording, when they already had it.
func (s *Store) TakeLongBreak(ctx context.Context, tx *sqlstore.Tx, player, day, waitlistID, table string, at time.Time) (bool, error) {
	n, err := sqlstore.Exec(ctx, tx, `INSERT INTO long_breaks (player_id, gaming_day, waitlist_id, table_id, started_at_ms)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`, []any{player, day, waitlistID, table, at.UnixMilli()}, "long break of %s on %s", player, day)
	return n == 1, err
}

// RecordDecision records a floor decision inside tx.
func (s *Store) RecordDecision(ctx context.Context, tx *sqlstore.Tx, d Decision) error {
	_, err := sqlstore.Exec(ctx, tx, `INSERT INTO floor_decisions (id, waitlist_id, at_ms, floor_id, action, player_id, reason)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, []any{d.ID, d.Waitlist, d.At.UnixMilli(), d.Floor, d.Action, d.Player, d.Reason},
		"record decision %s on %s", d.Action, d.Waitlist)
	return err
}

// Decisions returns the newest n decisions on a game, newest first.
func (s *Store) Decisions(ctx context.Context, waitlistID string, n int) ([]Decision, error) {
	return sqlstore.Collect(ctx, s.db.SQL(), "decisions on "+waitlistID, `SELECT id, waitlist_id, at_ms, floor_id, action, player_id, reason
		FROM floor_decisions WHERE waitlist_id = $1 ORDER BY at_ms DESC, id DESC LIMIT $2`, []any{waitlistID, n}, func(r sqlstore.Scanner) (Decision, error) {
		var d Decision
		var at int64
		err := r.Scan(&d.ID, &d.Waitlist, &at, &d.Floor, &d.Action, &d.Player, &d.Reason)
		d.At = time.UnixMilli(at).UTC()
		return d, err
	})
}

// SetName records the display name player goes by on the board.
func (s *Store) SetName(ctx context.Context, player, name string, at time.Time) error {
	_, err := s.db.SQL().ExecContext(ctx, `INSERT INTO player_names (player_id, display_name, updated_at_ms) VALUES ($1, $2, $3)
		ON CONFLICT (player_id) DO UPDATE SET display_name = excluded.display_name, updated_at_ms = excluded.updated_at_ms`,
		player, name, at.UnixMilli())
	if err != nil {
		return fmt.Errorf("set the name of %s: %w", player, err)
	}
	return nil
}

// Names returns the display names recorded for players; a player without
// one is absent from the map.
func (s *Store) Names(ctx context.Context, players []string) (map[string]string, error) {
	if len(players) == 0 {
		return map[string]string{}, nil
	}
	args := make([]any, len(players))
	marks := make([]string, len(players))
	for i, p := range players {
		args[i], marks[i] = p, "$"+strconv.Itoa(i+1)
	}
	return sqlstore.Map[string, string](ctx, s.db.SQL(), "read display names", `SELECT player_id, display_name FROM player_names
		WHERE player_id IN (`+strings.Join(marks, ", ")+`)`, args)
}

func scan(r sqlstore.Scanner) (Record, error) {
	var state string
	return scanRaw(r, &state)
}

// scanRaw is scan that also returns the stored JSON in state.
func scanRaw(r sqlstore.Scanner, state *string) (Record, error) {
	var rec Record
	if err := r.Scan(state, &rec.Version); err != nil {
		return Record{}, err
	}
	rec.Game = new(waitlist.Game)
	if err := json.Unmarshal([]byte(*state), rec.Game); err != nil {
		return Record{}, fmt.Errorf("decode waitlist: %w", err)
	}
	return rec, nil
}
