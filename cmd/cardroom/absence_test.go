package main

// Seating ↔ table over REST (issue 17, items 2 and 7): an absence recorded
// by seating takes effect at the table without a second call by the app,
// and the floor's release stands the player up and offers the seat.

import (
	"testing"
	"time"
)

// cashRoom is a room with one waitlist for NL Hold'em 50/100 and a table
// of seats for that game, the first players on the list seated through
// their offers with buyIn each. Everyone on players deposits deposit.
func cashRoom(t *testing.T, s *suite, seats int, buyIn, deposit int64, players ...string) (*room, string, string) {
	t.Helper()
	r := newRoom(t, s, players...)
	for _, p := range players {
		r.deposit(p, deposit)
	}
	var wl struct {
		Waitlist struct {
			ID string `json:"waitlist_id"`
		}
	}
	r.must("POST", "/v1/waitlists", r.floor, map[string]any{"game": nlhe50100}, &wl)
	for _, p := range players {
		r.must("POST", "/v1/waitlists/"+wl.Waitlist.ID+"/entries", r.floor, map[string]any{"player_id": p}, nil)
	}
	table := r.createTable("Absences", seats)
	for _, p := range players[:min(seats, len(players))] {
		offer, seat := r.acceptOffer(p, table)
		r.must("POST", "/v1/tables/"+table+"/seats", r.tokens[p],
			map[string]any{"seat": seat, "amount": buyIn, "offer_id": offer, "post_now": true}, nil)
	}
	r.checkChips("after the buy-ins")
	return r, wl.Waitlist.ID, table
}

// seatState returns the player's seat as the floor sees it, failing when they
// are not seated.
func (r *room) seatState(table, player string) seatState {
	r.t.Helper()
	st := r.state(table, r.floor)
	i := st.seatOf(player)
	if i < 0 {
		r.t.Fatalf("%s is not seated at %s", player, table)
	}
	return st.Seats[i]
}

// TestSeatingAbsenceAtTheTable_CS14_TP56_TP15_CS13: a player's long break
// recorded by seating alone sits their seat out at the table (TP-56: not
// dealt in, no blinds posted; in the hand they are in when they go, the
// house acts for the seat, G-43), coming back through seating deals them in
// again (TP-15/TP-18), and the floor's release of an overdue short
// absence stands the player up at the table, cashes them out and offers
// the seat to the next player on the list (CS-13), whose buy-in, retried
// with the same key, answers as the first time. The books balance after
// each step.
func TestSeatingAbsenceAtTheTable_CS14_TP56_TP15_CS13(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	s := newSeededSuite(t, 17, "CARDROOM_SEATING_SWEEP_INTERVAL=100ms")
	s.start()
	r, _, t1 := cashRoom(t, s, 3, 5000, 20000, "ada", "ben", "cy", "dot")
	r.playHand(t1, checkDown)

	// CS-14: cy takes the long break with one call to seating, in the
	// middle of a hand she is in: that hand does not wait for her — the
	// house acts for her seat (G-43), with no clock at this table.
	st := r.waitHand(t1)
	no, cySeat := st.Hand.HandNo, st.seatOf("cy")
	if !st.Seats[cySeat].InHand {
		t.Fatalf("cy is not in hand %d: %+v", no, st.Seats[cySeat])
	}
	r.must("POST", "/v1/seating/tables/"+t1+"/absences", r.tokens["cy"], map[string]any{"kind": "ABSENCE_KIND_LONG_BREAK"}, nil)
	waitFor(t, "cy sat out at the table", 10*time.Second, func() bool { return r.seatState(t1, "cy").SittingOut })
	for st := r.state(t1, r.floor); st.live() && st.Hand.HandNo == no; st = r.state(t1, r.floor) {
		if st.Hand.ToAct == cySeat {
			t.Fatalf("G-43: hand %d waits for cy, who is away: %+v", no, st.Hand)
		}
		r.act(t1, checkDown)
	}
	actedFor := false
	for _, e := range r.history(t1, no).Events {
		if e.Seat == cySeat && (e.Rule == "TP-59" || e.Kind == "muck") {
			t.Fatalf("G-43: cy's seat, away, was ruled %+v in hand %d", e, no)
		}
		actedFor = actedFor || (e.Seat == cySeat && e.Rule == "G-43")
	}
	if !actedFor {
		t.Fatalf("G-43: the house never acted for cy's seat in hand %d", no)
	}
	for range 3 {
		st := r.waitHand(t1)
		if cy := st.Seats[st.seatOf("cy")]; cy.InHand || cy.Bet > 0 {
			t.Fatalf("TP-56: cy, on the long break, is in hand %d: %+v", st.Hand.HandNo, cy)
		}
		r.playHand(t1, checkDown)
	}
	r.checkChips("cy away")

	// TP-15/TP-18: back through seating, cy is dealt in again (waiting for
	// the big blind: within one round of the button).
	r.must("DELETE", "/v1/seating/tables/"+t1+"/absences/cy", r.tokens["cy"], nil, nil)
	waitFor(t, "cy back at the table", 10*time.Second, func() bool { return !r.seatState(t1, "cy").SittingOut })
	r.playHand(t1, checkDown)
	dealt := false
	for range 4 {
		st := r.waitHand(t1)
		if st.Seats[st.seatOf("cy")].InHand {
			dealt = true
			break
		}
		r.playHand(t1, checkDown)
	}
	if !dealt {
		t.Fatal("TP-15/TP-18: cy, back from the break, was not dealt in within four hands")
	}
	r.playHand(t1, checkDown)
	r.checkChips("cy back")

	// CS-13: ben's short absence runs out; the floor releases the seat.
	r.must("POST", "/v1/seating/tables/"+t1+"/absences", r.floor,
		map[string]any{"player_id": "ben", "kind": "ABSENCE_KIND_SHORT", "limit": "60s"}, nil)
	waitFor(t, "ben sat out at the table", 10*time.Second, func() bool { return r.seatState(t1, "ben").SittingOut })
	r.playHand(t1, checkDown) // ben is out of the deal from the next hand
	waitFor(t, "ben's absence overdue", 90*time.Second, func() bool {
		var out struct {
			Absences []struct {
				PlayerID string `json:"player_id"`
			}
		}
		r.must("GET", "/v1/seating/absences?overdue_only=true", r.floor, nil, &out)
		return len(out.Absences) == 1 && out.Absences[0].PlayerID == "ben"
	})
	benSeat, wallet := r.seatState(t1, "ben"), r.balance("player:ben:EUR")
	r.must("POST", "/v1/seating/tables/"+t1+"/absences/ben:decide", r.floor,
		map[string]any{"release": true, "reason": "away past the limit"}, nil)
	waitFor(t, "ben stood up at the table", 10*time.Second, func() bool { return r.state(t1, r.floor).seatOf("ben") < 0 })
	if got := r.balance("player:ben:EUR") - wallet; got != benSeat.Stack+benSeat.Pending {
		t.Fatalf("CS-13: ben left a stack of %d and was paid %d", benSeat.Stack+benSeat.Pending, got)
	}
	// The seat goes to the next player on the list.
	offer, seat := r.acceptOffer("dot", t1)
	if seat != benSeat.Seat {
		t.Fatalf("CS-13: dot was offered seat %d, ben's seat was %d", seat, benSeat.Seat)
	}
	sit := map[string]any{"seat": seat, "amount": 5000, "offer_id": offer, "idempotency_key": "dot-sits"}
	type sat struct {
		Seat   seatState
		HoldID string `json:"hold_id"`
	}
	var first sat
	r.must("POST", "/v1/tables/"+t1+"/seats", r.tokens["dot"], sit, &first)
	dotWallet := r.balance("player:dot:EUR")
	// Issue 17 item 4: the identical retry of the player's buy-in (the
	// offer used up by the sit-down) gets the original answer every time.
	for i := range 2 {
		var again sat
		r.must("POST", "/v1/tables/"+t1+"/seats", r.tokens["dot"], sit, &again)
		if again.HoldID != first.HoldID || again.Seat.PlayerID != "dot" || again.Seat.Seat != first.Seat.Seat || again.Seat.Stack != first.Seat.Stack {
			t.Fatalf("retry %d of dot's buy-in answered %+v, the buy-in %+v", i+1, again, first)
		}
	}
	if first.Seat.PlayerID != "dot" || r.balance("player:dot:EUR") != dotWallet || dotWallet != 20000-5000 {
		t.Fatalf("dot's buy-in %+v and retries left %d in the wallet", first, r.balance("player:dot:EUR"))
	}
	r.checkChips("ben released, dot seated")
	r.auditClean("after the absences")
}

// TestSeatOffersAcrossGames_G21: a player seated in one game is not
// offered seats in another (they keep their place on its list), and
// accepting one game's offer withdraws the player's pending offer in the
// other game at once, which goes to the next player there; the withdrawn
// offer can no longer be accepted (409, G-21).
func TestSeatOffersAcrossGames_G21(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	s := newSeededSuite(t, 21)
	s.start()
	r := newRoom(t, s, "p9", "p12", "p13", "p14")
	for p := range r.tokens {
		r.deposit(p, 20000)
	}
	plo := map[string]any{"variant": "VARIANT_OMAHA", "structure": "STRUCTURE_POT_LIMIT",
		"stakes": map[string]any{"small_blind": 50, "big_blind": 100}}
	lists := map[string]string{}
	for name, game := range map[string]map[string]any{"A": nlhe50100, "B": plo} {
		var wl struct {
			Waitlist struct {
				ID string `json:"waitlist_id"`
			}
		}
		r.must("POST", "/v1/waitlists", r.floor, map[string]any{"game": game}, &wl)
		lists[name] = wl.Waitlist.ID
	}
	join := func(list string, players ...string) {
		for _, p := range players {
			r.must("POST", "/v1/waitlists/"+list+"/entries", r.floor, map[string]any{"player_id": p}, nil)
		}
	}
	join(lists["A"], "p9", "p12")
	join(lists["B"], "p9", "p12", "p13", "p14")
	a1 := r.createTable("A1", 2)
	offer, seat := r.acceptOffer("p9", a1)
	r.must("POST", "/v1/tables/"+a1+"/seats", r.tokens["p9"], map[string]any{"seat": seat, "amount": 5000, "offer_id": offer}, nil)

	var b1 struct {
		Table struct {
			TableID string `json:"table_id"`
		}
	}
	r.must("POST", "/v1/tables", r.floor, map[string]any{"name": "B1", "seats": 2, "kind": "TABLE_KIND_CASH",
		"mode": "TABLE_MODE_DIGITAL", "game": plo}, &b1)
	r.tables = append(r.tables, b1.Table.TableID)
	type offerView struct {
		ID      string `json:"offer_id"`
		TableID string `json:"table_id"`
		State   string `json:"state"`
	}
	offersOf := func(player string) map[string]offerView {
		var out struct{ Offers []offerView }
		r.must("GET", "/v1/seat-offers", r.tokens[player], nil, &out)
		m := map[string]offerView{}
		for _, o := range out.Offers {
			m[o.TableID] = o
		}
		return m
	}
	// B1's two seats go to p12 and p13; p9, first on B's list but seated
	// in game A, is passed over.
	waitFor(t, "B1's seats offered", 20*time.Second, func() bool {
		return offersOf("p12")[b1.Table.TableID].State == "OFFER_STATE_PENDING" && offersOf("p13")[b1.Table.TableID].State == "OFFER_STATE_PENDING"
	})
	if o, ok := offersOf("p9")[b1.Table.TableID]; ok {
		t.Fatalf("G-21: p9, seated in game A, was offered a seat at B1: %+v", o)
	}
	// p12 holds offers in both games and accepts A's: B's is withdrawn and
	// goes to p14.
	inA, inB := offersOf("p12")[a1], offersOf("p12")[b1.Table.TableID]
	if inA.State != "OFFER_STATE_PENDING" {
		t.Fatalf("p12's offer at A1: %+v", inA)
	}
	r.must("POST", "/v1/seat-offers/"+inA.ID+":accept", r.tokens["p12"], map[string]any{}, nil)
	if o, ok := offersOf("p12")[b1.Table.TableID]; ok {
		t.Fatalf("G-21: p12 accepted a seat in game A and still holds B's offer: %+v", o)
	}
	waitFor(t, "p12's B1 seat offered to p14", 20*time.Second, func() bool {
		return offersOf("p14")[b1.Table.TableID].State == "OFFER_STATE_PENDING"
	})
	code, e := r.refused("POST", "/v1/seat-offers/"+inB.ID+":accept", r.tokens["p12"], map[string]any{})
	if code != 409 || e.RuleID != "G-21" || e.Reason != "OFFER_CLOSED" {
		t.Fatalf("G-21: p12 accepting the withdrawn B offer: %d %+v", code, e)
	}
	r.checkChips("after the offers")
	r.auditClean("after the offers")
}

// TestExpiredSeatOfferSaysSo_G21: a seat offer whose time ran out answers
// an accept or a decline with 409 OFFER_EXPIRED citing G-21 and the time
// it expired (it used to answer OFFER_CLOSED, which does not say why);
// the player keeps their place on the list (the house default) and the
// seat is not offered to them again.
func TestExpiredSeatOfferSaysSo_G21(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	s := newSeededSuite(t, 23, "CARDROOM_SEATING_SWEEP_INTERVAL=100ms")
	s.start()
	r := newRoom(t, s, "eve")
	var wl struct {
		Waitlist struct {
			ID     string `json:"waitlist_id"`
			Policy map[string]any
		}
	}
	r.must("POST", "/v1/waitlists", r.floor, map[string]any{"game": nlhe50100}, &wl)
	policy := wl.Waitlist.Policy
	policy["offer_timeout"] = "10s" // the shortest the house allows
	r.must("PUT", "/v1/waitlists/"+wl.Waitlist.ID+"/policy", r.floor, policy, nil)
	r.must("POST", "/v1/waitlists/"+wl.Waitlist.ID+"/entries", r.floor, map[string]any{"player_id": "eve"}, nil)
	table := r.createTable("Expiry", 2)

	type offerView struct {
		ID      string `json:"offer_id"`
		TableID string `json:"table_id"`
		State   string `json:"state"`
	}
	offer := func() (offerView, bool) {
		var out struct{ Offers []offerView }
		r.must("GET", "/v1/seat-offers", r.tokens["eve"], nil, &out)
		for _, o := range out.Offers {
			if o.TableID == table {
				return o, true
			}
		}
		return offerView{}, false
	}
	var got offerView
	waitFor(t, "eve's seat offer", 20*time.Second, func() bool {
		o, ok := offer()
		got = o
		return ok && o.State == "OFFER_STATE_PENDING"
	})
	waitFor(t, "eve's offer expired", 60*time.Second, func() bool {
		_, open := offer()
		return !open
	})
	for _, answer := range []string{":accept", ":decline"} {
		code, e := r.refused("POST", "/v1/seat-offers/"+got.ID+answer, r.tokens["eve"], map[string]any{})
		if code != 409 || e.Reason != "OFFER_EXPIRED" || e.RuleID != "G-21" || e.Metadata["expire_time"] == "" {
			t.Fatalf("G-21: eve's %s of her expired offer: %d %+v, want 409 OFFER_EXPIRED with the time", answer, code, e)
		}
	}
	var list struct {
		Board struct {
			Entries []struct {
				PlayerID string `json:"player_id"`
			}
		}
	}
	r.must("GET", "/v1/waitlists/"+wl.Waitlist.ID, r.floor, nil, &list)
	if len(list.Board.Entries) != 1 || list.Board.Entries[0].PlayerID != "eve" {
		t.Fatalf("G-21: eve's place after her offer expired: %+v", list.Board.Entries)
	}
	if o, open := offer(); open {
		t.Fatalf("G-21: the seat eve let expire was offered to her again: %+v", o)
	}
}
