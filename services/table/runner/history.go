package runner

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cardroom/cardroom/services/table/dealer"
	"github.com/cardroom/cardroom/services/table/store"
)

// History reads and opens a finished hand's sealed history.
func (r *Runner) History(ctx context.Context, tableID string, handNo int64) (*dealer.History, error) {
	h, err := r.d.Store.GetHand(ctx, tableID, handNo)
	if err != nil {
		return nil, err
	}
	plain, err := r.d.Sealer.Open(h.History, historyAD(tableID, handNo))
	if err != nil {
		return nil, fmt.Errorf("open hand %s/%d: %w", tableID, handNo, err)
	}
	var out dealer.History
	if err := json.Unmarshal(plain, &out); err != nil {
		return nil, fmt.Errorf("read hand %s/%d: %w", tableID, handNo, err)
	}
	return &out, nil
}

// PlayerHands lists a player's recent hands, newest first.
func (r *Runner) PlayerHands(ctx context.Context, player string, limit int) ([]store.PlayerHand, error) {
	return r.d.Store.PlayerHands(ctx, player, limit)
}
