package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/cardroom/cardroom/platform/random"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/table/dealer"
	"github.com/cardroom/cardroom/services/table/engine/cards"
)

// CryptoShuffle returns a deck shuffled with crypto/rand.
func CryptoShuffle() cards.Deck {
	d := cards.NewDeck()
	d.Shuffle(random.Crypto())
	return d
}

// schedule arms the action clock and the start of the next hand. The
// caller holds t.mu.
func (t *Table) schedule() {
	if t.stopped != nil {
		return
	}
	clk := t.r.d.Clock
	if dl := t.dt.Deadline(); !dl.Equal(t.timerFor) {
		if t.timer != nil {
			t.timer.Stop()
			t.timer = nil
		}
		t.timerFor = dl
		if !dl.IsZero() {
			t.timer = clk.AfterFunc(max(dl.Sub(clk.Now()), time.Millisecond), t.expire)
		}
	}
	t.wake()
	if t.dt.Ready(clk.Now()) && t.starter == nil && t.buying == 0 {
		if t.r.d.HandPause > 0 {
			t.starter = clk.AfterFunc(t.r.d.HandPause, func() {
				t.mu.Lock()
				defer t.mu.Unlock()
				t.starter = nil
				t.startHand()
			})
			return
		}
		t.startHand()
	}
}

// wake arms the waker for the start of the next row of a tournament
// table's schedule: the console is told of the new level then, also
// during a hand (TR-20), and a table between hands may deal again (G-07).
// The caller holds t.mu.
func (t *Table) wake() {
	at := t.dt.WakeAt(t.r.d.Clock.Now())
	if at.Equal(t.wakeFor) {
		return
	}
	if t.waker != nil {
		t.waker.Stop()
		t.waker = nil
	}
	t.wakeFor = at
	if at.IsZero() {
		return
	}
	clk := t.r.d.Clock
	t.waker = clk.AfterFunc(max(at.Sub(clk.Now()), time.Millisecond), func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.waker, t.wakeFor = nil, time.Time{}
		// A level or a break between hands is on the console now (TR-20,
		// G-07).
		now := t.r.d.Clock.Now()
		if _, err := t.do(t.r.ctx, func(dt *dealer.Table) (dealer.Output, error) { return dt.ClockTurned(now), nil }, nil); err != nil {
			t.r.d.Logger.ErrorContext(t.r.ctx, "clock turned", "table", t.id, "error", err)
		}
		t.schedule()
	})
}

// expire applies a passed deadline (TP-59).
func (t *Table) expire() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.timerFor = time.Time{}
	t.timer = nil
	now := t.r.d.Clock.Now()
	if _, err := t.do(t.r.ctx, func(dt *dealer.Table) (dealer.Output, error) { return dt.Expire(now) }, nil); err != nil {
		t.r.d.Logger.ErrorContext(t.r.ctx, "action clock", "table", t.id, "error", err)
	}
}

type sealedDeck struct {
	no     int64
	sealed []byte
}

// shuffle returns the deck of the next hand and its sealed form to store
// with it; a live table's cards are physical, so it has none (nil, nil).
// The caller holds t.mu.
func (t *Table) shuffle() (cards.Deck, *sealedDeck) {
	if t.dt.Config().Physical {
		return nil, nil
	}
	no := t.dt.HandNo() + 1
	cs := t.r.d.Shuffle()
	return cs, &sealedDeck{no: no, sealed: t.r.d.Sealer.Seal(cardBytes(cs), deckAD(t.id, no))}
}

// saveDeck stores the sealed deck of the hand being dealt. A deck already
// stored for that hand means another writer dealt it: the transaction is
// refused, and the table is read back.
func (t *Table) saveDeck(ctx context.Context, tx *sqlstore.Tx, d *sealedDeck) error {
	saved, err := t.r.d.Store.SaveDeck(ctx, tx, t.id, d.no, d.sealed)
	if err != nil {
		return err
	}
	if !saved {
		return fmt.Errorf("table %s hand %d: a deck is already stored: %w", t.id, d.no, sqlstore.ErrFencedOut)
	}
	return nil
}

// startHand deals the next hand after a pause (or when nothing else made
// the table ready): do deals it with its deck in one transaction. The
// caller holds t.mu.
func (t *Table) startHand() {
	now := t.r.d.Clock.Now()
	if t.stopped != nil || !t.dt.Ready(now) {
		return
	}
	no := t.dt.HandNo() + 1
	cs, deck := t.shuffle()
	if _, err := t.dealing(t.r.ctx, func(dt *dealer.Table) (dealer.Output, error) { return dt.StartHand(cs, now) }, deck, nil); err != nil {
		t.r.d.Logger.ErrorContext(t.r.ctx, "start hand", "table", t.id, "hand", no, "error", err)
	}
}

func cardBytes(d cards.Deck) []byte {
	b := make([]byte, len(d))
	for i, c := range d {
		b[i] = byte(c)
	}
	return b
}
