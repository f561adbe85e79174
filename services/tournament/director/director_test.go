package director_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/random"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/tournament/desk"
	"github.com/cardroom/cardroom/services/tournament/director"
	"github.com/cardroom/cardroom/services/tournament/draw"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/house"
	"github.com/cardroom/cardroom/services/tournament/levels"
	"github.com/cardroom/cardroom/services/tournament/store"
)

var now = time.Date(2026, 12, 1, 19, 0, 0, 0, time.UTC)

const stack = 5000

// running stores a running freezeout of n entrants seated by the draw
// (TR-06) with a button drawn at each table, as StartTournament leaves it.
func running(t *testing.T, db *sqlstore.DB, n int) *store.Store {
	t.Helper()
	return runningWith(t, db, n, house.Rules{})
}

// runningWith is running with the house's rules (defaults filled in).
func runningWith(t *testing.T, db *sqlstore.DB, n int, rules house.Rules) *store.Store {
	t.Helper()
	s := store.New(db)
	ctx := t.Context()
	e := event.Event{ID: "ev1", Name: "Turbo", Game: "HOLDEM", Structure: "NO_LIMIT", Format: event.Freezeout,
		BuyIn: event.BuyIn{PrizePool: 100, Fee: 10, Currency: "EUR"}, StartingStack: stack, StartsAt: now, Status: event.Scheduled, CreatedAt: now}
	if err := s.Create(ctx, e, rules.WithDefaults(e)); err != nil {
		t.Fatal(err)
	}
	var players []string
	for i := range n {
		players = append(players, fmt.Sprintf("p%02d", i+1))
	}
	src := random.Seeded(7)
	seats, err := draw.Seats(players, 9, src)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(ctx, "ev1", func(tx *store.Tx, tr *store.Tournament) error {
		byTable := map[int][]int{}
		for _, st := range seats {
			if err := tx.PutEntry(entry.Entry{EventID: "ev1", PlayerID: st.PlayerID, Status: entry.Active, RegisteredAt: now,
				Table: st.Table, Seat: st.Seat}); err != nil {
				return err
			}
			byTable[st.Table] = append(byTable[st.Table], st.Seat)
		}
		for n, ss := range byTable {
			if err := tx.AddDraw("button", map[string]any{"table": n, "button_seat": ss[len(ss)-1]}, now); err != nil {
				return err
			}
		}
		tr.Event.Status, tr.Clock.Started = event.Running, now
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// started is a running event of n entrants whose tables the director has
// opened and seated (Start) on a fake table service.
func started(t *testing.T, db *sqlstore.DB, n int) (*store.Store, *fakeTables, *director.Director) {
	t.Helper()
	s := running(t, db, n)
	f := newFakeTables()
	d := newDirector(s, f, clock.NewFake(now))
	if err := d.Start(t.Context(), "ev1"); err != nil {
		t.Fatal(err)
	}
	return s, f, d
}

func newDirector(s *store.Store, f *fakeTables, clk clock.Clock) *director.Director {
	books := desk.New(desk.Deps{Store: s, Clock: clk})
	return director.New(director.Deps{Store: s, Tables: f, Clock: clk, Random: random.Seeded(11), Round: books.BookRound})
}

// at returns where the fake has a player: table id and seat.
func (f *fakeTables) at(player string) (string, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	tb, seat := f.where("ev1", player)
	if tb == nil {
		return "", 0
	}
	return tb.id, seat
}

// TestStart_SeatsTheDrawButtonsAndLevels_TR06_TR07_TR08_TR20: the start
// opens one table per drawn table, seats every entrant at the drawn seat
// with the starting stack, places the drawn button, sends the schedule
// with each row's start by the clock, and lets hand 1 deal; repeating it
// changes nothing.
func TestStart_SeatsTheDrawButtonsAndLevels_TR06_TR07_TR08_TR20(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s := running(t, db, 27)
		f := newFakeTables()
		d := newDirector(s, f, clock.NewFake(now))
		for range 2 {
			if err := d.Start(t.Context(), "ev1"); err != nil {
				t.Fatal(err)
			}
		}
		links, err := s.Tables(t.Context(), "ev1")
		if err != nil || len(links) != 3 || len(f.tables) != 3 {
			t.Fatalf("links %v (%v), tables at the service %d", links, err, len(f.tables))
		}
		ens, _ := s.Entries(t.Context(), "ev1")
		for _, en := range ens {
			id, seat := f.at(en.PlayerID)
			if id != links[en.Table-1].TableID || seat != en.Seat || f.tables[id].stacks[en.PlayerID] != stack {
				t.Errorf("%s at %s seat %d with %d, drawn table %d seat %d", en.PlayerID, id, seat, f.tables[id].stacks[en.PlayerID], en.Table, en.Seat)
			}
		}
		tr, _ := s.Load(t.Context(), "ev1")
		for _, l := range links {
			tb := f.tables[l.TableID]
			ss := []int{}
			for seat := range 10 {
				if _, ok := tb.seats[seat]; ok {
					ss = append(ss, seat)
				}
			}
			if tb.button != ss[len(ss)-1] {
				t.Errorf("table %d button %d, drawn %d", l.Table, tb.button, ss[len(ss)-1])
			}
			if tb.holds[director.HoldLockstep] != 1 || len(tb.rows) != len(tr.Rules.Sheet.Levels) || !tb.rows[0].Start.Equal(now) ||
				!tb.rows[1].Start.Equal(now.Add(tr.Rules.Sheet.Levels[0].Duration)) || tb.rows[1].BigBlind != tr.Rules.Sheet.Levels[1].BigBlind {
				t.Errorf("table %d holds %v rows %+v", l.Table, tb.holds, tb.rows[:2])
			}
		}
		if d.Mismatch("ev1") != 0 {
			t.Fatal("mismatch before any hand")
		}
	})
}

// bust takes players' chips (they lost them at their table) and knocks
// them out in the books, as the hand's record step does.
func bust(t *testing.T, s *store.Store, f *fakeTables, players ...string) {
	t.Helper()
	err := s.Update(t.Context(), "ev1", func(tx *store.Tx, _ *store.Tournament) error {
		for _, p := range players {
			en, err := tx.Entry(p)
			if err != nil {
				return err
			}
			en.Status = entry.Busted
			if err := tx.PutEntry(*en); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var lost int64
	for _, p := range players {
		tb, _ := f.where("ev1", p)
		lost += tb.stacks[p]
		tb.stacks[p] = 0
	}
	// Their chips went to the first player of the first table.
	tb := f.tables["tbl1"]
	for seat := range 10 {
		if p, ok := tb.seats[seat]; ok && tb.stacks[p] > 0 {
			tb.stacks[p] += lost
			return
		}
	}
}

func mustEntries(t *testing.T, s *store.Store) []entry.Entry {
	t.Helper()
	ens, err := s.Entries(t.Context(), "ev1")
	if err != nil {
		t.Fatal(err)
	}
	return ens
}

// tablePlayers returns the tournament's players at a table of the plan.
func tablePlayers(t *testing.T, s *store.Store, table int) []string {
	t.Helper()
	ens, err := s.Entries(t.Context(), "ev1")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, en := range ens {
		if en.Status == entry.Active && en.Table == table {
			out = append(out, en.PlayerID)
		}
	}
	return out
}

// TestStart_LiveEventOpensLiveTables_TP68: an event the house deals live
// opens live tables (physical cards, the dealer console), and a digital
// one digital tables.
func TestStart_LiveEventOpensLiveTables_TP68(t *testing.T) {
	t.Parallel()
	for _, live := range []bool{true, false} {
		t.Run(fmt.Sprintf("live=%v", live), func(t *testing.T) {
			t.Parallel()
			testkit.EachStore(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()}, func(t *testing.T, db *sqlstore.DB) {
				f := newFakeTables()
				if err := newDirector(runningWith(t, db, 12, house.Rules{Live: live}), f, clock.NewFake(now)).Start(t.Context(), "ev1"); err != nil {
					t.Fatal(err)
				}
				if len(f.tables) != 2 {
					t.Fatalf("%d tables opened, want 2", len(f.tables))
				}
				for id, tb := range f.tables {
					if tb.live != live {
						t.Errorf("table %s opened live=%v", id, tb.live)
					}
				}
			})
		})
	}
}

// TestHandEnded_MovesThePlayerTheTableSaysIsDueTheBigBlind_TR23_G25: two
// players bust at table 3 (9/9/7); when table 1's hand ends, the player
// its own report names as due the big blind (not the one a moving button
// would give) goes, with their chips, to the worst seat at table 3; the
// slip is in the audit, the entry follows, the busted are removed, the
// chips are conserved and table 1 may deal its next hand.
func TestHandEnded_MovesThePlayerTheTableSaysIsDueTheBigBlind_TR23_G25(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s, f, d := started(t, db, 27)
		ctx := t.Context()
		out := tablePlayers(t, s, 3)[:2]
		bust(t, s, f, out...)
		if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl3", Table: 3, No: 1, Busted: out}); err != nil {
			t.Fatal(err)
		}
		if id, _ := f.at(out[0]); id != "" {
			t.Fatalf("busted %s still seated at %s", out[0], id)
		}
		// The table's planner names the seat of the first player of table
		// 1; a moving button from the drawn one would give another.
		plan := director.Plan(mustEntries(t, s), 9)
		plan[0].Button = f.tables["tbl1"].button + 1
		movingButton := plan[0].Seats[plan[0].DueBigBlind()]
		due := tablePlayers(t, s, 1)[0]
		if due == movingButton {
			due = tablePlayers(t, s, 1)[1]
		}
		dueID, dueSeat := f.at(due)
		chips := f.tables[dueID].stacks[due]
		if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl1", Table: 1, No: 1, DueBigBlind: due, Stacks: map[string]int64{due: chips}}); err != nil {
			t.Fatal(err)
		}
		id, seat := f.at(due)
		if id != "tbl3" || f.tables[id].stacks[due] != chips {
			t.Fatalf("%s (due the big blind at tbl1 seat %d) is at %s seat %d with %d, want tbl3 with %d", due, dueSeat, id, seat, f.tables[id].stacks[due], chips)
		}
		ens, _ := s.Entries(ctx, "ev1")
		for _, en := range ens {
			if en.PlayerID == due && (en.Table != 3 || en.Seat != seat) {
				t.Fatalf("entry %+v, seated at 3/%d", en, seat)
			}
		}
		audit, _ := s.Audit(ctx, "ev1")
		var slips []map[string]any
		for _, a := range audit {
			if a.Action == "move" {
				var m map[string]any
				_ = json.Unmarshal(a.Detail, &m)
				slips = append(slips, m)
			}
		}
		if len(slips) != 1 || slips[0]["player_id"] != due || slips[0]["move_id"] != "trn/ev1/move/1" || slips[0]["rule_id"] != "TR-23" ||
			slips[0]["stack"] != float64(chips) || slips[0]["hand_no"] != float64(1) || slips[0]["reason"] != director.ReasonBalance {
			t.Fatalf("movement slips %v", slips)
		}
		// The slip as the list shows it (issue 10 item 4): who, from and
		// to, the stack carried, why, after which hand, by whom, and the
		// move delivered at the tables.
		listed, err := d.RecordedSlips(ctx, "ev1")
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Track(ctx, "ev1", listed); err != nil {
			t.Fatal(err)
		}
		want := director.Slip{MoveID: "trn/ev1/move/1", PlayerID: due, FromTable: 1, FromSeat: dueSeat, ToTable: 3, ToSeat: seat,
			Stack: chips, Rule: "TR-23", Reason: director.ReasonBalance, HandNo: 1, Actor: director.Actor, State: director.SlipDelivered}
		if len(listed) != 1 || listed[0].At.IsZero() {
			t.Fatalf("listed slips %+v", listed)
		}
		listed[0].At = time.Time{}
		if listed[0] != want {
			t.Fatalf("listed slip %+v, want %+v", listed[0], want)
		}
		if f.tables["tbl1"].holds[director.HoldLockstep] != 2 {
			t.Fatalf("table 1 holds %v: hand 2 may deal", f.tables["tbl1"].holds)
		}
		if d.Mismatch("ev1") != 0 {
			t.Fatalf("chips mismatch %d", d.Mismatch("ev1"))
		}
		if c, ok, err := s.ChipCheck(ctx, "ev1"); err != nil || !ok || c.Issued == 0 || c.Mismatch() != 0 {
			t.Fatalf("saved chip check %+v ok %v err %v", c, ok, err)
		}
		// Table 2 (9 players, as many as table 1 had) gives nobody now:
		// 9/8/8 is balanced.
		if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl2", Table: 2, No: 1, DueBigBlind: tablePlayers(t, s, 2)[0]}); err != nil {
			t.Fatal(err)
		}
		if n := len(tablePlayers(t, s, 2)); n != 9 {
			t.Fatalf("table 2 has %d players after a balanced hand", n)
		}
	})
}

// TestHandEnded_BreaksTheLastTableAndHaltsShortOnes_G25: when the players
// fit in two tables, table 3's hand end sends its players to drawn seats
// at the others and closes it; a table three short of the fullest is
// halted until balanced.
func TestHandEnded_BreaksTheLastTableAndHaltsShortOnes_G25(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s, f, d := started(t, db, 27)
		ctx := t.Context()
		// Table 2 loses four: 9/5/9, table 2 is halted (G-25: 3 short).
		out := tablePlayers(t, s, 2)[:4]
		bust(t, s, f, out...)
		if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl2", Table: 2, No: 3, Busted: out}); err != nil {
			t.Fatal(err)
		}
		if _, held := f.tables["tbl2"].holds[director.HoldShort]; !held {
			t.Fatalf("table 2 (5 players against 9) not halted: %v", f.tables["tbl2"].holds)
		}
		// Five more out at table 1: 4/5/9 = 18 fit in two tables.
		out = tablePlayers(t, s, 1)[1:6]
		bust(t, s, f, out...)
		if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl1", Table: 1, No: 4, Busted: out}); err != nil {
			t.Fatal(err)
		}
		if n := len(tablePlayers(t, s, 3)); n != 9 {
			t.Fatalf("table 3 lost players (%d) before its own hand ended", n)
		}
		if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl3", Table: 3, No: 2}); err != nil {
			t.Fatal(err)
		}
		if n1, n2, n3 := len(tablePlayers(t, s, 1)), len(tablePlayers(t, s, 2)), len(tablePlayers(t, s, 3)); n1+n2 != 18 || n3 != 0 || n1 != 9 || n2 != 9 {
			t.Fatalf("after the break %d/%d/%d", n1, n2, n3)
		}
		if !f.tables["tbl3"].closed {
			t.Fatal("broken table not closed")
		}
		for _, id := range []string{"tbl1", "tbl2"} {
			if len(f.tables[id].seats) != 9 {
				t.Fatalf("%s seats %v", id, f.tables[id].seats)
			}
			if _, held := f.tables[id].holds[director.HoldShort]; held {
				t.Fatalf("%s still halted after the break", id)
			}
		}
		if d.Mismatch("ev1") != 0 {
			t.Fatalf("chips mismatch %d", d.Mismatch("ev1"))
		}
	})
}

// TestHandEnded_ACrashMidMoveCompletesItOnce: the table service does not
// answer MoveIn (or MoveOut) after the move was recorded; the hand's
// event fails and is delivered again, or the process restarts and
// recovers: the move completes once, with the same id, and no chip is
// made or lost.
func TestHandEnded_ACrashMidMoveCompletesItOnce(t *testing.T) {
	t.Parallel()
	for _, op := range []string{"MoveIn", "MoveOut"} {
		t.Run(op, func(t *testing.T) {
			t.Parallel()
			db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
			s, f, d := started(t, db, 27)
			ctx := t.Context()
			out := tablePlayers(t, s, 3)[:2]
			bust(t, s, f, out...)
			if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl3", Table: 3, No: 1, Busted: out}); err != nil {
				t.Fatal(err)
			}
			due := tablePlayers(t, s, 1)[0]
			f.fail[op] = 1
			h := director.Hand{TableID: "tbl1", Table: 1, No: 1, DueBigBlind: due}
			if err := d.HandEnded(ctx, "ev1", h); !errors.Is(err, director.ErrUnreachable) {
				t.Fatalf("hand with the table service silent: %v", err)
			}
			// A new process over the same store recovers; then the event
			// comes again.
			d = newDirector(s, f, clock.NewFake(now))
			if err := d.Recover(ctx, []string{"ev1"}); err != nil {
				t.Fatal(err)
			}
			if err := d.HandEnded(ctx, "ev1", h); err != nil {
				t.Fatal(err)
			}
			if id, _ := f.at(due); id != "tbl3" || len(f.moves) != 1 || f.moves["trn/ev1/move/1"] == nil {
				t.Fatalf("%s at %s, moves %v", due, id, f.moves)
			}
			if d.Mismatch("ev1") != 0 {
				t.Fatalf("chips mismatch %d", d.Mismatch("ev1"))
			}
		})
	}
}

// TestSchedule_PauseRetractsAndResumeResends_TR20: a pause sends only the
// row in force under a higher revision; the resume sends the rows again,
// later by the pause, under a higher one still.
func TestSchedule_PauseRetractsAndResumeResends_TR20(t *testing.T) {
	t.Parallel()
	tr := store.Tournament{Rules: house.Rules{}.WithDefaults(event.Event{})}
	tr.Clock.Sheet, tr.Clock.Started = tr.Rules.Sheet, now
	r1, rows1 := director.Schedule(tr)
	if err := tr.Clock.Pause(now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	r2, rows2 := director.Schedule(tr)
	if err := tr.Clock.Resume(now.Add(6 * time.Minute)); err != nil {
		t.Fatal(err)
	}
	r3, rows3 := director.Schedule(tr)
	if r1 >= r2 || r2 >= r3 {
		t.Fatalf("revisions %d %d %d", r1, r2, r3)
	}
	if len(rows1) != len(tr.Rules.Sheet.Levels) || len(rows2) != 1 || len(rows3) != len(rows1) {
		t.Fatalf("rows %d %d %d", len(rows1), len(rows2), len(rows3))
	}
	if !rows3[1].Start.Equal(rows1[1].Start.Add(5*time.Minute)) || !rows3[0].Start.Equal(now.Add(5*time.Minute)) {
		t.Fatalf("after the resume level 2 starts %v (was %v)", rows3[1].Start, rows1[1].Start)
	}
}

// TestHandForHand_TablesDealTheirNextHandsTogether_G26: during
// hand-for-hand a table whose round hand is over waits (its lockstep hold
// stays at that hand); the hand that ends the round lets every table deal
// its next hand at once.
func TestHandForHand_TablesDealTheirNextHandsTogether_G26(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	s, f, d := started(t, db, 27)
	ctx := t.Context()
	for i, id := range []string{"tbl1", "tbl2", "tbl3"} {
		f.tables[id].handNo = int64(10 + i)
	}
	// The books (the record step) counted table 1's hand: it waits.
	round := func(done ...string) {
		t.Helper()
		err := s.Update(ctx, "ev1", func(_ *store.Tx, tr *store.Tournament) error {
			if !tr.HandForHand.Active {
				tr.HandForHand.Start([]string{"1", "2", "3"})
			}
			tr.HandForHand.Done = done
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	round("1")
	if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl1", Table: 1, No: 10}); err != nil {
		t.Fatal(err)
	}
	if got := f.tables["tbl1"].holds[director.HoldLockstep]; got != 1 {
		t.Fatalf("table 1 may deal through hand %d while the others play theirs", got)
	}
	// Table 3's hand ends the round: every table deals its next hand.
	round()
	if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl3", Table: 3, No: 12}); err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"tbl1", "tbl2", "tbl3"} {
		if got := f.tables[id].holds[director.HoldLockstep]; got != int64(11+i) {
			t.Fatalf("%s may deal through hand %d, want %d", id, got, 11+i)
		}
	}
}

// TestAbsent_PenaltyAndLeaverAtTheirTable_TR33_TR35: the books' hands to
// miss and the left mark reach the player's own table, once per decision.
func TestAbsent_PenaltyAndLeaverAtTheirTable_TR33_TR35(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	s, f, d := started(t, db, 27)
	ctx := t.Context()
	penalised, leaver := tablePlayers(t, s, 2)[0], tablePlayers(t, s, 3)[0]
	err := s.Update(ctx, "ev1", func(tx *store.Tx, _ *store.Tournament) error {
		for p, set := range map[string]func(*entry.Entry){penalised: func(en *entry.Entry) { en.HandsToMiss = 18 }, leaver: func(en *entry.Entry) { en.Left = true }} {
			en, err := tx.Entry(p)
			if err != nil {
				return err
			}
			set(en)
			if err := tx.PutEntry(*en); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := d.Absent(ctx, "ev1", penalised, "trn/ev1/penalty/"+penalised+"/1"); err != nil {
			t.Fatal(err)
		}
		if err := d.Absent(ctx, "ev1", leaver, "trn/ev1/left/"+leaver); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.tables["tbl2"].absent[penalised]; got.hands != 18 || got.left {
		t.Fatalf("penalised %s at table 2: %+v", penalised, got)
	}
	if got := f.tables["tbl3"].absent[leaver]; !got.left {
		t.Fatalf("leaver %s at table 3: %+v", leaver, got)
	}
}

// TestAddChips_RebuyOnceAtThePlayersTable_TR14: a paid rebuy's chips are
// added at the player's table under the payment's key: a repeat adds
// nothing, and the chips counted match the chips issued.
func TestAddChips_RebuyOnceAtThePlayersTable_TR14(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	s, f, d := started(t, db, 27)
	ctx := t.Context()
	p := tablePlayers(t, s, 2)[0]
	for range 2 {
		if err := d.AddChips(ctx, "ev1", p, "trn/ev1/"+p+"/rebuy/1", stack, false); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.tables["tbl2"].stacks[p]; got != 2*stack {
		t.Fatalf("%s's stack after one rebuy (sent twice): %d", p, got)
	}
}

// TestSchedule_ClockControlResends_TR20: each floor change to the clock
// (issue 13) is a new revision above every earlier one, even one that
// moves the clock back, and the rows start where the clock now says.
func TestSchedule_ClockControlResends_TR20(t *testing.T) {
	t.Parallel()
	tr := store.Tournament{Rules: house.Rules{}.WithDefaults(event.Event{})}
	tr.Clock.Sheet, tr.Clock.Started = tr.Rules.Sheet, now
	at := now.Add(10 * time.Minute)
	if err := tr.Clock.Pause(at); err != nil {
		t.Fatal(err)
	}
	if err := tr.Clock.Resume(at.Add(time.Hour)); err != nil { // a long pause: a large revision
		t.Fatal(err)
	}
	at = at.Add(time.Hour)
	last, _ := director.Schedule(tr)
	steps := []struct {
		name   string
		change func(c *levels.Clock) error
		index  int // the row starting at `at`, or -1
	}{
		{"go to level 3", func(c *levels.Clock) error { return c.GoTo(at, 2) }, 2},
		{"back to level 1", func(c *levels.Clock) error { return c.GoTo(at, 0) }, 0},
		{"add 5 minutes", func(c *levels.Clock) error { return c.AddTime(at, 5*time.Minute) }, -1},
		{"break now", func(c *levels.Clock) error { return c.BreakNow(at, 10*time.Minute) }, -1},
	}
	for _, s := range steps {
		if err := s.change(&tr.Clock); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		rev, rows := director.Schedule(tr)
		if rev <= last {
			t.Fatalf("%s: revision %d after %d", s.name, rev, last)
		}
		last = rev
		if s.index >= 0 && !rows[s.index].Start.Equal(at) {
			t.Fatalf("%s: row %d starts %v, want %v", s.name, s.index, rows[s.index].Start, at)
		}
		p := tr.Clock.At(at)
		if !rows[p.Index].Start.Add(tr.Clock.Sheet.Levels[p.Index].Duration - p.Remaining).Equal(at) {
			t.Fatalf("%s: the row in force (%d) does not match the clock", s.name, p.Index)
		}
	}
	_, rows := director.Schedule(tr)
	p := tr.Clock.At(at)
	if !rows[p.Index].Break || !rows[p.Index].Start.Equal(at) {
		t.Fatalf("break now: row %d %+v, want a break starting %v", p.Index, rows[p.Index], at)
	}
}

// TestHandEnded_RedrawsTheFinalTable_TR07_G28: when the last players fit
// at one table, the table whose hand ended waits (held) while the other
// is in a hand; when that hand ends every player draws a new seat at a
// new final table with their chips, the button there is the recorded
// draw's, every move is a TR-07 slip, the old tables close, the final
// table gets the schedule and deals hand 1, and no chip is made or lost.
func TestHandEnded_RedrawsTheFinalTable_TR07_G28(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s := runningWith(t, db, 18, house.Rules{})
		f := newFakeTables()
		d := newDirector(s, f, clock.NewFake(now))
		ctx := t.Context()
		if err := d.Start(ctx, "ev1"); err != nil {
			t.Fatal(err)
		}
		// 9 left: 4 at table 1, 5 at table 2, which is in a hand.
		out1, out2 := tablePlayers(t, s, 1)[4:], tablePlayers(t, s, 2)[5:]
		bust(t, s, f, append(out1, out2...)...)
		f.tables["tbl2"].inHand = true
		before := map[string]int64{}
		seatBefore := map[string]int{}
		for _, en := range mustEntries(t, s) {
			if en.Status == entry.Active {
				id, seat := f.at(en.PlayerID)
				before[en.PlayerID], seatBefore[en.PlayerID] = f.tables[id].stacks[en.PlayerID], seat
			}
		}
		if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl1", Table: 1, No: 5, Busted: out1}); err != nil {
			t.Fatal(err)
		}
		if _, held := f.tables["tbl1"].holds[director.HoldFinal]; !held || len(f.tables) != 2 {
			t.Fatalf("table 1 not held for the final table while table 2 plays: holds %v, %d tables", f.tables["tbl1"].holds, len(f.tables))
		}
		f.tables["tbl2"].inHand = false
		if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl2", Table: 2, No: 5, Busted: out2}); err != nil {
			t.Fatal(err)
		}
		final, ok := f.tables["tbl3"]
		if !ok || len(final.seats) != 9 || !f.tables["tbl1"].closed || !f.tables["tbl2"].closed {
			t.Fatalf("final table %+v, old tables closed %v %v", final, f.tables["tbl1"].closed, f.tables["tbl2"].closed)
		}
		moved := 0
		for _, en := range mustEntries(t, s) {
			if en.Status != entry.Active {
				continue
			}
			id, seat := f.at(en.PlayerID)
			if id != "tbl3" || en.Table != 3 || en.Seat != seat || final.stacks[en.PlayerID] != before[en.PlayerID] {
				t.Errorf("%s at %s seat %d with %d; entry %d/%d, had %d", en.PlayerID, id, seat, final.stacks[en.PlayerID], en.Table, en.Seat, before[en.PlayerID])
			}
			if seat != seatBefore[en.PlayerID] {
				moved++
			}
		}
		if moved == 0 {
			t.Error("every player kept their seat number: no redraw")
		}
		buttons := map[int]int{}
		draws, _ := s.Draws(ctx, "ev1")
		for _, dr := range draws {
			var b struct {
				Table int `json:"table"`
				Seat  int `json:"button_seat"`
			}
			if dr.Kind == "button" && json.Unmarshal(dr.Record, &b) == nil {
				buttons[b.Table] = b.Seat
			}
		}
		if _, seated := final.seats[buttons[3]]; !seated || final.button != buttons[3] {
			t.Fatalf("final table button %d, drawn %d (draws %v)", final.button, buttons[3], buttons)
		}
		audit, _ := s.Audit(ctx, "ev1")
		tr07 := 0
		for _, a := range audit {
			var m map[string]any
			if a.Action == "move" && json.Unmarshal(a.Detail, &m) == nil && m["rule_id"] == "TR-07" {
				tr07++
			}
		}
		if tr07 != 9 {
			t.Fatalf("%d TR-07 movement slips, want 9", tr07)
		}
		if final.holds[director.HoldLockstep] != 1 || len(final.rows) == 0 {
			t.Fatalf("final table holds %v, %d rows", final.holds, len(final.rows))
		}
		if d.Mismatch("ev1") != 0 {
			t.Fatalf("chips mismatch %d", d.Mismatch("ev1"))
		}
	})
}

// TestRace_ColourUpAtTheBreak_TR22_G08: when the colour-up break (the
// 25s into 100s) is in force, each table between hands races once: the
// odd chips are pooled per table, half a chip's worth rounds up to one
// (G-08: 50 into 100 at each table), nobody wins more than one chip, every
// stack is a multiple of the new chip, the race is recorded, a repeat
// changes nothing, and the chips the rounding made count as issued.
func TestRace_ColourUpAtTheBreak_TR22_G08(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()}, func(t *testing.T, db *sqlstore.DB) {
		s := running(t, db, 18)
		f := newFakeTables()
		clk := clock.NewFake(now)
		d := newDirector(s, f, clk)
		ctx := t.Context()
		if err := d.Start(ctx, "ev1"); err != nil {
			t.Fatal(err)
		}
		tr, _ := s.Load(ctx, "ev1")
		brk := slices.IndexFunc(tr.Clock.Sheet.Levels, func(l levels.Level) bool { return l.ColorUp != 0 })
		if brk < 0 || tr.Clock.Sheet.Levels[brk].ColorUp != 25 || director.Into(tr.Clock.Sheet, brk) != 100 {
			t.Fatalf("colour-up at %d into %d", brk, director.Into(tr.Clock.Sheet, brk))
		}
		// 50 moves from a player at table 2 to one at table 1.
		p1, p2 := tablePlayers(t, s, 1)[0], tablePlayers(t, s, 2)[0]
		f.mu.Lock()
		f.tables["tbl1"].stacks[p1] += 50
		f.tables["tbl2"].stacks[p2] -= 50
		f.mu.Unlock()
		// Before the break nothing is raced.
		if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl1", Table: 1, No: 1}); err != nil {
			t.Fatal(err)
		}
		if f.tables["tbl1"].stacks[p1] != stack+50 {
			t.Fatalf("raced before the break: %d", f.tables["tbl1"].stacks[p1])
		}
		var elapsed time.Duration
		for _, l := range tr.Clock.Sheet.Levels[:brk] {
			elapsed += l.Duration
		}
		clk.Advance(elapsed + time.Minute)
		before := map[string]int64{p1: stack + 50, p2: stack - 50}
		for range 2 {
			if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl1", Table: 1, No: 2}); err != nil {
				t.Fatal(err)
			}
			if err := d.Recover(ctx, []string{"ev1"}); err != nil {
				t.Fatal(err)
			}
		}
		var total int64
		for _, id := range []string{"tbl1", "tbl2"} {
			for _, p := range f.tables[id].seats {
				st, was := f.tables[id].stacks[p], before[p]
				if was == 0 {
					was = stack
				}
				total += st
				if st%100 != 0 || st-(was-was%100) > 100 || st < was-was%100 {
					t.Errorf("%s at %s: %d after the race, %d before", p, id, st, was)
				}
			}
		}
		if total != 18*stack+100 {
			t.Fatalf("%d chips after the race, want %d (two odd 50s each rounded up to 100)", total, 18*stack+100)
		}
		audit, _ := s.Audit(ctx, "ev1")
		races := 0
		for _, a := range audit {
			var m map[string]any
			if strings.HasPrefix(a.Action, "chip_race/") && json.Unmarshal(a.Detail, &m) == nil && m["rule_id"] == "TR-22" {
				races++
			}
		}
		if races != 2 {
			t.Fatalf("%d races recorded, want one per table", races)
		}
		if d.Mismatch("ev1") != 0 {
			t.Fatalf("chips mismatch %d: the race's rounding is not counted as issued", d.Mismatch("ev1"))
		}
	})
}

// edit changes players' entries in the books.
func edit(t *testing.T, s *store.Store, change func(en *entry.Entry), players ...string) {
	t.Helper()
	err := s.Update(t.Context(), "ev1", func(tx *store.Tx, _ *store.Tournament) error {
		for _, p := range players {
			en, err := tx.Entry(p)
			if err != nil {
				return err
			}
			change(en)
			if err := tx.PutEntry(*en); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// handEndedEvent is table.hand_ended as the table service publishes it.
func handEndedEvent(t *testing.T, msg *tablev1.HandEnded) events.Event {
	t.Helper()
	b, err := proto.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	return events.Event{ID: fmt.Sprintf("%s-%d", msg.GetTableId(), msg.GetHandNo()), Topic: events.TopicHandEnded, Key: msg.GetTableId(), Payload: b}
}

// TestHandEnded_HeldWhileTheyMayRebuyThenRemoved_TR13_TR16: a player out
// of chips whom the books still have in play (they may rebuy) keeps the
// seat — neither removed nor, with no chips, dealt in — and once the books
// knock them out (the window closed at a later hand, which the table does
// not report as a bust: the chips went hands ago) the next hand's handling
// removes them, so the seat is free for a move or a late entrant.
func TestHandEnded_HeldWhileTheyMayRebuyThenRemoved_TR13_TR16(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	s, f, d := started(t, db, 27)
	ctx := t.Context()
	held := tablePlayers(t, s, 1)[0]
	f.mu.Lock()
	tb, seat := f.where("ev1", held)
	tb.stacks[held] = 0
	f.mu.Unlock()
	stacks := func() []*tablev1.SeatStack {
		f.mu.Lock()
		defer f.mu.Unlock()
		var out []*tablev1.SeatStack
		for st, p := range tb.seats {
			out = append(out, &tablev1.SeatStack{Seat: int32(st), PlayerId: p, Stack: tb.stacks[p]})
		}
		return out
	}
	// Hand 1: out of chips, may rebuy (the books keep the entry active).
	if err := d.HandleHandEnded(ctx, handEndedEvent(t, &tablev1.HandEnded{TableId: tb.id, HandNo: 1, Stacks: stacks(), Busted: []int32{int32(seat)}})); err != nil {
		t.Fatal(err)
	}
	if id, _ := f.at(held); id != tb.id {
		t.Fatalf("TR-13 %s, who may still rebuy, removed from the table", held)
	}
	// Hand 3: the window closed; the books knock the player out. The
	// table reports nobody busted in this hand.
	edit(t, s, func(en *entry.Entry) { en.Status = entry.Busted }, held)
	if err := d.HandleHandEnded(ctx, handEndedEvent(t, &tablev1.HandEnded{TableId: tb.id, HandNo: 3, Stacks: stacks()})); err != nil {
		t.Fatal(err)
	}
	if id, _ := f.at(held); id != "" {
		t.Fatalf("TR-16 %s, out when the window closed, still seated at %s", held, id)
	}
}

// TestSeatLate_ReentryAndLateEntrantFreeWhatTheBustedHold_G23: a player
// re-enters (G-23) before their busted seat was removed — the entry is
// paid between the books' knock-out and the hand's handling — and a late
// entrant is drawn into the seat of a busted player still there: both
// are seated at their drawn seats with the starting stack, and the chips
// counted match the chips issued.
func TestSeatLate_ReentryAndLateEntrantFreeWhatTheBustedHold_G23(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	s, f, d := started(t, db, 27)
	ctx := t.Context()
	back, gone := tablePlayers(t, s, 1)[0], tablePlayers(t, s, 2)[0]
	f.mu.Lock()
	_, goneSeat := f.where("ev1", gone)
	for _, p := range []string{back, gone} {
		tb, _ := f.where("ev1", p)
		f.tables["tbl3"].stacks[tablePlayersLocked(f, "tbl3")] += tb.stacks[p]
		tb.stacks[p] = 0
	}
	f.mu.Unlock()
	edit(t, s, func(en *entry.Entry) { en.Status = entry.Busted }, gone)
	// back re-enters at table 3's free seat; late takes gone's seat.
	free := 0
	for seat := 1; seat <= 9 && free == 0; seat++ {
		if !slices.ContainsFunc(mustEntries(t, s), func(en entry.Entry) bool { return en.Table == 3 && en.Seat == seat }) {
			free = seat
		}
	}
	edit(t, s, func(en *entry.Entry) { en.Reentries, en.Table, en.Seat = 1, 3, free }, back)
	err := s.Update(ctx, "ev1", func(tx *store.Tx, _ *store.Tournament) error {
		return tx.PutEntry(entry.Entry{EventID: "ev1", PlayerID: "late", Status: entry.Active, RegisteredAt: now, Table: 2, Seat: goneSeat})
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{back, "late"} {
		if err := d.SeatLate(ctx, "ev1", p); err != nil {
			t.Fatal(err)
		}
	}
	for p, want := range map[string]string{back: "tbl3", "late": "tbl2"} {
		id, _ := f.at(p)
		if id != want || f.tables[id].stacks[p] != stack {
			t.Errorf("G-23 %s at %q with %d, want %s with %d", p, id, f.tables[id].stacks[p], want, stack)
		}
	}
	tr, _ := s.Load(ctx, "ev1")
	n, _ := f.CountChips(ctx, "ev1")
	if issued := director.Issued(tr, mustEntries(t, s)); n != issued {
		t.Fatalf("chips counted %d, issued %d", n, issued)
	}
}

// tablePlayersLocked returns a player with chips at a fake table.
func tablePlayersLocked(f *fakeTables, id string) string {
	for seat := range 10 {
		if p, ok := f.tables[id].seats[seat]; ok {
			return p
		}
	}
	return ""
}

// TestAddChips_PlayerNotAtTheBooksTableYet_TR14: the books have moved a
// player whom the tables still seat at the old table (the move not made
// yet): the rebuy's chips go where the player sits, once, and the chips
// counted match the chips issued (on a cluster the chips were refused,
// NOT_SEATED, and lost).
func TestAddChips_PlayerNotAtTheBooksTableYet_TR14(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	s, f, d := started(t, db, 27)
	ctx := t.Context()
	p := tablePlayers(t, s, 1)[0]
	edit(t, s, func(en *entry.Entry) { en.Table, en.Seat, en.Rebuys = 2, 9, 1 }, p)
	for range 2 {
		if err := d.AddChips(ctx, "ev1", p, "trn/ev1/"+p+"/rebuy/1", stack, false); err != nil {
			t.Fatal(err)
		}
	}
	if id, _ := f.at(p); f.tables[id].stacks[p] != 2*stack {
		t.Fatalf("TR-14 %s at %s with %d after one rebuy", p, id, f.tables[id].stacks[p])
	}
	// The freezeout fixture gives no rebuy chips in its rules: the count
	// is the entries' stacks and the one rebuy.
	if n, _ := f.CountChips(ctx, "ev1"); n != 28*stack {
		t.Fatalf("chips counted %d, issued %d", n, 28*stack)
	}
}

// TestSeatLate_DrawnSeatStillHeldByAMovingPlayer_G23: the books drew a
// late entrant into the seat of a player they moved away whom the table
// still seats (in a hand; the move is made after it): the entrant takes
// another seat free at both, recorded in the books, and the chips counted
// match the chips issued (on a cluster the seat was refused, SEAT_TAKEN,
// and the entry's chips were missing from the count).
func TestSeatLate_DrawnSeatStillHeldByAMovingPlayer_G23(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	s, f, d := started(t, db, 26)
	ctx := t.Context()
	// A table with a seat free, and the player moving from it to another.
	short, other := 1, 2
	for n := 1; n <= 3; n++ {
		if len(tablePlayers(t, s, n)) < 9 {
			short, other = n, n%3+1
		}
	}
	moving := tablePlayers(t, s, short)[0]
	_, seat := f.at(moving)
	edit(t, s, func(en *entry.Entry) { en.Table, en.Seat = other, 10 }, moving)
	err := s.Update(ctx, "ev1", func(tx *store.Tx, _ *store.Tournament) error {
		return tx.PutEntry(entry.Entry{EventID: "ev1", PlayerID: "late", Status: entry.Active, RegisteredAt: now, Table: short, Seat: seat})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.SeatLate(ctx, "ev1", "late"); err != nil {
		t.Fatal(err)
	}
	id, at := f.at("late")
	books := mustEntries(t, s)
	i := slices.IndexFunc(books, func(en entry.Entry) bool { return en.PlayerID == "late" })
	if id != fmt.Sprintf("tbl%d", short) || at == seat || books[i].Seat != at || f.tables[id].stacks["late"] != stack {
		t.Fatalf("G-23 late at %q seat %d (books seat %d) with %d; %s still holds seat %d", id, at, books[i].Seat, f.tables[id].stacks["late"], moving, seat)
	}
	if n, _ := f.CountChips(ctx, "ev1"); n != 27*stack {
		t.Fatalf("chips counted %d, issued %d", n, 27*stack)
	}
}

// TestHandEnded_MoveIntoASeatTheBustedStillHoldAtAFullTable_TR23: the
// books knock out two players at table 3 — freeing their seats — before
// that table's hand is handled (the books' consumer runs first), and a
// hand ending at table 1 moves the player due the big blind into one of
// those seats while the table still seats them, every seat taken: the
// table refuses TABLE_FULL. The director takes the busted player off and
// seats the moved one; the hand's step does not fail, nothing is left in
// transit and the chips are conserved. (On a cluster the refusal failed
// the hand's step, and a refused move was left in transit.)
func TestHandEnded_MoveIntoASeatTheBustedStillHoldAtAFullTable_TR23(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	s, f, d := started(t, db, 27)
	ctx := t.Context()
	out := tablePlayers(t, s, 3)[:2]
	bust(t, s, f, out...) // the books only: tbl3 still seats them
	due := tablePlayers(t, s, 1)[0]
	dueID, _ := f.at(due)
	chips := f.tables[dueID].stacks[due]
	if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl1", Table: 1, No: 1, DueBigBlind: due, Stacks: map[string]int64{due: chips}}); err != nil {
		t.Fatalf("the hand's step failed: %v", err)
	}
	if id, _ := f.at(due); id != "tbl3" || f.tables[id].stacks[due] != chips {
		t.Fatalf("TR-23 %s (due the big blind) at %q with %d, want tbl3 with %d", due, id, f.tables[id].stacks[due], chips)
	}
	if moves, _ := f.Moves(ctx, "ev1", director.MoveInTransit); len(moves) != 0 {
		t.Fatalf("moves left in transit: %+v", moves)
	}
	tr, _ := s.Load(ctx, "ev1")
	n, _ := f.CountChips(ctx, "ev1")
	if issued := director.Issued(tr, mustEntries(t, s)); n != issued {
		t.Fatalf("chips counted %d, issued %d", n, issued)
	}
}

// TestHandEnded_MoveOfAPlayerHeldForARebuyIsCancelledAndTheBooksFollow_TR13_TR23:
// the player due the big blind at table 1 has no chips and is held while
// they may rebuy (TR-13): the table cancels their balancing move (no
// chips: not moved), and the books put them back at their seat, so that
// their rebuy's chips go to the table they sit at and nobody is moved
// into their seat.
func TestHandEnded_MoveOfAPlayerHeldForARebuyIsCancelledAndTheBooksFollow_TR13_TR23(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	s, f, d := started(t, db, 27)
	ctx := t.Context()
	out := tablePlayers(t, s, 3)[:2]
	bust(t, s, f, out...)
	if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl3", Table: 3, No: 1, Busted: out}); err != nil {
		t.Fatal(err)
	}
	held := tablePlayers(t, s, 1)[0]
	f.mu.Lock()
	tb, seat := f.where("ev1", held)
	f.tables["tbl2"].stacks[tablePlayersLocked(f, "tbl2")] += tb.stacks[held]
	tb.stacks[held] = 0
	f.mu.Unlock()
	if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl1", Table: 1, No: 1, DueBigBlind: held, Busted: []string{held},
		Stacks: map[string]int64{held: 0}}); err != nil {
		t.Fatal(err)
	}
	if id, at := f.at(held); id != "tbl1" || at != seat {
		t.Fatalf("%s at %q seat %d, want tbl1 seat %d", held, id, at, seat)
	}
	i := slices.IndexFunc(mustEntries(t, s), func(en entry.Entry) bool { return en.PlayerID == held })
	if en := mustEntries(t, s)[i]; en.Table != 1 || en.Seat != seat || en.Status != entry.Active {
		t.Fatalf("TR-23 the books have %s at %d/%d (%v); the table cancelled the move and seats them at 1/%d", held, en.Table, en.Seat, en.Status, seat)
	}
	// The rebuy's chips go where they sit, once (TR-14).
	if err := d.AddChips(ctx, "ev1", held, "trn/ev1/"+held+"/rebuy/1", stack, false); err != nil {
		t.Fatal(err)
	}
	if id, _ := f.at(held); id != "tbl1" || f.tables[id].stacks[held] != stack {
		t.Fatalf("TR-14 %s at %q with %d after the rebuy", held, id, f.tables[id].stacks[held])
	}
}

// TestHandEnded_ACancelledMoveIsUndoneOnceNotAfterALaterMove_TR23_G25: the
// player due the big blind at table 1 has no chips, so the table cancels
// their balancing move and the books keep them at their seat (TR-13);
// they rebuy, and the next hand moves them to the same seat of the same
// short table (its worst seat, G-25). The hands after it must not undo
// the cancelled move again: the books must seat the player where the
// table does, or the table they left is balanced and broken with a
// player it does not have, and once closed is still given moves and late
// entrants (TABLE_CLOSED on every pass, seen in the rebuy event).
func TestHandEnded_ACancelledMoveIsUndoneOnceNotAfterALaterMove_TR23_G25(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
	s, f, d := started(t, db, 27)
	ctx := t.Context()
	out := tablePlayers(t, s, 3)[:2]
	bust(t, s, f, out...)
	if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl3", Table: 3, No: 1, Busted: out}); err != nil {
		t.Fatal(err)
	}
	held := tablePlayers(t, s, 1)[0]
	f.mu.Lock()
	tb, _ := f.where("ev1", held)
	f.tables["tbl2"].stacks[tablePlayersLocked(f, "tbl2")] += tb.stacks[held]
	tb.stacks[held] = 0
	f.mu.Unlock()
	if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl1", Table: 1, No: 1, DueBigBlind: held, Busted: []string{held},
		Stacks: map[string]int64{held: 0}}); err != nil {
		t.Fatal(err)
	}
	if id, _ := f.at(held); id != "tbl1" {
		t.Fatalf("%s at %q, want tbl1: the move of a player with no chips is cancelled", held, id)
	}
	if err := d.AddChips(ctx, "ev1", held, "trn/ev1/"+held+"/rebuy/1", stack, false); err != nil {
		t.Fatal(err)
	}
	// Still due the big blind, now with chips: moved to table 3.
	if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl1", Table: 1, No: 2, DueBigBlind: held,
		Stacks: map[string]int64{held: stack}}); err != nil {
		t.Fatal(err)
	}
	id, seat := f.at(held)
	if id != "tbl3" {
		t.Fatalf("TR-23 %s at %q after the second move, want tbl3", held, id)
	}
	// More hands end (each pass meets the cancelled move again).
	for no := int64(1); no <= 2; no++ {
		if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl2", Table: 2, No: no}); err != nil {
			t.Fatal(err)
		}
	}
	i := slices.IndexFunc(mustEntries(t, s), func(en entry.Entry) bool { return en.PlayerID == held })
	if en := mustEntries(t, s)[i]; en.Table != 3 || en.Seat != seat || en.Status != entry.Active {
		t.Fatalf("TR-23 the books have %s at %d/%d (%v); the table seats them at 3/%d", held, en.Table, en.Seat, en.Status, seat)
	}
	audit, err := s.AuditOf(ctx, "ev1", "move_cancelled")
	if err != nil || len(audit) != 1 {
		t.Fatalf("move_cancelled records %d (%v), want 1: the cancelled move is settled once", len(audit), err)
	}
}
