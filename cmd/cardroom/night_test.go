package main

import (
	"fmt"
	"os/exec"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/testkit"
)

// nightSeed seeds the decks of the night. Any seed proves the night (the
// test plays on until it has seen a side pot and a split pot); this one
// shows both within the first twenty-odd hands.
const nightSeed = 7

// nightPlayers buy in for different stacks so that an all-in of every
// seat makes side pots.
var nightPlayers = []struct {
	name  string
	buyIn int64
}{{"ann", 10000}, {"bob", 8000}, {"cat", 6000}, {"dan", 5000}}

const (
	nightDeposit = 30000
	tableMin     = 4000 // CS-03: 40 big blinds of 100
	tableMax     = 10000
)

// TestNightAtCashGame_CS09_CS10 is issue 6's night at a cash game, over
// REST, on Redis and PostgreSQL: deposits at the cage, a waitlist, offers,
// buy-ins (Sit with the offer → wallet hold → commit), twenty-odd hands
// with seeded decks including all-ins with side pots and a split pot, a
// table change held to the whole stack (CS-10), a player who leaves and
// comes back held to one night, one stack (CS-09), and at the end a clean
// wallet audit with every chip accounted for. Every feed of the table is
// read throughout and checked for secrecy afterwards (secrecy_test.go).
func TestNightAtCashGame_CS09_CS10(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	start := time.Now()
	s := newSeededSuite(t, nightSeed,
		"REDIS_URL="+testkit.RedisURL(t),
		"CARDROOM_REDIS_PREFIX="+testkit.RedisPrefix(t),
		"DATABASE_URL="+postgresDatabase(t),
	)
	s.start()
	names := []string{"eve"} // eve watches from the rail and never sits
	for _, p := range nightPlayers {
		names = append(names, p.name)
	}
	r := newRoom(t, s, names...)
	dealer := s.token("dealer-dave", "dealer")

	// The cage, the list, the table.
	for _, p := range nightPlayers {
		r.deposit(p.name, nightDeposit)
	}
	var wl struct {
		Waitlist struct {
			ID string `json:"waitlist_id"`
		}
	}
	r.must("POST", "/v1/waitlists", r.floor, map[string]any{"game": nlhe50100}, &wl)
	for _, p := range nightPlayers {
		r.must("POST", "/v1/waitlists/"+wl.Waitlist.ID+"/entries", r.tokens[p.name], map[string]any{}, nil)
	}
	t1 := r.createTable("Night 1", 6)
	feeds := map[string]*watch{"dealer-dave": r.watch(t1, "dealer-dave", dealer)}
	for _, n := range names {
		feeds[n] = r.watch(t1, n, r.tokens[n])
	}

	// Offers, accepts, buy-ins.
	for i, p := range nightPlayers {
		offer, seat := r.acceptOffer(p.name, t1)
		var sit struct{ Seat seatState }
		r.must("POST", "/v1/tables/"+t1+"/seats", r.tokens[p.name],
			map[string]any{"seat": seat, "amount": p.buyIn, "offer_id": offer, "post_now": true}, &sit)
		if sit.Seat.PlayerID != p.name || sit.Seat.Seat != seat {
			t.Fatalf("%s sat as %+v", p.name, sit.Seat)
		}
		if got := r.balance("player:" + p.name + ":EUR"); got != nightDeposit-p.buyIn {
			t.Fatalf("%s's wallet after a %d buy-in: %d", p.name, p.buyIn, got)
		}
		if i == 0 {
			checkSitTrace(t, s.traceOf("cardroom.table.v1.TableService/Sit"))
		}
	}
	r.checkChips("after the buy-ins")

	n := &night{room: r, table: t1, hists: map[int64]history{}}
	n.play(1)
	checkTrace(t, s.traceOf("cardroom.table.v1.TableService/Act"), "cardroom.table.v1.TableService/Act", false)
	badInput(t, r, t1)
	n.play(7)
	r.checkChips("after eight hands")

	// CS-10: cat asks for a table change; the floor opens a second table of
	// the same game and seating offers cat its seat. Cat leaves with the
	// whole stack and must bring it (up to the maximum) to the new table.
	r.must("POST", "/v1/waitlists/"+wl.Waitlist.ID+"/table-changes", r.tokens["cat"], map[string]any{}, nil)
	t2 := r.createTable("Night 2", 6)
	offer2, seat2 := r.acceptOffer("cat", t2)
	// G-21: still seated at the first table, cat may not take the offered
	// seat yet; the refusal names the seat held and moves no money.
	catSeat, catBefore := r.state(t1, r.floor).seatOf("cat"), r.balance("player:cat:EUR")
	if code, e := r.refused("POST", "/v1/tables/"+t2+"/seats", r.tokens["cat"], map[string]any{"seat": seat2, "amount": tableMax,
		"offer_id": offer2, "idempotency_key": "cat-t2-early"}); code != 400 || e.RuleID != "G-21" || e.Reason != "SEATED_AT_ANOTHER_TABLE" ||
		e.Metadata["table_id"] != t1 || e.Metadata["seat"] != strconv.Itoa(catSeat) {
		t.Fatalf("G-21: cat, seated in seat %d at %s, sits at %s: %d %+v", catSeat, t1, t2, code, e)
	}
	if st := r.state(t2, r.floor); st.Seats[seat2].PlayerID != "" || r.balance("player:cat:EUR") != catBefore {
		t.Fatalf("G-21: the refused sit-down seated cat (%+v) or moved money", st.Seats[seat2])
	}
	carried := n.leave("cat")
	want := min(carried, tableMax)
	catWallet := r.balance("player:cat:EUR")
	if code, e := r.refused("POST", "/v1/tables/"+t2+"/seats", r.tokens["cat"], map[string]any{"seat": seat2,
		"amount": want - 100, "offer_id": offer2, "idempotency_key": "cat-t2-short"}); e.RuleID != "CS-10" || e.Reason != "BUY_IN_BELOW_STACK_CARRIED" {
		t.Fatalf("CS-10: cat bringing %d of a %d stack: %d %+v", want-100, carried, code, e)
	}
	if st := r.state(t2, r.floor); st.Seats[seat2].PlayerID != "" {
		t.Fatalf("CS-10: the refused buy-in seated cat: %+v", st.Seats[seat2])
	}
	var sit2 struct{ Seat seatState }
	r.must("POST", "/v1/tables/"+t2+"/seats", r.tokens["cat"], map[string]any{"seat": seat2, "amount": want,
		"offer_id": offer2, "idempotency_key": "cat-t2"}, &sit2)
	if sit2.Seat.PlayerID != "cat" || sit2.Seat.Stack != want {
		t.Fatalf("CS-10: cat sat at the new table as %+v, want a stack of %d", sit2.Seat, want)
	}
	if got := catWallet - r.balance("player:cat:EUR"); got != want {
		t.Fatalf("CS-10: cat's wallet paid %d for a %d buy-in (the refused one must move nothing)", got, want)
	}
	r.checkChips("after the table change")
	n.play(2)

	// CS-09: dan leaves, the game goes on, and dan comes back the same
	// evening through the waitlist: the table minimum is refused, the stack
	// dan left with is taken.
	left := n.leave("dan")
	n.play(2)
	r.must("POST", "/v1/waitlists/"+wl.Waitlist.ID+"/entries", r.tokens["dan"], map[string]any{}, nil)
	offer3, seat3 := r.acceptOffer("dan", t1)
	danWallet := r.balance("player:dan:EUR")
	if code, e := r.refused("POST", "/v1/tables/"+t1+"/seats", r.tokens["dan"], map[string]any{"seat": seat3,
		"amount": tableMin, "offer_id": offer3, "idempotency_key": "dan-back-min"}); e.RuleID != "CS-09" || e.Reason != "BUY_IN_BELOW_DEPARTURE_STACK" {
		t.Fatalf("CS-09: dan back with the minimum after leaving with %d: %d %+v", left, code, e)
	}
	if st := r.state(t1, r.floor); st.Seats[seat3].PlayerID != "" {
		t.Fatalf("CS-09: the refused buy-in seated dan: %+v", st.Seats[seat3])
	}
	var sit3 struct{ Seat seatState }
	r.must("POST", "/v1/tables/"+t1+"/seats", r.tokens["dan"], map[string]any{"seat": seat3, "amount": left,
		"offer_id": offer3, "idempotency_key": "dan-back", "post_now": true}, &sit3)
	if sit3.Seat.PlayerID != "dan" || sit3.Seat.Stack+sit3.Seat.Bet != left {
		t.Fatalf("CS-09: dan came back as %+v, want the %d left with", sit3.Seat, left)
	}
	if got := danWallet - r.balance("player:dan:EUR"); got != left {
		t.Fatalf("CS-09: dan's wallet paid %d to come back with %d (the refused buy-in must move nothing)", got, left)
	}
	r.checkChips("after dan came back")

	// Play on until the night has had twenty hands, a side pot and a split pot.
	for n.played < 22 || n.side == 0 || n.split == 0 {
		if n.played >= 80 {
			t.Fatalf("80 hands without a side pot and a split pot (side pots in %d hands, split pots in %d)", n.side, n.split)
		}
		n.play(1)
	}
	r.checkChips("before closing")

	// Closing time: the hand in progress is played out, everyone is cashed
	// out. The first table breaks first: seating hears table.closed, takes
	// it off the game's board and offers its players the second table's
	// empty seats ahead of anyone else; when that one closes too, every
	// player waits at the head of the list and no offer stays open.
	var broken []string
	for _, seat := range r.state(t1, r.floor).Seats {
		if seat.PlayerID != "" {
			broken = append(broken, seat.PlayerID)
		}
	}
	r.must("POST", "/v1/tables/"+t1+":close", r.floor, map[string]any{}, nil)
	r.waitBroken(wl.Waitlist.ID, []string{t1}, broken, t2)
	r.must("POST", "/v1/tables/"+t2+":close", r.floor, map[string]any{}, nil)
	r.waitBroken(wl.Waitlist.ID, []string{t1, t2}, append(broken, "cat"), "")
	if st := r.state(t1, r.floor); st.live() {
		n.play(1)
	}
	for _, id := range r.tables {
		st := r.state(id, r.floor)
		for _, seat := range st.Seats {
			if seat.PlayerID != "" || seat.Stack != 0 {
				t.Fatalf("table %s closed with %+v seated", id, seat)
			}
		}
	}
	r.checkChips("after closing")
	r.auditClean("after closing")
	t.Logf("night: %d hands at the first table (%d with all-ins, side pots in %d, split pots in %d), %d actions, %s",
		n.played, n.allIn, n.side, n.split, r.actions, time.Since(start).Round(time.Millisecond))

	final := r.state(t1, r.floor).Sequence
	t.Run("secrecy", func(t *testing.T) {
		parent := r.t
		r.t = t // the room's requests fail this subtest
		defer func() { r.t = parent }()
		for who, f := range feeds {
			checkSecrecy(t, who, r.tokens[who] != "" && who != "eve", f.until(t, final), n.hists)
		}
		checkPlayerHistories(t, r, t1, n.hists, "eve")
	})

	// What an SRE sees of the night: every room metric moved.
	t.Run("metrics", func(t *testing.T) {
		m := s.scrape()
		checkCatalogue(t, m, "night")

		for _, c := range []struct {
			name   string
			labels []string
			want   float64
		}{
			{"cardroom_table_hands_total", []string{`cardroom_game_variant="holdem"`, `cardroom_table_kind="cash"`, `cardroom_table_id="` + t1 + `"`}, float64(n.played)},
			{"cardroom_seating_offers_total", []string{`cardroom_offer_event="made"`}, float64(len(nightPlayers) + 2)},
			{"cardroom_seating_offers_total", []string{`cardroom_offer_event="accepted"`}, float64(len(nightPlayers) + 2)},
			{"cardroom_wallet_buy_ins_count", []string{`cardroom_currency="EUR"`}, float64(len(nightPlayers) + 2)},
			{"cardroom_wallet_cash_outs_count", []string{`cardroom_currency="EUR"`}, 2},
			{"http_server_request_duration_seconds_count", []string{`http_route="/v1/tables/{table_id}/actions"`}, 1},
			{"rpc_server_call_duration_seconds_count", []string{`rpc_method="cardroom.table.v1.TableService/Act"`}, 1},
		} {
			if got, _ := m.sum(c.name, c.labels...); got < c.want {
				t.Errorf("%s%v = %v, want at least %v", c.name, c.labels, got, c.want)
			}
		}
		for series := range m {
			if strings.HasPrefix(series, "http_server_") && strings.Contains(series, "server_address=") {
				t.Errorf("the client's Host header is a label: %s", series)
			}
			for _, p := range nightPlayers {
				if strings.Contains(series, `"`+p.name+`"`) {
					t.Errorf("a player id is a label: %s", series)
				}
			}
		}
	})

	s.stop()
	cmd := exec.Command(s.bin, "wallet", "audit")
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasSuffix(string(out), "clean\n") || !strings.Contains(string(out), "balances sum 0") {
		t.Fatalf("cardroom wallet audit: %v\n%s", err, out)
	}
}

// waitBroken waits until seating's board for the list shows the closed
// tables gone and players at the head of the list as a broken table's, in
// order, and then checks their open offers: each has one, pending, at
// table offered; with offered "", no player of the night has any.
func (r *room) waitBroken(list string, closed, players []string, offered string) {
	r.t.Helper()
	type boardResp struct {
		Board struct {
			Entries []struct {
				PlayerID string `json:"player_id"`
				Kind     string `json:"kind"`
				From     string `json:"from_table_id"`
			}
			Tables []struct {
				TableID string `json:"table_id"`
			}
		}
	}
	var got []string
	waitFor(r.t, "seating breaks "+join(closed), 20*time.Second, func() bool {
		var b boardResp
		r.must("GET", "/v1/waitlists/"+list, r.floor, nil, &b)
		for _, tb := range b.Board.Tables {
			if slices.Contains(closed, tb.TableID) {
				return false
			}
		}
		got = got[:0]
		for _, e := range b.Board.Entries {
			if e.Kind == "ENTRY_KIND_BROKEN_TABLE" && slices.Contains(closed, e.From) {
				got = append(got, e.PlayerID)
			}
		}
		return slices.Equal(got, players)
	})
	type offer struct {
		TableID string `json:"table_id"`
		State   string `json:"state"`
	}
	for _, p := range nightPlayers {
		want := 0
		if offered != "" {
			if !slices.Contains(players, p.name) {
				continue // seated elsewhere: not this check's
			}
			want = 1
		}
		var out struct{ Offers []offer }
		r.must("GET", "/v1/seat-offers", r.tokens[p.name], nil, &out)
		if len(out.Offers) != want || (want == 1 && (out.Offers[0].TableID != offered || out.Offers[0].State != "OFFER_STATE_PENDING")) {
			r.t.Fatalf("%s's open offers after %s closed: %+v, want %d at %q", p.name, join(closed), out.Offers, want, offered)
		}
	}
}

// night plays one table and keeps what its hands showed.
type night struct {
	*room
	table  string
	hists  map[int64]history
	played int
	allIn  int // hands with an all-in
	side   int // hands with a side pot
	split  int // hands with a split pot
}

// play plays hands: every tenth hand from the third on, everyone moves all
// in; the others are checked down to a showdown. After each hand a player
// who went broke buys again at the minimum (CS-07).
func (n *night) play(hands int) {
	n.t.Helper()
	for range hands {
		st := n.waitHand(n.table)
		p := plan(checkDown)
		if st.Hand.HandNo%10 == 3 {
			p = shove
		}
		no := n.playHand(n.table, p)
		h := n.history(n.table, no)
		n.hists[no] = h
		n.played++
		if h.allIns() > 0 {
			n.allIn++
		}
		if h.sidePots() {
			n.side++
			if h.allIns() == 0 {
				n.t.Fatalf("hand %d has side pots and no all-in: %+v", no, h.Pots)
			}
			n.t.Logf("hand %d: %d pots %+v", no, len(h.Pots), h.Pots)
		}
		if h.splitPot() {
			n.split++
			n.t.Logf("hand %d: split pot %+v", no, h.Pots)
		}
		n.rebuy(no)
	}
}

// rebuy buys a broke player back in at the table minimum (CS-07).
func (n *night) rebuy(after int64) {
	n.t.Helper()
	for _, seat := range n.state(n.table, n.floor).Seats {
		if seat.PlayerID == "" || seat.Stack+seat.Pending > 0 || seat.InHand {
			continue
		}
		var out struct{ Seat seatState }
		n.must("POST", "/v1/tables/"+n.table+"/top-ups", n.tokens[seat.PlayerID], map[string]any{"amount": tableMin,
			"idempotency_key": fmt.Sprintf("rebuy-%s-%d", seat.PlayerID, after)}, &out)
		if out.Seat.Stack+out.Seat.Pending != tableMin {
			n.t.Fatalf("%s bought again for %d: %+v", seat.PlayerID, tableMin, out.Seat)
		}
		n.t.Logf("hand %d: %s went broke and bought again", after, seat.PlayerID)
	}
}

// leave takes a player away from the first table with their stack (after
// the hand in progress) and returns the stack cashed out. A short stack
// is topped up to 5 000 first, so that what they must bring back is above
// the table minimum and the refusal names CS-09 or CS-10 rather than CS-03.
func (n *night) leave(player string) int64 {
	n.t.Helper()
	st := n.state(n.table, n.floor)
	seat := st.seatOf(player)
	if seat < 0 {
		n.t.Fatalf("%s is not seated at %s", player, n.table)
	}
	if s := st.Seats[seat]; s.Stack+s.Pending+s.Bet < 5000 {
		n.must("POST", "/v1/tables/"+n.table+"/top-ups", n.tokens[player], map[string]any{"amount": 5000 - s.Stack - s.Pending - s.Bet,
			"idempotency_key": fmt.Sprintf("top-up-%s-%d", player, st.Sequence)}, nil)
	}
	before := n.balance("player:" + player + ":EUR")
	var lv struct {
		Left  bool
		Stack int64 `json:"stack,string"`
	}
	n.must("POST", fmt.Sprintf("/v1/tables/%s/seats/%d:leave", n.table, seat), n.tokens[player], map[string]any{}, &lv)
	if !lv.Left {
		// In the hand: the seat plays on (the driver acts for whoever is in
		// turn) and is cashed out when the hand ends.
		n.play(1)
	}
	if s := n.state(n.table, n.floor); s.seatOf(player) >= 0 {
		n.t.Fatalf("%s still seated after leaving: %+v", player, s.Seats[s.seatOf(player)])
	}
	got := n.balance("player:"+player+":EUR") - before
	if lv.Left && got != lv.Stack {
		n.t.Fatalf("%s left with %d, the wallet received %d", player, lv.Stack, got)
	}
	if got <= tableMin {
		n.t.Fatalf("%s cashed out %d, not above the minimum", player, got)
	}
	n.t.Logf("%s left %s with %d", player, n.table, got)
	n.checkChips(player + " left")
	return got
}

// acceptOffer waits for the player's seat offer at table, accepts it and
// returns the offer and the seat.
func (r *room) acceptOffer(player, table string) (string, int) {
	r.t.Helper()
	type offer struct {
		ID      string `json:"offer_id"`
		TableID string `json:"table_id"`
		Seat    int    `json:"seat"`
		State   string `json:"state"`
	}
	var got offer
	waitFor(r.t, player+"'s seat offer at "+table, 20*time.Second, func() bool {
		var out struct{ Offers []offer }
		r.must("GET", "/v1/seat-offers", r.tokens[player], nil, &out)
		for _, o := range out.Offers {
			if o.TableID == table && o.State == "OFFER_STATE_PENDING" {
				got = o
				return true
			}
		}
		return false
	})
	var acc struct{ Offer offer }
	r.must("POST", "/v1/seat-offers/"+got.ID+":accept", r.tokens[player], map[string]any{}, &acc)
	if acc.Offer.State != "OFFER_STATE_ACCEPTED" {
		r.t.Fatalf("%s accepted %s: %+v", player, got.ID, acc.Offer)
	}
	return got.ID, got.Seat
}

// checkSitTrace asserts that one trace carries a player's sit-down from the
// gateway through the table service to the seating service (the offer
// check) and the wallet (its SitDown), each down to its SQL.
func checkSitTrace(t *testing.T, spans []span) {
	t.Helper()
	const sit = "cardroom.table.v1.TableService/Sit"
	checkTrace(t, spans, sit, false)
	byID := map[string]span{}
	var sitServer span
	for _, sp := range spans {
		byID[sp.SpanContext.SpanID] = sp
		if sp.Name == sit && sp.SpanKind == 2 {
			sitServer = sp
		}
	}
	under := func(sp span, ancestor string) bool {
		for i := 0; i < 64 && sp.Parent.SpanID != ""; i++ {
			if sp.Parent.SpanID == ancestor {
				return true
			}
			var ok bool
			if sp, ok = byID[sp.Parent.SpanID]; !ok {
				return false
			}
		}
		return false
	}
	var seen []string
	for _, rpc := range []string{"cardroom.seating.v1.SeatingService/ListOffers", "cardroom.wallet.v1.WalletService/SitDown"} {
		var server span
		for _, sp := range spans {
			if sp.Name == rpc && sp.SpanKind == 2 {
				server = sp
			}
		}
		if server.Name == "" || !under(server, sitServer.SpanContext.SpanID) {
			t.Fatalf("the Sit trace has no %s server span under the table's Sit span", rpc)
		}
		sqlUnder := 0
		for _, sp := range spans {
			if isSQLSpan(sp) && under(sp, server.SpanContext.SpanID) {
				sqlUnder++
			}
		}
		if sqlUnder == 0 && !strings.Contains(rpc, "ListOffers") {
			t.Fatalf("the Sit trace has no SQL span under %s", rpc)
		}
		seen = append(seen, fmt.Sprintf("%s (%d SQL)", rpc, sqlUnder))
	}
	// Redis: which RPC each command ran under (its nearest server span).
	var redis []string
	for _, sp := range spans {
		if !strings.Contains(sp.Scope.Name, "redisotel") {
			continue
		}
		in := "?"
		for p, ok := byID[sp.Parent.SpanID]; ok; p, ok = byID[p.Parent.SpanID] {
			if p.SpanKind == 2 {
				in = p.Name
				break
			}
		}
		redis = append(redis, sp.Name+" in "+in)
	}
	if len(redis) == 0 {
		t.Fatal("the Sit trace has no Redis span")
	}
	t.Logf("Sit trace: %d spans; gateway → table Sit → %s; Redis: %s", len(spans), join(seen), strings.Join(redis, ", "))
}

// badInput sends what the service must refuse with a clear error naming
// the rule, leaving the hand exactly as it was: acting out of turn, on a
// stale sequence number, a raise the engine refuses, acting for another
// player's seat, and sitting someone in a taken seat.
func badInput(t *testing.T, r *room, table string) {
	t.Helper()
	st := r.waitHand(table)
	actor := st.Seats[st.Hand.ToAct].PlayerID
	other := ""
	for _, s := range st.Seats {
		if s.InHand && s.Seat != st.Hand.ToAct && !s.Folded {
			other = s.PlayerID
		}
	}
	own := r.state(table, r.tokens[actor])
	raise, ok := legalOf(own, "ACTION_KIND_RAISE")
	if !ok || other == "" {
		t.Fatalf("bad input: %s in turn has no raise (%v) or nobody else is in the hand", actor, own.Hand.Legal)
	}
	actions := "/v1/tables/" + table + "/actions"
	// A raise one smallest chip (TP-31) short of the minimum: an amount off
	// the chip unit would be refused for that first.
	var got struct {
		Table struct {
			MinChipUnit int64 `json:"min_chip_unit,string"`
		} `json:"table"`
	}
	r.must("GET", "/v1/tables/"+table, r.floor, nil, &got)
	unit := got.Table.MinChipUnit
	if unit <= 0 {
		t.Fatalf("table %s has no smallest chip (min_chip_unit %d, TP-31)", table, unit)
	}
	for _, c := range []struct {
		name, token, path string
		body              map[string]any
		code              int
		reason, rule      string
	}{
		{"TP-46 out of turn", r.tokens[other], actions, map[string]any{"kind": "ACTION_KIND_CALL"}, 400, "OUT_OF_TURN", "TP-46"},
		{"stale sequence", r.tokens[actor], actions, map[string]any{"kind": "ACTION_KIND_CALL", "expected_sequence": st.Sequence - 1}, 400, "STALE_SEQUENCE", "TP-46"},
		{"raise below the minimum", r.tokens[actor], actions, map[string]any{"kind": "ACTION_KIND_RAISE", "amount": raise.Min - unit}, 400, "RAISE_BELOW_MINIMUM", "*"},
		{"another player's seat", r.tokens[other], fmt.Sprintf("/v1/tables/%s/seats/%d:leave", table, st.Hand.ToAct), map[string]any{}, 403, "NOT_YOUR_SEAT", ""},
		{"a taken seat", r.floor, "/v1/tables/" + table + "/seats", map[string]any{"seat": st.Hand.ToAct, "player_id": "eve", "amount": tableMin}, 400, "SEAT_TAKEN", ""},
	} {
		code, e := r.refused("POST", c.path, c.token, c.body)
		if code != c.code || e.Reason != c.reason || (c.rule == "*" && e.RuleID == "") || (c.rule != "*" && e.RuleID != c.rule) {
			t.Fatalf("%s: %d %+v, want %d %s %s", c.name, code, e, c.code, c.reason, c.rule)
		}
		t.Logf("bad input, %s: %d %s %s", c.name, code, e.Reason, e.RuleID)
	}
	if after := r.state(table, r.floor); !reflect.DeepEqual(after, st) {
		t.Fatalf("refused requests changed the table:\nbefore %+v %+v\nafter  %+v %+v", st, *st.Hand, after, *after.Hand)
	}
}
