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
	// button the page offers for the state the floor sees now.
	var screenshotTaken bool
	deadline := time.Now().Add(40 * time.Second)
	for {
		st := r.state(table, r.floor)
		if st.Hand != nil && (st.Hand.HandNo > 1 || st.Hand.Done) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("hand 1 not over within 40s: %+v", st.Hand)
		}
		if !st.live() || st.Hand.ToAct < 0 {
			time.Sleep(30 * time.Millisecond) // the hand is dealt asynchronously
			continue
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
		waitFor(t, "the action applied", 10*time.Second, func() bool { return r.state(table, r.floor).Sequence > st.Sequence })
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
	for i, screen := range screens {
		if !strings.Contains(screen, `data-hand="1"`) {
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
	if last < 0 || last+1 >= len(screens) || !strings.Contains(screens[last+1], "<h2>Hand 1</h2>") {
		t.Fatalf("%s: no screen state shows hand 1's result after its last (%d of %d)", tb.name, last, len(screens))
	}
	if end := screens[last+1]; holds(end, hs.theirs) != hs.theyShowed {
		t.Fatalf("%s: the other seat showed %v: %v; hand 1's result on the screen:\n%s", tb.name, hs.theirs, hs.theyShowed, end)
	}
	t.Logf("%s: %d screen states of hand 1 with the own cards; the other's cards shown at the end: %v", tb.name, sawOwn, hs.theyShowed)
}

// checkReceived reads everything the tab received from the API. On the
// table's feed, up to the line that ends hand 1, a line names the other
// seat's cards only if its state shows that seat's hand shown, or, on the
// line that ends the hand, if that seat showed them (then it must). Any
// other answer names them only with a state showing them.
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
				switch {
				case feed && ended:
					if named != hs.theyShowed {
						t.Fatalf("%s: the line ending hand 1 names the other seat's cards %v: %v; they showed them: %v: %s", tb.name, hs.theirs, named, hs.theyShowed, line)
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
