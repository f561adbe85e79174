package director

import (
	"slices"
	"strconv"

	"github.com/cardroom/cardroom/services/tournament/balance"
	"github.com/cardroom/cardroom/services/tournament/entry"
)

// Seating is the seating Plan builds from an event's entries, kept between
// hands and brought up to date entry by entry (Apply), so that the
// decision after a hand costs O(tables) instead of a rebuild from every
// entry (issue 10: a bust at 1,100 tables, target < 1 ms). Apply of every
// entry that changed since Plan's input leaves it equal to Plan of the
// entries as they are now (TestSeatingMatchesRebuild); where the two could
// differ — two entries claiming one seat, which Plan resolves by
// registration order — Apply reports it and the caller rebuilds.
//
// It also keeps the sums Issued needs, so the chip check after a hand
// reads no entry either.
//
// A Seating is not safe for concurrent use.
type Seating struct {
	seatsPerTable int
	// tables is the plan, in table order; nums[i] is tables[i]'s number.
	tables []balance.Table
	nums   []int
	// at is where each seated active player is.
	at map[string]spot
	// counted is each entry's part of the chips issued (Issued).
	counted map[string]issuedPart
	sum     issuedPart
	// clash is set when two entries claimed one seat (Apply refused one,
	// or Plan kept the later one): only a rebuild settles that as Plan does.
	clash bool
}

type spot struct{ table, seat int }

// issuedPart is what an entry counts for in Issued: its starting stacks
// (one per entry and re-entry), rebuys and add-ons.
type issuedPart struct{ stacks, rebuys, addOns int64 }

func partOf(en entry.Entry) issuedPart {
	if en.Status != entry.Active && en.Status != entry.Busted {
		return issuedPart{}
	}
	p := issuedPart{stacks: int64(1 + en.Reentries), rebuys: int64(en.Rebuys)}
	if en.AddOn {
		p.addOns = 1
	}
	return p
}

// NewSeating returns the seating of ens (Plan's) and their sums for Issued.
func NewSeating(ens []entry.Entry, seatsPerTable int) *Seating {
	s := &Seating{seatsPerTable: seatsPerTable, tables: Plan(ens, seatsPerTable),
		at: make(map[string]spot, len(ens)), counted: make(map[string]issuedPart, len(ens))}
	s.nums = make([]int, len(s.tables))
	for i, tb := range s.tables {
		s.nums[i], _ = strconv.Atoi(tb.ID)
		for seat, p := range tb.Seats {
			s.at[p] = spot{table: s.nums[i], seat: seat}
		}
	}
	seated := 0
	for _, en := range ens {
		s.count(en)
		if en.Status == entry.Active && en.Table != 0 {
			seated++
		}
	}
	// Plan keeps one of two entries that claim one seat.
	s.clash = seated != len(s.at)
	return s
}

func (s *Seating) count(en entry.Entry) {
	old, p := s.counted[en.PlayerID], partOf(en)
	s.sum.stacks += p.stacks - old.stacks
	s.sum.rebuys += p.rebuys - old.rebuys
	s.sum.addOns += p.addOns - old.addOns
	if p == (issuedPart{}) {
		delete(s.counted, en.PlayerID)
	} else {
		s.counted[en.PlayerID] = p
	}
}

// Apply brings the seating up to date with one entry as it now stands
// (busted, moved, seated late, unregistered…). ok is false (and Clash true
// from then on) when the entry takes a seat the seating gives another
// player: Plan settles that by registration order, which the seating does
// not know, so the caller rebuilds it from the entries.
func (s *Seating) Apply(en entry.Entry) (ok bool) {
	s.count(en)
	want := spot{}
	if en.Status == entry.Active && en.Table != 0 {
		want = spot{table: en.Table, seat: en.Seat}
	}
	old, seated := s.at[en.PlayerID]
	if seated && old == want {
		return true
	}
	if seated {
		i, _ := slices.BinarySearch(s.nums, old.table)
		delete(s.tables[i].Seats, old.seat)
		delete(s.at, en.PlayerID)
		if len(s.tables[i].Seats) == 0 {
			s.tables = slices.Delete(s.tables, i, i+1)
			s.nums = slices.Delete(s.nums, i, i+1)
		}
	}
	if want == (spot{}) {
		return true
	}
	i, found := slices.BinarySearch(s.nums, want.table)
	if !found {
		s.nums = slices.Insert(s.nums, i, want.table)
		s.tables = slices.Insert(s.tables, i, balance.Table{ID: strconv.Itoa(want.table), MaxSeats: s.seatsPerTable,
			Seats: make(map[int]string, s.seatsPerTable)})
	}
	if _, taken := s.tables[i].Seats[want.seat]; taken {
		s.clash = true
		return false
	}
	s.tables[i].Seats[want.seat] = en.PlayerID
	s.at[en.PlayerID] = want
	return true
}

// Clash reports whether two entries claimed one seat since the seating was
// built: it no longer follows Plan, and must be rebuilt.
func (s *Seating) Clash() bool { return s.clash }

// Plan returns the seating as Plan would build it. The tables and their
// seat maps are the Seating's own: read them, do not change them, and not
// after the next Apply.
func (s *Seating) Plan() []balance.Table { return s.tables }

// Players is how many active entrants are seated.
func (s *Seating) Players() int { return len(s.at) }

// Seated reports whether the books have the player seated in play.
func (s *Seating) Seated(player string) bool {
	_, ok := s.at[player]
	return ok
}

// Issued is Issued of the entries the seating was brought up to date with,
// for the event's stacks and chips per rebuy and add-on.
func (s *Seating) Issued(startingStack, rebuyChips, addOnChips int64) int64 {
	return s.sum.stacks*startingStack + s.sum.rebuys*rebuyChips + s.sum.addOns*addOnChips
}
