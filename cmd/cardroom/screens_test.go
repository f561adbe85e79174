package main

// The room's screens (issue 11), proved in a real browser: headless
// Chromium loads each screen from a running suite's gateway, signs in with
// a token through the page's own form and uses the public REST API and its
// feeds as any app does.

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestScreens runs each screen against one suite and one browser.
func TestScreens(t *testing.T) {
	s := newSuite(t, "CARDROOM_TABLE_HAND_PAUSE=3s")
	s.start()
	b := newBrowser(t)
	t.Run("table", func(t *testing.T) { screenTable(t, s, b) })
	t.Run("floor", func(t *testing.T) { screenFloor(t, s, b) })
	t.Run("clock", func(t *testing.T) { screenClock(t, s, b) })
	t.Run("board", func(t *testing.T) { screenBoard(t, s, b) })
}

// screenTable: two players play a hand to its showdown, each from their
// own browser (a desktop and a phone), by the buttons the table screen
// offers. Neither page ever holds the other's hole cards before that
// player shows them: not in any state of the DOM the page ever had, and
// not in anything the page received from the API.
func screenTable(t *testing.T, s *suite, b *browser) {
	r := newRoom(t, s, "ann", "bob")
	r.deposit("ann", 20000)
	r.deposit("bob", 20000)
	var created struct {
		Table struct {
			TableID string `json:"table_id"`
		}
	}
	r.must("POST", "/v1/tables", r.floor, map[string]any{"name": "Main 1", "seats": 6, "kind": "TABLE_KIND_CASH",
		"mode": "TABLE_MODE_DIGITAL", "game": nlhe50100, "action_seconds": 60}, &created)
	table := created.Table.TableID
	r.tables = append(r.tables, table)

	tabs := map[string]*tab{
		"ann": b.newTab(t, "ann", s.base, 1100, 1000),
		"bob": b.newTab(t, "bob", s.base, 412, 915), // a phone
	}
	for name, tb := range tabs {
		tb.open("/room/table.html?table="+table, r.tokens[name])
	}
	for i, p := range []string{"ann", "bob"} {
		r.must("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": i, "player_id": p, "amount": 10000, "post_now": true}, nil)
	}

	// Each decision is made on the page of the player in turn, with a
	// button the page offers for the state the floor sees now; then the
	// test waits for ann's page to show a later state of the table.
	var screenshotTaken bool
	seen := int64(-1)
	for {
		tabs["ann"].poll("a later state of the table", fmt.Sprintf(`Number(document.getElementById('screen').dataset.sequence || -1) > %d`, seen), 40*time.Second, "#screen")
		st := r.state(table, r.floor)
		if st.Hand != nil && (st.Hand.HandNo > 1 || st.Hand.Done) {
			break
		}
		seen = st.Sequence
		if !st.live() || st.Hand.ToAct < 0 {
			continue // the hand is dealt asynchronously: the page shows the deal
		}
		player := st.Seats[st.Hand.ToAct].PlayerID
		tb := tabs[player]
		tb.do("wait for the turn", chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#actions[data-key="%d"] button[data-action]`, st.Sequence))))
		offered := evaluate[[]string](tb, `[...document.querySelectorAll('#actions button[data-action]')].map((b) => b.dataset.action)`)
		if !screenshotTaken && player == "ann" && st.Hand.Street == "flop" {
			tabs["ann"].screenshot("table")
			screenshotTaken = true
		}
		choice := ""
		for _, want := range []string{"ACTION_KIND_CHECK", "ACTION_KIND_CALL", "ACTION_KIND_SHOW"} {
			if slices.Contains(offered, want) {
				choice = want
				break
			}
		}
		if choice == "" {
			t.Fatalf("%s's page offers %v", player, offered)
		}
		tb.do("act", chromedp.Click(chromedp.CSS(fmt.Sprintf(`#actions button[data-action="%s"]`, choice))))
	}
	for _, tb := range tabs {
		tb.waitText("#result", "won", 10*time.Second)
	}
	tabs["bob"].screenshot("table-phone")

	h := r.history(table, 1)
	hole := h.holeCards()
	seatOf := map[string]int{}
	for _, seat := range h.Seats {
		seatOf[seat.Player] = seat.Seat
	}
	showed := map[int]bool{}
	for _, e := range h.Events {
		if e.Kind == "show" || e.Kind == "expose" {
			showed[e.Seat] = true
		}
	}
	if len(showed) == 0 {
		t.Fatalf("hand 1 ended without a showdown: %+v", h.Events)
	}
	for name, tb := range tabs {
		other := "bob"
		if name == "bob" {
			other = "ann"
		}
		own, theirs := hole[seatOf[name]], hole[seatOf[other]]
		if len(own) != 2 || len(theirs) != 2 {
			t.Fatalf("hole cards %v", hole)
		}
		secret := handSecret{own: own, theirs: theirs, theirSeat: seatOf[other], theyShowed: showed[seatOf[other]]}
		secret.checkScreens(t, tb)
		secret.checkReceived(t, tb)
		tb.checkClean()
	}
	r.checkChips("after the hand played in the browsers")
}

var (
	cardCode   = regexp.MustCompile(`^[2-9TJQKA][cdhs]$`)
	cardSymbol = map[byte]string{'s': "♠", 'h': "♥", 'd': "♦", 'c': "♣"}
)

// cardTexts are the ways a page may show a card: its code in a data
// attribute and its rank and suit symbol in text.
func cardTexts(code string) []string {
	rank := code[:1]
	if rank == "T" {
		rank = "10"
	}
	return []string{`data-card="` + code + `"`, rank + cardSymbol[code[1]]}
}

func holds(html string, cards []string) bool {
	for _, c := range cards {
		for _, text := range cardTexts(c) {
			if strings.Contains(html, text) {
				return true
			}
		}
	}
	return false
}

// handSecret is what one player's page may know of hand 1: their own hole
// cards, and the other seat's only once that seat showed them.
type handSecret struct {
	own, theirs []string
	theirSeat   int
	theyShowed  bool
}

// checkScreens reads every state of the table screen the tab ever had
// while hand 1 was played and the first one after it: during the hand,
// the other seat's cards appear only where the screen marks that seat's
// hand shown; at its end, they appear exactly when that seat showed them;
// the player's own cards did appear.
func (hs handSecret) checkScreens(t *testing.T, tb *tab) {
	t.Helper()
	seatTag := regexp.MustCompile(fmt.Sprintf(`<article[^>]*data-seat="%d"[^>]*>`, hs.theirSeat))
	screens := tb.screens()
	last := -1
	var sawOwn int
	var finished []string
	for i, screen := range screens {
		if !strings.Contains(screen, `data-hand="1"`) {
			continue
		}
		if strings.Contains(screen, "Hand 1 · finished") {
			// The state after the hand's last action shows it done with its
			// result (TP-64): judged as the hand's end below.
			finished = append(finished, screen)
			continue
		}
		last = i
		if holds(screen, hs.own) {
			sawOwn++
		}
		if holds(screen, hs.theirs) && !strings.Contains(seatTag.FindString(screen), "data-shown") {
			t.Fatalf("%s: screen state %d shows the other seat's cards %v before they were shown:\n%s", tb.name, i, hs.theirs, screen)
		}
	}
	if sawOwn == 0 {
		t.Fatalf("%s: the page never showed the player's own cards %v", tb.name, hs.own)
	}
	for _, screen := range finished {
		if holds(screen, hs.theirs) && !hs.theyShowed {
			t.Fatalf("%s: the finished hand 1 shows the other seat's cards %v, which were never shown:\n%s", tb.name, hs.theirs, screen)
		}
	}
	// The hand's end: the first state after its play with its result,
	// the finished hand's own or the next one's.
	if last >= 0 && last+1 < len(screens) {
		finished = append(finished, screens[last+1])
	}
	i := slices.IndexFunc(finished, func(screen string) bool { return strings.Contains(screen, "<h2>Hand 1</h2>") })
	if last < 0 || i < 0 {
		t.Fatalf("%s: no screen state shows hand 1's result after its last (%d of %d)", tb.name, last, len(screens))
	}
	if end := finished[i]; holds(end, hs.theirs) != hs.theyShowed {
		t.Fatalf("%s: the other seat showed %v: %v; hand 1's result on the screen:\n%s", tb.name, hs.theirs, hs.theyShowed, end)
	}
	t.Logf("%s: %d screen states of hand 1 with the own cards; the other's cards shown at the end: %v", tb.name, sawOwn, hs.theyShowed)
}

// checkReceived reads everything the tab received from the API. On the
// table's feed, up to the line that ends hand 1, a line names the other
// seat's cards only if its state shows that seat's hand shown, or, on the
// line that ends the hand, if that seat showed them (then it must). Any
// other answer names them only with a state showing them, or showing hand
// 1 finished after that seat showed them.
func (hs handSecret) checkReceived(t *testing.T, tb *tab) {
	t.Helper()
	var messages, withOwn int
	for url, bodies := range tb.received() {
		feed := strings.Contains(url, ":watch")
		for _, body := range bodies {
			ended := false
			for _, line := range strings.Split(body, "\n") {
				if strings.TrimSpace(line) == "" || ended {
					continue
				}
				var msg any
				if err := json.Unmarshal([]byte(line), &msg); err != nil {
					t.Fatalf("%s: %s answered %q: %v", tb.name, url, line, err)
				}
				messages++
				cards := map[string]bool{}
				collectCards(msg, cards)
				if cards[hs.own[0]] && cards[hs.own[1]] {
					withOwn++
				}
				var view struct {
					State  *tableState
					Result *struct {
						Events []struct{ Kind string }
						State  *tableState
					}
				}
				if err := json.Unmarshal([]byte(line), &view); err != nil {
					t.Fatalf("%s: %s: %v", tb.name, url, err)
				}
				st := view.State
				if view.Result != nil {
					st = view.Result.State
					for _, e := range view.Result.Events {
						ended = ended || e.Kind == "hand_end"
					}
				}
				named := cards[hs.theirs[0]] || cards[hs.theirs[1]]
				shownNow := st != nil && st.Hand != nil && st.Hand.HandNo == 1 && hs.theirSeat < len(st.Seats) && st.Seats[hs.theirSeat].Shown
				finished := st != nil && st.Hand != nil && st.Hand.HandNo == 1 && st.Hand.Done
				switch {
				case feed && ended:
					if named != hs.theyShowed {
						t.Fatalf("%s: the line ending hand 1 names the other seat's cards %v: %v; they showed them: %v: %s", tb.name, hs.theirs, named, hs.theyShowed, line)
					}
				case finished:
					// The answer to the hand's last action shows it done with
					// its result (TP-64): the cards that seat showed, no others.
					if named && !hs.theyShowed {
						t.Fatalf("%s: %s's finished hand 1 names the other seat's cards %v, never shown: %s", tb.name, url, hs.theirs, line)
					}
				case named && !shownNow && (feed || st != nil && st.Hand != nil && st.Hand.HandNo == 1):
					t.Fatalf("%s: %s sent the other seat's cards %v before they were shown: %s", tb.name, url, hs.theirs, line)
				}
			}
		}
	}
	if messages == 0 || withOwn == 0 {
		t.Fatalf("%s: %d messages from the API, %d with the own cards %v", tb.name, messages, withOwn, hs.own)
	}
}

// collectCards gathers every string in a decoded JSON value that is a
// card code.
func collectCards(v any, into map[string]bool) {
	switch v := v.(type) {
	case string:
		if cardCode.MatchString(v) {
			into[v] = true
		}
	case []any:
		for _, x := range v {
			collectCards(x, into)
		}
	case map[string]any:
		for _, x := range v {
			collectCards(x, into)
		}
	}
}

// screenFloor: the floor opens a table from the console's form; the
// console lists it and the API has it as entered.
func screenFloor(t *testing.T, s *suite, b *browser) {
	floor := s.token("floor-eve", "floor")
	tb := b.newTab(t, "floor", s.base, 1280, 900)
	tb.open("/room/floor.html", floor)
	tb.do("fill in the form",
		chromedp.SetValue(chromedp.ID("ot-name"), "Omaha 4"),
		chromedp.SetValue(chromedp.ID("ot-variant"), "VARIANT_OMAHA"),
		chromedp.SetValue(chromedp.ID("ot-structure"), "STRUCTURE_POT_LIMIT"),
		chromedp.SetValue(chromedp.ID("ot-small"), "100"),
		chromedp.SetValue(chromedp.ID("ot-big"), "200"),
		chromedp.SetValue(chromedp.ID("ot-seats"), "6"),
		chromedp.Click(chromedp.CSS(`#open-table button[type="submit"]`)))
	tb.waitText("#status", "Omaha 4 is open", 10*time.Second)
	tb.waitText("#tables", "Omaha 4", 10*time.Second)
	tb.screenshot("floor")

	code, body := s.call("GET", "/v1/tables", floor, nil)
	if code != 200 {
		t.Fatalf("list tables: %d %v", code, body)
	}
	var found map[string]any
	for _, x := range body["tables"].([]any) {
		if tbl := x.(map[string]any); tbl["name"] == "Omaha 4" {
			found = tbl
		}
	}
	if found == nil {
		t.Fatalf("the API has no table Omaha 4: %v", body)
	}
	game := found["game"].(map[string]any)
	stakes := game["stakes"].(map[string]any)
	if game["variant"] != "VARIANT_OMAHA" || game["structure"] != "STRUCTURE_POT_LIMIT" || stakes["small_blind"] != "100" ||
		stakes["big_blind"] != "200" || found["seats"] != float64(6) || found["mode"] != "TABLE_MODE_DIGITAL" || found["closed"] != false {
		t.Fatalf("the table opened is not the one entered: %v", found)
	}
	tb.checkClean()
}

// showWithin is how soon a change of the tournament's clock (a pause, a
// new level, a break) must be on its screens (issue 11).
const showWithin = time.Second

// screenClock: the tournament clock, on a TV and on a phone, counts down
// to the start, follows the floor's start from the console, a pause and a
// resume, and the break that follows level 1 as time runs; each within a
// second. Level 1 lasts seconds so that the test sees it end.
func screenClock(t *testing.T, s *suite, b *browser) {
	r := newRoom(t, s, "dee", "eli")
	admin := s.token("admin-1", "admin")
	var created struct {
		Tournament struct {
			ID string `json:"tournament_id"`
		}
	}
	r.must("POST", "/v1/tournaments", r.floor, map[string]any{"name": "Friday Turbo", "variant": "VARIANT_HOLDEM",
		"structure": "STRUCTURE_NO_LIMIT", "currency": "EUR", "buy_in": 5000, "fee": 500, "starting_stack": 10000,
		"start_time": time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano),
		"levels": []map[string]any{
			{"small_blind": 50, "big_blind": 100, "duration": "15s"},
			{"break": true, "duration": "300s", "color_up": 25},
			{"small_blind": 100, "big_blind": 200, "ante": 200, "big_blind_ante": true, "duration": "900s"},
		}}, &created)
	id := created.Tournament.ID
	for _, p := range []string{"dee", "eli"} {
		r.deposit(p, 100000)
		r.must("POST", "/v1/tournaments/"+id+"/entries", r.tokens[p], map[string]any{"player_id": p}, nil)
	}

	wall := s.token("wall-2", "player")
	tv := b.newTab(t, "clock-tv", s.base, 1920, 1080)
	phone := b.newTab(t, "clock-phone", s.base, 412, 915)
	tv.openByKeyboard("/room/clock.html?tournament="+id, wall)
	phone.open("/room/clock.html?tournament="+id, wall)
	for _, tb := range []*tab{tv, phone} {
		tb.waitText("#face", "Friday Turbo", 10*time.Second)
		tb.waitText(`[data-stat="players"]`, "2 of 2", 10*time.Second)
	}
	for sel, want := range map[string]string{"#banner": "Starts at", "#level": "Level 1", "#blinds": "50/100",
		"#next": "Next level: 100/200 · BB ante 200", `[data-stat="average"]`: "10,000", `[data-stat="pool"]`: "100 EUR", "#payouts": "1st"} {
		if got := tv.text(sel); !strings.Contains(got, want) {
			t.Errorf("before the start, %s shows %q, want %q", sel, got, want)
		}
	}

	// The admin brings the start forward to just ahead (TR-04: the start
	// is real time in the suite); the clock counts down to it.
	for lead := 500 * time.Millisecond; ; lead *= 2 {
		code, body := r.do("POST", "/v1/tournaments/"+id+":update", admin, map[string]any{
			"start_time": time.Now().Add(lead).UTC().Format(time.RFC3339Nano), "reason": "field complete: start now"})
		if code == 200 {
			break
		}
		if lead > 10*time.Second {
			t.Fatalf("moving the start forward: %d %s", code, body)
		}
	}
	tv.poll("the clock says the start is due", `document.getElementById('face').dataset.due === 'true'`, 30*time.Second, "#starts")

	floor := b.newTab(t, "floor-clock", s.base, 1280, 900)
	floor.open("/room/floor.html", r.floor)
	floor.do("start the tournament", chromedp.Click(chromedp.CSS(`button[aria-label="Start Friday Turbo"]`)))
	floor.waitText("#status", "Friday Turbo has started", 10*time.Second)
	for _, tb := range []*tab{tv, phone} {
		tb.poll("level 1 running", `document.getElementById('face').dataset.state === 'running'`, showWithin, "#face")
		tb.waitText("#to-break", "Break in", showWithin)
	}
	tv.screenshot("clock")
	phone.screenshot("clock-phone")

	type clockView struct {
		Clock struct {
			Paused    bool
			Remaining string
		}
	}
	seconds := func(d string) time.Duration {
		v, err := time.ParseDuration(d)
		if err != nil {
			t.Fatalf("duration %q: %v", d, err)
		}
		return v
	}
	var paused clockView
	r.must("POST", "/v1/tournaments/"+id+"/clock:pause", r.floor, map[string]any{}, &paused)
	since := time.Now()
	tv.poll("the pause", `document.getElementById('face').dataset.paused === 'true'`, showWithin, "#face")
	t.Logf("the pause was on the TV %s after the floor's call returned", time.Since(since).Round(time.Millisecond))
	left := seconds(paused.Clock.Remaining)
	want := fmt.Sprintf("0:%02d", int((left+time.Second-1)/time.Second))
	if got := tv.text("#time"); got != want || !strings.Contains(tv.text("#banner"), "Paused") {
		t.Errorf("paused with %s left, the clock shows %q and %q, want %q", left, got, tv.text("#banner"), want)
	}

	before := time.Now()
	var resumed clockView
	r.must("POST", "/v1/tournaments/"+id+"/clock:resume", r.floor, map[string]any{}, &resumed)
	since = time.Now()
	tv.poll("the resume", `document.getElementById('face').dataset.paused === 'false'`, showWithin, "#face")
	t.Logf("the resume was on the TV %s after the floor's call returned", time.Since(since).Round(time.Millisecond))
	// The server read the time left between before and now: level 1
	// ends no earlier than before + that time.
	end := before.Add(seconds(resumed.Clock.Remaining))
	for _, tb := range []*tab{tv, phone} {
		tb.poll("the break", `document.getElementById('face').dataset.break === 'true'`, time.Until(end)+showWithin, "#level")
		if late := time.Since(end); late > showWithin {
			t.Errorf("%s: the break was on the screen %s after level 1 ended", tb.name, late.Round(time.Millisecond))
		} else {
			t.Logf("%s: the break was on the screen at most %s after level 1 ended", tb.name, late.Round(time.Millisecond))
		}
		tb.waitText("#level", "Break", showWithin)
		tb.waitText("#to-break", "On a break", showWithin)
		tb.checkClean()
	}
	floor.checkClean()
}

// screenBoard: the waitlist board on the wall shows a player joining the
// list from the lobby on their phone and then, once the floor opens a
// table and the player takes the seat offered, sitting at it — by their
// initials, never by their account id, in anything the wall's page
// showed or received.
func screenBoard(t *testing.T, s *suite, b *browser) {
	const player = "cat-lee"
	r := newRoom(t, s, player)
	r.deposit(player, 100000)
	game := map[string]any{"variant": "VARIANT_HOLDEM", "structure": "STRUCTURE_NO_LIMIT",
		"stakes": map[string]any{"small_blind": 200, "big_blind": 500}}
	var list struct {
		Waitlist struct {
			ID string `json:"waitlist_id"`
		}
	}
	r.must("POST", "/v1/waitlists", r.floor, map[string]any{"game": game}, &list)
	card := fmt.Sprintf(`[data-waitlist=%s]`, jsString(list.Waitlist.ID))

	wall := b.newTab(t, "board", s.base, 1920, 1080)
	wall.open("/room/board.html", s.token("wall-1", "player"))
	wall.waitText(card, "Nobody is waiting", 10*time.Second)

	lobby := b.newTab(t, "lobby", s.base, 412, 915)
	lobby.open("/room/lobby.html", r.tokens[player])
	join := `#waitlists button[aria-label="Join the list for NL Hold'em 2/5"]`
	lobby.do("join the list", chromedp.WaitVisible(chromedp.CSS(join)), chromedp.Click(chromedp.CSS(join)))
	lobby.waitText("#status", "You are on the list", 10*time.Second)
	wall.waitText(card+" ol.waiting", "C.L.", 10*time.Second)
	wall.waitText(card, "Waiting: 1", time.Second)

	var opened struct {
		Table struct {
			ID string `json:"table_id"`
		}
	}
	r.must("POST", "/v1/tables", r.floor, map[string]any{"name": "Main 2", "seats": 6, "kind": "TABLE_KIND_CASH",
		"mode": "TABLE_MODE_DIGITAL", "game": game}, &opened)
	r.tables = append(r.tables, opened.Table.ID)
	wall.waitText(card, "offered to C.L.", 20*time.Second)
	lobby.screenshot("lobby-phone")
	accept := `#offers button:not(.quiet)`
	lobby.do("accept the seat", chromedp.WaitVisible(chromedp.CSS(accept)), chromedp.Click(chromedp.CSS(accept)))
	lobby.poll("the buy-in range", `!!document.querySelector('#offers form input[type=number]') && document.querySelector('#offers form input[type=number]').value !== ''`, 10*time.Second, "#offers")
	// Seated, the lobby moves on to the table's screen; the board shows it.
	lobby.do("sit down", chromedp.Click(chromedp.CSS(`#offers form button[type="submit"]`)))

	row := card + fmt.Sprintf(` li[data-table=%s]`, jsString(opened.Table.ID))
	wall.waitText(row, "1/6 — C.L.", 10*time.Second)
	wall.waitText(card, "Nobody is waiting", 10*time.Second)
	wall.screenshot("board")

	for i, screen := range wall.screens() {
		if strings.Contains(screen, player) {
			t.Fatalf("the board showed the account id %q (screen state %d):\n%s", player, i, screen)
		}
	}
	var messages int
	for url, bodies := range wall.received() {
		for _, body := range bodies {
			messages++
			if strings.Contains(body, player) {
				t.Fatalf("the board received the account id %q from %s: %s", player, url, body)
			}
		}
	}
	if messages == 0 {
		t.Fatal("the board received nothing from the API")
	}
	wall.checkClean()
	lobby.checkClean()
	// The buy-in's hold is committed to the table's escrow after the
	// seat is taken: the books settle shortly after.
	waitFor(t, "the books to settle after the sit-down", 20*time.Second, func() bool { _, err := r.chipsConserved(); return err == nil })
	r.checkChips("after the player sat from the board")
}
