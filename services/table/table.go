// Package table wires the table service: its store, its runner (the
// tables this process deals), its gRPC server, and what cmd/cardroom needs
// to open its database.
package table

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"google.golang.org/grpc"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/rpc"
	"github.com/cardroom/cardroom/platform/sqlstore"
	seatingv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/seating/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/runner"
	"github.com/cardroom/cardroom/services/table/seal"
	"github.com/cardroom/cardroom/services/table/server"
	"github.com/cardroom/cardroom/services/table/store"
)

// Name is the service's name: its SQLite file, its PostgreSQL schema, its
// health-check service name.
const Name = "table"

// ResolveSealKey returns the configured seal key, or a development key
// generated once in dataDir (file seal.KeyFile, mode 0600).
func ResolveSealKey(configured, dataDir string) ([]byte, error) {
	return seal.ResolveKey(configured, dataDir)
}

// DBOptions returns the service's database options (migrations, including
// the outbox's); the caller fills in URL and DataDir.
func DBOptions() sqlstore.Options {
	// Every action is a write: a larger pool than the default 8 keeps 200
	// busy tables from queueing for connections.
	return sqlstore.Options{Service: Name, Migrations: store.Migrations(), Shared: []sqlstore.MigrationSet{events.Migrations},
		MaxOpenConns: 24}
}

// Config is the table service's settings as New takes them
// (Settings.Config makes it from the environment's); the zero value, but
// for the seal key, is the default.
type Config struct {
	// SealKey is the 32-byte AES-256-GCM key for decks, hands and
	// histories (ResolveSealKey).
	SealKey []byte
	// HandPause is the pause between hands (0: the next hand is dealt at
	// once).
	HandPause time.Duration
	// ActionTimeout is the default house time per decision for tables
	// opened without one (G-16); zero is none.
	ActionTimeout time.Duration
	// AsyncActionCommit trades durability for latency on PostgreSQL: plain
	// actions (no money, no hand end, no event) commit without waiting for
	// the WAL flush, so a crash of the database server may lose the last few
	// hundred milliseconds of them (the table service crashing loses
	// nothing). Off by default.
	AsyncActionCommit bool
	// StateCommitters is how many group commits of table states run at
	// once, each on a connection of its own; zero is
	// store.DefaultStateCommitters.
	StateCommitters int
	// AdvertiseAddr is the gRPC address other replicas reach this one at
	// (AdvertiseAddr below). With a Redis locker the table leases carry it,
	// and a call about a table another replica runs is forwarded to that
	// replica's advertised address. Empty: this replica's tables are not
	// forwarded to (others answer TABLE_OWNED_ELSEWHERE for them), though
	// it still forwards to the replicas that advertise.
	AdvertiseAddr string
}

// Deps is what the service needs from its process.
type Deps struct {
	DB     *sqlstore.DB
	Clock  clock.Clock
	Locker lock.Locker
	Relay  *events.Relay
	// Wallet takes buy-ins and pays cash-outs; dial it with the service's
	// own token (rpc.Options.ServiceToken): the table strips the caller's.
	// Nil plays without money (runner.NoMoney: tests of play).
	Wallet walletv1.WalletServiceClient
	// Seating confirms the offers players sit with. Nil: only the floor
	// seats players.
	Seating seatingv1.SeatingServiceClient
	// Shuffle returns a shuffled deck; nil uses crypto/rand.
	Shuffle func() cards.Deck
	// Forward configures the connections forwarded calls use (tests set
	// the tracer provider); the caller's token is what they carry.
	Forward rpc.Options
	Logger  *slog.Logger
}

// Service is the table service.
type Service struct {
	server  *server.Server
	runner  *runner.Runner
	forward *server.Forwarder
}

// New wires the service over deps as cfg says.
func New(cfg Config, deps Deps) (*Service, error) {
	sealer, err := seal.New(cfg.SealKey)
	if err != nil {
		return nil, fmt.Errorf("table service: %w", err)
	}
	st := store.New(deps.DB)
	locker := deps.Locker
	var holders server.Holders
	if rl, ok := deps.Locker.(*lock.Redis); ok {
		// Several replicas share the tables: leases name their holder so
		// that calls reach it. The in-process locker has one process and
		// nothing to forward.
		if cfg.AdvertiseAddr != "" {
			rl = rl.WithHolder(cfg.AdvertiseAddr)
		}
		locker, holders = rl, rl
	}
	var wallet runner.Wallet = runner.NoMoney{}
	if deps.Wallet != nil {
		wallet = Wallet{Client: deps.Wallet}
	}
	r, err := runner.New(runner.Deps{DB: deps.DB, Store: st, States: store.NewStateGroup(st, 0, cfg.StateCommitters), Clock: deps.Clock, Locker: locker, Relay: deps.Relay, Sealer: sealer,
		Wallet: wallet, Shuffle: deps.Shuffle, HandPause: cfg.HandPause, AsyncActionCommit: cfg.AsyncActionCommit, Logger: deps.Logger})
	if err != nil {
		return nil, fmt.Errorf("table service: %w", err)
	}
	var offers server.OfferVerifier
	if deps.Seating != nil {
		offers = SeatingOffers{Client: deps.Seating}
	}
	srv := server.New(server.Config{Runner: r, Offers: offers, ActionTimeout: cfg.ActionTimeout})
	fwd := server.NewForwarder(server.ForwardConfig{Self: cfg.AdvertiseAddr, Holders: holders, Runner: r, Dial: deps.Forward,
		Logger: deps.Logger})
	return &Service{server: srv, runner: r, forward: fwd}, nil
}

// Register exposes the service (TableService, the tournament's
// TournamentTableService and the wallet's CashTableLedgerService) on a gRPC server, forwarding each call about a
// table another replica runs to that replica.
func (s *Service) Register(r grpc.ServiceRegistrar) {
	r.RegisterService(s.forward.Desc(&tablev1.TableService_ServiceDesc), s.server)
	r.RegisterService(s.forward.Desc(&tablev1.TournamentTableService_ServiceDesc), s.server.Tournament())
	// The wallet's questions read the store: any replica answers them.
	r.RegisterService(&tablev1.CashTableLedgerService_ServiceDesc, s.server.Ledger())
}

// Run claims the open tables and deals them until ctx ends; it then
// releases them (their state is already stored) and returns. Run it in its
// own goroutine; tables are also claimed on first use without it.
func (s *Service) Run(ctx context.Context) error { return s.runner.Run(ctx) }

// Close releases every table this process runs (Run does it on return)
// and closes the connections to other replicas.
func (s *Service) Close() error {
	s.runner.Close()
	return s.forward.Close()
}

// CountCash counts the chips of the cash tables in db and their pending
// wallet steps (CashTableLedgerService's count), for `cardroom wallet
// audit`, which reconciles them with the wallet's escrow offline.
func CountCash(ctx context.Context, db *sqlstore.DB) ([]runner.CashCount, error) {
	return runner.CountCash(ctx, store.New(db))
}

// SeatingOffers verifies offers with the seating service: the offer must be
// the player's, for this table and seat, and pending or accepted.
type SeatingOffers struct {
	Client seatingv1.SeatingServiceClient
}

// ErrOfferNotValid is returned for an offer that does not seat the player here.
var ErrOfferNotValid = fault.New(fault.Precondition, "SEATING_OFFER_NOT_VALID", "the offer is not this player's accepted offer for this seat")

// VerifyOffer checks the offer with the seating service.
func (o SeatingOffers) VerifyOffer(ctx context.Context, offerID, player, tableID string, seat int) error {
	resp, err := o.Client.ListOffers(ctx, &seatingv1.ListOffersRequest{PlayerId: player})
	if err != nil {
		return fmt.Errorf("check offer %s: %w", offerID, err)
	}
	for _, of := range resp.GetOffers() {
		if of.GetOfferId() != offerID {
			continue
		}
		st := of.GetState()
		if of.GetPlayerId() == player && of.GetTableId() == tableID && int(of.GetSeat()) == seat &&
			(st == seatingv1.OfferState_OFFER_STATE_ACCEPTED || st == seatingv1.OfferState_OFFER_STATE_PENDING) {
			return nil
		}
	}
	return ErrOfferNotValid
}
