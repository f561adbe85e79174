package director

import (
	"context"
	"fmt"
	"strings"

	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// removedAction is the audit action recording the chips a player the floor
// took out of play (TR-34) left the tables with:
// "chips_removed/<player>/<entry number>", so that they are counted once.
const removedAction = "chips_removed/"

// removedRecord is a removal from play as the audit records it.
type removedRecord struct {
	Player   string `json:"player_id"`
	Table    int    `json:"table"`
	Rule     string `json:"rule_id"`
	Expelled bool   `json:"expelled"`
	// Chips are the chips taken out of play with the player.
	Chips int64 `json:"chips"`
}

// removeOut takes off their table every player the books have out of play
// who still holds chips there: disqualified or expelled by the floor
// (TR-34), their chips removed from play. The table lets them go at once
// between hands, or when the hand they play ends (HandleHandEnded records
// the chips then). Until they have gone, their seat — free in the books —
// refuses the moves into it.
func (d *Director) removeOut(ctx context.Context, id string) error {
	t, err := d.store.Load(ctx, id)
	if err != nil || t.Event.Status != event.Running {
		return err
	}
	ens, err := d.store.Entries(ctx, id)
	if err != nil {
		return err
	}
	out := map[string]entry.Entry{}
	for _, en := range ens {
		if en.Status != entry.Active {
			out[en.PlayerID] = en
		}
	}
	if len(out) == 0 {
		return nil
	}
	finishes, err := d.store.Results(ctx, id)
	if err != nil {
		return err
	}
	expelled := map[string]bool{}
	for _, f := range finishes {
		expelled[f.PlayerID] = f.Removed
	}
	links, err := d.store.Tables(ctx, id)
	if err != nil {
		return err
	}
	for _, l := range links {
		st, err := d.tables.Status(ctx, l.TableID)
		if err != nil {
			return err
		}
		if st.Closed {
			continue
		}
		for _, s := range st.Seats {
			en, ok := out[s.Player]
			if !ok || s.Stack <= 0 {
				continue // in play, or busted (handEnded removes them)
			}
			key := fmt.Sprintf("trn/%s/out/%s/%s/tr34-%d", id, s.Player, l.TableID, en.Number())
			removed, chips, err := d.tables.RemoveOut(ctx, l.TableID, key, s.Player, expelled[s.Player])
			if r := Refusal(err); r == "NOT_SEATED" || r == "MOVE_IN_PROGRESS" {
				continue // gone already, or on the move: the next pass
			}
			if err != nil {
				return err
			}
			if removed {
				if err := d.recordRemoved(ctx, id, en, l.Table, expelled[s.Player], chips); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// recordRemoved records once the chips a player taken out of play (TR-34)
// left the tables with: the chips counted at the tables are the chips
// issued less these.
func (d *Director) recordRemoved(ctx context.Context, id string, en entry.Entry, table int, expelled bool, chips int64) error {
	if chips <= 0 {
		return nil
	}
	action := fmt.Sprintf("%s%s/%d", removedAction, en.PlayerID, en.Number())
	now := d.now()
	return d.store.Update(ctx, id, func(tx *store.Tx, _ *store.Tournament) error {
		if done, err := tx.CountAudit(action); err != nil || done > 0 {
			return err
		}
		rec := removedRecord{Player: en.PlayerID, Table: table, Rule: "TR-34", Expelled: expelled, Chips: chips}
		return tx.AddAudit(Actor, action, rec, now)
	})
}

// removedChips is the chips the tournament's players taken out of play
// (TR-34) left the tables with.
func (d *Director) removedChips(ctx context.Context, id string) (int64, error) {
	audit, err := d.store.Audit(ctx, id)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, a := range audit {
		if !strings.HasPrefix(a.Action, removedAction) {
			continue
		}
		var r removedRecord
		if err := jsonUnmarshal(a.Detail, &r); err != nil {
			return 0, err
		}
		n += r.Chips
	}
	return n, nil
}

// holdsOut reports whether the hand's table still seats, with chips, a
// player the books have out of play (TR-34): only then does the hand's
// end look for them at every table.
func (d *Director) holdsOut(ctx context.Context, t store.Tournament, h Hand) bool {
	k := d.kept(t.Event.ID)
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.sync(d.fromStore(ctx, t.Event.ID), t.Rules.SeatsPerTable); err != nil {
		return true // look, to be safe
	}
	for p, chips := range h.Stacks {
		if chips > 0 && !k.s.Seated(p) {
			return true
		}
	}
	return false
}
