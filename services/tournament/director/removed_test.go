package director_test

import (
	"strings"
	"testing"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/tournament/director"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// TestSettle_DisqualifiedLeaveTheirTableWithTheirChips_TR34: two players
// the floor disqualifies at table 3 (the books have them out, their seats
// free) leave the table with their chips, out of play — at once between
// hands, or when the hand they play ends — so they are no longer dealt
// in, the balancing move into one of their seats is delivered (not
// refused SEAT_TAKEN and left in transit), and the chips counted are the
// chips issued less the chips removed.
func TestSettle_DisqualifiedLeaveTheirTableWithTheirChips_TR34(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		inHand bool // table 3 deals a hand when the floor disqualifies
	}{
		{"between hands", false},
		{"during a hand", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
			s, f, d := started(t, db, 27)
			ctx := t.Context()
			out := tablePlayers(t, s, 3)[:2]
			f.mu.Lock()
			f.tables["tbl3"].stacks[out[0]] += 1200 // won chips: not the starting stack
			f.tables["tbl3"].stacks[tablePlayers(t, s, 3)[2]] -= 1200
			f.tables["tbl3"].inHand = tc.inHand
			chips := map[string]int64{out[0]: f.tables["tbl3"].stacks[out[0]], out[1]: f.tables["tbl3"].stacks[out[1]]}
			f.mu.Unlock()
			// IssuePenalty: the books place them and the server has the
			// director settle the tables.
			edit(t, s, func(en *entry.Entry) { en.Status = entry.Busted }, out...)
			if err := d.Settle(ctx, "ev1"); err != nil {
				t.Fatal(err)
			}
			if tc.inHand {
				f.endHand("tbl3")
				var removed []*tablev1.Removal
				for _, p := range out {
					removed = append(removed, &tablev1.Removal{PlayerId: p, Reason: tablev1.RemovalReason_REMOVAL_REASON_DISQUALIFIED, ChipsRemoved: chips[p]})
				}
				if err := d.HandleHandEnded(ctx, handEndedEvent(t, &tablev1.HandEnded{TableId: "tbl3", HandNo: 1, Removed: removed})); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range out {
				if id, seat := f.at(p); id != "" {
					t.Fatalf("TR-34 disqualified %s still seated at %s seat %d, dealt in with their chips", p, id, seat)
				}
			}
			// 9/9/7: table 1's hand end sends a player into one of the
			// seats the disqualified left.
			due := tablePlayers(t, s, 1)[0]
			f.mu.Lock()
			dueChips := f.tables["tbl1"].stacks[due]
			f.mu.Unlock()
			if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl1", Table: 1, No: 1, DueBigBlind: due, Stacks: map[string]int64{due: dueChips}}); err != nil {
				t.Fatal(err)
			}
			moves, err := f.Moves(ctx, "ev1")
			if err != nil {
				t.Fatal(err)
			}
			if len(moves) != 1 || moves[0].State != director.MoveDelivered || moves[0].ToTableID != "tbl3" {
				t.Fatalf("TR-23 balancing moves %+v, want one delivered to tbl3", moves)
			}
			if d.Mismatch("ev1") != 0 {
				t.Fatalf("chips not conserved: counted − (issued − removed) = %d", d.Mismatch("ev1"))
			}
			c, ok, err := s.ChipCheck(ctx, "ev1")
			if want := int64(27*stack) - chips[out[0]] - chips[out[1]]; err != nil || !ok || c.Issued != want || c.Mismatch() != 0 {
				t.Fatalf("chip check %+v ok %v err %v, want %d issued less removed", c, ok, err, want)
			}
			// A repeat (recovery, a redelivered hand end) removes nothing twice.
			if err := d.Settle(ctx, "ev1"); err != nil {
				t.Fatal(err)
			}
			if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl2", Table: 2, No: 1, DueBigBlind: tablePlayers(t, s, 2)[0]}); err != nil {
				t.Fatal(err)
			}
			if d.Mismatch("ev1") != 0 {
				t.Fatalf("after a repeat: chips mismatch %d", d.Mismatch("ev1"))
			}
		})
	}
}

// TestSettle_RemovedChipsCountedOnceWhateverHappens_TR34: the chips of a
// player the floor disqualifies between hands are counted as removed from
// play (issued less removed) when the table's answer to the removal is
// lost — the next pass asks again with the same key and the table answers
// the chips it removed — and when the disqualification ended the event,
// which no hand's end follows.
func TestSettle_RemovedChipsCountedOnceWhateverHappens_TR34(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		lost      bool // the table's first answer is lost
		playOver  bool // the disqualification ended the event
		wantFirst bool // the first Settle fails
	}{
		{"answer lost", true, false, true},
		{"event over", false, true, false},
		{"event over, answer lost", true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
			s, f, d := started(t, db, 27)
			ctx := t.Context()
			out := tablePlayers(t, s, 3)[0]
			f.mu.Lock()
			f.tables["tbl3"].stacks[out] += 700 // won chips: not the starting stack
			f.tables["tbl3"].stacks[tablePlayers(t, s, 3)[1]] -= 700
			chips := f.tables["tbl3"].stacks[out]
			if tc.lost {
				f.loseRemoval = 1
			}
			f.mu.Unlock()
			edit(t, s, func(en *entry.Entry) { en.Status = entry.Busted }, out)
			if tc.playOver {
				if err := s.Update(ctx, "ev1", func(_ *store.Tx, tr *store.Tournament) error {
					tr.Event.Status = event.Paying
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			if err := d.Settle(ctx, "ev1"); (err != nil) != tc.wantFirst {
				t.Fatalf("first settle: %v", err)
			}
			if id, seat := f.at(out); id != "" {
				t.Fatalf("TR-34 disqualified %s still seated at %s seat %d", out, id, seat)
			}
			// The recovery pass (or the floor's next step) settles again; a
			// third changes nothing.
			for range 2 {
				if err := d.Settle(ctx, "ev1"); err != nil {
					t.Fatal(err)
				}
			}
			recs, err := s.AuditOf(ctx, "ev1", "chips_removed/"+out+"/1")
			if err != nil || len(recs) != 1 {
				t.Fatalf("removal records %v (%v), want one", recs, err)
			}
			// A hand's end counts the chips.
			if err := d.HandEnded(ctx, "ev1", director.Hand{TableID: "tbl2", Table: 2, No: 1, DueBigBlind: tablePlayers(t, s, 2)[0]}); err != nil {
				t.Fatal(err)
			}
			if d.Mismatch("ev1") != 0 {
				t.Fatalf("chips not conserved: counted − (issued − removed) = %d", d.Mismatch("ev1"))
			}
			c, ok, err := s.ChipCheck(ctx, "ev1")
			if want := int64(27*stack) - chips; err != nil || !ok || c.Issued != want || c.Mismatch() != 0 {
				t.Fatalf("chip check %+v ok %v err %v, want %d issued less %d removed", c, ok, err, want, chips)
			}
		})
	}
}

// TestRemoveOut_ALateEntryPaidMeanwhileKeepsItsChips_G23_TR34: the
// removals out of play (TR-34) take only players the books have out. The
// director reads the books, then the tables, and a late entry or a
// re-entry (G-23) can be paid and seated with chips in between; it must
// not be taken for a player out of play and lose the chips just issued
// (a CI run of the rebuy end-to-end test lost a late entrant's 975 chips
// so, 1.7 s after the start). A paying entry is not in play yet, not out
// of it; and the desk pays and seats under Issue, which the removals hold
// while they read, so a re-entry is seated before the books are read or
// after the tables are.
func TestRemoveOut_ALateEntryPaidMeanwhileKeepsItsChips_G23_TR34(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// paying: the player is paying in the books and seated with chips
		// (the books read before the payment, the table after the seat);
		// else busted and off the tables, re-entering as the tables are
		// read.
		paying bool
	}{
		{"a paying entry seated with chips", true},
		{"a re-entry seated while the tables are read", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := testkit.SQLite(t, sqlstore.Options{Service: "tournament", Migrations: store.Migrations()})
			s, f, d := started(t, db, 27)
			ctx := t.Context()
			p := tablePlayers(t, s, 3)[0]
			_, seat := f.at(p)
			f.mu.Lock()
			want := f.tables["tbl3"].stacks[p] // paying: the chips it was seated with
			f.mu.Unlock()
			const stack = 1000 // a re-entry's
			reenter := func() {
				edit(t, s, func(en *entry.Entry) { en.Status = entry.Active }, p)
				if err := f.Seat(ctx, "tbl3", "reentry-"+p, p, seat, stack); err != nil {
					t.Errorf("seat the re-entry: %v", err)
				}
			}
			if tc.paying {
				edit(t, s, func(en *entry.Entry) { en.Status = entry.Paying }, p)
			} else {
				want = stack
				f.mu.Lock()
				delete(f.tables["tbl3"].seats, seat)
				delete(f.tables["tbl3"].stacks, p)
				f.mu.Unlock()
				edit(t, s, func(en *entry.Entry) { en.Status = entry.Busted }, p)
				waited := false
				f.mu.Lock()
				f.onStatus = func(string) {
					if waited {
						return
					}
					waited = true
					if !d.IssueHeld("ev1") {
						reenter() // the desk, not kept waiting
					}
				}
				f.mu.Unlock()
				t.Cleanup(func() {
					if !waited {
						t.Error("the tables were never read")
					}
				})
			}
			if err := d.Settle(ctx, "ev1"); err != nil {
				t.Fatal(err)
			}
			if !tc.paying {
				f.mu.Lock()
				f.onStatus = nil
				f.mu.Unlock()
				if _, at := f.at(p); at != seat {
					reenter() // the desk, after the removals let go of Issue
				}
			}
			id, at := f.at(p)
			f.mu.Lock()
			chips := f.tables["tbl3"].stacks[p]
			f.mu.Unlock()
			if id != "tbl3" || at != seat || chips != want {
				t.Fatalf("G-23 %s at %q seat %d with %d chips, want tbl3 seat %d with %d: taken out of play (TR-34) as if the books had them out", p, id, at, chips, seat, want)
			}
			audit, err := s.Audit(ctx, "ev1")
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range audit {
				if strings.HasPrefix(a.Action, "chips_removing/"+p) {
					t.Fatalf("TR-34 removal of %s asked for: %+v", p, a)
				}
			}
		})
	}
}
