package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/testkit/poll"
	"github.com/cardroom/cardroom/services/table/engine/cards"
)

// TestLiveTournamentConsole_TR20_TR21_TR23_TR33_G07 is issue 10's item 9
// over REST on a cluster (every part its own process, Redis and
// PostgreSQL): a live-dealt freezeout on two live tables, whose dealers
// play every hand by entering what happened at the console; the floor
// only creates and starts the event and, once, penalises a player. Each
// dealer console's feed is read and checked:
//   - a level change is on the feed no later than the first hand that
//     plays it, and that hand posts the new blinds (TR-20);
//   - the break is on the feed, no hand starts during it, and play
//     resumes at the next level (G-07);
//   - a bust leaves one table two short: the balancing move is on both
//     consoles (TR-23), the seat at the new table is held for the moved
//     player and not dealt in until the dealer confirms the arrival
//     (ConfirmArrival, TR-23); from then the player is dealt in at once,
//     or waits only while between the button and the small blind (TR-21,
//     G-06);
//   - a missed-hand penalty is on the feed and the player sits out the
//     hands it counts (TR-33).
func TestLiveTournamentConsole_TR20_TR21_TR23_TR33_G07(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every part of the suite in its own process")
	}
	t.Parallel()
	begun := time.Now()
	c := newCluster(t, clusterOptions{env: []string{"CARDROOM_TABLE_HAND_PAUSE=0s", "CARDROOM_LOCK_TTL=5s"}})
	players := []string{"la", "lb", "lc", "ld", "le", "lf", "lg"}
	r := newRoom(t, c.gateway, players...)
	for _, p := range players {
		r.deposit(p, 2000)
	}
	sheet := []map[string]any{
		{"small_blind": 25, "big_blind": 50, "duration": "14s"},
		{"small_blind": 50, "big_blind": 100, "duration": "8s"},
		{"break": true, "duration": "3s"},
		{"small_blind": 100, "big_blind": 200, "duration": "600s"},
	}
	var created struct {
		Tournament struct {
			ID string `json:"tournament_id"`
		}
	}
	r.must("POST", "/v1/tournaments", r.floor, map[string]any{"name": "Live Console", "variant": "VARIANT_HOLDEM",
		"structure": "STRUCTURE_NO_LIMIT", "currency": "EUR", "buy_in": 1000, "fee": 100, "starting_stack": 10000,
		"start_time": time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano), "levels": sheet, "seats_per_table": 4,
		"live_tables": true, "payouts": map[string]any{"unit": 100, "tiers": []any{map[string]any{"shares": []int{10000}}}}}, &created)
	id := created.Tournament.ID
	for _, p := range players {
		r.must("POST", "/v1/tournaments/"+id+"/entries", r.tokens[p], map[string]any{"player_id": p}, nil)
	}
	if started := r.startTournament(id); len(started.Seats) != 7 {
		t.Fatalf("draw %+v", started.Seats)
	}
	var draws struct {
		Draws []struct {
			At time.Time `json:"create_time"`
		}
	}
	r.must("GET", "/v1/tournaments/"+id+"/draws", r.floor, nil, &draws)
	clockStart := draws.Draws[0].At
	ids := tournamentTablesOf(t, r, id)
	if len(ids) != 2 {
		t.Fatalf("tables opened for 7 entrants at 4 a table: %v", ids)
	}
	dealer := c.gateway.token("dealer-dave", "dealer")
	n := &liveNight{room: r, dealer: dealer}
	lv := &liveTour{n: n, id: id, penalty: map[int64]bool{}}
	for i, tid := range ids {
		lt := &liveTable{id: tid, name: fmt.Sprintf("T%d", i+1), tournament: true, seed: uint64(400 + i),
			entered: map[int64]map[int]map[string]bool{}}
		lv.tables = append(lv.tables, lt)
		lv.feeds = append(lv.feeds, r.watch(tid, "dealer of "+lt.name, dealer))
	}
	// The table of three loses a player; the table of four gives one.
	for i, lt := range lv.tables {
		if len(seated(n.state(lt))) == 3 {
			lv.short, lv.full = lt, lv.tables[1-i]
		}
	}
	if lv.short == nil {
		t.Fatalf("no table of three in the draw")
	}
	lv.shortAtStart = seated(n.state(lv.short))

	poll.Eventually(t, 100*time.Second, lv.play)

	// The feeds, read to the last change.
	lines := map[*liveTable][]watchLine{}
	for i, lt := range lv.tables {
		lines[lt] = lv.feeds[i].until(t, n.state(lt).Sequence)
	}
	lv.checkLevelsOnFeed(lines)
	lv.checkMoveOnFeed(lines)
	lv.checkPenaltyOnFeed(lines)

	// TR-20, G-07: every hand played the level in force at its start, and
	// none started in the break (the tables' own reports).
	tc, svc := tournamentTables(t, c.tables[0].grpcAddr(), c.gateway.token("cardroom-tournament", "service"))
	checkLevels(t, handsOf(svc, t, tc, ids), clockStart, sheet)
	t.Logf("live tournament: %d + %d hands, %d console entries, %s", lv.tables[0].played, lv.tables[1].played, n.entries,
		time.Since(begun).Round(time.Millisecond))
}

// liveTour is the test's view of the live event: its two dealers' work
// and what they saw.
type liveTour struct {
	n      *liveNight
	id     string
	tables []*liveTable
	feeds  []*watch
	// short is the table of three, where a player is knocked out; full
	// gives a player to it.
	short, full *liveTable

	// The penalty (TR-33): who, issued before which hand at their table,
	// how many hands, and the hands (by table and number) they sat out.
	penalised string
	penalHand int64
	toMiss    int
	penalty   map[int64]bool
	missed    int
	backIn    bool // dealt in again once the penalty was served

	// The knock-out and the move (TR-23).
	bustTarget string
	bustHand   int64
	mover      string
	arriving   int   // the seat held at short for the moved player, -1 none
	heldHands  int   // hands short dealt while the seat was held
	confirmed  int64 // short's hand in progress (or last) at the confirmation
	dealtIn    int64 // the first hand at short the moved player was dealt into

	levels       map[*liveTable]int // the highest level a hand started at, per table
	shortAtStart []string           // the players the table of three started with
	deadline     time.Time
}

func seated(st liveState) []string {
	var out []string
	for _, s := range st.Seats {
		if s.PlayerID != "" {
			out = append(out, s.PlayerID)
		}
	}
	return out
}

// play is one round of the dealers' work: every table's hand in progress
// is advanced as far as it goes. It returns nil once everything the test
// waits for happened: a hand after the break at both tables, the penalty
// served, the moved player dealt in at the new table.
func (lv *liveTour) play() error {
	for {
		progressed := false
		for _, lt := range lv.tables {
			if lv.advance(lt) {
				progressed = true
			}
		}
		if !progressed {
			break
		}
	}
	if lv.deadline.IsZero() {
		lv.deadline = time.Now().Add(90 * time.Second)
	}
	if time.Now().After(lv.deadline) {
		for _, lt := range lv.tables {
			lv.dump(lt)
			lv.n.t.Logf("%s now: %+v", lt.name, lv.n.state(lt))
		}
	}
	switch {
	case lv.levels[lv.tables[0]] < 4 || lv.levels[lv.tables[1]] < 4, lv.mover == "":
		return fmt.Errorf("levels reached %d and %d; knock-out of %q rigged at hand %d; mover %q", lv.levels[lv.tables[0]],
			lv.levels[lv.tables[1]], lv.bustTarget, lv.bustHand, lv.mover)
	case lv.penalised == "" || !lv.backIn:
		return fmt.Errorf("penalty: %s missed %d of %d hands", lv.penalised, lv.missed, lv.toMiss)
	case lv.dealtIn == 0:
		return fmt.Errorf("the moved player %q not dealt in at %s yet (seat held %d, confirmed at hand %d)", lv.mover, lv.short.name,
			lv.arriving, lv.confirmed)
	}
	return nil
}

// advance makes the next console entry at lt, if a hand is under way
// there, and reports whether it made one.
func (lv *liveTour) advance(lt *liveTable) bool {
	n := lv.n
	n.t.Helper()
	st := n.state(lt)
	lv.watchMove(lt, st)
	if st.Hand == nil || st.Hand.Done {
		return false
	}
	if st.Hand.HandNo != lt.handNo {
		n.deal(lt, st)
		lv.handStarted(lt, st)
		st = n.current(lt)
	}
	h := st.Hand
	if h.Awaiting != nil || h.ToAct < 0 {
		n.step(lt, st)
		lv.after(lt)
		return true
	}
	if _, _, ok := st.legal("SHOW"); ok {
		n.step(lt, st)
		lv.after(lt)
		return true
	}
	if lt == lv.short && lt.handNo == lv.bustHand {
		lv.bustStep(lt, st)
	} else {
		n.step(lt, st)
	}
	lv.after(lt)
	return true
}

// after notes the end of a hand.
func (lv *liveTour) after(lt *liveTable) {
	if st := lv.n.current(lt); st.Hand == nil || st.Hand.HandNo != lt.handNo || st.Hand.Done {
		lt.played++
	}
}

// handStarted checks a hand as it is dealt and sets up what comes next.
func (lv *liveTour) handStarted(lt *liveTable, st liveState) {
	n := lv.n
	n.t.Helper()
	if lv.levels == nil {
		lv.levels = map[*liveTable]int{}
	}
	lv.levels[lt] = max(lv.levels[lt], lv.levelOf(lt, st.Hand.HandNo))
	in, playing := map[string]bool{}, map[string]bool{}
	for _, s := range st.Seats {
		if s.InHand {
			in[s.PlayerID] = true
			playing[s.PlayerID] = !s.Folded
		}
	}
	// TR-33: the penalised player misses the hands counted: their seat is
	// dealt to and killed at once (TP-57), their blinds posted.
	if lv.penalised != "" && lv.missed < lv.toMiss && slices.Contains(seated(st), lv.penalised) && st.Hand.HandNo > lv.penalHand {
		if playing[lv.penalised] {
			n.t.Fatalf("TR-33: %s, penalised for %d hands from hand %d at %s, is dealt into hand %d there after %d missed", lv.penalised,
				lv.toMiss, lv.penalHand+1, lt.name, st.Hand.HandNo, lv.missed)
		}
		lv.missed++
		lv.penalty[st.Hand.HandNo] = true
	} else if lv.penalised != "" && lv.missed == lv.toMiss && !lv.backIn && slices.Contains(seated(st), lv.penalised) {
		// Served: they play again from the next hand.
		if !playing[lv.penalised] {
			n.t.Fatalf("TR-33: %s served %d hands and is not dealt into hand %d at %s", lv.penalised, lv.toMiss, st.Hand.HandNo, lt.name)
		}
		lv.backIn = true
	}
	// TR-23: a seat held for a moved player is not dealt in until the
	// dealer confirms the arrival.
	if lt == lv.short && lv.mover != "" {
		switch {
		case lv.confirmed == 0:
			if in[lv.mover] {
				lv.dump(lt)
				n.t.Fatalf("TR-23: %s is dealt into hand %d at %s before the dealer confirmed the arrival", lv.mover, st.Hand.HandNo, lt.name)
			}
			lv.heldHands++
		case lv.dealtIn == 0 && in[lv.mover]:
			lv.dealtIn = st.Hand.HandNo
		case lv.dealtIn == 0:
			// TR-21, G-06: a player moved in waits only while between the
			// button and the small blind.
			if !betweenButtonAndSmallBlind(st, lv.arriving) {
				n.t.Fatalf("TR-21: %s, arrived at %s seat %d, is not dealt into hand %d (button %d): %+v", lv.mover, lt.name, lv.arriving,
					st.Hand.HandNo, st.Hand.Button, st.Seats)
			}
		}
	}
	// The penalty, issued by the floor during the first hand at the
	// table that gave a player, after the move: a player of that hand,
	// one round (TR-33: one hand for each player at the table).
	if lt == lv.full && lv.penalised == "" && lv.mover != "" && !slices.Contains(seated(st), lv.mover) {
		var p string
		for _, s := range st.Seats {
			if s.InHand && s.Seat != st.Hand.Button {
				p = s.PlayerID
			}
		}
		at := len(seated(st))
		var out struct {
			HandsToMiss int `json:"hands_to_miss"`
		}
		n.must("POST", "/v1/tournaments/"+lv.id+"/entries/"+p+":penalize", n.floor, map[string]any{"type": "PENALTY_TYPE_MISSED_HANDS",
			"reason": "abusive language", "hand": st.Hand.HandNo, "rounds": 1, "players_at_table": at}, &out)
		if out.HandsToMiss != at {
			n.t.Fatalf("TR-33: %d players × 1 round gives %d hands to miss", at, out.HandsToMiss)
		}
		lv.penalised, lv.penalHand, lv.toMiss = p, st.Hand.HandNo, out.HandsToMiss
	}
	// The knock-out: from the second hand at the table of three, a hand
	// all three are in is rigged so the shortest stack loses all in.
	if lt == lv.short && lv.bustTarget == "" && st.Hand.HandNo >= 2 && len(in) == 3 {
		lv.rig(lt, st)
	}
}

// levelOf is the level hand no at lt was dealt at, by the table's history.
func (lv *liveTour) levelOf(lt *liveTable, no int64) int {
	// The level is in the hand's report once it ends; while it runs, the
	// posts tell it: the big blind posted.
	st := lv.n.current(lt)
	var bb int64
	for _, s := range st.Seats {
		bb = max(bb, s.Bet)
	}
	switch {
	case bb >= 200:
		return 4
	case bb >= 100:
		return 2
	}
	return 1
}

// rig gives the shortest stack of the hand the worst cards on the board
// the deck will deal, and the biggest stack the best: the shortest goes
// all in, the biggest calls, the third folds.
func (lv *liveTour) rig(lt *liveTable, st liveState) {
	lo, hi := -1, -1
	for _, s := range st.Seats {
		if !s.InHand {
			continue
		}
		if lo < 0 || s.Stack+s.Bet < st.Seats[lo].Stack+st.Seats[lo].Bet {
			lo = s.Seat
		}
		if hi < 0 || s.Stack+s.Bet >= st.Seats[hi].Stack+st.Seats[hi].Bet {
			hi = s.Seat
		}
	}
	if lo == hi {
		return
	}
	// The board, as step will enter it: a burn before each street.
	d := lt.deck[lt.next:]
	board := []cards.Card{d[1], d[2], d[3], d[5], d[7]}
	type held struct {
		seat int
		v    uint32
	}
	var hs []held
	for seat, cs := range lt.hole {
		hs = append(hs, held{seat, lt.value(cs, board)})
	}
	slices.SortFunc(hs, func(a, b held) int { return int(a.v) - int(b.v) })
	if hs[0].v == hs[1].v || hs[len(hs)-1].v == hs[len(hs)-2].v {
		return // a tie: try the next hand
	}
	worst, best := lt.hole[hs[0].seat], lt.hole[hs[len(hs)-1].seat]
	mid := lt.hole[hs[1].seat]
	lt.hole = map[int][]cards.Card{lo: worst, hi: best}
	for seat := range lv.seatsIn(st) {
		if seat != lo && seat != hi {
			lt.hole[seat] = mid
		}
	}
	lv.bustTarget, lv.bustHand = st.Seats[lo].PlayerID, st.Hand.HandNo
	lv.n.t.Logf("%s hand %d: %s (seat %d) is to lose all in to seat %d", lt.name, lv.bustHand, lv.bustTarget, lo, hi)
}

func (lv *liveTour) seatsIn(st liveState) map[int]bool {
	out := map[int]bool{}
	for _, s := range st.Seats {
		if s.InHand {
			out[s.Seat] = true
		}
	}
	return out
}

// bustStep is the rigged hand's betting: the target moves all in, the
// biggest stack calls, the third player folds.
func (lv *liveTour) bustStep(lt *liveTable, st liveState) {
	n := lv.n
	seat := st.Hand.ToAct
	target := st.Seats[seat].PlayerID == lv.bustTarget
	_, raiseMax, canRaise := st.legal("RAISE")
	_, betMax, canBet := st.legal("BET")
	_, _, canCheck := st.legal("CHECK")
	_, _, canCall := st.legal("CALL")
	caller := !target && lt.hole[seat] != nil && lv.isBest(lt, seat)
	switch {
	case target && canRaise:
		n.action(lt, seat, "RAISE", raiseMax)
	case target && canBet:
		n.action(lt, seat, "BET", betMax)
	case (target || caller) && canCall:
		n.action(lt, seat, "CALL", 0)
	case canCheck:
		n.action(lt, seat, "CHECK", 0)
	default:
		n.action(lt, seat, "FOLD", 0)
	}
}

// isBest reports whether seat holds the rigged hand's best cards.
func (lv *liveTour) isBest(lt *liveTable, seat int) bool {
	st := lv.n.current(lt)
	hi := -1
	for _, s := range st.Seats {
		if s.InHand && (hi < 0 || s.Stack+s.Bet >= st.Seats[hi].Stack+st.Seats[hi].Bet) {
			hi = s.Seat
		}
	}
	return seat == hi
}

// watchMove watches for the move once the knock-out hand is over, and
// confirms the arrival after the new table dealt a hand without the
// moved player.
func (lv *liveTour) watchMove(lt *liveTable, st liveState) {
	n := lv.n
	n.t.Helper()
	if lt != lv.short || lv.bustTarget == "" {
		return
	}
	if lv.mover == "" {
		if slices.Contains(seated(st), lv.bustTarget) {
			return
		}
		for _, s := range st.Seats {
			if s.PlayerID != "" && !slices.Contains(lv.shortAtStart, s.PlayerID) {
				lv.mover, lv.arriving = s.PlayerID, s.Seat
				n.t.Logf("%s: seat %d held for %s", lt.name, s.Seat, s.PlayerID)
			}
		}
		return
	}
	if lv.confirmed == 0 && lv.heldHands >= 1 {
		var out struct{ State liveState }
		n.must("POST", fmt.Sprintf("/v1/tables/%s/seats/%d:confirm-arrival", lt.id, lv.arriving), n.dealer, map[string]any{}, &out)
		lv.confirmed = max(lt.handNo, 1)
		lt.last = &out.State
	}
}

// betweenButtonAndSmallBlind reports whether seat lies clockwise after
// the button and before the small blind (the first seat dealt in after
// the button, heads-up the button itself).
func betweenButtonAndSmallBlind(st liveState, seat int) bool {
	n := len(st.Seats)
	for i := 1; i < n; i++ {
		s := (st.Hand.Button + i) % n
		if st.Seats[s].InHand {
			return false
		}
		if s == seat {
			return true
		}
	}
	return false
}

// checkLevelsOnFeed: at each table the level change is on the dealer's
// feed at or before the first hand that plays it, and that hand posts
// the new big blind (TR-20); the break is on the feed (G-07).
func (lv *liveTour) checkLevelsOnFeed(lines map[*liveTable][]watchLine) {
	t := lv.n.t
	t.Helper()
	for _, lt := range lv.tables {
		announced := map[string]bool{}
		brk := false
		for _, l := range lines[lt] {
			for _, e := range l.Result.Events {
				switch e.Kind {
				case "level":
					announced[strings.SplitN(e.Detail, ":", 2)[0]] = true
					if e.Rule != "TR-20" {
						t.Errorf("%s: the level change %q cites %q, not TR-20", lt.name, e.Detail, e.Rule)
					}
				case "break":
					brk = true
				case "post":
					h := l.Result.State.Hand
					if h == nil {
						continue
					}
					for _, lvl := range []struct {
						name string
						bb   int64
					}{{"level 2", 100}, {"level 4", 200}} {
						if e.Amount == lvl.bb && !announced[lvl.name] {
							t.Errorf("%s hand %d posts %d before %s was on the dealer's feed", lt.name, h.HandNo, e.Amount, lvl.name)
						}
					}
				}
			}
		}
		if !announced["level 2"] || !announced["level 4"] {
			t.Errorf("%s: the dealer's feed announced %v, not levels 2 and 4", lt.name, announced)
		}
		if !brk {
			t.Errorf("%s: the break is not on the dealer's feed (G-07)", lt.name)
		}
	}
}

// checkMoveOnFeed: the move is on both dealers' feeds (TR-23).
func (lv *liveTour) checkMoveOnFeed(lines map[*liveTable][]watchLine) {
	t := lv.n.t
	t.Helper()
	want := map[*liveTable][]string{lv.full: {"move_out"}, lv.short: {"arriving", "arrived"}}
	for lt, kinds := range want {
		for _, k := range kinds {
			if !slices.ContainsFunc(lines[lt], func(l watchLine) bool {
				return slices.ContainsFunc(l.Result.Events, func(e watchEvent) bool {
					return e.Kind == k && e.PlayerID == lv.mover && e.Rule == "TR-23"
				})
			}) {
				t.Errorf("%s: no %s of %s on the dealer's feed (TR-23)", lt.name, k, lv.mover)
			}
		}
	}
	if lv.heldHands == 0 {
		t.Errorf("no hand was dealt at %s while the seat was held for %s", lv.short.name, lv.mover)
	}
	t.Logf("%s moved from %s to %s seat %d; %d hands dealt while held; dealt in at hand %d, after the confirmation at hand %d",
		lv.mover, lv.full.name, lv.short.name, lv.arriving, lv.heldHands, lv.dealtIn, lv.confirmed)
}

// checkPenaltyOnFeed: the penalty is on the feed of the penalised
// player's table, and so is its end (TR-33).
func (lv *liveTour) checkPenaltyOnFeed(lines map[*liveTable][]watchLine) {
	t := lv.n.t
	t.Helper()
	for _, k := range []string{"penalty", "penalty_served"} {
		seen := false
		for _, lt := range lv.tables {
			seen = seen || slices.ContainsFunc(lines[lt], func(l watchLine) bool {
				return slices.ContainsFunc(l.Result.Events, func(e watchEvent) bool {
					return e.Kind == k && e.PlayerID == lv.penalised && e.Rule == "TR-33"
				})
			})
		}
		if !seen {
			t.Errorf("no %s of %s on a dealer's feed (TR-33)", k, lv.penalised)
		}
	}
}

// dump logs the control events on lt's dealer feed (a failure's context).
func (lv *liveTour) dump(lt *liveTable) {
	i := slices.Index(lv.tables, lt)
	for _, l := range lv.feeds[i].until(lv.n.t, 0) {
		for _, e := range l.Result.Events {
			if e.PlayerID != "" || e.Kind == "hand_start" || e.Detail != "" {
				lv.n.t.Logf("%s seq %d: %s seat %d %s %d %s %q", lt.name, l.Result.State.Sequence, e.Kind, e.Seat, e.PlayerID, e.Amount, e.Rule, e.Detail)
			}
		}
	}
}
