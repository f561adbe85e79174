package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/random"
	"github.com/cardroom/cardroom/platform/testkit"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/engine/eval"
)

// TestLiveNight_PhysicalCards_TP68 is issue 15's live night, over REST on
// Redis and PostgreSQL: a dealer console plays 20 hands at a live NL
// hold'em and 20 at a live PLO cash table with physical cards — the test
// shuffles its own seeded decks, deals from them and enters what a dealer
// sees: the board by street, the hands tabled at the showdown, and at the
// PLO table (where the house enters hole cards, as a shuffler feed would)
// each seat's hole cards. Along the way: an oversized chip (TP-34) and a
// string bet the floor confirms (TP-38, G-15), the seed's out-of-turn
// examples S1–S5 at the cash table (TP-50) and at a live tournament table
// (TP-52), an exposed card the floor rules live (TP-58) and a misdeal
// (G-32). Every result comes from the entered cards (checked against the
// test's own evaluation, TP-68), every ruling is audited with its rule IDs,
// the chips are conserved (the wallet's escrow holds what the tables show;
// the ledger audit is clean), and no player's or spectator's feed ever
// shows a card that was not entered for them to see.
func TestLiveNight_PhysicalCards_TP68(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	start := time.Now()
	s := newSuite(t,
		"REDIS_URL="+testkit.RedisURL(t),
		"CARDROOM_REDIS_PREFIX="+testkit.RedisPrefix(t),
		"DATABASE_URL="+postgresDatabase(t),
	)
	s.start()
	nl := []string{"ann", "bob", "cat", "dan"}
	plo := []string{"eve", "fay", "gus", "hal"}
	tourn := []string{"ida", "jon", "kim", "leo"}
	r := newRoom(t, s, append(append(append([]string{"rail"}, nl...), plo...), tourn...)...)
	night := &liveNight{room: r, dealer: s.token("dealer-dave", "dealer"), svc: s.token("cardroom-tournament", "service")}
	for _, p := range append(slices.Clone(nl), plo...) {
		r.deposit(p, 30000)
	}
	holdem := night.open("Live NL 50/100", "TABLE_KIND_CASH", nlhe50100, false, 101)
	omaha := night.open("Live PLO 50/100", "TABLE_KIND_CASH", map[string]any{"variant": "VARIANT_OMAHA", "structure": "STRUCTURE_POT_LIMIT",
		"stakes": map[string]any{"small_blind": 50, "big_blind": 100}}, true, 202)
	tournament := night.openTournament("Live Turbo T1", tourn, 10000, 303)
	for _, lt := range []*liveTable{holdem, omaha, tournament} {
		lt.feeds = append(lt.feeds, r.watch(lt.id, "rail", r.tokens["rail"]))
	}
	for i, p := range nl {
		holdem.feeds = append(holdem.feeds, r.watch(holdem.id, p, r.tokens[p]))
		night.sit(holdem, i, p, 10000)
	}
	for i, p := range plo {
		omaha.feeds = append(omaha.feeds, r.watch(omaha.id, p, r.tokens[p]))
		night.sit(omaha, i, p, 10000)
	}
	for _, p := range tourn {
		tournament.feeds = append(tournament.feeds, r.watch(tournament.id, p, r.tokens[p]))
	}
	night.releaseTournament(tournament)
	r.checkChips("after the buy-ins")

	// The cash night: 20 hands at each table, with the rulings on the way,
	// each in a fresh hand all four players are in.
	scripts := map[*liveTable][]func(lt *liveTable){
		holdem: {night.oversizedChip, night.stringBet, night.exposedCard, night.misdeal,
			night.cashS1, night.cashS2, night.cashS3, night.cashS4, night.cashS5},
		omaha: {night.oversizedChip, night.stringBet, night.exposedCard},
	}
	for _, lt := range []*liveTable{holdem, omaha} {
		night.playHand(lt)
		for _, script := range scripts[lt] {
			night.fullHand(lt)
			script(lt)
			if st := night.state(lt); st.Hand != nil && !st.Hand.Done {
				night.playHand(lt)
			}
		}
		for lt.played < 20 {
			night.playHand(lt)
		}
		r.checkChips("after 20 hands at " + lt.name)
	}
	// The tournament's out-of-turn examples (TP-52).
	for _, script := range []func(lt *liveTable){night.tournamentS1, night.tournamentS2, night.tournamentS3, night.tournamentS4, night.tournamentS5} {
		night.fullHand(tournament)
		script(tournament)
		night.playHand(tournament)
	}
	if got := night.tableChips(tournament); got != 40000 {
		t.Fatalf("the tournament table holds %d chips, 40000 were seated", got)
	}

	if !holdem.phh {
		t.Fatal("no hand's PHH export was checked")
	}
	// The audit lists every ruling with the rules it applies.
	for _, lt := range []*liveTable{holdem, omaha, tournament} {
		night.checkAudit(lt)
	}
	// The feeds, read to the last change: no card that was not entered.
	for _, lt := range []*liveTable{holdem, omaha, tournament} {
		final := r.state(lt.id, r.floor).Sequence
		for _, f := range lt.feeds {
			lt.checkFeed(t, f, f.until(t, final))
		}
	}
	for _, lt := range []*liveTable{holdem, omaha} {
		r.must("POST", "/v1/tables/"+lt.id+":close", r.floor, map[string]any{}, nil)
		if st := r.state(lt.id, r.floor); st.live() {
			night.playHand(lt)
		}
	}
	waitFor(t, "the closed tables to cash everyone out", 10*time.Second, func() bool {
		for _, id := range r.tables {
			for _, seat := range r.state(id, r.floor).Seats {
				if seat.PlayerID != "" {
					return false
				}
			}
		}
		return true
	})
	r.checkChips("after closing")
	r.auditClean("after closing")
	t.Logf("live night: %d + %d + %d hands, %d console entries, %s", holdem.played, omaha.played, tournament.played, night.entries,
		time.Since(start).Round(time.Millisecond))
}

// liveNight is the console of the night's live tables.
type liveNight struct {
	*room
	dealer  string
	svc     string
	entries int
}

// liveTable is one live table and its physical cards: the test's own
// seeded deck for each hand, what it dealt and what it entered.
type liveTable struct {
	id, name   string
	omaha      bool
	holeEntry  bool
	tournament bool
	feeds      []*watch
	seed       uint64
	played     int

	handNo int64
	deck   cards.Deck
	next   int
	hole   map[int][]cards.Card // seat → the cards dealt to it
	// entered are the cards each hand made visible: public ones (board,
	// tabled, exposed) under seat -1, a seat's own hole cards under it.
	entered map[int64]map[int]map[string]bool
	tabled  map[int]bool            // this hand: seats whose tabled hand is judged
	known   map[int]map[string]bool // this hand: the cards entered for each seat
	// last is the table as the last console entry left it (its response
	// carries the state), so the console need not read it again.
	last *liveState
	// phh is set once a hand's PHH export was checked.
	phh bool
}

func (n *liveNight) open(name, kind string, game map[string]any, holeEntry bool, seed uint64) *liveTable {
	n.t.Helper()
	var out struct {
		Table struct {
			TableID   string `json:"table_id"`
			LiveCards *struct {
				HoleCardEntry bool `json:"hole_card_entry"`
			} `json:"live_cards"`
		}
	}
	n.must("POST", "/v1/tables", n.floor, map[string]any{"name": name, "seats": 6, "kind": kind, "mode": "TABLE_MODE_LIVE",
		"action_seconds": -1, "game": game, "live_cards": map[string]any{"hole_card_entry": holeEntry}}, &out)
	if out.Table.LiveCards == nil || out.Table.LiveCards.HoleCardEntry != holeEntry {
		n.t.Fatalf("%s opened with live cards %+v", name, out.Table.LiveCards)
	}
	lt := &liveTable{id: out.Table.TableID, name: name, omaha: game["variant"] == "VARIANT_OMAHA", holeEntry: holeEntry,
		tournament: kind == "TABLE_KIND_TOURNAMENT", seed: seed, entered: map[int64]map[int]map[string]bool{}}
	if !lt.tournament {
		n.tables = append(n.tables, lt.id) // its escrow is checked with the wallet
	}
	return lt
}

// openTournament opens a live tournament table as the tournament service
// does (TournamentTableService, gRPC, the service role) and seats the
// entrants while dealing is held; releaseTournament lets it deal.
func (n *liveNight) openTournament(name string, entrants []string, stack int64, seed uint64) *liveTable {
	n.t.Helper()
	tc, ctx := tournamentTables(n.t, n.grpcAddr(), n.svc)
	resp, err := tc.OpenTournamentTable(ctx, &tablev1.OpenTournamentTableRequest{IdempotencyKey: "trn/live/table/1", TournamentId: "live",
		Name: name, Game: nlhe50100Proto(), Seats: 9, Mode: tablev1.TableMode_TABLE_MODE_LIVE, ActionSeconds: -1})
	if err != nil {
		n.t.Fatal(err)
	}
	id := resp.GetTable().GetTableId()
	if _, err := tc.HoldDealing(ctx, &tablev1.HoldDealingRequest{TableId: id, Hold: &tablev1.DealingHold{HoldId: "seating",
		Reason: tablev1.HoldReason_HOLD_REASON_FLOOR}}); err != nil {
		n.t.Fatal(err)
	}
	for i, p := range entrants {
		if _, err := tc.SeatEntrant(ctx, &tablev1.SeatEntrantRequest{TableId: id, IdempotencyKey: "trn/live/seat/" + p, PlayerId: p,
			Seat: int32(i), Stack: stack}); err != nil {
			n.t.Fatalf("seat %s: %v", p, err)
		}
	}
	return &liveTable{id: id, name: name, tournament: true, seed: seed, entered: map[int64]map[int]map[string]bool{}}
}

func (n *liveNight) releaseTournament(lt *liveTable) {
	n.t.Helper()
	tc, ctx := tournamentTables(n.t, n.grpcAddr(), n.svc)
	if _, err := tc.ReleaseDealing(ctx, &tablev1.ReleaseDealingRequest{TableId: lt.id, HoldId: "seating"}); err != nil {
		n.t.Fatal(err)
	}
}

func (n *liveNight) sit(lt *liveTable, seat int, player string, amount int64) {
	n.t.Helper()
	n.must("POST", "/v1/tables/"+lt.id+"/seats", n.floor, map[string]any{"seat": seat, "player_id": player, "amount": amount,
		"post_now": true, "idempotency_key": "sit-" + player}, nil)
}

// liveState is a live table's state as the console sees it.
type liveState struct {
	Sequence int64 `json:"sequence,string"`
	Seats    []struct {
		Seat     int      `json:"seat"`
		PlayerID string   `json:"player_id"`
		Stack    int64    `json:"stack,string"`
		InHand   bool     `json:"in_hand"`
		Bet      int64    `json:"bet,string"`
		Cards    []string `json:"cards"`
		Folded   bool     `json:"folded"`
		AllIn    bool     `json:"all_in"`
	} `json:"seats"`
	Hand *struct {
		HandNo int64  `json:"hand_no,string"`
		Button int    `json:"button"`
		Street string `json:"street"`
		ToAct  int    `json:"to_act"`
		Board  []string
		Pot    int64 `json:"pot,string"`
		Legal  []struct {
			Kind string `json:"kind"`
			Min  int64  `json:"min,string"`
			Max  int64  `json:"max,string"`
			Seat int    `json:"seat"`
		} `json:"legal"`
		Done     bool `json:"done"`
		Awaiting *struct {
			Street string `json:"street"`
			Board  int    `json:"board"`
		} `json:"awaiting"`
		ProvisionalWagers []struct {
			Seat int `json:"seat"`
		} `json:"provisional_wagers"`
	} `json:"hand"`
}

func (n *liveNight) state(lt *liveTable) liveState {
	n.t.Helper()
	var out struct{ State liveState }
	n.must("GET", "/v1/tables/"+lt.id+"/state", n.dealer, nil, &out)
	lt.last = &out.State
	return out.State
}

// current is the table as the console last saw it.
func (n *liveNight) current(lt *liveTable) liveState {
	if lt.last != nil {
		return *lt.last
	}
	return n.state(lt)
}

func (st liveState) legal(kind string) (int64, int64, bool) {
	for _, l := range st.Hand.Legal {
		if l.Kind == "ACTION_KIND_"+kind {
			return l.Min, l.Max, true
		}
	}
	return 0, 0, false
}

// ruling is an out-of-turn ruling in a console response.
type ruling struct {
	Seat     int    `json:"seat"`
	Outcome  string `json:"outcome"`
	Scenario string `json:"scenario"`
	Returned int64  `json:"returned,string"`
	Decided  string `json:"decided"`
}

// enter makes a console entry (by the dealer, or the floor with floor
// set) and returns its out-of-turn rulings.
func (n *liveNight) enter(lt *liveTable, floor bool, body map[string]any) []ruling {
	n.t.Helper()
	n.entries++
	tok := n.dealer
	if floor {
		tok = n.floor
	}
	var out struct {
		OutOfTurn []ruling  `json:"out_of_turn"`
		State     liveState `json:"state"`
	}
	n.must("POST", "/v1/tables/"+lt.id+"/dealer-actions", tok, body, &out)
	lt.last = &out.State
	return out.OutOfTurn
}

func (n *liveNight) action(lt *liveTable, seat int, kind string, amount int64) []ruling {
	n.t.Helper()
	return n.enter(lt, false, map[string]any{"kind": "DEALER_ACTION_KIND_PLAYER_ACTION", "seat": seat, "action": "ACTION_KIND_" + kind,
		"amount": amount})
}

func (n *liveNight) outOfTurn(lt *liveTable, seat int, kind string, amount int64) []ruling {
	n.t.Helper()
	return n.enter(lt, false, map[string]any{"kind": "DEALER_ACTION_KIND_OUT_OF_TURN", "seat": seat, "action": "ACTION_KIND_" + kind,
		"amount": amount})
}

// deal starts the physical deal of a new hand: a fresh seeded deck, two
// (hold'em) or four (PLO) cards to every seat in the hand, entered for the
// seat where the house enters hole cards.
func (n *liveNight) deal(lt *liveTable, st liveState) {
	n.t.Helper()
	lt.handNo = st.Hand.HandNo
	lt.deck = cards.NewDeck()
	lt.deck.Shuffle(random.Seeded(lt.seed*1000 + uint64(lt.handNo)))
	lt.next = 0
	lt.hole = map[int][]cards.Card{}
	lt.tabled = map[int]bool{}
	lt.known = map[int]map[string]bool{}
	lt.entered[lt.handNo] = map[int]map[string]bool{-1: {}}
	per := 2
	if lt.omaha {
		per = 4
	}
	for _, s := range st.Seats {
		if s.InHand {
			lt.hole[s.Seat] = lt.draw(per)
			lt.entered[lt.handNo][s.Seat] = map[string]bool{}
			lt.known[s.Seat] = map[string]bool{}
		}
	}
	if lt.holeEntry {
		for seat, cs := range lt.hole {
			n.enter(lt, false, map[string]any{"kind": "DEALER_ACTION_KIND_SEAT_CARDS", "seat": seat, "cards": strs(cs)})
			lt.enteredFor(seat, cs...)
		}
	}
}

// enteredFor records cards entered as seat's: the seat's player may see
// them from then on.
func (lt *liveTable) enteredFor(seat int, cs ...cards.Card) {
	for _, c := range cs {
		lt.known[seat][c.String()] = true
	}
	lt.see(seat, cs...)
}

func (lt *liveTable) draw(k int) []cards.Card {
	cs := slices.Clone(lt.deck[lt.next : lt.next+k])
	lt.next += k
	return cs
}

// see records cards entered for seat to see (-1: everyone).
func (lt *liveTable) see(seat int, cs ...cards.Card) {
	for _, c := range cs {
		lt.entered[lt.handNo][seat][c.String()] = true
	}
}

func strs(cs []cards.Card) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.String()
	}
	return out
}

// sync reads the table and deals physically when a new hand has started.
func (n *liveNight) sync(lt *liveTable) liveState {
	n.t.Helper()
	var st liveState
	waitFor(n.t, "a hand under way at "+lt.name, 10*time.Second, func() bool {
		st = n.state(lt)
		return st.Hand != nil && !st.Hand.Done
	})
	if st.Hand.HandNo != lt.handNo {
		n.deal(lt, st)
		st = n.current(lt)
	}
	return st
}

// step makes the console entry the table waits for next: the board cards
// of the street, the tabled hand at the showdown, or the action of the
// seat in turn (check or call, and now and then a bet).
func (n *liveNight) step(lt *liveTable, st liveState) {
	n.t.Helper()
	h := st.Hand
	switch {
	case h.Awaiting != nil:
		lt.draw(1) // the burn card
		cs := lt.draw(h.Awaiting.Board)
		n.enter(lt, false, map[string]any{"kind": "DEALER_ACTION_KIND_BOARD_CARDS", "cards": strs(cs)})
		lt.see(-1, cs...)
	case h.ToAct < 0:
		n.t.Fatalf("%s hand %d: nobody to act and nothing awaited: %+v", lt.name, h.HandNo, h)
	default:
		if _, _, ok := st.legal("SHOW"); ok {
			n.showdown(lt, st)
			return
		}
		if _, _, ok := st.legal("CHECK"); ok {
			if lo, _, bet := st.legal("BET"); bet && h.Street == "turn" && lt.played%3 == 0 {
				n.action(lt, h.ToAct, "BET", lo)
				return
			}
			n.action(lt, h.ToAct, "CHECK", 0)
			return
		}
		n.action(lt, h.ToAct, "CALL", 0)
	}
}

// showdown tables the seat in turn's physical hand when it can still win
// (or when it is the last hand), and otherwise mucks it — or, every
// other hand, tables it anyway, and the engine mucks it unseen (TP-66).
func (n *liveNight) showdown(lt *liveTable, st liveState) {
	n.t.Helper()
	seat := st.Hand.ToAct
	board := lt.board(st)
	mine := lt.value(lt.hole[seat], board)
	best := uint32(0)
	for s := range lt.tabled {
		best = max(best, lt.value(lt.hole[s], board))
	}
	_, _, last := st.legal("WAIVE")
	if mine < best && !last && lt.handNo%2 == 0 {
		n.action(lt, seat, "MUCK", 0)
		return
	}
	n.enter(lt, false, map[string]any{"kind": "DEALER_ACTION_KIND_PLAYER_ACTION", "seat": seat, "action": "ACTION_KIND_SHOW",
		"cards": strs(lt.hole[seat])})
	lt.enteredFor(seat, lt.hole[seat]...)
	if mine >= best || last {
		lt.tabled[seat] = true
		lt.see(-1, lt.hole[seat]...)
	} // else TP-66: mucked unseen by the table, kept in the history
}

func (lt *liveTable) board(st liveState) []cards.Card {
	cs, err := cards.ParseList(strings.Join(st.Hand.Board, ""))
	if err != nil {
		panic(err)
	}
	return cs
}

// value is the high value of a hand on the board, by the test's own
// evaluation (PLO: two hole cards and three of the board).
func (lt *liveTable) value(hole, board []cards.Card) uint32 {
	if lt.omaha {
		return uint32(eval.Omaha(hole, board))
	}
	return uint32(eval.High(append(slices.Clone(hole), board...)))
}

// fullHand waits for a hand and, if the last one left it half played,
// plays on to a fresh hand with every seat in it.
func (n *liveNight) fullHand(lt *liveTable) liveState {
	n.t.Helper()
	for range 3 {
		st := n.sync(lt)
		in := 0
		for _, s := range st.Seats {
			if s.InHand && !s.Folded {
				in++
			}
		}
		if in == 4 && st.Hand.Street == "preflop" && st.Hand.Pot == 150 {
			return st
		}
		n.playHand(lt)
	}
	n.t.Fatalf("%s: no fresh four-way hand", lt.name)
	return liveState{}
}

// playHand plays the hand in progress to its end and checks its result
// against the cards entered.
func (n *liveNight) playHand(lt *liveTable) {
	n.t.Helper()
	st := n.sync(lt)
	no := st.Hand.HandNo
	for range 300 {
		st = n.current(lt)
		if st.Hand == nil || st.Hand.HandNo != no || st.Hand.Done {
			lt.played++
			n.checkResult(lt, no)
			return
		}
		n.step(lt, st)
	}
	n.t.Fatalf("%s hand %d did not end", lt.name, no)
}

// liveHistory is a finished hand as the floor reads it.
type liveHistory struct {
	Board  []string           `json:"board"`
	Seats  []liveHistorySeat  `json:"seats"`
	Pots   []liveHistoryPot   `json:"pots"`
	Events []liveHistoryEvent `json:"events"`
}

type liveHistorySeat struct {
	Seat  int      `json:"seat"`
	Cards []string `json:"cards"`
}

type liveHistoryPot struct {
	Amount  int64 `json:"amount,string"`
	Winners []struct {
		Seat int `json:"seat"`
	} `json:"winners"`
}

type liveHistoryEvent struct {
	Kind string `json:"kind"`
}

// checkResult reads the hand's history: the cards are the physical ones
// as entered (a hand never tabled is "??", not invented), and the main pot
// went to the best tabled hand by the test's own evaluation (TP-68).
func (n *liveNight) checkResult(lt *liveTable, no int64) {
	n.t.Helper()
	var out struct{ History liveHistory }
	n.must("GET", fmt.Sprintf("/v1/tables/%s/hands/%d", lt.id, no), n.floor, nil, &out)
	h := out.History
	if slices.ContainsFunc(h.Events, func(e liveHistoryEvent) bool { return e.Kind == "misdeal" }) {
		return // void (G-32): checked by the misdeal's script
	}
	board, err := cards.ParseList(strings.Join(h.Board, ""))
	if err != nil {
		n.t.Fatal(err)
	}
	var contenders []int
	var best uint32
	for _, s := range h.Seats {
		// The history holds the cards entered for the seat and "??" for
		// the others: never a card the table did not see.
		var want []string
		for _, c := range strs(lt.hole[s.Seat]) {
			if lt.known[s.Seat][c] {
				want = append(want, c)
			} else {
				want = append(want, "??")
			}
		}
		if !sameCards(s.Cards, want) {
			n.t.Fatalf("%s hand %d seat %d: the history holds %v, the table entered %v", lt.name, no, s.Seat, s.Cards, want)
		}
		if lt.tabled[s.Seat] {
			v := lt.value(lt.hole[s.Seat], board)
			switch {
			case v > best:
				best, contenders = v, []int{s.Seat}
			case v == best:
				contenders = append(contenders, s.Seat)
			}
		}
	}
	if len(h.Pots) == 0 {
		n.t.Fatalf("%s hand %d: no pot", lt.name, no)
	}
	var winners []int
	for _, w := range h.Pots[0].Winners {
		if !slices.Contains(winners, w.Seat) {
			winners = append(winners, w.Seat)
		}
	}
	slices.Sort(winners)
	if len(contenders) > 0 && !slices.Equal(winners, contenders) {
		n.t.Fatalf("%s hand %d: the main pot went to %v, the best tabled hand is seat %v's (board %v)", lt.name, no, winners, contenders, h.Board)
	}
	unseen := slices.ContainsFunc(h.Seats, func(s liveHistorySeat) bool { return slices.Contains(s.Cards, "??") })
	if len(contenders) > 0 && unseen && !lt.phh && !lt.holeEntry {
		// The PHH export holds the tabled cards, and "??" for those never
		// seen.
		code, raw := n.do("GET", fmt.Sprintf("/v1/tables/%s/hands/%d?format=HISTORY_FORMAT_PHH", lt.id, no), n.floor, nil)
		if code != 200 {
			return // a hand whose posts PHH cannot place (a new player's blind): a later one
		}
		lt.phh = true
		var ph struct{ Content string }
		if err := json.Unmarshal(raw, &ph); err != nil {
			n.t.Fatal(err)
		}
		if tabled := strings.Join(strs(lt.hole[contenders[0]]), ""); !strings.Contains(ph.Content, tabled) || !strings.Contains(ph.Content, "????") {
			n.t.Fatalf("%s hand %d: the PHH lacks the tabled %s or an unseen ????:\n%s", lt.name, no, tabled, ph.Content)
		}
	}
}

// sameCards compares two hands as sets ("??" counted).
func sameCards(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// seatsFrom returns the seats in the hand, not folded, clockwise from the
// seat in turn: A, B, C, D of the seed's examples.
func seatsFrom(st liveState) []int {
	var in []int
	for _, s := range st.Seats {
		if s.InHand && !s.Folded {
			in = append(in, s.Seat)
		}
	}
	i := slices.Index(in, st.Hand.ToAct)
	return append(in[i:], in[:i]...)
}

// toFlop calls the hand to the flop and enters it; it returns A, B, C, D.
func (n *liveNight) toFlop(lt *liveTable) []int {
	n.t.Helper()
	for range 20 {
		st := n.current(lt)
		if st.Hand.Street == "flop" && st.Hand.Awaiting == nil {
			abcd := seatsFrom(st)
			if len(abcd) != 4 {
				n.t.Fatalf("%s: not a four-way flop: %+v", lt.name, st.Seats)
			}
			return abcd
		}
		n.step(lt, st)
	}
	n.t.Fatalf("%s: no flop", lt.name)
	return nil
}

func wantRuling(t *testing.T, what string, got []ruling, seat int, outcome, scenario string) ruling {
	t.Helper()
	for _, r := range got {
		if r.Seat == seat && r.Outcome == outcome && r.Scenario == scenario {
			return r
		}
	}
	t.Fatalf("%s: no %s %s ruling for seat %d in %+v", what, outcome, scenario, seat, got)
	return ruling{}
}

// interpret sends an entry to the console's interpretation and returns the
// proposal.
func (n *liveNight) interpret(lt *liveTable, entry map[string]any) map[string]any {
	n.t.Helper()
	n.entries++
	entry["table_id"] = lt.id
	var out map[string]any
	n.must("POST", "/v1/tables/"+lt.id+"/dealer-entries:interpret", n.dealer, entry, &out)
	if out["proposal_id"] == "" || out["proposal_id"] == nil {
		n.t.Fatalf("no proposal id: %v", out)
	}
	return out
}

// oversizedChip: facing the big blind, a player pushes one 1000 chip
// without a word: a call, the change returned (TP-34).
func (n *liveNight) oversizedChip(lt *liveTable) {
	n.t.Helper()
	p := n.interpret(lt, map[string]any{"chips_total": 1000, "chip_count": 1, "largest_chip": 1000, "motions": 1})
	if p["action"] != "ACTION_KIND_CALL" || p["call_floor"] == true || p["returned"] != "900" {
		n.t.Fatalf("TP-34 oversized chip: %v", p)
	}
	n.enter(lt, false, map[string]any{"kind": "DEALER_ACTION_KIND_CONFIRM", "proposal_id": p["proposal_id"]})
}

// stringBet: facing the big blind, chips in two motions with no word: a
// string bet (TP-38), a call by the house default (G-15) that only the
// floor confirms, with a reason.
func (n *liveNight) stringBet(lt *liveTable) {
	n.t.Helper()
	p := n.interpret(lt, map[string]any{"chips_total": 500, "chip_count": 5, "largest_chip": 100, "motions": 2})
	if p["call_floor"] != true || p["action"] != "ACTION_KIND_CALL" {
		n.t.Fatalf("TP-38 string bet: %v", p)
	}
	if code, e := n.refused("POST", "/v1/tables/"+lt.id+"/dealer-actions", n.dealer, map[string]any{"kind": "DEALER_ACTION_KIND_CONFIRM",
		"proposal_id": p["proposal_id"]}); code != 403 || e.Reason != "FLOOR_ONLY" || e.RuleID != "TP-38" {
		n.t.Fatalf("the dealer confirmed a string bet: %d %+v", code, e)
	}
	n.enter(lt, true, map[string]any{"kind": "DEALER_ACTION_KIND_CONFIRM", "proposal_id": p["proposal_id"],
		"reason": "string bet: the first motion counts, a call"})
}

// exposedCard: a player flashes a hole card before acting; the dealer
// marks it with the card, the floor rules the hand live without the right
// to bet or raise (TP-58).
func (n *liveNight) exposedCard(lt *liveTable) {
	n.t.Helper()
	st := n.state(lt)
	seat := st.Hand.ToAct
	card := lt.hole[seat][0]
	n.enter(lt, false, map[string]any{"kind": "DEALER_ACTION_KIND_EXPOSED", "seat": seat, "cards": []string{card.String()}})
	lt.see(-1, card)
	lt.enteredFor(seat, card)
	if code, e := n.refused("POST", "/v1/tables/"+lt.id+"/dealer-actions", n.dealer, map[string]any{"kind": "DEALER_ACTION_KIND_EXPOSE_LIVE",
		"seat": seat}); code != 403 || e.Reason != "FLOOR_ONLY" || e.RuleID != "TP-58" {
		n.t.Fatalf("the dealer ruled an exposed hand: %d %+v", code, e)
	}
	n.enter(lt, true, map[string]any{"kind": "DEALER_ACTION_KIND_EXPOSE_LIVE", "seat": seat, "reason": "flashed by accident: live, no raise"})
	if _, _, ok := n.state(lt).legal("RAISE"); ok {
		n.t.Fatalf("the exposed hand may still raise (TP-58)")
	}
}

// misdeal: a card flies in the deal; the dealer declares a misdeal before
// anyone acts: every chip goes back and the hand is dealt again with the
// same button (G-32).
func (n *liveNight) misdeal(lt *liveTable) {
	n.t.Helper()
	before := n.state(lt)
	n.enter(lt, false, map[string]any{"kind": "DEALER_ACTION_KIND_MISDEAL"})
	lt.played++
	n.checkResult(lt, before.Hand.HandNo)
	after := n.sync(lt)
	if after.Hand.HandNo != before.Hand.HandNo+1 || after.Hand.Button != before.Hand.Button {
		n.t.Fatalf("%s: the misdealt hand %d (button %d) is not dealt again with the same button: hand %d button %d", lt.name,
			before.Hand.HandNo, before.Hand.Button, after.Hand.HandNo, after.Hand.Button)
	}
	// Every chip went back, and the same blinds are posted again.
	for i, s := range after.Seats {
		if b := before.Seats[i]; s.Stack != b.Stack || s.Bet != b.Bet {
			n.t.Fatalf("%s: seat %d holds %d + %d after the misdeal, %d + %d before", lt.name, i, s.Stack, s.Bet, b.Stack, b.Bet)
		}
	}
}

// The seed's out-of-turn examples at a cash table (TP-50): A, B, C, D are
// the flop's seats in turn order.

func (n *liveNight) cashS1(lt *liveTable) {
	n.t.Helper()
	s := n.toFlop(lt)
	n.action(lt, s[0], "BET", 200)
	c := s[2]
	p := n.interpret(lt, map[string]any{"seat": c, "declaration": "DECLARATION_BET_OR_RAISE", "amount": 1000, "declared_before_chips": true,
		"chips_total": 1000, "chip_count": 2, "largest_chip": 500, "motions": 1})
	if p["out_of_turn"] != true || p["action"] != "ACTION_KIND_RAISE" {
		n.t.Fatalf("C's push out of turn: %v", p)
	}
	n.enter(lt, false, map[string]any{"kind": "DEALER_ACTION_KIND_CONFIRM", "proposal_id": p["proposal_id"]})
	got := n.action(lt, s[1], "CALL", 0)
	if r := wantRuling(n.t, "TP-50/S1", got, c, "check_or_call", "TP-50/S1"); r.Returned != 800 || r.Decided != "ACTION_KIND_CALL" {
		n.t.Fatalf("TP-50/S1: %+v", r)
	}
}

// cRaises plays the examples' first betting up to the skipped seat: A
// bets 200, C raises to 1000 out of turn, B (skipped) is in turn. dBets:
// A checks, D bets 500 out of turn. Both return A, B, C, D.
func (n *liveNight) cRaises(lt *liveTable) []int {
	n.t.Helper()
	s := n.toFlop(lt)
	n.action(lt, s[0], "BET", 200)
	n.outOfTurn(lt, s[2], "RAISE", 1000)
	return s
}

func (n *liveNight) dBets(lt *liveTable) []int {
	n.t.Helper()
	s := n.toFlop(lt)
	n.action(lt, s[0], "CHECK", 0)
	n.outOfTurn(lt, s[3], "BET", 500)
	return s
}

func (n *liveNight) cashS2(lt *liveTable) {
	n.t.Helper()
	s := n.cRaises(lt)
	if r := wantRuling(n.t, "TP-50/S2", n.action(lt, s[1], "RAISE", 600), s[2], "withdrawn", "TP-50/S2"); r.Returned != 1000 {
		n.t.Fatalf("TP-50/S2: %+v", r)
	}
}

func (n *liveNight) cashS3(lt *liveTable) {
	n.t.Helper()
	s := n.cRaises(lt)
	wantRuling(n.t, "TP-50/S3", n.action(lt, s[1], "FOLD", 0), s[2], "stands", "TP-50/S3")
}

func (n *liveNight) cashS4(lt *liveTable) {
	n.t.Helper()
	s := n.dBets(lt)
	n.action(lt, s[1], "CHECK", 0)
	if r := wantRuling(n.t, "TP-50/S4", n.action(lt, s[2], "CHECK", 0), s[3], "check_or_call", "TP-50/S4"); r.Returned != 500 {
		n.t.Fatalf("TP-50/S4: %+v", r)
	}
}

func (n *liveNight) cashS5(lt *liveTable) {
	n.t.Helper()
	s := n.dBets(lt)
	if r := wantRuling(n.t, "TP-50/S5", n.action(lt, s[1], "BET", 100), s[3], "withdrawn", "TP-50/S5"); r.Returned != 500 {
		n.t.Fatalf("TP-50/S5: %+v", r)
	}
}

// The same examples at a live tournament table (TP-52): the out-of-turn
// wager stands as made; only a larger wager by a skipped seat gives a
// choice.

func (n *liveNight) tournamentS1(lt *liveTable) {
	n.t.Helper()
	s := n.cRaises(lt)
	wantRuling(n.t, "TP-52/S1", n.action(lt, s[1], "CALL", 0), s[2], "stands", "TP-52/S1")
}

func (n *liveNight) tournamentS2(lt *liveTable) {
	n.t.Helper()
	s := n.cRaises(lt)
	// B's raise to 600 is not more than C's 1000, which stands: B faces it.
	if code, e := n.refused("POST", "/v1/tables/"+lt.id+"/dealer-actions", n.dealer, map[string]any{"kind": "DEALER_ACTION_KIND_PLAYER_ACTION",
		"seat": s[1], "action": "ACTION_KIND_RAISE", "amount": 600}); code != 400 || e.Reason != "RAISE_BELOW_MINIMUM" {
		n.t.Fatalf("TP-52/S2: B raised to 600 under C's standing 1000: %d %+v", code, e)
	}
	if st := n.state(lt); st.Seats[s[2]].Bet != 1000 {
		n.t.Fatalf("TP-52/S2: C's 1000 does not stand: %+v", st.Seats[s[2]])
	}
	n.action(lt, s[1], "FOLD", 0)
}

func (n *liveNight) tournamentS3(lt *liveTable) {
	n.t.Helper()
	s := n.cRaises(lt)
	wantRuling(n.t, "TP-52/S3", n.action(lt, s[1], "FOLD", 0), s[2], "stands", "TP-52/S3")
}

func (n *liveNight) tournamentS4(lt *liveTable) {
	n.t.Helper()
	s := n.dBets(lt)
	n.action(lt, s[1], "CALL", 0)
	wantRuling(n.t, "TP-52/S4", n.action(lt, s[2], "CALL", 0), s[3], "stands", "TP-52/S4")
}

func (n *liveNight) tournamentS5(lt *liveTable) {
	n.t.Helper()
	s := n.dBets(lt)
	wantRuling(n.t, "TP-52/S5", n.action(lt, s[1], "RAISE", 1200), s[3], "choose", "TP-52/S5")
	n.action(lt, s[2], "FOLD", 0)
	if r := wantRuling(n.t, "TP-52/S5 choice", n.action(lt, s[3], "CALL", 0), s[3], "chosen", "TP-52/S5"); r.Decided != "ACTION_KIND_CALL" {
		n.t.Fatalf("TP-52/S5 choice: %+v", r)
	}
}

// tableChips counts a table's chips: stacks and the pot in play.
func (n *liveNight) tableChips(lt *liveTable) int64 {
	n.t.Helper()
	st := n.state(lt)
	var sum int64
	for _, s := range st.Seats {
		sum += s.Stack
	}
	if st.Hand != nil && !st.Hand.Done {
		sum += st.Hand.Pot
	}
	return sum
}

// checkAudit reads the table's rulings: each names its rules, and the
// night's rulings are all there.
func (n *liveNight) checkAudit(lt *liveTable) {
	n.t.Helper()
	var out struct {
		Rulings []struct {
			Action  string   `json:"action"`
			Role    string   `json:"role"`
			Reason  string   `json:"reason"`
			RuleIDs []string `json:"rule_ids"`
		}
	}
	n.must("GET", "/v1/tables/"+lt.id+"/rulings", n.floor, nil, &out)
	seen := map[string]bool{}
	for _, r := range out.Rulings {
		if len(r.RuleIDs) == 0 {
			n.t.Fatalf("%s: ruling %s names no rule", lt.name, r.Action)
		}
		for _, id := range r.RuleIDs {
			seen[id] = true
		}
		if r.Role == "floor" && r.Reason == "" {
			n.t.Fatalf("%s: the floor's ruling %s gives no reason", lt.name, r.Action)
		}
	}
	want := map[string][]string{
		"Live NL 50/100":  {"TP-34", "TP-38", "G-15", "TP-02", "TP-58", "G-32", "TP-50", "TP-50/S1", "TP-50/S2", "TP-50/S3", "TP-50/S4", "TP-50/S5"},
		"Live PLO 50/100": {"TP-34", "TP-38", "G-15", "TP-02"},
		"Live Turbo T1":   {"TP-52", "TP-52/S1", "TP-52/S3", "TP-52/S4", "TP-52/S5"},
	}[lt.name]
	for _, id := range want {
		if !seen[id] {
			n.t.Fatalf("%s: no ruling cites %s (%d rulings)", lt.name, id, len(out.Rulings))
		}
	}
	n.t.Logf("%s: %d rulings, every one with its rule IDs", lt.name, len(out.Rulings))
}

// checkFeed replays a viewer's feed: no card shows that was not entered
// for the viewer to see — the board, the hands tabled or exposed, and the
// viewer's own hole cards where the house entered them.
func (lt *liveTable) checkFeed(t *testing.T, w *watch, lines []watchLine) {
	t.Helper()
	shown := 0
	prev := int64(0)
	for i, l := range lines {
		st := l.Result.State
		viewer := st.ViewerSeat
		hand := prev
		if st.Hand != nil {
			hand = st.Hand.HandNo
		}
		allowed := func(c string) bool {
			if c == "??" {
				return true
			}
			for _, no := range []int64{hand, prev} { // a change may end one hand and deal the next
				if e := lt.entered[no]; e != nil && (e[-1][c] || viewer >= 0 && e[viewer][c]) {
					return true
				}
			}
			return false
		}
		check := func(what string, cs []string) {
			for _, c := range cs {
				if !allowed(c) {
					t.Fatalf("%s's feed of %s, line %d (hand %d, seat %d): %s shows %s, which was not entered for them", w.who, lt.name, i, hand, viewer, what, c)
				}
				if c != "??" {
					shown++
				}
			}
		}
		for _, e := range l.Result.Events {
			check(e.Kind+" event of seat "+strconv.Itoa(e.Seat), e.Cards)
		}
		if st.Hand != nil {
			check("the board", st.Hand.Board)
			// TP-43: the pot is stated only in pot-limit.
			if !lt.omaha && st.Hand.Pot != 0 {
				t.Fatalf("%s's feed of %s, line %d: the pot is stated (%d) off pot-limit", w.who, lt.name, i, st.Hand.Pot)
			}
		}
		for _, s := range st.Seats {
			check("seat "+strconv.Itoa(s.Seat), s.Cards)
		}
		prev = hand
	}
	if shown == 0 {
		t.Fatalf("%s's feed of %s showed no card at all: a vacuous check", w.who, lt.name)
	}
	t.Logf("%s's feed of %s: %d lines, %d cards shown, each one entered for them", w.who, lt.name, len(lines), shown)
}
