package director_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/cardroom/cardroom/services/tournament/director"
)

// fakeTables is an in-memory table service with the semantics the
// director relies on, as the table service has them: keyed controls;
// moves through transit, a move ordered during a hand the entrant plays
// pending until it ends and a move of an entrant with no chips cancelled;
// a busted entrant in a hand removed when it ends; a table with an
// entrant seated or bound for it not closed; chips counted on the tables
// and in transit. fail makes the next call of an operation go unanswered.
type fakeTables struct {
	mu     sync.Mutex
	tables map[string]*fakeTable
	order  []string
	moves  map[string]*director.Move
	keys   map[string]string
	fail   map[string]int
	// broken makes the next calls of an operation fail at the table
	// service (Internal); calls counts the calls of the operations that
	// can be made to fail.
	broken map[string]int
	calls  map[string]int
	// loseRemoval makes the next removals out of play (RemoveOut) go
	// through and their answers get lost.
	loseRemoval int
	// onStatus, when set, runs as each Status call begins (without mu
	// held): what happens elsewhere while the director reads a table.
	onStatus func(id string)
}

type fakeTable struct {
	id, tournament string
	live           bool
	// size is the table's number of seats: a taken seat at a full table
	// is refused TABLE_FULL, as the table service does, else SEAT_TAKEN.
	size     int
	absent   map[string]absence
	seats    map[int]string // seat → player
	stacks   map[string]int64
	holds    map[string]int64
	revision int64
	rows     []director.Row
	button   int
	handNo   int64
	inHand   bool
	closed   bool
	// leaving are the entrants who leave when the hand in progress ends:
	// player → move id ("" for a busted entrant removed then).
	leaving map[string]string
	// removed are the chips each entrant left with, as the table
	// service's removals record them: a repeat answers them.
	removed map[string]int64
}

type absence struct {
	hands int
	left  bool
}

func newFakeTables() *fakeTables {
	return &fakeTables{tables: map[string]*fakeTable{}, moves: map[string]*director.Move{}, keys: map[string]string{}, fail: map[string]int{},
		broken: map[string]int{}, calls: map[string]int{}}
}

func (f *fakeTables) failing(op string) error {
	f.calls[op]++
	if f.fail[op] > 0 {
		f.fail[op]--
		return fmt.Errorf("%s: %w", op, director.ErrUnreachable)
	}
	if f.broken[op] > 0 {
		f.broken[op]--
		return fmt.Errorf("%s: %w: internal error", op, director.ErrFailed)
	}
	return nil
}

func refused(reason string) error {
	return &director.Refused{Reason: reason, Err: errors.New(reason)}
}

// key applies a keyed control once: a repeat with the same content is a
// duplicate, with other content a refusal.
func (f *fakeTables) key(key, content string) (dup bool, err error) {
	if prev, ok := f.keys[key]; ok {
		if prev != content {
			return true, refused("IDEMPOTENCY_KEY_REUSED")
		}
		return true, nil
	}
	f.keys[key] = content
	return false, nil
}

func (f *fakeTables) Open(_ context.Context, t director.OpenTable) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id, ok := f.keys["open:"+t.Key]; ok {
		return id, nil
	}
	id := fmt.Sprintf("tbl%d", len(f.order)+1)
	f.keys["open:"+t.Key] = id
	f.tables[id] = &fakeTable{id: id, tournament: t.TournamentID, live: t.Live, size: t.Seats, seats: map[int]string{}, stacks: map[string]int64{}, holds: map[string]int64{},
		absent: map[string]absence{}, leaving: map[string]string{}, removed: map[string]int64{}}
	f.order = append(f.order, id)
	return id, nil
}

func (f *fakeTables) get(id string) (*fakeTable, error) {
	tb, ok := f.tables[id]
	switch {
	case !ok:
		return nil, refused("TABLE_NOT_FOUND")
	case tb.closed:
		return nil, refused("TABLE_CLOSED")
	}
	return tb, nil
}

func (f *fakeTables) Close(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	tb, err := f.get(id)
	if err != nil {
		return err
	}
	if len(tb.seats) > 0 {
		return refused("TABLE_NOT_EMPTY")
	}
	for _, m := range f.moves {
		if m.ToTableID == id && m.State == director.MoveInTransit {
			return refused("TABLE_NOT_EMPTY") // a moved entrant is on the way
		}
	}
	tb.closed = true
	return nil
}

// where returns the table and seat of a player of a tournament.
func (f *fakeTables) where(tournament, player string) (*fakeTable, int) {
	for _, tb := range f.tables {
		for s, p := range tb.seats {
			if p == player && tb.tournament == tournament {
				return tb, s
			}
		}
	}
	return nil, 0
}

func (f *fakeTables) Seat(_ context.Context, id, key, player string, seat int, stack int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("Seat"); err != nil {
		return err
	}
	tb, err := f.get(id)
	if err != nil {
		return err
	}
	if dup, err := f.key(key, fmt.Sprint(id, player, seat, stack)); dup {
		return err
	}
	if at, _ := f.where(tb.tournament, player); at != nil {
		return refused("ENTRANT_SEATED_ELSEWHERE")
	}
	if err := tb.seatFree(seat); err != nil {
		return err
	}
	tb.seats[seat], tb.stacks[player] = player, stack
	return nil
}

// seatFree refuses a taken seat as the table service does: TABLE_FULL
// when every seat is taken, SEAT_TAKEN otherwise.
func (tb *fakeTable) seatFree(seat int) error {
	if _, taken := tb.seats[seat]; !taken {
		return nil
	}
	if tb.size > 0 && len(tb.seats) >= tb.size {
		return refused("TABLE_FULL")
	}
	return refused("SEAT_TAKEN")
}

func (f *fakeTables) SetButton(_ context.Context, id, key string, seat int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	tb, err := f.get(id)
	if err != nil {
		return err
	}
	tb.button = seat
	return nil
}

func (f *fakeTables) SetLevels(_ context.Context, id string, revision int64, rows []director.Row) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("SetLevels"); err != nil {
		return err
	}
	tb, err := f.get(id)
	if err != nil {
		return err
	}
	if revision > tb.revision {
		tb.revision, tb.rows = revision, rows
	}
	return nil
}

func (f *fakeTables) Hold(_ context.Context, id, holdID string, _ director.HoldReason, through int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("Hold"); err != nil {
		return err
	}
	tb, err := f.get(id)
	if err != nil {
		return err
	}
	tb.holds[holdID] = through
	return nil
}

func (f *fakeTables) Release(_ context.Context, id, holdID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	tb, err := f.get(id)
	if err != nil {
		return err
	}
	delete(tb.holds, holdID)
	return nil
}

func (f *fakeTables) SetAbsence(_ context.Context, id, key, player string, hands int, left bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	tb, err := f.get(id)
	if err != nil {
		return err
	}
	if dup, err := f.key(key, fmt.Sprint(id, player, hands, left)); dup {
		return err
	}
	tb.absent[player] = absence{hands: hands, left: left}
	return nil
}

func (f *fakeTables) AddChips(_ context.Context, id, key, player string, chips int64, addOn bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	tb, err := f.get(id)
	if err != nil {
		return err
	}
	if at, _ := f.where(tb.tournament, player); at != tb {
		return refused("NOT_SEATED")
	}
	if dup, err := f.key(key, fmt.Sprint(id, player, chips, addOn)); dup {
		return err
	}
	if err := f.failing("add_chips"); err != nil {
		delete(f.keys, key)
		return err
	}
	tb.stacks[player] += chips
	return nil
}

func (f *fakeTables) RaceChips(_ context.Context, id, key, player string, amount, before int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	tb, err := f.get(id)
	if err != nil {
		return err
	}
	if dup, err := f.key(key, fmt.Sprint(id, player, amount, before)); dup {
		return err
	}
	if tb.stacks[player] != before {
		return refused("STACK_MISMATCH")
	}
	tb.stacks[player] += amount
	return nil
}

func (f *fakeTables) RemoveBusted(_ context.Context, id, key, player string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	tb, err := f.get(id)
	if err != nil {
		return err
	}
	for s, p := range tb.seats {
		if p == player {
			if tb.stacks[p] > 0 {
				return refused("ENTRANT_HAS_CHIPS")
			}
			if _, ok := tb.leaving[p]; ok {
				return refused("MOVE_IN_PROGRESS")
			}
			if tb.inHand {
				tb.leaving[p] = "" // when the hand ends
				return nil
			}
			delete(tb.seats, s)
			delete(tb.stacks, p)
			return nil
		}
	}
	return refused("NOT_SEATED")
}

// RemoveOut takes a disqualified or expelled entrant off with their
// chips (TR-34): now between hands, or when the hand in progress ends.
func (f *fakeTables) RemoveOut(_ context.Context, id, key, player string, expel bool) (removed bool, chips int64, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	tb, err := f.get(id)
	if err != nil {
		return false, 0, err
	}
	if dup, err := f.key(key, fmt.Sprint(id, player, expel)); dup {
		if _, seated := tb.where(player); seated || err != nil {
			return false, 0, err
		}
		return true, tb.removed[player], nil
	}
	if f.loseRemoval > 0 {
		// Made, and its answer lost on the way back.
		f.loseRemoval--
		defer func() { err = fmt.Errorf("remove %s: %w", player, director.ErrUnreachable) }()
	}
	for s, p := range tb.seats {
		if p == player {
			if _, ok := tb.leaving[p]; ok {
				return false, 0, refused("MOVE_IN_PROGRESS")
			}
			if tb.inHand {
				tb.leaving[p] = "" // when the hand ends
				return false, 0, nil
			}
			chips := tb.stacks[p]
			delete(tb.seats, s)
			delete(tb.stacks, p)
			tb.removed[p] = chips
			return true, chips, nil
		}
	}
	return false, 0, refused("NOT_SEATED")
}

// where reports the player's seat at the table.
func (tb *fakeTable) where(player string) (int, bool) {
	for s, p := range tb.seats {
		if p == player {
			return s, true
		}
	}
	return 0, false
}

// RemoveBagged takes a flight's survivor off with their chips (they
// leave play, bagged by the director).
func (f *fakeTables) RemoveBagged(_ context.Context, id, key, player string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	tb, err := f.get(id)
	if err != nil {
		return err
	}
	for s, p := range tb.seats {
		if p == player {
			delete(tb.seats, s)
			delete(tb.stacks, p)
			return nil
		}
	}
	return refused("NOT_SEATED")
}

func (f *fakeTables) MoveOut(_ context.Context, m director.Move) (director.MoveState, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("MoveOut"); err != nil {
		return 0, err
	}
	if prev, ok := f.moves[m.ID]; ok {
		return prev.State, nil
	}
	tb, err := f.get(m.FromTableID)
	if err != nil {
		return 0, err
	}
	for s, p := range tb.seats {
		if p != m.Player {
			continue
		}
		if _, ok := tb.leaving[p]; ok {
			return 0, refused("MOVE_IN_PROGRESS")
		}
		switch {
		case tb.inHand:
			// Ordered during a hand: the entrant leaves when it ends.
			m.State = director.MovePending
			tb.leaving[p] = m.ID
		case tb.stacks[p] == 0:
			m.State = director.MoveCancelled // no chips: not moved
		default:
			m.Chips, m.State = tb.stacks[p], director.MoveInTransit
			delete(tb.seats, s)
			delete(tb.stacks, p)
		}
		f.moves[m.ID] = &m
		return m.State, nil
	}
	return 0, refused("NOT_SEATED")
}

// endHand ends the hand in progress at table id: the entrants ordered
// away during it leave (in transit, or cancelled with no chips) and the
// busted ordered off are removed.
func (f *fakeTables) endHand(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	tb := f.tables[id]
	tb.inHand = false
	for p, move := range tb.leaving {
		for s, q := range tb.seats {
			if q != p {
				continue
			}
			if m := f.moves[move]; m != nil {
				m.State = director.MoveCancelled
				if tb.stacks[p] == 0 {
					break // stays, with no chips
				}
				m.Chips, m.State = tb.stacks[p], director.MoveInTransit
			} else {
				tb.removed[p] = tb.stacks[p]
			}
			delete(tb.seats, s)
			delete(tb.stacks, p)
		}
	}
	tb.leaving = map[string]string{}
}

func (f *fakeTables) MoveIn(_ context.Context, id, moveID string) (director.MoveState, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("MoveIn"); err != nil {
		return 0, err
	}
	m, ok := f.moves[moveID]
	switch {
	case !ok:
		return 0, refused("MOVE_NOT_FOUND")
	case m.ToTableID != id:
		return 0, refused("MOVE_WRONG_TABLE")
	case m.State == director.MoveDelivered:
		return m.State, nil
	case m.State != director.MoveInTransit:
		return 0, refused("MOVE_NOT_IN_TRANSIT")
	}
	tb, err := f.get(id)
	if err != nil {
		return 0, err
	}
	if err := tb.seatFree(m.ToSeat); err != nil {
		return 0, err
	}
	tb.seats[m.ToSeat], tb.stacks[m.Player] = m.Player, m.Chips
	m.State = director.MoveDelivered
	return m.State, nil
}

func (f *fakeTables) Moves(_ context.Context, tournament string, states ...director.MoveState) ([]director.Move, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []director.Move
	for _, m := range f.moves {
		if len(states) == 0 || slices.Contains(states, m.State) {
			out = append(out, *m)
		}
	}
	return out, nil
}

func (f *fakeTables) CountChips(_ context.Context, tournament string) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var n int64
	for _, tb := range f.tables {
		if tb.tournament == tournament {
			for _, c := range tb.stacks {
				n += c
			}
		}
	}
	for _, m := range f.moves {
		if m.State == director.MoveInTransit {
			n += m.Chips
		}
	}
	return n, nil
}

func (f *fakeTables) Status(_ context.Context, id string) (director.TableStatus, error) {
	f.mu.Lock()
	hook := f.onStatus
	f.mu.Unlock()
	if hook != nil {
		hook(id)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	tb, ok := f.tables[id]
	if !ok {
		return director.TableStatus{}, refused("TABLE_NOT_FOUND")
	}
	if tb.closed {
		// The table service refuses to read a closed table; the adapter
		// (tables.Client.Status) reads that as a closed table.
		return director.TableStatus{Closed: true}, nil
	}
	st := director.TableStatus{HandNo: tb.handNo, InHand: tb.inHand, Closed: tb.closed, Holds: maps.Clone(tb.holds)}
	for seat, p := range tb.seats {
		st.Seats = append(st.Seats, director.SeatStatus{Seat: seat, Player: p, Stack: tb.stacks[p]})
	}
	return st, nil
}

// lockstep is the hand table id may deal through (its lockstep hold).
func (f *fakeTables) lockstep(id string) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tables[id].holds[director.HoldLockstep]
}
