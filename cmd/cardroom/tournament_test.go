package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTournamentKnockoutsFromTables_TR37: a three-player freezeout is
// created, entered and started over REST on `cardroom all`; the
// tournament opens the draw's table and seats the drawn players with the
// starting stack itself (no floor step). Everyone moves all in every hand
// (seeded decks) until one player has every chip. The tournament hears each hand
// from the table (table.hand_ended) and places the busted players by
// itself — players out in the same hand by their starting stacks (TR-37) —
// and finishes the event with the last player first. No knock-out is
// reported by hand.
func TestTournamentKnockoutsFromTables_TR37(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	s := newSeededSuite(t, 20261130)
	s.start()
	players := []string{"ann", "bob", "cat"}
	r := newRoom(t, s, players...)
	for _, p := range players {
		r.deposit(p, 100000)
	}

	const stack = 1000
	var created struct {
		Tournament struct {
			ID string `json:"tournament_id"`
		}
	}
	r.must("POST", "/v1/tournaments", r.floor, map[string]any{"name": "Monday Turbo", "variant": "VARIANT_HOLDEM",
		"structure": "STRUCTURE_NO_LIMIT", "currency": "EUR", "buy_in": 5000, "fee": 500, "starting_stack": stack,
		"start_time": time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano)}, &created)
	id := created.Tournament.ID
	for _, p := range players {
		r.must("POST", "/v1/tournaments/"+id+"/entries", r.tokens[p], map[string]any{"player_id": p}, nil)
	}
	started := r.startTournament(id)
	if len(started.Seats) != len(players) {
		t.Fatalf("draw: %+v", started.Seats)
	}

	// The floor does nothing more: the tournament opened the draw's table
	// and seated everyone with the starting stack (TR-06, TR-08).
	tables := tournamentTablesOf(t, r, id)
	if len(tables) != 1 {
		t.Fatalf("tables opened for a three-player field: %v", tables)
	}
	table := tables[0]
	for _, st := range started.Seats {
		// The draw numbers seats from 1, the table from 0.
		seat := r.state(table, r.floor).Seats[st.Seat-1]
		if seat.PlayerID != st.PlayerID || seat.Stack+seat.Bet > stack {
			t.Fatalf("seat %d: %+v, drawn %s", st.Seat, seat, st.PlayerID)
		}
	}

	// Shove until one player holds every chip; the hand histories say who
	// went out in which hand with which starting stack.
	type out struct {
		player string
		hand   int64
		start  int64
	}
	var outs []out
	for hands := 0; ; hands++ {
		if hands == 50 {
			t.Fatalf("no winner after 50 all-in hands: %+v", r.state(table, r.floor).Seats)
		}
		alive := 0
		for _, seat := range r.state(table, r.floor).Seats {
			if seat.PlayerID != "" && seat.Stack > 0 {
				alive++
			}
		}
		if alive < 2 {
			break
		}
		no := r.playHand(table, shove)
		h := r.history(table, no)
		var busted []out
		for _, seat := range h.Seats {
			if seat.Start > 0 && seat.Final == 0 {
				busted = append(busted, out{player: seat.Player, hand: no, start: seat.Start})
			}
		}
		// TR-37: out in the same hand, the bigger starting stack finishes
		// higher, so it is placed later.
		slices.SortFunc(busted, func(a, b out) int { return cmp.Compare(a.start, b.start) })
		outs = append(outs, busted...)
	}
	// Places from the last: players out in the same hand with the same
	// starting stack share their places, Place the best of them.
	type place struct{ place, shared int }
	want := map[string]place{}
	left := len(players)
	for i := 0; i < len(outs); {
		j := i
		for j < len(outs) && outs[j].hand == outs[i].hand && outs[j].start == outs[i].start {
			j++
		}
		for _, o := range outs[i:j] {
			want[o.player] = place{left - (j - i) + 1, j - i}
			t.Logf("hand %d: %s out with a starting stack of %d", o.hand, o.player, o.start)
		}
		left -= j - i
		i = j
	}
	for _, p := range players {
		if _, ok := want[p]; !ok {
			want[p] = place{1, 1}
		}
	}
	if len(outs) != 2 {
		t.Fatalf("the seeded hands should knock out two players: %+v", outs)
	}

	var results struct {
		Finishes []struct {
			PlayerID string `json:"player_id"`
			Place    int    `json:"place"`
			Shared   int    `json:"shared"`
		}
	}
	waitFor(t, "the tournament to place every player", 10*time.Second, func() bool {
		r.must("GET", "/v1/tournaments/"+id+"/results", r.tokens["ann"], nil, &results)
		return len(results.Finishes) == len(players)
	})
	for _, f := range results.Finishes {
		if w := want[f.PlayerID]; f.Place != w.place || f.Shared != w.shared {
			t.Fatalf("results %+v, want places %v", results.Finishes, want)
		}
	}
	var got struct {
		Tournament struct {
			State string `json:"state"`
		}
	}
	// The event reads PAYING from the last knock-out until the winner's
	// prize is paid, then FINISHED.
	waitFor(t, "the tournament to pay its prize and finish", 10*time.Second, func() bool {
		r.must("GET", "/v1/tournaments/"+id, r.floor, nil, &got)
		return got.Tournament.State == "TOURNAMENT_STATE_FINISHED"
	})

	checkKnockoutTrace(t, s)

	m := s.scrape()
	checkCatalogue(t, m, "tournament")
	this := `cardroom_tournament_id="` + id + `"`
	if n, _ := m.sum("cardroom_tournament_entrants", this); n != float64(len(players)) {
		t.Errorf("cardroom_tournament_entrants{%s} = %v, want %d", this, n, len(players))
	}
	if n, _ := m.sum("cardroom_tournament_players_remaining", this); n > 1 {
		t.Errorf("cardroom_tournament_players_remaining{%s} = %v after the last knock-out", this, n)
	}
}

// drawn is a started tournament's seat draw.
type drawn struct {
	Seats []struct {
		PlayerID string `json:"player_id"`
		Table    int    `json:"table"`
		Seat     int    `json:"seat"`
	}
}

// startTournament starts a tournament whose registration is done, however
// long it took on a loaded machine: the admin brings the start forward to
// just ahead, and the test waits for it — the published start time (TR-04)
// is real time in the child. A start that is already past when the update
// arrives is refused; then the admin tries again a little further ahead.
func (r *room) startTournament(id string) drawn {
	r.t.Helper()
	admin := r.token("admin-1", "admin")
	var startAt time.Time
	for lead := 300 * time.Millisecond; ; lead *= 2 {
		startAt = time.Now().Add(lead).UTC()
		code, body := r.do("POST", "/v1/tournaments/"+id+":update", admin, map[string]any{
			"start_time": startAt.Format(time.RFC3339Nano), "reason": "field complete: start now"})
		if code == 200 {
			break
		}
		if lead > 10*time.Second {
			r.t.Fatalf("moving the start forward: %d %s", code, body)
		}
	}
	time.Sleep(time.Until(startAt)) // the child's clock is real time: waiting for the published start
	var started drawn
	r.must("POST", "/v1/tournaments/"+id+":start", r.floor, map[string]any{}, &started)
	return started
}

// checkKnockoutTrace: a knock-out is one story in the traces. The player's
// last action of a hand (a REST request) ends the hand; the table's outbox
// publishes table.hand_ended in that request's trace, and the tournament's
// consumer, which places the busted players, continues it: the consume
// span and the tournament's SQL under it share the action's trace.
func checkKnockoutTrace(t *testing.T, s *suite) {
	t.Helper()
	// The spans of the last hand are written in batches: wait for them.
	var found string
	var last error
	waitFor(t, "the knock-out's trace", 20*time.Second, func() bool {
		found, last = knockoutTrace(s.readSpans())
		return last == nil
	})
	t.Log(found)
}

// knockoutTrace finds a consumed table.hand_ended in the trace of the
// player action that ended the hand, with the consumer's SQL under it.
func knockoutTrace(spans []span) (string, error) {
	byID := map[string]span{}
	for _, sp := range spans {
		byID[sp.SpanContext.SpanID] = sp
	}
	for _, consume := range spans {
		if consume.Name != "consume table.hand_ended" {
			continue
		}
		var chain []string
		sp, ok := consume, true
		for ; ok && strings.Trim(sp.Parent.SpanID, "0") != ""; sp, ok = byID[sp.Parent.SpanID] {
			chain = append(chain, sp.Name)
		}
		if !ok || sp.Name != "POST /v1/tables/{table_id}/actions" {
			continue // a hand ended by the clock, or its request's spans are not all in yet
		}
		sql := 0
		for _, other := range spans {
			if other.SpanContext.TraceID == consume.SpanContext.TraceID && isSQLSpan(other) {
				for p, ok := byID[other.Parent.SpanID]; ok; p, ok = byID[p.Parent.SpanID] {
					if p.SpanContext.SpanID == consume.SpanContext.SpanID {
						sql++
						break
					}
				}
			}
		}
		if sql == 0 {
			return "", fmt.Errorf("the tournament's consumer wrote no SQL under its span in trace %s", consume.SpanContext.TraceID)
		}
		return fmt.Sprintf("knock-out trace %s: %s ← %s (%d SQL spans under the consumer)", consume.SpanContext.TraceID, sp.Name,
			strings.Join(chain, " ← "), sql), nil
	}
	return "", errors.New("no table.hand_ended consumed in the trace of the player action that ended the hand")
}

// tournamentTablesOf returns the tables the tournament opened for event
// id, in its table order, as its audit records them.
func tournamentTablesOf(t *testing.T, r *room, id string) []string {
	t.Helper()
	var audit struct {
		Records []struct {
			Action string `json:"action"`
			Detail string `json:"detail_json"`
		}
	}
	r.must("GET", "/v1/tournaments/"+id+"/audit", r.floor, nil, &audit)
	var out []string
	for _, rec := range audit.Records {
		if rec.Action != "open_table" {
			continue
		}
		var d struct {
			TableID string `json:"table_id"`
		}
		if err := json.Unmarshal([]byte(rec.Detail), &d); err != nil {
			t.Fatal(err)
		}
		out = append(out, d.TableID)
	}
	return out
}
