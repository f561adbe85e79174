package dealer

import (
	"errors"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/table/engine/button"
	"github.com/cardroom/cardroom/services/table/engine/refusal"
)

func (t *Table) checkSeat(seat int) error {
	if seat < 0 || seat >= len(t.seats) {
		return ErrNoSuchSeat.Withf("seat %d is not a seat at a %d-seat table", seat, len(t.seats))
	}
	return nil
}

// FreeSeat returns the lowest empty seat, or ErrTableFull.
func (t *Table) FreeSeat() (int, error) {
	for i, s := range t.seats {
		if !s.Occupied() {
			return i, nil
		}
	}
	return -1, ErrTableFull
}

// CheckSit reports whether player may sit in seat now (before the service
// asks the wallet for the buy-in).
func (t *Table) CheckSit(seat int, player string) error {
	if err := t.checkSeat(seat); err != nil {
		return err
	}
	if t.SeatOf(player) >= 0 {
		return ErrAlreadySeated
	}
	if t.seats[seat].Occupied() {
		if _, err := t.FreeSeat(); err != nil {
			return err
		}
		return ErrSeatTaken.Withf("seat %d is taken", seat)
	}
	return nil
}

// Sit seats player in seat with stack chips (already moved to the table's
// escrow by the wallet). A new player waits for the big blind unless they
// choose to post now (TP-13); on a tournament table they play at once.
// Sitting down during a hand deals the player in from the next hand.
func (t *Table) Sit(seat int, player string, stack int64, postNow bool) (Output, error) {
	if err := t.CheckSit(seat, player); err != nil {
		return Output{}, err
	}
	if stack <= 0 {
		return Output{}, ErrBadAmount
	}
	if t.closing {
		return Output{}, fault.New(fault.Precondition, "TABLE_CLOSED", "the table is closed")
	}
	bs := button.Sit(player, stack)
	t.seats[seat] = Seat{Player: bs.Player, Stack: bs.Stack, New: bs.New && !t.cfg.Tournament, PostNow: postNow}
	return t.changed(), nil
}

// SitUnpaid seats a player like Sit whose buy-in the wallet has yet to
// take: they are not dealt in until Paid. sitting names the wallet's
// sitting the buy-in opens.
func (t *Table) SitUnpaid(seat int, player string, stack int64, postNow bool, sitting string) (Output, error) {
	out, err := t.Sit(seat, player, stack, postNow)
	if err == nil {
		t.seats[seat].Unpaid = true
		t.seats[seat].Sitting = sitting
	}
	return out, err
}

// Paid records that the wallet committed the buy-in of the player in seat.
func (t *Table) Paid(seat int) (Output, error) {
	if err := t.occupied(seat); err != nil {
		return Output{}, err
	}
	t.seats[seat].Unpaid = false
	return t.changed(), nil
}

// SitOut marks the player in seat as sitting out from the next hand: they
// are not dealt in and owe the blinds that pass them (TP-12, TP-15, TP-18).
func (t *Table) SitOut(seat int) (Output, error) {
	if err := t.occupied(seat); err != nil {
		return Output{}, err
	}
	t.seats[seat].SittingOut = true
	t.seats[seat].PostNow = false
	return t.changed(), nil
}

// StepAway is SitOut for a player who has left their seat now (an absence
// recorded by seating, CS-13, CS-14): in the hand in progress, if they are
// in it, the house acts for the seat as for one that is away (G-43) — it
// checks when it may, folds facing a bet and tables a hand live at the
// showdown — so the hand never waits for a player who is not there. The
// seat keeps its chips and sits out from the next hand.
func (t *Table) StepAway(seat int, now time.Time) (Output, error) {
	out, err := t.SitOut(seat)
	if err != nil || t.cfg.Tournament || !t.dealtIn(seat) || t.hand.Done() {
		// A tournament seat is dealt and posts while away (TR-35).
		return out, err
	}
	t.seats[seat].Away = true
	if err := t.settle(&out, now); err != nil {
		return Output{}, err
	}
	return out, nil
}

// Return brings a player who sat out back. With postNow they pay what they
// owe and are dealt in at the next hand; otherwise they wait for the big
// blind (TP-15, TP-16, TP-18).
func (t *Table) Return(seat int, postNow bool) (Output, error) {
	if err := t.occupied(seat); err != nil {
		return Output{}, err
	}
	if err := t.penaltyInForce(seat); err != nil {
		return Output{}, err
	}
	// Back at the seat, the player acts for themselves again (G-43).
	t.seats[seat].SittingOut, t.seats[seat].Away = false, false
	t.seats[seat].PostNow = postNow
	return t.changed(), nil
}

// ErrStraddleNotAllowed refuses a straddle request at a table that never
// deals one: tournament tables (TP-20) and stud, which has no blinds.
var ErrStraddleNotAllowed = fault.Rule(fault.Precondition, "TP-20", "STRADDLE_NOT_ALLOWED", "this table deals no straddle")

// RequestStraddle records (on) or withdraws (!on) the request of the
// player in seat to straddle the next hand: a live blind of twice the big
// blind, posted by the seat after the big blind, which then acts last
// before the flop and sizes raises like a big blind (TP-20, G-12). Only
// cash hold'em-family tables deal straddles. Between hands the request is
// checked at once against the next hand's plan; a request made during a
// hand is checked when the next hand is dealt, and if the seat is then not
// the one after the big blind (or cannot cover the straddle) that hand is
// dealt without it.
func (t *Table) RequestStraddle(seat int, on bool) (Output, error) {
	if err := t.occupied(seat); err != nil {
		return Output{}, err
	}
	if t.cfg.Tournament {
		return Output{}, ErrStraddleNotAllowed.Withf("no straddle on tournament tables")
	}
	if t.cfg.Game.IsStud() {
		return Output{}, ErrStraddleNotAllowed.Withf("stud has no blinds to straddle")
	}
	if on && t.hand == nil && !t.closing {
		bt := t.buttonTable()
		bt.Seats[seat].Straddle = true
		if _, err := button.PlanHand(bt); isStraddleRefusal(err) {
			return Output{}, err
		}
	}
	t.seats[seat].Straddle = on
	return t.changed(), nil
}

// isStraddleRefusal reports whether err is the planner refusing a
// straddle request (TP-20).
func isStraddleRefusal(err error) bool {
	var be *refusal.Error
	return errors.As(err, &be) && be.Rule == "TP-20"
}

// Options returns what the player in seat may choose before the next hand
// (TP-13, TP-15, TP-16, TP-18): nil when they owe nothing.
func (t *Table) Options(seat int) []button.Option {
	if seat < 0 || seat >= len(t.seats) || t.cfg.Game.IsStud() {
		return nil
	}
	return button.Options(seat, t.buttonSeat(t.seats[seat]), t.stakes(), t.cfg.Tournament)
}

// TopUp adds chips the wallet has moved to the table. Between hands they
// play at once; during a hand they wait for its end (CS-05). A player with
// no chips left has rebought: the blinds they missed are collected under
// TP-19.
func (t *Table) TopUp(seat int, amount int64) (Output, error) {
	if err := t.occupied(seat); err != nil {
		return Output{}, ErrTopUpBusted.Wrap(err)
	}
	if amount <= 0 {
		return Output{}, ErrBadAmount
	}
	t.addChips(seat, amount)
	return t.changed(), nil
}

// addChips adds bought chips to the seat: to the stack between hands, to
// Pending during a hand the seat was dealt into (CS-05).
func (t *Table) addChips(seat int, amount int64) {
	s := &t.seats[seat]
	if t.dealtIn(seat) {
		s.Pending += amount
		return
	}
	if s.Stack == 0 && !s.New {
		s.Rebought = true
	}
	s.Stack += amount
}

// TopUpUnpaid records a top-up whose hold the wallet has yet to commit:
// its chips wait in Seat.Unconfirmed and play only once TopUpPaid says the
// wallet has them, so a commit refused later (the hold expired) takes back
// chips that never went into a pot (G-41).
func (t *Table) TopUpUnpaid(seat int, amount int64) (Output, error) {
	if err := t.occupied(seat); err != nil {
		return Output{}, ErrTopUpBusted.Wrap(err)
	}
	if amount <= 0 {
		return Output{}, ErrBadAmount
	}
	t.seats[seat].Unconfirmed += amount
	return t.changed(), nil
}

// TopUpPaid records that the wallet committed a top-up of amount to the
// seat: its chips join the stack, or Pending if the seat is in the hand in
// progress (CS-05). A top-up stored before chips waited for their commit
// (no Unconfirmed chips to move) is on the table already, and nothing
// changes. A seat that asked to leave while its chips waited leaves now.
func (t *Table) TopUpPaid(seat int, amount int64) (Output, error) {
	if err := t.occupied(seat); err != nil {
		return Output{}, err
	}
	out := t.changed()
	if s := &t.seats[seat]; s.Unconfirmed >= amount {
		s.Unconfirmed -= amount
		t.addChips(seat, amount)
		t.leaveSettled(seat, &out)
	}
	return out, nil
}

// leaveSettled vacates a seat that asked to leave (or whose table closed)
// while a top-up waited for the wallet, once none waits and the seat is
// not in the hand in progress.
func (t *Table) leaveSettled(seat int, out *Output) {
	s := t.seats[seat]
	if s.Unconfirmed == 0 && (s.Leaving || t.closing) && !t.dealtIn(seat) {
		t.vacate(seat, out)
	}
}

// Leave takes the player in seat away from the table. Between hands, or if
// they are not in the hand, they leave at once with their stack; if they
// are in the hand in progress they leave when it ends, with what the hand
// left them. Until then the house acts for the seat that is away (G-43): it
// checks when it may and folds facing a bet (TP-56: the hand may be
// removed), and a hand still live at the showdown — an all-in one (TP-44)
// — is tabled for it and wins what it wins, never mucked (TP-64, TP-67).
func (t *Table) Leave(seat int, now time.Time) (Output, error) {
	if err := t.occupied(seat); err != nil {
		return Output{}, err
	}
	if t.dealtIn(seat) && !t.hand.Done() {
		t.seats[seat].Leaving = true
		out := t.changed()
		if err := t.settle(&out, now); err != nil {
			return Output{}, err
		}
		return out, nil
	}
	out := t.changed()
	t.vacate(seat, &out)
	return out, nil
}

func (t *Table) vacate(seat int, out *Output) {
	s := t.seats[seat]
	if s.Unconfirmed > 0 {
		// The wallet has not said where a top-up's chips are: cashing the
		// seat out now would either leave them out (and a commit that went
		// through would strand them in escrow) or pay chips the escrow may
		// never get. The seat leaves when they are settled (G-41).
		t.seats[seat].Leaving = true
		return
	}
	// An unpaid seat takes nothing: its chips never reached the table (the
	// service settles its buy-in with the wallet instead).
	if !s.Unpaid {
		out.CashOuts = append(out.CashOuts, CashOut{Seat: seat, Player: s.Player, Stack: s.Stack + s.Pending, Sitting: s.Sitting})
	}
	out.SeatsOpened = append(out.SeatsOpened, seat)
	t.seats[seat] = Seat{}
}

func (t *Table) occupied(seat int) error {
	if err := t.checkSeat(seat); err != nil {
		return err
	}
	if !t.seats[seat].Occupied() {
		return ErrEmptySeat.Withf("seat %d is empty", seat)
	}
	return nil
}

// Unseat removes a player whose buy-in did not go through: they take no
// chips with them, because none reached the table. It refuses a player
// dealt into the hand in progress.
func (t *Table) Unseat(seat int) (Output, error) {
	if err := t.occupied(seat); err != nil {
		return Output{}, err
	}
	if t.dealtIn(seat) {
		return Output{}, fault.New(fault.Precondition, "SEAT_IN_HAND", "the seat is in the hand in progress")
	}
	t.seats[seat] = Seat{}
	out := t.changed()
	out.SeatsOpened = []int{seat}
	return out, nil
}

// TakeBack removes chips a top-up added when the wallet would not commit
// them: from the chips waiting for the commit (G-41), which never play, so
// a hand in progress does not stand in the way. A top-up stored before
// chips waited for their commit is taken from the queued chips (CS-05),
// then from the stack between hands; chips the seat has in play are
// refused. A seat that asked to leave while its chips waited leaves now.
func (t *Table) TakeBack(seat int, amount int64) (Output, error) {
	if err := t.occupied(seat); err != nil {
		return Output{}, err
	}
	s := &t.seats[seat]
	switch {
	case s.Unconfirmed >= amount:
		s.Unconfirmed -= amount
		out := t.changed()
		t.leaveSettled(seat, &out)
		return out, nil
	case s.Pending >= amount:
		s.Pending -= amount
	case !t.dealtIn(seat) && s.Stack >= amount:
		s.Stack -= amount
	default:
		return Output{}, fault.New(fault.Precondition, "CHIPS_IN_PLAY", "the chips are in play; the floor settles it after the hand")
	}
	return t.changed(), nil
}
