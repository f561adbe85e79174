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

// removingAction is the audit action recording that a table was asked to
// take a player out of play (TR-34), under the same name as its
// chips_removed record ("chips_removing/<player>/<entry number>"), with
// the control's key. A removal asked for whose chips were never recorded
// — the table's answer lost, or the process gone before it recorded them —
// is asked again with its key: the table answers a repeat with the chips
// it removed, so they are counted once, never left counted in play.
const removingAction = "chips_removing/"

// removingRecord is a removal asked for, as the audit records it.
type removingRecord struct {
	Player   string `json:"player_id"`
	Table    int    `json:"table"`
	TableID  string `json:"table_id"`
	Key      string `json:"key"`
	Expelled bool   `json:"expelled"`
	Rule     string `json:"rule_id"`
}

// removalName is the name shared by a removal's records.
func removalName(en entry.Entry) string { return fmt.Sprintf("%s/%d", en.PlayerID, en.Number()) }

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
// refuses the moves into it. It runs while play is over too: a
// disqualification that ends the event (TR-34) still takes the player's
// chips out of play, and they are counted as removed.
//
// It reads the books, then the tables, and between the two a late entry
// or a re-entry (G-23) could be paid and seated with chips: a player the
// books it read had paying or out would then be taken out of play with
// the chips just issued to them (a CI run of the rebuy end-to-end test
// saw a late entrant's 975 chips removed that way, 1.7 s after the
// start). So it holds Issue, under which the desk pays and seats late
// entrants (the step lock its callers hold comes first, as for the chip
// count), and a paying entry is never taken for one out of play: it is
// not in play yet.
func (d *Director) removeOut(ctx context.Context, id string) error {
	defer d.Issue(id)()
	t, err := d.store.Load(ctx, id)
	if err != nil || (t.Event.Status != event.Running && !t.Event.Status.PlayOver()) {
		return err
	}
	if err := d.removeAgain(ctx, id); err != nil {
		return err
	}
	ens, err := d.store.Entries(ctx, id)
	if err != nil {
		return err
	}
	out := map[string]entry.Entry{}
	for _, en := range ens {
		if en.Status != entry.Active && en.Status != entry.Paying {
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
			ask := removingRecord{Player: s.Player, Table: l.Table, TableID: l.TableID, Key: key, Expelled: expelled[s.Player], Rule: "TR-34"}
			if err := d.noteRemoving(ctx, id, removalName(en), ask); err != nil {
				return err
			}
			removed, chips, err := d.tables.RemoveOut(ctx, l.TableID, key, s.Player, expelled[s.Player])
			if r := Refusal(err); r == "NOT_SEATED" || r == "MOVE_IN_PROGRESS" {
				continue // gone already, or on the move: the next pass
			}
			if err != nil {
				return err
			}
			if removed {
				if err := d.recordRemoved(ctx, id, removalName(en), s.Player, l.Table, expelled[s.Player], chips); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// noteRemoving records once, before the table is asked, that a removal
// named name is asked for (removingAction).
func (d *Director) noteRemoving(ctx context.Context, id, name string, ask removingRecord) error {
	action := removingAction + name
	now := d.now()
	return d.store.Update(ctx, id, func(tx *store.Tx, _ *store.Tournament) error {
		if done, err := tx.CountAudit(action); err != nil || done > 0 {
			return err
		}
		return tx.AddAudit(Actor, action, ask, now)
	})
}

// removeAgain asks the tables again for each removal asked for whose
// chips were never recorded, with the key it was asked with: a table that
// made it answers with the chips it removed; one whose hand still holds
// the player removes them when it ends (HandleHandEnded records it then).
func (d *Director) removeAgain(ctx context.Context, id string) error {
	audit, err := d.store.Audit(ctx, id)
	if err != nil {
		return err
	}
	asked, done := map[string]removingRecord{}, map[string]bool{}
	var names []string
	for _, a := range audit {
		switch {
		case strings.HasPrefix(a.Action, removedAction):
			done[strings.TrimPrefix(a.Action, removedAction)] = true
		case strings.HasPrefix(a.Action, removingAction):
			var r removingRecord
			if err := jsonUnmarshal(a.Detail, &r); err != nil {
				return err
			}
			name := strings.TrimPrefix(a.Action, removingAction)
			asked[name] = r
			names = append(names, name)
		}
	}
	for _, name := range names {
		r := asked[name]
		if done[name] {
			continue
		}
		removed, chips, err := d.tables.RemoveOut(ctx, r.TableID, r.Key, r.Player, r.Expelled)
		if rf := Refusal(err); rf == "NOT_SEATED" || rf == "MOVE_IN_PROGRESS" || rf == "TABLE_CLOSED" {
			// Never made there (the player sits elsewhere, where the seats
			// are looked at next), or on the move: a later pass.
			continue
		}
		if err != nil {
			return err
		}
		if removed {
			if err := d.recordRemoved(ctx, id, name, r.Player, r.Table, r.Expelled, chips); err != nil {
				return err
			}
		}
	}
	return nil
}

// recordRemoved records once the chips a player taken out of play (TR-34)
// left the tables with — none too, which settles the removal asked for:
// the chips counted at the tables are the chips issued less these. name
// is the removal's (removalName).
func (d *Director) recordRemoved(ctx context.Context, id, name, player string, table int, expelled bool, chips int64) error {
	if chips < 0 {
		return nil
	}
	action := removedAction + name
	now := d.now()
	return d.store.Update(ctx, id, func(tx *store.Tx, _ *store.Tournament) error {
		if done, err := tx.CountAudit(action); err != nil || done > 0 {
			return err
		}
		rec := removedRecord{Player: player, Table: table, Rule: "TR-34", Expelled: expelled, Chips: chips}
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
