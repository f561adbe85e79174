// Package runner runs the tables this process owns: it claims each table
// (its lock plus a new SQL fencing epoch), keeps the table's dealer in
// memory, and makes every change durable before anyone hears of it — the
// table's state, its sealed hand and deck, finished hand histories and the
// outbox events of a change are written in one fenced transaction. It
// drives the action clock and the start of each hand from the injected
// clock, moves money through the wallet (buy-in hold → seat → commit;
// cash-out on leaving) as sagas recorded in SQL and retried until done, and
// streams each change to the table's watchers as they may see it.
package runner

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/telemetry"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"github.com/cardroom/cardroom/services/table/dealer"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/seal"
	"github.com/cardroom/cardroom/services/table/store"
	"github.com/cardroom/cardroom/services/table/tablepb"
	"github.com/cardroom/cardroom/services/table/tables"
)

// Topics of the events a table publishes.
const (
	TopicTableOpened  = "table.opened"
	TopicSeatOpened   = "table.seat_opened"
	TopicHandEnded    = "table.hand_ended"
	TopicPlayerLeft   = "table.player_left"
	TopicPlayerSeated = "table.player_seated"
	TopicTableClosed  = "table.closed"
)

// LockKey is the lock that guards table id (the key lock.Claim uses for
// the row id of the tables table).
func LockKey(id string) string { return store.EntityTable + ":" + id }

// Deps is what a Runner needs.
type Deps struct {
	DB     *sqlstore.DB
	Store  *store.Store
	Clock  clock.Clock
	Locker lock.Locker
	Relay  *events.Relay
	Sealer *seal.Sealer
	// Wallet moves buy-ins and cash-outs. Nil runs without money moves:
	// chips appear and vanish at the table (tests of play only).
	Wallet walletv1.WalletServiceClient
	// Shuffle returns a freshly shuffled deck; nil shuffles with
	// crypto/rand (tests inject seeded decks).
	Shuffle func() cards.Deck
	// HandPause is the pause between the end of a hand and the deal of the
	// next; zero deals at once.
	HandPause time.Duration
	// ClaimWait is how long a request waits for a table whose lock another
	// process holds; default 2 s.
	ClaimWait time.Duration
	// AsyncActionCommit writes plain actions (no money, no hand end, no
	// event) with PostgreSQL's asynchronous commit (store.SaveStateAsync):
	// a database-server crash may lose the last few hundred ms of them.
	AsyncActionCommit bool
	// Logger receives background failures; never cards.
	Logger *slog.Logger
}

// ErrOwnedElsewhere is returned when another process holds a table.
var ErrOwnedElsewhere = fault.New(fault.Unavailable, "TABLE_OWNED_ELSEWHERE", "another process runs this table; retry")

// ErrClosed is returned for a closed table.
var ErrClosed = fault.New(fault.Precondition, "TABLE_CLOSED", "the table is closed")

// Runner runs tables.
type Runner struct {
	d      Deps
	ctx    context.Context // the runner's lifetime: leases and timers end with it
	cancel context.CancelFunc

	mu      sync.Mutex // guards tables and loading
	tables  map[string]*Table
	loading map[string]chan struct{} // closed when a claim in progress ends
}

// New returns a Runner. Close it to release its tables.
func New(d Deps) *Runner {
	if d.Shuffle == nil {
		d.Shuffle = CryptoShuffle
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.ClaimWait == 0 {
		d.ClaimWait = 2 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	telemetry.CountChipMismatches(ctx, "hand", 0) // the series exists at zero
	return &Runner{d: d, ctx: ctx, cancel: cancel, tables: map[string]*Table{}, loading: map[string]chan struct{}{}}
}

// CryptoShuffle returns a deck shuffled with crypto/rand.
func CryptoShuffle() cards.Deck {
	d := cards.NewDeck()
	d.Shuffle(cards.NewCryptoSource())
	return d
}

// Run claims every open table it can, then every 5 s claims the open
// tables nobody runs (a crashed owner's lease has expired) and retries
// unfinished wallet steps; it returns when ctx ends, releasing every table.
func (r *Runner) Run(ctx context.Context) error {
	defer r.Close()
	for {
		r.claimOpen(ctx)
		r.recordWalletSteps(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(5 * time.Second):
			for _, t := range r.owned() {
				t.mu.Lock()
				t.retryMoney(t.r.ctx)
				t.schedule()
				t.mu.Unlock()
			}
		}
	}
}

// claimOpen claims the open tables this process does not run yet; tables
// another replica runs are skipped at once.
func (r *Runner) claimOpen(ctx context.Context) {
	ids, err := r.d.Store.OpenTables(ctx)
	if err != nil {
		r.d.Logger.WarnContext(ctx, "list open tables", "error", err)
		return
	}
	for _, id := range ids {
		r.mu.Lock()
		_, owned := r.tables[id]
		r.mu.Unlock()
		if owned {
			continue
		}
		if _, err := r.claim(ctx, id, false); err != nil && !errors.Is(err, ErrOwnedElsewhere) {
			r.d.Logger.WarnContext(ctx, "claim table", "table", id, "error", err)
		}
	}
}

func (r *Runner) owned() []*Table {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*Table, 0, len(r.tables))
	for _, t := range r.tables {
		out = append(out, t)
	}
	return out
}

// Close stops every table's timers and releases their locks. The epochs
// stay: the next owner claims a higher one.
func (r *Runner) Close() {
	r.cancel()
	for _, t := range r.owned() {
		t.mu.Lock()
		t.stop(errors.New("runner closed"))
		t.mu.Unlock()
	}
}

// table returns the running table id, claiming it on first use (waiting
// up to ClaimWait for another owner to let go).
func (r *Runner) table(ctx context.Context, id string) (*Table, error) { return r.claim(ctx, id, true) }

func (r *Runner) claim(ctx context.Context, id string, wait bool) (*Table, error) {
	for {
		r.mu.Lock()
		if t := r.tables[id]; t != nil {
			r.mu.Unlock()
			return t, nil
		}
		if r.ctx.Err() != nil {
			r.mu.Unlock()
			return nil, fault.New(fault.Unavailable, "SHUTTING_DOWN", "the table service is stopping")
		}
		if ch := r.loading[id]; ch != nil {
			// Another request is claiming it: wait for that one.
			r.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		ch := make(chan struct{})
		r.loading[id] = ch
		r.mu.Unlock()

		t, err := r.load(ctx, id, wait)
		r.mu.Lock()
		delete(r.loading, id)
		if err == nil {
			r.tables[id] = t
		}
		r.mu.Unlock()
		close(ch)
		if err != nil {
			return nil, err
		}
		go func() {
			// A lost lease means another process may own the table now.
			<-t.lease.Context().Done()
			r.drop(t)
		}()
		t.mu.Lock()
		t.resume()
		t.mu.Unlock()
		return t, nil
	}
}

// load takes the table's lock and reads it, without holding r.mu (other
// tables stay reachable while this one waits for its lock).
func (r *Runner) load(ctx context.Context, id string, wait bool) (*Table, error) {
	def, err := r.d.Store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	lease, err := r.acquire(ctx, id, wait)
	if err != nil {
		return nil, err
	}
	t := &Table{r: r, id: id, def: def, lease: lease, watchers: map[*watcher]struct{}{}}
	if err := t.load(ctx); err != nil {
		_ = lease.Release(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("load table %s: %w", id, err)
	}
	if err := t.claimHoldings(ctx); err != nil {
		_ = lease.Release(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("load table %s seat holders: %w", id, err)
	}
	return t, nil
}

func (r *Runner) acquire(ctx context.Context, id string, wait bool) (lock.Lease, error) {
	deadline := time.Now()
	if wait {
		deadline = deadline.Add(r.d.ClaimWait)
	}
	for {
		lease, err := r.d.Locker.TryAcquire(r.ctx, LockKey(id))
		if err == nil {
			return lease, nil
		}
		if !errors.Is(err, lock.ErrHeld) {
			return nil, fmt.Errorf("lock table %s: %w", id, err)
		}
		if time.Now().After(deadline) {
			return nil, ErrOwnedElsewhere
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (r *Runner) drop(t *Table) {
	r.mu.Lock()
	if r.tables[t.id] == t {
		delete(r.tables, t.id)
	}
	r.mu.Unlock()
	t.mu.Lock()
	t.stop(context.Cause(t.lease.Context()))
	t.mu.Unlock()
}

// Table is one running table.
type Table struct {
	r     *Runner
	id    string
	lease lock.Lease

	mu       sync.Mutex // guards everything below
	def      tables.Definition
	dt       *dealer.Table
	fence    sqlstore.Fence
	timer    clock.Timer
	timerFor time.Time
	starter  clock.Timer
	// waker deals again when the next row of a tournament table's level
	// schedule starts (a level after a break, level 1), at wakeFor.
	waker    clock.Timer
	wakeFor  time.Time
	watchers map[*watcher]struct{}
	stopped  error
	// buying counts buy-ins between their seat and their commit: no hand
	// starts then, so nobody is dealt in on chips the wallet has not moved.
	buying int
	// seated is who holds a seat here in the store's seated_players (G-21,
	// seated.go), by seat.
	seated map[string]int
	// console is the dealer's entry being applied, if any: the out-of-turn
	// rulings a change makes are audited in its name (outofturn.go).
	console *consoleEntry
	// ordering is the tournament move being ordered by the change being
	// applied, if any (tournament.go).
	ordering *store.Move
	// ended is the hand the change at sequence endedSeq finished: the
	// answer to that change and its feed message show it done, with its
	// pots (changeView).
	ended    *engine.Hand
	endedSeq int64
}

// load claims a new epoch and reads the table's stored state.
func (t *Table) load(ctx context.Context) error {
	d := t.r.d
	err := d.DB.Tx(t.lease.Context(), func(tx *sqlstore.Tx) (err error) {
		t.fence, err = sqlstore.ClaimEpoch(t.lease.Context(), tx, store.EntityTable, t.id)
		return err
	})
	if err != nil {
		return err
	}
	// The floor's CreateTable stores epoch 1; a claim above 2 follows an
	// earlier dealer's.
	if t.fence.Epoch > 2 {
		lock.CountTakeover(ctx, store.EntityTable)
	}
	dt, err := t.read(ctx)
	if err != nil {
		return err
	}
	t.dt = dt
	return nil
}

// read reads the table's stored state: a new dealer table when nothing is
// stored yet.
func (t *Table) read(ctx context.Context) (*dealer.Table, error) {
	d := t.r.d
	st, err := d.Store.LoadState(ctx, d.DB.SQL(), t.id)
	if err != nil {
		return nil, err
	}
	if st.Public == nil {
		return dealer.New(t.id, t.def.Config, t.def.Seats, dealer.Settings{ActionTimeout: t.def.ActionTimeout}), nil
	}
	var private []byte
	if st.Hand != nil {
		if private, err = d.Sealer.Open(st.Hand, handAD(t.id)); err != nil {
			return nil, fmt.Errorf("open stored hand of %s: %w", t.id, err)
		}
	}
	return dealer.Unmarshal(st.Public, private)
}

// resume restarts what runs by itself: the clock, the next hand, and
// unfinished wallet steps. The caller holds t.mu.
func (t *Table) resume() {
	t.retryMoney(t.r.ctx)
	t.schedule()
}

func (t *Table) stop(cause error) {
	if t.stopped != nil {
		return
	}
	t.stopped = cause
	if t.timer != nil {
		t.timer.Stop()
	}
	if t.starter != nil {
		t.starter.Stop()
	}
	if t.waker != nil {
		t.waker.Stop()
	}
	for w := range t.watchers {
		close(w.ch)
		delete(t.watchers, w)
	}
	_ = t.lease.Release(context.Background())
}

func handAD(id string) string                { return "hand/" + id }
func deckAD(id string, hand int64) string    { return fmt.Sprintf("deck/%s/%d", id, hand) }
func historyAD(id string, hand int64) string { return fmt.Sprintf("history/%s/%d", id, hand) }

// do runs one change of the table under its mutex: fn changes the dealer,
// persist makes it durable (with extra written in the same transaction),
// and then the change is announced and what follows it is scheduled. If
// the change cannot be stored, the table is read back from the store.
func (t *Table) do(ctx context.Context, fn func(dt *dealer.Table) (dealer.Output, error), extra func(tx *sqlstore.Tx) error) (dealer.Output, error) {
	if t.stopped != nil {
		return dealer.Output{}, ErrOwnedElsewhere.Wrap(t.stopped)
	}
	out, err := fn(t.dt)
	if err != nil || out.Duplicate {
		return out, err
	}
	// The next hand is dealt in the same transaction as the change that
	// made the table ready (the end of the last hand, a second player
	// sitting down), with its sealed deck: no card is seen before the deck
	// is stored, and a crash leaves neither or both.
	var deck *sealedDeck
	var also []dealer.Output
	if now := t.r.d.Clock.Now(); t.stopped == nil && t.r.d.HandPause == 0 && t.buying == 0 && t.dt.Ready(now) {
		var cs cards.Deck
		cs, deck = t.shuffle()
		next, err := t.dt.StartHand(cs, now)
		if err != nil {
			t.recover(err)
			return dealer.Output{}, err
		}
		out.Seq, out.Started = next.Seq, next.Started
		out.Events = append(out.Events, next.Events...)
		out.Notices = append(out.Notices, next.Notices...)
		if next.Ended != nil {
			// Over as it was dealt (every player all in on the blinds,
			// or the other hands absent and killed, TP-57): its end is
			// stored with it.
			also = append(also, next)
		}
	}
	if deck != nil {
		prev := extra
		extra = func(tx *sqlstore.Tx) error {
			if err := t.saveDeck(ctx, tx, deck); err != nil {
				return err
			}
			if prev != nil {
				return prev(tx)
			}
			return nil
		}
	}
	if err := t.persist(ctx, out, extra, also...); err != nil {
		t.recover(err)
		return dealer.Output{}, err
	}
	if out.Ended != nil {
		t.checkChips(ctx, out.Ended)
	}
	t.ended = nil
	if out.History != nil {
		t.ended, t.endedSeq = out.History.Hand, t.dt.Seq()
	}
	if out.Started != 0 {
		t.countHand(ctx)
	}
	t.announce(out)
	if len(out.CashOuts) > 0 || len(out.SeatsOpened) > 0 {
		// Pay leavers now (and release the holds of seats that went
		// before their buy-in was committed); what fails is retried in
		// the background. The payment joins the trace of the request
		// that caused it (a leave, a close), so that trace shows the
		// wallet's CashOut.
		t.retryMoney(ctx)
	}
	t.schedule()
	return out, nil
}

// recover reads the table back after a failed write; if this process no
// longer owns it, it stops.
func (t *Table) recover(cause error) {
	if errors.Is(cause, sqlstore.ErrFencedOut) || errors.Is(cause, lock.ErrLockLost) {
		t.stop(cause)
		return
	}
	if err := t.reload(); err != nil {
		t.r.d.Logger.ErrorContext(t.r.ctx, "reload table after a failed write", "table", t.id, "error", err)
		t.stop(err)
	}
}

func (t *Table) reload() error {
	dt, err := t.read(t.r.ctx)
	if err != nil {
		return err
	}
	t.dt = dt
	return nil
}

// update runs fn in a transaction under a context that ends when the
// lease does. With check, the fence is checked first; without, fn's first
// statement must be a fenced write (SaveState), which checks it and takes
// the table row's lock just the same. Read committed isolation is enough:
// every write of a table is serialized by that row lock, and the rows
// written beside it (outbox, hands, decks, money moves) are inserts keyed
// by the table, so serializable isolation would only add retries.
func (t *Table) update(ctx context.Context, check bool, fn func(tx *sqlstore.Tx) error) error {
	return t.underLease(ctx, func(ctx context.Context) error {
		return t.r.d.DB.TxWith(ctx, sqlstore.TxOptions{Isolation: sql.LevelReadCommitted}, func(tx *sqlstore.Tx) error {
			if check {
				if err := t.fence.Check(ctx, tx); err != nil {
					return err
				}
			}
			return fn(tx)
		})
	})
}

// underLease runs write under a context that ends when the lease does; a
// write that fails once the lease is lost reports lock.ErrLockLost.
func (t *Table) underLease(ctx context.Context, write func(ctx context.Context) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(t.lease.Context(), func() { cancel(lock.ErrLockLost) })
	defer stop()
	err := write(ctx)
	if cause := context.Cause(t.lease.Context()); err != nil && cause != nil {
		return fmt.Errorf("table %s: %w: %w", t.id, lock.ErrLockLost, cause)
	}
	return err
}

// persist stores the table's state after out with what out caused (its
// hand history, cash-outs, events, rulings, tournament rows) and extra,
// and what the changes in also caused, in one fenced transaction.
func (t *Table) persist(ctx context.Context, out dealer.Output, extra func(tx *sqlstore.Tx) error, also ...dealer.Output) error {
	d := t.r.d
	public, private, err := t.dt.Marshal()
	if err != nil {
		return err
	}
	st := store.State{Public: public, Closing: t.dt.Closing()}
	if private != nil {
		st.Hand = d.Sealer.Seal(private, handAD(t.id))
	}
	var evs []events.Event
	type savedHand struct {
		hand    store.Hand
		players []store.HandPlayer
	}
	var hands []savedHand
	var cashOuts []store.MoneyMove
	now := d.Clock.Now()
	for _, o := range append([]dealer.Output{out}, also...) {
		oevs, err := t.outboxEvents(o)
		if err != nil {
			return err
		}
		evs = append(evs, oevs...)
		if h := o.History; h != nil {
			b, err := json.Marshal(h)
			if err != nil {
				return fmt.Errorf("table %s hand %d history: %w", t.id, h.HandNo, err)
			}
			sh := savedHand{hand: store.Hand{TableID: t.id, HandNo: h.HandNo, Start: h.Start, End: h.End, History: d.Sealer.Seal(b, historyAD(t.id, h.HandNo))}}
			for _, s := range o.Ended.Result.Seats {
				sh.players = append(sh.players, store.HandPlayer{Player: s.ID, Seat: s.Seat, Net: s.Net})
			}
			hands = append(hands, sh)
		}
		for _, c := range o.CashOuts {
			cashOuts = append(cashOuts, store.MoneyMove{Key: fmt.Sprintf("cash-out/%s/%d/%d", t.id, o.Seq, c.Seat), TableID: t.id,
				Kind: store.MoveCashOut, Player: c.Player, Seat: c.Seat, Amount: c.Stack, Sitting: sittingOf(dealer.Seat{Player: c.Player, Sitting: c.Sitting}),
				Done: t.wallet() == nil, Created: now})
		}
		extra = t.withRulings(ctx, o, extra)
		extra = t.withTournament(ctx, o, extra)
	}
	closed := t.dt.Closed()
	extra = t.withEntry(ctx, extra)
	extra, held := t.withHoldings(ctx, extra)
	if len(hands) == 0 && len(cashOuts) == 0 && len(evs) == 0 && extra == nil {
		// Most actions change the table row alone: one fenced statement,
		// atomic by itself, saves the BEGIN and COMMIT round trips.
		return t.saveStateOnly(ctx, st, closed)
	}
	return held(t.update(ctx, false, func(tx *sqlstore.Tx) error {
		if err := d.Store.SaveState(ctx, tx, t.fence, st, closed); err != nil {
			return err
		}
		for _, h := range hands {
			if err := d.Store.SaveHand(ctx, tx, h.hand, h.players); err != nil {
				return err
			}
		}
		for _, m := range cashOuts {
			if err := d.Store.AddMoneyMove(ctx, tx, m); err != nil {
				return err
			}
		}
		for _, ev := range evs {
			if err := d.Relay.Add(ctx, tx, ev); err != nil {
				return err
			}
		}
		if extra != nil {
			return extra(tx)
		}
		return nil
	}))
}

// saveStateOnly writes the table row with one fenced statement.
func (t *Table) saveStateOnly(ctx context.Context, st store.State, closed bool) error {
	save := t.r.d.Store.SaveStateNow
	if t.r.d.AsyncActionCommit {
		save = t.r.d.Store.SaveStateAsync
	}
	return t.underLease(ctx, func(ctx context.Context) error { return save(ctx, t.fence, st, closed) })
}

func (t *Table) outboxEvents(out dealer.Output) ([]events.Event, error) {
	var msgs []struct {
		topic string
		m     proto.Message
	}
	add := func(topic string, m proto.Message) {
		msgs = append(msgs, struct {
			topic string
			m     proto.Message
		}{topic, m})
	}
	if e := out.Ended; e != nil {
		add(TopicHandEnded, t.handEndedMessage(e))
	}
	for _, c := range out.CashOuts {
		add(TopicPlayerLeft, &tablev1.PlayerLeft{TableId: t.id, Seat: int32(c.Seat), PlayerId: c.Player, Stack: c.Stack})
	}
	// A closing table's seats are not open: table.closed told seating the
	// table is gone, and a seat_opened after it would bring it back.
	for _, s := range out.SeatsOpened {
		if !t.dt.Closing() {
			add(TopicSeatOpened, &tablev1.SeatOpened{TableId: t.id, Seat: int32(s), Game: gameProto(t.def)})
		}
	}
	evs := make([]events.Event, 0, len(msgs))
	for _, m := range msgs {
		b, err := proto.Marshal(m.m)
		if err != nil {
			return nil, fmt.Errorf("table %s event %s: %w", t.id, m.topic, err)
		}
		evs = append(evs, events.Event{Topic: m.topic, Key: t.id, Payload: b, Epoch: t.fence.Epoch})
	}
	return evs, nil
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
// table's schedule, when the table is between hands: the table may deal
// again then (TR-20, G-07). The caller holds t.mu.
func (t *Table) wake() {
	at := time.Time{}
	if !t.dt.InHand() {
		at = t.dt.WakeAt(t.r.d.Clock.Now())
	}
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
	var save func(tx *sqlstore.Tx) error
	if deck != nil {
		save = func(tx *sqlstore.Tx) error { return t.saveDeck(t.r.ctx, tx, deck) }
	}
	if _, err := t.do(t.r.ctx, func(dt *dealer.Table) (dealer.Output, error) { return dt.StartHand(cs, now) }, save); err != nil {
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

// announce sends a change to every watcher as it may see it. A watcher
// that cannot keep up is dropped (it reconnects and starts from a fresh
// state). The caller holds t.mu.
func (t *Table) announce(out dealer.Output) {
	for w := range t.watchers {
		c := Change{Events: visibleEvents(out.Events, t.viewerSeat(w.viewer)), Notices: out.Notices, View: t.changeView(w.viewer)}
		select {
		case w.ch <- c:
		default:
			close(w.ch)
			delete(t.watchers, w)
		}
	}
}

// Caller is who asks: a player acts only for their own seat; staff
// (dealer, floor, admin, service) act for any.
type Caller struct {
	Player string
	Role   string
	Staff  bool
	Floor  bool
}

// Viewer is who watches; a player sees their own hole cards only.
type Viewer struct {
	Player string
	// Staff is a dealer's console or the floor: no hole card, but the
	// legal actions of the seat in turn, the pot at every table and the
	// console's standing proposal.
	Staff bool
}

// Spectator is the seat number views use for someone with no seat: no
// hole card is visible to it.
const Spectator = -2

func (t *Table) viewerSeat(v Viewer) int {
	if v.Player == "" {
		return Spectator
	}
	if s := t.dt.SeatOf(v.Player); s >= 0 {
		return s
	}
	return Spectator
}

func (t *Table) seatFor(c Caller, seat int) error {
	if c.Staff {
		return nil
	}
	seats := t.dt.Seats()
	if seat < 0 || seat >= len(seats) || seats[seat].Player != c.Player {
		return fault.New(fault.Forbidden, "NOT_YOUR_SEAT", "a player acts only for their own seat")
	}
	return nil
}

func gameProto(d tables.Definition) *gamev1.Game { return tablepb.GameToProto(d.Config) }

// serviceContext drops the caller's bearer token, so that calls to the
// wallet go out with the table service's own identity (the wallet's table
// RPCs are for the service role) while the trace carries on.
func serviceContext(ctx context.Context) context.Context { return auth.WithToken(ctx, "") }

// retryMoney finishes the table's unfinished wallet steps: commits of
// holds whose seat was stored, and cash-outs. A commit the wallet refuses
// (the hold expired) undoes its seat, or for a top-up takes the chips back
// off the table. The caller holds t.mu.
//
// req is the context of the request that asked for the steps (the
// runner's own for the background retries). The steps run on the runner's context (a caller
// who hangs up must not cut a payment short) but under req's span, so
// that they appear in the request's trace.
func (t *Table) retryMoney(req context.Context) {
	d := t.r.d
	if t.wallet() == nil || t.stopped != nil {
		return
	}
	ctx := trace.ContextWithSpan(t.r.ctx, trace.SpanFromContext(req))
	moves, err := d.Store.PendingMoneyMoves(ctx, t.id)
	if err != nil {
		d.Logger.WarnContext(ctx, "pending money moves", "table", t.id, "error", err)
		return
	}
	for _, m := range moves {
		if m.Kind == store.MoveBuyIn {
			if s := t.dt.Seats(); m.Seat >= len(s) || s[m.Seat].Player != m.Player || !s[m.Seat].Unpaid {
				// The seat went (the player left, the table closed) before the
				// wallet confirmed the commit: give the chips back instead.
				if err := t.giveBackBuyIn(ctx, m); err != nil {
					t.failed(ctx, m, err)
					continue
				}
				if err := d.Store.FinishMoneyMove(ctx, m.Key); err != nil {
					d.Logger.WarnContext(ctx, "finish money move", "table", t.id, "error", err)
				}
				continue
			}
		}
		err := t.finishMove(ctx, m)
		if err == nil {
			if m.Kind == store.MoveBuyIn {
				t.markPaid(ctx, m)
			}
			continue
		}
		if m.Kind == store.MoveCashOut || !definite(err) {
			t.failed(ctx, m, err)
			continue
		}
		if uerr := t.undoBuyIn(ctx, m); uerr != nil {
			d.Logger.ErrorContext(ctx, "undo a refused buy-in", "table", t.id, "key", m.Key, "error", uerr)
		}
	}
}

// giveBackBuyIn returns the buy-in of a seat that went before the wallet
// confirmed its commit. Usually the hold is still held and is released.
// But a commit can go through with its answer lost (the wallet cut off
// or killed after committing): then the chips are already in the table's
// escrow and the sitting is open, while the table never counted them, so
// they are cashed out to the player, ending that sitting. Releasing alone
// (as before) left them in escrow for good. The caller holds t.mu.
func (t *Table) giveBackBuyIn(ctx context.Context, m store.MoneyMove) error {
	sctx := serviceContext(ctx)
	_, err := t.wallet().ReleaseHold(sctx, &walletv1.ReleaseHoldRequest{IdempotencyKey: m.Key + "/release",
		TableId: t.id, Epoch: t.epoch(), HoldId: m.HoldID})
	if err == nil || !definite(err) {
		return err
	}
	switch walletHoldState(err) {
	case "committed":
		_, err = t.wallet().CashOut(sctx, &walletv1.CashOutRequest{IdempotencyKey: m.Key + "/give-back", TableId: t.id, Epoch: t.epoch(),
			PlayerId: m.Player, Currency: t.def.Currency, Stack: m.Amount, SittingId: m.HoldID, Seat: int32(m.Seat)})
		return err
	case "released", "expired":
		return nil // the chips went back to the player
	}
	return err
}

// walletHoldState is the state the wallet names when it refuses to settle
// a hold that is no longer held (HOLD_NOT_HELD), or "".
func walletHoldState(err error) string {
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetReason() == "HOLD_NOT_HELD" {
			return info.GetMetadata()["state"]
		}
	}
	return ""
}

// StuckAfter is how many failed attempts make a pending wallet step
// stuck: at the background retry's 5 s, about a minute of them. A stuck
// step is still retried, but it is logged as an error, counted
// (cardroom.table.wallet_steps.stuck) and listed for the cage by the wallet
// (ListStuckCashOuts), because its chips stay in the table's escrow until
// someone looks.
const StuckAfter = 12

// failed records a failed attempt at a pending wallet step; the attempt
// that makes it stuck is logged as an error and counted.
func (t *Table) failed(ctx context.Context, m store.MoneyMove, cause error) {
	d := t.r.d
	n, err := d.Store.FailMoneyMove(ctx, m.Key, cause, d.Clock.Now())
	if err != nil {
		d.Logger.WarnContext(ctx, "record a failed wallet step", "table", t.id, "key", m.Key, "error", err)
	}
	if n == StuckAfter {
		d.Logger.ErrorContext(ctx, "wallet step stuck: its chips stay in the table's escrow until it is paid", "table", t.id,
			"kind", m.Kind, "key", m.Key, "seat", m.Seat, "amount", m.Amount, "attempts", n, "error", cause)
		stuckMoves.Add(ctx, 1, metric.WithAttributes(attribute.String("cardroom.wallet_step.kind", m.Kind)))
		return
	}
	d.Logger.WarnContext(ctx, "wallet step (retried)", "table", t.id, "kind", m.Kind, "key", m.Key, "attempts", n, "error", cause)
}

// sittingOf is the wallet sitting of a seat: the one its buy-in opened, or
// for a seat taken before sittings had names, the name the wallet gave
// those (legacy/<player>).
func sittingOf(s dealer.Seat) string {
	if s.Sitting != "" {
		return s.Sitting
	}
	return "legacy/" + s.Player
}

// markPaid deals in a player whose buy-in the wallet committed. The caller
// holds t.mu.
func (t *Table) markPaid(ctx context.Context, m store.MoneyMove) {
	seats := t.dt.Seats()
	if m.Seat >= len(seats) || seats[m.Seat].Player != m.Player || !seats[m.Seat].Unpaid {
		return
	}
	done := func(tx *sqlstore.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE money_moves SET done = TRUE WHERE key = $1`, m.Key)
		return err
	}
	if _, err := t.do(ctx, func(dt *dealer.Table) (dealer.Output, error) { return dt.Paid(m.Seat) }, done); err != nil {
		t.r.d.Logger.ErrorContext(ctx, "mark a buy-in paid", "table", t.id, "seat", m.Seat, "error", err)
	}
}

// undoBuyIn takes back a seat or top-up whose hold the wallet would not
// commit. The caller holds t.mu.
func (t *Table) undoBuyIn(ctx context.Context, m store.MoneyMove) error {
	done := func(tx *sqlstore.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE money_moves SET done = TRUE WHERE key = $1`, m.Key)
		return err
	}
	_, err := t.do(ctx, func(dt *dealer.Table) (dealer.Output, error) {
		if m.Kind == store.MoveTopUp {
			return dt.TakeBack(m.Seat, m.Amount)
		}
		return dt.Unseat(m.Seat)
	}, done)
	t.releaseHold(ctx, m.Key, m.HoldID)
	return err
}

// finishMove performs one recorded wallet step (idempotent at the wallet by
// its key) and marks it done.
func (t *Table) finishMove(ctx context.Context, m store.MoneyMove) error {
	d := t.r.d
	ctx = serviceContext(ctx)
	epoch := t.epoch()
	var err error
	switch m.Kind {
	case store.MoveCashOut:
		_, err = t.wallet().CashOut(ctx, &walletv1.CashOutRequest{IdempotencyKey: m.Key, TableId: t.id, Epoch: epoch,
			PlayerId: m.Player, Currency: t.def.Currency, Stack: m.Amount, SittingId: m.Sitting, Seat: int32(m.Seat)})
	case store.MoveBuyIn, store.MoveTopUp:
		_, err = t.wallet().CommitHold(ctx, &walletv1.CommitHoldRequest{IdempotencyKey: m.Key + "/commit", TableId: t.id, Epoch: epoch, HoldId: m.HoldID})
	}
	if err != nil {
		return err
	}
	if m.Kind == store.MoveBuyIn {
		// Done with the seat's Paid mark, in one transaction (markPaid).
		return nil
	}
	return d.Store.FinishMoneyMove(ctx, m.Key)
}

// wallet is the wallet client for this table's chips: none for a
// tournament table, whose chips are tournament chips, not money.
func (t *Table) wallet() walletv1.WalletServiceClient {
	if t.def.Config.Tournament {
		return nil
	}
	return t.r.d.Wallet
}

func (t *Table) epoch() int64 {
	return t.fence.Epoch
}

// live reports the table's current sequence number, for tests.
func (t *Table) seq() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dt.Seq()
}
