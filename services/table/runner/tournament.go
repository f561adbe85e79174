package runner

import (
	"context"
	"fmt"
	"slices"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table/dealer"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/store"
)

// The tournament's controls of its tables (README, "Tournament tables").
// Each runs under the table's mutex and is stored with what it changed in
// one fenced transaction: the control's key, the entrant rows, the move's
// state and the events. What waits for the end of a hand is stored by the
// change that ends it (withTournament).

// ErrTableNotEmpty refuses to close a tournament table where entrants sit
// or a moved entrant is bound.
var ErrTableNotEmpty = fault.New(fault.Precondition, "TABLE_NOT_EMPTY", "entrants sit at the table or are on their way to it")

// Errors of a move's second step.
var (
	ErrMoveNotInTransit = fault.Rule(fault.Precondition, "TR-23", "MOVE_NOT_IN_TRANSIT",
		"the move's chips are not in transit (its first step has not happened yet, or it was cancelled)")
	ErrMoveWrongTable = fault.Rule(fault.Precondition, "TR-23", "MOVE_WRONG_TABLE", "the move is bound for another table")
)

// tournamentTable returns the running tournament table id, or
// NOT_A_TOURNAMENT_TABLE for a cash table (before it claims it).
func (r *Runner) tournamentTable(ctx context.Context, id string) (*Table, error) {
	def, err := r.d.Store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if !def.Config.Tournament {
		return nil, dealer.ErrNotTournamentTable
	}
	if def.Closed {
		return nil, ErrClosed
	}
	return r.table(ctx, id)
}

// lockTournament returns the running tournament table id locked (t.mu):
// the caller unlocks it.
func (r *Runner) lockTournament(ctx context.Context, id string) (*Table, error) {
	t, err := r.tournamentTable(ctx, id)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	return t, nil
}

// control is one tournament control on a running table: under t.mu it
// answers a repeat of its key, and otherwise applies fn and stores it with
// the key (and extra) in one transaction.
type control struct {
	kind string
	// key and fingerprint make a keyed control idempotent; empty key: the
	// control is idempotent by what it says.
	key, fingerprint string
	fn               func(dt *dealer.Table) (dealer.Output, error)
	extra            func(ctx context.Context, tx *sqlstore.Tx) error
}

// run applies c to table id and returns the table locked (the caller
// unlocks it), the change's output and whether it was a repeat.
func (r *Runner) run(ctx context.Context, id string, c control) (*Table, dealer.Output, bool, error) {
	t, err := r.lockTournament(ctx, id)
	if err != nil {
		return nil, dealer.Output{}, false, err
	}
	out, dup, err := t.control(ctx, c)
	if err != nil {
		t.mu.Unlock()
		return nil, dealer.Output{}, false, err
	}
	return t, out, dup, nil
}

// control applies c. The caller holds t.mu.
func (t *Table) control(ctx context.Context, c control) (dealer.Output, bool, error) {
	if t.stopped != nil {
		return dealer.Output{}, false, ErrOwnedElsewhere
	}
	d := t.r.d
	var rec store.Control
	if c.key != "" {
		rec = store.Control{Key: c.key, TableID: t.id, Kind: c.kind, Fingerprint: c.fingerprint, Created: d.Clock.Now()}
		dup, err := d.Store.CheckControl(ctx, rec)
		if err != nil || dup {
			return dealer.Output{Seq: t.dt.Seq(), Duplicate: dup}, dup, err
		}
	}
	out, err := t.do(ctx, c.fn, func(tx *sqlstore.Tx) error {
		if c.key != "" {
			if err := d.Store.AddControl(ctx, tx, rec); err != nil {
				return err
			}
		}
		if c.extra != nil {
			return c.extra(ctx, tx)
		}
		return nil
	})
	if err != nil {
		return dealer.Output{}, false, err
	}
	return out, out.Duplicate, nil
}

// SeatEntrant seats an entrant with a stack of tournament chips (TR-06,
// TR-08). A second seat for the entrant anywhere in the tournament, or one
// while they are in transit, is refused (ENTRANT_SEATED_ELSEWHERE): asked
// first, and guaranteed by the entrant's row in the seat's transaction.
func (r *Runner) SeatEntrant(ctx context.Context, id, key, player string, seat int, stack int64) (SeatView, bool, error) {
	def, err := r.d.Store.Get(ctx, id)
	if err != nil {
		return SeatView{}, false, err
	}
	c := control{kind: "seat", key: key, fingerprint: fmt.Sprintf("%s|%d|%d", player, seat, stack),
		fn: func(dt *dealer.Table) (dealer.Output, error) { return dt.SeatEntrant(seat, player, stack) },
		extra: func(ctx context.Context, tx *sqlstore.Tx) error {
			return r.d.Store.PlaceEntrant(ctx, tx, def.TournamentID, player, id, seat)
		}}
	t, err := r.lockTournament(ctx, id)
	if err != nil {
		return SeatView{}, false, err
	}
	defer t.mu.Unlock()
	if dup, err := r.d.Store.CheckControl(ctx, store.Control{Key: key, TableID: id, Kind: c.kind, Fingerprint: c.fingerprint}); err != nil {
		return SeatView{}, false, err
	} else if !dup && t.dt.SeatOf(player) < 0 {
		if err := r.d.Store.CheckEntrantFree(ctx, def.TournamentID, player); err != nil {
			return SeatView{}, false, err
		}
	}
	_, dup, err := t.control(ctx, c)
	if err != nil {
		return SeatView{}, false, err
	}
	return t.seatView(seat), dup, nil
}

func (t *Table) seatView(seat int) SeatView { return t.view(Viewer{}).Seats[seat] }

// SetButton places the drawn button of the next hand (TR-07, G-28).
func (r *Runner) SetButton(ctx context.Context, id, key string, seat int) (dealer.Status, bool, error) {
	return r.statusAfter(ctx, id, control{kind: "button", key: key, fingerprint: fmt.Sprint(seat),
		fn: func(dt *dealer.Table) (dealer.Output, error) { return dt.SetButton(seat) }})
}

// SetLevels gives the table its schedule under a revision (TR-20); stale
// reports a revision older than the table's, which changed nothing.
func (r *Runner) SetLevels(ctx context.Context, id string, rev int64, levels []dealer.Level) (dealer.Status, bool, error) {
	stale := false
	st, _, err := r.statusAfter(ctx, id, control{kind: "levels", fn: func(dt *dealer.Table) (dealer.Output, error) {
		s, out, err := dt.SetLevels(rev, levels)
		stale = s
		if s {
			out.Duplicate = true
		}
		return out, err
	}})
	return st, stale, err
}

// Hold sets (or replaces) a hold on dealing.
func (r *Runner) Hold(ctx context.Context, id string, h dealer.Hold) (dealer.Status, error) {
	st, _, err := r.statusAfter(ctx, id, control{kind: "hold", fn: func(dt *dealer.Table) (dealer.Output, error) { return dt.Hold(h) }})
	return st, err
}

// Release lifts a hold.
func (r *Runner) Release(ctx context.Context, id, hold string) (dealer.Status, error) {
	st, _, err := r.statusAfter(ctx, id, control{kind: "release", fn: func(dt *dealer.Table) (dealer.Output, error) { return dt.Release(hold) }})
	return st, err
}

// KillEntrantHand declares the entrant's hand in progress dead (TR-32).
func (r *Runner) KillEntrantHand(ctx context.Context, id, key, player string, handNo int64) (dealer.Status, bool, error) {
	now := r.d.Clock.Now()
	return r.statusAfter(ctx, id, control{kind: "kill", key: key, fingerprint: fmt.Sprintf("%s|%d", player, handNo),
		fn: func(dt *dealer.Table) (dealer.Output, error) { return dt.KillEntrantHand(player, handNo, now) }})
}

func (r *Runner) statusAfter(ctx context.Context, id string, c control) (dealer.Status, bool, error) {
	t, _, dup, err := r.run(ctx, id, c)
	if err != nil {
		return dealer.Status{}, false, err
	}
	defer t.mu.Unlock()
	return t.status(), dup, nil
}

// status is the table as its tournament sees it now. The caller holds
// t.mu.
func (t *Table) status() dealer.Status {
	st := t.dt.Status(t.r.d.Clock.Now())
	st.TournamentID = t.def.TournamentID
	return st
}

// seatAfter runs c about player's seat and returns the seat after it.
func (r *Runner) seatAfter(ctx context.Context, id, player string, c control) (SeatView, bool, error) {
	t, _, dup, err := r.run(ctx, id, c)
	if err != nil {
		return SeatView{}, false, err
	}
	defer t.mu.Unlock()
	seat := t.dt.SeatOf(player)
	if seat < 0 {
		return SeatView{No: -1}, dup, nil
	}
	return t.seatView(seat), dup, nil
}

// AdjustStack adds (or takes) chips: rebuy, add-on, chip race,
// confiscation; expected, when not nil, must be the stack.
func (r *Runner) AdjustStack(ctx context.Context, id, key, player string, amount int64, expected *int64, why dealer.StackChange) (SeatView, bool, error) {
	fp := fmt.Sprintf("%s|%d|%d|-", player, amount, why)
	if expected != nil {
		fp = fmt.Sprintf("%s|%d|%d|%d", player, amount, why, *expected)
	}
	return r.seatAfter(ctx, id, player, control{kind: "stack", key: key, fingerprint: fp,
		fn: func(dt *dealer.Table) (dealer.Output, error) { return dt.AdjustStack(player, amount, expected, why) }})
}

// place says where a table's seat is, for the console: "<name>, seat n".
func (r *Runner) place(ctx context.Context, table string, seat int) string {
	name := table
	if def, err := r.d.Store.Get(ctx, table); err == nil {
		name = def.Name
	}
	return fmt.Sprintf("%s, seat %d", name, seat)
}

// SetAbsence deals the entrant dead for missed hands (TR-33) or as left
// (TR-35).
func (r *Runner) SetAbsence(ctx context.Context, id, key, player string, missed int, left bool) (SeatView, bool, error) {
	return r.seatAfter(ctx, id, player, control{kind: "absence", key: key, fingerprint: fmt.Sprintf("%s|%d|%t", player, missed, left),
		fn: func(dt *dealer.Table) (dealer.Output, error) { return dt.SetAbsence(player, missed, left) }})
}

// RemoveEntrant takes an entrant off the table now (removed true, with the
// chips taken out of play) or when the hand in progress ends.
func (r *Runner) RemoveEntrant(ctx context.Context, id, key, player string, why dealer.RemovalReason) (removed bool, chips int64, dup bool, err error) {
	t, out, dup, err := r.run(ctx, id, control{kind: "remove", key: key, fingerprint: fmt.Sprintf("%s|%d", player, why),
		fn: func(dt *dealer.Table) (dealer.Output, error) { return dt.RemoveEntrant(player, why) }})
	if err != nil {
		return false, 0, false, err
	}
	defer t.mu.Unlock()
	if dup {
		// Removed by the first request, or at the end of its hand: the
		// answer is the removal's, chips and all, however often it is
		// asked (the first answer may have been lost). Still seated, the
		// removal waits for the hand to end.
		if t.dt.SeatOf(player) >= 0 {
			return false, 0, true, nil
		}
		rm, ok, err := r.d.Store.LastRemoval(ctx, id, player)
		if err != nil {
			return false, 0, true, err
		}
		if ok && rm.Reason == int(why) {
			return true, rm.Chips, true, nil
		}
		return true, 0, true, nil
	}
	for _, rm := range out.Removed {
		if rm.Player == player {
			return true, rm.Chips, false, nil
		}
	}
	return false, 0, false, nil
}

// MoveOutArgs is a move's first step.
type MoveOutArgs struct {
	Move    string
	Player  string
	ToTable string
	ToSeat  int
}

// MoveOut is a move's first step (TR-23): the entrant leaves now or when
// the hand in progress ends, and the chips go in transit under the move
// id, in this table's transaction. A repeat returns the move as it
// stands.
func (r *Runner) MoveOut(ctx context.Context, id string, a MoveOutArgs) (store.Move, bool, error) {
	d := r.d
	t, err := r.lockTournament(ctx, id)
	if err != nil {
		return store.Move{}, false, err
	}
	defer t.mu.Unlock()
	if m, err := d.Store.GetMove(ctx, d.DB.SQL(), a.Move); err == nil {
		if m.FromTable != id || m.Player != a.Player || m.ToTable != a.ToTable || m.ToSeat != a.ToSeat {
			return store.Move{}, false, store.ErrKeyReused.Withf("move %q is another move", a.Move)
		}
		return m, true, nil
	} else if !isNotFound(err) {
		return store.Move{}, false, err
	}
	seat := t.dt.SeatOf(a.Player)
	now := d.Clock.Now()
	m := store.Move{ID: a.Move, TournamentID: t.def.TournamentID, Player: a.Player, FromTable: id, FromSeat: seat, ToTable: a.ToTable,
		ToSeat: a.ToSeat, State: store.MovePending, Created: now, Updated: now}
	t.ordering = &m
	defer func() { t.ordering = nil }()
	to := "to " + r.place(ctx, a.ToTable, a.ToSeat)
	if _, _, err := t.control(ctx, control{kind: "move_out", fn: func(dt *dealer.Table) (dealer.Output, error) { return dt.MoveOut(a.Player, a.Move, to) }}); err != nil {
		return store.Move{}, false, err
	}
	m, err = d.Store.GetMove(ctx, d.DB.SQL(), a.Move)
	return m, false, err
}

// MoveIn is a move's second step: the entrant sits at this table with
// exactly the chips in transit, marked delivered in this table's
// transaction (at a live table: arriving, until the dealer confirms).
func (r *Runner) MoveIn(ctx context.Context, id, move string) (store.Move, bool, error) {
	d := r.d
	t, err := r.lockTournament(ctx, id)
	if err != nil {
		return store.Move{}, false, err
	}
	defer t.mu.Unlock()
	m, err := d.Store.GetMove(ctx, d.DB.SQL(), move)
	if err != nil {
		return store.Move{}, false, err
	}
	switch {
	case m.ToTable != id:
		return store.Move{}, false, ErrMoveWrongTable.Withf("move %s is bound for table %s", move, m.ToTable).With("to_table_id", m.ToTable)
	case m.State == store.MoveDelivered || m.State == store.MoveArriving:
		return m, true, nil
	case m.State != store.MoveInTransit:
		return store.Move{}, false, ErrMoveNotInTransit.Withf("move %s is %s", move, moveStateName(m.State)).With("state", moveStateName(m.State))
	}
	a := dealer.Arrival{Move: move, From: "from " + r.place(ctx, m.FromTable, m.FromSeat), Chips: m.Chips, MissedHands: m.MissedHands, Left: m.Left}
	if _, _, err := t.control(ctx, control{kind: "move_in", fn: func(dt *dealer.Table) (dealer.Output, error) { return dt.MoveIn(m.ToSeat, m.Player, a) }}); err != nil {
		return store.Move{}, false, err
	}
	m, err = d.Store.GetMove(ctx, d.DB.SQL(), move)
	return m, false, err
}

// ConfirmArrival is a live dealer's confirmation that the player the seat
// is held for sat down with their chips: the move is delivered.
func (r *Runner) ConfirmArrival(ctx context.Context, id string, c Caller, seat int, move string) (View, error) {
	t, err := r.lockTournament(ctx, id)
	if err != nil {
		return View{}, err
	}
	defer t.mu.Unlock()
	if _, _, err := t.control(ctx, control{kind: "arrival", fn: func(dt *dealer.Table) (dealer.Output, error) { return dt.ConfirmArrival(seat, move) }}); err != nil {
		return View{}, err
	}
	return t.view(Viewer{Player: c.Player}), nil
}

// CloseTournament closes a tournament table once no entrant sits there and
// none is on the way to it.
func (r *Runner) CloseTournament(ctx context.Context, id string) error {
	t, err := r.lockTournament(ctx, id)
	if err != nil {
		return err
	}
	defer t.mu.Unlock()
	if slices.ContainsFunc(t.dt.Seats(), dealer.Seat.Occupied) {
		return ErrTableNotEmpty.Withf("entrants sit at table %s", id)
	}
	if bound, err := r.d.Store.ArrivingAt(ctx, id); err != nil {
		return err
	} else if bound {
		return ErrTableNotEmpty.Withf("a moved entrant is on the way to table %s", id)
	}
	ev, err := t.closedEvent()
	if err != nil {
		return err
	}
	_, err = t.do(ctx, func(dt *dealer.Table) (dealer.Output, error) { return dt.Close(), nil },
		func(tx *sqlstore.Tx) error { return r.d.Relay.Add(ctx, tx, ev) })
	return err
}

// TournamentStatus returns the table as its tournament sees it, with its
// seats.
func (r *Runner) TournamentStatus(ctx context.Context, id string) (dealer.Status, []SeatView, error) {
	t, err := r.lockTournament(ctx, id)
	if err != nil {
		return dealer.Status{}, nil, err
	}
	defer t.mu.Unlock()
	return t.status(), t.view(Viewer{}).Seats, nil
}

func isNotFound(err error) bool { return fault.KindOf(err) == fault.NotFound }

var moveStateNames = map[store.MoveState]string{store.MovePending: "pending", store.MoveInTransit: "in_transit",
	store.MoveArriving: "arriving", store.MoveDelivered: "delivered", store.MoveCancelled: "cancelled"}

func moveStateName(s store.MoveState) string { return moveStateNames[s] }

// withTournament adds to the transaction that persists a change of a
// tournament table what the change did to the tournament's rows: the
// moves' steps (the chips into transit and out of it, each a conditional
// change of the move's state), the entrants' rows, the hand's report, and
// the MoveUpdated events. The caller holds t.mu.
func (t *Table) withTournament(ctx context.Context, out dealer.Output, extra func(tx *sqlstore.Tx) error) func(tx *sqlstore.Tx) error {
	if !t.def.Config.Tournament || (len(out.Moves) == 0 && len(out.Removed) == 0 && out.Ended == nil && t.ordering == nil) {
		return extra
	}
	d := t.r.d
	tid := t.def.TournamentID
	steps, removed, ordering := slices.Clone(out.Moves), slices.Clone(out.Removed), t.ordering
	var report []byte
	if e := out.Ended; e != nil && e.Report != nil {
		b, err := proto.Marshal(t.handEndedMessage(e))
		if err != nil {
			return func(*sqlstore.Tx) error { return fmt.Errorf("table %s hand %d report: %w", t.id, e.HandNo, err) }
		}
		report = b
	}
	handNo := t.dt.HandNo()
	if out.Ended != nil {
		handNo = out.Ended.HandNo
	}
	return func(tx *sqlstore.Tx) error {
		if ordering != nil && !slices.ContainsFunc(steps, func(s dealer.MoveStep) bool { return s.Move == ordering.ID }) {
			// Ordered during a hand the entrant plays: pending until it ends.
			if err := d.Store.AddMove(ctx, tx, *ordering); err != nil {
				return err
			}
			if err := t.publishMove(ctx, tx, ordering.ID); err != nil {
				return err
			}
		}
		for _, s := range steps {
			if err := t.storeStep(ctx, tx, tid, s, ordering); err != nil {
				return err
			}
		}
		for _, rm := range removed {
			if err := d.Store.DropEntrant(ctx, tx, tid, rm.Player, t.id); err != nil {
				return err
			}
			r := store.Removal{Reason: int(rm.Reason), Chips: rm.Chips, Created: d.Clock.Now()}
			if err := d.Store.AddRemoval(ctx, tx, t.id, rm.Player, r); err != nil {
				return err
			}
		}
		if report != nil {
			if err := d.Store.AddHandReport(ctx, tx, t.id, handNo, report); err != nil {
				return err
			}
		}
		if extra != nil {
			return extra(tx)
		}
		return nil
	}
}

// storeStep stores one step of a move taken at this table.
func (t *Table) storeStep(ctx context.Context, tx *sqlstore.Tx, tid string, s dealer.MoveStep, ordering *store.Move) error {
	d := t.r.d
	m := store.Move{ID: s.Move, State: store.MoveState(s.State), Chips: s.Chips, MissedHands: s.MissedHands, Left: s.Left}
	m.Updated = d.Clock.Now()
	switch {
	case s.From == 0:
		// Ordered and taken by this very change.
		if ordering == nil || ordering.ID != s.Move {
			return fmt.Errorf("table %s: move %s taken without its order", t.id, s.Move)
		}
		n := *ordering
		n.State, n.Chips, n.MissedHands, n.Left = m.State, m.Chips, m.MissedHands, m.Left
		if err := d.Store.AddMove(ctx, tx, n); err != nil {
			return err
		}
	default:
		prev, err := d.Store.GetMove(ctx, tx, s.Move)
		if err != nil {
			return err
		}
		m.ToSeat = prev.ToSeat
		if s.State == dealer.MoveArriving || s.State == dealer.MoveDelivered {
			m.ToSeat = s.Seat
		}
		if err := d.Store.AdvanceMove(ctx, tx, store.MoveState(s.From), m); err != nil {
			return err
		}
	}
	var err error
	switch s.State {
	case dealer.MoveInTransit:
		err = d.Store.MoveEntrant(ctx, tx, tid, s.Player, store.Entrant{TableID: t.id}, store.Entrant{Seat: -1, Move: s.Move})
	case dealer.MoveArriving:
		err = d.Store.MoveEntrant(ctx, tx, tid, s.Player, store.Entrant{Move: s.Move}, store.Entrant{TableID: t.id, Seat: s.Seat, Move: s.Move})
	case dealer.MoveDelivered:
		from := store.Entrant{Move: s.Move}
		if s.From == dealer.MoveArriving {
			from.TableID = t.id
		}
		err = d.Store.MoveEntrant(ctx, tx, tid, s.Player, from, store.Entrant{TableID: t.id, Seat: s.Seat})
	}
	if err != nil {
		return err
	}
	return t.publishMove(ctx, tx, s.Move)
}

// publishMove adds the move's MoveUpdated event, read back in tx.
func (t *Table) publishMove(ctx context.Context, tx *sqlstore.Tx, id string) error {
	m, err := t.r.d.Store.GetMove(ctx, tx, id)
	if err != nil {
		return err
	}
	b, err := proto.Marshal(&tablev1.MoveUpdated{Move: MoveToProto(m)})
	if err != nil {
		return fmt.Errorf("table %s event %s: %w", t.id, events.TopicMoveUpdated, err)
	}
	return t.r.d.Relay.Add(ctx, tx, events.Event{Topic: events.TopicMoveUpdated, Key: m.TournamentID, Payload: b, Epoch: t.epoch()})
}

// MoveToProto writes a move.
func MoveToProto(m store.Move) *tablev1.Move {
	return &tablev1.Move{MoveId: m.ID, TournamentId: m.TournamentID, PlayerId: m.Player, FromTableId: m.FromTable,
		FromSeat: int32(m.FromSeat), ToTableId: m.ToTable, ToSeat: int32(m.ToSeat), State: tablev1.MoveState(m.State),
		Chips: m.Chips, MissedHands: int32(m.MissedHands), Left: m.Left, CreateTime: timestamppb.New(m.Created),
		UpdateTime: timestamppb.New(m.Updated)}
}

// handEndedMessage is a hand's table.hand_ended event: at a tournament
// table with its report (start, positions, level, posts, next positions,
// moves, removals).
func (t *Table) handEndedMessage(e *dealer.HandEnded) *tablev1.HandEnded {
	m := &tablev1.HandEnded{TableId: t.id, HandNo: e.HandNo}
	// A tournament places players busted in the same hand by their
	// stacks when it started (TR-37); only the table knows them.
	start := map[int]int64{}
	for _, r := range e.Result.Seats {
		start[r.Seat] = r.Start
	}
	for _, s := range e.Stacks {
		m.Stacks = append(m.Stacks, &tablev1.SeatStack{Seat: int32(s.Seat), PlayerId: s.Player, Stack: s.Stack, StartStack: start[s.Seat],
			MissedHands: int32(s.MissedHands), Left: s.Left, Arriving: s.Arriving})
	}
	for _, b := range e.Busted {
		m.Busted = append(m.Busted, int32(b))
	}
	// A knockout tournament pays a busted player's bounty to the winners
	// of the pots they were in (G-36).
	players := map[int]string{}
	for _, r := range e.Result.Seats {
		players[r.Seat] = r.ID
	}
	for i, p := range e.Result.Pots {
		pr := &tablev1.PotResult{Pot: int32(i), Amount: p.Amount}
		for _, s := range p.EligibleSeats() {
			pr.EligibleSeats = append(pr.EligibleSeats, int32(s))
		}
		for _, w := range p.Winners {
			pr.Winners = append(pr.Winners, &tablev1.PotShare{Seat: int32(w.Seat), PlayerId: players[w.Seat], Amount: w.Amount, Low: w.Low})
		}
		m.Pots = append(m.Pots, pr)
	}
	r := e.Report
	if r == nil {
		return m
	}
	m.TournamentId = t.def.TournamentID
	m.StartTime, m.EndTime = timestamppb.New(r.Start), timestamppb.New(r.End)
	m.Button, m.SmallBlindSeat, m.BigBlindSeat = int32(r.Positions.Button), int32(r.Positions.SmallBlind), int32(r.Positions.BigBlind)
	if r.SmallBlindDead {
		m.SmallBlindSeat = -1
	}
	if r.Stud {
		m.Button, m.SmallBlindSeat, m.BigBlindSeat = -1, -1, -1
	}
	m.Level = int32(r.Level)
	m.Stakes, m.BigBlindAnte = StakesToProto(r.Stakes)
	for _, p := range r.Posts {
		m.Posts = append(m.Posts, &tablev1.ForcedBet{Seat: int32(p.Seat), Kind: p.Kind, Amount: p.Amount})
	}
	if n := r.Next; n != nil {
		b, bb := int32(n.Button), int32(n.BigBlind)
		m.NextButton, m.NextBigBlind = &b, &bb
	}
	for _, s := range r.Moves {
		m.Moves = append(m.Moves, &tablev1.MoveDone{MoveId: s.Move, PlayerId: s.Player, State: tablev1.MoveState(s.State), Chips: s.Chips})
	}
	for _, rm := range r.Removed {
		m.Removed = append(m.Removed, &tablev1.Removal{PlayerId: rm.Player, Seat: int32(rm.Seat), Reason: tablev1.RemovalReason(rm.Reason),
			ChipsRemoved: rm.Chips})
	}
	m.Dealing, m.Chips = r.Dealing, r.Chips
	return m
}

// StakesToProto writes a level's stakes: the big-blind ante as the ante
// with big_blind_ante set.
func StakesToProto(k engine.Stakes) (*gamev1.Stakes, bool) {
	s := &gamev1.Stakes{SmallBlind: k.SmallBlind, BigBlind: k.BigBlind, Ante: k.Ante, BringIn: k.BringIn, SmallBet: k.SmallBet, BigBet: k.BigBet}
	if k.BigBlindAnte > 0 {
		s.Ante = k.BigBlindAnte
		return s, true
	}
	return s, false
}
