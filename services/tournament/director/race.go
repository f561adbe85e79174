package director

import (
	"context"
	"fmt"
	"strings"

	"github.com/cardroom/cardroom/services/tournament/chiprace"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/levels"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// raceAction is the audit action recording one table's chip race at one
// break: "chip_race/<table>/<level>", so that a race is decided once.
const raceAction = "chip_race/"

// raceRecord is a table's chip race as the audit records it.
type raceRecord struct {
	Table int               `json:"table"`
	Level int               `json:"level"`
	Rule  string            `json:"rule_id"`
	Seats []chiprace.Result `json:"seats"`
	// Before is each player's stack the race was computed from.
	Before map[string]int64 `json:"before"`
	// Delta is the chips the race added in all (negative: removed).
	Delta int64 `json:"delta"`
}

// Into returns the denomination a colour-up break's chips are raced into:
// the lowest chip the levels after it still need (the greatest common
// divisor of their blinds and antes), at least the next multiple of the
// raced chip; 0 when the sheet has no colour-up at index i.
func Into(sheet levels.Sheet, i int) int64 {
	removed := sheet.Levels[i].ColorUp
	if removed <= 0 {
		return 0
	}
	var g int64
	for _, l := range sheet.Levels[i+1:] {
		for _, v := range []int64{l.SmallBlind, l.BigBlind, l.Ante} {
			if v > 0 {
				g = gcd(g, v)
			}
		}
	}
	if g <= removed || g%removed != 0 {
		return 0
	}
	return g
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Race applies the colour-up chip race (TR-22, G-08) at every table of a
// running tournament that is between hands while a colour-up break is in
// force. Each table's race is drawn once and recorded in the audit before
// the stacks change (AdjustStack keyed trn/<event>/race/<level>/<player>
// with the stack it was computed from), so a repeat applies the same
// result.
func (d *Director) Race(ctx context.Context, id string) error {
	t, err := d.store.Load(ctx, id)
	if err != nil {
		return err
	}
	return d.raceAll(ctx, t)
}

// raceAll is Race on a loaded tournament.
func (d *Director) raceAll(ctx context.Context, t store.Tournament) error {
	id := t.Event.ID
	if t.Event.Status != event.Running || !t.Clock.PausedAt.IsZero() || t.Clock.Started.IsZero() {
		return nil
	}
	pos := t.Clock.At(d.now())
	into := Into(t.Clock.Sheet, pos.Index)
	if !pos.Level.Break || pos.Overtime || into == 0 {
		return nil
	}
	links, err := d.store.Tables(ctx, id)
	if err != nil {
		return err
	}
	for _, l := range links {
		if err := d.raceAt(ctx, t, l.Table, l.TableID, pos.Index+1, pos.Level.ColorUp, into); err != nil {
			return fmt.Errorf("chip race at table %d: %w", l.Table, err)
		}
	}
	return nil
}

func (d *Director) raceAt(ctx context.Context, t store.Tournament, n int, tableID string, level int, removed, into int64) error {
	id := t.Event.ID
	st, err := d.tables.Status(ctx, tableID)
	if err != nil || st.Closed || st.InHand {
		return err
	}
	action := fmt.Sprintf("%s%d/%d", raceAction, n, level)
	race := chiprace.Race{Removed: removed, Into: into, Lowest: into}
	before := map[string]int64{}
	for _, s := range st.Seats {
		race.Players = append(race.Players, chiprace.Player{Seat: s.Seat, PlayerID: s.Player, Stack: s.Stack, Chips: s.Stack % into / removed})
		before[s.Player] = s.Stack
	}
	now := d.now()
	err = d.store.Update(ctx, id, func(tx *store.Tx, _ *store.Tournament) error {
		if done, err := tx.CountAudit(action); err != nil || done > 0 {
			return err
		}
		res, err := chiprace.Run(race, d.random)
		if err != nil {
			return err
		}
		rec := raceRecord{Table: n, Level: level, Rule: "TR-22", Seats: res, Before: before}
		for _, r := range res {
			rec.Delta += r.Stack - before[r.PlayerID]
		}
		return tx.AddAudit(Actor, action, rec, now)
	})
	if err != nil {
		return err
	}
	rec, err := d.race(ctx, id, action)
	if err != nil {
		return err
	}
	for _, r := range rec.Seats {
		amount := r.Stack - rec.Before[r.PlayerID]
		if amount == 0 {
			continue
		}
		key := fmt.Sprintf("trn/%s/race/%d/%s", id, level, r.PlayerID)
		if err := d.tables.RaceChips(ctx, tableID, key, r.PlayerID, amount, rec.Before[r.PlayerID]); err != nil {
			return err
		}
	}
	return nil
}

// race returns the recorded race of an audit action.
func (d *Director) race(ctx context.Context, id, action string) (raceRecord, error) {
	recs, err := d.races(ctx, id)
	for _, r := range recs {
		if fmt.Sprintf("%s%d/%d", raceAction, r.Table, r.Level) == action {
			return r, err
		}
	}
	return raceRecord{}, fmt.Errorf("race %s of %s not recorded: %w", action, id, err)
}

// races returns every chip race the tournament recorded.
func (d *Director) races(ctx context.Context, id string) ([]raceRecord, error) {
	audit, err := d.store.Audit(ctx, id)
	if err != nil {
		return nil, err
	}
	var out []raceRecord
	for _, a := range audit {
		if !strings.HasPrefix(a.Action, raceAction) {
			continue
		}
		var r raceRecord
		if err := jsonUnmarshal(a.Detail, &r); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}
