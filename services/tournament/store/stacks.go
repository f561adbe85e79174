package store

import (
	"context"
	"fmt"
	"time"

	"github.com/cardroom/cardroom/platform/sqlstore"
)

// Stack is a player's chips after their table's last hand, as the table
// reported it.
type Stack struct {
	PlayerID string
	// TableID is the table-service table that reported it.
	TableID string
	HandNo  int64
	Chips   int64
	// EndedAt is when that hand ended.
	EndedAt time.Time
}

// SaveStacks records the stacks a table reported after a hand. A player's
// count changes only to a report of a hand that ended no earlier than the
// one it holds (the player may have moved tables since: a redelivered
// report of their old table's earlier hand changes nothing).
func (s *Store) SaveStacks(ctx context.Context, id string, stacks []Stack) error {
	if len(stacks) == 0 {
		return nil
	}
	err := s.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		for _, st := range stacks {
			_, err := tx.ExecContext(ctx, `INSERT INTO tournament_stacks (tournament_id, player_id, table_id, hand_no, stack, ended_at_ms)
				VALUES ($1, $2, $3, $4, $5, $6)
				ON CONFLICT (tournament_id, player_id) DO UPDATE SET table_id = excluded.table_id, hand_no = excluded.hand_no,
					stack = excluded.stack, ended_at_ms = excluded.ended_at_ms
				WHERE tournament_stacks.ended_at_ms <= excluded.ended_at_ms`,
				id, st.PlayerID, st.TableID, st.HandNo, st.Chips, st.EndedAt.UnixMilli())
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("save stacks of %s: %w", id, err)
	}
	return nil
}

// Stacks returns every player's last reported stack in the tournament, by
// player.
func (s *Store) Stacks(ctx context.Context, id string) (map[string]Stack, error) {
	stacks, err := sqlstore.Collect(ctx, s.db.SQL(), "stacks of "+id, `SELECT player_id, table_id, hand_no, stack, ended_at_ms
		FROM tournament_stacks WHERE tournament_id = $1`, []any{id}, func(r sqlstore.Scanner) (Stack, error) {
		var st Stack
		var ms int64
		err := r.Scan(&st.PlayerID, &st.TableID, &st.HandNo, &st.Chips, &ms)
		st.EndedAt = time.UnixMilli(ms).UTC()
		return st, err
	})
	if err != nil {
		return nil, err
	}
	out := map[string]Stack{}
	for _, st := range stacks {
		out[st.PlayerID] = st
	}
	return out, nil
}

// Stack returns a player's last reported stack in the transaction's
// tournament; ok is false before their table has reported a hand.
func (t *Tx) Stack(player string) (st Stack, ok bool, err error) {
	var ms int64
	err = t.tx.QueryRowContext(t.ctx, `SELECT player_id, table_id, hand_no, stack, ended_at_ms FROM tournament_stacks
		WHERE tournament_id = $1 AND player_id = $2`, t.id, player).Scan(&st.PlayerID, &st.TableID, &st.HandNo, &st.Chips, &ms)
	if ok, err := sqlstore.Found(err, "stack of %s in %s", player, t.id); !ok {
		return Stack{}, false, err
	}
	st.EndedAt = time.UnixMilli(ms).UTC()
	return st, true, nil
}
