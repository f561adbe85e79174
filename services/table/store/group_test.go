package store

import (
	"context"
	"errors"
	"fmt"
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
	return st
}

func checkState(t *testing.T, s *Store, id string, want State) {
	t.Helper()
	got, err := s.LoadState(t.Context(), s.db.SQL(), id)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Public) != string(want.Public) || string(got.Hand) != string(want.Hand) || (got.Hand == nil) != (want.Hand == nil) || got.Closing != want.Closing {
		t.Fatalf("table %s state = %q %v %v, want %q %v %v", id, got.Public, got.Hand, got.Closing, want.Public, want.Hand, want.Closing)
	}
}

// TestSaveStatesFencesEachTable: several tables' states written at once
// are each fenced by their own epoch (ARCHITECTURE.md, "Correctness under
// concurrency"): a table another owner has claimed is refused with
// FENCED_OUT and keeps its state, while the others in the same write are
// stored.
func TestSaveStatesFencesEachTable(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "table", Migrations: Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s := New(db)
		fences := createTables(t, s, 4)
		claim(t, db, "t2")
		saves := make([]StateSave, len(fences))
		for i, f := range fences {
			saves[i] = StateSave{Fence: f, State: stateOf(i), Closed: i == 3}
		}
		errs, err := s.SaveStates(t.Context(), saves)
		if err != nil {
			t.Fatal(err)
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
// and a hand end refused (here a hand stored twice) fails its own table
// alone — the batch is written again table by table.
func TestStateGroupWritesHandEndsInTheBatch(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "table", Migrations: Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s := New(db)
		fences := createTables(t, s, 4)
		claim(t, db, "t2")
		end := time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC)
		handEnd := func(id string, no int64) func(ctx context.Context, tx *sqlstore.Tx) error {
			return func(ctx context.Context, tx *sqlstore.Tx) error {
				return s.SaveHand(ctx, tx, Hand{TableID: id, HandNo: no, Start: end.Add(-time.Minute), End: end, History: []byte{1, 2, 3}},
					[]HandPlayer{{Player: "alice", Seat: 1, Net: 5}, {Player: "bob", Seat: 2, Net: -5}})
			}
		}
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
			{Fence: fences[0], State: stateOf(0), Also: handEnd("t0", 1)},
			{Fence: fences[1], State: stateOf(1)},
			{Fence: fences[2], State: stateOf(2), Also: handEnd("t2", 1)},
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

		// t0 stores hand 1 again (refused: it is stored), t3 ends hand 1
		// and t1 acts: t0 alone fails, the others are stored.
		errs = run([]StateSave{
			{Fence: fences[0], State: stateOf(10), Also: handEnd("t0", 1)},
			{Fence: fences[1], State: stateOf(11)},
			{Fence: fences[3], State: stateOf(13), Also: handEnd("t3", 1)},
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
	})
}
