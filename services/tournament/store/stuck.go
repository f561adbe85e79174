package store

import (
	"context"
	"fmt"
	"time"

	"github.com/cardroom/cardroom/platform/sqlstore"
)

// StuckStep is a step of the director's that has failed again and again
// (a recovery pass, a table's hand end): the tournament's status shows it
// until it succeeds.
type StuckStep struct {
	// Step names it ("hand end at table 3"), Kind says which sort it is
	// ("recovery", "hand_end").
	Step, Kind string
	// Error is its last failure.
	Error string
	// Attempts are its failures in a row, the first at Since, the last at
	// Last.
	Attempts    int
	Since, Last time.Time
}

// SaveStuckStep records a stuck step of the tournament, replacing its
// previous record.
func (s *Store) SaveStuckStep(ctx context.Context, id string, st StuckStep) error {
	err := s.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO tournament_stuck_steps (tournament_id, step, kind, error, attempts, since_ms, last_ms)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (tournament_id, step) DO UPDATE SET kind = excluded.kind, error = excluded.error,
				attempts = excluded.attempts, since_ms = excluded.since_ms, last_ms = excluded.last_ms`,
			id, st.Step, st.Kind, st.Error, st.Attempts, st.Since.UnixMilli(), st.Last.UnixMilli())
		return err
	})
	if err != nil {
		return fmt.Errorf("save stuck step %q of %s: %w", st.Step, id, err)
	}
	return nil
}

// ClearStuckStep removes the record of a step that succeeded.
func (s *Store) ClearStuckStep(ctx context.Context, id, step string) error {
	err := s.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM tournament_stuck_steps WHERE tournament_id = $1 AND step = $2`, id, step)
		return err
	})
	if err != nil {
		return fmt.Errorf("clear stuck step %q of %s: %w", step, id, err)
	}
	return nil
}

// StuckSteps returns the tournament's stuck steps, the longest stuck
// first.
func (s *Store) StuckSteps(ctx context.Context, id string) ([]StuckStep, error) {
	return sqlstore.Read(ctx, s.db, func(tx *sqlstore.Tx) ([]StuckStep, error) {
		return sqlstore.Collect(ctx, tx, "stuck steps of "+id, `SELECT step, kind, error, attempts, since_ms, last_ms FROM tournament_stuck_steps
			WHERE tournament_id = $1 ORDER BY since_ms, step`, []any{id}, func(r sqlstore.Scanner) (StuckStep, error) {
			var st StuckStep
			var since, last int64
			err := r.Scan(&st.Step, &st.Kind, &st.Error, &st.Attempts, &since, &last)
			st.Since, st.Last = time.UnixMilli(since).UTC(), time.UnixMilli(last).UTC()
			return st, err
		})
	})
}
