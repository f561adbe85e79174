package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/cardroom/cardroom/platform/sqlstore"
)

// TableLink is a tournament table and the table service's table that
// plays it.
type TableLink struct {
	TournamentID string
	Table        int
	TableID      string
}

// AttachTable records that tableID plays the tournament's table number
// no. The latest attachment wins: the number's previous table and the
// table's previous number are forgotten, so the floor corrects a mistake
// by attaching again and a repeat changes nothing.
func (t *Tx) AttachTable(no int, tableID string, now time.Time) error {
	if _, err := t.tx.ExecContext(t.ctx, `DELETE FROM tournament_tables
		WHERE table_id = $1 OR (tournament_id = $2 AND table_no = $3)`, tableID, t.id, no); err != nil {
		return fmt.Errorf("attach table %s to %s/%d: %w", tableID, t.id, no, err)
	}
	if _, err := t.tx.ExecContext(t.ctx, `INSERT INTO tournament_tables (tournament_id, table_no, table_id, attached_at_ms)
		VALUES ($1, $2, $3, $4)`, t.id, no, tableID, now.UnixMilli()); err != nil {
		return fmt.Errorf("attach table %s to %s/%d: %w", tableID, t.id, no, err)
	}
	return nil
}

// TableLink returns the tournament table tableID plays; ok is false for a
// table no tournament attached (a cash table, or one not attached yet).
func (s *Store) TableLink(ctx context.Context, tableID string) (link TableLink, ok bool, err error) {
	err = s.db.ReadTx(ctx, func(tx *sqlstore.Tx) error {
		link, ok, err = tableLink(ctx, tx, tableID)
		return err
	})
	return link, ok, err
}

// TableLink is Store.TableLink inside the transaction.
func (t *Tx) TableLink(tableID string) (TableLink, bool, error) {
	return tableLink(t.ctx, t.tx, tableID)
}

func tableLink(ctx context.Context, tx *sqlstore.Tx, tableID string) (TableLink, bool, error) {
	l := TableLink{TableID: tableID}
	err := tx.QueryRowContext(ctx, `SELECT tournament_id, table_no FROM tournament_tables WHERE table_id = $1`, tableID).
		Scan(&l.TournamentID, &l.Table)
	if errors.Is(err, sql.ErrNoRows) {
		return TableLink{}, false, nil
	}
	if err != nil {
		return TableLink{}, false, fmt.Errorf("table link %s: %w", tableID, err)
	}
	return l, true, nil
}

// DB returns the store's database, for consumers that record processed
// events in the transaction of their change (events.Idempotent).
func (s *Store) DB() *sqlstore.DB { return s.db }

// UpdateIn is Update inside a transaction the caller holds (an idempotent
// consumer's, which also records the event as processed).
func (s *Store) UpdateIn(ctx context.Context, tx *sqlstore.Tx, id string, fn func(tx *Tx, t *Tournament) error) error {
	return update(ctx, tx, id, fn)
}
