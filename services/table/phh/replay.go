package phh

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/engine/cards"
)

// Line is the replayer's verdict on one file, printed as one tab-separated
// line by String.
type Line struct {
	// Name is the file name as given.
	Name string
	// Stacks are the players' stacks after the last action, in PHH player
	// order, as the engine computed them (finishing_stacks is ignored).
	Stacks []Number
	// Reject is set when an action was refused: Index is its 0-based
	// position in actions and Err the refusal (the engine's *refusal.Error, or
	// the format error of that action).
	Reject *ActionError
	// Err is set when the file cannot be replayed at all: not PHH, invalid
	// fields, or a variant the engine does not deal.
	Err error
}

// String returns "NAME\tSTACKS\t[s1, s2, ...]", "NAME\tREJECT@k\treason" or
// "NAME\tERROR\treason".
func (l Line) String() string {
	switch {
	case l.Reject != nil:
		return l.Name + "\tREJECT@" + fmt.Sprint(l.Reject.Index) + "\t" + oneLine(l.Reject.Err.Error())
	case l.Err != nil:
		return l.Name + "\tERROR\t" + oneLine(l.Err.Error())
	}
	return l.Name + "\tSTACKS\t" + numberList(l.Stacks)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Replay reads one PHH file and replays it through the engine.
func Replay(r io.Reader, name string) Line {
	h, err := Parse(r)
	if err != nil {
		return Line{Name: name, Err: err}
	}
	stacks, err := ReplayHistory(h)
	line := Line{Name: name, Stacks: stacks}
	var ae *ActionError
	switch {
	case errors.As(err, &ae):
		line.Reject = ae
	case err != nil:
		line.Err = err
	}
	return line
}

// ReplayHistory plays h through the engine and returns the stacks after its
// last action in PHH player order. A partial history (one that stops before
// the hand ends) gives the stacks behind, chips in the pot not counted, as
// the specification reads finishing_stacks for a non-terminal hand.
//
// Dealer actions are not applied: the deck is built so the engine deals
// exactly the history's cards, and each "d dh"/"d db" is checked against
// what the engine has dealt by then. Player actions are mapped to engine
// actions ("cc" to check or call, "cbr" to bet, raise or complete, "pb" to
// the bring-in, "sm" to show or muck) and applied in order; the first one
// the engine refuses ends the replay with an *ActionError carrying the
// engine's *refusal.Error.
func ReplayHistory(h *History) ([]Number, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	scale, err := scaleOf(h)
	if err != nil {
		return nil, err
	}
	cfg, st, err := setup(h, scale)
	if err != nil {
		return nil, err
	}
	if st.Deck, err = deck(h, cfg.Game); err != nil {
		return nil, err
	}
	hand, err := engine.NewHand(cfg, st)
	if err != nil {
		return nil, fmt.Errorf("engine refuses the setup: %w", err)
	}
	n := h.NumPlayers()
	r := &replayer{h: h, hand: hand, scale: scale, dealt: make([][]cards.Card, n), seen: make([]int, n),
		exposed: map[int]bool{}, mucked: map[int]bool{}, consumed: map[int]bool{}, stack: make([]int64, n), bet: make([]int64, n)}
	for i, p := range st.Players {
		r.stack[i] = p.Stack
	}
	r.record(hand.Events())
	for i, a := range h.Actions {
		if r.consumed[i] {
			continue
		}
		if err := r.apply(i, a); err != nil {
			if _, ok := errors.AsType[*ActionError](err); ok {
				return nil, err
			}
			return nil, &ActionError{Index: i, Action: a.String(), Err: err}
		}
	}
	out := make([]Number, n)
	for i := range n {
		c := hand.Stack(i)
		if c != r.stack[i] {
			// The events and the state disagree: a bug in the engine or in
			// the event accounting here, never in the file.
			return nil, fmt.Errorf("internal: p%d stack %d, events say %d", i+1, c, r.stack[i])
		}
		out[i] = fromChips(c, scale, h.StartingStacks[i].IsInf())
	}
	return out, nil
}

// replayer walks a history through an engine hand.
type replayer struct {
	h     *History
	hand  *engine.Hand
	scale int64
	// dealt and board are the cards the engine has dealt so far, per
	// player and to the board; seen and seenBoard how many of them the
	// history's dealer actions have named.
	dealt     [][]cards.Card
	board     []cards.Card
	seen      []int
	seenBoard int
	// exposed marks players whose cards the engine has turned up itself
	// (all-in exposure, TP-45/G-22), mucked those it mucked for them.
	exposed map[int]bool
	mucked  map[int]bool
	done    bool
	// consumed marks "sm" actions already applied out of the history's
	// order (see showdown).
	consumed map[int]bool
	// stack and bet follow each player's chips through the events: the
	// stack behind and the live bet of the current round.
	stack, bet []int64
}

// Errors the replayer reports about dealer actions and "sm".
var (
	// ErrDealtEarly: the history deals cards the engine has not dealt: the
	// betting round is still open, or the player is no longer in the hand.
	ErrDealtEarly = errors.New("the engine has not dealt these cards: betting round still open or player out of the hand")
	// ErrDealMismatch: the engine dealt other cards than the history says.
	ErrDealMismatch = errors.New("the engine dealt other cards")
)

func (r *replayer) record(evs []engine.Event) {
	for i := range evs {
		e := &evs[i]
		switch e.Kind {
		case engine.EvDealHole, engine.EvDealUp:
			r.dealt[e.Seat] = append(r.dealt[e.Seat], e.CardList()...)
		case engine.EvDealBoard:
			r.board = append(r.board, e.CardList()...)
		case engine.EvExpose, engine.EvShow:
			r.exposed[e.Seat] = true
		case engine.EvMuck:
			r.mucked[e.Seat] = true
		case engine.EvHandEnd:
			r.done = true
		case engine.EvPost:
			r.stack[e.Seat] -= e.Amount
			if !e.Dead {
				r.bet[e.Seat] += e.Amount
			}
		case engine.EvCall, engine.EvBet, engine.EvRaise, engine.EvComplete, engine.EvBringIn:
			// Amount is the seat's total for the round (TP-32).
			r.stack[e.Seat] -= e.Amount - r.bet[e.Seat]
			r.bet[e.Seat] = e.Amount
		case engine.EvReturn:
			r.stack[e.Seat] += e.Amount
			r.bet[e.Seat] -= e.Amount
		case engine.EvRoundEnd:
			clear(r.bet)
		case engine.EvAward:
			r.stack[e.Seat] += e.Amount
		}
	}
}

func (r *replayer) apply(index int, a Action) error {
	switch a.Kind {
	case NoOp:
		return nil
	case DealHole:
		p := a.Player - 1
		return r.check(r.dealt[p], &r.seen[p], a.Cards)
	case DealBoard:
		return r.check(r.board, &r.seenBoard, a.Cards)
	case StandPatDiscard:
		return fmt.Errorf("stand pat/discard: draw games: %w", ErrUnsupported)
	}
	seat := a.Player - 1
	act := engine.Action{Seat: seat, By: engine.RolePlayer}
	legal := r.legalFor(seat)
	switch a.Kind {
	case Fold:
		act.Kind = engine.Fold
	case CheckCall:
		act.Kind = engine.Check
		if _, ok := legal[engine.Call]; ok {
			act.Kind = engine.Call
		}
	case BringIn:
		act.Kind = engine.BringIn
	case CompleteBetRaise:
		amount, err := chips(a.Amount, r.scale)
		if err != nil {
			return err
		}
		act.Amount = amount
		act.Kind = engine.Raise
		for _, k := range []engine.ActionKind{engine.Complete, engine.Bet} {
			if _, ok := legal[k]; ok {
				act.Kind = k
			}
		}
	case ShowMuck:
		return r.showdown(index, a)
	}
	return r.exec(act)
}

func (r *replayer) exec(act engine.Action) error {
	evs, err := r.hand.Apply(act)
	if err != nil {
		return err
	}
	r.record(evs)
	return nil
}

// check compares cards the history deals with the engine's deal.
func (r *replayer) check(engineCards []cards.Card, seen *int, want []cards.Card) error {
	if *seen+len(want) > len(engineCards) {
		return ErrDealtEarly
	}
	for j, c := range want {
		got := engineCards[*seen+j]
		if c != cards.Unknown && c != got {
			return fmt.Errorf("%w: %s where the history says %s", ErrDealMismatch, got, c)
		}
	}
	*seen += len(want)
	return nil
}

// legalFor returns the kinds the engine offers seat now.
func (r *replayer) legalFor(seat int) map[engine.ActionKind]engine.Legal {
	out := map[engine.ActionKind]engine.Legal{}
	for _, l := range r.hand.LegalActions() {
		if l.Seat == seat {
			out[l.Kind] = l
		}
	}
	return out
}

// showdown applies the "sm" action at index. The engine runs the showdown
// in the order of TP-62/TP-63 and decides some hands itself: it mucks a hand
// that cannot win (TP-66), the last hand holding cards wins unshown (TP-64),
// and all-in hands may already be face up (TP-45/G-22). PHH records every
// player's show or muck in the annotator's order. So an "sm" for a hand the
// engine has already settled is accepted as a record of it, and when the
// engine waits for another player whose "sm" comes later in the history,
// that one is applied first. Anything else goes to the engine, which refuses
// it with its reason.
func (r *replayer) showdown(index int, a Action) error {
	seat := a.Player - 1
	for {
		if r.done && !r.offersShow(seat) || r.exposed[seat] || r.mucked[seat] {
			return nil
		}
		turn := r.showdownTurn()
		if turn < 0 || turn == seat {
			break
		}
		j := r.pendingShowdown(index, turn)
		if j < 0 {
			break
		}
		r.consumed[j] = true
		if err := r.apply(j, r.h.Actions[j]); err != nil {
			return &ActionError{Index: j, Action: r.h.Actions[j].String(), Err: err}
		}
	}
	act := engine.Action{Seat: seat, By: engine.RolePlayer, Kind: engine.Show}
	if a.Cards == nil && !a.Dash {
		if r.done {
			return nil // an uncontested winner keeps the cards hidden
		}
		act.Kind = engine.Muck
	}
	return r.exec(act)
}

// showdownTurn returns the seat whose show-or-muck decision the engine is
// waiting for, or -1.
func (r *replayer) showdownTurn() int {
	for _, l := range r.hand.LegalActions() {
		if l.Kind == engine.Muck || l.Kind == engine.Waive {
			return l.Seat
		}
	}
	return -1
}

// offersShow reports whether the engine lets seat show now (after an
// uncontested win, TP-70).
func (r *replayer) offersShow(seat int) bool {
	return slices.ContainsFunc(r.hand.LegalActions(), func(l engine.Legal) bool { return l.Seat == seat && l.Kind == engine.Show })
}

// pendingShowdown finds the next unapplied "sm" of seat after index, before
// any betting action (the showdown block), or -1.
func (r *replayer) pendingShowdown(index, seat int) int {
	for j := index + 1; j < len(r.h.Actions); j++ {
		b := r.h.Actions[j]
		switch b.Kind {
		case ShowMuck:
			if b.Player-1 == seat && !r.consumed[j] {
				return j
			}
		case NoOp, DealBoard, DealHole:
		default:
			return -1
		}
	}
	return -1
}
