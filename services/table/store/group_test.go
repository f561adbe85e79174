package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/tables"
)

// createTables stores n tables t0..t(n-1), each owned by epoch 1, and
// returns their fences.
func createTables(t *testing.T, s *Store, n int) []sqlstore.Fence {
	t.Helper()
	fences := make([]sqlstore.Fence, n)
	for i := range fences {
		d := tables.Definition{ID: fmt.Sprintf("t%d", i), Name: fmt.Sprintf("Table %d", i), Seats: 2, Kind: tables.Cash,
			Config:    engine.Config{Game: engine.Holdem, Structure: engine.NoLimit, Stakes: engine.Stakes{SmallBlind: 1, BigBlind: 2}},
			CreatedAt: time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)}
		if err := d.Validate(); err != nil {
			t.Fatal(err)
		}
		if err := s.Create(t.Context(), d, nil); err != nil {
			t.Fatal(err)
		}
		fences[i] = sqlstore.Fence{Table: EntityTable, ID: d.ID, Epoch: 1}
	}
	return fences
}

// claim takes table id over as a new owner would (its epoch moves on).
func claim(t *testing.T, db *sqlstore.DB, id string) {
	t.Helper()
	if err := db.Tx(t.Context(), func(tx *sqlstore.Tx) error {
		_, err := sqlstore.ClaimEpoch(t.Context(), tx, EntityTable, id)
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

func stateOf(i int) State {
	st := State{Public: fmt.Appendf(nil, `{"seq":%d}`, i), Closing: i%3 == 0}
	if i%2 == 0 {
		st.Hand = []byte{byte(i), 0, 1} // sealed bytes; nil between hands
	}
	if i%4 == 0 {
		st.HandFixed = []byte{byte(i), 2} // the hand split (migration 00011); whole when i%4 == 2
	}
	return st
}

func checkState(t *testing.T, s *Store, id string, want State) {
	t.Helper()
	got, err := s.LoadState(t.Context(), s.db.SQL(), id)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Public) != string(want.Public) || string(got.Hand) != string(want.Hand) || (got.Hand == nil) != (want.Hand == nil) ||
		string(got.HandFixed) != string(want.HandFixed) || (got.HandFixed == nil) != (want.HandFixed == nil) || got.Closing != want.Closing {
		t.Fatalf("table %s state = %q %v %v %v, want %q %v %v %v", id, got.Public, got.Hand, got.HandFixed, got.Closing, want.Public, want.Hand, want.HandFixed, want.Closing)
	}
}

// TestSaveStatesFencesEachTable: tables' states are each fenced by their
// own epoch (ARCHITECTURE.md, "Correctness under concurrency"), whether
// several are written at once (the batch's join on PostgreSQL) or one
// alone (the plain fenced UPDATE): a table another owner has claimed is
// refused with FENCED_OUT and keeps its state, while the others are
// stored, every column of them, closed or not, with or without a hand.
func TestSaveStatesFencesEachTable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		batch int // saves per SaveStates call
	}{
		{"all in one write", 4},
		{"each written alone", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testkit.EachStore(t, sqlstore.Options{Service: "table", Migrations: Migrations()}, func(t *testing.T, db *sqlstore.DB) {
				s := New(db)
				fences := createTables(t, s, 4)
				claim(t, db, "t2")
				saves := make([]StateSave, len(fences))
				for i, f := range fences {
					saves[i] = StateSave{Fence: f, State: stateOf(i), Closed: i == 3}
				}
				var errs []error
				for batch := range slices.Chunk(saves, tc.batch) {
					got, err := s.SaveStates(t.Context(), batch)
					if err != nil {
						t.Fatal(err)
					}
					if len(got) != len(batch) {
						t.Fatalf("%d answers for %d saves", len(got), len(batch))
					}
					errs = append(errs, got...)
				}
				for i, err := range errs {
					if fenced := errors.Is(err, sqlstore.ErrFencedOut); fenced != (i == 2) || (i != 2 && err != nil) {
						t.Fatalf("save %d: %v (want FENCED_OUT for t2 alone)", i, err)
					}
				}
				for i, f := range fences {
					want := stateOf(i)
					if i == 2 {
						want = State{Public: nil}
					}
					checkState(t, s, f.ID, want)
				}
				open, err := s.OpenTables(t.Context())
				if err != nil || fmt.Sprint(open) != "[t0 t1 t2]" {
					t.Fatalf("open tables = %v, %v; want t3 closed", open, err)
				}
				if _, err := s.SaveStates(t.Context(), []StateSave{saves[0], saves[0]}); err == nil {
					t.Fatal("a write naming one table twice was accepted")
				}
			})
		})
	}
}

// TestStateGroupAnswersEachTable: tables that write at once through the
// group each get their own answer — stored, or FENCED_OUT for the one a
// newer owner holds — and every stored state is the one its table wrote.
func TestStateGroupAnswersEachTable(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "table", Migrations: Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s := New(db)
		const n = 24
		fences := createTables(t, s, n)
		claim(t, db, "t5")
		g := NewStateGroup(s, 8, 2)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for round := range 3 {
			for i, f := range fences {
				wg.Go(func() { errs[i] = g.Save(t.Context(), f, stateOf(i+round), false) })
			}
			wg.Wait()
			for i, err := range errs {
				if fenced := errors.Is(err, sqlstore.ErrFencedOut); fenced != (i == 5) || (i != 5 && err != nil) {
					t.Fatalf("round %d save %d: %v (want FENCED_OUT for t5 alone)", round, i, err)
				}
			}
		}
		for i, f := range fences {
			if i != 5 {
				checkState(t, s, f.ID, stateOf(i+2))
			}
		}
		// The fenced-out table's writes are carried too.
		if st := g.Stats(); st.Saves != 3*n || st.Batches < 3*n/8 || st.Batches > st.Saves {
			t.Fatalf("stats %+v: want %d saves in at least %d batches", st, 3*n, 3*n/8)
		}
	})
}

// TestStateGroupSeparatesAFailedWrite: when a batch's write fails as a
// whole (here PostgreSQL refuses a NUL byte in one table's JSON), each
// table is written again alone, so the others are stored and only the
// bad one fails.
func TestStateGroupSeparatesAFailedWrite(t *testing.T) {
	t.Parallel()
	db := testkit.Postgres(t, sqlstore.Options{Service: "table", Migrations: Migrations()})
	s := New(db)
	fences := createTables(t, s, 3)
	g := NewStateGroup(s, 0, 0)
	batch := make([]*stateCall, len(fences))
	for i, f := range fences {
		st := stateOf(i)
		if i == 1 {
			st.Public = []byte("{\x00}")
		}
		batch[i] = &stateCall{ctx: t.Context(), save: StateSave{Fence: f, State: st}, done: make(chan struct{})}
	}
	g.run(batch)
	for i, c := range batch {
		<-c.done
		if (c.err != nil) != (i == 1) {
			t.Fatalf("save %d: %v (want an error for t1 alone)", i, c.err)
		}
	}
	checkState(t, s, "t0", stateOf(0))
	checkState(t, s, "t2", stateOf(2))
}

// TestStateGroupCallerLeavesBeforeBatch: a caller whose context has ended
// before its write was taken is answered with that cause and its write
// never happens.
func TestStateGroupCallerLeavesBeforeBatch(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "table", Migrations: Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s := New(db)
		fences := createTables(t, s, 1)
		g := NewStateGroup(s, 0, 0)
		ctx, cancel := context.WithCancelCause(t.Context())
		gone := errors.New("lease lost")
		cancel(gone)
		if err := g.Save(ctx, fences[0], stateOf(1), false); !errors.Is(err, gone) {
			t.Fatalf("Save after the caller left = %v, want %v", err, gone)
		}
		checkState(t, s, "t0", State{})
		if st := g.Stats(); st.Saves != 0 {
			t.Fatalf("stats %+v, want nothing written", st)
		}
	})
}

// TestStateGroupWritesHandEndsInTheBatch: a hand's end (its history and
// player index, written by the save's Also) goes into the batch's one
// transaction with the plain writes; a table fenced out writes neither its
// state nor its hand (ARCHITECTURE.md, "Correctness under concurrency");
// a hand end refused (here a hand stored twice) fails its own table
// alone — the batch is written again table by table; and hand ends alone,
// none fenced out, are written by one pipeline, each once.
func TestStateGroupWritesHandEndsInTheBatch(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "table", Migrations: Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s := New(db)
		fences := createTables(t, s, 4)
		claim(t, db, "t2")
		end := time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC)
		// Whether each table's hand end last ran in a pipelined
		// transaction, and how often it ran.
		var mu sync.Mutex
		pipelined, runs := map[string]bool{}, map[string]int{}
		handEnd := func(id string, no int64) func(ctx context.Context, tx *sqlstore.Tx) error {
			return func(ctx context.Context, tx *sqlstore.Tx) error {
				mu.Lock()
				pipelined[id] = tx.Pipelined()
				runs[id]++
				mu.Unlock()
				if err := s.SaveHand(ctx, tx, Hand{TableID: id, HandNo: no, Start: end.Add(-time.Minute), End: end, History: []byte{1, 2, 3}},
					[]HandPlayer{{Player: "alice", Seat: 1, Net: 5}, {Player: "bob", Seat: 2, Net: -5}}); err != nil {
					return err
				}
				if saved, err := s.SaveDeck(ctx, tx, id, no+1, []byte{byte(no)}); err != nil || !saved {
					return fmt.Errorf("deck of hand %d at %s: saved %v, %w", no+1, id, saved, err)
				}
				return nil
			}
		}
		postgres := db.Dialect() == sqlstore.Postgres
		g := NewStateGroup(s, 0, 0)
		run := func(saves []StateSave) []error {
			batch := make([]*stateCall, len(saves))
			for i, sv := range saves {
				batch[i] = &stateCall{ctx: t.Context(), save: sv, done: make(chan struct{})}
			}
			g.run(batch)
			errs := make([]error, len(batch))
			for i, c := range batch {
				<-c.done
				errs[i] = c.err
			}
			return errs
		}
		// t0 and t2 end hand 1, t1 and t3 act: one batch.
		errs := run([]StateSave{
			{Fence: fences[0], State: stateOf(0), Also: handEnd("t0", 1), Pipelinable: true},
			{Fence: fences[1], State: stateOf(1)},
			{Fence: fences[2], State: stateOf(2), Also: handEnd("t2", 1), Pipelinable: true},
			{Fence: fences[3], State: stateOf(3)},
		})
		for i, err := range errs {
			if fenced := errors.Is(err, sqlstore.ErrFencedOut); fenced != (i == 2) || (i != 2 && err != nil) {
				t.Fatalf("save %d: %v (want FENCED_OUT for t2 alone)", i, err)
			}
		}
		if st := g.Stats(); st.Batches != 1 || st.Saves != 4 {
			t.Fatalf("stats %+v, want the four saves in one batch", st)
		}
		for _, c := range []struct {
			table  string
			stored bool
		}{{"t0", true}, {"t2", false}} {
			if _, err := s.GetHand(t.Context(), c.table, 1); (err == nil) != c.stored {
				t.Fatalf("hand 1 of %s: %v (want stored %v)", c.table, err, c.stored)
			}
		}
		if played, err := s.HandPlayed(t.Context(), "bob", "t0", 1); err != nil || !played {
			t.Fatalf("bob's hand 1 at t0 indexed = %v, %v", played, err)
		}
		checkState(t, s, "t0", stateOf(0))
		checkState(t, s, "t2", State{})
		// On PostgreSQL the pipeline failed on t2's fence (fence_held:
		// its statements had been sent unanswered behind the UPDATE) and
		// the batch was written again in turn, where t2's hand end did not
		// run; on SQLite it was written in turn alone.
		if want := map[bool][2]int{true: {2, 1}, false: {1, 0}}[postgres]; pipelined["t0"] || runs["t0"] != want[0] || runs["t2"] != want[1] {
			t.Fatalf("t0's hand end last pipelined %v, ran %d times; t2's ran %d times (want written in turn; %d and %d times)",
				pipelined["t0"], runs["t0"], runs["t2"], want[0], want[1])
		}
		if deck, err := s.LoadDeck(t.Context(), "t0", 2); err != nil || len(deck) != 1 {
			t.Fatalf("t0's deck of hand 2 = %v, %v", deck, err)
		}

		// t0 stores hand 1 again (refused: it is stored), t3 ends hand 1
		// and t1 acts: t0 alone fails, the others are stored.
		errs = run([]StateSave{
			{Fence: fences[0], State: stateOf(10), Also: handEnd("t0", 1), Pipelinable: true},
			{Fence: fences[1], State: stateOf(11)},
			{Fence: fences[3], State: stateOf(13), Also: handEnd("t3", 1), Pipelinable: true},
		})
		if errs[0] == nil || errs[1] != nil || errs[2] != nil {
			t.Fatalf("errors %v: want t0's alone", errs)
		}
		checkState(t, s, "t0", stateOf(0))
		checkState(t, s, "t1", stateOf(11))
		checkState(t, s, "t3", stateOf(13))
		if _, err := s.GetHand(t.Context(), "t3", 1); err != nil {
			t.Fatalf("hand 1 of t3: %v", err)
		}

		// A hand end said to be pipelinable with a statement a pipeline
		// cannot send (ExecContext) beside one that is: the pipeline is
		// rolled back and the batch written in turn, both hands stored.
		clear(runs)
		unpipelined := func(id string, no int64) func(ctx context.Context, tx *sqlstore.Tx) error {
			return func(ctx context.Context, tx *sqlstore.Tx) error {
				if _, err := tx.ExecContext(ctx, `DELETE FROM decks WHERE table_id = $1 AND hand_no = $2`, id, 99); err != nil {
					return err
				}
				return handEnd(id, no)(ctx, tx)
			}
		}
		errs = run([]StateSave{
			{Fence: fences[1], State: stateOf(21), Also: unpipelined("t1", 1), Pipelinable: true},
			{Fence: fences[3], State: stateOf(23), Also: handEnd("t3", 2), Pipelinable: true},
		})
		if errs[0] != nil || errs[1] != nil {
			t.Fatalf("errors %v, want none", errs)
		}
		for _, id := range []string{"t1", "t3"} {
			if pipelined[id] {
				t.Fatalf("%s's hand end was last written by a pipeline, want in turn", id)
			}
		}
		if want := map[bool]int{true: 2, false: 1}[postgres]; runs["t3"] != want {
			t.Fatalf("t3's hand end ran %d times, want %d (a rolled-back pipeline, then in turn)", runs["t3"], want)
		}
		checkState(t, s, "t1", stateOf(21))
		checkState(t, s, "t3", stateOf(23))
		for _, h := range []struct {
			table string
			no    int64
		}{{"t1", 1}, {"t3", 2}} {
			if _, err := s.GetHand(t.Context(), h.table, h.no); err != nil {
				t.Fatalf("hand %d of %s: %v", h.no, h.table, err)
			}
		}

		// A hand end not said to be pipelinable is never run in a
		// pipeline, nor are the others of its batch.
		clear(runs)
		errs = run([]StateSave{
			{Fence: fences[1], State: stateOf(31), Also: handEnd("t1", 2)},
			{Fence: fences[3], State: stateOf(33), Also: handEnd("t3", 3), Pipelinable: true},
		})
		if errs[0] != nil || errs[1] != nil || pipelined["t1"] || pipelined["t3"] || runs["t1"] != 1 || runs["t3"] != 1 {
			t.Fatalf("errors %v; pipelined %v, runs %v: want both written once, in turn", errs, pipelined, runs)
		}

		// A deck already stored (t3's of hand 4, above) refuses its table
		// alone, though a pipeline does not wait for the deck's answer:
		// the pipeline fails on the deck's key and the batch is written
		// in turn, where the deck is found stored.
		dealt := func(id string, no int64) func(ctx context.Context, tx *sqlstore.Tx) error {
			return func(ctx context.Context, tx *sqlstore.Tx) error {
				if saved, err := s.SaveDeck(ctx, tx, id, no, []byte{9}); err != nil || !saved {
					return fmt.Errorf("deck of hand %d at %s: saved %v, %w", no, id, saved, err)
				}
				return nil
			}
		}
		errs = run([]StateSave{
			{Fence: fences[1], State: stateOf(41), Also: handEnd("t1", 3), Pipelinable: true},
			{Fence: fences[3], State: stateOf(43), Also: dealt("t3", 4), Pipelinable: true},
		})
		if errs[0] != nil || errs[1] == nil {
			t.Fatalf("errors %v: want t3's alone", errs)
		}
		checkState(t, s, "t1", stateOf(41))
		checkState(t, s, "t3", stateOf(33))
		if deck, err := s.LoadDeck(t.Context(), "t3", 4); err != nil || len(deck) != 1 || deck[0] != 3 {
			t.Fatalf("t3's deck of hand 4 = %v, %v: want the first one kept", deck, err)
		}

		// Hand ends alone, none fenced out: on PostgreSQL one pipeline
		// (one round trip), each hand end run once.
		clear(runs)
		errs = run([]StateSave{
			{Fence: fences[0], State: stateOf(50), Also: handEnd("t0", 5), Pipelinable: true},
			{Fence: fences[1], State: stateOf(51), Also: handEnd("t1", 5), Pipelinable: true},
		})
		if errs[0] != nil || errs[1] != nil || pipelined["t0"] != postgres || pipelined["t1"] != postgres || runs["t0"] != 1 || runs["t1"] != 1 {
			t.Fatalf("errors %v; pipelined %v, runs %v: want both written once, pipelined on PostgreSQL", errs, pipelined, runs)
		}
		for i, id := range []string{"t0", "t1"} {
			checkState(t, s, id, stateOf(50+i))
			if _, err := s.GetHand(t.Context(), id, 5); err != nil {
				t.Fatalf("hand 5 of %s: %v", id, err)
			}
		}
	})
}

// TestStateGroupKeepsHandEndsApart: a committer takes plain state writes
// or hand ends (writes with an Also), not both, so that a plain action's
// one-statement write never waits for another table's hand end; the other
// kind stays queued in order for the next batch, and a write whose caller
// left is dropped.
func TestStateGroupKeepsHandEndsApart(t *testing.T) {
	t.Parallel()
	also := func(context.Context, *sqlstore.Tx) error { return nil }
	call := func(id string, handEnd bool) *stateCall {
		c := &stateCall{save: StateSave{Fence: sqlstore.Fence{ID: id}}, done: make(chan struct{})}
		if handEnd {
			c.save.Also = also
		}
		return c
	}
	gone := call("gone", false)
	gone.gone = true
	g := &StateGroup{maxBatch: 2, committers: 1, running: 1}
	g.queue = []*stateCall{call("p1", false), call("h1", true), gone, call("p2", false), call("p3", false), call("h2", true)}
	ids := func(batch []*stateCall) string {
		var s []string
		for _, c := range batch {
			if !c.taken {
				t.Fatalf("%s handed out but not marked taken", c.save.Fence.ID)
			}
			s = append(s, c.save.Fence.ID)
		}
		return fmt.Sprint(s)
	}
	for _, want := range []string{"[p1 p2]", "[h1 h2]", "[p3]"} {
		if got := ids(g.take()); got != want {
			t.Fatalf("batch %s, want %s", got, want)
		}
	}
	if b := g.take(); b != nil || g.idle != 1 || g.queue != nil {
		t.Fatalf("after the queue emptied: batch %v, %d committers idle, queue %v", b, g.idle, g.queue)
	}
	if !g.stop() || g.running != 0 || g.idle != 0 {
		t.Fatalf("an idle committer with nothing queued did not stop: %d running, %d idle", g.running, g.idle)
	}
}

// TestSaveStatesPipelineFailureInTheFirstRound: when the plain saves'
// UPDATE itself fails in a pipelined batch (a state PostgreSQL refuses:
// a NUL byte in text), the batch fails as a whole with an error, written
// again in turn, and nothing of it is stored; the batch's other table
// keeps its state.
func TestSaveStatesPipelineFailureInTheFirstRound(t *testing.T) {
	t.Parallel()
	db := testkit.Postgres(t, sqlstore.Options{Service: "table", Migrations: Migrations()})
	s := New(db)
	fences := createTables(t, s, 2)
	ran := 0
	_, err := s.SaveStates(t.Context(), []StateSave{
		{Fence: fences[0], State: State{Public: []byte("{\"seq\":1}\x00")}},
		{Fence: fences[1], State: stateOf(1), Pipelinable: true, Also: func(context.Context, *sqlstore.Tx) error { ran++; return nil }},
	})
	if err == nil {
		t.Fatal("a batch whose UPDATE PostgreSQL refuses was stored")
	}
	checkState(t, s, "t1", State{})
	if ran > 2 {
		t.Fatalf("the hand end ran %d times, want at most twice (pipelined, then in turn)", ran)
	}
}
