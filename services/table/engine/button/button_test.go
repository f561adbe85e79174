package button

import (
	"errors"
	"github.com/cardroom/cardroom/services/table/engine/refusal"
	"reflect"
	"strings"
	"testing"
)

var stakes = Stakes{SmallBlind: 5, BigBlind: 10}

// six returns a full six-seat table of players A…F with 1000 each.
func six() []Seat {
	s := make([]Seat, 6)
	for i := range s {
		s[i] = Seat{Player: string(rune('A' + i)), Stack: 1000}
	}
	return s
}

func with(seats []Seat, i int, f func(*Seat)) []Seat {
	out := append([]Seat(nil), seats...)
	f(&out[i])
	return out
}

func cash(seats []Seat, prev Positions) Table {
	return Table{Seats: seats, Previous: prev, Stakes: stakes}
}

func tourney(seats []Seat, prev Positions) Table {
	return Table{Seats: seats, Previous: prev, Stakes: stakes, Tournament: true}
}

func mustPlan(t *testing.T, tb Table) Plan {
	t.Helper()
	p, err := PlanHand(tb)
	if err != nil {
		t.Fatalf("PlanHand: %v", err)
	}
	return p
}

func seatsOf(p Plan) []int {
	var s []int
	for _, pl := range p.Players {
		s = append(s, pl.Seat)
	}
	return s
}

// postsOf lists the posts of one seat as "kind amount live|dead".
func postsOf(p Plan, seat int) []Post {
	var out []Post
	for _, q := range p.Posts {
		if q.Seat == seat {
			out = append(out, q)
		}
	}
	return out
}

func skipOf(p Plan, seat int) (Skip, bool) {
	for _, s := range p.Skipped {
		if s.Seat == seat {
			return s, true
		}
	}
	return Skip{}, false
}

func countKind(p Plan, k PostKind) int {
	n := 0
	for _, q := range p.Posts {
		if q.Kind == k {
			n++
		}
	}
	return n
}

var prev012 = Positions{Button: 0, SmallBlind: 1, BigBlind: 2}

func TestPositions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		table     Table
		want      Positions
		sbDead    bool
		order     []int
		first     int
		headsUp   bool
		wantPosts map[int][]PostKind
	}{
		{
			name:  "TP-09 button moves one player clockwise; deal starts left of the button, button last",
			table: cash(six(), prev012),
			want:  Positions{Button: 1, SmallBlind: 2, BigBlind: 3},
			order: []int{2, 3, 4, 5, 0, 1}, first: 4,
			wantPosts: map[int][]PostKind{2: {PostSmallBlind}, 3: {PostBigBlind}},
		},
		{
			name:  "TP-10 small blind left of the button, big blind next; TP-11 first to act left of the big blind",
			table: cash(six(), Positions{Button: 4, SmallBlind: 5, BigBlind: 0}),
			want:  Positions{Button: 5, SmallBlind: 0, BigBlind: 1},
			order: []int{0, 1, 2, 3, 4, 5}, first: 2,
			wantPosts: map[int][]PostKind{0: {PostSmallBlind}, 1: {PostBigBlind}},
		},
		{
			name: "TP-09 empty seats are skipped by the button and the blinds",
			table: cash(with(with(six(), 2, func(s *Seat) { *s = Seat{} }), 3, func(s *Seat) { *s = Seat{} }),
				Positions{Button: 0, SmallBlind: 1, BigBlind: 4}),
			want:  Positions{Button: 1, SmallBlind: 4, BigBlind: 5},
			order: []int{4, 5, 0, 1}, first: 0,
			wantPosts: map[int][]PostKind{4: {PostSmallBlind}, 5: {PostBigBlind}},
		},
		{
			name:  "TP-09 first hand: the blinds follow the drawn button",
			table: cash(six(), FirstHand(3)),
			want:  Positions{Button: 3, SmallBlind: 4, BigBlind: 5},
			order: []int{4, 5, 0, 1, 2, 3}, first: 0,
			wantPosts: map[int][]PostKind{4: {PostSmallBlind}, 5: {PostBigBlind}},
		},
		{
			name:  "G-05 ButtonOnPlayer: last small blind left, the button stays on the player to its right",
			table: cash(with(six(), 1, func(s *Seat) { *s = Seat{} }), prev012),
			want:  Positions{Button: 0, SmallBlind: 2, BigBlind: 3},
			order: []int{2, 3, 4, 5, 0}, first: 4,
			wantPosts: map[int][]PostKind{2: {PostSmallBlind}, 3: {PostBigBlind}},
		},
		{
			name: "G-05 DeadButton on a cash table: last small blind left, the button is dead on the empty seat",
			table: func() Table {
				tb := cash(with(six(), 1, func(s *Seat) { *s = Seat{} }), prev012)
				tb.Method = DeadButton
				return tb
			}(),
			want:  Positions{Button: 1, SmallBlind: 2, BigBlind: 3},
			order: []int{2, 3, 4, 5, 0}, first: 4,
			wantPosts: map[int][]PostKind{2: {PostSmallBlind}, 3: {PostBigBlind}},
		},
		{
			name:   "G-05 last big blind left: the big blind still advances and there is no small blind",
			table:  cash(with(six(), 2, func(s *Seat) { *s = Seat{} }), prev012),
			want:   Positions{Button: 1, SmallBlind: 2, BigBlind: 3},
			sbDead: true,
			order:  []int{3, 4, 5, 0, 1}, first: 4,
			wantPosts: map[int][]PostKind{3: {PostBigBlind}},
		},
		{
			name:  "TR-21 tournament dead button: the small blind busted, the button is dead on its seat",
			table: tourney(with(six(), 1, func(s *Seat) { *s = Seat{} }), prev012),
			want:  Positions{Button: 1, SmallBlind: 2, BigBlind: 3},
			order: []int{2, 3, 4, 5, 0}, first: 4,
			wantPosts: map[int][]PostKind{2: {PostSmallBlind}, 3: {PostBigBlind}},
		},
		{
			name:   "TR-21 tournament: the big blind busted, no small blind, the button moves to the last small blind",
			table:  tourney(with(six(), 2, func(s *Seat) { *s = Seat{} }), prev012),
			want:   Positions{Button: 1, SmallBlind: 2, BigBlind: 3},
			sbDead: true,
			order:  []int{3, 4, 5, 0, 1}, first: 4,
			wantPosts: map[int][]PostKind{3: {PostBigBlind}},
		},
		{
			name: "TR-21 tournament: both blinds busted, the same button again and only a big blind",
			table: tourney(with(with(six(), 1, func(s *Seat) { *s = Seat{} }), 2, func(s *Seat) { *s = Seat{} }),
				prev012),
			want:   Positions{Button: 1, SmallBlind: 2, BigBlind: 3},
			sbDead: true,
			order:  []int{3, 4, 5, 0}, first: 4,
			wantPosts: map[int][]PostKind{3: {PostBigBlind}},
		},
		{
			name: "G-04 heads-up: the button posts the small blind and acts first before the flop",
			table: cash([]Seat{{Player: "A", Stack: 100}, {}, {}, {Player: "D", Stack: 100}},
				Positions{Button: 3, SmallBlind: 3, BigBlind: 0}),
			want:  Positions{Button: 0, SmallBlind: 0, BigBlind: 3},
			order: []int{3, 0}, first: 0, headsUp: true,
			wantPosts: map[int][]PostKind{0: {PostSmallBlind}, 3: {PostBigBlind}},
		},
		{
			name:  "G-04 heads-up first hand: the drawn button has the small blind",
			table: cash([]Seat{{Player: "A", Stack: 100}, {Player: "B", Stack: 100}}, FirstHand(1)),
			want:  Positions{Button: 1, SmallBlind: 1, BigBlind: 0},
			order: []int{0, 1}, first: 1, headsUp: true,
			wantPosts: map[int][]PostKind{1: {PostSmallBlind}, 0: {PostBigBlind}},
		},
		{
			name: "G-04 three to two: the button busts, the big blind still advances (nobody is big blind twice)",
			table: cash([]Seat{{}, {Player: "B", Stack: 100}, {Player: "C", Stack: 100}},
				Positions{Button: 0, SmallBlind: 1, BigBlind: 2}),
			want:  Positions{Button: 2, SmallBlind: 2, BigBlind: 1},
			order: []int{1, 2}, first: 2, headsUp: true,
			wantPosts: map[int][]PostKind{2: {PostSmallBlind}, 1: {PostBigBlind}},
		},
		{
			name: "G-04 three to two in a tournament: the big blind busts, the big blind moves on",
			table: tourney([]Seat{{Player: "A", Stack: 100}, {Player: "B", Stack: 100}, {}},
				Positions{Button: 0, SmallBlind: 1, BigBlind: 2}),
			want:  Positions{Button: 1, SmallBlind: 1, BigBlind: 0},
			order: []int{0, 1}, first: 1, headsUp: true,
			wantPosts: map[int][]PostKind{1: {PostSmallBlind}, 0: {PostBigBlind}},
		},
		{
			name: "G-04 two dealt in, a new player waiting on the button's seat (G-06): heads-up, the button moves to the small blind",
			table: cash([]Seat{{Player: "A", Stack: 100}, Sit("D", 100), {Player: "C", Stack: 100}, {}},
				Positions{Button: 0, SmallBlind: 1, BigBlind: 2}),
			want:  Positions{Button: 2, SmallBlind: 2, BigBlind: 0},
			order: []int{0, 2}, first: 2, headsUp: true,
			wantPosts: map[int][]PostKind{2: {PostSmallBlind}, 0: {PostBigBlind}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := mustPlan(t, tc.table)
			if p.Positions != tc.want {
				t.Errorf("positions = %+v, want %+v", p.Positions, tc.want)
			}
			if p.SmallBlindDead != tc.sbDead {
				t.Errorf("SmallBlindDead = %v, want %v", p.SmallBlindDead, tc.sbDead)
			}
			if got := seatsOf(p); !reflect.DeepEqual(got, tc.order) {
				t.Errorf("deal order = %v, want %v", got, tc.order)
			}
			if p.PreflopFirst != tc.first {
				t.Errorf("PreflopFirst = %d, want %d", p.PreflopFirst, tc.first)
			}
			if p.HeadsUp != tc.headsUp {
				t.Errorf("HeadsUp = %v, want %v", p.HeadsUp, tc.headsUp)
			}
			if len(p.Posts) != countPosts(tc.wantPosts) {
				t.Errorf("posts = %+v, want %v", p.Posts, tc.wantPosts)
			}
			for seat, kinds := range tc.wantPosts {
				got := postsOf(p, seat)
				if len(got) != len(kinds) {
					t.Errorf("seat %d posts %+v, want %v", seat, got, kinds)
					continue
				}
				for i, k := range kinds {
					want := map[PostKind]int64{PostSmallBlind: 5, PostBigBlind: 10}[k]
					if got[i].Kind != k || got[i].Amount != want || !got[i].Live {
						t.Errorf("seat %d post %d = %+v, want live %v %d (TP-14)", seat, i, got[i], k, want)
					}
				}
			}
		})
	}
}

func countPosts(m map[int][]PostKind) int {
	n := 0
	for _, v := range m {
		n += len(v)
	}
	return n
}

// TestBigBlindAdvances_TP09_TP12 plays orbits and checks that the big blind
// visits every player once per orbit, also when a player leaves midway.
func TestBigBlindAdvances_TP09_TP12(t *testing.T) {
	t.Parallel()
	for _, tournament := range []bool{false, true} {
		seats := six()
		prev := prev012
		var bbs []int
		for hand := range 12 {
			if hand == 4 {
				seats[5] = Seat{} // F leaves after posting the big blind in hand 2
			}
			p := mustPlan(t, Table{Seats: seats, Previous: prev, Stakes: stakes, Tournament: tournament})
			if countKind(p, PostBigBlind) != 1 {
				t.Fatalf("hand %d: %d big blinds", hand, countKind(p, PostBigBlind))
			}
			bbs = append(bbs, p.Positions.BigBlind)
			prev = p.Positions
			seats = p.Next(seats)
		}
		want := []int{3, 4, 5, 0, 1, 2, 3, 4, 0, 1, 2, 3}
		if !reflect.DeepEqual(bbs, want) {
			t.Errorf("tournament=%v: TP-09/TP-12 big blinds %v, want %v", tournament, bbs, want)
		}
	}
}

func TestMissedBlinds(t *testing.T) {
	t.Parallel()
	type want struct {
		dealt bool
		skip  string // rule of the skip when not dealt
		posts []Post
		debt  Debt
	}
	tests := []struct {
		name  string
		table Table
		seat  int
		want  want
	}{
		{
			name:  "TP-12 a player sitting out is not dealt in",
			table: cash(with(six(), 5, func(s *Seat) { s.SittingOut = true }), prev012),
			seat:  5,
			want:  want{skip: "TP-12"},
		},
		{
			name:  "TP-12 TP-15 the big blind passes a player sitting out: a big-blind debt",
			table: cash(with(six(), 4, func(s *Seat) { s.SittingOut = true }), Positions{Button: 1, SmallBlind: 2, BigBlind: 3}),
			seat:  4,
			want:  want{skip: "TP-12", debt: Debt{BigBlind: true}},
		},
		{
			name: "TP-15 then the small blind passes too: both debts",
			table: cash(with(six(), 4, func(s *Seat) { s.SittingOut = true; s.Debt = Debt{BigBlind: true} }),
				Positions{Button: 2, SmallBlind: 3, BigBlind: 5}),
			seat: 4,
			want: want{skip: "TP-12", debt: Debt{SmallBlind: true, BigBlind: true}},
		},
		{
			name: "TP-15 missed both blinds, posts now: big blind live and small blind dead",
			table: cash(with(six(), 4, func(s *Seat) { s.Debt = Debt{SmallBlind: true, BigBlind: true}; s.PostNow = true }),
				prev012),
			seat: 4,
			want: want{dealt: true, posts: []Post{
				{Seat: 4, Kind: PostMissedBigBlind, Amount: 10, Live: true, Rule: "TP-15"},
				{Seat: 4, Kind: PostDeadSmallBlind, Amount: 5, Live: false, Rule: "TP-15"},
			}},
		},
		{
			name:  "TP-15 missed both blinds, waits: not dealt in, still owes",
			table: cash(with(six(), 4, func(s *Seat) { s.Debt = Debt{SmallBlind: true, BigBlind: true} }), prev012),
			seat:  4,
			want:  want{skip: "TP-15", debt: Debt{SmallBlind: true, BigBlind: true}},
		},
		{
			name:  "TP-15 returning in the big-blind seat posts the normal big blind only",
			table: cash(with(six(), 3, func(s *Seat) { s.Debt = Debt{SmallBlind: true, BigBlind: true} }), prev012),
			seat:  3,
			want:  want{dealt: true, posts: []Post{{Seat: 3, Kind: PostBigBlind, Amount: 10, Live: true, Rule: "TP-10"}}},
		},
		{
			name:  "TP-18 last big blind sits out: misses the small blind only",
			table: cash(with(six(), 2, func(s *Seat) { s.SittingOut = true }), prev012),
			seat:  2,
			want:  want{skip: "TP-12", debt: Debt{SmallBlind: true}},
		},
		{
			name:  "TP-18 missed the small blind only, posts it before being dealt in (dead, G-06)",
			table: cash(with(six(), 5, func(s *Seat) { s.Debt = Debt{SmallBlind: true}; s.PostNow = true }), prev012),
			seat:  5,
			want: want{dealt: true, posts: []Post{
				{Seat: 5, Kind: PostDeadSmallBlind, Amount: 5, Live: false, Rule: "TP-18"},
			}},
		},
		{
			name:  "TP-18 missed the small blind only, waits for the big blind",
			table: cash(with(six(), 5, func(s *Seat) { s.Debt = Debt{SmallBlind: true} }), prev012),
			seat:  5,
			want:  want{skip: "TP-18", debt: Debt{SmallBlind: true}},
		},
		{
			name:  "TP-19 a busted player is not dealt in and owes the big blind that passes",
			table: cash(with(six(), 4, func(s *Seat) { s.Stack = 0 }), Positions{Button: 1, SmallBlind: 2, BigBlind: 3}),
			seat:  4,
			want:  want{skip: "TP-19", debt: Debt{BigBlind: true}},
		},
		{
			name: "TP-19 after the rebuy the debt is collected under TP-15",
			table: cash(with(six(), 4, func(s *Seat) {
				s.Rebought = true
				s.PostNow = true
				s.Debt = Debt{SmallBlind: true, BigBlind: true}
			}), prev012),
			seat: 4,
			want: want{dealt: true, posts: []Post{
				{Seat: 4, Kind: PostMissedBigBlind, Amount: 10, Live: true, Rule: "TP-15"},
				{Seat: 4, Kind: PostDeadSmallBlind, Amount: 5, Live: false, Rule: "TP-15"},
			}},
		},
		{
			name:  "TP-13 new player waiting for the big blind is not dealt in and owes nothing",
			table: cash(with(six(), 4, func(s *Seat) { *s = Sit("N", 500) }), prev012),
			seat:  4,
			want:  want{skip: "TP-13"},
		},
		{
			name:  "TP-13 TP-17 a new player owes nothing when the small blind passes",
			table: cash(with(six(), 3, func(s *Seat) { *s = Sit("N", 500) }), Positions{Button: 1, SmallBlind: 2, BigBlind: 4}),
			seat:  3,
			want:  want{skip: "TP-17"},
		},
		{
			name:  "TP-13 new player posts now: a live big blind and dealt in at once",
			table: cash(with(six(), 4, func(s *Seat) { *s = Sit("N", 500); s.PostNow = true }), prev012),
			seat:  4,
			want: want{dealt: true, posts: []Post{
				{Seat: 4, Kind: PostNewPlayerBigBlind, Amount: 10, Live: true, Rule: "TP-13"},
			}},
		},
		{
			name:  "TP-13 new player reached by the big blind posts it in turn",
			table: cash(with(six(), 3, func(s *Seat) { *s = Sit("N", 500) }), prev012),
			seat:  3,
			want:  want{dealt: true, posts: []Post{{Seat: 3, Kind: PostBigBlind, Amount: 10, Live: true, Rule: "TP-10"}}},
		},
		{
			name:  "TP-16 new player who lets the big blind pass owes both blinds",
			table: cash(with(six(), 3, func(s *Seat) { *s = Sit("N", 500); s.SittingOut = true }), prev012),
			seat:  3,
			want:  want{skip: "TP-12", debt: Debt{SmallBlind: true, BigBlind: true}},
		},
		{
			name: "TP-16 new player who owes both may not post away from the button",
			table: cash(with(six(), 4, func(s *Seat) {
				*s = Sit("N", 500)
				s.Debt = Debt{SmallBlind: true, BigBlind: true}
				s.PostNow = true
			}), prev012),
			seat: 4,
			want: want{skip: "TP-16", debt: Debt{SmallBlind: true, BigBlind: true}},
		},
		{
			name: "TP-16 new player who owes both posts small and big blind on the button",
			table: cash(with(six(), 4, func(s *Seat) {
				*s = Sit("N", 500)
				s.Debt = Debt{SmallBlind: true, BigBlind: true}
				s.PostNow = true
			}), Positions{Button: 3, SmallBlind: 4, BigBlind: 5}),
			seat: 4,
			want: want{dealt: true, posts: []Post{
				{Seat: 4, Kind: PostMissedBigBlind, Amount: 10, Live: true, Rule: "TP-16"},
				{Seat: 4, Kind: PostDeadSmallBlind, Amount: 5, Live: false, Rule: "G-06"},
			}},
		},
		{
			name: "TP-17 a player who sat down between the blinds is not dealt in, even posting",
			table: cash(with(six(), 2, func(s *Seat) { *s = Sit("N", 500); s.PostNow = true }),
				Positions{Button: 0, SmallBlind: 1, BigBlind: 3}),
			seat: 2,
			want: want{skip: "TP-17"},
		},
		{
			name: "G-06 a player owing blinds between the button and the small blind waits until the button passes",
			table: cash(with(six(), 2, func(s *Seat) { s.Debt = Debt{BigBlind: true}; s.PostNow = true }),
				Positions{Button: 0, SmallBlind: 1, BigBlind: 3}),
			seat: 2,
			want: want{skip: "G-06", debt: Debt{BigBlind: true, SmallBlind: true}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := mustPlan(t, tc.table)
			if got := p.DealtIn(tc.seat); got != tc.want.dealt {
				t.Fatalf("dealt in = %v, want %v; skipped %+v", got, tc.want.dealt, p.Skipped)
			}
			sk, skipped := skipOf(p, tc.seat)
			if tc.want.dealt == skipped {
				t.Errorf("skip record %+v present=%v", sk, skipped)
			}
			if !tc.want.dealt && sk.Rule != tc.want.skip {
				t.Errorf("skip rule = %q (%s), want %q", sk.Rule, sk.Reason, tc.want.skip)
			}
			if got := postsOf(p, tc.seat); !reflect.DeepEqual(got, tc.want.posts) {
				t.Errorf("posts = %+v, want %+v", got, tc.want.posts)
			}
			if p.Debts[tc.seat] != tc.want.debt {
				t.Errorf("debt = %+v, want %+v", p.Debts[tc.seat], tc.want.debt)
			}
		})
	}
}

// TestSitOutOrbit_TP15 follows one player who sits out for a while and comes
// back: both debts build up, posting now clears them.
func TestSitOutOrbit_TP15(t *testing.T) {
	t.Parallel()
	seats := with(six(), 4, func(s *Seat) { s.SittingOut = true })
	prev := prev012
	for range 3 {
		p := mustPlan(t, cash(seats, prev))
		prev, seats = p.Positions, p.Next(seats)
	}
	if got := seats[4].Debt; got != (Debt{SmallBlind: true, BigBlind: true}) {
		t.Fatalf("after the blinds passed: debt %+v, want both (TP-15)", got)
	}
	seats[4].SittingOut, seats[4].PostNow = false, true
	p := mustPlan(t, cash(seats, prev)) // positions {3,5,0} → {5,0,1}: seat 4 is outside the blinds
	if !p.DealtIn(4) {
		t.Fatalf("TP-15: returning player not dealt in: %+v", p.Skipped)
	}
	if got := postsOf(p, 4); len(got) != 2 || got[0].Kind != PostMissedBigBlind || got[1].Kind != PostDeadSmallBlind {
		t.Errorf("TP-15 posts = %+v", got)
	}
	if p.Next(seats)[4].Debt.Owes() || p.Next(seats)[4].PostNow {
		t.Errorf("TP-15 debt not cleared after posting")
	}
}

func TestTournament(t *testing.T) {
	t.Parallel()
	t.Run("TP-12 C-06 tournament: an absent player is dealt in and posts", func(t *testing.T) {
		t.Parallel()
		p := mustPlan(t, tourney(with(six(), 3, func(s *Seat) { s.SittingOut = true }), prev012))
		if !p.DealtIn(3) || p.Positions.BigBlind != 3 || p.Debts[3].Owes() {
			t.Fatalf("absent big blind: dealt=%v positions=%+v debts=%+v", p.DealtIn(3), p.Positions, p.Debts[3])
		}
		for _, pl := range p.Players {
			if pl.Absent != (pl.Seat == 3) {
				t.Errorf("seat %d Absent = %v", pl.Seat, pl.Absent)
			}
		}
	})
	t.Run("G-06 tournament: a player moved in between the button and the small blind waits", func(t *testing.T) {
		t.Parallel()
		seats := with(six(), 2, func(s *Seat) { *s = Seat{Player: "N", Stack: 1000, New: true} })
		p := mustPlan(t, tourney(seats, Positions{Button: 0, SmallBlind: 1, BigBlind: 3}))
		if p.Positions != (Positions{Button: 1, SmallBlind: 3, BigBlind: 4}) {
			t.Fatalf("positions %+v", p.Positions)
		}
		if sk, ok := skipOf(p, 2); !ok || sk.Rule != "G-06" {
			t.Errorf("skip = %+v %v, want G-06", sk, ok)
		}
		if p.Debts[2].Owes() {
			t.Errorf("tournament debt %+v", p.Debts[2])
		}
	})
	t.Run("G-35 TR-23 tournament: players moved in between the button and the small blind are dealt in when the wait would stop the table", func(t *testing.T) {
		t.Parallel()
		// The stall the 300-entrant benchmark found: one player left
		// (seat 5), two moved in at seats 2 and 3, both between the
		// button and the small blind the positions move to (G-06). Waiting
		// would leave one player, so no hand, so the button never passes.
		seats := make([]Seat, 6)
		seats[2] = Seat{Player: "M1", Stack: 1000, New: true}
		seats[3] = Seat{Player: "M2", Stack: 1000, New: true}
		seats[5] = Seat{Player: "O", Stack: 1000}
		p := mustPlan(t, tourney(seats, Positions{Button: 0, SmallBlind: 1, BigBlind: 4}))
		if p.Positions.BigBlind != 5 {
			t.Fatalf("positions %+v, want the big blind on to seat 5", p.Positions)
		}
		for _, s := range []int{2, 3, 5} {
			if !p.DealtIn(s) {
				t.Errorf("seat %d not dealt in: skipped %+v", s, p.Skipped)
			}
		}
		if len(p.Skipped) != 0 {
			t.Errorf("skipped %+v, want none", p.Skipped)
		}
	})
	t.Run("G-06 tournament: with two others to play, a moved player between the button and the small blind still waits", func(t *testing.T) {
		t.Parallel()
		seats := make([]Seat, 6)
		seats[2] = Seat{Player: "M1", Stack: 1000, New: true}
		seats[5] = Seat{Player: "O", Stack: 1000}
		seats[0] = Seat{Player: "P", Stack: 1000}
		p := mustPlan(t, tourney(seats, Positions{Button: 0, SmallBlind: 1, BigBlind: 4}))
		if sk, ok := skipOf(p, 2); !ok || sk.Rule != "G-06" {
			t.Errorf("seat 2 skip = %+v %v, want G-06", sk, ok)
		}
	})
	t.Run("TR-21 tournament: a player moved in on the big blind posts it", func(t *testing.T) {
		t.Parallel()
		seats := with(six(), 3, func(s *Seat) { *s = Seat{Player: "N", Stack: 1000, New: true} })
		p := mustPlan(t, tourney(seats, prev012))
		if p.Positions.BigBlind != 3 || !p.DealtIn(3) {
			t.Errorf("positions %+v dealt %v", p.Positions, p.DealtIn(3))
		}
	})
}

func TestBlindsLiveAndActionOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		table Table
		first int
	}{
		{"TP-11 before the flop the first player left of the big blind acts first", cash(six(), prev012), 4},
		{"TP-11 with the big blind on the last seat the action wraps to seat 0", cash(six(), Positions{Button: 2, SmallBlind: 3, BigBlind: 4}), 0},
		{"TP-11 a seat skipped left of the big blind does not act", cash(with(six(), 4, func(s *Seat) { s.SittingOut = true }), prev012), 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if p := mustPlan(t, tc.table); p.PreflopFirst != tc.first {
				t.Errorf("PreflopFirst = %d, want %d", p.PreflopFirst, tc.first)
			}
		})
	}
	t.Run("TP-14 blinds posted in turn are live; missed and ante posts are flagged", func(t *testing.T) {
		t.Parallel()
		tb := cash(with(six(), 5, func(s *Seat) { s.Debt = Debt{SmallBlind: true, BigBlind: true}; s.PostNow = true }), prev012)
		tb.Stakes.Ante = 1
		p := mustPlan(t, tb)
		want := map[PostKind]bool{PostSmallBlind: true, PostBigBlind: true, PostMissedBigBlind: true, PostDeadSmallBlind: false, PostAnte: false}
		seen := map[PostKind]bool{}
		for _, q := range p.Posts {
			live, ok := want[q.Kind]
			if !ok || q.Live != live {
				t.Errorf("post %+v: live = %v, want %v", q, q.Live, live)
			}
			seen[q.Kind] = true
		}
		if len(seen) != len(want) {
			t.Errorf("posts %+v lack a kind of %v", p.Posts, want)
		}
	})
}

func TestStraddle_TP20(t *testing.T) {
	t.Parallel()
	straddle := func(i int) []Seat { return with(six(), i, func(s *Seat) { s.Straddle = true }) }
	t.Run("TP-20 the player after the big blind straddles twice the big blind and acts last", func(t *testing.T) {
		t.Parallel()
		p := mustPlan(t, cash(straddle(4), prev012))
		if p.StraddleOffer != 4 || p.Straddler != 4 {
			t.Fatalf("offer %d straddler %d, want 4", p.StraddleOffer, p.Straddler)
		}
		want := []Post{{Seat: 4, Kind: PostStraddle, Amount: 20, Live: true, Rule: "TP-20"}}
		if got := postsOf(p, 4); !reflect.DeepEqual(got, want) {
			t.Errorf("posts %+v, want %+v", got, want)
		}
		if p.PreflopFirst != 5 {
			t.Errorf("TP-11/TP-20 first to act %d, want 5", p.PreflopFirst)
		}
	})
	t.Run("TP-20 without a request the offer is still reported", func(t *testing.T) {
		t.Parallel()
		p := mustPlan(t, cash(six(), prev012))
		if p.StraddleOffer != 4 || p.Straddler != NoSeat || countKind(p, PostStraddle) != 0 {
			t.Errorf("offer %d straddler %d", p.StraddleOffer, p.Straddler)
		}
	})
	errs := []struct {
		name   string
		table  Table
		reason refusal.Reason
	}{
		{"TP-20 tournament tables reject the straddle", tourney(straddle(4), prev012), refusal.StraddleNotAllowed},
		{"TP-20 only the seat after the big blind may straddle", cash(straddle(5), prev012), refusal.StraddleNotAllowed},
		{"TP-20 the straddle is a full 2 x BB", cash(with(straddle(4), 4, func(s *Seat) { s.Stack = 15 }), prev012), refusal.StraddleShort},
		{"TP-20 no straddle heads-up", cash([]Seat{{Player: "A", Stack: 100, Straddle: true}, {Player: "B", Stack: 100}}, FirstHand(0)), refusal.StraddleNotAllowed},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := PlanHand(tc.table)
			var re *refusal.Error
			if !errors.As(err, &re) || re.Rule != "TP-20" || re.Reason != tc.reason {
				t.Fatalf("err = %v, want TP-20 %s", err, tc.reason)
			}
		})
	}
}

func TestAntesAndShortStacks(t *testing.T) {
	t.Parallel()
	t.Run("G-07 classic ante from every dealt-in player, dead", func(t *testing.T) {
		t.Parallel()
		tb := cash(six(), prev012)
		tb.Stakes.Ante = 1
		p := mustPlan(t, tb)
		if countKind(p, PostAnte) != 6 {
			t.Fatalf("antes %d, want 6", countKind(p, PostAnte))
		}
		for _, q := range p.Posts {
			if q.Kind == PostAnte && (q.Live || q.Amount != 1) {
				t.Errorf("ante %+v", q)
			}
		}
	})
	t.Run("G-07 big-blind ante: the big blind posts the table's ante after the blind", func(t *testing.T) {
		t.Parallel()
		tb := tourney(six(), prev012)
		tb.Stakes = Stakes{SmallBlind: 5, BigBlind: 10, Ante: 10, BigBlindAnte: true}
		p := mustPlan(t, tb)
		want := []Post{
			{Seat: 3, Kind: PostBigBlind, Amount: 10, Live: true, Rule: "TP-10"},
			{Seat: 3, Kind: PostBigBlindAnte, Amount: 10, Rule: "G-07"},
		}
		if got := postsOf(p, 3); !reflect.DeepEqual(got, want) || countKind(p, PostAnte) != 0 {
			t.Errorf("posts %+v, want %+v", got, want)
		}
	})
	t.Run("G-31 a short big blind posts all-in; the blind comes before the ante", func(t *testing.T) {
		t.Parallel()
		tb := tourney(with(six(), 3, func(s *Seat) { s.Stack = 7 }), prev012)
		tb.Stakes.Ante = 1
		p := mustPlan(t, tb)
		want := []Post{{Seat: 3, Kind: PostBigBlind, Amount: 7, Live: true, AllIn: true, Rule: "TP-10"}}
		if got := postsOf(p, 3); !reflect.DeepEqual(got, want) {
			t.Errorf("posts %+v, want %+v", got, want)
		}
		if !p.DealtIn(3) {
			t.Error("all-in big blind not dealt in")
		}
	})
	t.Run("G-31 TP-15 a short returning player posts the live big blind first", func(t *testing.T) {
		t.Parallel()
		p := mustPlan(t, cash(with(six(), 4, func(s *Seat) {
			s.Stack = 12
			s.Debt = Debt{SmallBlind: true, BigBlind: true}
			s.PostNow = true
		}), prev012))
		got := postsOf(p, 4)
		if len(got) != 2 || got[0].Amount != 10 || got[1].Amount != 2 || !got[1].AllIn {
			t.Errorf("posts %+v", got)
		}
	})
}

func TestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		table  Table
		rule   string
		reason refusal.Reason
	}{
		{"TP-10 one player cannot play a hand", cash([]Seat{{Player: "A", Stack: 10}, {}}, FirstHand(0)), "TP-10", refusal.TooFewPlayers},
		{"TP-12 two players but one sits out", cash([]Seat{{Player: "A", Stack: 10}, {Player: "B", Stack: 10, SittingOut: true}}, FirstHand(0)), "TP-10", refusal.TooFewPlayers},
		{"TP-13 heads-up with the other player waiting for the big blind", cash([]Seat{{Player: "A", Stack: 10}, Sit("B", 10), {}}, Positions{Button: 0, SmallBlind: 0, BigBlind: 2}), "TP-10", refusal.TooFewPlayers},
		{"bad stakes", Table{Seats: six(), Previous: prev012, Stakes: Stakes{SmallBlind: 20, BigBlind: 10}}, "", refusal.BadTable},
		{"bad previous button", cash(six(), Positions{Button: 9, SmallBlind: 1, BigBlind: 2}), "", refusal.BadTable},
		{"too many seats", cash(make([]Seat, 11), FirstHand(0)), "", refusal.BadTable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := PlanHand(tc.table)
			var re *refusal.Error
			if !errors.As(err, &re) || re.Rule != tc.rule || re.Reason != tc.reason {
				t.Fatalf("err = %v, want %s %s", err, tc.rule, tc.reason)
			}
			if !strings.Contains(err.Error(), string(tc.reason)) {
				t.Errorf("message %q lacks the reason", err.Error())
			}
		})
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		seat     Seat
		rule     string
		posts    []PostKind
		onButton bool
	}{
		{"TP-13 new player: wait for the big blind or post one now", Sit("N", 100), "TP-13", []PostKind{PostNewPlayerBigBlind}, false},
		{"TP-15 missed both", Seat{Player: "A", Stack: 100, Debt: Debt{SmallBlind: true, BigBlind: true}}, "TP-15", []PostKind{PostMissedBigBlind, PostDeadSmallBlind}, false},
		{"TP-16 new player who let the big blind pass", Seat{Player: "N", Stack: 100, New: true, Debt: Debt{SmallBlind: true, BigBlind: true}}, "TP-16", []PostKind{PostMissedBigBlind, PostDeadSmallBlind}, true},
		{"TP-18 missed the small blind only", Seat{Player: "A", Stack: 100, Debt: Debt{SmallBlind: true}}, "TP-18", []PostKind{PostDeadSmallBlind}, false},
		{"TP-19 rebought with debts", Seat{Player: "A", Stack: 100, Rebought: true, Debt: Debt{BigBlind: true}}, "TP-15", []PostKind{PostMissedBigBlind}, false},
		{"no debt, no options", Seat{Player: "A", Stack: 100}, "", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := Options(2, tc.seat, stakes, false)
			if tc.posts == nil {
				if opts != nil {
					t.Fatalf("options %+v, want none", opts)
				}
				return
			}
			if len(opts) != 2 || opts[0].Choice != WaitForBigBlind || opts[1].Choice != PostNow {
				t.Fatalf("options %+v", opts)
			}
			post := opts[1]
			if post.Rule != tc.rule || post.OnButtonOnly != tc.onButton || len(post.Posts) != len(tc.posts) {
				t.Fatalf("post-now option %+v", post)
			}
			for i, k := range tc.posts {
				if post.Posts[i].Kind != k || post.Posts[i].Seat != 2 || post.Posts[i].Live != k.Live() {
					t.Errorf("post %d = %+v, want %v", i, post.Posts[i], k)
				}
			}
			if tc.seat.Rebought && !strings.Contains(post.Explanation, "TP-19") {
				t.Errorf("TP-19 not explained: %q", post.Explanation)
			}
		})
	}
	if Options(0, Sit("N", 100), stakes, true) != nil {
		t.Error("tournament seats have no options")
	}
}

func TestPostKindMatchesEngine(t *testing.T) {
	t.Parallel()
	// The engine's PostKind uses the same values; a reorder here breaks the
	// conversion engine.PostKind(k).
	want := []string{"ante", "small_blind", "big_blind", "straddle", "dead_small_blind", "missed_big_blind", "new_player_big_blind", "big_blind_ante"}
	for i, name := range want {
		if got := PostKind(i).String(); got != name {
			t.Errorf("PostKind(%d) = %q, want %q", i, got, name)
		}
	}
	if PostAnte.Live() || !PostMissedBigBlind.Live() || PostDeadSmallBlind.Live() || PostBigBlindAnte.Live() {
		t.Error("TP-10 live/dead flags wrong")
	}
}

// TestNewPlayerPostsOnTheButton_TP16 plays hands in a row as a table does: a
// new player sits down, lets the big blind pass, then chooses to post now.
// The button, moving on one hand at a time, must come to the seat, which
// posts the small and the big blind there (TP-16: big blind live, small blind
// dead by G-06) and is dealt in — not wait for the big blind in turn.
func TestNewPlayerPostsOnTheButton_TP16(t *testing.T) {
	t.Parallel()
	seats := with(six(), 5, func(s *Seat) { *s = Seat{} })
	seats = with(seats, 4, func(s *Seat) { *s = Sit("E", 500); s.SittingOut = true })
	prev := Positions{Button: 1, SmallBlind: 2, BigBlind: 3}

	p := mustPlan(t, cash(seats, prev)) // the big blind passes seat 4: {2,3,0}
	if p.Positions.BigBlind == 4 || p.DealtIn(4) {
		t.Fatalf("seat 4 sits out and should let the big blind pass: %+v", p.Positions)
	}
	prev, seats = p.Positions, p.Next(seats)
	if got := seats[4].Debt; got != (Debt{SmallBlind: true, BigBlind: true}) {
		t.Fatalf("TP-16: debt after letting the big blind pass = %+v, want both", got)
	}
	seats[4].SittingOut, seats[4].PostNow = false, true

	buttons := []int{prev.Button}
	for hand := 0; hand < 6 && !p.DealtIn(4); hand++ {
		p = mustPlan(t, cash(seats, prev))
		buttons = append(buttons, p.Positions.Button)
		if p.Positions.BigBlind == prev.BigBlind {
			t.Fatalf("big blind did not advance: %+v → %+v", prev, p.Positions)
		}
		prev, seats = p.Positions, p.Next(seats)
	}
	if !p.DealtIn(4) || p.Positions.Button != 4 {
		t.Fatalf("TP-16: seat 4 never posted on the button; buttons %v, last %+v, skipped %+v", buttons, p.Positions, p.Skipped)
	}
	if want := []int{2, 3, 4}; !reflect.DeepEqual(buttons, want) {
		t.Errorf("TP-16: buttons %v, want %v: the button goes to seat 4 when it moves on from seat 3", buttons, want)
	}
	want := []Post{
		{Seat: 4, Kind: PostMissedBigBlind, Amount: 10, Live: true, Rule: "TP-16"},
		{Seat: 4, Kind: PostDeadSmallBlind, Amount: 5, Live: false, Rule: "G-06"},
	}
	if got := postsOf(p, 4); !reflect.DeepEqual(got, want) {
		t.Errorf("TP-16 posts = %+v, want %+v", got, want)
	}
	if p.Positions.SmallBlind != 1 || p.Positions.BigBlind != 2 || p.SmallBlindDead {
		t.Errorf("blinds = %+v dead SB %v, want the small blind on 1 and the big blind on 2 (TP-10)", p.Positions, p.SmallBlindDead)
	}
	if len(p.Players) != 5 || p.Players[len(p.Players)-1].Seat != 4 {
		t.Errorf("dealt %v, want all five with seat 4 last on the button (TP-09)", seatsOf(p))
	}

	// The rotation goes on: the button back on the small blind's right, the
	// big blind advancing, seat 4 in the game owing nothing.
	seats = p.Next(seats)
	if seats[4].Debt.Owes() || seats[4].New || seats[4].PostNow {
		t.Fatalf("TP-16: seat 4 after posting = %+v, want in the game owing nothing", seats[4])
	}
	for range 5 {
		next := mustPlan(t, cash(seats, prev))
		if len(next.Players) != 5 || next.Positions.BigBlind != (prev.BigBlind+1)%5 || next.SmallBlindDead {
			t.Fatalf("after TP-16: %+v → %+v dealt %v", prev, next.Positions, seatsOf(next))
		}
		prev, seats = next.Positions, next.Next(seats)
	}
}
