package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
)

// EntityTable is the SQL table whose rows carry each table's fencing epoch.
const EntityTable = "tables"

// ErrHandNotFound is returned for an unknown hand.
var ErrHandNotFound = fault.New(fault.NotFound, "HAND_NOT_FOUND", "no such hand")

// State is a table's stored play state.
type State struct {
	// Public is the dealer's public state as JSON; nil before the first
	// mutation after opening.
	Public []byte
	// Hand is the sealed hand in progress, nil between hands: all of it,
	// or, when HandFixed is set, what its actions change.
	Hand []byte
	// HandFixed is the part of the sealed hand in progress that stays the
	// same from its deal to its end, sealed once per hand and stored again
	// byte for byte with each action (migration 00011: it costs no WAL
	// then); nil between hands and for a hand stored whole in Hand.
	HandFixed []byte
	// Closing is a table that deals no new hand and closes after the
	// current one.
	Closing bool
}

// LoadState reads a table's play state.
func (s *Store) LoadState(ctx context.Context, q sqlstore.Querier, id string) (State, error) {
	var st State
	var public sql.NullString
	err := q.QueryRowContext(ctx, `SELECT state, hand, hand_fixed, closing FROM tables WHERE id = $1`, id).Scan(&public, &st.Hand, &st.HandFixed, &st.Closing)
	if errors.Is(err, sql.ErrNoRows) {
		return st, ErrNotFound.Withf("no table %q", id)
	}
	if err != nil {
		return st, fmt.Errorf("load table %s state: %w", id, err)
	}
	if public.Valid {
		st.Public = []byte(public.String)
	}
	return st, nil
}

// stateSet sets a table row's state columns to stateArgs, $1 to $5:
// every fenced write of one table's state writes them.
const stateSet = `state = $1, hand = $2, hand_fixed = $3, closing = $4, closed = $5`

// stateArgs are stateSet's values.
func stateArgs(st State, closed bool) []any {
	return []any{string(st.Public), st.Hand, st.HandFixed, st.Closing, closed}
}

// SaveState writes a table's play state under the owner's fence.
func (s *Store) SaveState(ctx context.Context, tx *sqlstore.Tx, f sqlstore.Fence, st State, closed bool) error {
	if err := f.Update(ctx, tx, stateSet, stateArgs(st, closed)...); err != nil {
		return fmt.Errorf("save table %s state: %w", f.ID, err)
	}
	return nil
}

// SaveStateNow writes a table's play state with one fenced statement
// outside any transaction (a single UPDATE is atomic by itself). It
// returns sqlstore.ErrFencedOut when the epoch has moved on.
func (s *Store) SaveStateNow(ctx context.Context, f sqlstore.Fence, st State, closed bool) error {
	n, err := sqlstore.Exec(ctx, s.db.SQL(), `UPDATE tables SET `+stateSet+` WHERE id = $6 AND epoch = $7`,
		append(stateArgs(st, closed), f.ID, f.Epoch), "save table %s state", f.ID)
	if err != nil {
		return err
	} else if n == 0 {
		return fmt.Errorf("save table %s state: %w", f.ID, sqlstore.ErrFencedOut)
	}
	return nil
}

// SaveStateAsync is SaveStateNow with PostgreSQL's asynchronous commit:
// the write returns before the WAL is flushed, so a crash of the database
// server itself (not of the table service) may lose the last few hundred
// milliseconds of such writes. Only plain actions may use it — writes that
// move money, end a hand or emit events stay synchronous. On SQLite it is
// SaveStateNow.
func (s *Store) SaveStateAsync(ctx context.Context, f sqlstore.Fence, st State, closed bool) error {
	if s.db.Dialect() != sqlstore.Postgres {
		return s.SaveStateNow(ctx, f, st, closed)
	}
	return s.db.TxWith(ctx, sqlstore.TxOptions{Isolation: sql.LevelReadCommitted}, func(tx *sqlstore.Tx) error {
		if _, err := tx.ExecContext(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
			return fmt.Errorf("save table %s state: %w", f.ID, err)
		}
		return s.SaveState(ctx, tx, f, st, closed)
	})
}

// OpenTables lists the ids of the tables not closed.
func (s *Store) OpenTables(ctx context.Context) ([]string, error) {
	return sqlstore.Collect(ctx, s.db.SQL(), "list open tables", `SELECT id FROM tables WHERE NOT closed ORDER BY id`, nil, sqlstore.ScanString)
}

// SaveDeck stores the sealed deck of a hand before any of its cards is
// seen. It reports false, storing nothing, when a deck is already stored
// for the hand: a hand is never reshuffled.
func (s *Store) SaveDeck(ctx context.Context, tx *sqlstore.Tx, tableID string, handNo int64, sealed []byte) (bool, error) {
	if tx.Pipelined() {
		// A pipeline's Exec does not wait for its answer: a deck already
		// stored fails the statement on its key, and with it the whole
		// pipeline, which its caller then writes in turn, through the
		// statement below.
		return true, tx.Exec(ctx, `INSERT INTO decks (table_id, hand_no, deck) VALUES ($1, $2, $3)`, tableID, handNo, sealed)
	}
	saved := false
	err := tx.Query(ctx, `INSERT INTO decks (table_id, hand_no, deck) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING hand_no`,
		[]any{tableID, handNo, sealed}, func(rows sqlstore.Rows) error {
			saved = rows.Next()
			return nil
		})
	if err != nil {
		return false, fmt.Errorf("save deck %s/%d: %w", tableID, handNo, err)
	}
	return saved, nil
}

// LoadDeck returns the sealed deck of a hand, or nil when none is stored.
func (s *Store) LoadDeck(ctx context.Context, tableID string, handNo int64) ([]byte, error) {
	var d []byte
	err := s.db.SQL().QueryRowContext(ctx, `SELECT deck FROM decks WHERE table_id = $1 AND hand_no = $2`, tableID, handNo).Scan(&d)
	if ok, err := sqlstore.Found(err, "load deck %s/%d", tableID, handNo); !ok {
		return nil, err
	}
	return d, nil
}

// HandPlayer is one player of a stored hand.
type HandPlayer struct {
	Player string
	Seat   int
	Net    int64
}

// Hand is a stored hand history.
type Hand struct {
	TableID string
	HandNo  int64
	Start   time.Time
	End     time.Time
	// History is sealed.
	History []byte
}

// SaveHand stores a finished hand and indexes it by player.
func (s *Store) SaveHand(ctx context.Context, tx *sqlstore.Tx, h Hand, players []HandPlayer) error {
	if tx.Dialect() == sqlstore.Postgres {
		return s.saveHandPostgres(ctx, tx, h, players)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO hands (table_id, hand_no, started_at_ms, ended_at_ms, history) VALUES ($1, $2, $3, $4, $5)`,
		h.TableID, h.HandNo, h.Start.UnixMilli(), h.End.UnixMilli(), h.History); err != nil {
		return fmt.Errorf("save hand %s/%d: %w", h.TableID, h.HandNo, err)
	}
	if len(players) > 0 {
		// One statement for all the hand's players.
		var q strings.Builder
		q.WriteString(`INSERT INTO hand_players (player_id, table_id, hand_no, seat, net, ended_at_ms) VALUES `)
		args := make([]any, 0, 6*len(players))
		for i, p := range players {
			if i > 0 {
				q.WriteString(", ")
			}
			n := len(args)
			fmt.Fprintf(&q, "($%d, $%d, $%d, $%d, $%d, $%d)", n+1, n+2, n+3, n+4, n+5, n+6)
			args = append(args, p.Player, h.TableID, h.HandNo, p.Seat, p.Net, h.End.UnixMilli())
		}
		if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
			return fmt.Errorf("index hand %s/%d: %w", h.TableID, h.HandNo, err)
		}
	}
	// The deck has done its job: the history holds the dealt cards.
	_, err := sqlstore.Exec(ctx, tx, `DELETE FROM decks WHERE table_id = $1 AND hand_no = $2`, []any{h.TableID, h.HandNo}, "drop deck %s/%d", h.TableID, h.HandNo)
	return err
}

// saveHandPostgres is SaveHand in one statement, one round trip instead
// of three: the hand, its players (unnest keeps the text the same for any
// number of them, so its prepared form is reused) and the used deck's
// removal.
func (s *Store) saveHandPostgres(ctx context.Context, tx *sqlstore.Tx, h Hand, players []HandPlayer) error {
	ids, seats, nets := make([]string, len(players)), make([]int64, len(players)), make([]int64, len(players))
	for i, p := range players {
		ids[i], seats[i], nets[i] = p.Player, int64(p.Seat), p.Net
	}
	if err := tx.Exec(ctx, `WITH hand AS (
			INSERT INTO hands (table_id, hand_no, started_at_ms, ended_at_ms, history) VALUES ($1, $2, $3, $4, $5)),
		players AS (
			INSERT INTO hand_players (player_id, table_id, hand_no, seat, net, ended_at_ms)
			SELECT v.player, $1, $2, v.seat, v.net, $4 FROM unnest($6::text[], $7::bigint[], $8::bigint[]) AS v (player, seat, net))
		DELETE FROM decks WHERE table_id = $1 AND hand_no = $2`,
		h.TableID, h.HandNo, h.Start.UnixMilli(), h.End.UnixMilli(), h.History, ids, seats, nets); err != nil {
		return fmt.Errorf("save hand %s/%d: %w", h.TableID, h.HandNo, err)
	}
	return nil
}

// GetHand reads a stored hand.
func (s *Store) GetHand(ctx context.Context, tableID string, handNo int64) (Hand, error) {
	h := Hand{TableID: tableID, HandNo: handNo}
	var start, end int64
	err := s.db.SQL().QueryRowContext(ctx, `SELECT started_at_ms, ended_at_ms, history FROM hands WHERE table_id = $1 AND hand_no = $2`,
		tableID, handNo).Scan(&start, &end, &h.History)
	if errors.Is(err, sql.ErrNoRows) {
		return h, ErrHandNotFound.Withf("no hand %d at table %q", handNo, tableID)
	}
	if err != nil {
		return h, fmt.Errorf("get hand %s/%d: %w", tableID, handNo, err)
	}
	h.Start, h.End = time.UnixMilli(start).UTC(), time.UnixMilli(end).UTC()
	return h, nil
}

// PlayerHand is one row of a player's hand list.
type PlayerHand struct {
	TableID string
	HandNo  int64
	Seat    int
	Net     int64
	End     time.Time
}

// PlayerHands lists a player's most recent hands, newest first.
func (s *Store) PlayerHands(ctx context.Context, player string, limit int) ([]PlayerHand, error) {
	return sqlstore.Collect(ctx, s.db.SQL(), "list hands of "+player, `SELECT table_id, hand_no, seat, net, ended_at_ms FROM hand_players
		WHERE player_id = $1 ORDER BY ended_at_ms DESC, hand_no DESC LIMIT $2`, []any{player, limit}, func(r sqlstore.Scanner) (PlayerHand, error) {
		var h PlayerHand
		var end int64
		err := r.Scan(&h.TableID, &h.HandNo, &h.Seat, &h.Net, &end)
		h.End = time.UnixMilli(end).UTC()
		return h, err
	})
}

// HandPlayed reports whether player played the hand.
func (s *Store) HandPlayed(ctx context.Context, player, tableID string, handNo int64) (bool, error) {
	var n int
	err := s.db.SQL().QueryRowContext(ctx, `SELECT COUNT(*) FROM hand_players WHERE player_id = $1 AND table_id = $2 AND hand_no = $3`,
		player, tableID, handNo).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("hand %s/%d of %s: %w", tableID, handNo, player, err)
	}
	return n > 0, nil
}

// MoneyMove is the table's side of a wallet saga step.
type MoneyMove struct {
	Key     string
	TableID string
	Kind    string // MoveBuyIn, MoveTopUp, MoveCashOut
	Player  string
	Seat    int
	Amount  int64
	HoldID  string
	// Sitting is the wallet sitting a top-up adds to or a cash-out ends,
	// or the one a buy-in made in one wallet call (no HoldID) opens.
	Sitting string
	// OfferID is the seating offer a buy-in was taken through, for the
	// table.player_seated written when it is paid.
	OfferID string
	Done    bool
	// Refusal is the wallet's refusal that settled a buy-in, as the
	// table's Wallet recorded it; "" when none did.
	Refusal string
	Created time.Time
	// Attempts counts the failed wallet calls of a pending step; LastError
	// and LastAttempt are the latest of them.
	Attempts    int
	LastError   string
	LastAttempt time.Time
}

// Money move kinds.
const (
	MoveBuyIn   = "buy_in"
	MoveTopUp   = "top_up"
	MoveCashOut = "cash_out"
)

// AddMoneyMove records a saga step to finish (commit a hold, pay a
// cash-out) in the same transaction as the seat change it belongs to.
func (s *Store) AddMoneyMove(ctx context.Context, tx *sqlstore.Tx, m MoneyMove) error {
	_, err := sqlstore.Exec(ctx, tx, `INSERT INTO money_moves (key, table_id, kind, player_id, seat, amount, hold_id, sitting_id, offer_id, done, created_at_ms)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, []any{m.Key, m.TableID, m.Kind, m.Player, m.Seat, m.Amount, m.HoldID, m.Sitting, m.OfferID, m.Done,
		m.Created.UnixMilli()},
		"record %s %s", m.Kind, m.Key)
	return err
}

// MoneyMove reads a recorded saga step by key.
func (s *Store) MoneyMove(ctx context.Context, key string) (MoneyMove, bool, error) {
	m := MoneyMove{Key: key}
	var created int64
	err := s.db.SQL().QueryRowContext(ctx, `SELECT table_id, kind, player_id, seat, amount, hold_id, sitting_id, offer_id, done, refusal, created_at_ms FROM money_moves
		WHERE key = $1`, key).Scan(&m.TableID, &m.Kind, &m.Player, &m.Seat, &m.Amount, &m.HoldID, &m.Sitting, &m.OfferID, &m.Done, &m.Refusal, &created)
	if ok, err := sqlstore.Found(err, "money move %s", key); !ok {
		return m, false, err
	}
	m.Created = time.UnixMilli(created).UTC()
	return m, true, nil
}

// PendingMoneyMoves lists a table's unfinished saga steps, oldest first.
func (s *Store) PendingMoneyMoves(ctx context.Context, tableID string) ([]MoneyMove, error) {
	return s.pendingMoves(ctx, s.db.SQL(), `WHERE table_id = $1 AND NOT done`, tableID)
}

// PendingMoneyMovesTx is PendingMoneyMoves read in q (a transaction that
// also reads the table's state, for a consistent count of its chips).
func (s *Store) PendingMoneyMovesTx(ctx context.Context, q sqlstore.Querier, tableID string) ([]MoneyMove, error) {
	return s.pendingMoves(ctx, q, `WHERE table_id = $1 AND NOT done`, tableID)
}

// PendingCashOut returns the player's cash-out from the table that the
// wallet has not been paid yet, if any.
func (s *Store) PendingCashOut(ctx context.Context, player, tableID string) (MoneyMove, bool, error) {
	ms, err := s.pendingMoves(ctx, s.db.SQL(), `WHERE table_id = $1 AND player_id = $2 AND kind = '`+MoveCashOut+`' AND NOT done`, tableID, player)
	if err != nil || len(ms) == 0 {
		return MoneyMove{}, false, err
	}
	return ms[0], true, nil
}

func (s *Store) pendingMoves(ctx context.Context, q sqlstore.Querier, where string, args ...any) ([]MoneyMove, error) {
	return sqlstore.Collect(ctx, q, "pending money moves", `SELECT key, table_id, kind, player_id, seat, amount, hold_id, sitting_id, offer_id, created_at_ms, attempts, last_error, last_attempt_ms
		FROM money_moves `+where+` ORDER BY created_at_ms, key`, args, func(r sqlstore.Scanner) (MoneyMove, error) {
		var m MoneyMove
		var created, last int64
		err := r.Scan(&m.Key, &m.TableID, &m.Kind, &m.Player, &m.Seat, &m.Amount, &m.HoldID, &m.Sitting, &m.OfferID, &created, &m.Attempts, &m.LastError, &last)
		m.Created = time.UnixMilli(created).UTC()
		if last > 0 {
			m.LastAttempt = time.UnixMilli(last).UTC()
		}
		return m, err
	})
}

// PendingSteps is how many saga steps of one kind are unfinished and when
// the oldest was recorded.
type PendingSteps struct {
	Count  int64
	Oldest time.Time
}

// PendingMoneySteps counts the unfinished saga steps of every table, by
// kind (MoveBuyIn, MoveTopUp, MoveCashOut); kinds with none are absent.
func (s *Store) PendingMoneySteps(ctx context.Context) (map[string]PendingSteps, error) {
	out := map[string]PendingSteps{}
	err := sqlstore.Each(ctx, s.db.SQL(), "count pending money moves", `SELECT kind, COUNT(*), MIN(created_at_ms) FROM money_moves
		WHERE NOT done GROUP BY kind`, nil, func(r sqlstore.Scanner) error {
		var kind string
		var n, oldest int64
		err := r.Scan(&kind, &n, &oldest)
		out[kind] = PendingSteps{Count: n, Oldest: time.UnixMilli(oldest).UTC()}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// FailMoneyMove records a failed attempt at a pending step and returns
// how many have failed so far.
func (s *Store) FailMoneyMove(ctx context.Context, key string, cause error, at time.Time) (int, error) {
	msg := cause.Error()
	if len(msg) > 500 {
		msg = strings.ToValidUTF8(msg[:500], "")
	}
	var n int
	err := s.db.SQL().QueryRowContext(ctx, `UPDATE money_moves SET attempts = attempts + 1, last_error = $2, last_attempt_ms = $3
		WHERE key = $1 RETURNING attempts`, key, msg, at.UnixMilli()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("record failed attempt of %s: %w", key, err)
	}
	return n, nil
}

// Audit is one recorded floor or dealer ruling.
type Audit struct {
	ID      string
	TableID string
	HandNo  int64
	Actor   string
	Role    string
	Action  string
	Seat    int
	Reason  string
	At      time.Time
	// RuleIDs are the rules the ruling applies, and the seed scenario it
	// matches ("TP-50", "TP-50/S1").
	RuleIDs []string
}

// AddAudit records a ruling in the transaction that applies it, after the
// table's earlier rulings. A table's rulings are written only by its
// owner, under the table's fenced transaction, so the next seq is read
// without racing another writer.
func (s *Store) AddAudit(ctx context.Context, tx *sqlstore.Tx, a Audit) error {
	_, err := sqlstore.Exec(ctx, tx, `INSERT INTO audit (id, table_id, hand_no, actor, role, action, seat, reason, at_ms, rule_ids, seq)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, (SELECT COALESCE(MAX(seq), 0) + 1 FROM audit WHERE table_id = $2))`,
		[]any{a.ID, a.TableID, a.HandNo, a.Actor, a.Role, a.Action, a.Seat, a.Reason, a.At.UnixMilli(), strings.Join(a.RuleIDs, ",")}, "audit %s", a.Action)
	return err
}

// AuditLog lists a table's recorded rulings in order.
func (s *Store) AuditLog(ctx context.Context, tableID string) ([]Audit, error) {
	return sqlstore.Collect(ctx, s.db.SQL(), "audit log of "+tableID, `SELECT id, hand_no, actor, role, action, seat, reason, at_ms, rule_ids
		FROM audit WHERE table_id = $1 ORDER BY seq, at_ms, id`, []any{tableID}, func(r sqlstore.Scanner) (Audit, error) {
		a := Audit{TableID: tableID}
		var at int64
		var rules string
		err := r.Scan(&a.ID, &a.HandNo, &a.Actor, &a.Role, &a.Action, &a.Seat, &a.Reason, &at, &rules)
		if rules != "" {
			a.RuleIDs = strings.Split(rules, ",")
		}
		a.At = time.UnixMilli(at).UTC()
		return a, err
	})
}
