package main

// Issue 17: a limit hold'em hand with a dead small blind exported as PHH
// over REST, the way an app or an auditor asks for it.

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/cardroom/cardroom/services/table/phh"
)

// TestLimitHoldemDeadSmallBlindExportsPHH_TP18 plays limit hold'em at
// 5/10 over REST. cat sits out after her big blind, so the small blind
// passes her seat and she owes it alone; back with post_now she posts it
// dead (TP-18), calls to the showdown and loses. That hand's PHH — the
// floor's copy and every player's — is served (it used to be refused 400
// PHH_UNSUPPORTED), her dead small blind is her ante, and the floor's file
// replays to the finishing stacks the table paid out, the dead chips in the
// winner's pot. The chips and the books reconcile afterwards.
func TestLimitHoldemDeadSmallBlindExportsPHH_TP18(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	players := []string{"ann", "bob", "cat", "dan"}
	r := newFrontendRoom(t, players...)
	table := r.openTable("Limit 5/10", 5, 10, map[string]any{"game": map[string]any{"variant": "VARIANT_HOLDEM",
		"structure": "STRUCTURE_FIXED_LIMIT", "stakes": map[string]any{"small_blind": 5, "big_blind": 10, "small_bet": 10, "big_bet": 20}}})["table_id"].(string)
	for i, p := range players {
		r.must("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": i, "player_id": p, "amount": 1000}, nil)
	}
	seat := fmt.Sprintf("/v1/tables/%s/seats/%d", table, 2)

	type post struct {
		Kind, Post, Rule string
		Seat             int
		Dead             bool
		Amount           int64 `json:"amount,string"`
	}
	type handDoc struct {
		History struct {
			Seats []struct {
				Seat   int
				Folded bool
				Shown  bool
				Net    int64 `json:"net,string"`
			}
			Pots []struct {
				Winners []struct{ Seat int }
			}
			Events []post
		}
	}
	read := func(no int64) handDoc {
		var doc handDoc
		r.must("GET", fmt.Sprintf("/v1/tables/%s/hands/%d", table, no), r.floor, nil, &doc)
		return doc
	}
	owes := func() (sb, bb bool) {
		var raw struct {
			State struct {
				Seats []struct {
					PlayerID string `json:"player_id"`
					OwesSB   bool   `json:"owes_small_blind"`
					OwesBB   bool   `json:"owes_big_blind"`
				}
			}
		}
		r.must("GET", "/v1/tables/"+table+"/state", r.floor, nil, &raw)
		for _, s := range raw.State.Seats {
			if s.PlayerID == "cat" {
				return s.OwesSB, s.OwesBB
			}
		}
		t.Fatal("cat is not seated")
		return false, false
	}

	// cat sits out during a hand in which she is the big blind: the next
	// hand's small blind is hers, and she misses it alone (TP-18).
	for hands := 0; ; hands++ {
		if hands == 8 {
			t.Fatal("cat was not the big blind within eight hands")
		}
		st := r.waitHand(table)
		if c := st.Seats[st.seatOf("cat")]; c.InHand && c.Bet == 10 {
			r.must("POST", seat+":sit-out", r.tokens["cat"], map[string]any{}, nil)
			r.playHand(table, checkDown)
			break
		}
		r.playHand(table, checkDown)
	}
	r.playHand(table, checkDown) // the hand whose small blind cat misses
	if sb, bb := owes(); !sb || bb {
		t.Fatalf("TP-18: after the small blind passed her, cat owes small blind %v, big blind %v; want the small blind alone", sb, bb)
	}
	r.must("POST", seat+":return", r.tokens["cat"], map[string]any{"post_now": true}, nil)

	for range 4 {
		no := r.playHand(table, checkDown)
		doc := read(no)
		var got []string
		for _, e := range doc.History.Events {
			if e.Kind == "post" && e.Seat == 2 {
				got = append(got, fmt.Sprintf("%s/%s/dead=%v/%d", e.Post, e.Rule, e.Dead, e.Amount))
			}
		}
		if len(got) == 0 {
			continue // she waits for the button to pass (TP-17)
		}
		if want := []string{"dead_small_blind/TP-18/dead=true/5"}; !slices.Equal(got, want) {
			t.Fatalf("TP-18: cat's posts in hand %d: %v, want %v", no, got, want)
		}
		// The case that used to be refused: the poster at the showdown,
		// losing, so that a dead chip counted as her own contribution
		// would have come back to her.
		for _, p := range doc.History.Pots {
			for _, w := range p.Winners {
				if w.Seat == 2 {
					t.Fatalf("hand %d: cat won a pot; the test needs a hand she loses at the showdown (change the seed)", no)
				}
			}
		}
		for _, s := range doc.History.Seats {
			if s.Seat == 2 && s.Folded {
				t.Fatalf("hand %d: cat folded; the test needs her at the showdown", no)
			}
		}

		h := r.replayPHH(table, no, players)
		var antes []string
		for i, a := range h.Antes {
			if a.Value() != 0 {
				antes = append(antes, h.Players[i]+" "+a.String())
			}
		}
		if !slices.Equal(antes, []string{"cat 5"}) {
			t.Fatalf("hand %d: antes %v, want cat's dead small blind of 5 alone", no, antes)
		}
		r.checkChips("after the dead small blind hand")
		r.auditClean("after the dead small blind hand")
		return
	}
	t.Fatal("TP-18: cat came back with post_now and posted no dead small blind within four hands")
}

// replayPHH fetches hand no's PHH as the floor and as each player (every
// copy must be served), replays the floor's file with the PHH replayer and
// fails the test unless it ends with the finishing stacks the table paid.
// It returns the floor's file, parsed.
func (r *room) replayPHH(table string, no int64, players []string) *phh.History {
	r.t.Helper()
	path := fmt.Sprintf("/v1/tables/%s/hands/%d?format=HISTORY_FORMAT_PHH", table, no)
	for _, who := range append([]string{"floor"}, players...) {
		token := r.floor
		if who != "floor" {
			token = r.tokens[who]
		}
		if code, body := r.do("GET", path, token, nil); code != http.StatusOK {
			r.t.Fatalf("%s's PHH of hand %d: %d %s, want 200", who, no, code, body)
		}
	}
	var ph struct{ Content string }
	r.must("GET", path, r.floor, nil, &ph)
	h, err := phh.Parse(strings.NewReader(ph.Content))
	if err != nil {
		r.t.Fatalf("hand %d: parse the PHH: %v\n%s", no, err, ph.Content)
	}
	line := phh.Replay(strings.NewReader(ph.Content), "hand")
	if line.Err != nil || line.Reject != nil || numbers(line.Stacks) != numbers(h.FinishingStacks) {
		r.t.Fatalf("hand %d: the PHH replays to %s, the table paid %s\n%s", no, line, numbers(h.FinishingStacks), ph.Content)
	}
	return h
}

// numbers writes a list of PHH numbers as "[a, b, …]".
func numbers(ns []phh.Number) string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.String()
	}
	return "[" + strings.Join(out, ", ") + "]"
}
