// Package tourbench_test plays whole tournaments in one process for the
// capacity numbers of issue 10 (docs/CAPACITY.md).
package tourbench_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"math/rand/v2"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/random"
	"github.com/cardroom/cardroom/platform/sqlstore"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table/dealer"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/tournament/desk"
	"github.com/cardroom/cardroom/services/tournament/director"
	"github.com/cardroom/cardroom/services/tournament/draw"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/house"
	"github.com/cardroom/cardroom/services/tournament/levels"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// room is the director's Tables port implemented in process around the
// table service's own table logic (package dealer, which runs package
// engine and the dead-button planner): the same tournament controls the
// table service applies under its lock — seat, button, levels, holds,
// removals, moves through transit — without its storage, leases and
// gRPC. Seats are the tournament's (1-based), the dealer's from 0.
type room struct {
	mu     sync.Mutex
	clk    *clock.Fake
	tables map[string]*dealer.Table
	order  []string
	closed map[string]bool
	keys   map[string]string
	moves  map[string]*director.Move
	where  map[string]string // player → table id
}

func newRoom(clk *clock.Fake) *room {
	return &room{clk: clk, tables: map[string]*dealer.Table{}, closed: map[string]bool{}, keys: map[string]string{},
		moves: map[string]*director.Move{}, where: map[string]string{}}
}

// refusal turns the dealer's fault into the director's refusal.
func refusal(err error) error {
	if err == nil {
		return nil
	}
	if f, ok := fault.As(err); ok {
		return &director.Refused{Reason: f.Reason, Err: err}
	}
	return err
}

func refused(reason string) error {
	return &director.Refused{Reason: reason, Err: fmt.Errorf("%s", reason)}
}

// once applies a keyed control once.
func (r *room) once(key, content string) (dup bool, err error) {
	if prev, ok := r.keys[key]; ok {
		if prev != content {
			return true, refused("IDEMPOTENCY_KEY_REUSED")
		}
		return true, nil
	}
	r.keys[key] = content
	return false, nil
}

func (r *room) get(id string) (*dealer.Table, error) {
	tb, ok := r.tables[id]
	switch {
	case !ok:
		return nil, refused("TABLE_NOT_FOUND")
	case r.closed[id]:
		return nil, refused("TABLE_CLOSED")
	}
	return tb, nil
}

// absorb records what a change of table id did to moves and seats.
func (r *room) absorb(id string, out dealer.Output) {
	for _, s := range out.Moves {
		if m, ok := r.moves[s.Move]; ok {
			m.State, m.Chips = director.MoveState(s.State), s.Chips
		}
		switch director.MoveState(s.State) {
		case director.MoveInTransit, director.MoveCancelled:
			if r.where[s.Player] == id && s.State == dealer.MoveInTransit {
				delete(r.where, s.Player)
			}
		case director.MoveDelivered, director.MoveArriving:
			r.where[s.Player] = id
		}
	}
	for _, rm := range out.Removed {
		delete(r.where, rm.Player)
	}
}

func (r *room) Open(_ context.Context, t director.OpenTable) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if id, ok := r.keys["open:"+t.Key]; ok {
		return id, nil
	}
	id := fmt.Sprintf("tbl-%d", len(r.order)+1)
	r.keys["open:"+t.Key] = id
	cfg := engine.Config{Game: engine.Holdem, Structure: engine.NoLimit, Tournament: true,
		Stakes: engine.Stakes{SmallBlind: t.SmallBlind, BigBlind: t.BigBlind}, Profile: engine.DefaultProfile()}
	r.tables[id] = dealer.New(id, cfg, t.Seats, dealer.Settings{})
	r.order = append(r.order, id)
	return id, nil
}

func (r *room) Close(_ context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	tb, err := r.get(id)
	if err != nil {
		return err
	}
	for _, s := range tb.Seats() {
		if s.Occupied() {
			return refused("TABLE_NOT_EMPTY")
		}
	}
	tb.Close()
	r.closed[id] = true
	return nil
}

func (r *room) Seat(_ context.Context, id, key, player string, seat int, stack int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	tb, err := r.get(id)
	if err != nil {
		return err
	}
	if dup, err := r.once(key, fmt.Sprint(id, player, seat, stack)); dup {
		return err
	}
	if at, ok := r.where[player]; ok && at != id {
		return refused("ENTRANT_SEATED_ELSEWHERE")
	}
	if _, err := tb.SeatEntrant(seat-1, player, stack); err != nil {
		return refusal(err)
	}
	r.where[player] = id
	return nil
}

func (r *room) SetButton(_ context.Context, id, key string, seat int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	tb, err := r.get(id)
	if err != nil {
		return err
	}
	if dup, err := r.once(key, fmt.Sprint(id, seat)); dup {
		return err
	}
	_, err = tb.SetButton(seat - 1)
	return refusal(err)
}

func (r *room) SetLevels(_ context.Context, id string, revision int64, rows []director.Row) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	tb, err := r.get(id)
	if err != nil {
		return err
	}
	ls := make([]dealer.Level, 0, len(rows))
	for _, row := range rows {
		st := engine.Stakes{SmallBlind: row.SmallBlind, BigBlind: row.BigBlind, Ante: row.Ante}
		if row.BigBlindAnte {
			st.Ante, st.BigBlindAnte = 0, row.Ante
		}
		ls = append(ls, dealer.Level{No: row.Level, Start: row.Start, Break: row.Break, Stakes: st})
	}
	_, _, err = tb.SetLevels(revision, ls)
	return refusal(err)
}

var holdReasons = map[director.HoldReason]dealer.HoldReason{director.HoldFloor: dealer.HoldFloor, director.HoldBalancing: dealer.HoldBalancing,
	director.HoldHandForHand: dealer.HoldHandForHand, director.HoldClockPaused: dealer.HoldClockPaused}

func (r *room) Hold(_ context.Context, id, holdID string, reason director.HoldReason, through int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	tb, err := r.get(id)
	if err != nil {
		return err
	}
	_, err = tb.Hold(dealer.Hold{ID: holdID, Reason: holdReasons[reason], Through: through})
	return refusal(err)
}

func (r *room) Release(_ context.Context, id, holdID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	tb, err := r.get(id)
	if err != nil {
		return err
	}
	_, err = tb.Release(holdID)
	return refusal(err)
}

func (r *room) SetAbsence(_ context.Context, id, key, player string, hands int, left bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	tb, err := r.get(id)
	if err != nil {
		return err
	}
	if dup, err := r.once(key, fmt.Sprint(id, player, hands, left)); dup {
		return err
	}
	_, err = tb.SetAbsence(player, hands, left)
	return refusal(err)
}

func (r *room) AddChips(_ context.Context, id, key, player string, chips int64, addOn bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	tb, err := r.get(id)
	if err != nil {
		return err
	}
	if dup, err := r.once(key, fmt.Sprint(id, player, chips, addOn)); dup {
		return err
	}
	why := dealer.ChangeRebuy
	if addOn {
		why = dealer.ChangeAddOn
	}
	_, err = tb.AdjustStack(player, chips, nil, why)
	return refusal(err)
}

func (r *room) RaceChips(_ context.Context, id, key, player string, amount, before int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	tb, err := r.get(id)
	if err != nil {
		return err
	}
	if dup, err := r.once(key, fmt.Sprint(id, player, amount, before)); dup {
		return err
	}
	_, err = tb.AdjustStack(player, amount, &before, dealer.ChangeChipRace)
	return refusal(err)
}

func (r *room) RemoveBusted(_ context.Context, id, key, player string) error {
	return r.remove(id, key, player, dealer.RemoveBusted)
}

// RemoveBagged takes a flight's survivor off with their chips (a freezeout
// has no flights; here for the port).
func (r *room) RemoveBagged(_ context.Context, id, key, player string) error {
	return r.remove(id, key, player, dealer.RemoveFinished)
}

// RemoveOut takes a disqualified or expelled entrant off with their chips
// out of play (TR-34).
func (r *room) RemoveOut(_ context.Context, id, key, player string, expel bool) (bool, int64, error) {
	why := dealer.RemoveDisqualified
	if expel {
		why = dealer.RemoveExpelled
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	tb, err := r.get(id)
	if err != nil {
		return false, 0, err
	}
	if dup, err := r.once(key, fmt.Sprint(id, player, why)); dup {
		return false, 0, err
	}
	out, err := tb.RemoveEntrant(player, why)
	if err != nil {
		delete(r.keys, key)
		return false, 0, refusal(err)
	}
	r.absorb(id, out)
	for _, rm := range out.Removed {
		if rm.Player == player {
			return true, rm.Chips, nil
		}
	}
	return false, 0, nil
}

// remove takes player off table id once per key, for the reason given.
func (r *room) remove(id, key, player string, why dealer.RemovalReason) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	tb, err := r.get(id)
	if err != nil {
		return err
	}
	if dup, err := r.once(key, fmt.Sprint(id, player)); dup {
		return err
	}
	out, err := tb.RemoveEntrant(player, why)
	if err != nil {
		delete(r.keys, key)
		return refusal(err)
	}
	r.absorb(id, out)
	return nil
}

func (r *room) MoveOut(_ context.Context, m director.Move) (director.MoveState, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev, ok := r.moves[m.ID]; ok {
		return prev.State, nil
	}
	tb, err := r.get(m.FromTableID)
	if err != nil {
		return 0, err
	}
	m.State = director.MovePending
	r.moves[m.ID] = &m
	out, err := tb.MoveOut(m.Player, m.ID, m.ToTableID)
	if err != nil {
		delete(r.moves, m.ID)
		return 0, refusal(err)
	}
	r.absorb(m.FromTableID, out)
	return r.moves[m.ID].State, nil
}

func (r *room) MoveIn(_ context.Context, id, moveID string) (director.MoveState, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m, ok := r.moves[moveID]
	if !ok {
		return 0, refused("MOVE_NOT_FOUND")
	}
	if m.State != director.MoveInTransit {
		return m.State, nil
	}
	tb, err := r.get(id)
	if err != nil {
		return 0, err
	}
	out, err := tb.MoveIn(m.ToSeat-1, m.Player, dealer.Arrival{Move: m.ID, Chips: m.Chips})
	if err != nil {
		return 0, refusal(err)
	}
	r.absorb(id, out)
	return m.State, nil
}

func (r *room) Moves(_ context.Context, _ string, states ...director.MoveState) ([]director.Move, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []director.Move
	for _, m := range r.moves {
		if len(states) == 0 || m.State == states[0] {
			out = append(out, *m)
		}
	}
	return out, nil
}

func (r *room) CountChips(context.Context, string) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var n int64
	for id, tb := range r.tables {
		if !r.closed[id] {
			n += tb.Chips()
		}
	}
	for _, m := range r.moves {
		if m.State == director.MoveInTransit {
			n += m.Chips
		}
	}
	return n, nil
}

func (r *room) Status(_ context.Context, id string) (director.TableStatus, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tb, ok := r.tables[id]
	if !ok {
		return director.TableStatus{}, refused("TABLE_NOT_FOUND")
	}
	st := director.TableStatus{HandNo: tb.HandNo(), InHand: tb.InHand(), Closed: r.closed[id]}
	for i, s := range tb.Seats() {
		if s.Occupied() {
			st.Seats = append(st.Seats, director.SeatStatus{Seat: i + 1, Player: s.Player, Stack: s.Stack})
		}
	}
	return st, nil
}

// describe lists the open tables, their players and holds, and the
// moves not delivered, for a stalled run's failure.
func (r *room) describe() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := ""
	for _, id := range r.order {
		if r.closed[id] {
			continue
		}
		tb := r.tables[id]
		var ps []string
		for i, s := range tb.Seats() {
			if s.Occupied() {
				ps = append(ps, fmt.Sprintf("%d:%s/%d new=%v", i+1, s.Player, s.Stack, s.New))
			}
		}
		st := tb.Status(r.clk.Now())
		out += fmt.Sprintf("\n%s hand %d in-hand %v ready %v holds %+v players %v", id, tb.HandNo(), tb.InHand(), tb.Ready(r.clk.Now()), st.Tour.Holds, ps)
	}
	for _, m := range r.moves {
		if m.State != director.MoveDelivered && m.State != director.MoveCancelled {
			out += fmt.Sprintf("\nmove %+v", *m)
		}
	}
	return out
}

// handEnded is the table.hand_ended the table service publishes for a
// tournament table's hand (the fields the tournament reads).
func handEnded(tournament, id string, e *dealer.HandEnded) events.Event {
	m := &tablev1.HandEnded{TableId: id, HandNo: e.HandNo, TournamentId: tournament}
	start := map[int]int64{}
	for _, s := range e.Result.Seats {
		start[s.Seat] = s.Start
	}
	for _, s := range e.Stacks {
		m.Stacks = append(m.Stacks, &tablev1.SeatStack{Seat: int32(s.Seat), PlayerId: s.Player, Stack: s.Stack, StartStack: start[s.Seat]})
	}
	for _, b := range e.Busted {
		m.Busted = append(m.Busted, int32(b))
	}
	if r := e.Report; r != nil && r.Next != nil {
		bb := int32(r.Next.BigBlind)
		m.NextBigBlind = &bb
	}
	raw, err := proto.Marshal(m)
	if err != nil {
		panic(err)
	}
	return events.Event{ID: fmt.Sprintf("%s/%d", id, e.HandNo), Topic: events.TopicHandEnded, Key: id, Payload: raw}
}

// bot picks a legal action: mostly check or call, sometimes fold, now and
// then the most aggressive option with a random amount, all in a third of
// those times (seeded).
func bot(legal []engine.Legal, rng rand.Source) engine.Action {
	r := rng.Uint64()
	l := legal[0]
	switch x := r % 100; {
	case x < 25:
	case x < 85:
		for _, c := range legal {
			if c.Kind == engine.Check || c.Kind == engine.Call {
				l = c
			}
		}
	default:
		l = legal[len(legal)-1]
	}
	amt := l.Min
	if l.Max > l.Min {
		amt = l.Min + int64((r>>8)%uint64(l.Max-l.Min+1))
		if r%3 == 0 {
			amt = l.Max
		}
	}
	return engine.Action{Seat: l.Seat, Kind: l.Kind, Amount: amt}
}

// turbo is a fast structure: 10-minute levels doubling from 25/50 with
// an ante from the fourth, a break with a colour-up of the 25 chips after
// the sixth (TR-22).
func turbo() levels.Sheet {
	var ls []levels.Level
	sb := int64(25)
	for i := range 30 {
		l := levels.Level{SmallBlind: sb, BigBlind: 2 * sb, Duration: 10 * time.Minute}
		if i >= 3 {
			l.Ante = sb / 5 * 2
		}
		ls = append(ls, l)
		if i == 5 {
			ls = append(ls, levels.Level{Break: true, Duration: 5 * time.Minute, ColorUp: 25})
		}
		sb *= 2
	}
	return levels.Sheet{Levels: ls}
}

// BenchmarkFreezeout10000 plays a 10,000-entrant freezeout (issue 10) to
// its winner in one process: the real director with the real tournament
// store (SQLite in a temporary directory) and books (server: knock-outs
// and places, TR-37), driving real table logic — each table a
// dealer.Table, the table service's own runner of the engine with the
// dead-button planner and the tournament controls — through an
// in-process implementation of the director's Tables port (room). The
// table service itself (over gRPC, with its PostgreSQL commit per action
// and its Redis leases) is left out on purpose: at the few hundred table
// actions/s a loaded machine gives it (docs/CAPACITY.md) the two million
// or so actions of such an event would take hours, and they are measured
// by the table benchmarks; what this measures is the tournament's side —
// seating, lockstep, balancing and breaking 1,112 tables down to one,
// the books and the chip check after every hand — with real hands.
//
// Bots play seeded legal actions (engine.LegalActions); a fake clock
// moves on a minute per round of hands, so the levels (turbo: 10 minutes,
// a colour-up break with its chip race) go up by the hands played, not by
// the machine's speed. TOURNAMENT_BENCH_ENTRANTS sets another field size
// (make bench plays the 10,000: 17,375 hands, about 550 s of CPU;
// docs/CAPACITY.md has the numbers and what bounds them).
// Reported: hands/s (and per CPU second), wall seconds, hands in all; with
// -v, progress every 1,000 hands on stderr.
func BenchmarkFreezeout10000(b *testing.B) {
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("TOURNAMENT_BENCH_ENTRANTS")); err == nil && v > 1 {
		n = v
	}
	for b.Loop() {
		cpu0 := cpuTime()
		hands, wall := freezeout(b, n)
		b.ReportMetric(float64(hands), "hands")
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(float64(hands)/wall.Seconds(), "hands/s")
		// On a shared machine wall time overstates the cost: hands per
		// second of this process's CPU time (setup included) is the other
		// figure.
		if cpu := cpuTime() - cpu0; cpu > 0 {
			b.ReportMetric(float64(hands)/cpu.Seconds(), "hands/cpu-s")
		}
	}
}

// cpuTime is the user+system CPU time of this process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func freezeout(b *testing.B, n int) (hands int, wall time.Duration) {
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, sqlstore.Options{DataDir: b.TempDir(), Service: "tournament", Migrations: store.Migrations(),
		Shared: []sqlstore.MigrationSet{events.Migrations}})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	start := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clk := clock.NewFake(start)
	st := store.New(db)
	src := random.Locked(random.Seeded(1))
	rm := newRoom(clk)
	// The desk's director, wired as the service wires it: each hand to
	// the desk's books first.
	d := desk.New(desk.Deps{Store: st, Clock: clk, Random: src, Tables: rm}).Director()

	const id = "fz"
	e := event.Event{ID: id, Name: "Freezeout", Game: "HOLDEM", Structure: "NO_LIMIT", Format: event.Freezeout,
		BuyIn: event.BuyIn{PrizePool: 100, Fee: 10, Currency: "EUR"}, StartingStack: 5000, StartsAt: start, Status: event.Scheduled, CreatedAt: start}
	if err := st.Create(ctx, e, house.Rules{Sheet: turbo()}.WithDefaults(e)); err != nil {
		b.Fatal(err)
	}
	players := make([]string, n)
	for i := range players {
		players[i] = fmt.Sprintf("bot%05d", i)
	}
	seats, err := draw.Seats(players, 9, src)
	if err != nil {
		b.Fatal(err)
	}
	err = st.Update(ctx, id, func(tx *store.Tx, tr *store.Tournament) error {
		first := map[int]int{}
		for _, s := range seats {
			if err := tx.PutEntry(entry.Entry{EventID: id, PlayerID: s.PlayerID, Status: entry.Active, RegisteredAt: start,
				Table: s.Table, Seat: s.Seat}); err != nil {
				return err
			}
			if _, ok := first[s.Table]; !ok {
				first[s.Table] = s.Seat
			}
		}
		for t, s := range first {
			if err := tx.AddDraw("button", map[string]any{"table": t, "button_seat": s}, start); err != nil {
				return err
			}
		}
		tr.Event.Status, tr.Clock.Started = event.Running, start
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	began := time.Now()
	if err := d.Start(ctx, id); err != nil {
		b.Fatal(err)
	}
	rng := random.Seeded(2)
	deck := cards.NewDeck()
	idle := 0
	for {
		dealt := 0
		rm.mu.Lock()
		order := append([]string(nil), rm.order...)
		rm.mu.Unlock()
		for _, tid := range order {
			ended, err := playHand(rm, tid, deck, rng)
			if err != nil {
				b.Fatalf("table %s: %v", tid, err)
			}
			if ended == nil {
				continue
			}
			dealt++
			if hands++; testing.Verbose() && hands%1000 == 0 {
				fmt.Fprintf(os.Stderr, "freezeout: %d hands, %v\n", hands, time.Since(began).Round(time.Second))
			}
			// The books first (knock-outs, places), then the director.
			if err := d.HandleHandEnded(ctx, handEnded(id, tid, ended)); err != nil {
				b.Fatalf("hand %d at %s: %v", ended.HandNo, tid, err)
			}
		}
		t, err := st.Load(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		if t.Event.Status != event.Running {
			break
		}
		if dealt == 0 {
			if idle++; idle > 120 {
				b.Fatalf("no table dealt for %d rounds with %d hands played; tables: %s", idle, hands, rm.describe())
			}
		} else {
			idle = 0
		}
		clk.Advance(time.Minute)
	}
	wall = time.Since(began)
	res, err := st.Results(ctx, id)
	if err != nil {
		b.Fatal(err)
	}
	if len(res) != n {
		b.Fatalf("%d places for %d entrants", len(res), n)
	}
	if mm := d.Mismatch(id); mm != 0 {
		b.Fatalf("chips not conserved: %d", mm)
	}
	return hands, wall
}

// playHand deals the next hand at table id if it may and plays it out
// with bots; nil when it dealt none.
func playHand(rm *room, id string, deck cards.Deck, rng rand.Source) (*dealer.HandEnded, error) {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	tb := rm.tables[id]
	now := rm.clk.Now()
	if rm.closed[id] || !tb.Ready(now) {
		return nil, nil
	}
	deck.Shuffle(rng)
	out, err := tb.StartHand(deck, now)
	if err != nil {
		return nil, err
	}
	rm.absorb(id, out)
	for out.Ended == nil {
		h := tb.Hand()
		legal := h.LegalActions()
		if len(legal) == 0 {
			return nil, fmt.Errorf("hand %d: no legal action and not ended", tb.HandNo())
		}
		out, err = tb.Apply(dealer.Act{Action: bot(legal, rng)}, now)
		if err != nil {
			return nil, err
		}
		rm.absorb(id, out)
	}
	return out.Ended, nil
}
