package director_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/random"
	"github.com/cardroom/cardroom/services/tournament/balance"
	"github.com/cardroom/cardroom/services/tournament/director"
	"github.com/cardroom/cardroom/services/tournament/draw"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/house"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// field is a random event's entries as the store would hold them, with
// the entries each step changes.
type field struct {
	ens     []entry.Entry
	index   map[string]int
	changed []string
	rng     *rand.Rand
}

func (f *field) put(en entry.Entry) {
	if i, ok := f.index[en.PlayerID]; ok {
		f.ens[i] = en
	} else {
		f.index[en.PlayerID] = len(f.ens)
		f.ens = append(f.ens, en)
	}
	f.changed = append(f.changed, en.PlayerID)
}

// freeSeat returns a random empty seat of a random table of plan, or a
// seat at a new table (numbered after the last) when none has one.
func (f *field) freeSeat(plan []balance.Table, last int) (table, seat int) {
	for range 20 {
		tb := plan[f.rng.IntN(len(plan))]
		s := 1 + f.rng.IntN(tb.MaxSeats)
		if _, taken := tb.Seats[s]; !taken {
			fmt.Sscan(tb.ID, &table)
			return table, s
		}
	}
	return last + 1, 1 + f.rng.IntN(9)
}

// TestSeatingMatchesRebuild_TR23_G25 drives a seeded random event — hands
// that bust players and balance or break tables as the director decides
// (TR-23, TR-06, G-25), late seats and re-entries (G-23), rebuys and
// add-ons (TR-14, TR-17), floor moves and unregistrations — and after
// every step compares the seating kept up to date entry by entry with
// the seating rebuilt from all entries (Plan): the tables and seats, the
// moves DecideInOrder makes on each with the same seeded draw, the halted tables
// and the chips issued. A drift in the incremental seating fails here.
func TestSeatingMatchesRebuild_TR23_G25(t *testing.T) {
	t.Parallel()
	for _, seed := range []uint64{1, 2, 3, 4, 5} {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			t.Parallel()
			f := &field{index: map[string]int{}, rng: rand.New(rand.NewPCG(seed, 99))}
			var players []string
			for i := range 400 {
				players = append(players, fmt.Sprintf("p%03d", i))
			}
			seats, err := draw.Seats(players, 9, random.Seeded(seed))
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range seats {
				f.put(entry.Entry{PlayerID: s.PlayerID, Status: entry.Active, Table: s.Table, Seat: s.Seat, RegisteredAt: now.Add(timeOf(i))})
			}
			kept := director.NewSeating(f.ens, 9)
			tr := store.Tournament{Event: event.Event{StartingStack: stack}, Rules: house.Rules{Entry: entry.Policy{RebuyChips: 3000, AddOnChips: 7000}}}
			late, steps, breaks := 0, 0, 0
			for ; steps < 5000; steps++ {
				f.changed = f.changed[:0]
				plan := director.Plan(f.ens, 9)
				if len(plan) < 2 {
					break
				}
				last := 0
				fmt.Sscan(plan[len(plan)-1].ID, &last)
				switch op := f.rng.IntN(100); {
				case op < 70: // a hand ends at a table: busts, then the decision
					tb := plan[f.rng.IntN(len(plan))]
					var n int
					fmt.Sscan(tb.ID, &n)
					h := director.Hand{Table: n, No: int64(steps)}
					for _, p := range tb.Seats {
						switch r := f.rng.IntN(100); {
						case r < 12:
							en := f.ens[f.index[p]]
							en.Status = entry.Busted
							f.put(en)
						case r < 30 && h.DueBigBlind == "":
							h.DueBigBlind = p
						}
					}
					for _, p := range f.changed {
						if !kept.Apply(f.ens[f.index[p]]) {
							t.Fatalf("step %d: bust of %s refused", steps, p)
						}
					}
					f.changed = f.changed[:0]
					rebuilt := director.Plan(f.ens, 9)
					mine := director.DecideInOrder(kept.Plan(), h, random.Seeded(uint64(steps)), nil)
					want := director.DecideInOrder(rebuilt, h, random.Seeded(uint64(steps)), nil)
					if !reflect.DeepEqual(mine, want) {
						t.Fatalf("step %d, hand at table %d: moves %+v on the kept seating, %+v on the rebuilt one", steps, n, mine, want)
					}
					if len(want) > 1 {
						breaks++
					}
					for _, m := range want {
						en := f.ens[f.index[m.PlayerID]]
						fmt.Sscan(m.ToTable, &en.Table)
						en.Seat = m.ToSeat
						f.put(en)
					}
				case op < 78: // a late seat or a re-entry (G-23)
					en := entry.Entry{PlayerID: fmt.Sprintf("late%03d", late), RegisteredAt: now.Add(timeOf(1000 + late))}
					late++
					for _, e := range f.ens {
						if e.Status == entry.Busted && f.rng.IntN(2) == 0 {
							en = e
							en.Reentries++
							break
						}
					}
					en.Status = entry.Active
					en.Table, en.Seat = f.freeSeat(plan, last)
					f.put(en)
				case op < 88: // a rebuy or an add-on (TR-14, TR-17)
					en := f.ens[f.rng.IntN(len(f.ens))]
					if f.rng.IntN(2) == 0 {
						en.Rebuys++
					} else {
						en.AddOn = true
					}
					f.put(en)
				case op < 96: // the floor moves a player to an empty seat
					en := f.ens[f.rng.IntN(len(f.ens))]
					if en.Status == entry.Active {
						en.Table, en.Seat = f.freeSeat(plan, last)
						f.put(en)
					}
				default: // an entry leaves the field with its seat
					en := f.ens[f.rng.IntN(len(f.ens))]
					en.Status = entry.Unregistered
					f.put(en)
				}
				for _, p := range f.changed {
					if !kept.Apply(f.ens[f.index[p]]) {
						t.Fatalf("step %d: %+v refused", steps, f.ens[f.index[p]])
					}
				}
				rebuilt := director.Plan(f.ens, 9)
				if !reflect.DeepEqual(kept.Plan(), rebuilt) {
					t.Fatalf("step %d: kept seating %v, rebuilt %v", steps, kept.Plan(), rebuilt)
				}
				if got, want := balance.Halted(kept.Plan(), balance.Policy{}), balance.Halted(rebuilt, balance.Policy{}); !reflect.DeepEqual(got, want) {
					t.Fatalf("step %d: halted %v, rebuilt %v", steps, got, want)
				}
				if got, want := kept.Issued(stack, 3000, 7000), director.Issued(tr, f.ens); got != want {
					t.Fatalf("step %d: chips issued %d, rebuilt %d", steps, got, want)
				}
			}
			// The run must have exercised what it claims to.
			if steps < 200 || breaks == 0 || late == 0 {
				t.Fatalf("only %d steps, %d breaks, %d late seats", steps, breaks, late)
			}
		})
	}
}

// TestSeatingClash: two entries claiming one seat (inconsistent books) are
// reported, since only a rebuild resolves them as Plan does.
func TestSeatingClash(t *testing.T) {
	t.Parallel()
	ens := []entry.Entry{
		{PlayerID: "a", Status: entry.Active, Table: 1, Seat: 1},
		{PlayerID: "b", Status: entry.Active, Table: 1, Seat: 2},
	}
	s := director.NewSeating(ens, 9)
	if s.Clash() {
		t.Fatal("clash reported for distinct seats")
	}
	if s.Apply(entry.Entry{PlayerID: "c", Status: entry.Active, Table: 1, Seat: 2}) || !s.Clash() {
		t.Fatal("a second player in seat 2 was not reported")
	}
	if !director.NewSeating(append(ens, entry.Entry{PlayerID: "c", Status: entry.Active, Table: 1, Seat: 1}), 9).Clash() {
		t.Fatal("a clash in the entries was not reported")
	}
}

// timeOf spaces registrations a millisecond apart.
func timeOf(i int) time.Duration { return time.Duration(i) * time.Millisecond }
