package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/testkit"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table/runner"
)

// pushFold is a bot's play that ends tournaments quickly: all in or out.
// A player moves all in two times in five; otherwise checks when they
// may, calls an all-in one time in three, and folds.
func pushFold(rng *rand.Rand) plan {
	return func(st tableState, seat int) move {
		facing := false
		for _, s := range st.Seats {
			if s.AllIn && s.Seat != seat {
				facing = true
			}
		}
		if rng.IntN(5) < 2 {
			return shove(st, seat)
		}
		if _, ok := legalOf(st, "ACTION_KIND_CHECK"); ok {
			return move{kind: "ACTION_KIND_CHECK"}
		}
		if facing && rng.IntN(3) == 0 {
			return checkDown(st, seat)
		}
		return move{kind: "ACTION_KIND_FOLD"}
	}
}

// TestTournamentDirectorFreezeout_TR06_TR07_TR20_TR23_G07_G25: a 27-entrant
// freezeout on a cluster (every part its own process on PostgreSQL and
// Redis, two table replicas) with 15-second levels and a break. The floor
// only creates and starts it; the tournament opens its three tables, seats
// the draw, and after every hand removes the busted, balances, breaks and
// finally redraws the final table (TR-07, G-28) and plays it to a winner,
// while bots act over REST on the legal actions the table offers.
// Checked: every hand played the level in force at its start, none
// started in a break (TR-20, G-07); every
// balancing move took the player the table's own report named as due the
// big blind (TR-23); the tournament process killed (SIGKILL) mid-play and
// restarted picks up where it was, every move delivered once; the chips
// at the tables and in transit equal the chips issued whenever counted,
// and at the end; the final table's seats and button are the recorded
// redraw's, nobody is left at an old table and every old table is closed;
// no director step was left stuck; the prizes paid equal the pool; the
// ledger audit is clean.
func TestTournamentDirectorFreezeout_TR06_TR07_TR20_TR23_G07_G25(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every part of the suite in its own process")
	}
	t.Parallel()
	c := newCluster(t, clusterOptions{tables: 2, bin: seededBinary, tablesProxy: true, env: []string{"CARDROOM_TEST_DECK_SEED=20261201",
		"CARDROOM_TABLE_HAND_PAUSE=0s", "CARDROOM_TABLE_ACTION_TIMEOUT=10s", "CARDROOM_LOCK_TTL=5s"}})
	var players []string
	for i := range 27 {
		players = append(players, fmt.Sprintf("p%02d", i+1))
	}
	r := newRoom(t, c.gateway, players...)
	for _, p := range players {
		r.deposit(p, 10000)
	}
	const stack, issued = 1000, 27 * 1000
	sheet := []map[string]any{
		{"small_blind": 25, "big_blind": 50, "duration": "15s"},
		{"small_blind": 50, "big_blind": 100, "duration": "15s"},
		{"break": true, "duration": "4s"},
		{"small_blind": 100, "big_blind": 200, "duration": "15s"},
		{"small_blind": 200, "big_blind": 400, "duration": "15s"},
		{"small_blind": 400, "big_blind": 800, "duration": "600s"},
	}
	var created struct {
		Tournament struct {
			ID string `json:"tournament_id"`
		}
	}
	r.must("POST", "/v1/tournaments", r.floor, map[string]any{"name": "Director Turbo", "variant": "VARIANT_HOLDEM",
		"structure": "STRUCTURE_NO_LIMIT", "currency": "EUR", "buy_in": 1000, "fee": 100, "starting_stack": stack,
		"start_time": time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano), "levels": sheet, "seats_per_table": 9,
		"payouts": map[string]any{"unit": 100, "tiers": []any{map[string]any{"shares": []int{5000, 3000, 2000}}}}}, &created)
	id := created.Tournament.ID
	for _, p := range players {
		r.must("POST", "/v1/tournaments/"+id+"/entries", r.tokens[p], map[string]any{"player_id": p}, nil)
	}
	if started := r.startTournament(id); len(started.Seats) != 27 {
		t.Fatalf("draw %+v", started.Seats)
	}
	var draws struct {
		Draws []struct {
			Kind string    `json:"kind"`
			At   time.Time `json:"create_time"`
		}
	}
	r.must("GET", "/v1/tournaments/"+id+"/draws", r.floor, nil, &draws)
	clockStart := draws.Draws[0].At // the seat draw is logged at the start: level 1 starts then

	tc, svc := tournamentTables(t, c.tables[0].grpcAddr(), c.gateway.token("cardroom-tournament", "service"))
	count := func(when string) {
		t.Helper()
		n, err := tc.CountTournamentChips(svc, &tablev1.CountTournamentChipsRequest{TournamentId: id})
		if err != nil {
			t.Fatalf("%s: count chips: %v", when, err)
		}
		if n.GetTotal() != issued {
			t.Fatalf("%s: %d chips at the tables and in transit, %d issued", when, n.GetTotal(), issued)
		}
	}
	// The start opens and seats the tables; a step a table replica could
	// not take then (its lease moving under load: "another process runs
	// this table; retry") is taken again by the director's settling loop,
	// so the tables follow the draw within its period.
	var tables []string
	testkit.Eventually(t, time.Minute, func() error {
		if tables = tournamentTablesOf(t, r, id); len(tables) != 3 {
			return fmt.Errorf("tables opened for 27 entrants: %v", tables)
		}
		n, err := tc.CountTournamentChips(svc, &tablev1.CountTournamentChipsRequest{TournamentId: id})
		if err != nil || n.GetTotal() != issued {
			return fmt.Errorf("after the start: %d chips at the tables and in transit, %d issued (%v)", n.GetTotal(), issued, err)
		}
		return nil
	})

	// The bots play until the event is over; the floor does nothing.
	rng := rand.New(rand.NewPCG(1, 2))
	bot := pushFold(rng)
	seated := 27
	deadline := time.Now().Add(8 * time.Minute)
	actions, chipChecks := 0, 0
	tournament, killed := c.others[1], false
	replica := replicaKill{c: c, tc: tc, svc: svc, id: id}
	for round := 0; ; round++ {
		if time.Now().After(deadline) {
			t.Fatalf("no winner after %d actions", actions)
		}
		if round%20 == 0 {
			var got struct {
				Tournament struct {
					State     string `json:"state"`
					ChipCheck *struct {
						Issued   int64     `json:"chips_issued,string"`
						Counted  int64     `json:"chips_counted,string"`
						Mismatch int64     `json:"mismatch,string"`
						At       time.Time `json:"counted_at"`
					} `json:"chip_check"`
				}
			}
			r.must("GET", "/v1/tournaments/"+id, r.floor, nil, &got)
			if got.Tournament.State != "TOURNAMENT_STATE_RUNNING" {
				break
			}
			// The final table is a new one (TR-07): the bots sit where
			// the tournament opened tables.
			tables = tournamentTablesOf(t, r, id)
			count(fmt.Sprintf("after %d actions", actions))
			// The status shows the director's last count (issues 9, 10):
			// once a hand has ended, chips counted = chips issued.
			if cc := got.Tournament.ChipCheck; cc != nil {
				if cc.Issued != issued || cc.Counted != issued || cc.Mismatch != 0 || cc.At.IsZero() {
					t.Fatalf("after %d actions: status chip check %+v, %d issued", actions, *cc, issued)
				}
				chipChecks++
			}
			// The wallet's audit, with its check of the running event's chips.
			r.auditClean(fmt.Sprintf("during the freezeout, after %d actions", actions))
		}
		if actions >= 40 && !killed {
			// kill -9 of the tournament process in the middle of play (a
			// hand's end, a move, may be half done): on restart it finishes
			// what was recorded and the tables go on.
			killed = true
			c.kill(tournament)
			tournament.start()
			count("after the tournament process was killed and restarted")
		}
		if killed && !replica.done {
			replica.step(seated, func() { count("after the table replica was killed during a move and restarted") })
		}
		var acted bool
		if acted, seated = r.actAt(tables, bot, &actions); !acted {
			// Not testkit.Eventually: an idle round is work, not only a
			// wait — it is when replica.step catches a move in flight.
			time.Sleep(20 * time.Millisecond)
		}
	}

	if !replica.done {
		t.Fatal("no move was seen in flight: the table replica was not killed during one")
	}

	var results struct {
		Finishes []struct {
			PlayerID string `json:"player_id"`
			Place    int    `json:"place"`
		}
		Prizes []struct {
			Amount int64  `json:"amount,string"`
			State  string `json:"state"`
		}
	}
	waitFor(t, "every prize paid", 30*time.Second, func() bool {
		r.must("GET", "/v1/tournaments/"+id+"/results", r.floor, nil, &results)
		for _, p := range results.Prizes {
			if p.State != "PRIZE_STATE_PAID" {
				return false
			}
		}
		return len(results.Finishes) == 27 && len(results.Prizes) > 0
	})
	var payouts struct {
		Pool int64 `json:"prize_pool,string"`
	}
	r.must("GET", "/v1/tournaments/"+id+"/payouts", r.floor, nil, &payouts)
	var paid int64
	for _, p := range results.Prizes {
		paid += p.Amount
	}
	if paid != payouts.Pool || payouts.Pool != 27*1000 {
		t.Fatalf("prizes paid %d, pool %d", paid, payouts.Pool)
	}
	count("at the end")
	var status struct {
		Tournament struct {
			StuckSteps []map[string]any `json:"stuck_steps"`
		}
	}
	r.must("GET", "/v1/tournaments/"+id, r.floor, nil, &status)
	if len(status.Tournament.StuckSteps) != 0 {
		t.Errorf("director steps left stuck: %v", status.Tournament.StuckSteps)
	}
	if chipChecks == 0 {
		t.Fatal("the status never showed the director's chip count while the event ran")
	}
	r.auditClean("after the freezeout")

	// TR-20, G-07: every hand played the row in force at its start, the
	// final table's included.
	tables = tournamentTablesOf(t, r, id)
	hands := handsOf(svc, t, tc, tables)
	checkLevels(t, hands, clockStart, sheet)

	// TR-23: each balancing move took the player the table's last hand
	// before it named as due the big blind.
	balancing, breaking := checkMoves(svc, t, r, id, tc, hands)
	n := 0
	for _, hs := range hands {
		n += len(hs)
	}
	t.Logf("%d hands, %d actions, %d balancing moves, %d moves breaking tables", n, actions, balancing, breaking)
	if breaking == 0 {
		t.Error("no table broke on the way to the final table")
	}
}

// actAt has each table's player to act make the bot's move over REST, on
// the legal actions their own view of the table offers; it reports
// whether anyone acted and how many players sit with chips. actions counts
// the moves made.
func (r *room) actAt(tables []string, bot plan, actions *int) (acted bool, seated int) {
	r.t.Helper()
	for _, tb := range tables {
		st := r.state(tb, r.floor)
		for _, s := range st.Seats {
			if s.PlayerID != "" && s.Stack > 0 {
				seated++
			}
		}
		if st.Closed || !st.live() || st.Hand.ToAct < 0 {
			continue
		}
		player := st.Seats[st.Hand.ToAct].PlayerID
		own := r.state(tb, r.tokens[player])
		if own.ViewerSeat != st.Hand.ToAct || own.Hand == nil || len(own.Hand.Legal) == 0 {
			continue
		}
		m := bot(own, own.ViewerSeat)
		*actions++
		code, body := r.do("POST", "/v1/tables/"+tb+"/actions", r.tokens[player], map[string]any{"kind": m.kind, "amount": m.amount,
			"expected_sequence": own.Sequence, "action_id": fmt.Sprintf("%s-%d", player, *actions)})
		// A conflict or a stale sequence is a race lost to the table moving
		// on (a hold, a level, the clock) between the read and the act.
		if code != http.StatusOK && code != http.StatusConflict && !bytes.Contains(body, []byte("STALE_SEQUENCE")) {
			r.t.Fatalf("%s's %s at %s: %d %s", player, m.kind, tb, code, body)
		}
		acted = true
	}
	return acted, seated
}

// actOrAwait has bot act at tables(), polling until a seat does or over
// (nil: never) says the play is over: between hands nobody is to act, and
// the next hand is dealt once the director has handled the last. It
// returns the players seated with chips, as actAt counts them.
func (r *room) actOrAwait(tables func() []string, bot plan, actions *int, over func() bool) (seated int) {
	r.t.Helper()
	testkit.Eventually(r.t, time.Minute, func() error {
		var acted bool
		if acted, seated = r.actAt(tables(), bot, actions); acted || (over != nil && over()) {
			return nil
		}
		return errors.New("no seat to act")
	})
	return seated
}

// handsOf reads every hand the tables played, by table.
func handsOf(svc context.Context, t *testing.T, tc tablev1.TournamentTableServiceClient, tables []string) map[string][]*tablev1.HandEnded {
	t.Helper()
	hands := map[string][]*tablev1.HandEnded{}
	for _, tb := range tables {
		for after := int64(0); ; {
			resp, err := tc.ListHandResults(svc, &tablev1.ListHandResultsRequest{TableId: tb, AfterHandNo: after, PageSize: 500})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.GetHands()) == 0 {
				break
			}
			for _, h := range resp.GetHands() {
				hands[tb] = append(hands[tb], h)
				after = h.GetHandNo()
			}
		}
	}
	return hands
}

// checkLevels checks that every hand played the row of the level sheet in
// force at its start, and that none started in a break (TR-20, G-07);
// level 1 started at clockStart.
func checkLevels(t *testing.T, hands map[string][]*tablev1.HandEnded, clockStart time.Time, sheet []map[string]any) {
	t.Helper()
	type row struct {
		start, end time.Time
		level      int
		brk        bool
		bb         int64
	}
	var rows []row
	at := clockStart
	for i, l := range sheet {
		d, _ := time.ParseDuration(l["duration"].(string))
		bb, _ := l["big_blind"].(int)
		rows = append(rows, row{start: at, end: at.Add(d), level: i + 1, brk: l["break"] == true, bb: int64(bb)})
		at = at.Add(d)
	}
	for tb, hs := range hands {
		for _, h := range hs {
			start := h.GetStartTime().AsTime()
			for _, rw := range rows {
				if start.Before(rw.start) || !start.Before(rw.end) {
					continue
				}
				if rw.brk || int(h.GetLevel()) != rw.level || h.GetStakes().GetBigBlind() != rw.bb {
					t.Errorf("hand %d at %s started %s into the event: level %d, big blind %d; in force: row %d (break %v, big blind %d)",
						h.GetHandNo(), tb, start.Sub(clockStart), h.GetLevel(), h.GetStakes().GetBigBlind(), rw.level, rw.brk, rw.bb)
				}
			}
		}
	}
}

// checkMoves checks every move the tournament made: each has its slip in
// the audit and was delivered (or cancelled), and each balancing move
// took the player the table's last hand before it named as due the big
// blind (TR-23). It returns the balancing moves and the others (a table
// breaking).
func checkMoves(svc context.Context, t *testing.T, r *room, id string, tc tablev1.TournamentTableServiceClient,
	hands map[string][]*tablev1.HandEnded) (balancing, breaking int) {
	t.Helper()
	var audit struct {
		Records []struct {
			Action string `json:"action"`
			Detail string `json:"detail_json"`
		}
	}
	r.must("GET", "/v1/tournaments/"+id+"/audit", r.floor, nil, &audit)
	rules := map[string]string{}
	var redraw []auditSlip
	tableIDs := map[int]string{}
	finalNo, finalButton := 0, 0
	for _, rec := range audit.Records {
		switch rec.Action {
		case "move":
			var s auditSlip
			if err := json.Unmarshal([]byte(rec.Detail), &s); err != nil {
				t.Fatal(err)
			}
			rules[s.MoveID] = s.Rule
			if s.Rule == "TR-07" {
				redraw = append(redraw, s)
			}
		case "open_table":
			var o struct {
				Table   int    `json:"table"`
				TableID string `json:"table_id"`
			}
			if err := json.Unmarshal([]byte(rec.Detail), &o); err != nil {
				t.Fatal(err)
			}
			tableIDs[o.Table] = o.TableID
		case "final_table":
			var f struct {
				Table  int `json:"table"`
				Button int `json:"button_seat"`
			}
			if err := json.Unmarshal([]byte(rec.Detail), &f); err != nil {
				t.Fatal(err)
			}
			finalNo, finalButton = f.Table, f.Button
		}
	}
	finalTable(svc, t, tc, finalNo, finalButton, tableIDs, redraw, hands)
	moves, err := tc.ListMoves(svc, &tablev1.ListMovesRequest{TournamentId: id, PageSize: 500})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range moves.GetMoves() {
		if rules[m.GetMoveId()] == "" {
			t.Errorf("move %s has no movement slip in the audit", m.GetMoveId())
		}
		if m.GetState() != tablev1.MoveState_MOVE_STATE_DELIVERED && m.GetState() != tablev1.MoveState_MOVE_STATE_CANCELLED {
			t.Errorf("move %s left %s", m.GetMoveId(), m.GetState())
		}
		if rules[m.GetMoveId()] == "TR-07" {
			continue
		}
		if rules[m.GetMoveId()] != "TR-23" {
			breaking++
			continue
		}
		balancing++
		var last *tablev1.HandEnded
		for _, h := range hands[m.GetFromTableId()] {
			if !h.GetEndTime().AsTime().After(m.GetCreateTime().AsTime()) {
				last = h
			}
		}
		if last == nil || last.NextBigBlind == nil {
			t.Errorf("move %s: no hand before it at %s", m.GetMoveId(), m.GetFromTableId())
			continue
		}
		due := ""
		for _, s := range last.GetStacks() {
			if s.GetSeat() == last.GetNextBigBlind() {
				due = s.GetPlayerId()
			}
		}
		if due != m.GetPlayerId() {
			t.Errorf("move %s took %s; hand %d at %s named %s (seat %d) due the big blind", m.GetMoveId(), m.GetPlayerId(),
				last.GetHandNo(), m.GetFromTableId(), due, last.GetNextBigBlind())
		}
	}
	t.Logf("%d players redrawn to the final table", len(redraw))
	return balancing, breaking
}

// auditSlip is a move as the tournament's audit records it (its stack a
// plain number, unlike the REST listing's movementSlip).
type auditSlip struct {
	MoveID string `json:"move_id"`
	Player string `json:"player_id"`
	To     int    `json:"to_table"`
	Seat   int    `json:"to_seat"`
	Rule   string `json:"rule_id"`
}

// finalTable checks the final table's redraw (TR-07, G-28): it was
// recorded (final_table, its button drawn at one of the drawn seats, a
// TR-07 movement slip to it for every player left); its first hand sat
// every player in the seat their slip names, with the button at the drawn
// seat; nobody sits at any other table and every other table is closed.
func finalTable(ctx context.Context, t *testing.T, tc tablev1.TournamentTableServiceClient, finalNo, button int, tableIDs map[int]string,
	redraw []auditSlip, hands map[string][]*tablev1.HandEnded) {
	t.Helper()
	final := tableIDs[finalNo]
	if finalNo == 0 || final == "" || len(redraw) < 2 || len(redraw) > 9 {
		t.Fatalf("final table %d (%q) redrawn with %d TR-07 slips", finalNo, final, len(redraw))
	}
	seats := map[int]string{}
	for _, s := range redraw {
		if s.To != finalNo || seats[s.Seat] != "" {
			t.Fatalf("TR-07 slip %+v: final table %d, seat drawn twice (%v)", s, finalNo, seats)
		}
		seats[s.Seat] = s.Player
	}
	if seats[button] == "" {
		t.Fatalf("button drawn at seat %d, nobody drew it (%v)", button, seats)
	}
	if len(hands[final]) == 0 {
		t.Fatalf("the final table %s dealt no hand", final)
	}
	first := hands[final][0]
	if first.GetHandNo() != 1 || int(first.GetButton())+1 != button {
		t.Fatalf("final table's first hand %d: button seat %d, drawn %d", first.GetHandNo(), first.GetButton()+1, button)
	}
	sat := map[int]string{}
	for _, st := range first.GetStacks() {
		sat[int(st.GetSeat())+1] = st.GetPlayerId()
	}
	for _, rm := range first.GetRemoved() {
		sat[int(rm.GetSeat())+1] = rm.GetPlayerId()
	}
	if !maps.Equal(sat, seats) {
		t.Fatalf("final table's first hand seated %v, the redraw drew %v", sat, seats)
	}
	for n, id := range tableIDs {
		resp, err := tc.GetTournamentTable(ctx, &tablev1.GetTournamentTableRequest{TableId: id})
		switch {
		case id != final && reasonOf(err) == "TABLE_CLOSED":
			continue
		case err != nil:
			t.Fatalf("table %d: %v", n, err)
		case id == final:
			continue
		}
		st := resp.GetStatus()
		for _, s := range st.GetSeats() {
			if s.GetPlayerId() != "" {
				t.Errorf("%s left at old table %d seat %d", s.GetPlayerId(), n, s.GetSeat()+1)
			}
		}
		if !st.GetClosed() {
			t.Errorf("old table %d (%s) not closed", n, id)
		}
	}
}

// replicaKill kills (SIGKILL) the table replica that runs the table a
// tournament is moving a player to, while the move is in flight, and
// starts it again. Once few players are left (a move is near: the final
// table's redraw at the latest) the tournament's calls to the table
// service are slowed (300 ms a reply), so that a move is seen between its
// two steps: out of the old table, chips in transit, not yet in.
type replicaKill struct {
	c     *cluster
	tc    tablev1.TournamentTableServiceClient
	svc   context.Context
	id    string
	armed bool
	done  bool
}

// step arms the kill once at most 12 players sit with chips, then looks
// for a move in flight and kills; after the restart it waits until the
// move has completed, then checks it completed once: delivered, the player
// at its new table only, and (check) the chips conserved.
func (k *replicaKill) step(seated int, check func()) {
	t := k.c.t
	t.Helper()
	if !k.armed {
		if seated > 12 {
			return
		}
		addLatency(t, k.c.tablesProxy, 300, 0)
		k.armed = true
	}
	resp, err := k.tc.ListMoves(k.svc, &tablev1.ListMovesRequest{TournamentId: k.id, PageSize: 50,
		States: []tablev1.MoveState{tablev1.MoveState_MOVE_STATE_PENDING, tablev1.MoveState_MOVE_STATE_IN_TRANSIT}})
	if err != nil {
		t.Fatalf("moves in flight: %v", err)
	}
	if len(resp.GetMoves()) == 0 {
		return
	}
	m := resp.GetMoves()[0]
	// The replica whose lease runs the table the player goes to.
	rc, _ := testkit.Redis(t)
	locks := lock.NewRedis(rc, lock.RedisOptions{Prefix: envOf(k.c.gateway.env, "CARDROOM_REDIS_PREFIX") + "lock:"})
	holder, _, err := locks.Holder(k.svc, runner.LockKey(m.GetToTableId()))
	if err != nil {
		t.Fatal(err)
	}
	var victim *suite
	for _, s := range k.c.tables {
		if envOf(s.env, "CARDROOM_TABLE_ADVERTISE_ADDR") == holder {
			victim = s
		}
	}
	if victim == nil {
		t.Fatalf("move %s to %s: no replica holds the table's lease (%q)", m.GetMoveId(), m.GetToTableId(), holder)
	}
	k.c.kill(victim)
	removeLatency(t, k.c.tablesProxy)
	victim.start()
	k.done = true
	t.Logf("killed the table replica running %s while move %s (%s, %s) was in flight", m.GetToTableId(), m.GetMoveId(), m.GetPlayerId(), m.GetState())
	var state tablev1.MoveState
	waitFor(t, "the move in flight completed after the replica's restart", 90*time.Second, func() bool {
		resp, err := k.tc.ListMoves(k.svc, &tablev1.ListMovesRequest{TournamentId: k.id, PageSize: 500})
		if err != nil {
			return false
		}
		for _, x := range resp.GetMoves() {
			if x.GetMoveId() == m.GetMoveId() {
				state = x.GetState()
			}
		}
		return state == tablev1.MoveState_MOVE_STATE_DELIVERED || state == tablev1.MoveState_MOVE_STATE_CANCELLED
	})
	if state != tablev1.MoveState_MOVE_STATE_DELIVERED {
		t.Fatalf("move %s (%s had chips in transit) ended %s", m.GetMoveId(), m.GetPlayerId(), state)
	}
	// Seated at exactly one table: the one the move went to.
	var at []string
	waitFor(t, "every table answering after the replica's restart", 60*time.Second, func() bool {
		at = nil
		tables, err := k.tc.ListMoves(k.svc, &tablev1.ListMovesRequest{TournamentId: k.id, PageSize: 500})
		if err != nil {
			return false
		}
		ids := map[string]bool{}
		for _, x := range tables.GetMoves() {
			ids[x.GetFromTableId()], ids[x.GetToTableId()] = true, true
		}
		for tb := range ids {
			resp, err := k.tc.GetTournamentTable(k.svc, &tablev1.GetTournamentTableRequest{TableId: tb})
			if reasonOf(err) == "TABLE_CLOSED" {
				continue
			}
			if err != nil {
				return false
			}
			for _, s := range resp.GetStatus().GetSeats() {
				if s.GetPlayerId() == m.GetPlayerId() {
					at = append(at, tb)
				}
			}
		}
		return true
	})
	if len(at) > 1 || (len(at) == 1 && at[0] != m.GetToTableId()) {
		t.Fatalf("%s, moved to %s, sits at %v", m.GetPlayerId(), m.GetToTableId(), at)
	}
	check()
}
