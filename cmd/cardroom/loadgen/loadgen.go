// Package loadgen puts a busy room's load on a running cardroom suite:
// bot players who are paid in at the cage, join a waitlist, accept the seat
// they are offered, buy in, play legal actions at a set pace, top up, leave
// and are paid out, over gRPC or over the REST gateway. It measures every
// call (throughput, p50/p95/p99/p99.9 per operation, errors by reason) and
// ends with the wallet's ledger audit. `cardroom loadgen` is its command.
package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"

	"github.com/cardroom/cardroom/platform/auth"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	seatingv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/seating/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
)

// The game the bots play: NL Hold'em 50/100, a buy-in of 4,000 to 10,000
// under the house's CS-03 default of 40 to 100 big blinds.
const (
	smallBlind, bigBlind = 50, 100
	buyIn                = 6_000
	maxBuyIn             = 10_000
	deposit              = 20_000
	withdrawal           = 10_000 // what is left after a buy-in and a top-up is more
	currency             = "EUR"
)

// Config is one run.
type Config struct {
	// Conn reaches the suite: a gRPC connection, or REST for the gateway.
	Conn grpc.ClientConnInterface
	// Token returns a bearer token for a subject with a role.
	Token func(sub string, role auth.Role) (string, error)
	// Players is how many bots play at once; Tables how many tables of
	// Seats seats the floor opens for them.
	Players, Tables, Seats int
	// Duration bounds the run; MaxOps (when > 0) bounds the calls made.
	Duration time.Duration
	MaxOps   int64
	// Think is a bot's time between seeing its turn and acting; Poll how
	// often a bot reads its table or its offers while it waits.
	Think, Poll time.Duration
	// Hands is the most hands a bot plays before it leaves (at least 1).
	Hands int
	// Drain bounds the end: bots leave their seats and the books settle.
	Drain time.Duration
	// Run names this run's tables and players, so runs never meet.
	Run  string
	Seed uint64
}

// Run plays the room until the duration or the operation budget is
// spent, drains it and audits the ledger.
func Run(ctx context.Context, cfg Config) (Report, error) {
	if cfg.Players < 1 || cfg.Tables < 1 || cfg.Seats < 2 || cfg.Seats > 10 || cfg.Duration <= 0 || cfg.Hands < 1 {
		return Report{}, errors.New("loadgen: players and tables ≥ 1, seats 2-10, duration > 0 and hands ≥ 1 are needed")
	}
	l := &room{cfg: cfg, tables: tablev1.NewTableServiceClient(cfg.Conn), seating: seatingv1.NewSeatingServiceClient(cfg.Conn),
		wallet: walletv1.NewWalletServiceClient(cfg.Conn)}
	var err error
	if l.floor, err = l.as("loadgen-floor", auth.Floor); err != nil {
		return Report{}, err
	}
	if l.cashier, err = l.as("loadgen-cage", auth.Cashier); err != nil {
		return Report{}, err
	}
	// The run's clock starts when the room is open: setting it up is not
	// the load being measured.
	if err := l.open(ctx); err != nil {
		return Report{}, err
	}
	runCtx, stop := context.WithTimeout(ctx, cfg.Duration)
	defer stop()
	var ops atomic.Int64
	l.stats = newStats(func() {
		if n := ops.Add(1); cfg.MaxOps > 0 && n >= cfg.MaxOps {
			stop()
		}
	})
	var wg sync.WaitGroup
	for i := range cfg.Players {
		wg.Go(func() {
			b := &bot{room: l, slot: i, rng: rand.New(rand.NewPCG(cfg.Seed, uint64(i)))}
			b.run(runCtx)
		})
	}
	wg.Wait()
	rep := l.stats.report()
	// Closing is the floor's end of the evening, outside the measured run.
	l.close(ctx)
	rep.Audit = l.audit(ctx)
	return rep, nil
}

// room is what every bot shares.
type room struct {
	cfg            Config
	tables         tablev1.TableServiceClient
	seating        seatingv1.SeatingServiceClient
	wallet         walletv1.WalletServiceClient
	floor, cashier context.Context
	waitlist       string
	tableIDs       []string
	stats          *stats
}

func (l *room) as(sub string, role auth.Role) (context.Context, error) {
	tok, err := l.cfg.Token(sub, role)
	if err != nil {
		return nil, fmt.Errorf("token for %s: %w", sub, err)
	}
	return auth.WithToken(context.Background(), tok), nil
}

var game = &gamev1.Game{Variant: gamev1.Variant_VARIANT_HOLDEM, Structure: gamev1.Structure_STRUCTURE_NO_LIMIT,
	Stakes: &gamev1.Stakes{SmallBlind: smallBlind, BigBlind: bigBlind}}

// open finds or opens the game's waitlist (one per game) and opens the
// run's tables.
func (l *room) open(ctx context.Context) error {
	floor := withCtx(l.floor, ctx)
	var policy *seatingv1.Policy
	wl, err := l.seating.CreateWaitlist(floor, &seatingv1.CreateWaitlistRequest{Game: game})
	if err == nil {
		l.waitlist, policy = wl.GetWaitlist().GetWaitlistId(), wl.GetWaitlist().GetPolicy()
	} else {
		lists, lerr := l.seating.ListWaitlists(floor, &seatingv1.ListWaitlistsRequest{})
		if lerr != nil {
			return fmt.Errorf("open the waitlist: %w (listing: %v)", err, lerr)
		}
		for _, w := range lists.GetWaitlists() {
			if sameGame(w.GetGame(), game) {
				l.waitlist, policy = w.GetWaitlistId(), w.GetPolicy()
			}
		}
		if l.waitlist == "" {
			return fmt.Errorf("open the waitlist: %w", err)
		}
	}
	// The bots sign up from the app: the floor opens the list to remote
	// sign-up, which the house default (G-21) keeps closed.
	if policy.GetFloorSignUpOnly() {
		policy.FloorSignUpOnly = false
		if _, err := l.seating.SetPolicy(floor, &seatingv1.SetPolicyRequest{WaitlistId: l.waitlist, Policy: policy}); err != nil {
			return fmt.Errorf("open the waitlist to remote sign-up: %w", err)
		}
	}
	for i := range l.cfg.Tables {
		resp, err := l.tables.CreateTable(floor, &tablev1.CreateTableRequest{Name: fmt.Sprintf("loadgen %s %d", l.cfg.Run, i+1),
			Seats: int32(l.cfg.Seats), Kind: tablev1.TableKind_TABLE_KIND_CASH, Mode: tablev1.TableMode_TABLE_MODE_DIGITAL,
			ActionSeconds: 30, Game: game})
		if err != nil {
			return fmt.Errorf("open table %d: %w", i+1, err)
		}
		l.tableIDs = append(l.tableIDs, resp.GetTable().GetTableId())
	}
	return nil
}

func sameGame(a, b *gamev1.Game) bool {
	return a.GetVariant() == b.GetVariant() && a.GetStructure() == b.GetStructure() &&
		a.GetStakes().GetSmallBlind() == b.GetStakes().GetSmallBlind() && a.GetStakes().GetBigBlind() == b.GetStakes().GetBigBlind()
}

// close closes the run's tables: anyone still seated is cashed out.
func (l *room) close(ctx context.Context) {
	for _, id := range l.tableIDs {
		call(l.stats, "close", func() error {
			_, err := l.tables.CloseTable(withCtx(l.floor, ctx), &tablev1.CloseTableRequest{TableId: id})
			return err
		})
	}
}

// audit asks the wallet to prove its ledger and reconcile the tables until
// it is clean or the drain time is up: cash-outs reach the wallet
// asynchronously, through the table service's outbox.
func (l *room) audit(ctx context.Context) AuditResult {
	deadline := time.Now().Add(l.cfg.Drain)
	var res AuditResult
	for {
		res.AuditAttempts++
		a, err := l.wallet.Audit(withCtx(l.cashier, ctx), &walletv1.AuditRequest{})
		if err != nil {
			res.Clean, res.Problems = false, []string{"audit call: " + err.Error()}
		} else {
			res.Clean = a.GetClean() && len(a.GetProblems()) == 0 && a.GetTablesReconciled() && len(a.GetStuckCashOuts()) == 0
			res.Problems, res.Accounts, res.Transfers, res.Entries = a.GetProblems(), a.GetAccounts(), a.GetTransfers(), a.GetEntries()
			res.TablesReconciled, res.StuckCashOuts = a.GetTablesReconciled(), len(a.GetStuckCashOuts())
		}
		if res.Clean || time.Now().After(deadline) || ctx.Err() != nil {
			return res
		}
		time.Sleep(l.cfg.Poll)
	}
}

// withCtx carries who's token into ctx's lifetime.
func withCtx(who, ctx context.Context) context.Context {
	tok, _ := auth.TokenFromContext(who)
	return auth.WithToken(ctx, tok)
}

// call times fn as one op.
func call(s *stats, op string, fn func() error) error {
	t0 := time.Now()
	err := fn()
	s.record(op, time.Since(t0), err)
	return err
}
