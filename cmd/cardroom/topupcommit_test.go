package main

// Tests of a top-up's chips against the real wallet over gRPC: they play
// only once the wallet has committed them (G-41), whatever happens to the
// commit while a hand is dealt.

import (
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table"
	"github.com/cardroom/cardroom/services/wallet/ledger"
)

// TestTopUpPlaysOnlyOncePaid_G41_CS05: ann tops up 100 while the wallet
// cannot be reached for the commit, or its answer is lost; bob sits and a
// hand is dealt while the commit is unsettled. Ann's top-up must not be in
// that hand. Then the commit is settled while the hand is still being
// played: refused because the hold expired (before, the table could not
// take back chips already in the pot, CHIPS_IN_PLAY, and the escrow was
// 100 short for good), or committed (the chips wait for the next hand,
// CS-05). Afterwards the escrow holds every chip the table shows, nothing
// is held or pending, and the wallets and the escrow add up to the
// deposits.
func TestTopUpPlaysOnlyOncePaid_G41_CS05(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// before breaks the wallet before ann's top-up; after settles it
		// while the hand is dealt, the wallet whole again.
		before func(r *moneyRig)
		after  func(t *testing.T, r *moneyRig, id string)
		// paid says whether the top-up ends on the table.
		paid bool
	}{
		{"commit cut off, then the hold expires during the hand", func(r *moneyRig) { r.client.cutCommit.Store(true) },
			func(t *testing.T, r *moneyRig, id string) {
				r.walletClock.Advance(time.Hour)
				if n, err := r.wallet.Bank().ExpireHolds(t.Context()); err != nil || n != 1 {
					t.Fatalf("sweep: %d holds expired, %v; want ann's", n, err)
				}
				r.restartTables() // the next owner finds the commit refused
			}, false},
		{"commit cut off, then committed during the hand", func(r *moneyRig) { r.client.cutCommit.Store(true) },
			func(t *testing.T, r *moneyRig, id string) { r.restartTables() }, true},
		{"commit's answer lost, the top-up retried during the hand", func(r *moneyRig) { r.client.loseCommit.Store(true) },
			func(t *testing.T, r *moneyRig, id string) {
				resp, err := r.tableClient().TopUp(r.floor(), &tablev1.TopUpRequest{TableId: id, PlayerId: "ann", Amount: 100, IdempotencyKey: "ann-tops-up"})
				if err != nil {
					t.Fatalf("the retry of ann's top-up: %v", err)
				}
				if s := resp.GetSeat(); s.GetPendingChips() != 100 {
					t.Fatalf("CS-05: the retry answers %v; want 100 pending for the next hand", s)
				}
			}, true},
	}
	for _, tc := range cases {
		eachMoneyStore(t, tc.name, func(t *testing.T, r *moneyRig) {
			r.deposit("ann", 1000)
			r.deposit("bob", 1000)
			id := r.openTable()
			sit := func(player string, seat int32) {
				t.Helper()
				if _, err := r.tableClient().Sit(r.floor(), &tablev1.SitRequest{TableId: id, Seat: seat, PlayerId: player, Amount: 100,
					PostNow: true, IdempotencyKey: player + "-sits"}); err != nil {
					t.Fatalf("%s sits: %v", player, err)
				}
			}
			sit("ann", 0)
			tc.before(r)
			_, err := r.tableClient().TopUp(r.floor(), &tablev1.TopUpRequest{TableId: id, PlayerId: "ann", Amount: 100, IdempotencyKey: "ann-tops-up"})
			if status.Code(err) != codes.Unavailable {
				t.Fatalf("top-up with the commit unsettled: %v, want Unavailable", err)
			}
			r.client.cutCommit.Store(false)
			r.client.loseCommit.Store(false)
			sit("bob", 1)

			st := r.state(id)
			ann := st.GetSeats()[0]
			if st.GetHand() == nil || !ann.GetInHand() {
				t.Fatalf("no hand dealt to ann and bob: %v", st)
			}
			if in := ann.GetStack() + ann.GetBet(); in > 100 || ann.GetPendingChips() != 0 {
				t.Fatalf("G-41: ann plays %d (+%d pending) with her top-up unsettled; she paid for 100", in, ann.GetPendingChips())
			}
			tc.after(t, r, id)

			st = r.state(id)
			ann = st.GetSeats()[0]
			if st.GetHand() == nil || !ann.GetInHand() {
				t.Fatalf("the hand ended before the top-up was settled: %v", st)
			}
			want := int64(0)
			if tc.paid {
				want = 100
			}
			if ann.GetPendingChips() != want {
				t.Fatalf("ann's seat after the top-up was settled: %v, want %d pending (CS-05)", ann, want)
			}
			r.reconciled("after the top-up was settled", id, 2000)
		})
	}
}

// state is the table's state as the floor sees it.
func (r *moneyRig) state(id string) *tablev1.TableState {
	r.t.Helper()
	st, err := r.tableClient().GetTableState(r.floor(), &tablev1.GetTableStateRequest{TableId: id})
	if err != nil {
		r.t.Fatalf("table state: %v", err)
	}
	return st.GetState()
}

// reconciled checks the books of a table with a hand in progress: the
// escrow holds every chip the table counts (the pot among them), nothing
// is held or pending, and the escrow and the players' wallets add up to
// what was deposited.
func (r *moneyRig) reconciled(when, id string, deposited int64) {
	r.t.Helper()
	counts, err := table.CountCash(r.t.Context(), r.tableDB)
	if err != nil {
		r.t.Fatal(err)
	}
	var chips int64
	pending := -1
	for _, c := range counts {
		if c.Table == id {
			chips, pending = c.Chips, len(c.Pending)
		}
	}
	escrow := r.balance(ledger.TableAccount(id, "EUR"))
	held := r.balance(ledger.HoldAccount(id, "EUR"))
	wallets := r.balance(ledger.PlayerAccount("ann", "EUR")) + r.balance(ledger.PlayerAccount("bob", "EUR"))
	if escrow != chips || held != 0 || pending != 0 || wallets+escrow != deposited {
		r.t.Fatalf("%s: escrow %d, the table counts %d chips; held %d, pending steps %d; wallets %d + escrow = %d, deposited %d",
			when, escrow, chips, held, pending, wallets, wallets+escrow, deposited)
	}
}
