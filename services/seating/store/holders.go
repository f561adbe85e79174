package store

import (
	"context"
	"fmt"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/seating/waitlist"
)

// holder is one row of the seat-holder index.
type holder struct{ waitlist, table string }

// holders reads the index rows that where (a condition on waitlist_id
// with one argument, or none) selects, by player.
func holders(ctx context.Context, q sqlstore.Querier, where string, args ...any) (map[string]holder, error) {
	out := map[string]holder{}
	err := sqlstore.Each(ctx, q, "read seat holders", `SELECT player_id, waitlist_id, table_id FROM seat_holders `+where, args,
		func(r sqlstore.Scanner) error {
			var player string
			var h holder
			err := r.Scan(&player, &h.waitlist, &h.table)
			out[player] = h
			return err
		})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// HeldElsewhere returns the players holding a seat in a game other than
// id, each with the table (G-21), as of tx.
func (s *Store) HeldElsewhere(ctx context.Context, tx *sqlstore.Tx, id string) (map[string]string, error) {
	hs, err := holders(ctx, tx, `WHERE waitlist_id <> $1`, id)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(hs))
	for player, h := range hs {
		out[player] = h.table
	}
	return out, nil
}

// Unindexed returns the games among recs holding a seat for a player the
// index does not have there: games last saved before the index existed.
func (s *Store) Unindexed(ctx context.Context, recs []Record) ([]string, error) {
	hs, err := holders(ctx, s.db.SQL(), ``)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, rec := range recs {
		for player, table := range rec.Game.Holding() {
			if hs[player] != (holder{rec.Game.ID, table}) {
				out = append(out, rec.Game.ID)
				break
			}
		}
	}
	return out, nil
}

// Claim records, inside tx, that player holds a seat at table in game id.
// When another game holds the player it reports that game's table and
// records nothing; a transaction claiming the same player at the same
// moment makes this one wait for its outcome, so of two games only one
// can seat a player (G-21).
func (s *Store) Claim(ctx context.Context, tx *sqlstore.Tx, id, player, table string) (elsewhere string, err error) {
	n, err := sqlstore.Exec(ctx, tx, `INSERT INTO seat_holders (player_id, waitlist_id, table_id) VALUES ($1, $2, $3)
		ON CONFLICT (player_id) DO NOTHING`, []any{player, id, table}, "claim a seat for %s in %s", player, id)
	if err != nil || n == 1 {
		return "", err
	}
	var other, otherTable string
	err = tx.QueryRowContext(ctx, `SELECT waitlist_id, table_id FROM seat_holders WHERE player_id = $1`, player).Scan(&other, &otherTable)
	if err != nil {
		return "", fmt.Errorf("claim a seat for %s in %s: %w", player, id, err)
	}
	if other == id {
		_, err := tx.ExecContext(ctx, `UPDATE seat_holders SET table_id = $1 WHERE player_id = $2`, table, player)
		return "", err
	}
	holds, err := s.holds(ctx, tx, other, player)
	if err != nil || holds {
		return otherTable, err
	}
	// The other game let the player go without its index being told
	// (a game saved by a version before the index): the claim is free.
	_, err = tx.ExecContext(ctx, `UPDATE seat_holders SET waitlist_id = $1, table_id = $2 WHERE player_id = $3`, id, table, player)
	return "", err
}

// holds reports whether game id, as saved, holds a seat for player.
func (s *Store) holds(ctx context.Context, tx *sqlstore.Tx, id, player string) (bool, error) {
	r, err := scan(tx.QueryRowContext(ctx, `SELECT state, version FROM waitlists WHERE id = $1`, id))
	if ok, err := sqlstore.Found(err, "load waitlist %s", id); !ok {
		return false, err
	}
	_, ok := r.Game.Holding()[player]
	return ok, nil
}

// IndexHolders brings the index of g's seat holders up to date inside tx:
// players who no longer hold a seat in g are forgotten and new holders
// recorded. A new holder the index has in another game keeps that entry:
// the tables reported both seats, and the first one stands in the index
// until it ends.
func (s *Store) IndexHolders(ctx context.Context, tx *sqlstore.Tx, g *waitlist.Game) error {
	holding := g.Holding()
	indexed, err := holders(ctx, tx, `WHERE waitlist_id = $1`, g.ID)
	if err != nil {
		return fmt.Errorf("index seat holders of %s: %w", g.ID, err)
	}
	for player, h := range indexed {
		if holding[player] == h.table {
			continue
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM seat_holders WHERE player_id = $1 AND waitlist_id = $2`, player, g.ID); err != nil {
			return fmt.Errorf("index seat holders of %s: %w", g.ID, err)
		}
		delete(indexed, player)
	}
	for player, table := range holding {
		if _, ok := indexed[player]; ok {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO seat_holders (player_id, waitlist_id, table_id) VALUES ($1, $2, $3)
			ON CONFLICT (player_id) DO NOTHING`, player, g.ID, table); err != nil {
			return fmt.Errorf("index seat holders of %s: %w", g.ID, err)
		}
	}
	return nil
}
