package store

import (
	"context"
	"fmt"
	"time"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/flight"
)

// linkFlight records the Day 2 a new flight feeds, so the Day 2 finds its
// flights (issue 13).
func linkFlight(ctx context.Context, tx *sqlstore.Tx, id, day2 string) error {
	_, err := sqlstore.Exec(ctx, tx, `UPDATE tournaments SET day2_id = $1 WHERE id = $2`, []any{day2, id}, "link flight %s to %s", id, day2)
	return err
}

// FlightState is one flight of a Day 2 and where it stands.
type FlightState struct {
	ID     string
	Status event.Status
}

// Flights returns the flights that feed this Day 2, by id.
func (t *Tx) Flights() ([]FlightState, error) {
	return sqlstore.Collect(t.ctx, t.tx, "flights of "+t.id, `SELECT id, status FROM tournaments WHERE day2_id = $1 ORDER BY id`,
		[]any{t.id}, func(r sqlstore.Scanner) (FlightState, error) {
			var f FlightState
			var st int
			err := r.Scan(&f.ID, &st)
			f.Status = event.Status(st)
			return f, err
		})
}

// PutBags records this flight's bagged stacks for its Day 2; a bag
// recorded before stays as it was (the first count wins, so a repeat
// after a crash changes nothing).
func (t *Tx) PutBags(day2 string, bags []flight.Bag) error {
	for _, b := range bags {
		_, err := t.tx.ExecContext(t.ctx, `INSERT INTO tournament_bags (flight_id, player_id, day2_id, chips, table_no, seat_no, bagged_at_ms)
			VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (flight_id, player_id) DO NOTHING`,
			t.id, b.Player, day2, b.Chips, b.Table, b.Seat, b.BaggedAt.UnixMilli())
		if err != nil {
			return fmt.Errorf("bag %s/%s: %w", t.id, b.Player, err)
		}
	}
	return nil
}

// Bags returns the bags of a flight, or every bag carried into a Day 2,
// in the order they were made.
func (s *Store) Bags(ctx context.Context, id string) ([]flight.Bag, error) {
	return sqlstore.Read(ctx, s.db, func(tx *sqlstore.Tx) ([]flight.Bag, error) { return bags(ctx, tx, id) })
}

// Bags is Store.Bags inside the transaction.
func (t *Tx) Bags() ([]flight.Bag, error) { return bags(t.ctx, t.tx, t.id) }

func bags(ctx context.Context, tx *sqlstore.Tx, id string) ([]flight.Bag, error) {
	return sqlstore.Collect(ctx, tx, "bags of "+id, `SELECT flight_id, player_id, chips, table_no, seat_no, bagged_at_ms FROM tournament_bags
		WHERE flight_id = $1 OR day2_id = $1 ORDER BY bagged_at_ms, flight_id, player_id`, []any{id}, func(r sqlstore.Scanner) (flight.Bag, error) {
		var b flight.Bag
		var at int64
		err := r.Scan(&b.Flight, &b.Player, &b.Chips, &b.Table, &b.Seat, &at)
		b.BaggedAt = time.UnixMilli(at).UTC()
		return b, err
	})
}
