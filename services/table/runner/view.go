package runner

import (
	"context"
	"slices"
	"time"

	"github.com/cardroom/cardroom/services/table/dealer"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/engine/button"
)

// View is a table as one viewer may see it.
type View struct {
	TableID string
	Seq     int64
	HandNo  int64
	Seats   []SeatView
	// Hand is the hand in progress as the viewer sees it (engine.View
	// hides every hole card but the viewer's own until the rules expose
	// it); nil between hands.
	Hand        *engine.View
	ViewerSeat  int
	Deadline    time.Time
	ClockCalled bool
	Closed      bool
	// Provisionals are the cash-game out-of-turn wagers held outside the
	// pot (TP-50), in turn order: public, no card in them.
	Provisionals []dealer.Provisional
	// Proposal is the console's standing proposal, for staff only.
	Proposal *dealer.Proposal
	// Last is the most recent finished hand as every viewer may see it
	// (nil before the first hand ends).
	Last *dealer.LastHand
}

// SeatView is one seat in a View.
type SeatView struct {
	No int
	dealer.Seat
	// InHand is set for a seat dealt into the hand in progress, with what
	// the viewer may see of it.
	InHand *engine.SeatView
	// Options are the blind choices of the seat's player (TP-13, TP-15,
	// TP-16, TP-18), in the viewer's own seat only.
	Options []button.Option
}

// Change is one committed change as a watcher may see it.
type Change struct {
	Events []engine.Event
	// Notices are a tournament table's controls the change applied, as
	// the console shows them (no card in them: every viewer sees them).
	Notices []dealer.Notice
	View    View
}

type watcher struct {
	viewer Viewer
	ch     chan Change
}

// watchBuffer is how many changes a watcher may fall behind before it is
// dropped.
const watchBuffer = 256

// view builds what v may see. The caller holds t.mu.
func (t *Table) view(v Viewer) View {
	seat := t.viewerSeat(v)
	out := View{TableID: t.id, Seq: t.dt.Seq(), HandNo: t.dt.HandNo(), ViewerSeat: seat, Deadline: t.dt.Deadline(),
		ClockCalled: t.dt.ClockCalled(), Closed: t.dt.Closed()}
	if seat == Spectator {
		out.ViewerSeat = -1
	}
	out.Last = t.dt.LastHand()
	var hv *engine.View
	if h := t.dt.Hand(); h != nil {
		ev := h.View(seat)
		hv = &ev
		out.Hand = hv
		out.Provisionals = t.dt.Provisionals()
		cfg := t.dt.Config()
		switch {
		case v.Staff:
			// The console sees what the seat in turn may do, with the
			// amounts, and its own standing proposal.
			ev.Legal = slices.Clone(h.LegalActions())
			out.Proposal = t.dt.Proposal()
		case !cfg.StatesPot():
			ev.Pot = 0
		}
	}
	for i, s := range t.dt.Seats() {
		sv := SeatView{No: i, Seat: s}
		if i == seat {
			sv.Options = t.dt.Options(i)
		}
		if hv != nil {
			for k := range hv.Seats {
				if hv.Seats[k].Seat == i {
					sv.InHand = &hv.Seats[k]
				}
			}
		}
		out.Seats = append(out.Seats, sv)
	}
	return out
}

// changeView is view for the answer to a change and its feed message: a
// change that ended a hand (and dealt no next one) shows that hand done,
// with its pots, where a read of the state between hands shows none. The
// caller holds t.mu.
func (t *Table) changeView(v Viewer) View {
	out := t.view(v)
	if h := t.ended; out.Hand == nil && h != nil && t.endedSeq == out.Seq {
		ev := h.View(out.ViewerSeat)
		ev.Legal = nil
		out.Hand = &ev
	}
	return out
}

// State returns the table as v may see it.
func (r *Runner) State(ctx context.Context, id string, v Viewer) (View, error) {
	t, err := r.table(ctx, id)
	if err != nil {
		return View{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.view(v), nil
}

// Watch returns the table as v sees it now and a channel of the changes
// that follow, closed when the watcher falls behind, the table stops
// running here, or stop is called.
func (r *Runner) Watch(ctx context.Context, id string, v Viewer) (View, <-chan Change, func(), error) {
	t, err := r.table(ctx, id)
	if err != nil {
		return View{}, nil, nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped != nil {
		return View{}, nil, nil, ErrOwnedElsewhere
	}
	w := &watcher{viewer: v, ch: make(chan Change, watchBuffer)}
	t.watchers[w] = struct{}{}
	stop := func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if _, ok := t.watchers[w]; ok {
			delete(t.watchers, w)
			close(w.ch)
		}
	}
	return t.view(v), w.ch, stop, nil
}
