package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
)

// A tournament's tables keep, beside their play state (README,
// "Tournament tables"): the idempotency keys of its controls, where each
// entrant is (one seat in the whole tournament, TR-06), the moves between
// its tables with the chips in transit (TR-23), and each hand's report.
// Every row is written in the fenced transaction of the table change it
// goes with.

// Errors of the tournament rows.
var (
	// ErrEntrantSeatedElsewhere refuses a second seat for one entrant
	// anywhere in the tournament, or a seat while their move is under way
	// (TR-06). Its metadata names where they are.
	ErrEntrantSeatedElsewhere = fault.Rule(fault.Precondition, "TR-06", "ENTRANT_SEATED_ELSEWHERE",
		"the entrant already has a seat in this tournament, or is being moved")
	// ErrKeyReused refuses an idempotency key that came back with another
	// request.
	ErrKeyReused = fault.New(fault.Conflict, "IDEMPOTENCY_KEY_REUSED", "the key was used for another request")
	// ErrMoveNotFound is returned for an unknown move id.
	ErrMoveNotFound = fault.NotFoundf("move", "no such move")
)

// Control is the idempotency key of a tournament control.
type Control struct {
	Key     string
	TableID string
	Kind    string
	// Fingerprint is the request the key was first used for.
	Fingerprint string
	Created     time.Time
}

// CheckControl answers whether key was applied already: false when it is
// new; true when it was used for the same request (a repeat); and
// ErrKeyReused when it was used for another (another table, kind or
// fingerprint).
func (s *Store) CheckControl(ctx context.Context, c Control) (bool, error) {
	var got Control
	err := s.db.SQL().QueryRowContext(ctx, `SELECT table_id, kind, fingerprint FROM tournament_controls WHERE key = $1`, c.Key).
		Scan(&got.TableID, &got.Kind, &got.Fingerprint)
	if ok, err := sqlstore.Found(err, "control %s", c.Key); !ok {
		return false, err
	}
	if got.TableID != c.TableID || got.Kind != c.Kind || got.Fingerprint != c.Fingerprint {
		return false, ErrKeyReused.Withf("key %q was used for %s at table %s", c.Key, got.Kind, got.TableID)
	}
	return true, nil
}

// AddControl records the key of a control in the transaction that applies
// it.
func (s *Store) AddControl(ctx context.Context, tx *sqlstore.Tx, c Control) error {
	_, err := sqlstore.Exec(ctx, tx, `INSERT INTO tournament_controls (key, table_id, kind, fingerprint, created_at_ms) VALUES ($1, $2, $3, $4, $5)`,
		[]any{c.Key, c.TableID, c.Kind, c.Fingerprint, c.Created.UnixMilli()}, "record control %s", c.Key)
	return err
}

// ControlTable returns the table a key's control was applied at, and false
// for a new key.
func (s *Store) ControlTable(ctx context.Context, key, kind string) (string, bool, error) {
	var table, k string
	err := s.db.SQL().QueryRowContext(ctx, `SELECT table_id, kind FROM tournament_controls WHERE key = $1`, key).Scan(&table, &k)
	if ok, err := sqlstore.Found(err, "control %s", key); !ok {
		return "", false, err
	}
	if k != kind {
		return "", false, ErrKeyReused.Withf("key %q was used for %s", key, k)
	}
	return table, true, nil
}

// Entrant is where an entrant of a tournament is: at TableID in Seat, or
// in transit under Move (TableID empty), or arriving at a live TableID
// under Move.
type Entrant struct {
	TableID string
	Seat    int
	Move    string
}

func entrantElsewhere(player string, e Entrant) error {
	if e.TableID == "" {
		return ErrEntrantSeatedElsewhere.Withf("%s is in transit (move %s)", player, e.Move).With("move_id", e.Move)
	}
	return ErrEntrantSeatedElsewhere.Withf("%s sits at table %s, seat %d", player, e.TableID, e.Seat).
		With("table_id", e.TableID, "seat", strconv.Itoa(e.Seat))
}

// FindEntrant returns where player is in tournament, and false when they
// are at none of its tables.
func (s *Store) FindEntrant(ctx context.Context, q sqlstore.Querier, tournament, player string) (Entrant, bool, error) {
	var e Entrant
	err := q.QueryRowContext(ctx, `SELECT table_id, seat, move_id FROM tournament_entrants WHERE tournament_id = $1 AND player_id = $2`,
		tournament, player).Scan(&e.TableID, &e.Seat, &e.Move)
	ok, err := sqlstore.Found(err, "entrant %s of %s", player, tournament)
	return e, ok, err
}

// CheckEntrantFree returns ErrEntrantSeatedElsewhere when player has a
// seat in tournament or is in transit; it reads outside any transaction,
// so that the usual refusal changes nothing (PlaceEntrant settles a race).
func (s *Store) CheckEntrantFree(ctx context.Context, tournament, player string) error {
	e, ok, err := s.FindEntrant(ctx, s.db.SQL(), tournament, player)
	if err != nil || !ok {
		return err
	}
	return entrantElsewhere(player, e)
}

// PlaceEntrant records that player sits at table in seat, in the
// transaction that seats them. A row of the entrant anywhere in the
// tournament refuses it with ErrEntrantSeatedElsewhere, leaving the
// transaction usable; PostgreSQL makes a concurrent seat of the same
// entrant wait on the primary key and then refuses one of the two.
func (s *Store) PlaceEntrant(ctx context.Context, tx *sqlstore.Tx, tournament, player, table string, seat int) error {
	n, err := sqlstore.Exec(ctx, tx, `INSERT INTO tournament_entrants (tournament_id, player_id, table_id, seat) VALUES ($1, $2, $3, $4)
		ON CONFLICT (tournament_id, player_id) DO NOTHING`, []any{tournament, player, table, seat}, "place %s at %s", player, table)
	if err != nil || n > 0 {
		return err
	}
	e, ok, err := s.FindEntrant(ctx, tx, tournament, player)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("place %s at %s: the entrant's row went meanwhile: %w", player, table, sqlstore.ErrFencedOut)
	}
	return entrantElsewhere(player, e)
}

// MoveEntrant changes where an entrant is, from (table, move) as the
// transaction's table knows it to e. A row that is not as expected (a
// writer that lost its fence) refuses the transaction.
func (s *Store) MoveEntrant(ctx context.Context, tx *sqlstore.Tx, tournament, player string, from, to Entrant) error {
	n, err := sqlstore.Exec(ctx, tx, `UPDATE tournament_entrants SET table_id = $1, seat = $2, move_id = $3
		WHERE tournament_id = $4 AND player_id = $5 AND table_id = $6 AND move_id = $7`,
		[]any{to.TableID, to.Seat, to.Move, tournament, player, from.TableID, from.Move}, "move entrant %s", player)
	if err != nil {
		return err
	} else if n == 0 {
		return fmt.Errorf("move entrant %s: not at %q (move %q): %w", player, from.TableID, from.Move, sqlstore.ErrFencedOut)
	}
	return nil
}

// DropEntrant records that player no longer sits at table (removed).
func (s *Store) DropEntrant(ctx context.Context, tx *sqlstore.Tx, tournament, player, table string) error {
	_, err := sqlstore.Exec(ctx, tx, `DELETE FROM tournament_entrants WHERE tournament_id = $1 AND player_id = $2 AND table_id = $3`,
		[]any{tournament, player, table}, "drop entrant %s", player)
	return err
}

// Removal is an entrant a tournament table took off: why (the dealer's
// RemovalReason) and the chips they left with.
type Removal struct {
	Reason  int
	Chips   int64
	Created time.Time
}

// AddRemoval records, in the transaction that removes them, that player
// left table with chips; it replaces an earlier removal of the player
// from the table.
func (s *Store) AddRemoval(ctx context.Context, tx *sqlstore.Tx, table, player string, r Removal) error {
	_, err := sqlstore.Exec(ctx, tx, `INSERT INTO tournament_removals (table_id, player_id, reason, chips, created_at_ms) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (table_id, player_id) DO UPDATE SET reason = excluded.reason, chips = excluded.chips, created_at_ms = excluded.created_at_ms`,
		[]any{table, player, r.Reason, r.Chips, r.Created.UnixMilli()}, "record removal of %s from %s", player, table)
	return err
}

// LastRemoval returns the last removal of player from table, and false
// when the table never removed them.
func (s *Store) LastRemoval(ctx context.Context, table, player string) (Removal, bool, error) {
	var r Removal
	var ms int64
	err := s.db.SQL().QueryRowContext(ctx, `SELECT reason, chips, created_at_ms FROM tournament_removals WHERE table_id = $1 AND player_id = $2`,
		table, player).Scan(&r.Reason, &r.Chips, &ms)
	if ok, err := sqlstore.Found(err, "removal of %s from %s", player, table); !ok {
		return r, false, err
	}
	r.Created = time.UnixMilli(ms)
	return r, true, nil
}

// MoveState is a move's state (the values of tablev1.MoveState).
type MoveState int

// Move states.
const (
	MovePending   MoveState = 1
	MoveInTransit MoveState = 2
	MoveArriving  MoveState = 3
	MoveDelivered MoveState = 4
	MoveCancelled MoveState = 5
)

// Move is a move between two tables of a tournament (TR-23).
type Move struct {
	ID           string
	TournamentID string
	Player       string
	FromTable    string
	FromSeat     int
	ToTable      string
	ToSeat       int
	State        MoveState
	Chips        int64
	MissedHands  int
	Left         bool
	Created      time.Time
	Updated      time.Time
}

const moveColumns = `move_id, tournament_id, player_id, from_table_id, from_seat, to_table_id, to_seat, state, chips, missed_hands,
	left_tournament, created_at_ms, updated_at_ms`

func scanMove(r sqlstore.Scanner) (Move, error) {
	var m Move
	var created, updated int64
	var state int
	err := r.Scan(&m.ID, &m.TournamentID, &m.Player, &m.FromTable, &m.FromSeat, &m.ToTable, &m.ToSeat, &state, &m.Chips,
		&m.MissedHands, &m.Left, &created, &updated)
	m.State, m.Created, m.Updated = MoveState(state), time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
	return m, err
}

// GetMove returns the move id, or ErrMoveNotFound.
func (s *Store) GetMove(ctx context.Context, q sqlstore.Querier, id string) (Move, error) {
	m, err := scanMove(q.QueryRowContext(ctx, `SELECT `+moveColumns+` FROM tournament_moves WHERE move_id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Move{}, ErrMoveNotFound.Withf("no move %q", id)
	}
	if err != nil {
		return Move{}, fmt.Errorf("move %s: %w", id, err)
	}
	return m, nil
}

// AddMove records a new move in the transaction of its first step.
func (s *Store) AddMove(ctx context.Context, tx *sqlstore.Tx, m Move) error {
	_, err := sqlstore.Exec(ctx, tx, `INSERT INTO tournament_moves (`+moveColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		[]any{m.ID, m.TournamentID, m.Player, m.FromTable, m.FromSeat, m.ToTable, m.ToSeat, int(m.State), m.Chips, m.MissedHands, m.Left,
			m.Created.UnixMilli(), m.Updated.UnixMilli()}, "record move %s", m.ID)
	return err
}

// AdvanceMove changes move m.ID from state from to m's state, chips,
// absence and destination seat, in the transaction of the table that takes
// the step. A move not in state from (another writer took the step, or
// this one lost its fence) refuses the transaction: each step happens
// exactly once.
func (s *Store) AdvanceMove(ctx context.Context, tx *sqlstore.Tx, from MoveState, m Move) error {
	n, err := sqlstore.Exec(ctx, tx, `UPDATE tournament_moves SET state = $1, chips = $2, missed_hands = $3, left_tournament = $4,
		to_seat = $5, updated_at_ms = $6 WHERE move_id = $7 AND state = $8`,
		[]any{int(m.State), m.Chips, m.MissedHands, m.Left, m.ToSeat, m.Updated.UnixMilli(), m.ID, int(from)}, "move %s to state %d", m.ID, m.State)
	if err != nil {
		return err
	} else if n == 0 {
		return fmt.Errorf("move %s is no longer in state %d: %w", m.ID, from, sqlstore.ErrFencedOut)
	}
	return nil
}

// ListMoves returns a tournament's moves in the states given (all when
// none), in the order they were ordered, after token, and the next page's
// token ("" on the last).
func (s *Store) ListMoves(ctx context.Context, tournament string, states []MoveState, size int, token string) ([]Move, string, error) {
	var afterMs int64 = -1
	afterID := ""
	if token != "" {
		ms, id, ok := strings.Cut(token, "/")
		n, err := strconv.ParseInt(ms, 10, 64)
		if !ok || err != nil || len(token) > 256 {
			return nil, "", ErrBadPageToken
		}
		afterMs, afterID = n, id
	}
	q := `SELECT ` + moveColumns + ` FROM tournament_moves WHERE tournament_id = $1
		AND (created_at_ms > $2 OR (created_at_ms = $2 AND move_id > $3))`
	args := []any{tournament, afterMs, afterID}
	if len(states) > 0 {
		in := make([]string, len(states))
		for i, st := range states {
			args = append(args, int(st))
			in[i] = "$" + strconv.Itoa(len(args))
		}
		q += ` AND state IN (` + strings.Join(in, ", ") + `)`
	}
	args = append(args, size+1)
	q += ` ORDER BY created_at_ms, move_id LIMIT $` + strconv.Itoa(len(args))
	moves, err := sqlstore.Collect(ctx, s.db.SQL(), "moves of "+tournament, q, args, scanMove)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(moves) > size {
		moves = moves[:size]
		last := moves[size-1]
		next = strconv.FormatInt(last.Created.UnixMilli(), 10) + "/" + last.ID
	}
	return moves, next, nil
}

// ArrivingAt reports whether a move in transit or arriving is bound for
// table (it must not close before the entrant is seated).
func (s *Store) ArrivingAt(ctx context.Context, table string) (bool, error) {
	var n int
	err := s.db.SQL().QueryRowContext(ctx, `SELECT COUNT(*) FROM tournament_moves WHERE to_table_id = $1 AND state IN ($2, $3)`,
		table, int(MoveInTransit), int(MoveArriving)).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("moves bound for %s: %w", table, err)
	}
	return n > 0, nil
}

// AddHandReport stores a tournament hand's report (HandEnded, protobuf) in
// the transaction that ends the hand.
func (s *Store) AddHandReport(ctx context.Context, tx *sqlstore.Tx, table string, handNo int64, report []byte) error {
	_, err := sqlstore.Exec(ctx, tx, `INSERT INTO tournament_hands (table_id, hand_no, report) VALUES ($1, $2, $3)`,
		[]any{table, handNo, report}, "report of %s hand %d", table, handNo)
	return err
}

// HandReports returns up to size reports of table's hands numbered after
// after, in order.
func (s *Store) HandReports(ctx context.Context, table string, after int64, size int) ([][]byte, error) {
	return sqlstore.Collect(ctx, s.db.SQL(), "reports of "+table, `SELECT report FROM tournament_hands WHERE table_id = $1 AND hand_no > $2
		ORDER BY hand_no LIMIT $3`, []any{table, after, size}, func(r sqlstore.Scanner) (b []byte, err error) {
		err = r.Scan(&b)
		return b, err
	})
}

// TournamentTable is one table of a tournament as stored: its public play
// state (nil before its first change).
type TournamentTable struct {
	ID     string
	Closed bool
	Public []byte
}

// TournamentChips reads a tournament's tables and its moves in transit or
// arriving in one read transaction: the chips counted on the tables and in
// transit are one consistent snapshot, since every move's step is written
// with its table's state.
func (s *Store) TournamentChips(ctx context.Context, tournament string) ([]TournamentTable, []Move, error) {
	var tabs []TournamentTable
	var moves []Move
	err := s.db.ReadTx(ctx, func(tx *sqlstore.Tx) error {
		var err error
		tabs, err = sqlstore.Collect(ctx, tx, "tables", `SELECT id, closed, state FROM tables WHERE tournament_id = $1 ORDER BY id`,
			[]any{tournament}, func(r sqlstore.Scanner) (TournamentTable, error) {
				var t TournamentTable
				var public sql.NullString
				err := r.Scan(&t.ID, &t.Closed, &public)
				if public.Valid {
					t.Public = []byte(public.String)
				}
				return t, err
			})
		if err != nil {
			return err
		}
		moves, err = sqlstore.Collect(ctx, tx, "moves in transit", `SELECT `+moveColumns+` FROM tournament_moves WHERE tournament_id = $1
			AND state IN ($2, $3) ORDER BY created_at_ms, move_id`, []any{tournament, int(MoveInTransit), int(MoveArriving)}, scanMove)
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("chips of %s: %w", tournament, err)
	}
	return tabs, moves, nil
}
