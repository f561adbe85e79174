package table_test

import (
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	seatingv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/seating/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"github.com/cardroom/cardroom/services/table"
)

// seatedEvents returns the table.player_seated events written for table
// id, in commit order.
func (e *env) seatedEvents(id string) []*tablev1.PlayerSeated {
	e.t.Helper()
	var out []*tablev1.PlayerSeated
	for _, r := range e.outbox(id) {
		if r.topic != "table.player_seated" {
			continue
		}
		m := &tablev1.PlayerSeated{}
		if err := proto.Unmarshal(r.payload, m); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// pendingMoves counts the wallet steps of table id still to finish.
func (e *env) pendingMoves(id string) int {
	e.t.Helper()
	var n int
	if err := e.db.SQL().QueryRowContext(e.t.Context(), `SELECT COUNT(*) FROM money_moves WHERE table_id = $1 AND NOT done`, id).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// storeAsTwoStep makes the waiting one-step sit-down of player at table
// id (under key) what the version before the one-step sit-down stored: a
// hold taken at the wallet, the step naming it. It returns the hold.
func (e *env) storeAsTwoStep(w *fakeWallet, id, player, key string, amount int64) string {
	e.t.Helper()
	w.mu.Lock()
	epoch := w.epoch[id]
	w.mu.Unlock()
	hold, err := w.HoldBuyIn(e.t.Context(), &walletv1.HoldBuyInRequest{IdempotencyKey: key + "/hold", TableId: id,
		Epoch: epoch, PlayerId: player, Amount: amount})
	if err != nil {
		e.t.Fatal(err)
	}
	h := hold.GetHold().GetHoldId()
	res, err := e.db.SQL().ExecContext(e.t.Context(), `UPDATE money_moves SET hold_id = $1, sitting_id = '' WHERE table_id = $2 AND player_id = $3 AND NOT done`,
		h, id, player)
	if n, _ := res.RowsAffected(); err != nil || n != 1 {
		e.t.Fatalf("store %s's step as the older version did: %d rows, %v", player, n, err)
	}
	return h
}

// cashTable starts a table service on db with a fake wallet holding
// balances, and opens a six-seat cash table on it (decks seeded by seed).
func cashTable(t *testing.T, db *sqlstore.DB, seed uint64, balances map[string]int64) (*env, *fakeWallet, string) {
	t.Helper()
	w := newFakeWallet(balances)
	e := start(t, db, clock.NewFake(t0), seededDecks(seed), table.Deps{Wallet: w})
	return e, w, e.open(6, -1)
}

// with changes the fake wallet's behaviour under its lock.
func (w *fakeWallet) with(change func(*fakeWallet)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	change(w)
}

// sitUnanswered asks for the sit-down req as the floor and expects no
// answer from the wallet (Unavailable): the seat waits, stored unpaid.
func (e *env) sitUnanswered(req *tablev1.SitRequest) {
	e.t.Helper()
	if _, err := e.c.Sit(e.floor(), req); status.Code(err) != codes.Unavailable {
		e.t.Fatalf("sit %s without the wallet's answer: %v, want Unavailable", req.GetPlayerId(), err)
	}
}

// offerFor gives player an accepted seating offer for seat at table id.
func offerFor(s *fakeSeating, offer, id string, seat int32, player string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.offers = append(s.offers, &seatingv1.Offer{OfferId: offer, TableId: id, Seat: seat, PlayerId: player,
		State: seatingv1.OfferState_OFFER_STATE_ACCEPTED})
}

// TestSitDown_RefusedIsNeverAnnounced_CS01: a sit-down the wallet refuses
// (CS-01, not enough money) takes its seat back and moves nothing, and
// seating never hears of the seat: no table.player_seated is written, so
// the offer it was taken through is not used up. The client hears the
// wallet's rule, and so does a retry under the same key.
func TestSitDown_RefusedIsNeverAnnounced_CS01(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, table.DBOptions(), func(t *testing.T, db *sqlstore.DB) {
		w := newFakeWallet(map[string]int64{"ann": 150})
		seating := &fakeSeating{}
		e := start(t, db, clock.NewFake(t0), seededDecks(31), table.Deps{Wallet: w, Seating: seating})
		id := e.open(6, -1)
		offerFor(seating, "w.1", id, 3, "ann")
		req := &tablev1.SitRequest{TableId: id, Seat: 3, Amount: 200, OfferId: "w.1", IdempotencyKey: "ann-sits"}
		_, err := e.c.Sit(e.player("ann"), req)
		if r, rule := reason(err); status.Code(err) != codes.FailedPrecondition || r != "INSUFFICIENT_FUNDS" || rule != "CS-01" {
			t.Fatalf("sit without the money: %v, want CS-01 INSUFFICIENT_FUNDS", err)
		}
		if s := e.state(id, "ann").GetSeats()[3]; s.GetPlayerId() != "" {
			t.Fatalf("the refused seat is taken: %v", s)
		}
		if got := e.seatedEvents(id); len(got) != 0 {
			t.Fatalf("a refused sit-down announced %v", got)
		}
		if n := e.pendingMoves(id); n != 0 {
			t.Fatalf("%d wallet steps pending after the refusal, want none", n)
		}
		if bal, escrow := w.totals(); bal != 150 || escrow != 0 {
			t.Fatalf("after the refusal: wallets %d, escrow %d, want 150 and 0", bal, escrow)
		}
		_, err = e.c.Sit(e.player("ann"), req)
		if r, rule := reason(err); status.Code(err) != codes.FailedPrecondition || r != "INSUFFICIENT_FUNDS" || rule != "CS-01" {
			t.Fatalf("the retry of the refused sit-down: %v, want CS-01 INSUFFICIENT_FUNDS again", err)
		}
	})
}

// TestSitDown_RetryHearsARefusalMadeInTheBackground_CS01: a sit-down
// whose first answer was lost (the wallet down) is refused once the
// wallet is back (CS-01), by the process that takes the table over; the
// client's retry under the same key hears that refusal — the rule and
// reason the wallet gave — not merely that the buy-in was undone, and the
// seat is free with nothing moved.
func TestSitDown_RetryHearsARefusalMadeInTheBackground_CS01(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, table.DBOptions(), func(t *testing.T, db *sqlstore.DB) {
		e, w, id := cashTable(t, db, 35, map[string]int64{"ann": 150})
		w.with(func(w *fakeWallet) { w.sitDownDown = true })
		req := &tablev1.SitRequest{TableId: id, Seat: 2, PlayerId: "ann", Amount: 200, IdempotencyKey: "ann-short"}
		e.sitUnanswered(req)
		w.with(func(w *fakeWallet) { w.sitDownDown = false })
		e2 := start(t, db, clock.NewFake(t0), seededDecks(35), table.Deps{Wallet: w})
		if s := e2.state(id, "ann").GetSeats()[2]; s.GetPlayerId() != "" {
			t.Fatalf("seat 2 after the wallet refused its buy-in: %v, want it free", s)
		}
		_, err := e2.c.Sit(e2.floor(), req)
		if r, rule := reason(err); status.Code(err) != codes.FailedPrecondition || r != "INSUFFICIENT_FUNDS" || rule != "CS-01" {
			t.Fatalf("the retry after the refusal in the background: %v, want CS-01 INSUFFICIENT_FUNDS", err)
		}
		if bal, escrow := w.totals(); bal != 150 || escrow != 0 {
			t.Fatalf("wallets %d, escrow %d, want 150 and 0", bal, escrow)
		}
	})
}

// TestSitDown_FinishedInTheBackgroundAnnouncesTheSeat: the wallet cannot
// be reached when a player sits down with an offer; the seat waits unpaid
// and unannounced (a retry under the same key asks the wallet again and
// still has no answer). The process that runs the table next (here after
// a restart) finishes the sit-down from its record: the seat is paid and
// table.player_seated, naming the offer, is written then, once; the
// client's retry is answered with the seat, and the chips moved once.
func TestSitDown_FinishedInTheBackgroundAnnouncesTheSeat(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, table.DBOptions(), func(t *testing.T, db *sqlstore.DB) {
		w := newFakeWallet(map[string]int64{"ann": 1000})
		seating := &fakeSeating{}
		e := start(t, db, clock.NewFake(t0), seededDecks(32), table.Deps{Wallet: w, Seating: seating})
		id := e.open(6, -1)
		offerFor(seating, "w.1", id, 3, "ann")
		w.mu.Lock()
		w.sitDownDown = true
		w.mu.Unlock()
		req := &tablev1.SitRequest{TableId: id, Seat: 3, Amount: 200, OfferId: "w.1", IdempotencyKey: "ann-sits"}
		for i := range 2 {
			if _, err := e.c.Sit(e.player("ann"), req); status.Code(err) != codes.Unavailable {
				t.Fatalf("sit %d with the wallet down: %v, want Unavailable", i+1, err)
			}
		}
		if s := e.state(id, "ann").GetSeats()[3]; s.GetPlayerId() != "ann" {
			t.Fatalf("the seat waiting for the wallet: %v", s)
		}
		if got := e.seatedEvents(id); len(got) != 0 {
			t.Fatalf("an unpaid seat announced %v", got)
		}
		w.mu.Lock()
		w.sitDownDown = false
		w.mu.Unlock()
		// A new process (its own locker) takes the table over and
		// finishes the sit-down.
		e2 := start(t, db, clock.NewFake(t0), seededDecks(32), table.Deps{Wallet: w, Seating: seating})
		_ = e2.state(id, "ann")
		if n := e2.pendingMoves(id); n != 0 {
			t.Fatalf("%d wallet steps pending after the takeover, want none", n)
		}
		got := e2.seatedEvents(id)
		if len(got) != 1 || got[0].GetOfferId() != "w.1" || got[0].GetPlayerId() != "ann" || got[0].GetSeat() != 3 || got[0].GetStack() != 200 {
			t.Fatalf("table.player_seated after the takeover: %v, want one for ann in seat 3 with 200 through offer w.1", got)
		}
		seating.useUp("w.1")
		res, err := e2.c.Sit(e2.player("ann"), req)
		if err != nil || res.GetSeat().GetPlayerId() != "ann" || res.GetSeat().GetStack() != 200 {
			t.Fatalf("the client's retry: %v %v, want ann's seat with 200", res, err)
		}
		if bal, escrow := w.totals(); bal != 800 || escrow != 200 || w.sitDowns() != 1 {
			t.Fatalf("wallets %d, escrow %d after %d sittings, want 800, 200 and 1", bal, escrow, w.sitDowns())
		}
	})
}

// TestSitDown_LostAnswerRetriedWithTheSameKey: the wallet buys the seat
// but its answer is lost; the client's retry under the same key asks the
// wallet again, which answers that the sitting is bought without moving
// chips again: the seat is paid and announced once, and the chips moved
// once.
func TestSitDown_LostAnswerRetriedWithTheSameKey(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, table.DBOptions(), func(t *testing.T, db *sqlstore.DB) {
		e, w, id := cashTable(t, db, 33, map[string]int64{"ann": 1000})
		w.with(func(w *fakeWallet) { w.sitDownLost = true })
		req := &tablev1.SitRequest{TableId: id, Seat: 1, PlayerId: "ann", Amount: 300, IdempotencyKey: "ann-lost"}
		e.sitUnanswered(req)
		if got := e.seatedEvents(id); len(got) != 0 {
			t.Fatalf("a seat whose answer was lost announced %v", got)
		}
		w.mu.Lock()
		w.sitDownLost = false
		w.mu.Unlock()
		res, err := e.c.Sit(e.floor(), req)
		if err != nil || res.GetSeat().GetPlayerId() != "ann" || res.GetSeat().GetStack() != 300 {
			t.Fatalf("the retry: %v %v, want ann's seat with 300", res, err)
		}
		if n := e.pendingMoves(id); n != 0 {
			t.Fatalf("%d wallet steps pending after the retry, want none", n)
		}
		if got := e.seatedEvents(id); len(got) != 1 || got[0].GetPlayerId() != "ann" || got[0].GetStack() != 300 {
			t.Fatalf("table.player_seated: %v, want one for ann with 300", got)
		}
		if bal, escrow := w.totals(); bal != 700 || escrow != 300 || w.sitDowns() != 1 {
			t.Fatalf("wallets %d, escrow %d after %d sittings, want 700, 300 and 1", bal, escrow, w.sitDowns())
		}
	})
}

// TestSitDown_TwoStepBuyInStoredBeforeTheUpgrade: a buy-in that the
// version before the one-step sit-down stored between its hold and the
// hold's commit (a money move naming the hold) is finished by this
// version's process that takes the table over, through the hold as that
// version would have: committed, the seat is dealt in; the commit refused,
// the hold is released and the seat taken back. No sit-down is made for
// it, so the chips never move twice.
func TestSitDown_TwoStepBuyInStoredBeforeTheUpgrade(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		refuseCommit  bool
		wantAnn       int64 // ann's wallet balance at the end
		wantEscrow    int64
		wantHoldState walletv1.HoldState
		wantSeated    bool
	}{
		{name: "committed", wantAnn: 800, wantEscrow: 500, wantHoldState: walletv1.HoldState_HOLD_STATE_COMMITTED, wantSeated: true},
		{name: "commit refused", refuseCommit: true, wantAnn: 1000, wantEscrow: 300,
			wantHoldState: walletv1.HoldState_HOLD_STATE_RELEASED},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testkit.EachStore(t, table.DBOptions(), func(t *testing.T, db *sqlstore.DB) {
				e, w, id := cashTable(t, db, 34, map[string]int64{"ann": 1000, "bob": 1000})
				e.sit(id, 0, "bob", 300)
				// ann's seat stored unpaid with its step pending (the
				// wallet down); then made what the older version stored:
				// the hold taken, the step naming it.
				w.mu.Lock()
				w.sitDownDown = true
				w.mu.Unlock()
				if _, err := e.c.Sit(e.floor(), &tablev1.SitRequest{TableId: id, Seat: 3, PlayerId: "ann", Amount: 200,
					IdempotencyKey: "ann-old"}); status.Code(err) != codes.Unavailable {
					t.Fatalf("sit with the wallet down: %v, want Unavailable", err)
				}
				h := e.storeAsTwoStep(w, id, "ann", "ann-old", 200)
				w.mu.Lock()
				w.sitDownDown, w.refuseCommit = false, tc.refuseCommit
				w.mu.Unlock()

				// This version's process takes the table over.
				e2 := start(t, db, clock.NewFake(t0), seededDecks(34), table.Deps{Wallet: w})
				st := e2.state(id, "bob")
				if n := e2.pendingMoves(id); n != 0 {
					t.Fatalf("%d wallet steps pending after the takeover, want none", n)
				}
				seated := st.GetSeats()[3].GetPlayerId() == "ann"
				if seated != tc.wantSeated || (st.GetHand() != nil) != tc.wantSeated {
					t.Fatalf("after the takeover ann seated %v, hand dealt %v; want %v", seated, st.GetHand() != nil, tc.wantSeated)
				}
				w.mu.Lock()
				holdState, ann, escrow := w.holds[h].GetState(), w.balance["ann"], w.escrow
				w.mu.Unlock()
				if holdState != tc.wantHoldState || ann != tc.wantAnn || escrow != tc.wantEscrow || w.sitDowns() != 1 {
					t.Fatalf("hold %v, ann's balance %d, escrow %d, %d sittings bought; want %v, %d, %d and bob's alone",
						holdState, ann, escrow, w.sitDowns(), tc.wantHoldState, tc.wantAnn, tc.wantEscrow)
				}
				if onTable := chips(st); onTable != escrow {
					t.Fatalf("%d chips at the table, %d in escrow", onTable, escrow)
				}
			})
		})
	}
}

// TestSitDown_RetriedStepsFinishEachBuyInOnce: two sit-downs wait for a
// wallet that was down, and the process that takes the table over
// finishes both: the first is refused (CS-01), which takes its seat back —
// a change that opens a seat, and so pays leavers and settles buy-ins at
// once, while the pass over the waiting steps is under way — and the
// second is bought, in one step or (stored by the version before the
// one-step sit-down) through its hold. The second's seat is dealt in with
// its chips, and they stay in the table's escrow: the pass does not take
// that buy-in up again from the list it read before, find its seat no
// longer waiting, and cash the chips back out to the player while the
// seat plays on with them (found by the seat linearizability run: a paid
// seat whose sitting the wallet had closed, its cash-out stuck).
func TestSitDown_RetriedStepsFinishEachBuyInOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		twoStep bool // bob's buy-in is a hold to commit
	}{
		{name: "one step"},
		{name: "two steps", twoStep: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testkit.EachStore(t, table.DBOptions(), func(t *testing.T, db *sqlstore.DB) {
				e, w, id := cashTable(t, db, 34, map[string]int64{"ann": 100, "bob": 1000})
				w.with(func(w *fakeWallet) { w.sitDownDown = true })
				// Keys in the order the steps are read back (their times
				// are one fake instant).
				e.sitUnanswered(&tablev1.SitRequest{TableId: id, Seat: 1, PlayerId: "ann", Amount: 200, IdempotencyKey: "a-ann-sits"})
				e.sitUnanswered(&tablev1.SitRequest{TableId: id, Seat: 2, PlayerId: "bob", Amount: 300, IdempotencyKey: "b-bob-sits"})
				if tc.twoStep {
					e.storeAsTwoStep(w, id, "bob", "b-bob-sits", 300)
				}
				w.with(func(w *fakeWallet) { w.sitDownDown = false })

				e2 := start(t, db, clock.NewFake(t0), seededDecks(34), table.Deps{Wallet: w})
				st := e2.state(id, "bob")
				if n := e2.pendingMoves(id); n != 0 {
					t.Fatalf("%d wallet steps pending after the takeover, want none", n)
				}
				if got := st.GetSeats()[1].GetPlayerId(); got != "" {
					t.Fatalf("seat 1 after ann's buy-in was refused: %q, want it empty", got)
				}
				if got := st.GetSeats()[2]; got.GetPlayerId() != "bob" || got.GetStack() != 300 {
					t.Fatalf("seat 2 after bob's buy-in was bought: %v, want bob with 300", got)
				}
				w.mu.Lock()
				cashedOut, bob, escrow := w.cashOuts["bob"], w.balance["bob"], w.escrow
				w.mu.Unlock()
				if escrow != 300 || bob != 700 || cashedOut != 0 {
					t.Fatalf("escrow %d, bob's balance %d, cashed out to bob %d; want 300, 700 and 0", escrow, bob, cashedOut)
				}
				if onTable := chips(st); onTable != escrow {
					t.Fatalf("%d chips at the table, %d in escrow", onTable, escrow)
				}
			})
		})
	}
}
