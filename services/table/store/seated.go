package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
)

// ErrSeatedAtAnotherTable refuses a seat to a player who holds one at
// another open cash table (G-21, the house default: a player may not hold
// seats in two games). Its metadata names that table and seat, so that the
// app can send the player there to leave first.
var ErrSeatedAtAnotherTable = fault.Rule(fault.Precondition, "G-21", "SEATED_AT_ANOTHER_TABLE",
	"the player holds a seat at another table; leave it first")

// Holding is a seat a player holds (a row of seated_players).
type Holding struct {
	TableID string
	Seat    int
}

func seatedElsewhere(player string, h Holding) error {
	return ErrSeatedAtAnotherTable.Withf("player %s holds seat %d at table %s; leave it first", player, h.Seat, h.TableID).
		With("table_id", h.TableID, "seat", strconv.Itoa(h.Seat))
}

// CheckSeatedElsewhere returns ErrSeatedAtAnotherTable when player holds a
// seat at an open table other than tableID, or has left one whose
// cash-out the wallet has not recorded yet: the seat there is free, but
// until the wallet knows the stack the player left with, a buy-in here
// could not be held to it (CS-09, CS-10). The seat's row is released in
// the transaction that records the pending cash-out, so one of the two is
// always there to see. It reads outside any transaction: the sit-down asks
// it before the wallet holds the buy-in, so that a refusal moves no money.
// HoldSeat, in the seat's own transaction, is what guarantees the seat
// against a concurrent sit-down elsewhere.
func (s *Store) CheckSeatedElsewhere(ctx context.Context, player, tableID string) error {
	var h Holding
	err := s.db.SQL().QueryRowContext(ctx, `SELECT sp.table_id, sp.seat FROM seated_players sp JOIN tables t ON t.id = sp.table_id
		WHERE sp.player_id = $1 AND sp.table_id <> $2 AND NOT t.closed`, player, tableID).Scan(&h.TableID, &h.Seat)
	if err == nil {
		return seatedElsewhere(player, h)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("seats held by %s: %w", player, err)
	}
	err = s.db.SQL().QueryRowContext(ctx, `SELECT table_id, seat FROM money_moves
		WHERE player_id = $1 AND kind = $2 AND NOT done AND table_id <> $3 ORDER BY created_at_ms LIMIT 1`,
		player, MoveCashOut, tableID).Scan(&h.TableID, &h.Seat)
	if ok, err := sqlstore.Found(err, "cash-outs pending for %s", player); !ok {
		return err
	}
	return ErrSeatedAtAnotherTable.Withf("player %s left seat %d at table %s, whose cash-out is still being paid; sit down once it is", player, h.Seat, h.TableID).
		With("table_id", h.TableID, "seat", strconv.Itoa(h.Seat), "cash_out", "pending")
}

// TableHoldings returns the players holding seats at tableID, by seat.
func (s *Store) TableHoldings(ctx context.Context, q sqlstore.Querier, tableID string) (map[string]int, error) {
	return sqlstore.Map[string, int](ctx, q, "seats held at "+tableID, `SELECT player_id, seat FROM seated_players WHERE table_id = $1`, []any{tableID})
}

// HoldSeat records that player holds seat at tableID, in the transaction
// that seats them. A row of the same table is moved to the new seat. When
// the player holds a seat at another table it returns
// ErrSeatedAtAnotherTable, leaving the transaction usable (the insert does
// nothing instead of failing, so PostgreSQL does not abort it). If another
// transaction seated the player and has not committed yet, PostgreSQL makes
// this one wait for it on the primary key, then refuses or succeeds as that
// one commits or rolls back. A row left by a closed table is dropped.
func (s *Store) HoldSeat(ctx context.Context, tx *sqlstore.Tx, tableID, player string, seat int) error {
	for attempt := 0; ; attempt++ {
		n, err := sqlstore.Exec(ctx, tx, `INSERT INTO seated_players (player_id, table_id, seat) VALUES ($1, $2, $3)
			ON CONFLICT (player_id) DO UPDATE SET seat = excluded.seat WHERE seated_players.table_id = excluded.table_id`,
			[]any{player, tableID, seat}, "hold seat %d at %s for %s", seat, tableID, player)
		if err != nil || n > 0 {
			return err
		}
		if attempt == 0 {
			// A closed table holds nobody: its rows go when it closes,
			// and one that was missed must not lock the player out.
			if _, err := tx.ExecContext(ctx, `DELETE FROM seated_players WHERE player_id = $1
				AND table_id IN (SELECT id FROM tables WHERE closed)`, player); err != nil {
				return fmt.Errorf("drop stale seats of %s: %w", player, err)
			}
			continue
		}
		var h Holding
		err = tx.QueryRowContext(ctx, `SELECT table_id, seat FROM seated_players WHERE player_id = $1`, player).Scan(&h.TableID, &h.Seat)
		if errors.Is(err, sql.ErrNoRows) && attempt < 3 {
			continue // the other seat went in the meantime: try again
		}
		if err != nil {
			return fmt.Errorf("seat held by %s: %w", player, err)
		}
		return seatedElsewhere(player, h)
	}
}

// ReleaseSeat records that player no longer holds a seat at tableID.
func (s *Store) ReleaseSeat(ctx context.Context, tx *sqlstore.Tx, tableID, player string) error {
	_, err := sqlstore.Exec(ctx, tx, `DELETE FROM seated_players WHERE player_id = $1 AND table_id = $2`, []any{player, tableID},
		"release seat of %s at %s", player, tableID)
	return err
}
