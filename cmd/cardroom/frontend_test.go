package main

// Issue 17's rule defects and API rough edges as a front end meets them:
// every request over REST to a suite in its own process on Redis and
// PostgreSQL, the books reconciled afterwards.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/testkit"
)

// frontendSeed deals the hands of the front-end tests.
const frontendSeed = 17

// newFrontendRoom starts a seeded suite on Redis and PostgreSQL and a room
// with the given players, each with 5 000 in the cage.
func newFrontendRoom(t *testing.T, players ...string) *room {
	t.Helper()
	return newFrontendRoomEnv(t, nil, players...)
}

// newFrontendRoomEnv is newFrontendRoom with further settings of the suite
// (NAME=value, later ones win).
func newFrontendRoomEnv(t *testing.T, env []string, players ...string) *room {
	t.Helper()
	s := newSeededSuite(t, frontendSeed, append([]string{
		"REDIS_URL=" + testkit.RedisURL(t),
		"CARDROOM_REDIS_PREFIX=" + testkit.RedisPrefix(t),
		"DATABASE_URL=" + postgresDatabase(t),
	}, env...)...)
	s.start()
	r := newRoom(t, s, players...)
	for _, p := range players {
		r.deposit(p, 5000)
	}
	return r
}

// openTable opens a digital NL Hold'em cash table with the given blinds
// (and extra fields of the request) and returns the table as created.
func (r *room) openTable(name string, sb, bb int64, extra map[string]any) map[string]any {
	r.t.Helper()
	body := map[string]any{"name": name, "seats": 6, "kind": "TABLE_KIND_CASH", "mode": "TABLE_MODE_DIGITAL",
		"game": map[string]any{"variant": "VARIANT_HOLDEM", "structure": "STRUCTURE_NO_LIMIT",
			"stakes": map[string]any{"small_blind": sb, "big_blind": bb}}}
	for k, v := range extra {
		body[k] = v
	}
	var out struct{ Table map[string]any }
	r.must("POST", "/v1/tables", r.floor, body, &out)
	r.tables = append(r.tables, out.Table["table_id"].(string))
	return out.Table
}

// facingBet returns the table as the player in turn sees it once that
// player faces a bet: in turn pre-flop facing the big blind, or after the
// player in turn has bet the minimum when nobody has yet.
func (r *room) facingBet(table string) tableState {
	r.t.Helper()
	for range 4 {
		st := r.waitHand(table)
		own := r.state(table, r.tokens[st.Seats[st.Hand.ToAct].PlayerID])
		if _, ok := legalOf(own, "ACTION_KIND_CALL"); ok {
			return own
		}
		r.act(table, func(st tableState, _ int) move {
			for _, k := range []string{"ACTION_KIND_BET", "ACTION_KIND_RAISE"} {
				if l, ok := legalOf(st, k); ok {
					return move{kind: k, amount: l.Min}
				}
			}
			r.t.Fatalf("nobody faces a bet and the player in turn cannot bet: %+v", st.Hand.Legal)
			return move{}
		})
	}
	r.t.Fatal("no player in turn faces a bet")
	return tableState{}
}

// TestRefusalsNameTheirRules_TP31_TP46 plays at a 5/10 table opened with
// no chip setting: its smallest chip is 5, the smallest chip of its blinds
// (TP-31), every amount offered is a multiple of it, and a raise to an
// amount that is not is refused NOT_CHIP_UNIT_MULTIPLE citing TP-31 (a
// raise to 23 used to be accepted). A chip setting that does not divide the
// blinds is refused. A check facing a bet and a stale sequence number name
// TP-46 (their rule_id used to be empty). The books are clean afterwards.
func TestRefusalsNameTheirRules_TP31_TP46(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	r := newFrontendRoom(t, "ann", "bob", "cat")
	tb := r.openTable("Fives", 5, 10, nil)
	if tb["min_chip_unit"] != "5" {
		t.Fatalf("a 5/10 table opened without min_chip_unit: %v, want \"5\" (TP-31)", tb["min_chip_unit"])
	}
	table := tb["table_id"].(string)
	code, e := r.refused("POST", "/v1/tables", r.floor, map[string]any{"name": "Threes", "seats": 6, "kind": "TABLE_KIND_CASH",
		"mode": "TABLE_MODE_DIGITAL", "min_chip_unit": 3, "game": map[string]any{"variant": "VARIANT_HOLDEM",
			"structure": "STRUCTURE_NO_LIMIT", "stakes": map[string]any{"small_blind": 5, "big_blind": 10}}})
	if code != http.StatusBadRequest || e.Reason != "NOT_CHIP_UNIT_MULTIPLE" || e.RuleID != "TP-31" {
		t.Fatalf("a chip of 3 at 5/10: %d %+v, want 400 NOT_CHIP_UNIT_MULTIPLE TP-31", code, e)
	}
	for i, p := range []string{"ann", "bob", "cat"} {
		r.must("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": i, "player_id": p, "amount": 1000}, nil)
	}

	own := r.facingBet(table)
	actor := r.tokens[own.Seats[own.ViewerSeat].PlayerID]
	raise, ok := legalOf(own, "ACTION_KIND_RAISE")
	if !ok || raise.Min%5 != 0 || (raise.Max%5 != 0 && raise.Max != own.Seats[own.ViewerSeat].Stack+own.Seats[own.ViewerSeat].Bet) {
		t.Fatalf("TP-31: the raise offered is not in fives: %+v", own.Hand.Legal)
	}
	actions := "/v1/tables/" + table + "/actions"
	for _, c := range []struct {
		name         string
		body         map[string]any
		reason, rule string
	}{
		{"TP-31 a raise to an amount that is not a multiple of 5", map[string]any{"kind": "ACTION_KIND_RAISE", "amount": raise.Min + 3}, "NOT_CHIP_UNIT_MULTIPLE", "TP-31"},
		{"G-33 a check facing a bet", map[string]any{"kind": "ACTION_KIND_CHECK"}, "CANNOT_CHECK_FACING_BET", "G-33"},
		{"TP-46 a stale sequence number", map[string]any{"kind": "ACTION_KIND_CALL", "expected_sequence": own.Sequence - 1}, "STALE_SEQUENCE", "TP-46"},
	} {
		code, e := r.refused("POST", actions, actor, c.body)
		if code != http.StatusBadRequest || e.Reason != c.reason || e.RuleID != c.rule {
			t.Fatalf("%s: %d %+v, want 400 %s %s", c.name, code, e, c.reason, c.rule)
		}
	}
	r.playHand(table, checkDown)
	r.checkChips("after the hand at 5/10")
	r.auditClean("after the hand at 5/10")
}

// TestFrontEndAPI_TP10_TP44_G05 walks the API the way an app written from
// the OpenAPI document does: creating a waitlist a game already has answers
// 409 WAITLIST_EXISTS with the list's id in metadata (waitlist_id); the
// table state names the player in turn (to_act_player_id) and whether the
// button is dead (G-05); a hand's JSON history lists each pot's eligible
// seats beside its winners (TP-44) and names each forced bet (post, dead;
// TP-10); GET /v1/tables leaves a closed table out unless include_closed
// asks for it.
func TestFrontEndAPI_TP10_TP44_G05(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	r := newFrontendRoom(t, "ann", "bob", "cat")

	var wl struct {
		Waitlist struct {
			ID string `json:"waitlist_id"`
		}
	}
	r.must("POST", "/v1/waitlists", r.floor, map[string]any{"game": nlhe50100}, &wl)
	code, e := r.refused("POST", "/v1/waitlists", r.floor, map[string]any{"game": nlhe50100})
	if code != http.StatusConflict || e.Reason != "WAITLIST_EXISTS" || wl.Waitlist.ID == "" || e.Metadata["waitlist_id"] != wl.Waitlist.ID {
		t.Fatalf("second list for the game: %d %+v, want 409 WAITLIST_EXISTS with waitlist_id %q", code, e, wl.Waitlist.ID)
	}

	table := r.openTable("Fives", 5, 10, nil)["table_id"].(string)
	for i, p := range []string{"ann", "bob", "cat"} {
		r.must("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": i, "player_id": p, "amount": 1000}, nil)
	}
	st := r.waitHand(table)
	var raw struct {
		State struct {
			Hand struct {
				ToActPlayerID string `json:"to_act_player_id"`
				ButtonDead    bool   `json:"button_dead"`
			}
		}
	}
	r.must("GET", "/v1/tables/"+table+"/state", r.floor, nil, &raw)
	if want := st.Seats[st.Hand.ToAct].PlayerID; raw.State.Hand.ToActPlayerID != want || raw.State.Hand.ButtonDead {
		t.Fatalf("state: to_act_player_id %q (want %q), button_dead %v (all three seats are dealt in)",
			raw.State.Hand.ToActPlayerID, want, raw.State.Hand.ButtonDead)
	}
	no := r.playHand(table, checkDown)
	var doc struct {
		History struct {
			ButtonDead bool `json:"button_dead"`
			Pots       []struct {
				EligibleSeats []int `json:"eligible_seats"`
				Winners       []struct{ Seat int }
			}
			Events []struct {
				Kind, Post, Rule string
				Dead             bool
			}
		}
	}
	r.must("GET", fmt.Sprintf("/v1/tables/%s/hands/%d", table, no), r.floor, nil, &doc)
	h := doc.History
	if len(h.Pots) == 0 || h.ButtonDead {
		t.Fatalf("history: %d pots, button_dead %v", len(h.Pots), h.ButtonDead)
	}
	for _, p := range h.Pots {
		for _, w := range p.Winners {
			if !slices.Contains(p.EligibleSeats, w.Seat) {
				t.Fatalf("TP-44: pot won by seat %d, eligible %v", w.Seat, p.EligibleSeats)
			}
		}
	}
	var posts []string
	for _, e := range h.Events {
		if e.Kind == "post" {
			if e.Rule == "" || e.Dead {
				t.Fatalf("TP-10: post %+v without its rule, or dead", e)
			}
			posts = append(posts, e.Post)
		}
	}
	if !slices.Equal(posts, []string{"small_blind", "big_blind"}) {
		t.Fatalf("TP-10: posts %v, want the small and the big blind named", posts)
	}

	closed := r.openTable("Closed", 5, 10, nil)["table_id"].(string)
	r.must("POST", "/v1/tables/"+closed+":close", r.floor, map[string]any{}, nil)
	listed := func(query string) map[string]bool {
		var out struct {
			Tables []struct {
				TableID string `json:"table_id"`
				Closed  bool
			}
		}
		r.must("GET", "/v1/tables?page_size=100"+query, r.floor, nil, &out)
		m := map[string]bool{}
		for _, tb := range out.Tables {
			m[tb.TableID] = tb.Closed
		}
		return m
	}
	if _, ok := listed("")[closed]; ok {
		t.Fatal("a closed table is listed by default")
	}
	if c, ok := listed("&include_closed=true")[closed]; !ok || !c {
		t.Fatalf("include_closed: closed table listed %v, closed %v", ok, c)
	}
	r.checkChips("after the front-end walk")
	r.auditClean("after the front-end walk")
}

// TestRemoteSignUpOffByDefault_G21 runs the suite as installed, without
// CARDROOM_SEATING_REMOTE_SIGN_UP: G-21's house default asks a player to
// be present to go on a list, so a list the floor opens without a policy
// takes players only through the floor — a player signing up from the app
// is refused FLOOR_SIGN_UP_ONLY citing G-21 (remote sign-up used to be on
// by default) — until the floor opens the list to remote sign-up.
func TestRemoteSignUpOffByDefault_G21(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	s := newSuite(t)
	s.env = slices.DeleteFunc(s.env, func(kv string) bool { return strings.HasPrefix(kv, "CARDROOM_SEATING_REMOTE_SIGN_UP=") })
	s.start()
	r := newRoom(t, s, "ann", "bob")
	var wl struct {
		Waitlist struct {
			ID     string `json:"waitlist_id"`
			Policy map[string]any
		}
	}
	r.must("POST", "/v1/waitlists", r.floor, map[string]any{"game": nlhe50100}, &wl)
	if wl.Waitlist.Policy["floor_sign_up_only"] != true {
		t.Fatalf("a list opened without a policy: %v, want floor_sign_up_only (G-21)", wl.Waitlist.Policy)
	}
	entries := "/v1/waitlists/" + wl.Waitlist.ID + "/entries"
	code, e := r.refused("POST", entries, r.tokens["ann"], map[string]any{})
	if e.Reason != "FLOOR_SIGN_UP_ONLY" || e.RuleID != "G-21" {
		t.Fatalf("ann signs up from the app: %d %+v, want FLOOR_SIGN_UP_ONLY G-21", code, e)
	}
	r.must("POST", entries, r.floor, map[string]any{"player_id": "ann"}, nil)
	policy := wl.Waitlist.Policy
	policy["floor_sign_up_only"] = false
	r.must("PUT", "/v1/waitlists/"+wl.Waitlist.ID+"/policy", r.floor, policy, nil)
	r.must("POST", entries, r.tokens["bob"], map[string]any{}, nil)
}

// TestSeatOffersOnAStream_G21 watches a player's seat offers over REST
// instead of polling them (issue 17): cat, on the game's list, opens GET
// /v1/players/cat/offers:watch and reads the snapshot (no offer yet); the
// floor opens a table, its seat is offered to cat (G-21: the list's
// order) and the offer arrives on the stream pending; cat accepts it,
// the stream says accepted, and the offer seats cat. Another player may
// not watch cat's offers; the floor may. On the way: cat's buy-in check
// sends the table alone (CS-03, then CS-07/G-19 once seated: the wallet
// reads the game, currency and stack from the table), and seating's
// refusals at odds with the list name their rule and answer 409.
func TestSeatOffersOnAStream_G21(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	r := newFrontendRoom(t, "cat", "dan")
	var wl struct {
		Waitlist struct {
			ID string `json:"waitlist_id"`
		}
	}
	r.must("POST", "/v1/waitlists", r.floor, map[string]any{"game": nlhe50100}, &wl)
	r.must("POST", "/v1/waitlists/"+wl.Waitlist.ID+"/entries", r.floor, map[string]any{"player_id": "cat"}, nil)

	code, e := r.refused("POST", "/v1/waitlists/"+wl.Waitlist.ID+"/entries", r.floor, map[string]any{"player_id": "cat"})
	if code != http.StatusConflict || e.Reason != "ALREADY_ON_LIST" || e.RuleID != "G-21" {
		t.Fatalf("cat put on the list twice: %d %+v, want 409 ALREADY_ON_LIST G-21", code, e)
	}
	code, e = r.refused("POST", "/v1/waitlists/"+wl.Waitlist.ID+"/table-changes", r.tokens["dan"], map[string]any{})
	if code != http.StatusConflict || e.Reason != "NOT_SEATED" || e.RuleID != "G-21" {
		t.Fatalf("dan, not seated, asks for a table change: %d %+v, want 409 NOT_SEATED G-21", code, e)
	}

	const path = "/v1/players/cat/offers:watch"
	if resp := r.open(t, path, r.tokens["dan"]); resp.StatusCode != http.StatusForbidden {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("dan watches cat's offers: %d %s, want 403", resp.StatusCode, body)
	}
	type offer struct {
		ID      string `json:"offer_id"`
		TableID string `json:"table_id"`
		Seat    int    `json:"seat"`
		State   string `json:"state"`
		Player  string `json:"player_id"`
	}
	type update struct {
		Offers   []offer `json:"offers"`
		Snapshot bool    `json:"snapshot"`
	}
	read := func(ls *lineStream) update {
		t.Helper()
		m := ls.next()
		raw, err := json.Marshal(m["result"])
		if err != nil {
			t.Fatal(err)
		}
		var u update
		if err := json.Unmarshal(raw, &u); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		return u
	}
	mine, floors := r.stream(path, r.tokens["cat"]), r.stream(path, r.floor)
	for who, ls := range map[string]*lineStream{"cat": mine, "the floor": floors} {
		if u := read(ls); !u.Snapshot || len(u.Offers) != 0 {
			t.Fatalf("%s's first message: %+v, want an empty snapshot", who, u)
		}
	}

	table := r.createTable("Stream", 2)
	type buyInRange struct {
		Min  int64  `json:"min,string"`
		Max  int64  `json:"max,string"`
		Rule string `json:"rule_id"`
		Case string `json:"case"`
	}
	check := func() buyInRange {
		t.Helper()
		var out struct{ Range buyInRange }
		r.must("POST", "/v1/players/cat/buy-in-checks", r.tokens["cat"], map[string]any{"table_id": table}, &out)
		return out.Range
	}
	if got := check(); got.Min != 4000 || got.Max != 10000 || got.Rule != "CS-03" {
		t.Fatalf("cat's buy-in check with the table alone: %+v, want 4000 to 10000 (CS-03 at 50/100)", got)
	}
	var got offer
	for got.State == "" {
		u := read(mine)
		for _, o := range u.Offers {
			if o.TableID == table && o.Player == "cat" {
				got = o
			}
		}
	}
	if got.State != "OFFER_STATE_PENDING" {
		t.Fatalf("cat's offer arrived as %+v, want pending", got)
	}
	if u := read(floors); len(u.Offers) != 1 || u.Offers[0].ID != got.ID {
		t.Fatalf("the floor watching cat saw %+v, want offer %s", u, got.ID)
	}
	r.must("POST", "/v1/seat-offers/"+got.ID+":accept", r.tokens["cat"], map[string]any{}, nil)
	if u := read(mine); len(u.Offers) != 1 || u.Offers[0].ID != got.ID || u.Offers[0].State != "OFFER_STATE_ACCEPTED" {
		t.Fatalf("after cat accepted, the stream said %+v, want offer %s accepted", u, got.ID)
	}
	var sat struct{ Seat seatState }
	r.must("POST", "/v1/tables/"+table+"/seats", r.tokens["cat"], map[string]any{"seat": got.Seat, "amount": 5000, "offer_id": got.ID}, &sat)
	if sat.Seat.PlayerID != "cat" || sat.Seat.Seat != got.Seat {
		t.Fatalf("cat sat on the offer: %+v, want seat %d", sat.Seat, got.Seat)
	}
	if got := check(); got.Max != 10000-5000 || got.Case != "BUY_IN_CASE_TOP_UP" {
		t.Fatalf("cat's check once seated with 5000: %+v, want a top-up of at most 5000 (CS-07, G-19)", got)
	}
	// CS-13: the floor decides an absence only once its time ran out.
	// Seating learns of the sit-down from the table's event.
	waitFor(t, "cat away at seating", 20*time.Second, func() bool {
		code, _ := r.do("POST", "/v1/seating/tables/"+table+"/absences", r.floor, map[string]any{"player_id": "cat", "kind": "ABSENCE_KIND_SHORT"})
		return code == http.StatusOK
	})
	code, e = r.refused("POST", "/v1/seating/tables/"+table+"/absences/cat:decide", r.floor, map[string]any{"release": true, "reason": "too soon"})
	if code != http.StatusConflict || e.Reason != "NO_DECISION_PENDING" || e.RuleID != "CS-13" {
		t.Fatalf("deciding cat's fresh absence: %d %+v, want 409 NO_DECISION_PENDING CS-13", code, e)
	}
	r.checkChips("cat seated from the stream's offer")
}

// TestMissedBlindsPostedOnReturn_TP15 is a returning player's missed
// blinds as an app reads them over REST: dan sits out while the blinds pass
// his seat, posting nothing, until his seat owes both blinds. Back with
// post_now, the first hand he is dealt in names his missed big blind live
// and his small blind dead, each citing TP-15 (both used to read TP-10,
// like an ordinary blind), and exports as PHH that replays to the table's
// stacks. Every hand's state and history agree on whether
// the button is dead (G-05; on a cash table it rests on a player, TP-09).
// The chips and the books reconcile afterwards.
func TestMissedBlindsPostedOnReturn_TP15(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	r := newFrontendRoom(t, "ann", "bob", "cat", "dan")
	table := r.openTable("Dead", 5, 10, nil)["table_id"].(string)
	for i, p := range []string{"ann", "bob", "cat", "dan"} {
		r.must("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": i, "player_id": p, "amount": 1000}, nil)
	}
	seat := func(p string) string {
		return fmt.Sprintf("/v1/tables/%s/seats/%d", table, r.state(table, r.floor).seatOf(p))
	}
	// dan, seated after the first hand was dealt, plays a hand first: a
	// new player who lets the blinds pass owes them on the button (TP-16).
	for hands := 0; ; hands++ {
		if hands == 6 {
			t.Fatal("dan was not dealt in within six hands")
		}
		st := r.waitHand(table)
		if st.Seats[st.seatOf("dan")].InHand {
			break
		}
		r.playHand(table, checkDown)
	}
	r.must("POST", seat("dan")+":sit-out", r.tokens["dan"], map[string]any{}, nil)
	r.playHand(table, checkDown) // his last hand before he sits out

	type post struct {
		Kind, Post, Rule string
		Seat             int
		Dead             bool
		Amount           int64 `json:"amount,string"`
	}
	type handDoc struct {
		History struct {
			ButtonDead bool `json:"button_dead"`
			Events     []post
		}
	}
	read := func(no int64) handDoc {
		var doc handDoc
		r.must("GET", fmt.Sprintf("/v1/tables/%s/hands/%d", table, no), r.floor, nil, &doc)
		return doc
	}
	var raw struct {
		State struct {
			Seats []struct {
				PlayerID string `json:"player_id"`
				OwesSB   bool   `json:"owes_small_blind"`
				OwesBB   bool   `json:"owes_big_blind"`
			}
			Hand struct {
				HandNo     int64 `json:"hand_no,string"`
				ButtonDead bool  `json:"button_dead"`
			}
		}
	}
	owesBoth := func() bool {
		r.must("GET", "/v1/tables/"+table+"/state", r.floor, nil, &raw)
		for _, s := range raw.State.Seats {
			if s.PlayerID == "dan" {
				return s.OwesSB && s.OwesBB
			}
		}
		t.Fatal("dan is not seated")
		return false
	}
	dan := r.state(table, r.floor).seatOf("dan")
	before := (dan + 3) % 4 // the seat the big blind reaches dan from
	// dan sits out until he owes both blinds, and until the big blind of
	// the hand under way (the next is dealt as soon as one ends, so his
	// return counts from the hand after it) is not at the seat before his:
	// the next big blind would be his, and he would settle by taking it in
	// turn (TP-15), an ordinary big blind.
	for hands := 0; ; hands++ {
		if hands == 10 {
			t.Fatal("TP-15: dan sat out for 10 hands and does not owe both blinds")
		}
		st := r.waitHand(table)
		bb := -1
		for _, s := range st.Seats {
			if s.InHand && s.Bet == 10 {
				bb = s.Seat
			}
		}
		if owesBoth() && bb != before {
			break
		}
		live, liveDead := raw.State.Hand.HandNo, raw.State.Hand.ButtonDead
		no := r.playHand(table, checkDown)
		doc := read(no)
		if no == live && doc.History.ButtonDead != liveDead {
			t.Fatalf("G-05: hand %d's state said button_dead %v, its history %v", no, liveDead, doc.History.ButtonDead)
		}
		for _, e := range doc.History.Events {
			if e.Kind == "post" && e.Seat == dan {
				t.Fatalf("dan sat out yet posted in hand %d: %+v", no, e)
			}
		}
	}

	r.must("POST", seat("dan")+":return", r.tokens["dan"], map[string]any{"post_now": true}, nil)
	for range 4 {
		no := r.playHand(table, checkDown)
		var got []string
		for _, e := range read(no).History.Events {
			if e.Kind == "post" && e.Seat == dan {
				got = append(got, fmt.Sprintf("%s/%s/dead=%v/%d", e.Post, e.Rule, e.Dead, e.Amount))
			}
		}
		if len(got) == 0 {
			continue // the button had not passed yet: dan waits (TP-17)
		}
		want := []string{"missed_big_blind/TP-15/dead=false/10", "dead_small_blind/TP-15/dead=true/5"}
		if !slices.Equal(got, want) {
			t.Fatalf("TP-15: dan's posts on his return in hand %d: %v, want %v", no, got, want)
		}
		// The hand exports as PHH (it used to be refused PHH_UNSUPPORTED,
		// his live big blind out of position): his dead small blind is his
		// ante, his live big blind is in his first action, and the file
		// replays to the stacks the table paid.
		h := r.replayPHH(table, no, []string{"ann", "bob", "cat", "dan"})
		checkLiveBlindPHH(t, h, "dan", "TP-15", "5")
		r.checkChips("after dan's return")
		r.auditClean("after dan's return")
		return
	}
	t.Fatal("TP-15: dan came back with post_now and was not dealt in within four hands")
}
