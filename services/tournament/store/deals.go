package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/tournament/deal"
)

// Heads returns the knockout heads that differ from the event's bounty
// (G-36), by player; a player not named has the bounty on their head.
func (t *Tx) Heads() (map[string]int64, error) {
	return sqlstore.Map[string, int64](t.ctx, t.tx, "heads of "+t.id, `SELECT player_id, head FROM tournament_heads WHERE tournament_id = $1`, []any{t.id})
}

// SetHead records a player's head.
func (t *Tx) SetHead(player string, head int64) error {
	_, err := sqlstore.Exec(t.ctx, t.tx, `INSERT INTO tournament_heads (tournament_id, player_id, head) VALUES ($1, $2, $3)
		ON CONFLICT (tournament_id, player_id) DO UPDATE SET head = excluded.head`, []any{t.id, player, head}, "set head %s/%s", t.id, player)
	return err
}

// ClearHead takes a knocked-out player's head off the books: won by
// others, or collected; a re-entry starts again at the bounty.
func (t *Tx) ClearHead(player string) error {
	_, err := sqlstore.Exec(t.ctx, t.tx, `DELETE FROM tournament_heads WHERE tournament_id = $1 AND player_id = $2`, []any{t.id, player},
		"clear head %s/%s", t.id, player)
	return err
}

// Deal returns the event's last deal proposal (TR-38); ok is false when
// none was made.
func (t *Tx) Deal() (d deal.Proposal, ok bool, err error) {
	return lastDeal(t.tx.QueryRowContext(t.ctx, `SELECT deal FROM tournament_deals WHERE tournament_id = $1
		ORDER BY deal_id DESC LIMIT 1`, t.id), t.id)
}

// Deal is Tx.Deal outside a transaction.
func (s *Store) Deal(ctx context.Context, id string) (deal.Proposal, bool, error) {
	return lastDeal(s.db.SQL().QueryRowContext(ctx, `SELECT deal FROM tournament_deals WHERE tournament_id = $1
		ORDER BY deal_id DESC LIMIT 1`, id), id)
}

func lastDeal(row *sql.Row, id string) (deal.Proposal, bool, error) {
	var raw string
	err := row.Scan(&raw)
	if ok, err := sqlstore.Found(err, "deal of %s", id); !ok {
		return deal.Proposal{}, false, err
	}
	var d deal.Proposal
	if err := json.Unmarshal([]byte(raw), &d); err != nil {
		return deal.Proposal{}, false, fmt.Errorf("deal of %s: %w", id, err)
	}
	return d, true, nil
}

// PutDeal records a proposal, new or answered.
func (t *Tx) PutDeal(d deal.Proposal) error {
	raw, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("put deal %s/%d: %w", t.id, d.ID, err)
	}
	_, err = sqlstore.Exec(t.ctx, t.tx, `INSERT INTO tournament_deals (tournament_id, deal_id, deal) VALUES ($1, $2, $3)
		ON CONFLICT (tournament_id, deal_id) DO UPDATE SET deal = excluded.deal`, []any{t.id, d.ID, string(raw)}, "put deal %s/%d", t.id, d.ID)
	return err
}
