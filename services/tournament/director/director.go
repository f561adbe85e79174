// Package director is the tournament's application layer: it drives the
// tournament's tables at the table service (the Tables port) from the
// stored event and the tables' reports. It opens the tables of the seat
// draw and seats the entrants (TR-06, TR-08), places the drawn buttons
// (TR-07, G-28), gives the tables the level schedule (TR-20, G-07), and
// after every table.hand_ended removes the busted, balances and breaks
// tables (TR-23, G-25) and checks that chips are conserved.
//
// Every decision is stored before it is carried out and every control is
// idempotent (keys derived from the decision: trn/<event>/move/<n>), so a
// crash at any point is finished by repeating the step: Recover finishes
// the moves left half done.
//
// Tables deal in lockstep with the director: a hold "director" lets each
// table deal only the hand after the last one the director has handled,
// so moves happen between hands with the player the table's own report
// names as due the big blind (TR-23).
package director

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"math/rand/v2"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/telemetry"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/tournament/balance"
	"github.com/cardroom/cardroom/services/tournament/draw"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// Hold ids the director sets at its tables.
const (
	// HoldLockstep lets a table deal only up to the hand after the last one
	// the director handled.
	HoldLockstep = "director"
	// HoldShort halts a short table until balanced (G-25).
	HoldShort = "balancing"
	// HoldClock stops play while the clock is paused.
	HoldClock = "clock"
)

// Actor is the audit's name for the director's own decisions.
const Actor = "director"

// Director drives one process's tournaments' tables.
type Director struct {
	store  *store.Store
	tables Tables
	clock  clock.Clock
	random rand.Source
	log    *slog.Logger
	// record applies a hand to the event's books (knock-outs, places,
	// hand-for-hand rounds) before the director acts on the tables.
	record func(context.Context, events.Event) error
	// bagged moves a bagged flight's prize pool to its Day 2 (the step
	// is recorded; the server has the wallet make it).
	bagged func(context.Context, string, entry.Payment) error
	// heldOut knocks out the players held for a rebuy at tables that
	// cannot deal once they may not rebuy any more (G-42).
	heldOut func(context.Context, string) (map[string]int, error)
	// round runs a change to the hand-for-hand round in the books
	// (Deps.Round).
	round func(ctx context.Context, id string, change func(*store.Tx, *store.Tournament) (over bool, err error)) error

	// mu guards mismatch, seatings, issuing, steps, failures, loaded,
	// shorts and passed.
	mu sync.Mutex
	// mismatch is each tournament's last chip count minus chips issued.
	mismatch map[string]int64
	// seatings is each tournament's seating kept between hands.
	seatings map[string]*kept
	// issuing orders, per tournament, the chip count after a hand and
	// the steps that issue chips (Issue).
	issuing map[string]*sync.Mutex
	// steps serialises each tournament's hand ends and recovery passes in
	// this process: a recovery pass must not let a final table deal, nor
	// redraw it again, while a hand's end is forming it.
	steps map[string]*sync.Mutex
	// failures are the steps failing (by tournament and step), loaded the
	// tournaments whose saved stuck steps were taken up (steps.go).
	failures map[string]*failure
	loaded   map[string]bool
	// shorts is, per tournament and table id, whether this process last
	// held the table short (G-25) or released it (halt).
	shorts map[string]map[string]bool
	// passed are the tournaments whose field passed the bubble in one
	// hand, without hand-for-hand (G-39), as logged.
	passed map[string]bool
}

// toldShort returns what this process last told table tableID of
// tournament id about its short hold; ok is false when it does not know.
func (d *Director) toldShort(id, tableID string) (held, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	held, ok = d.shorts[id][tableID]
	return held, ok
}

// tellShort notes that the table was told held (or released).
func (d *Director) tellShort(id, tableID string, held bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.shorts[id] == nil {
		d.shorts[id] = map[string]bool{}
	}
	d.shorts[id][tableID] = held
}

// keepShorts forgets the tables not in the seating (nums) any more.
func (d *Director) keepShorts(id string, nums []int, tableIDs map[int]string) {
	in := make(map[string]bool, len(nums))
	for _, n := range nums {
		in[tableIDs[n]] = true
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	maps.DeleteFunc(d.shorts[id], func(tableID string, _ bool) bool { return !in[tableID] })
}

// forgetShorts forgets what tournament id's tables were told.
func (d *Director) forgetShorts(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.shorts, id)
}

// Issue is held while chips are issued in the books and put on the
// tables — a rebuy or add-on paid and its chips added (TR-14, TR-17), a
// late entry paid and seated (G-23) — and by the chip count after each
// hand, so the count never falls between the two steps and reports
// chips in flight as missing. It returns the release.
func (d *Director) Issue(id string) (release func()) {
	d.mu.Lock()
	m, ok := d.issuing[id]
	if !ok {
		m = &sync.Mutex{}
		d.issuing[id] = m
	}
	d.mu.Unlock()
	m.Lock()
	return m.Unlock
}

// Deps is what a Director needs.
type Deps struct {
	Store  *store.Store
	Tables Tables
	Clock  clock.Clock
	// Random draws seats when a table breaks (TR-06); it must be safe for
	// concurrent use.
	Random rand.Source
	Logger *slog.Logger
	// Record applies a table.hand_ended to the event's books first
	// (desk.Desk: knock-outs placed by TR-37).
	Record func(context.Context, events.Event) error
	// Bagged makes the recorded wallet step that moves a bagged flight's
	// prize pool to its Day 2 (issue 13); nil leaves it pending.
	Bagged func(ctx context.Context, flightID string, pay entry.Payment) error
	// KnockOutHeld has the books knock out the players held while they
	// might rebuy (TR-13) at tables that cannot deal, once they may not
	// rebuy any more (desk.Desk.KnockOutHeld, G-42), and returns them with
	// their tables' numbers; nil leaves them to a hand's end elsewhere.
	KnockOutHeld func(ctx context.Context, id string) (map[string]int, error)
	// Round runs the director's change to the hand-for-hand round in the
	// books (desk.Desk.BookRound, required): when the change reports the
	// round over, the round's knock-outs are placed together in the same
	// transaction (TR-37), and the prizes paid when that ends the event.
	Round func(ctx context.Context, id string, change func(*store.Tx, *store.Tournament) (over bool, err error)) error
}

// New returns a Director.
func New(d Deps) *Director {
	log := d.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Director{store: d.Store, tables: d.Tables, clock: d.Clock, random: d.Random, log: log, record: d.Record, bagged: d.Bagged, heldOut: d.KnockOutHeld, round: d.Round,
		mismatch: map[string]int64{}, seatings: map[string]*kept{}, issuing: map[string]*sync.Mutex{},
		steps: map[string]*sync.Mutex{}, failures: map[string]*failure{}, loaded: map[string]bool{},
		shorts: map[string]map[string]bool{}, passed: map[string]bool{}}
}

// lock takes the tournament's step lock and returns its release.
func (d *Director) lock(id string) func() {
	d.mu.Lock()
	l, ok := d.steps[id]
	if !ok {
		l = &sync.Mutex{}
		d.steps[id] = l
	}
	d.mu.Unlock()
	l.Lock()
	return l.Unlock
}

func (d *Director) now() time.Time { return d.clock.Now().UTC().Truncate(time.Millisecond) }

// seatKey is the idempotency key of an entrant's first seat: one per
// entry (a registration after an unregistration, and a re-entry after a
// bust, G-23, get their own).
func seatKey(ev string, en entry.Entry) string {
	return fmt.Sprintf("trn/%s/seat/%s/%d-%d", ev, en.PlayerID, en.Withdrawals, en.Reentries)
}

// Start opens the tables of the seat draw, seats every active entrant at
// the drawn seat with the starting stack (TR-06, TR-08), places the drawn
// buttons (TR-07, G-28) and sends the level schedule (TR-20); then the
// tables deal. It is safe to repeat: a table that has dealt is left alone.
func (d *Director) Start(ctx context.Context, id string) error {
	defer d.lock(id)()
	return d.start(ctx, id)
}

// start is Start under the tournament's step lock.
func (d *Director) start(ctx context.Context, id string) error {
	t, err := d.store.Load(ctx, id)
	if err != nil {
		return err
	}
	if t.Event.Status != event.Running {
		return nil
	}
	ens, err := d.store.Entries(ctx, id)
	if err != nil {
		return err
	}
	buttons, err := d.buttons(ctx, id)
	if err != nil {
		return err
	}
	stacks, err := d.stacks(ctx, t)
	if err != nil {
		return err
	}
	byTable := map[int][]entry.Entry{}
	for _, en := range ens {
		if en.Status == entry.Active && en.Table > 0 {
			byTable[en.Table] = append(byTable[en.Table], en)
		}
	}
	// The tables attached already, read once (not once per table: the
	// recovery pass repeats this every RecoverInterval).
	attached, err := d.tableIDs(ctx, id)
	if err != nil {
		return err
	}
	for _, n := range slices.Sorted(maps.Keys(byTable)) {
		tableID, ok := attached[n]
		if !ok {
			if tableID, err = d.table(ctx, t, n); err != nil {
				return err
			}
		}
		st, err := d.tables.Status(ctx, tableID)
		if err != nil {
			return err
		}
		// A table that has dealt only takes its late entrants (G-23);
		// a fresh one is held while seated, then given its button and
		// schedule and let deal hand 1.
		fresh := st.HandNo == 0
		if fresh {
			if err := d.tables.Hold(ctx, tableID, HoldLockstep, HoldFloor, 0); err != nil {
				return err
			}
		}
		seated := map[string]bool{}
		for _, s := range st.Seats {
			seated[s.Player] = true
		}
		for _, en := range byTable[n] {
			if seated[en.PlayerID] {
				continue // the recovery pass sends no seat twice
			}
			stack := t.Event.StartingStack
			if stacks != nil {
				stack = stacks[en.PlayerID] // a Day 2 seats the bag carried (issue 13)
			}
			err := d.tables.Seat(ctx, tableID, seatKey(id, en), en.PlayerID, en.Seat, stack)
			if r := Refusal(err); r == "ENTRANT_SEATED_ELSEWHERE" || r == "IDEMPOTENCY_KEY_REUSED" {
				continue // seated before and moved since
			}
			if err != nil {
				return err
			}
		}
		if !fresh {
			continue
		}
		if err := d.ready(ctx, t, n, tableID, buttons); err != nil {
			return err
		}
	}
	return nil
}

// SeatLate seats a late entrant (G-23) — a late registration or a
// re-entry — at the seat the books drew, opening the table if it is new
// (TR-06, TR-08). What still holds the player or a drawn seat at the
// tables from before goes first: a re-entering player's own empty seat,
// and the empty seats of players the books have out that the books gave
// to others; the hand's handling removes both, but an entry may be paid
// before it has.
func (d *Director) SeatLate(ctx context.Context, id, player string) error {
	ens, err := d.store.Entries(ctx, id)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(ens, func(en entry.Entry) bool { return en.PlayerID == player })
	if i < 0 || ens[i].Status != entry.Active || ens[i].Table == 0 {
		return nil
	}
	en := ens[i]
	out := map[string]bool{}
	drawn := map[[2]int]bool{} // the seats the books give active entrants
	for _, o := range ens {
		out[o.PlayerID] = o.Status != entry.Active
		if o.Status == entry.Active {
			drawn[[2]int{o.Table, o.Seat}] = true
		}
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
		taken := map[int]bool{}
		for _, s := range st.Seats {
			mine := s.Player == player && en.Reentries > 0
			inTheWay := drawn[[2]int{l.Table, s.Seat}] && out[s.Player]
			if s.Stack > 0 || (!mine && !inTheWay) {
				taken[s.Seat] = s.Player != player
				continue
			}
			key := fmt.Sprintf("trn/%s/out/%s/%s/entry-%d", id, s.Player, l.TableID, en.Number())
			if err := d.tables.RemoveBusted(ctx, l.TableID, key, s.Player); err != nil && Refusal(err) != "NOT_SEATED" {
				return err
			}
		}
		if l.Table == en.Table && taken[en.Seat] {
			// The books freed the seat for a player moved away whom the
			// table still seats (in a hand, the move made after it): the
			// late entrant takes another seat free at both.
			if err := d.reseatLate(ctx, id, en, drawn, taken); err != nil {
				return err
			}
		}
	}
	// Not Start: the caller holds Issue, which a hand's end takes under the
	// step lock (countChips); taking the step lock here would invert them.
	return d.start(ctx, id)
}

// reseatLate gives a late entrant whose drawn seat the table still holds
// another seat at the same table, free in the books and at the table,
// and records it as the entrant's late seat (G-23).
func (d *Director) reseatLate(ctx context.Context, id string, en entry.Entry, drawn map[[2]int]bool, taken map[int]bool) error {
	now := d.now()
	return d.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		cur, err := tx.Entry(en.PlayerID)
		if err != nil || cur == nil || cur.Status != entry.Active || cur.Table != en.Table || cur.Seat != en.Seat {
			return err
		}
		for seat := 1; seat <= t.Rules.SeatsPerTable; seat++ {
			if drawn[[2]int{en.Table, seat}] || taken[seat] {
				continue
			}
			cur.Seat = seat
			if err := tx.PutEntry(*cur); err != nil {
				return err
			}
			return tx.AddDraw("late_seat", draw.Seat{PlayerID: cur.PlayerID, Table: cur.Table, Seat: seat}, now)
		}
		return nil // full at the table: the recovery pass seats the entrant once the seat frees
	})
}

// ready gives a fresh table, its players seated, the drawn button (TR-07,
// G-28) and the schedule (TR-20), then lets it deal hand 1.
func (d *Director) ready(ctx context.Context, t store.Tournament, n int, tableID string, buttons map[int]int) error {
	if b, ok := buttons[n]; ok {
		if err := d.tables.SetButton(ctx, tableID, fmt.Sprintf("trn/%s/button/%d/1", t.Event.ID, n), b); err != nil {
			return err
		}
	}
	rev, rows := Schedule(t)
	if err := d.tables.SetLevels(ctx, tableID, rev, rows); err != nil {
		return err
	}
	return d.tables.Hold(ctx, tableID, HoldLockstep, HoldFloor, 1)
}

// table returns the table service's table playing tournament table n,
// opening and attaching it the first time.
func (d *Director) table(ctx context.Context, t store.Tournament, n int) (string, error) {
	links, err := d.store.Tables(ctx, t.Event.ID)
	if err != nil {
		return "", err
	}
	for _, l := range links {
		if l.Table == n {
			return l.TableID, nil
		}
	}
	first := t.Rules.Sheet.Levels[0]
	for _, l := range t.Rules.Sheet.Levels {
		if !l.Break {
			first = l
			break
		}
	}
	tableID, err := d.tables.Open(ctx, OpenTable{Key: fmt.Sprintf("trn/%s/table/%d", t.Event.ID, n), TournamentID: t.Event.ID,
		Name: fmt.Sprintf("%s T%d", t.Event.Name, n), Game: t.Event.Game, Structure: t.Event.Structure, Seats: t.Rules.SeatsPerTable, Live: t.Rules.Live,
		SmallBlind: first.SmallBlind, BigBlind: first.BigBlind})
	if err != nil {
		return "", err
	}
	now := d.now()
	err = d.store.Update(ctx, t.Event.ID, func(tx *store.Tx, _ *store.Tournament) error {
		if err := tx.AttachTable(n, tableID, now); err != nil {
			return err
		}
		return tx.AddAudit(Actor, "open_table", map[string]any{"table": n, "table_id": tableID}, now)
	})
	return tableID, err
}

// buttons returns the drawn button seat of each table (TR-07), the last
// draw of a table winning.
func (d *Director) buttons(ctx context.Context, id string) (map[int]int, error) {
	draws, err := d.store.Draws(ctx, id)
	if err != nil {
		return nil, err
	}
	out := map[int]int{}
	for _, dr := range draws {
		if dr.Kind != "button" {
			continue
		}
		var b struct {
			Table  int `json:"table"`
			Winner int `json:"button_seat"`
		}
		if err := jsonUnmarshal(dr.Record, &b); err != nil {
			return nil, fmt.Errorf("button draw %d of %s: %w", dr.Seq, id, err)
		}
		out[b.Table] = b.Winner
	}
	return out, nil
}

// SyncLevels sends every table of a running tournament the schedule as
// the clock now stands (a pause retracts the rows to come, a resume sends
// them again, under a new revision) and holds play while the clock is
// paused.
func (d *Director) SyncLevels(ctx context.Context, id string) error {
	t, err := d.store.Load(ctx, id)
	if err != nil {
		return err
	}
	links, err := d.store.Tables(ctx, id)
	if err != nil {
		return err
	}
	rev, rows := Schedule(t)
	paused := !t.Clock.PausedAt.IsZero()
	var errs []error
	for _, l := range links {
		err := d.tables.SetLevels(ctx, l.TableID, rev, rows)
		if err == nil && paused {
			err = d.tables.Hold(ctx, l.TableID, HoldClock, HoldClockPaused, 0)
		} else if err == nil {
			err = d.tables.Release(ctx, l.TableID, HoldClock)
		}
		if Refusal(err) == "TABLE_CLOSED" {
			continue
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Mismatch returns the tournament's chips counted at its tables minus the
// chips issued, as of its last hand (0: conserved or not counted yet).
func (d *Director) Mismatch(id string) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.mismatch[id]
}

// HandleHandEnded is the table.hand_ended consumer: the hand goes to the
// event's books (Deps.Record), then the director acts on the tables. A
// table no tournament plays is ignored. An error leaves the event to be
// delivered again; every step repeats harmlessly.
//
// The books take a tournament table's hand under the tournament's step
// lock, so the director acts on each hand with the field as that hand and
// the hands handled before it left it, never with the knock-outs of a
// hand it has not handled yet. Recorded outside the lock, a hand ending at
// another table meanwhile knocked out its player too, and the director
// never saw the field one more than the places paid: it missed the
// bubble (G-39), seen in the rebuy event.
func (d *Director) HandleHandEnded(ctx context.Context, ev events.Event) error {
	var msg tablev1.HandEnded
	if err := proto.Unmarshal(ev.Payload, &msg); err != nil {
		return d.recordHand(ctx, ev) // the books' consumer logs it
	}
	link, ok, err := d.store.TableLink(ctx, msg.GetTableId())
	if err != nil {
		return err
	}
	if !ok {
		return d.recordHand(ctx, ev)
	}
	defer d.lock(link.TournamentID)()
	if err := d.recordHand(ctx, ev); err != nil {
		return err
	}
	h := Hand{TableID: msg.GetTableId(), Table: link.Table, No: msg.GetHandNo(), Stacks: map[string]int64{}}
	if msg.GetEndTime() != nil {
		h.End = msg.GetEndTime().AsTime()
	}
	var counts []store.Stack
	for _, st := range msg.GetStacks() {
		if !st.GetArriving() {
			// A seat held for a live arrival has no chips here yet: they
			// are in transit until the dealer confirms (TR-23).
			h.Stacks[st.GetPlayerId()] = st.GetStack() + st.GetPendingChips()
			counts = append(counts, store.Stack{PlayerID: st.GetPlayerId(), TableID: h.TableID, HandNo: h.No,
				Chips: st.GetStack() + st.GetPendingChips(), EndedAt: msg.GetEndTime().AsTime()})
		}
		// Out of chips in this hand, or held since while they might rebuy
		// (TR-13): the books have just said which of them are out.
		if (st.GetStack() == 0 && !st.GetArriving()) || slices.Contains(msg.GetBusted(), st.GetSeat()) {
			h.Busted = append(h.Busted, st.GetPlayerId())
		}
		if msg.NextBigBlind != nil && st.GetSeat() == msg.GetNextBigBlind() {
			h.DueBigBlind = st.GetPlayerId()
		}
	}
	// A player taken out of play (TR-34) during the hand left when it
	// ended: their chips left play with them.
	for _, rm := range msg.GetRemoved() {
		r := rm.GetReason()
		if r != tablev1.RemovalReason_REMOVAL_REASON_DISQUALIFIED && r != tablev1.RemovalReason_REMOVAL_REASON_EXPELLED {
			continue
		}
		en, _, err := d.store.Entry(ctx, link.TournamentID, rm.GetPlayerId())
		if err != nil {
			return err
		}
		err = d.recordRemoved(ctx, link.TournamentID, removalName(en), en.PlayerID, link.Table, r == tablev1.RemovalReason_REMOVAL_REASON_EXPELLED,
			rm.GetChipsRemoved())
		if err != nil {
			return err
		}
	}
	// The lobby's chip counts (issue 13): refreshed from every hand's
	// report before the moves it leads to, which carry these stacks.
	if err := d.store.SaveStacks(ctx, link.TournamentID, counts); err != nil {
		return err
	}
	return d.handEndedStep(ctx, link.TournamentID, h)
}

// recordHand applies a hand to the event's books (Deps.Record).
func (d *Director) recordHand(ctx context.Context, ev events.Event) error {
	if d.record == nil {
		return nil
	}
	return d.record(ctx, ev)
}

// Hand is one table's hand as the director needs it.
type Hand struct {
	TableID string
	// Table is the tournament's number of the table.
	Table int
	No    int64
	// Busted are the players left with no chips: out in this hand, or
	// held at the table since while they might rebuy (TR-13). Those the
	// books still have in play stay seated; the others are removed.
	Busted []string
	// DueBigBlind is the player due the big blind in the next hand as the
	// table's planner works it out under the dead button (TR-21); "" when
	// nobody is.
	DueBigBlind string
	// Stacks are the players' chips after the hand, by player: what a
	// player moved after it carries (the movement slip's stack).
	Stacks map[string]int64
	// End is when the hand ended (zero: not known).
	End time.Time
}

// HandEnded acts on a tournament's tables after a hand at one of them:
// the busted removed, moves finished, the tables balanced or one broken
// (TR-23, G-25), short tables halted, chips counted, and the table let
// deal its next hand. A table whose hand ends keep failing to be handled
// is backed off and reported stuck (steps.go).
func (d *Director) HandEnded(ctx context.Context, id string, h Hand) error {
	defer d.lock(id)()
	return d.handEndedStep(ctx, id, h)
}

// handEndedStep is HandEnded under the tournament's step lock.
func (d *Director) handEndedStep(ctx context.Context, id string, h Hand) error {
	step := handStep(h.Table)
	if d.waiting(id, step) {
		return fmt.Errorf("%s of %s: %w", step, id, ErrBackingOff)
	}
	err := d.handEnded(ctx, id, h)
	d.settle(ctx, id, StepHandEnd, step, err)
	return err
}

// handEnded is HandEnded's work, under the tournament's step lock.
func (d *Director) handEnded(ctx context.Context, id string, h Hand) error {
	t, err := d.store.Load(ctx, id)
	if err != nil {
		return err
	}
	if t.Event.Status != event.Running && !t.Event.Status.PlayOver() {
		return nil
	}
	// Read before anything here brings the kept seating up to date (G-39).
	stood := d.fieldBefore(ctx, t, h.Table)
	for _, p := range h.Busted {
		// One read per busted player, not the whole field (issue 10).
		en, _, err := d.store.Entry(ctx, id, p)
		if err != nil {
			return err
		}
		if en.Status == entry.Active {
			continue // may still rebuy (TR-13)
		}
		err = d.tables.RemoveBusted(ctx, h.TableID, fmt.Sprintf("trn/%s/out/%s/%s/%d", id, p, h.TableID, h.No), p)
		if r := Refusal(err); r == "NOT_SEATED" || r == "ENTRANT_HAS_CHIPS" || r == "TABLE_CLOSED" {
			// Gone already, or back with chips: re-entered (G-23) and seated
			// again since the hand ended; or the table closed since (a
			// redelivered hand end of a broken table).
			continue
		}
		if err != nil {
			return err
		}
	}
	// The busted leave first, and the players taken out of play (TR-34)
	// with their chips: a move recorded into one of their seats (the books
	// free a seat when its player is out) is refused until the table has
	// let them go.
	if d.holdsOut(ctx, t, h) {
		if err := d.removeOut(ctx, id); err != nil {
			return err
		}
	}
	if err := d.recoverMoves(ctx, id); err != nil {
		return err
	}
	if t.Event.Status == event.Running {
		if err := d.balance(ctx, t, h); err != nil {
			return err
		}
	}
	if err := d.raceAll(ctx, t); err != nil {
		return err
	}
	d.countChips(ctx, t)
	if t.Event.Status != event.Running {
		// The event's play is over: no recovery pass comes for it again, so
		// the tables it left are closed now — a broken table where a player
		// held for a rebuy was knocked out by a hand elsewhere (G-42) still
		// seats them until taken off.
		return d.closeLeft(ctx, id)
	}
	if t.Rules.Flight != nil {
		// A flight's day ends at its stop: the table deals no more hands
		// and the survivors' stacks are bagged once every table is idle.
		over, err := d.dayOver(ctx, t)
		if err != nil {
			return err
		}
		if over {
			return d.Bag(ctx, id)
		}
	}
	// Near the money the tables play hand-for-hand (G-26, G-39).
	if inStep, err := d.handForHand(ctx, id, h, stood); err != nil || inStep {
		return err
	}
	err = d.tables.Hold(ctx, h.TableID, HoldLockstep, HoldFloor, h.No+1)
	if Refusal(err) == "TABLE_CLOSED" {
		return nil
	}
	return err
}

// EndHandForHand lets the tables deal on once the floor stopped
// hand-for-hand (G-26): those the books hold in Release (done with the
// round at the stop) or let deal already. A table whose last hand the
// director has not handled yet (its lockstep hold still at that hand)
// stays held: let go now, it would deal before its busted were taken off
// and its balancing made; that hand's handling lets it deal. It runs under
// the step lock, so no hand's handling is half done meanwhile.
func (d *Director) EndHandForHand(ctx context.Context, id string) error {
	defer d.lock(id)()
	return d.release(ctx, id)
}

// release lets the tables the books hold in HandForHand.Release deal on
// and strikes off each one let go (or closed); those whose call failed
// stay for the next try (a recovery pass). While hand-for-hand is on, a
// table done with the new round already is not let go again; once it is
// off, a table let deal already is asked again harmlessly. Under the step
// lock.
func (d *Director) release(ctx context.Context, id string) error {
	t, err := d.store.Load(ctx, id)
	if err != nil {
		return err
	}
	hf := t.HandForHand
	if len(hf.Release) == 0 {
		return nil
	}
	failed, err := d.dealTogether(ctx, id, func(n int, st TableStatus) bool {
		tb := strconv.Itoa(n)
		if hf.Active {
			return slices.Contains(hf.Release, tb) && !slices.Contains(hf.Done, tb)
		}
		return slices.Contains(hf.Release, tb) || st.Holds[HoldLockstep] != st.HandNo
	})
	uerr := d.store.Update(ctx, id, func(_ *store.Tx, cur *store.Tournament) error {
		cur.HandForHand.Release = slices.DeleteFunc(cur.HandForHand.Release, func(tb string) bool {
			return slices.Contains(hf.Release, tb) && !slices.Contains(failed, tb)
		})
		return nil
	})
	return errors.Join(err, uerr)
}

// tableIDs returns the table service's id of each of the tournament's
// tables, by number.
func (d *Director) tableIDs(ctx context.Context, id string) (map[int]string, error) {
	links, err := d.store.Tables(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make(map[int]string, len(links))
	for _, l := range links {
		out[l.Table] = l.TableID
	}
	return out, nil
}

// dealTogether lets every table between hands for which handled holds deal
// its next hand; it returns the tables (by number) it could not ask.
func (d *Director) dealTogether(ctx context.Context, id string, handled func(n int, st TableStatus) bool) ([]string, error) {
	links, err := d.store.Tables(ctx, id)
	if err != nil {
		return nil, err
	}
	var (
		failed []string
		errs   []error
	)
	for _, l := range links {
		st, err := d.tables.Status(ctx, l.TableID)
		if err != nil {
			failed, errs = append(failed, strconv.Itoa(l.Table)), append(errs, err)
			continue
		}
		if st.Closed || st.InHand || !handled(l.Table, st) {
			continue
		}
		if err := d.tables.Hold(ctx, l.TableID, HoldLockstep, HoldFloor, st.HandNo+1); err != nil && Refusal(err) != "TABLE_CLOSED" {
			failed, errs = append(failed, strconv.Itoa(l.Table)), append(errs, err)
		}
	}
	return failed, errors.Join(errs...)
}

// Absent tells the player's table what the books say of their absence:
// the hands a penalty makes them miss (TR-33) or that they left the
// tournament (TR-35). key names the decision ("trn/<event>/penalty/<player>/<n>").
func (d *Director) Absent(ctx context.Context, id, player, key string) error {
	en, tableID, err := d.seatOf(ctx, id, player)
	if err != nil || tableID == "" {
		return err
	}
	return d.tables.SetAbsence(ctx, tableID, key, player, en.HandsToMiss, en.Left)
}

// AddChips puts a paid rebuy's (TR-14) or add-on's (TR-17) chips on the
// player's stack at their table; key is the payment's key, so the chips
// are added once. A player the books have moved may not have reached the
// new table yet (the move recorded or in transit): the moves are finished
// and the chips go to the table the player sits at, and travel with them.
// Once a table has them, the audit records it (chips_added): until then
// the recovery pass adds them again (addChipsDue), so a failed try is
// not the end of them.
func (d *Director) AddChips(ctx context.Context, id, player, key string, chips int64, addOn bool) error {
	_, tableID, err := d.seatOf(ctx, id, player)
	if err != nil || tableID == "" || chips <= 0 {
		return err
	}
	rule := "TR-14"
	if addOn {
		rule = "TR-17"
	}
	added := func(tableID string) error {
		return d.recordChipsAdded(ctx, id, key, chipsAdded{Player: player, TableID: tableID, Chips: chips, AddOn: addOn, Rule: rule})
	}
	err = d.tables.AddChips(ctx, tableID, key, player, chips, addOn)
	if err == nil {
		return added(tableID)
	}
	if Refusal(err) != "NOT_SEATED" {
		return err
	}
	if err := d.recoverMoves(ctx, id); err != nil {
		return err
	}
	links, lerr := d.store.Tables(ctx, id)
	if lerr != nil {
		return lerr
	}
	for _, l := range links {
		st, serr := d.tables.Status(ctx, l.TableID)
		if serr != nil {
			return serr
		}
		if !st.Closed && slices.ContainsFunc(st.Seats, func(s SeatStatus) bool { return s.Player == player }) {
			if err := d.tables.AddChips(ctx, l.TableID, key, player, chips, addOn); err != nil {
				return err
			}
			return added(l.TableID)
		}
	}
	return err
}

// seatOf returns an active player's entry and the table the plan puts
// them at; tableID is "" when they have none.
func (d *Director) seatOf(ctx context.Context, id, player string) (entry.Entry, string, error) {
	ens, err := d.store.Entries(ctx, id)
	if err != nil {
		return entry.Entry{}, "", err
	}
	i := slices.IndexFunc(ens, func(en entry.Entry) bool { return en.PlayerID == player })
	if i < 0 || ens[i].Status != entry.Active || ens[i].Table == 0 {
		return entry.Entry{}, "", nil
	}
	tableIDs, err := d.tableIDs(ctx, id)
	if err != nil {
		return entry.Entry{}, "", err
	}
	return ens[i], tableIDs[ens[i].Table], nil
}

// slip is a movement slip as the audit records it (issue 10 item 4): the
// audit record adds who decided it (the actor) and when.
type slip struct {
	MoveID    string `json:"move_id"`
	PlayerID  string `json:"player_id"`
	FromTable int    `json:"from_table"`
	FromSeat  int    `json:"from_seat"`
	ToTable   int    `json:"to_table"`
	ToSeat    int    `json:"to_seat"`
	Rule      string `json:"rule_id"`
	// Reason says why in words: balance, table break, final table.
	Reason string `json:"reason,omitempty"`
	// Stack is the chips the player carries: their stack after the hand
	// the move was decided on (the table is held between hands).
	Stack int64 `json:"stack,omitempty"`
	// HandNo is that hand at FromTable (0: decided between hands).
	HandNo int64 `json:"hand_no,omitempty"`
}

// Slip reasons.
const (
	ReasonBalance    = "balance"
	ReasonTableBreak = "table break"
	ReasonFinalTable = "final table"
)

// stackOf is the stack a slip records for player and the hand it is
// counted after: the hand's report when the player sat at its table, else
// the last count their table reported.
func stackOf(tx *store.Tx, h Hand, player string) (int64, int64, error) {
	if n, ok := h.Stacks[player]; ok {
		return n, h.No, nil
	}
	c, _, err := tx.Stack(player)
	return c.Chips, c.HandNo, err
}

// balance decides the moves that the hand at h.Table makes possible —
// the table's players when it breaks, or the player due its big blind
// when it has too many (TR-23) — records them, carries them out, closes a
// table left empty and halts short tables (G-25).
func (d *Director) balance(ctx context.Context, t store.Tournament, h Hand) error {
	id := t.Event.ID
	// The seating is kept between hands and brought up to date by the
	// entries changed since (the bust, the last moves), not rebuilt from
	// every entry (issue 10: O(tables) per hand, not O(entries)).
	k := d.kept(id)
	k.mu.Lock()
	err := k.sync(d.fromStore(ctx, id), t.Rules.SeatsPerTable)
	final := err == nil && t.Rules.FinalRedraw() && FinalDue(k.s.Plan(), t.Rules.SeatsPerTable)
	var plan []balance.Table
	if final {
		plan = slices.Clone(k.s.Plan()) // redrawFinal reads the tables' ids only
	}
	k.mu.Unlock()
	if err != nil {
		return err
	}
	if final {
		return d.redrawFinal(ctx, t, plan)
	}
	now := d.now()
	var slips []slip
	// idle is a table due to break that cannot deal (Idle), broken at
	// this hand's end instead of its own (0: none).
	idle := 0
	err = d.store.Update(ctx, id, func(tx *store.Tx, cur *store.Tournament) error {
		slips, idle = nil, 0
		if cur.Event.Status != event.Running {
			return nil
		}
		// Taken before this transaction writes and let go before it ends
		// (kept.mu), so no other transaction can wait on it while holding
		// what this one needs.
		k.mu.Lock()
		err := k.sync(fromTx(tx), cur.Rules.SeatsPerTable)
		var moves []balance.Move
		if err == nil {
			plan := k.s.Plan()
			order := cur.Rules.BreakOrder
			moves = DecideInOrder(plan, h, d.random, order)
			if b, ok := Breaking(plan, order); ok && len(moves) == 0 && b != strconv.Itoa(h.Table) && Idle(plan, b) {
				// Without this the event stalls: every other table waits
				// for that break (no balancing while a table is due to
				// break) and plays down to one player (seen in
				// BenchmarkFreezeout10000).
				idle, _ = strconv.Atoi(b)
				moves = DecideInOrder(plan, Hand{Table: idle}, d.random, order)
			}
		}
		k.mu.Unlock()
		if err != nil || len(moves) == 0 {
			return err
		}
		n, err := tx.CountAudit("move")
		if err != nil {
			return err
		}
		for _, m := range moves {
			n++
			from, _ := strconv.Atoi(m.FromTable)
			to, _ := strconv.Atoi(m.ToTable)
			s := slip{MoveID: fmt.Sprintf("trn/%s/move/%d", id, n), PlayerID: m.PlayerID, FromTable: from, FromSeat: m.FromSeat,
				ToTable: to, ToSeat: m.ToSeat, Rule: m.Rule, Reason: ReasonTableBreak}
			if m.Rule == "TR-23" {
				s.Reason = ReasonBalance
			}
			if s.Stack, s.HandNo, err = stackOf(tx, h, m.PlayerID); err != nil {
				return err
			}
			cur, err := tx.Entry(m.PlayerID)
			if err != nil {
				return err
			}
			if cur == nil {
				return fmt.Errorf("move %s: no entry of %s", s.MoveID, m.PlayerID)
			}
			en := *cur
			en.Table, en.Seat = to, m.ToSeat
			if err := tx.PutEntry(en); err != nil {
				return err
			}
			if err := tx.AddAudit(Actor, "move", s, now); err != nil {
				return err
			}
			slips = append(slips, s)
		}
		return nil
	})
	if err != nil {
		return err
	}
	// The seating after the moves (and whatever else changed since),
	// for the halts.
	k.mu.Lock()
	err = k.sync(d.fromStore(ctx, id), t.Rules.SeatsPerTable)
	var halted []string
	var nums []int
	if err == nil {
		plan := k.s.Plan()
		halted = balance.Halted(plan, balance.Policy{})
		nums = slices.Clone(k.s.nums)
	}
	k.mu.Unlock()
	if err != nil {
		return err
	}
	tableIDs, err := d.tableIDs(ctx, id)
	if err != nil {
		return err
	}
	for _, s := range slips {
		if err := d.move(ctx, id, s, tableIDs); err != nil {
			return err
		}
	}
	if idle != 0 {
		err := d.tables.Close(ctx, tableIDs[idle])
		if r := Refusal(err); r == "TABLE_NOT_EMPTY" || r == "TABLE_CLOSED" {
			d.log.InfoContext(ctx, "director: broken idle table not closed yet", "table_id", tableIDs[idle], "reason", r)
		} else if err != nil {
			return err
		}
	}
	return d.halt(ctx, id, nums, halted, tableIDs, h)
}

// move carries out a recorded move: out of the first table, into the
// second. A move the first table has not let go yet (the entrant is in a
// hand) is finished by finishMoves after that hand.
func (d *Director) move(ctx context.Context, id string, s slip, tableIDs map[int]string) error {
	m := Move{ID: s.MoveID, Player: s.PlayerID, FromTableID: tableIDs[s.FromTable], ToTableID: tableIDs[s.ToTable], ToSeat: s.ToSeat}
	st, err := d.tables.MoveOut(ctx, m)
	if err != nil {
		return err
	}
	if st == MoveCancelled {
		return d.stay(ctx, id, s)
	}
	if st != MoveInTransit {
		return nil
	}
	return d.moveIn(ctx, id, m, freeAlways)
}

// stay puts back in the books a player whose move the table cancelled:
// they had no chips (out in the hand, or held while they may rebuy,
// TR-13) and still sit at the table they were to leave. Left at the
// move's new seat in the books, a player held for a rebuy was lost to
// both tables: balanced and broken where they did not sit, their rebuy's
// chips added at a table the books had left, and the seat the books freed
// given to another, whose move in was refused.
//
// It is done once per move (the audit's move_cancelled record), and never
// once the player has been moved again (TR-23): the recovery pass meets
// every cancelled move again, and a later move of the same player to the
// same seat — the worst seat of the same short table — looked like the
// cancelled one not yet undone. Undone again, the books had the player
// back at the table they had left; when that table broke and closed, the
// books still seated them there, and balancing and late seats went to a
// closed table (TABLE_CLOSED on every pass, seen in the rebuy event).
func (d *Director) stay(ctx context.Context, id string, s slip) error {
	now := d.now()
	return d.store.Update(ctx, id, func(tx *store.Tx, _ *store.Tournament) error {
		if done, err := stayDone(tx, s); err != nil || done {
			return err
		}
		record := map[string]any{"move_id": s.MoveID, "player_id": s.PlayerID,
			"table": s.FromTable, "seat": s.FromSeat, "rule_id": "TR-23", "reason": "no chips: stays at the table"}
		cur, err := tx.Entry(s.PlayerID)
		if err != nil {
			return err
		}
		if cur == nil || cur.Status != entry.Active || cur.Table != s.ToTable || cur.Seat != s.ToSeat {
			// Out (or re-entered) since: the books have them where they are.
			record["reason"] = "no chips: the books have the player elsewhere already"
			return tx.AddAudit(Actor, "move_cancelled", record, now)
		}
		ens, err := tx.Entries()
		if err != nil {
			return err
		}
		if slices.ContainsFunc(ens, func(o entry.Entry) bool {
			return o.Status == entry.Active && o.PlayerID != s.PlayerID && o.Table == s.FromTable && o.Seat == s.FromSeat
		}) {
			d.log.WarnContext(ctx, "director: cancelled move's old seat given to another; left as moved", "move", s.MoveID)
			record["reason"] = "no chips: old seat given to another, left as moved"
			return tx.AddAudit(Actor, "move_cancelled", record, now)
		}
		en := *cur
		en.Table, en.Seat = s.FromTable, s.FromSeat
		if err := tx.PutEntry(en); err != nil {
			return err
		}
		return tx.AddAudit(Actor, "move_cancelled", record, now)
	})
}

// stayDone reports whether a cancelled move was settled in the books
// already (its move_cancelled record), or is superseded by a later move
// of the same player.
func stayDone(tx *store.Tx, s slip) (bool, error) {
	done, err := tx.AuditOf("move_cancelled")
	if err != nil {
		return false, err
	}
	for _, a := range done {
		var c struct {
			MoveID string `json:"move_id"`
		}
		if err := jsonUnmarshal(a.Detail, &c); err != nil {
			return false, err
		}
		if c.MoveID == s.MoveID {
			return true, nil
		}
	}
	moves, err := tx.AuditOf("move")
	if err != nil {
		return false, err
	}
	seen := false
	for _, a := range moves {
		var m slip
		if err := jsonUnmarshal(a.Detail, &m); err != nil {
			return false, err
		}
		switch {
		case m.MoveID == s.MoveID:
			seen = true
		case seen && m.PlayerID == s.PlayerID:
			return true, nil
		}
	}
	return false, nil
}

// finishMoves seats the entrants in transit at their new tables.
func (d *Director) finishMoves(ctx context.Context, id string) error {
	moves, err := d.tables.Moves(ctx, id, MoveInTransit)
	if err != nil {
		return err
	}
	for _, m := range moves {
		// A seat still held by a player the books have out is freed by the
		// hand's handling at its table, which a final table's redraw waits
		// for (redrawFinal); a table that cannot deal has no hand to end,
		// so there it is freed now (G-42).
		if err := d.moveIn(ctx, id, m, freeIfIdle); err != nil {
			return err
		}
	}
	return nil
}

// When moveIn takes a player the books have out off the seat a move goes
// to.
type freeing int

const (
	// freeNever leaves the seat to the hand's handling at its table.
	freeNever freeing = iota
	// freeIfIdle frees it when the table cannot deal: fewer than two
	// players with chips and no hand in play, so no hand's end will
	// (G-42).
	freeIfIdle
	// freeAlways frees it: the hand at that table has been handled.
	freeAlways
)

// moveIn is a move's second step. The books free a busted player's seat
// when they knock them out, before the hand's handling has taken them
// off the table: a move decided meanwhile into that seat is refused
// (SEAT_TAKEN, or TABLE_FULL at a full table) while they sit there, so
// with free they are taken off first (as free says). A refusal leaves the
// chips in transit (counted as such) for finishMoves to try again on a
// later pass: it must not fail the hand's other work, which may be what
// frees the seat.
func (d *Director) moveIn(ctx context.Context, id string, m Move, free freeing) error {
	_, err := d.tables.MoveIn(ctx, m.ToTableID, m.ID)
	r := Refusal(err)
	if free != freeNever && (r == "SEAT_TAKEN" || r == "TABLE_FULL") {
		freed, ferr := d.freeSeat(ctx, id, m, free == freeIfIdle)
		if ferr != nil {
			return ferr
		}
		if freed {
			_, err = d.tables.MoveIn(ctx, m.ToTableID, m.ID)
			r = Refusal(err)
		}
	}
	if r != "" {
		d.log.WarnContext(ctx, "director: move in refused; left in transit", "move", m.ID, "reason", r)
		return nil
	}
	return err
}

// freeSeat takes a player the books have out, with no chips, off the seat
// a move goes to; freed reports whether the seat was theirs. With idleOnly
// it does so only at a table that cannot deal (G-42).
func (d *Director) freeSeat(ctx context.Context, id string, m Move, idleOnly bool) (freed bool, err error) {
	st, err := d.tables.Status(ctx, m.ToTableID)
	if err != nil {
		return false, err
	}
	if idleOnly && !cannotDeal(st) {
		return false, nil
	}
	i := slices.IndexFunc(st.Seats, func(s SeatStatus) bool { return s.Seat == m.ToSeat })
	if i < 0 || st.Seats[i].Stack > 0 || st.Seats[i].Player == m.Player {
		return false, nil
	}
	p := st.Seats[i].Player
	en, ok, err := d.store.Entry(ctx, id, p)
	if err != nil || (ok && en.Status == entry.Active) {
		return false, err // held while they may rebuy (TR-13): theirs
	}
	key := fmt.Sprintf("trn/%s/out/%s/%s/for-%s", id, p, m.ToTableID, strings.TrimPrefix(m.ID, "trn/"+id+"/"))
	err = d.tables.RemoveBusted(ctx, m.ToTableID, key, p)
	switch r := Refusal(err); {
	case r == "NOT_SEATED":
		return true, nil
	case r != "":
		return false, nil
	}
	return err == nil, err
}

// cannotDeal reports whether a table will end no hand: none in play and
// fewer than two players with chips (G-42).
func cannotDeal(st TableStatus) bool {
	if st.Closed {
		return true
	}
	if st.InHand {
		return false
	}
	n := 0
	for _, s := range st.Seats {
		if s.Stack > 0 {
			n++
		}
	}
	return n < 2
}

// halt holds the short tables (halted, by balance.Halted) until balanced
// (G-25), lets the others of the seating's tables (nums, in order) deal,
// and closes the tables nobody is left at.
//
// A table is sent only a change from what this process last told it
// (holdShort), not a hold or release after every hand at every table.
func (d *Director) halt(ctx context.Context, id string, nums []int, halted []string, tableIDs map[int]string, h Hand) error {
	if err := d.holdShort(ctx, id, nums, halted, tableIDs); err != nil {
		return err
	}
	if !slices.Contains(nums, h.Table) {
		// Broken: its players have gone; close it once the moves left.
		err := d.tables.Close(ctx, h.TableID)
		if r := Refusal(err); r == "TABLE_NOT_EMPTY" || r == "TABLE_CLOSED" {
			d.log.InfoContext(ctx, "director: broken table not closed yet", "table_id", h.TableID, "reason", r)
			return nil
		}
		return err
	}
	return nil
}

// holdShort holds the short tables (halted) of the seating's tables
// (nums) until balanced (G-25) and releases the others. A table is sent
// only a change from what this process last told it (shorts), not a hold
// or release after every hand at every table (issue 10: O(tables) calls
// per hand). The recovery pass forgets what was told (forgetShorts), so
// its own settling tells every table again: what another process's
// director told a table meanwhile is set right within a RecoverInterval.
func (d *Director) holdShort(ctx context.Context, id string, nums []int, halted []string, tableIDs map[int]string) error {
	short := make(map[string]bool, len(halted))
	for _, n := range halted {
		short[n] = true
	}
	for _, n := range nums {
		want := short[strconv.Itoa(n)]
		if told, ok := d.toldShort(id, tableIDs[n]); ok && told == want {
			continue
		}
		var err error
		if want {
			err = d.tables.Hold(ctx, tableIDs[n], HoldShort, HoldBalancing, 0)
		} else {
			err = d.tables.Release(ctx, tableIDs[n], HoldShort)
		}
		if err != nil {
			return err
		}
		d.tellShort(id, tableIDs[n], want)
	}
	d.keepShorts(id, nums, tableIDs)
	return nil
}

// countChips compares the chips at the tables (and in transit) with the
// chips issued and the chip races' adjustments; a difference is logged and
// counted, and the count is saved for the status and the wallet's audit.
func (d *Director) countChips(ctx context.Context, t store.Tournament) {
	release := d.Issue(t.Event.ID)
	counted, err := d.tables.CountChips(ctx, t.Event.ID)
	if err != nil {
		release()
		d.log.WarnContext(ctx, "director: chips not counted", "tournament", t.Event.ID, "error", err)
		return
	}
	k := d.kept(t.Event.ID)
	k.mu.Lock()
	err = k.sync(d.fromStore(ctx, t.Event.ID), t.Rules.SeatsPerTable)
	var issued int64
	if err == nil {
		issued = k.s.Issued(t.Event.StartingStack, t.Rules.Entry.RebuyChips, t.Rules.Entry.AddOnChips)
	}
	k.mu.Unlock()
	release()
	if err != nil {
		return
	}
	races, err := d.races(ctx, t.Event.ID)
	if err != nil {
		return
	}
	// A chip race's rounding (G-08) and the chip it gives a player left
	// with none (TR-22) change the chips in play: they count as issued.
	if stacks, err := d.stacks(ctx, t); err != nil {
		return
	} else if stacks != nil {
		// A Day 2 put the carried bags in play, not starting stacks.
		ens, err := d.store.Entries(ctx, t.Event.ID)
		if err != nil {
			return
		}
		issued = 0
		for _, en := range ens {
			if en.Status == entry.Active || en.Status == entry.Busted {
				issued += stacks[en.PlayerID]
			}
		}
	}
	for _, r := range races {
		issued += r.Delta
	}
	// The chips of players taken out of play (TR-34) left play with them.
	removed, err := d.removedChips(ctx, t.Event.ID)
	if err != nil {
		return
	}
	issued -= removed
	check := store.ChipCheck{Issued: issued, Counted: counted, CountedAt: d.now()}
	diff := check.Mismatch()
	d.mu.Lock()
	d.mismatch[t.Event.ID] = diff
	d.mu.Unlock()
	// The status shows the count and the wallet's audit reports a
	// difference: both read it from the store.
	if err := d.store.SaveChipCheck(ctx, t.Event.ID, check); err != nil {
		d.log.WarnContext(ctx, "director: chip count not saved", "tournament", t.Event.ID, "error", err)
	}
	if diff != 0 {
		d.log.ErrorContext(ctx, "director: tournament chips not conserved", "tournament", t.Event.ID, "counted", counted, "difference", diff)
		telemetry.CountChipMismatches(ctx, "tournament", 1)
	}
}

// Issued is the chips an event has put in play: a starting stack for
// every entry that was seated (re-entries too, G-23), the rebuys' and the
// add-ons' chips (TR-08, TR-14, TR-17).
func Issued(t store.Tournament, ens []entry.Entry) int64 {
	var n int64
	for _, en := range ens {
		if en.Status != entry.Active && en.Status != entry.Busted {
			continue
		}
		n += int64(1+en.Reentries)*t.Event.StartingStack + int64(en.Rebuys)*t.Rules.Entry.RebuyChips
		if en.AddOn {
			n += t.Rules.Entry.AddOnChips
		}
	}
	return n
}

// Recover finishes what a crash left half done in the running
// tournaments: tables not opened or seated yet, moves recorded but not
// made, entrants in transit. Run calls it when it starts.
func (d *Director) Recover(ctx context.Context, ids []string) error {
	var errs []error
	for _, id := range ids {
		errs = append(errs, d.recover(ctx, id))
	}
	return errors.Join(errs...)
}

// recover is one tournament's recovery pass, under its step lock; a pass
// that keeps failing is backed off and reported stuck (steps.go).
func (d *Director) recover(ctx context.Context, id string) error {
	defer d.lock(id)()
	if d.waiting(id, StepRecovery) {
		return nil
	}
	err := d.recoverPass(ctx, id)
	d.settle(ctx, id, StepRecovery, StepRecovery, err)
	return err
}

// recoverPass is recover's work.
func (d *Director) recoverPass(ctx context.Context, id string) error {
	d.forgetShorts(id)
	// Players taken out of play (TR-34) leave first: a move into their
	// seat is refused while they hold it.
	if err := d.removeOut(ctx, id); err != nil {
		return fmt.Errorf("removals from %s: %w", id, err)
	}
	// Moves first: a final table (TR-07) is let deal by start only once
	// its players have arrived.
	if err := d.recoverMoves(ctx, id); err != nil {
		return fmt.Errorf("moves of %s: %w", id, err)
	}
	// A final table the tables were held for before a crash, or that
	// waited for the floor, is redrawn here: no hand will end to do it.
	if err := d.redrawDue(ctx, id); err != nil {
		return fmt.Errorf("final table of %s: %w", id, err)
	}
	if err := d.start(ctx, id); err != nil {
		return fmt.Errorf("start %s: %w", id, err)
	}
	// Tables that cannot deal have no hand end to balance or break at
	// (TR-23, G-25).
	if err := d.settleIdle(ctx, id); err != nil {
		return fmt.Errorf("idle tables of %s: %w", id, err)
	}
	// A flight whose day ended is bagged once its tables are idle.
	if err := d.Bag(ctx, id); err != nil {
		return fmt.Errorf("bag %s: %w", id, err)
	}
	var errs []error
	// Tables left waiting when hand-for-hand stopped (G-26): the call
	// that lets them deal failed, or the process stopped before it.
	if err := d.release(ctx, id); err != nil {
		errs = append(errs, fmt.Errorf("hand-for-hand tables of %s: %w", id, err))
	}
	if err := d.closeLeft(ctx, id); err != nil {
		errs = append(errs, fmt.Errorf("tables left by %s: %w", id, err))
	}
	if err := d.SyncLevels(ctx, id); err != nil {
		errs = append(errs, fmt.Errorf("levels of %s: %w", id, err))
	}
	// Rebuy and add-on chips paid whose first try to put them on the
	// table failed (TR-14, TR-17).
	if err := d.addChipsDue(ctx, id); err != nil {
		errs = append(errs, fmt.Errorf("rebuy and add-on chips of %s: %w", id, err))
	}
	// A table that went idle before a colour-up break has no hand end
	// in it: its race is run here (TR-22).
	if err := d.Race(ctx, id); err != nil {
		errs = append(errs, fmt.Errorf("chip race of %s: %w", id, err))
	}
	return errors.Join(errs...)
}

// recoverMoves makes the moves the audit records and the tables never
// saw (a crash between the decision and MoveOut), then finishes those in
// transit (a crash between MoveOut and MoveIn, or an entrant who finished
// a hand first).
func (d *Director) recoverMoves(ctx context.Context, id string) error {
	audit, err := d.store.Audit(ctx, id)
	if err != nil {
		return err
	}
	known, err := d.tables.Moves(ctx, id)
	if err != nil {
		return err
	}
	seen, cancelled := map[string]bool{}, map[string]bool{}
	for _, m := range known {
		seen[m.ID] = true
		cancelled[m.ID] = m.State == MoveCancelled
	}
	tableIDs, err := d.tableIDs(ctx, id)
	if err != nil {
		return err
	}
	// The cancelled moves the books have settled (stay) are not looked at
	// again.
	settled := map[string]bool{}
	for _, a := range audit {
		if a.Action != "move_cancelled" {
			continue
		}
		var c struct {
			MoveID string `json:"move_id"`
		}
		if err := jsonUnmarshal(a.Detail, &c); err != nil {
			return err
		}
		settled[c.MoveID] = true
	}
	for _, a := range audit {
		if a.Action != "move" {
			continue
		}
		var s slip
		if err := jsonUnmarshal(a.Detail, &s); err != nil {
			return err
		}
		if cancelled[s.MoveID] && !settled[s.MoveID] {
			// Cancelled at the end of the hand it was ordered in.
			if err := d.stay(ctx, id, s); err != nil {
				return err
			}
		}
		if seen[s.MoveID] {
			continue
		}
		err := d.move(ctx, id, s, tableIDs)
		if r := Refusal(err); r != "" {
			// The entrant is no longer there to move (busted and
			// removed): the table refuses for good.
			d.log.WarnContext(ctx, "director: recorded move refused", "move", s.MoveID, "reason", r)
			continue
		}
		if err != nil {
			return err
		}
	}
	return d.finishMoves(ctx, id)
}

// RecoverInterval is how often Run repeats the recovery pass.
const RecoverInterval = 10 * time.Second

// Run recovers the running tournaments at once and then every
// RecoverInterval (a start whose tables the table service did not take, a
// move a crash interrupted) until ctx ends.
func (d *Director) Run(ctx context.Context) error {
	for {
		// Each tournament's failed pass is logged, backed off and, when
		// it keeps failing, reported stuck by Recover itself.
		if ids, err := d.store.Running(ctx); err != nil && ctx.Err() == nil {
			d.log.WarnContext(ctx, "director: running tournaments not read", "error", err)
		} else if err == nil {
			_ = d.Recover(ctx, ids)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-d.clock.After(RecoverInterval):
		}
	}
}
