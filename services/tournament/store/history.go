package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/standings"
)

// PlayerEvent is one player's part in one event, for their history.
type PlayerEvent struct {
	Event event.Event
	Entry entry.Entry
	// Place is the finishing place; 0 when not placed.
	Place int
	// Prize is what the player was awarded (pending or paid).
	Prize int64
	// Bounties is the bounty cash the player won (pending or paid; G-36),
	// their own head collected at the end included.
	Bounties  int64
	Penalties []standings.Penalty
	// Bagged is the stack bagged in this flight; 0 when none.
	Bagged int64
}

// historyEntries reads a player's entries in every event, by the index
// tournament_entries_by_player (migration 00020).
const historyEntries = `SELECT ` + entryColumns + ` FROM tournament_entries WHERE player_id = $1`

// PlayerHistory returns every event the player entered, latest start
// first, with their entry, place, prize, penalties and bag (issue 13), in
// one snapshot.
func (s *Store) PlayerHistory(ctx context.Context, player string) ([]PlayerEvent, error) {
	var out []PlayerEvent
	err := s.db.ReadTx(ctx, func(tx *sqlstore.Tx) error {
		out = nil
		ens, err := sqlstore.Collect(ctx, tx, "history of "+player, historyEntries, []any{player}, scanEntry)
		if err != nil {
			return err
		}
		for _, en := range ens {
			pe, err := playerEvent(ctx, tx, player, en)
			if err != nil {
				return err
			}
			out = append(out, pe)
		}
		return nil
	})
	slices.SortStableFunc(out, func(a, b PlayerEvent) int {
		if c := b.Event.StartsAt.Compare(a.Event.StartsAt); c != 0 {
			return c
		}
		return strings.Compare(a.Event.ID, b.Event.ID)
	})
	return out, err
}

// playerEvent reads the player's place, prize, bounties, bag and
// penalties in the event of entry en.
func playerEvent(ctx context.Context, tx *sqlstore.Tx, player string, en entry.Entry) (PlayerEvent, error) {
	t, err := load(ctx, tx, en.EventID)
	if err != nil {
		return PlayerEvent{}, err
	}
	pe := PlayerEvent{Event: t.Event, Entry: en}
	err = tx.QueryRowContext(ctx, `SELECT place FROM tournament_finishes WHERE tournament_id = $1 AND player_id = $2`,
		en.EventID, player).Scan(&pe.Place)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return pe, fmt.Errorf("history of %s: place in %s: %w", player, en.EventID, err)
	}
	// A prize or a bounty the wallet refused is no award until paid.
	err = tx.QueryRowContext(ctx, `SELECT
			COALESCE(SUM(CASE WHEN kind = $3 THEN 0 ELSE amount END), 0),
			COALESCE(SUM(CASE WHEN kind = $3 THEN amount ELSE 0 END), 0)
		FROM tournament_payments
		WHERE tournament_id = $1 AND player_id = $2 AND kind IN ($3, $4, $5) AND state IN ($6, $7)`,
		en.EventID, player, int(entry.PayBounty), int(entry.PayPrize), int(entry.PayVoucher),
		int(PaymentPending), int(PaymentDone)).Scan(&pe.Prize, &pe.Bounties)
	if err != nil {
		return pe, fmt.Errorf("history of %s: prize in %s: %w", player, en.EventID, err)
	}
	err = tx.QueryRowContext(ctx, `SELECT COALESCE(SUM(chips), 0) FROM tournament_bags WHERE flight_id = $1 AND player_id = $2`,
		en.EventID, player).Scan(&pe.Bagged)
	if err != nil {
		return pe, fmt.Errorf("history of %s: bag in %s: %w", player, en.EventID, err)
	}
	pe.Penalties, err = (&Tx{ctx: ctx, tx: tx, id: en.EventID}).Penalties(player)
	return pe, err
}
