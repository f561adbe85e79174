package table_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/random"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table"
	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/phh"
)

var t0 = time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC)

// seededDecks returns a deck source that deals the same decks, in order,
// on every run.
func seededDecks(seed uint64) func() cards.Deck {
	var mu sync.Mutex
	n := uint64(0)
	return func() cards.Deck {
		mu.Lock()
		defer mu.Unlock()
		n++
		d := cards.NewDeck()
		d.Shuffle(random.Seeded(seed*1000 + n))
		return d
	}
}

type env struct {
	t     *testing.T
	db    *sqlstore.DB
	g     *testkit.GRPC
	c     tablev1.TableServiceClient
	svc   *table.Service
	clock *clock.Fake
}

var sealKey = []byte("0123456789abcdef0123456789abcdef")

// start runs the table service over db (a process: its own locker).
func start(t *testing.T, db *sqlstore.DB, clk *clock.Fake, decks func() cards.Deck, wallet table.Deps) *env {
	t.Helper()
	relay := events.NewRelay(db, events.NewMemory(events.MemoryOptions{}), events.RelayOptions{})
	deps := wallet
	if deps.Locker == nil {
		deps.Locker = lock.NewLocal() // a process of its own
	}
	deps.DB, deps.Clock, deps.Relay, deps.Shuffle = db, clk, relay, decks
	svc, err := table.New(table.Config{SealKey: sealKey}, deps)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close() })
	g := testkit.StartGRPC(t, svc.Register)
	return &env{t: t, db: db, g: g, c: tablev1.NewTableServiceClient(g.Conn), svc: svc, clock: clk}
}

func (e *env) floor() context.Context { return e.g.As(e.t, "floor-1", auth.Floor) }

func (e *env) player(p string) context.Context { return e.g.As(e.t, p, auth.Player) }

func (e *env) open(seats int32, actionSeconds int32) string {
	e.t.Helper()
	resp, err := e.c.CreateTable(e.floor(), &tablev1.CreateTableRequest{
		Name: "NL 1/2", Seats: seats, Kind: tablev1.TableKind_TABLE_KIND_CASH, Mode: tablev1.TableMode_TABLE_MODE_DIGITAL,
		Game:          &gamev1.Game{Variant: gamev1.Variant_VARIANT_HOLDEM, Structure: gamev1.Structure_STRUCTURE_NO_LIMIT, Stakes: &gamev1.Stakes{SmallBlind: 1, BigBlind: 2}},
		ActionSeconds: actionSeconds,
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.GetTable().GetTableId()
}

func (e *env) sit(id string, seat int32, player string, amount int64) {
	e.t.Helper()
	if _, err := e.c.Sit(e.floor(), &tablev1.SitRequest{TableId: id, Seat: seat, PlayerId: player, Amount: amount, PostNow: true}); err != nil {
		e.t.Fatalf("sit %s: %v", player, err)
	}
}

func (e *env) state(id, player string) *tablev1.TableState {
	e.t.Helper()
	resp, err := e.c.GetTableState(e.player(player), &tablev1.GetTableStateRequest{TableId: id})
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.GetState()
}

// policy picks an action for the seat in turn from its legal actions: a
// deterministic mix of folds, calls, raises and all-ins.
func policy(r *rand.Rand, legal []*tablev1.LegalAction) (tablev1.ActionKind, int64) {
	l := legal[r.IntN(len(legal))]
	amount := l.GetMin()
	if l.GetMax() > l.GetMin() && r.IntN(4) == 0 {
		amount = l.GetMax()
	}
	return l.GetKind(), amount
}

// playerInTurn returns the player whose decision is awaited.
func playerInTurn(st *tablev1.TableState) string {
	h := st.GetHand()
	if h == nil || h.GetToAct() < 0 {
		return ""
	}
	return st.GetSeats()[h.GetToAct()].GetPlayerId()
}

func reason(err error) (string, string) {
	for _, d := range status.Convert(err).Details() {
		if i, ok := d.(*errdetails.ErrorInfo); ok {
			return i.GetReason(), i.GetMetadata()["rule_id"]
		}
	}
	return "", ""
}

// playHands plays until n hands have been completed, with a seeded policy.
func (e *env) playHands(id string, players []string, r *rand.Rand, n int64) {
	e.t.Helper()
	for range 5000 {
		st := e.state(id, players[0])
		if st.GetHand() == nil || st.GetHand().GetHandNo() > n {
			return
		}
		who := playerInTurn(st)
		if who == "" {
			e.t.Fatalf("hand %d: nobody to act: %v", st.GetHand().GetHandNo(), st.GetHand())
		}
		mine := e.state(id, who)
		kind, amount := policy(r, mine.GetHand().GetLegal())
		seq := mine.GetSequence()
		if _, err := e.c.Act(e.player(who), &tablev1.ActRequest{TableId: id, Kind: kind, Amount: amount, ExpectedSequence: &seq,
			ActionId: fmt.Sprintf("%s-%d", who, seq)}); err != nil {
			e.t.Fatalf("%s %v %d: %v", who, kind, amount, err)
		}
	}
	e.t.Fatal("hands never ended")
}

func chips(st *tablev1.TableState) int64 {
	var sum int64
	for _, s := range st.GetSeats() {
		sum += s.GetStack() + s.GetPendingChips() + s.GetBet()
	}
	if h := st.GetHand(); h != nil && !h.GetDone() {
		// Pot counts current bets as well.
		var bets int64
		for _, s := range st.GetSeats() {
			bets += s.GetBet()
		}
		sum += h.GetPot() - bets
	}
	return sum
}

// watch reads a stream until ctx ends, keeping every message.
func watch(ctx context.Context, t *testing.T, c tablev1.TableServiceClient, id string) (func() []*tablev1.WatchTableResponse, func()) {
	ctx, cancel := context.WithCancel(ctx)
	stream, err := c.WatchTable(ctx, &tablev1.WatchTableRequest{TableId: id})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []*tablev1.WatchTableResponse
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			m, err := stream.Recv()
			if err != nil {
				return
			}
			mu.Lock()
			got = append(got, m)
			mu.Unlock()
		}
	}()
	return func() []*tablev1.WatchTableResponse {
			mu.Lock()
			defer mu.Unlock()
			return slices.Clone(got)
		}, func() {
			cancel()
			<-done
		}
}

// TestPlay_Secrecy plays a session at a real store while every player and
// a spectator and a dealer watch: no stream ever shows a hole card of
// another seat before that hand is shown, chips are conserved, and the
// histories are stored.
func TestPlay_Secrecy(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, table.DBOptions(), func(t *testing.T, db *sqlstore.DB) {
		e := start(t, db, clock.NewFake(t0), seededDecks(7), table.Deps{})
		id := e.open(6, -1)
		players := []string{"ann", "bob", "cat", "dan"}
		for i, p := range players {
			e.sit(id, int32(i), p, 200)
		}
		readers := map[string]func() []*tablev1.WatchTableResponse{}
		var stops []func()
		for _, p := range players {
			r, stop := watch(e.player(p), t, e.c, id)
			readers[p], stops = r, append(stops, stop)
		}
		spect, stop := watch(e.player("spectator"), t, e.c, id)
		stops = append(stops, stop)
		dealerFeed, stop := watch(e.g.As(t, "dealer-1", auth.Dealer), t, e.c, id)
		stops = append(stops, stop)

		e.playHands(id, players, rand.New(rand.NewPCG(3, 4)), 12)
		final := e.state(id, "ann")
		if got := chips(final); got != 800 {
			t.Fatalf("the table holds %d chips, want 800", got)
		}
		// Let the feeds catch up: the last change's sequence number.
		caughtUp(t, final.GetSequence(), append(slices.Collect(maps.Values(readers)), spect, dealerFeed)...)
		for _, s := range stops {
			s()
		}
		holes := 0
		check := func(name string, seat int32, ms []*tablev1.WatchTableResponse) {
			for _, m := range ms {
				for _, ev := range m.GetEvents() {
					if ev.GetKind() != "deal_hole" {
						continue
					}
					for _, c := range ev.GetCards() {
						if c != "??" && ev.GetSeat() != seat {
							t.Fatalf("%s saw seat %d's hole card %s", name, ev.GetSeat(), "(redacted)")
						}
						if c != "??" {
							holes++
						}
					}
				}
				for _, s := range m.GetState().GetSeats() {
					if s.GetSeat() == seat || s.GetShown() {
						continue
					}
					for _, c := range s.GetCards() {
						if c != "??" {
							t.Fatalf("%s saw seat %d's unshown card in the state", name, s.GetSeat())
						}
					}
				}
			}
		}
		for i, p := range players {
			check(p, int32(i), readers[p]())
		}
		check("spectator", -1, spect())
		check("dealer", -1, dealerFeed())
		if holes == 0 {
			t.Fatal("no player ever saw their own hole cards")
		}

		// Histories: the floor reads PHH and full JSON; a player reads
		// their own hand, and not a hand they did not play.
		floorPHH, err := e.c.GetHandHistory(e.floor(), &tablev1.GetHandHistoryRequest{TableId: id, HandNo: 1, Format: tablev1.HistoryFormat_HISTORY_FORMAT_PHH})
		if err != nil || !strings.Contains(floorPHH.GetContent(), "variant = ") {
			t.Fatalf("PHH: %v %q", err, floorPHH.GetContent())
		}
		mine, err := e.c.GetHandHistory(e.player("ann"), &tablev1.GetHandHistoryRequest{TableId: id, HandNo: 1})
		if err != nil || mine.GetHistory().GetHandNo() != 1 || mine.GetContent() != "" || mine.GetContentType() != "application/json" {
			t.Fatalf("JSON history: %v %v", mine, err)
		}
		if _, err := e.c.GetHandHistory(e.player("zed"), &tablev1.GetHandHistoryRequest{TableId: id, HandNo: 1}); status.Code(err) != codes.PermissionDenied {
			t.Fatalf("stranger reads a hand: %v", err)
		}
		// A player's own copy of a hand, as JSON and PHH, shows no hole card
		// of another player that the hand did not expose.
		masked := 0
		for _, me := range players {
			mine, err := e.c.ListPlayerHands(e.player(me), &tablev1.ListPlayerHandsRequest{PlayerId: me})
			if err != nil {
				t.Fatal(err)
			}
			for _, ph := range mine.GetHands() {
				n := ph.GetHandNo()
				js, err := e.c.GetHandHistory(e.player(me), &tablev1.GetHandHistoryRequest{TableId: id, HandNo: n})
				if err != nil {
					t.Fatal(err)
				}
				hidden := map[string]bool{}
				for _, s := range js.GetHistory().GetSeats() {
					if s.GetPlayerId() != me && len(s.GetCards()) > 0 && s.GetCards()[0] == "??" {
						hidden[s.GetPlayerId()] = true
					}
				}
				phText, err := e.c.GetHandHistory(e.player(me), &tablev1.GetHandHistoryRequest{TableId: id, HandNo: n, Format: tablev1.HistoryFormat_HISTORY_FORMAT_PHH})
				if status.Code(err) == codes.FailedPrecondition {
					continue // a post PHH cannot express
				}
				if err != nil {
					t.Fatal(err)
				}
				h, err := phh.ParseBytes([]byte(phText.GetContent()))
				if err != nil {
					t.Fatalf("hand %d PHH: %v", n, err)
				}
				for _, a := range h.Actions {
					if a.Kind != phh.DealHole || !hidden[h.Players[a.Player-1]] {
						continue
					}
					for _, c := range a.Cards {
						if c != cards.Unknown {
							t.Fatalf("hand %d: %s's PHH shows %s's hole cards", n, me, h.Players[a.Player-1])
						}
					}
					masked++
				}
			}
		}
		if masked == 0 {
			t.Fatal("no PHH hid another player's cards: the check checked nothing")
		}
		// A player's list holds exactly the hands the floor's histories
		// show them dealt in, however many the deck let them play.
		dealt := 0
		for n := int64(1); ; n++ {
			h, err := e.c.GetHandHistory(e.floor(), &tablev1.GetHandHistoryRequest{TableId: id, HandNo: n})
			if status.Code(err) == codes.NotFound {
				break
			}
			if err != nil {
				t.Fatalf("hand %d: %v", n, err)
			}
			if slices.ContainsFunc(h.GetHistory().GetSeats(), func(s *tablev1.HandHistorySeat) bool { return s.GetPlayerId() == "bob" }) {
				dealt++
			}
		}
		list, err := e.c.ListPlayerHands(e.player("bob"), &tablev1.ListPlayerHandsRequest{PlayerId: "bob"})
		if err != nil || dealt == 0 || len(list.GetHands()) != dealt {
			t.Fatalf("bob's hands: %v, %d listed, dealt in %d", err, len(list.GetHands()), dealt)
		}
	})
}

// TestPlay_BadInput checks the refusals of the issue: out of turn,
// another's seat, stale sequence, an amount the engine refuses, a full
// table — each names its rule and leaves the hand unchanged.
func TestPlay_BadInput(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, table.DBOptions())
	e := start(t, db, clock.NewFake(t0), seededDecks(1), table.Deps{})
	id := e.open(2, -1)
	e.sit(id, 0, "ann", 200)
	e.sit(id, 1, "bob", 200)
	st := e.state(id, "ann")
	who := playerInTurn(st)
	other := "ann"
	if who == "ann" {
		other = "bob"
	}
	seq := st.GetSequence()
	stale := seq - 1
	tests := []struct {
		name       string
		call       func() error
		code       codes.Code
		wantReason string
		wantRule   string
	}{
		{"TP-46 out of turn", func() error {
			_, err := e.c.Act(e.player(other), &tablev1.ActRequest{TableId: id, Kind: tablev1.ActionKind_ACTION_KIND_CALL})
			return err
		}, codes.FailedPrecondition, "OUT_OF_TURN", "TP-46"},
		{"stale sequence", func() error {
			_, err := e.c.Act(e.player(who), &tablev1.ActRequest{TableId: id, Kind: tablev1.ActionKind_ACTION_KIND_CALL, ExpectedSequence: &stale})
			return err
		}, codes.FailedPrecondition, "STALE_SEQUENCE", "TP-46"},
		{"TP-22 raise below the minimum", func() error {
			_, err := e.c.Act(e.player(who), &tablev1.ActRequest{TableId: id, Kind: tablev1.ActionKind_ACTION_KIND_RAISE, Amount: 3})
			return err
		}, codes.FailedPrecondition, "RAISE_BELOW_MINIMUM", "TP-22"},
		{"another player's seat", func() error {
			seat := int32(0)
			if other == "ann" {
				seat = 1
			}
			_, err := e.c.SitOut(e.player(other), &tablev1.SitOutRequest{TableId: id, Seat: seat})
			return err
		}, codes.PermissionDenied, "NOT_YOUR_SEAT", ""},
		{"a spectator acts", func() error {
			_, err := e.c.Act(e.player("zed"), &tablev1.ActRequest{TableId: id, Kind: tablev1.ActionKind_ACTION_KIND_FOLD})
			return err
		}, codes.FailedPrecondition, "NOT_SEATED", ""},
		{"full table", func() error {
			_, err := e.c.Sit(e.floor(), &tablev1.SitRequest{TableId: id, Seat: 1, PlayerId: "cat", Amount: 200})
			return err
		}, codes.FailedPrecondition, "TABLE_FULL", ""},
		{"a player sits without an offer", func() error {
			_, err := e.c.Sit(e.player("cat"), &tablev1.SitRequest{TableId: id, Seat: 1, Amount: 200})
			return err
		}, codes.FailedPrecondition, "SEATING_OFFER_REQUIRED", ""},
	}
	for _, tc := range tests {
		err := tc.call()
		if status.Code(err) != tc.code {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.code)
			continue
		}
		if r, rule := reason(err); r != tc.wantReason || rule != tc.wantRule {
			t.Errorf("%s: reason %s rule %s", tc.name, r, rule)
		}
		if strings.ContainsAny(status.Convert(err).Message(), "♠♥") {
			t.Errorf("%s: error names cards", tc.name)
		}
	}
	if after := e.state(id, "ann"); after.GetSequence() != seq {
		t.Fatalf("refusals changed the table: %d → %d", seq, after.GetSequence())
	}
	// The action id makes a retry a no-op.
	req := &tablev1.ActRequest{TableId: id, Kind: tablev1.ActionKind_ACTION_KIND_CALL, ActionId: "x1"}
	if _, err := e.c.Act(e.player(who), req); err != nil {
		t.Fatal(err)
	}
	again, err := e.c.Act(e.player(who), req)
	if err != nil || !again.GetDuplicate() || again.GetState().GetSequence() != seq+1 {
		t.Fatalf("retry: %v %v", err, again)
	}
}

// TestPlay_ActionClock_TP59 lets the house clock run out (fold facing a
// bet) and the floor call the clock (the hand is killed), all on a fake
// clock, and checks the ruling is audited.
func TestPlay_ActionClock_TP59(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, table.DBOptions())
	clk := clock.NewFake(t0)
	e := start(t, db, clk, seededDecks(2), table.Deps{})
	id := e.open(6, 30)
	for i, p := range []string{"ann", "bob", "cat"} {
		e.sit(id, int32(i), p, 200)
	}
	// The first hand is dealt as soon as two players sit: heads-up, ann
	// has the button and the small blind and acts first, facing the big
	// blind.
	st := e.state(id, "ann")
	if st.GetHand().GetHandNo() != 1 || playerInTurn(st) != "ann" {
		t.Fatalf("hand %d, %s to act", st.GetHand().GetHandNo(), playerInTurn(st))
	}
	if dl := st.GetHand().GetDeadline().AsTime(); !dl.Equal(t0.Add(30 * time.Second)) {
		t.Fatalf("deadline %v", dl)
	}
	clk.Advance(29 * time.Second)
	if e.state(id, "ann").GetSequence() != st.GetSequence() {
		t.Fatal("timed out before the deadline")
	}
	clk.Advance(time.Second)
	hands, err := e.c.ListPlayerHands(e.player("ann"), &tablev1.ListPlayerHandsRequest{PlayerId: "ann"})
	if err != nil || len(hands.GetHands()) != 1 || hands.GetHands()[0].GetNet() != -1 {
		t.Fatalf("TP-59 timeout facing a bet folds: %v %v", hands, err)
	}
	// Hand 2, three-handed: the floor calls the clock on the seat in turn;
	// when it runs out the hand is dead.
	st = e.state(id, "ann")
	seat := st.GetHand().GetToAct()
	if st.GetHand().GetHandNo() != 2 || seat < 0 {
		t.Fatalf("hand 2 not running: %v", st.GetHand())
	}
	if _, err := e.c.DealerAction(e.floor(), &tablev1.DealerActionRequest{TableId: id, Seat: seat,
		Kind: tablev1.DealerActionKind_DEALER_ACTION_KIND_CALL_CLOCK, Reason: "slow"}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(69 * time.Second)
	if e.state(id, "ann").GetSeats()[seat].GetFolded() {
		t.Fatal("the called clock ran out early")
	}
	clk.Advance(time.Second)
	st = e.state(id, "ann")
	if st.GetHand().GetHandNo() != 2 || !st.GetSeats()[seat].GetFolded() {
		t.Fatalf("called clock ran out and seat %d still plays: %v", seat, st)
	}
	rulings, err := e.c.ListRulings(e.floor(), &tablev1.ListRulingsRequest{TableId: id})
	if err != nil || len(rulings.GetRulings()) != 1 {
		t.Fatalf("rulings: %v %v", rulings, err)
	}
	if r := rulings.GetRulings()[0]; r.GetAction() != "call_clock" || r.GetActor() != "floor-1" || r.GetReason() != "slow" || r.GetSeat() != seat || r.GetHandNo() != 2 {
		t.Fatalf("TP-59 called clock audit: %v", r)
	}
	if _, err := e.c.ListRulings(e.player("ann"), &tablev1.ListRulingsRequest{TableId: id}); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("a player read the rulings: %v", err)
	}
}

// TestPlay_CrashRecovery stops the service mid-hand without any shutdown
// (a new process with its own locker takes the table over from the
// store), and checks the game ends exactly as an uninterrupted run of the
// same decks and decisions: same stacks, same hands.
func TestPlay_CrashRecovery(t *testing.T) {
	t.Parallel()
	run := func(t *testing.T, crashAt int) (*tablev1.TableState, []string) {
		db := testkit.Postgres(t, table.DBOptions())
		decks := seededDecks(11)
		e := start(t, db, clock.NewFake(t0), decks, table.Deps{})
		id := e.open(6, -1)
		players := []string{"ann", "bob", "cat"}
		for i, p := range players {
			e.sit(id, int32(i), p, 300)
		}
		r := rand.New(rand.NewPCG(9, 9))
		actions := 0
		for e.state(id, "ann").GetHand().GetHandNo() <= 6 {
			if actions == crashAt {
				// kill -9: the old process's lease is never released; a
				// new process (new locker, same database) claims a newer
				// epoch and carries on from the stored state.
				e = start(t, db, clock.NewFake(t0), decks, table.Deps{})
			}
			st := e.state(id, "ann")
			who := playerInTurn(st)
			kind, amount := policy(r, e.state(id, who).GetHand().GetLegal())
			if _, err := e.c.Act(e.player(who), &tablev1.ActRequest{TableId: id, Kind: kind, Amount: amount}); err != nil {
				t.Fatalf("action %d: %v", actions, err)
			}
			actions++
		}
		var hands []string
		for n := int64(1); n <= 6; n++ {
			h, err := e.c.GetHandHistory(e.floor(), &tablev1.GetHandHistoryRequest{TableId: id, HandNo: n, Format: tablev1.HistoryFormat_HISTORY_FORMAT_PHH})
			if err != nil {
				t.Fatal(err)
			}
			hands = append(hands, h.GetContent())
		}
		return e.state(id, "ann"), hands
	}
	wantState, wantHands := run(t, -1)
	gotState, gotHands := run(t, 5)
	for i := range wantHands {
		if gotHands[i] != wantHands[i] {
			t.Fatalf("hand %d differs after the crash:\n%s\n---\n%s", i+1, gotHands[i], wantHands[i])
		}
	}
	for i, s := range wantState.GetSeats() {
		if g := gotState.GetSeats()[i]; g.GetStack() != s.GetStack() || g.GetPlayerId() != s.GetPlayerId() {
			t.Fatalf("seat %d: %v after the crash, %v without", i, g, s)
		}
	}
	if chips(gotState) != 900 {
		t.Fatalf("chips after the crash: %d", chips(gotState))
	}
}

// TestPlay_Takeover_Fencing: a second process takes a table over from a
// first one whose Redis lease vanished while it paused (it has not noticed
// yet). The first process's action clock still fires, but its write is
// fenced out by the newer epoch and it stops; the new owner's clock,
// restored from the stored deadline, applies the timeout (TP-59) exactly
// once, and the old process cannot take the table back while the new one
// holds it.
func TestPlay_Takeover_Fencing(t *testing.T) {
	t.Parallel()
	db := testkit.Postgres(t, table.DBOptions())
	rc, prefix := testkit.Redis(t)
	locker := func() lock.Locker {
		return lock.NewRedis(rc, lock.RedisOptions{Prefix: prefix, TTL: time.Hour, RetryInterval: 10 * time.Millisecond})
	}
	clk := clock.NewFake(t0)
	old := start(t, db, clk, seededDecks(4), table.Deps{Locker: locker()})
	id := old.open(6, 30)
	old.sit(id, 0, "ann", 200)
	old.sit(id, 1, "bob", 200)
	before := old.state(id, "ann")
	first := playerInTurn(before)

	// The lease expires while the old process is paused.
	if err := rc.Del(t.Context(), prefix+"tables:"+id).Err(); err != nil {
		t.Fatal(err)
	}
	neu := start(t, db, clk, seededDecks(4), table.Deps{Locker: locker()})
	if got := neu.state(id, "ann"); got.GetSequence() != before.GetSequence() || got.GetHand().GetDeadline().AsTime() != before.GetHand().GetDeadline().AsTime() {
		t.Fatalf("the new owner restored %v, want %v", got, before)
	}
	clk.Advance(30 * time.Second)
	after := neu.state(id, "ann")
	if after.GetSequence() <= before.GetSequence() {
		t.Fatal("the new owner's clock did not fire")
	}
	hands, err := neu.c.ListPlayerHands(neu.player(first), &tablev1.ListPlayerHandsRequest{PlayerId: first})
	if err != nil || len(hands.GetHands()) != 1 || hands.GetHands()[0].GetNet() != -1 {
		t.Fatalf("%s timed out once facing the big blind: %v %v", first, hands, err)
	}
	// The old owner is fenced out: it refuses to act for the table.
	if _, err := old.c.Act(old.player(playerInTurn(after)), &tablev1.ActRequest{TableId: id, Kind: tablev1.ActionKind_ACTION_KIND_FOLD}); status.Code(err) != codes.Unavailable && status.Code(err) != codes.Aborted {
		t.Fatalf("the fenced-out owner acted: %v", err)
	}
	if got := neu.state(id, "ann"); got.GetSequence() != after.GetSequence() {
		t.Fatal("the old owner changed the table")
	}
}

// TestPlay_NewPlayerChoice_TP13 shows a new player their choice — wait for
// the big blind or post it now, live — and deals them in at the next hand
// once they choose to post.
func TestPlay_NewPlayerChoice_TP13(t *testing.T) {
	t.Parallel()
	db := testkit.SQLite(t, table.DBOptions())
	e := start(t, db, clock.NewFake(t0), seededDecks(6), table.Deps{})
	id := e.open(6, -1)
	e.sit(id, 0, "ann", 200)
	e.sit(id, 1, "bob", 200)
	if _, err := e.c.Sit(e.floor(), &tablev1.SitRequest{TableId: id, Seat: 3, PlayerId: "cat", Amount: 200}); err != nil {
		t.Fatal(err)
	}
	cat := e.state(id, "cat").GetSeats()[3]
	opts := cat.GetBlindOptions()
	if len(opts) != 2 || opts[0].GetPostNow() || !opts[1].GetPostNow() || opts[1].GetAmount() != 2 || opts[1].GetDead() != 0 || opts[1].GetRuleId() != "TP-13" {
		t.Fatalf("TP-13 choices: %v", opts)
	}
	if o := e.state(id, "ann").GetSeats()[3].GetBlindOptions(); len(o) != 0 {
		t.Fatalf("another player sees cat's choices: %v", o)
	}
	if _, err := e.c.Return(e.player("cat"), &tablev1.ReturnRequest{TableId: id, Seat: 3, PostNow: true}); err != nil {
		t.Fatal(err)
	}
	// Finish hand 1: whoever is in turn folds.
	for {
		st := e.state(id, "ann")
		if st.GetHand().GetHandNo() > 1 {
			if !st.GetSeats()[3].GetInHand() || st.GetSeats()[3].GetBet() != 2 {
				t.Fatalf("cat posted now and is not dealt in with a live big blind: %v", st.GetSeats()[3])
			}
			return
		}
		who := playerInTurn(st)
		if _, err := e.c.Act(e.player(who), &tablev1.ActRequest{TableId: id, Kind: tablev1.ActionKind_ACTION_KIND_FOLD}); err != nil {
			t.Fatal(err)
		}
	}
}
