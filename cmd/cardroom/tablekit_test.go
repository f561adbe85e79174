package main

// Helpers for the end-to-end tests of issue 6 (night_test.go,
// secrecy_test.go, crash_test.go): a cardroom binary with seeded decks, a
// room of tokens, a driver that plays hands over REST the way the apps do,
// and the chip counts behind the wallet checks.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/testkit"
)

// newSeededSuite is newSuite running the cardroomtest binary with every
// deck drawn from one stream seeded with seed.
func newSeededSuite(t *testing.T, seed uint64, extra ...string) *suite {
	t.Helper()
	return newSuiteOf(t, seededBinary, append([]string{"CARDROOM_TEST_DECK_SEED=" + strconv.FormatUint(seed, 10)}, extra...)...)
}

// room is a running suite with the people of one test and their tokens.
type room struct {
	*suite
	t       *testing.T
	floor   string
	cashier string
	tokens  map[string]string // player → token
	// deposits is every chip the cashier brought into the room.
	deposits int64
	tables   []string
	actions  int
}

func newRoom(t *testing.T, s *suite, players ...string) *room {
	r := &room{suite: s, t: t, tokens: map[string]string{}}
	r.floor = s.token("floor-anna", "floor")
	r.cashier = s.token("cage-1", "cashier")
	for _, p := range players {
		r.tokens[p] = s.token(p, "player")
	}
	return r
}

// do makes a REST request and returns the status and the raw body.
func (r *room) do(method, path, token string, body any) (int, []byte) {
	r.t.Helper()
	return r.request(r.t, method, path, token, body)
}

// must makes a request that must answer 200 and decodes it into out.
func (r *room) must(method, path, token string, body, out any) {
	r.t.Helper()
	code, raw := r.do(method, path, token, body)
	if code != http.StatusOK {
		r.t.Fatalf("%s %s: %d %s", method, path, code, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			r.t.Fatalf("%s %s: decode %s: %v", method, path, raw, err)
		}
	}
}

// apiError is the gateway's JSON error.
type apiError struct {
	Code     string            `json:"code"`
	Reason   string            `json:"reason"`
	RuleID   string            `json:"rule_id"`
	Message  string            `json:"message"`
	Metadata map[string]string `json:"metadata"`
}

// refused makes a request that must be refused and returns the error.
func (r *room) refused(method, path, token string, body any) (int, apiError) {
	r.t.Helper()
	code, raw := r.do(method, path, token, body)
	if code == http.StatusOK {
		r.t.Fatalf("%s %s was accepted: %s", method, path, raw)
	}
	var e apiError
	if err := json.Unmarshal(raw, &e); err != nil {
		r.t.Fatalf("%s %s: decode error %s: %v", method, path, raw, err)
	}
	return code, e
}

// The table service's JSON (protojson: int64 as strings).
type tableState struct {
	TableID    string      `json:"table_id"`
	Sequence   int64       `json:"sequence,string"`
	Seats      []seatState `json:"seats"`
	Hand       *handState  `json:"hand"`
	ViewerSeat int         `json:"viewer_seat"`
	Closed     bool        `json:"closed"`
}

type seatState struct {
	Seat       int      `json:"seat"`
	PlayerID   string   `json:"player_id"`
	Stack      int64    `json:"stack,string"`
	SittingOut bool     `json:"sitting_out"`
	InHand     bool     `json:"in_hand"`
	Pending    int64    `json:"pending_chips,string"`
	Bet        int64    `json:"bet,string"`
	Cards      []string `json:"cards"`
	Folded     bool     `json:"folded"`
	AllIn      bool     `json:"all_in"`
	Shown      bool     `json:"shown"`
	Leaving    bool     `json:"leaving"`
	NewPlayer  bool     `json:"new_player"`
}

type handState struct {
	HandNo int64         `json:"hand_no,string"`
	Button int           `json:"button"`
	Street string        `json:"street"`
	ToAct  int           `json:"to_act"`
	Board  []string      `json:"board"`
	Pot    int64         `json:"pot,string"`
	Legal  []legalAction `json:"legal"`
	Done   bool          `json:"done"`
}

type legalAction struct {
	Kind string `json:"kind"`
	Min  int64  `json:"min,string"`
	Max  int64  `json:"max,string"`
}

// live reports whether a hand is being played.
func (st tableState) live() bool { return st.Hand != nil && !st.Hand.Done }

func (st tableState) seatOf(player string) int {
	for _, s := range st.Seats {
		if s.PlayerID == player {
			return s.Seat
		}
	}
	return -1
}

func (r *room) state(table, token string) tableState {
	r.t.Helper()
	var out struct{ State tableState }
	r.must("GET", "/v1/tables/"+table+"/state", token, nil, &out)
	return out.State
}

// createTable opens a digital NL Hold'em 50/100 cash table (buy-in
// 4 000–10 000 under CS-03).
func (r *room) createTable(name string, seats int) string {
	r.t.Helper()
	return r.createTableWith(name, seats, nil)
}

// createTableWith is createTable with further fields of the request
// (action_seconds, ...).
func (r *room) createTableWith(name string, seats int, extra map[string]any) string {
	r.t.Helper()
	var out struct {
		Table struct {
			TableID string `json:"table_id"`
		}
	}
	req := map[string]any{"name": name, "seats": seats, "kind": "TABLE_KIND_CASH", "mode": "TABLE_MODE_DIGITAL", "game": nlhe50100}
	for k, v := range extra {
		req[k] = v
	}
	r.must("POST", "/v1/tables", r.floor, req, &out)
	r.tables = append(r.tables, out.Table.TableID)
	return out.Table.TableID
}

var nlhe50100 = map[string]any{"variant": "VARIANT_HOLDEM", "structure": "STRUCTURE_NO_LIMIT",
	"stakes": map[string]any{"small_blind": 50, "big_blind": 100}}

// deposit opens the player's account and pays cash in at the cage.
func (r *room) deposit(player string, amount int64) {
	r.t.Helper()
	r.must("POST", "/v1/accounts", r.cashier, map[string]any{"owner_id": player, "currency": "EUR", "kind": "ACCOUNT_KIND_PLAYER",
		"idempotency_key": "open-" + player}, nil)
	r.must("POST", "/v1/players/"+player+"/deposits", r.cashier, map[string]any{"idempotency_key": "dep-" + player,
		"currency": "EUR", "amount": amount}, nil)
	r.deposits += amount
}

// balance reads an account's balance as the cashier; an account never
// used (a table's hold account) reads as 0.
func (r *room) balance(account string) int64 {
	r.t.Helper()
	code, raw := r.do("GET", "/v1/accounts/"+account+"/balance", r.cashier, nil)
	if code == http.StatusNotFound {
		return 0
	}
	if code != http.StatusOK {
		r.t.Fatalf("balance of %s: %d %s", account, code, raw)
	}
	var out struct {
		Balance int64 `json:"balance,string"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		r.t.Fatal(err)
	}
	return out.Balance
}

// checkChips proves that no chip was lost or doubled: every table's escrow
// in the wallet holds exactly the chips the table shows (stacks, queued
// top-ups and the pot of the hand in progress), nothing is left in a hold,
// and the chips in the players' wallets and on the tables add up to the
// deposits. Call it with no request in flight.
func (r *room) checkChips(when string) {
	r.t.Helper()
	msg, err := r.chipsConserved()
	if err != nil {
		r.t.Fatalf("%s: %v", when, err)
	}
	r.t.Logf("%s: %s", when, msg)
}

// chipsConserved is checkChips' proof, returned instead of failing the
// test: a test waiting for the suite to settle after faults asks until it
// holds.
func (r *room) chipsConserved() (string, error) {
	r.t.Helper()
	var wallets, tables int64
	for p := range r.tokens {
		wallets += r.balance("player:" + p + ":EUR")
	}
	for _, id := range r.tables {
		escrow := r.balance("table:" + id + ":EUR")
		if hold := r.balance("hold:" + id + ":EUR"); hold != 0 {
			return "", fmt.Errorf("%d chips left in table %s's hold account", hold, id)
		}
		st := r.state(id, r.floor)
		var shown int64
		for _, s := range st.Seats {
			shown += s.Stack + s.Pending
		}
		if st.live() {
			shown += st.Hand.Pot
		}
		if escrow != shown {
			return "", fmt.Errorf("table %s shows %d chips, its escrow in the wallet holds %d", id, shown, escrow)
		}
		tables += escrow
	}
	if wallets+tables != r.deposits {
		return "", fmt.Errorf("wallets %d + tables %d = %d, deposits %d", wallets, tables, wallets+tables, r.deposits)
	}
	return fmt.Sprintf("wallets %d + tables %d = deposits %d", wallets, tables, r.deposits), nil
}

// auditClean runs GET /v1/audit and asserts the books are clean: the
// ledger balances, and every table's escrow was reconciled with the chips
// the table service counts there, with no cash-out stuck.
func (r *room) auditClean(when string) {
	r.t.Helper()
	var out struct {
		Clean            bool
		Problems         []string
		TablesReconciled bool `json:"tables_reconciled"`
		Tables           []struct {
			TableID string `json:"table_id"`
			Matches bool
		}
		StuckCashOuts []any `json:"stuck_cash_outs"`
		Currencies    []struct {
			Currency string
			Debits   int64 `json:"debits,string"`
			Credits  int64 `json:"credits,string"`
			Balances int64 `json:"balances,string"`
		}
	}
	r.must("GET", "/v1/audit", r.cashier, nil, &out)
	if !out.Clean || len(out.Problems) > 0 || len(out.Currencies) != 1 || !out.TablesReconciled || len(out.StuckCashOuts) > 0 {
		r.t.Fatalf("%s: audit not clean: %+v", when, out)
	}
	// The cage's list agrees: no cash-out is stuck.
	var stuck struct {
		CashOuts []any `json:"cash_outs"`
	}
	r.must("GET", "/v1/stuck-cash-outs", r.cashier, nil, &stuck)
	if len(stuck.CashOuts) != 0 {
		r.t.Fatalf("%s: stuck cash-outs: %v", when, stuck.CashOuts)
	}
	reconciled := map[string]bool{}
	for _, tb := range out.Tables {
		reconciled[tb.TableID] = tb.Matches
	}
	for _, id := range r.tables {
		if open := !r.state(id, r.floor).Closed; open && !reconciled[id] {
			r.t.Fatalf("%s: the audit did not reconcile open table %s: %+v", when, id, out.Tables)
		}
	}
	if c := out.Currencies[0]; c.Currency != "EUR" || c.Debits != c.Credits || c.Balances != 0 || c.Debits == 0 {
		r.t.Fatalf("%s: audit sums %+v", when, c)
	}
}

// move is what a player does in turn.
type move struct {
	kind   string // ACTION_KIND_...
	amount int64
}

// plan decides a seat's move from its own view of the table (with the
// legal actions the service offers it).
type plan func(st tableState, seat int) move

func legalOf(st tableState, kind string) (legalAction, bool) {
	for _, l := range st.Hand.Legal {
		if l.Kind == kind {
			return l, true
		}
	}
	return legalAction{}, false
}

// checkDown calls any bet and otherwise checks: hands go to a showdown.
func checkDown(st tableState, _ int) move {
	if _, ok := legalOf(st, "ACTION_KIND_CHECK"); ok {
		return move{kind: "ACTION_KIND_CHECK"}
	}
	return move{kind: "ACTION_KIND_CALL"}
}

// shove puts every chip in: raise or bet the most, or call when that is
// all the seat can do.
func shove(st tableState, _ int) move {
	for _, k := range []string{"ACTION_KIND_RAISE", "ACTION_KIND_BET"} {
		if l, ok := legalOf(st, k); ok {
			return move{kind: k, amount: l.Max}
		}
	}
	return checkDown(st, 0)
}

// act plays one move for the player in turn, who reads the table first
// (their own view, with their legal actions) and names the sequence they
// acted on. It returns the table as that player sees it afterwards.
func (r *room) act(table string, p plan) tableState {
	r.t.Helper()
	st := r.waitHand(table)
	player := st.Seats[st.Hand.ToAct].PlayerID
	tok := r.tokens[player]
	own := r.state(table, tok)
	if own.ViewerSeat != st.Hand.ToAct || len(own.Hand.Legal) == 0 {
		r.t.Fatalf("%s in turn at seat %d sees seat %d, legal %v", player, st.Hand.ToAct, own.ViewerSeat, own.Hand.Legal)
	}
	m := p(own, own.ViewerSeat)
	r.actions++
	body := map[string]any{"kind": m.kind, "amount": m.amount, "expected_sequence": own.Sequence,
		"action_id": fmt.Sprintf("%s-%d", player, r.actions)}
	var out struct{ State tableState }
	r.must("POST", "/v1/tables/"+table+"/actions", tok, body, &out)
	return out.State
}

// waitHand waits for a hand to be under way at table (the next hand is
// dealt as soon as the last one ends unless the service pauses between
// hands) and returns the table as the floor sees it.
func (r *room) waitHand(table string) tableState {
	r.t.Helper()
	var st tableState
	waitFor(r.t, "a hand under way at "+table, 10*time.Second, func() bool {
		st = r.state(table, r.floor)
		return st.live() && st.Hand.ToAct >= 0
	})
	return st
}

// playHand plays the hand in progress at table to its end with p and
// returns its number.
func (r *room) playHand(table string, p plan) int64 {
	r.t.Helper()
	no := r.waitHand(table).Hand.HandNo
	for range 200 {
		st := r.act(table, p)
		if !st.live() || st.Hand.HandNo != no {
			return no
		}
	}
	r.t.Fatalf("hand %d at %s did not end after 200 actions", no, table)
	return 0
}

// history is a finished hand as the floor reads it: every card (TP-71).
// The API sends it typed, its int64 values as strings (issue 17).
type history struct {
	TableID string `json:"table_id"`
	HandNo  int64  `json:"hand_no,string"`
	Button  int    `json:"button"`
	Board   []string
	Seats   []struct {
		Seat   int
		Player string `json:"player_id"`
		Start  int64  `json:"start_stack,string"`
		Final  int64  `json:"final_stack,string"`
		Net    int64  `json:"net,string"`
		Cards  []string
		Folded bool
		Shown  bool
	}
	Pots []struct {
		Amount  int64 `json:"amount,string"`
		Winners []struct {
			Seat   int
			Amount int64 `json:"amount,string"`
		}
	}
	Events []historyEvent
}

type historyEvent struct {
	Kind   string
	Post   string
	Seat   int
	Amount int64 `json:"amount,string"`
	Cards  []string
	Rule   string
	AllIn  bool `json:"all_in"`
	Pot    int
}

// history reads a hand's history as the floor.
func (r *room) history(table string, hand int64) history {
	r.t.Helper()
	return r.historyAs(table, hand, r.floor)
}

// historyAs reads a hand's history as the holder of token may see it.
func (r *room) historyAs(table string, hand int64, token string) history {
	r.t.Helper()
	var out struct{ History history }
	r.must("GET", fmt.Sprintf("/v1/tables/%s/hands/%d", table, hand), token, nil, &out)
	h := out.History
	if h.HandNo != hand || h.TableID != table {
		r.t.Fatalf("asked for hand %d at %s, read %d at %s", hand, table, h.HandNo, h.TableID)
	}
	return h
}

// holeCards returns the hand's hole cards by seat, from the deal events.
func (h history) holeCards() map[int][]string {
	out := map[int][]string{}
	for _, e := range h.Events {
		if e.Kind == "deal_hole" {
			out[e.Seat] = append(out[e.Seat], e.Cards...)
		}
	}
	return out
}

// board returns the hand's community cards in the order dealt.
func (h history) board() []string {
	var out []string
	for _, e := range h.Events {
		if e.Kind == "deal_board" {
			out = append(out, e.Cards...)
		}
	}
	return out
}

// sidePots reports whether the hand had a side pot, and splitPot whether
// a pot was split between players.
func (h history) sidePots() bool { return len(h.Pots) > 1 }

func (h history) splitPot() bool {
	for _, p := range h.Pots {
		seats := map[int]bool{}
		for _, w := range p.Winners {
			seats[w.Seat] = true
		}
		if len(seats) > 1 {
			return true
		}
	}
	return false
}

func (h history) allIns() int {
	n := 0
	for _, e := range h.Events {
		if e.AllIn {
			n++
		}
	}
	return n
}

// watch collects a viewer's whole feed of a table (GET …:watch, newline-
// delimited JSON) until the test ends, reading as fast as the server
// writes so the viewer is never dropped for falling behind.
type watch struct {
	who   string
	mu    sync.Mutex
	lines [][]byte
	done  bool
	err   error
}

func (r *room) watch(table, who, token string) *watch {
	r.t.Helper()
	resp := r.open(r.t, "/v1/tables/"+table+":watch", token)
	if resp.StatusCode != http.StatusOK {
		r.t.Fatalf("watch %s as %s: %d", table, who, resp.StatusCode)
	}
	w := &watch{who: who}
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			w.mu.Lock()
			w.lines = append(w.lines, bytes.Clone(sc.Bytes()))
			w.mu.Unlock()
		}
		w.mu.Lock()
		w.done, w.err = true, sc.Err()
		w.mu.Unlock()
	}()
	return w
}

// watchLine is one message of the feed.
type watchLine struct {
	Result *struct {
		Events []watchEvent `json:"events"`
		State  tableState   `json:"state"`
	} `json:"result"`
	Error json.RawMessage `json:"error"`
}

// watchEvent is one event of a feed message; a tournament table's
// controls name the player, the rule and say what happened in words.
type watchEvent struct {
	Kind     string   `json:"kind"`
	Seat     int      `json:"seat"`
	Amount   int64    `json:"amount,string"`
	Cards    []string `json:"cards"`
	AllIn    bool     `json:"all_in"`
	PlayerID string   `json:"player_id"`
	Rule     string   `json:"rule"`
	Detail   string   `json:"detail"`
}

// until waits for the feed to reach sequence seq and returns its lines.
func (w *watch) until(t *testing.T, seq int64) []watchLine {
	t.Helper()
	var out []watchLine
	testkit.Eventually(t, 20*time.Second, func() error {
		w.mu.Lock()
		lines, done := w.lines, w.done
		w.mu.Unlock()
		out = out[:0]
		for _, raw := range lines {
			var l watchLine
			if err := json.Unmarshal(raw, &l); err != nil {
				t.Fatalf("%s's feed: %s: %v", w.who, raw, err)
			}
			if l.Result == nil {
				t.Fatalf("%s's feed ended with %s", w.who, raw)
			}
			out = append(out, l)
		}
		if n := len(out); n > 0 && out[n-1].Result.State.Sequence >= seq {
			return nil
		}
		if done {
			t.Fatalf("%s's feed stopped before sequence %d (%d lines)", w.who, seq, len(out))
		}
		return fmt.Errorf("%s's feed is before sequence %d (%d lines)", w.who, seq, len(out))
	})
	return out
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	testkit.Eventually(t, d, func() error {
		if !cond() {
			return errors.New(what)
		}
		return nil
	})
}

func join(ss []string) string { return strings.Join(ss, " ") }
