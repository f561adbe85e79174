package store

import (
	"context"
	"fmt"
	"time"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/tournament/event"
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
	if _, err := sqlstore.Exec(t.ctx, t.tx, `DELETE FROM tournament_tables
		WHERE table_id = $1 OR (tournament_id = $2 AND table_no = $3)`, []any{tableID, t.id, no}, "attach table %s to %s/%d", tableID, t.id, no); err != nil {
		return err
	}
	_, err := sqlstore.Exec(t.ctx, t.tx, `INSERT INTO tournament_tables (tournament_id, table_no, table_id, attached_at_ms)
		VALUES ($1, $2, $3, $4)`, []any{t.id, no, tableID, now.UnixMilli()}, "attach table %s to %s/%d", tableID, t.id, no)
	return err
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
	if ok, err := sqlstore.Found(err, "table link %s", tableID); !ok {
		return TableLink{}, false, err
	}
	return l, true, nil
}

// DB returns the store's database, for consumers that record processed
// events in the transaction of their change (events.Idempotent).
func (s *Store) DB() *sqlstore.DB { return s.db }

// UpdateIn is Update inside a transaction the caller holds (an idempotent
// consumer's, which also records the event as processed).
func (s *Store) UpdateIn(ctx context.Context, tx *sqlstore.Tx, id string, fn func(tx *Tx, t *Tournament) error) error {
	return update(ctx, s.db, tx, id, fn)
}

// Tables returns the tournament's tables by number, as attached.
func (s *Store) Tables(ctx context.Context, id string) ([]TableLink, error) {
	return sqlstore.Read(ctx, s.db, func(tx *sqlstore.Tx) ([]TableLink, error) { return tableLinks(ctx, tx, id) })
}

// Tables is Store.Tables inside the transaction.
func (t *Tx) Tables() ([]TableLink, error) { return tableLinks(t.ctx, t.tx, t.id) }

func tableLinks(ctx context.Context, tx *sqlstore.Tx, id string) ([]TableLink, error) {
	return sqlstore.Collect(ctx, tx, "tables of "+id, `SELECT table_no, table_id FROM tournament_tables WHERE tournament_id = $1 ORDER BY table_no`,
		[]any{id}, func(r sqlstore.Scanner) (TableLink, error) {
			l := TableLink{TournamentID: id}
			err := r.Scan(&l.Table, &l.TableID)
			return l, err
		})
}

// CountAudit counts the audit records of one action: the director numbers
// its moves by them ("trn/<event>/move/<n>").
func (t *Tx) CountAudit(action string) (int, error) {
	var n int
	err := t.tx.QueryRowContext(t.ctx, `SELECT COUNT(*) FROM tournament_audit WHERE tournament_id = $1 AND action = $2`, t.id, action).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count %s of %s: %w", action, t.id, err)
	}
	return n, nil
}

// Running returns the ids of the running tournaments, for the director's
// recovery pass.
func (s *Store) Running(ctx context.Context) ([]string, error) {
	return sqlstore.Collect(ctx, s.db.SQL(), "running tournaments", `SELECT id FROM tournaments WHERE status = $1 ORDER BY id`,
		[]any{int(event.Running)}, sqlstore.ScanString)
}
