package director

import (
	"context"
	"slices"
	"strconv"

	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// Hand-for-hand at the bubble (G-26, house default G-39): when the players
// left are one more than the places paid and they sit at more than one
// table, the director starts hand-for-hand by itself — every table
// finishes the hand it is playing and waits, then the tables deal
// together, one hand a round — and stops it at the end of the round that
// leaves no more players than places paid (the bubble burst), or when one
// table is left. It starts it once per event: a floor that stops it at the
// bubble (SetHandForHand) is not overruled. Players out in one round are
// placed together by the books (TR-37). Satellites, whose places are seats
// won, are left to the floor. While registration is open (late
// registration, G-23) there is no bubble: the places paid still grow.

// Audit actions of the director's hand-for-hand.
const (
	auditHandForHandOn  = "hand_for_hand_on"
	auditHandForHandOff = "hand_for_hand_off"
)

// bubbleRecord is the audit's record of a start or a stop.
type bubbleRecord struct {
	PlayersLeft int    `json:"players_left"`
	PlacesPaid  int    `json:"places_paid"`
	Tables      []int  `json:"tables"`
	Rule        string `json:"rule_id"`
}

// placesPaid is the places the payout structure pays for the event's
// field as it stands (TR-36); 0 for a satellite.
func placesPaid(tx *store.Tx, t *store.Tournament) (int, error) {
	if t.Event.Format == event.Satellite {
		return 0, nil
	}
	pool, entrants, err := tx.Contributions()
	if err != nil {
		return 0, err
	}
	return len(t.Rules.Payouts.Prizes(entrants, t.Rules.PrizePool(pool, entrants))), nil
}

// mostPaid is the most places any tier of the structure pays: the bubble
// is never above it, so a hand with more players left needs no look at
// the field.
func mostPaid(t store.Tournament) int {
	n := 0
	for _, tier := range t.Rules.Payouts.Tiers {
		n = max(n, len(tier.Shares))
	}
	return n
}

// handForHand keeps the tables in step near the money once the hand at
// h's table has been handled (G-26, G-39). stood are the sizes the field
// stood at, between hands, before h's own knock-outs (fieldBefore). It
// reports whether it took charge of the table's next hand: hand-for-hand
// is on, so the table waits for the round or the tables deal together.
// Otherwise the caller lets the table deal its next hand as usual.
func (d *Director) handForHand(ctx context.Context, id string, h Hand, stood []int) (bool, error) {
	t, err := d.store.Load(ctx, id)
	if err != nil || t.Event.Status != event.Running {
		return false, err
	}
	f, err := d.field(ctx, t)
	if err != nil {
		return false, err
	}
	if !t.HandForHand.Active {
		if len(f.nums) < 2 || f.players > mostPaid(t)+1 {
			return false, nil
		}
		return d.startHandForHand(ctx, id, h.Table, f.players, stood, f.nums, f.idle)
	}
	r, err := d.judgeRound(ctx, id, &h, f)
	switch {
	case err != nil:
		return false, err
	case !r.active:
		return false, nil
	case r.over:
		return true, d.release(ctx, id)
	case r.waits:
		return true, nil // G-26: it waits for the other tables' hands
	}
	// The table's hand did not count for the round (it ended before the
	// round started, or the table joined since): it plays its round hand.
	// A table broken in this hand's handling plays none.
	if err := d.tables.Hold(ctx, h.TableID, HoldLockstep, HoldFloor, h.No+1); err != nil && Refusal(err) != "TABLE_CLOSED" {
		return true, err
	}
	return true, nil
}

// roundField is the field as the kept seating has it between hands: the
// players in play, the tables' numbers and the tables that cannot deal
// (one player, or halted short, G-25).
type roundField struct {
	players int
	nums    []int
	idle    []string
}

// field brings the tournament's kept seating up to date and reads the
// field from it.
func (d *Director) field(ctx context.Context, t store.Tournament) (roundField, error) {
	k := d.kept(t.Event.ID)
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.sync(d.fromStore(ctx, t.Event.ID), t.Rules.SeatsPerTable); err != nil {
		return roundField{}, err
	}
	plan := k.s.Plan()
	f := roundField{players: k.s.Players(), nums: slices.Clone(k.s.nums)}
	for _, tb := range plan {
		if Idle(plan, tb.ID) {
			f.idle = append(f.idle, tb.ID)
		}
	}
	return f, nil
}

// judged is what judgeRound found: whether hand-for-hand is on, whether
// the hand's table waits for the round, and whether the round is over.
type judged struct {
	active, waits, over bool
}

// judgeRound brings the books' hand-for-hand round up to date with the
// tables (G-26) after the hand h was handled, or, with h nil, when no
// hand ends (the recovery pass): a broken table leaves the round, a table
// opened since (a final table) joins it, and a table that cannot deal
// counts as done with it — it plays no round hand, and waiting for it
// would stop every table. When the round is over, every table waits to be
// let deal (Release), the books place the round's knock-outs together
// (TR-37, Deps.Round), and the round that leaves no more players than
// places paid, or one table, stops hand-for-hand (G-39).
//
// Without h, it is what ends a round once the clock's knock-outs (G-42)
// or the floor's left a table of the round unable to deal while every
// other table waits: no hand ends any more to judge it (seen in the rebuy
// event: hand-for-hand on for good with fewer players left than places
// paid).
func (d *Director) judgeRound(ctx context.Context, id string, h *Hand, f roundField) (judged, error) {
	ids := make([]string, len(f.nums))
	for i, n := range f.nums {
		ids[i] = strconv.Itoa(n)
	}
	var r judged
	now := d.now()
	err := d.round(ctx, id, func(tx *store.Tx, cur *store.Tournament) (bool, error) {
		hf := &cur.HandForHand
		r = judged{active: hf.Active}
		if !r.active {
			return false, nil // the floor stopped it meanwhile and dealt the tables together
		}
		r.over = hf.Follow(ids)
		idle := f.idle
		if h != nil {
			table := strconv.Itoa(h.Table)
			r.waits = slices.Contains(hf.Done, table)
			if !r.waits && hf.Before(h.End) && hf.Round == 1 && slices.Contains(hf.Tables, table) {
				// Between hands at the start, its last hand handled only
				// now: it has finished its hand and waits for the others'
				// to end (G-39), done with the first round as a table idle
				// at the start is. Playing a round hand now would deal
				// while hands begun before the start are still played
				// (seen in the rebuy event).
				idle, r.waits = append(slices.Clone(idle), table), true
			}
			// The books reset Done when this hand completed the round; a
			// hand that ended before hand-for-hand started was counted in
			// none (G-26), so an empty Done says nothing of it. Nor does
			// it for a table broken in this hand's handling: the books
			// took it out of the round and out of Done, which then holds
			// no table that has played; unless that completed the round
			// (Release), the others still play theirs (seen in the rebuy
			// event: every table let deal before its round hand was
			// handled).
			r.over = r.over || (len(hf.Done) == 0 && !hf.Before(h.End) && (slices.Contains(hf.Tables, table) || len(hf.Release) > 0))
		}
		next, err := hf.PlayNone(idle)
		if err != nil {
			return false, err
		}
		if r.over = r.over || next; !r.over {
			return false, nil
		}
		hf.Release = slices.Clone(hf.Tables)
		paid, err := placesPaid(tx, cur)
		if err != nil {
			return false, err
		}
		if len(f.nums) > 1 && (paid == 0 || f.players > paid) {
			return true, nil
		}
		// The bubble burst (or one table is left): play goes on at each
		// table's own pace.
		hf.StopAfterRound()
		return true, tx.AddAudit(Actor, auditHandForHandOff, bubbleRecord{PlayersLeft: f.players, PlacesPaid: paid, Tables: f.nums, Rule: "G-39"}, now)
	})
	return r, err
}

// fieldBefore brings the tournament's kept seating up to date at the
// start of the handling of a hand at table and returns the sizes the
// field stood at, between hands, before the hand's own knock-outs: as
// the seating last had it (players the recovery pass knocked out once
// they could no longer rebuy, G-42, or whose hand's handling failed
// after the books recorded it), and after every knock-out the books have
// made since but the hand's own players at table (a player held for a
// rebuy at a table that can no longer deal, knocked out by this hand's
// report and placed below its players, G-42). The hand that ended with
// the field there was in play when it stood on the bubble, so it is the
// first round's hand (G-39). Nil when the seating was not kept yet, or
// no bubble is to come (hand-for-hand on, a satellite, play over).
func (d *Director) fieldBefore(ctx context.Context, t store.Tournament, table int) []int {
	if t.Event.Status != event.Running || t.HandForHand.Active || t.Event.Format == event.Satellite {
		return nil
	}
	k := d.kept(t.Event.ID)
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.s == nil {
		return nil
	}
	before := k.s.Players()
	var own []string
	if i, ok := slices.BinarySearch(k.s.nums, table); ok {
		for _, p := range k.s.tables[i].Seats {
			own = append(own, p)
		}
	}
	if err := k.sync(d.fromStore(ctx, t.Event.ID), t.Rules.SeatsPerTable); err != nil {
		return nil // the handling reads the seating again and fails there
	}
	out := 0
	for _, p := range own {
		if !k.s.Seated(p) {
			out++
		}
	}
	return []int{before, k.s.Players() + out}
}

// passBubble notes that the tournament's field passed the bubble without
// hand-for-hand; it reports whether that is news to this process, so it
// is logged once.
func (d *Director) passBubble(id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.passed[id] {
		return false
	}
	d.passed[id] = true
	return true
}

// startHandForHand starts hand-for-hand when the players left are one
// more than the places paid (G-39), or the field stood there between hands
// before the current hand's own knock-outs (stood): the tables between
// hands are stopped there and, with the tables that cannot deal (idle),
// count as done with the first round; the tables in a hand finish it; when
// none is in a hand they deal together at once, and the round that leaves
// no more players than places paid stops it. A field that went from more
// than paid+1 to paid or fewer in one hand (TR-37 places those out) passed
// the bubble with no hand to play there: it is logged once, and nothing
// starts. It reports whether it started.
func (d *Director) startHandForHand(ctx context.Context, id string, current, players int, stood []int, nums []int, idle []string) (bool, error) {
	due, before, paid := false, 0, 0
	err := d.store.Update(ctx, id, func(tx *store.Tx, cur *store.Tournament) error {
		due, before, paid = false, 0, 0
		if cur.HandForHand.Active || cur.Event.Status != event.Running {
			return nil
		}
		if entry.RegistrationOpen(cur.Event, cur.Rules.Entry, d.now()) == nil {
			// Entries still come in (G-23): the places paid are not
			// settled, and a player out may enter again.
			return nil
		}
		var err error
		if paid, err = placesPaid(tx, cur); err != nil || paid == 0 || players > paid+1 {
			return err
		}
		if before, err = tx.CountAudit(auditHandForHandOn); err != nil {
			return err
		}
		due = before == 0 && (players == paid+1 || slices.Contains(stood, paid+1))
		return nil
	})
	if err != nil {
		return false, err
	}
	if !due {
		if before == 0 && paid > 0 && players <= paid && d.passBubble(id) {
			// Two or more players went out in one hand from paid+2 or more
			// (TR-37 places them): no bubble hand is left to play.
			d.log.InfoContext(ctx, "director: no hand-for-hand: the field never stood at one more than the places paid", "tournament", id,
				"players_left", players, "places_paid", paid, "rule_id", "G-39")
		}
		return false, nil
	}
	tableIDs, err := d.tableIDs(ctx, id)
	if err != nil {
		return false, err
	}
	// Each table between hands is stopped at its last hand, then read
	// again: one that started a hand meanwhile finishes it as its first
	// round hand.
	held := map[int]int64{}
	for _, n := range nums {
		st, err := d.tables.Status(ctx, tableIDs[n])
		if err != nil {
			return false, err
		}
		if st.Closed || st.InHand {
			continue
		}
		// A table whose last hand the director has not handled yet (its
		// lockstep hold still at that hand) is not done with the round:
		// let go now, it would deal before its busted were taken off and
		// its balancing made. That hand's handling lets it play its round
		// hand (the hand ended before the start is no round's, G-26).
		handled := n == current || st.Holds[HoldLockstep] == 0 || st.Holds[HoldLockstep] > st.HandNo
		if err := d.tables.Hold(ctx, tableIDs[n], HoldLockstep, HoldFloor, st.HandNo); err != nil {
			return false, err
		}
		held[n] = st.HandNo
		if st, err = d.tables.Status(ctx, tableIDs[n]); err != nil {
			return false, err
		}
		if !st.InHand && handled && !slices.Contains(idle, strconv.Itoa(n)) {
			idle = append(idle, strconv.Itoa(n))
		}
	}
	now := d.now()
	started, together := false, false
	err = d.store.Update(ctx, id, func(tx *store.Tx, cur *store.Tournament) error {
		started, together = false, false
		if cur.HandForHand.Active || cur.Event.Status != event.Running {
			return nil
		}
		paid, err := placesPaid(tx, cur)
		if err != nil {
			return err
		}
		var ids []string
		for _, n := range nums {
			ids = append(ids, strconv.Itoa(n))
		}
		cur.HandForHand.Start(ids)
		cur.HandForHand.Since = now
		if together, err = cur.HandForHand.PlayNone(idle); err != nil {
			return err
		}
		started = true
		// The players left when the field stood on the bubble.
		return tx.AddAudit(Actor, auditHandForHandOn, bubbleRecord{PlayersLeft: paid + 1, PlacesPaid: paid, Tables: nums, Rule: "G-39"}, now)
	})
	if err != nil || !started {
		// Not started after all: the tables stopped go on.
		for n, no := range held {
			if herr := d.tables.Hold(ctx, tableIDs[n], HoldLockstep, HoldFloor, no+1); herr != nil && err == nil {
				err = herr
			}
		}
		return false, err
	}
	d.log.InfoContext(ctx, "director: hand-for-hand at the bubble", "tournament", id, "players_left", paid+1, "players_in_play", players,
		"tables", len(nums))
	if together {
		return true, d.release(ctx, id)
	}
	return true, nil
}
