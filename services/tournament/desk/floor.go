package desk

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/cardroom/cardroom/services/tournament/balance"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/standings"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// Round is where hand-for-hand stands after a floor's call (G-26): the
// state, the places given by a round that ended (TR-37), whether the
// round ended (Next) and whether the event's play is over.
type Round struct {
	HandForHand balance.HandForHand
	Finishes    []standings.Finish
	Next        bool
	Finished    bool
}

// SetHandForHand starts hand-for-hand over the tables with players, or
// stops it (G-26), placing knock-outs still waiting for their round.
func (d *Desk) SetHandForHand(ctx context.Context, id string, on bool) (Round, error) {
	var res Round
	err := d.book(ctx, id, func(tx *store.Tx, t *store.Tournament, price int64, now time.Time) (pays []entry.Payment, err error) {
		res = Round{}
		if t.Event.Status != event.Running {
			return nil, ErrNotRunning
		}
		if !on {
			if res.Finishes, pays, err = placePending(tx, t, price, now); err != nil {
				return nil, err
			}
			t.HandForHand.Stop()
		} else {
			ens, err := tx.Entries()
			if err != nil {
				return nil, err
			}
			var ids []string
			for _, n := range slices.Sorted(maps.Keys(tables(ens, t.Rules.SeatsPerTable, nil))) {
				ids = append(ids, strconv.Itoa(n))
			}
			t.HandForHand.Start(ids)
			t.HandForHand.Since = now
		}
		res.HandForHand = t.HandForHand
		return pays, nil
	})
	if err != nil {
		return Round{}, err
	}
	if !on {
		// The tables waiting for the round deal again (G-26); those it
		// cannot reach now are let go by the director's recovery pass.
		d.drive(ctx, "hand-for-hand off", id, func(ctx context.Context, id string) error { return d.director.EndHandForHand(ctx, id) })
	}
	return res, nil
}

// ReportHandEnded records a table's hand-for-hand hand (G-26); the last
// table's report ends the round and places its knock-outs (TR-37).
func (d *Desk) ReportHandEnded(ctx context.Context, id string, table int) (Round, error) {
	var res Round
	err := d.book(ctx, id, func(tx *store.Tx, t *store.Tournament, price int64, now time.Time) ([]entry.Payment, error) {
		next, fs, pays, err := handEnded(tx, t, table, price, now)
		if err != nil {
			return nil, err
		}
		res = Round{HandForHand: t.HandForHand, Finishes: fs, Next: next, Finished: t.Event.Status.PlayOver()}
		return pays, nil
	})
	if err != nil {
		return Round{}, err
	}
	return res, nil
}

// handEnded records that a table finished its hand-for-hand hand (G-26);
// when it was the round's last table, the round's knock-outs are placed
// (TR-37). ReportHandEnded (the floor) and the table.hand_ended consumer
// (the tables) both end a table's hand through it.
func handEnded(tx *store.Tx, t *store.Tournament, table int, price int64, now time.Time) (next bool, fs []standings.Finish, pays []entry.Payment, err error) {
	next, err = t.HandForHand.HandEnded(strconv.Itoa(table))
	if err != nil || !next {
		return next, nil, nil, err
	}
	fs, pays, err = placePending(tx, t, price, now)
	return next, fs, pays, err
}

// BookRound runs the director's change to the hand-for-hand round in the
// books (director.Deps.Round): the director counts the tables that cannot
// deal as done with the round, takes broken tables out of it and judges
// whether it is over and the bubble burst (G-26, G-39). When the change
// reports the round over, its knock-outs are placed together in the same
// transaction (TR-37) — the books place them at a table's round hand
// (handEnded), but a round ended by a table that cannot deal has no such
// hand — and the prizes are paid when that ends the event.
func (d *Desk) BookRound(ctx context.Context, id string, change func(*store.Tx, *store.Tournament) (over bool, err error)) error {
	return d.book(ctx, id, func(tx *store.Tx, t *store.Tournament, price int64, now time.Time) ([]entry.Payment, error) {
		over, err := change(tx, t)
		if err != nil || !over {
			return nil, err
		}
		_, pays, err := placePending(tx, t, price, now)
		return pays, err
	})
}

// UpdatePayouts replaces the payout structure until the start (TR-36),
// audited as by's.
func (d *Desk) UpdatePayouts(ctx context.Context, id string, structure standings.Structure, by string) (store.Tournament, error) {
	if err := structure.Validate(); err != nil {
		return store.Tournament{}, err
	}
	now := d.now()
	var out store.Tournament
	err := d.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		if err := standings.CheckChange(t.Event, now); err != nil {
			return err
		}
		detail := map[string]any{"from": t.Rules.Payouts, "to": structure}
		t.Rules.Payouts = structure
		out = *t
		return tx.AddAudit(by, "update_payouts", detail, now)
	})
	return out, err
}

// ClaimSeat checks the person at an entry's seat (TR-05). A forfeit is
// recorded even though the call reports the refusal.
func (d *Desk) ClaimSeat(ctx context.Context, id, player, presenter string, forfeit bool) (entry.Entry, error) {
	var claimErr error
	var en entry.Entry
	err := d.store.Update(ctx, id, func(tx *store.Tx, _ *store.Tournament) error {
		cur, err := tx.Entry(player)
		if err != nil {
			return err
		}
		if cur == nil {
			return entry.ErrNotRegistered.Withf("%s has no entry", player)
		}
		en = *cur
		claimErr = entry.Claim(&en, presenter, forfeit)
		if en.Status == entry.Forfeited {
			en.Table, en.Seat = 0, 0
			return tx.PutEntry(en)
		}
		return nil
	})
	if err != nil {
		return entry.Entry{}, err
	}
	if claimErr != nil {
		return entry.Entry{}, claimErr
	}
	return en, nil
}

// Dodged is a player's dodged blinds (TR-24): their stack, the blinds and
// which of them they missed.
type Dodged struct {
	Stack, SmallBlind, BigBlind int64
	MissedSmall, MissedBig      bool
}

// ConfiscateBlinds settles dodged blinds (TR-24) and logs the decision;
// it returns the player's stack after and the dead money.
func (d *Desk) ConfiscateBlinds(ctx context.Context, id, player string, b Dodged) (stack, dead int64, err error) {
	now := d.now()
	err = d.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		if t.Event.Status != event.Running {
			return ErrNotRunning
		}
		en, err := tx.Entry(player)
		if err != nil {
			return err
		}
		if en == nil || en.Status != entry.Active {
			return entry.ErrEntryNotActive.Withf("%s is not in play", player)
		}
		stack, dead = balance.DodgedBlinds(b.Stack, b.SmallBlind, b.BigBlind, b.MissedSmall, b.MissedBig)
		return tx.AddDraw("confiscation", map[string]any{"player_id": en.PlayerID, "table": en.Table, "seat": en.Seat,
			"stack": stack, "dead_money": dead, "rule_id": "TR-24"}, now)
	})
	if err != nil {
		return 0, 0, err
	}
	return stack, dead, nil
}

// Draws returns the event's draw log.
func (d *Desk) Draws(ctx context.Context, id string) ([]store.Draw, error) {
	if _, err := d.store.Load(ctx, id); err != nil {
		return nil, err
	}
	return d.store.Draws(ctx, id)
}
