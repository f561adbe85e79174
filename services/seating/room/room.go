// Package room is seating's application layer: it turns requests, table
// events and timers into updates of one game at a time — under the game's
// lock and fencing epoch, in one transaction with the outbox events they
// cause and the floor decisions they record — and it runs seating's
// background loops (offer and absence timers, table-event consumers, the
// live board's change feed).
package room

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/gamingday"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/seating/store"
	"github.com/cardroom/cardroom/services/seating/waitlist"
	"github.com/cardroom/cardroom/services/seating/wire"
)

// Config tunes the room. Zero values take the defaults.
type Config struct {
	// Defaults is the policy of a game whose list is opened without one
	// (including lists opened by a table.opened event); zero means
	// waitlist.DefaultPolicy.
	Defaults waitlist.Policy
	// GamingDay is where the "evening" of CS-14 ends (G-20). A nil
	// Location means the house default, 06:00 in Helsinki.
	GamingDay gamingday.Day
	// SweepInterval is how often the timers are checked; default 1 s,
	// within SweepIntervalRange.
	SweepInterval time.Duration
	// BoardPoll is how often the board looks for changes made by other
	// replicas; default 1 s, within BoardPollRange.
	BoardPoll time.Duration
	// Consumer names seating's consumer group and its processed-events
	// records; default "seating".
	Consumer string
}

// Loop intervals New accepts (zero takes the default, 1 s): anything
// outside is a mistake, refused with TIMER_OUT_OF_RANGE like a policy's
// timers.
var (
	// SweepIntervalRange keeps the sweeper looking at least once within
	// the shortest offer a policy may set, and no tighter than 10 ms,
	// which would only load the database.
	SweepIntervalRange = waitlist.Range{Min: 10 * time.Millisecond, Max: waitlist.OfferTimeoutRange.Min}
	// BoardPollRange bounds how stale another replica's changes may be on
	// this replica's board.
	BoardPollRange = waitlist.Range{Min: 10 * time.Millisecond, Max: time.Minute}
)

// Deps is what a Room runs on.
type Deps struct {
	Store *store.Store
	// Relay writes events to the outbox and wakes the relay on commit.
	Relay *events.Relay
	// Bus delivers table events; nil runs no consumers.
	Bus events.Bus
	// Tables carries absences to the table service; nil leaves the table
	// to the app (tests of seating alone).
	Tables Tables
	Clock  clock.Clock
	Logger *slog.Logger
}

// Actor is who makes a change: a subject, and whether they act with the
// room's authority (floor, admin, dealer, service) rather than as a player.
type Actor struct {
	Subject string
	Floor   bool
}

// Room is the seating service's application layer.
type Room struct {
	store  *store.Store
	relay  *events.Relay
	bus    events.Bus
	tables Tables
	clock  clock.Clock
	log    *slog.Logger
	cfg    Config
	board  *Board
}

// New returns a Room. It fails on a config whose timers are out of range.
func New(deps Deps, cfg Config) (*Room, error) {
	if cfg.Defaults == (waitlist.Policy{}) {
		cfg.Defaults = waitlist.DefaultPolicy()
	}
	if err := cfg.Defaults.Validate(); err != nil {
		return nil, fmt.Errorf("seating default policy: %w", err)
	}
	if cfg.GamingDay.Location == nil {
		d, err := gamingday.Default().Day()
		if err != nil {
			return nil, fmt.Errorf("seating gaming day: %w", err)
		}
		cfg.GamingDay = d
	}
	if err := cfg.GamingDay.Validate(); err != nil {
		return nil, fmt.Errorf("seating: %w", err)
	}
	cfg.SweepInterval = cmp.Or(cfg.SweepInterval, time.Second)
	cfg.BoardPoll = cmp.Or(cfg.BoardPoll, time.Second)
	if err := errors.Join(SweepIntervalRange.Check("sweep_interval", cfg.SweepInterval),
		BoardPollRange.Check("board_poll", cfg.BoardPoll)); err != nil {
		return nil, fmt.Errorf("seating loops: %w", err)
	}
	cfg.Consumer = cmp.Or(cfg.Consumer, "seating")
	deps.Clock = cmp.Or[clock.Clock](deps.Clock, clock.Real{})
	deps.Logger = cmp.Or(deps.Logger, slog.Default())
	if deps.Store == nil {
		return nil, errors.New("seating: no store")
	}
	return &Room{store: deps.Store, relay: deps.Relay, bus: deps.Bus, tables: deps.Tables, clock: deps.Clock, log: deps.Logger, cfg: cfg, board: newBoard()}, nil
}

// Board returns the live board's change feed.
func (r *Room) Board() *Board { return r.board }

// Defaults returns the default policy.
func (r *Room) Defaults() waitlist.Policy { return r.cfg.Defaults }

// SetName records the display name player goes by on the board.
func (r *Room) SetName(ctx context.Context, player, name string) error {
	return r.store.SetName(ctx, player, name, r.clock.Now())
}

// Names returns the display names recorded for players (absent: none).
func (r *Room) Names(ctx context.Context, players []string) (map[string]string, error) {
	return r.store.Names(ctx, players)
}

// change is one update of a game: it returns the domain events to publish
// and, for floor decisions, what to record.
type change func(tx *sqlstore.Tx, g *waitlist.Game) ([]waitlist.Event, error)

// update runs c on game id under its lock and fence; d, when not nil, is
// recorded as the floor's decision in the same transaction.
func (r *Room) update(ctx context.Context, id string, d *store.Decision, c change) (store.Record, error) {
	return r.store.Update(ctx, id, func(tx *sqlstore.Tx, g *waitlist.Game, epoch int64) error {
		return r.apply(ctx, tx, g, epoch, d, c)
	})
}

// apply runs c on g inside tx, publishes the events and records d. The
// players seated elsewhere are read in the same transaction, and the
// index of who holds a seat where is updated with the game (G-21).
func (r *Room) apply(ctx context.Context, tx *sqlstore.Tx, g *waitlist.Game, epoch int64, d *store.Decision, c change) error {
	elsewhere, err := r.store.HeldElsewhere(ctx, tx, g.ID)
	if err != nil {
		return err
	}
	// G-21: offers to players seated in another game are withdrawn and
	// none is made to them, whatever the change.
	evs := g.Busy(elsewhere, r.clock.Now())
	more, err := c(tx, g)
	if err != nil {
		return err
	}
	if err := r.store.IndexHolders(ctx, tx, g); err != nil {
		return err
	}
	evs = append(evs, more...)
	for _, ev := range evs {
		e, err := wire.Event(g, ev)
		if err != nil {
			return err
		}
		e.Epoch = epoch
		if r.relay != nil {
			err = r.relay.Add(ctx, tx, e)
		} else {
			err = events.Add(ctx, tx, e)
		}
		if err != nil {
			return fmt.Errorf("publish %s: %w", e.Topic, err)
		}
	}
	if d != nil {
		// UUIDv7: decisions made in the same millisecond keep their order.
		did, err := uuid.NewV7()
		if err != nil {
			return err
		}
		d.ID, d.Waitlist, d.At = did.String(), g.ID, r.clock.Now().UTC()
		if err := r.store.RecordDecision(ctx, tx, *d); err != nil {
			return err
		}
	}
	id, snapshot := g.ID, *g
	tx.AfterCommit(func() {
		r.board.Notify(id)
		record(ctx, &snapshot, evs)
	})
	return nil
}

// decision returns what to record when a floor actor decides; nil for a
// player acting for themselves.
func decision(a Actor, action, player, reason string) *store.Decision {
	if !a.Floor {
		return nil
	}
	return &store.Decision{Floor: a.Subject, Action: action, Player: player, Reason: reason}
}

// CreateWaitlist opens the list of a game with a policy.
func (r *Room) CreateWaitlist(ctx context.Context, spec waitlist.Spec, p waitlist.Policy) (*waitlist.Game, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	g, err := waitlist.New(id.String(), spec, p, r.clock.Now().UTC())
	if err != nil {
		return nil, err
	}
	if err := r.store.Create(ctx, g); err != nil {
		return nil, err
	}
	r.board.Notify(g.ID)
	return g, nil
}

// List returns a page of lists (size 0: all of them).
func (r *Room) List(ctx context.Context, size int, token string) ([]store.Record, string, error) {
	return r.store.List(ctx, size, token)
}

// Get returns one list.
func (r *Room) Get(ctx context.Context, id string) (store.Record, error) { return r.store.Get(ctx, id) }

// SetPolicy replaces a game's policy (a recorded floor decision).
func (r *Room) SetPolicy(ctx context.Context, id string, p waitlist.Policy, a Actor) (store.Record, error) {
	return r.update(ctx, id, decision(a, "set_policy", "", ""), func(_ *sqlstore.Tx, g *waitlist.Game) ([]waitlist.Event, error) {
		return g.SetPolicy(p, r.clock.Now())
	})
}

// Join puts a player on a list; by the floor it is recorded as a sign-up
// in the room.
func (r *Room) Join(ctx context.Context, id, player string, a Actor) (store.Record, error) {
	by := waitlist.Remote
	if a.Floor {
		by = waitlist.Floor
	}
	return r.update(ctx, id, decision(a, "sign_up", player, ""), func(_ *sqlstore.Tx, g *waitlist.Game) ([]waitlist.Event, error) {
		_, evs, err := g.Join(player, by, r.clock.Now())
		return evs, err
	})
}

// Leave takes a player off a list.
func (r *Room) Leave(ctx context.Context, id, player, reason string, a Actor) (store.Record, error) {
	return r.update(ctx, id, decision(a, "remove_entry", player, reason), func(_ *sqlstore.Tx, g *waitlist.Game) ([]waitlist.Event, error) {
		return g.Leave(player, r.clock.Now())
	})
}

// Move is the floor reordering a list, with a reason.
func (r *Room) Move(ctx context.Context, id, player string, pos int, reason string, a Actor) (store.Record, error) {
	return r.update(ctx, id, decision(a, "move_entry", player, fmt.Sprintf("to %d: %s", pos, reason)), func(_ *sqlstore.Tx, g *waitlist.Game) ([]waitlist.Event, error) {
		return g.Move(player, pos, reason, r.clock.Now())
	})
}

// RequestTableChange puts a seated player on the table-change list.
func (r *Room) RequestTableChange(ctx context.Context, id, player string, a Actor) (store.Record, error) {
	return r.update(ctx, id, decision(a, "table_change", player, ""), func(_ *sqlstore.Tx, g *waitlist.Game) ([]waitlist.Event, error) {
		_, evs, err := g.RequestTableChange(player, r.clock.Now())
		return evs, err
	})
}

// ErrBadOfferID is an offer id seating did not issue.
var ErrBadOfferID = fault.New(fault.NotFound, "OFFER_NOT_FOUND", "no such seat offer")

// waitlistOf returns the list an offer id belongs to: ids are
// "<waitlist id>.<sequence>".
func waitlistOf(offerID string) (string, error) {
	i := strings.LastIndexByte(offerID, '.')
	if i <= 0 {
		return "", ErrBadOfferID.With("offer_id", offerID)
	}
	return offerID[:i], nil
}

// Offers returns a player's open offers in every game: pending ones, and
// accepted ones whose seat is still held for the sit-down.
func (r *Room) Offers(ctx context.Context, player string) ([]Offer, error) {
	recs, _, err := r.store.List(ctx, 0, "")
	if err != nil {
		return nil, err
	}
	var out []Offer
	for _, rec := range recs {
		for _, o := range rec.Game.OpenOffers(r.clock.Now()) {
			if o.Player == player {
				out = append(out, Offer{Game: rec.Game, Offer: o})
			}
		}
	}
	return out, nil
}

// Offer is an offer with its game.
type Offer struct {
	Game  *waitlist.Game
	Offer waitlist.Offer
}

// Answer accepts or declines an offer for player; the floor may answer for
// the player offered the seat (player "").
func (r *Room) Answer(ctx context.Context, offerID, player string, accept bool, a Actor) (Offer, error) {
	id, err := waitlistOf(offerID)
	if err != nil {
		return Offer{}, err
	}
	var out waitlist.Offer
	action := map[bool]string{true: "accept_offer", false: "decline_offer"}[accept]
	var d *store.Decision
	if a.Floor {
		d = decision(a, action, player, offerID)
	}
	rec, err := r.update(ctx, id, d, func(tx *sqlstore.Tx, g *waitlist.Game) ([]waitlist.Event, error) {
		who := player
		if who == "" && a.Floor {
			if o := g.Offer(offerID); o != nil {
				who = o.Player
			}
		}
		if d != nil {
			d.Player = who
		}
		var evs []waitlist.Event
		var err error
		if accept {
			out, evs, err = g.Accept(offerID, who, r.clock.Now())
			if err == nil {
				err = r.claim(ctx, tx, g.ID, out)
			}
		} else {
			out, evs, err = g.Decline(offerID, who, r.clock.Now())
		}
		return evs, err
	})
	if errors.Is(err, store.ErrNotFound) {
		return Offer{}, ErrBadOfferID.With("offer_id", offerID)
	}
	if err == nil && accept {
		r.withdrawElsewhere(ctx, id, out.Player)
	}
	return Offer{Game: rec.Game, Offer: out}, err
}

// noChange is the change that only runs what every change runs: offers to
// players seated elsewhere withdrawn, the seat-holder index brought up to
// date.
func noChange(*sqlstore.Tx, *waitlist.Game) ([]waitlist.Event, error) { return nil, nil }

// index brings the seat holders of games last saved before the index
// existed into it (G-21), each game under its own lock; a game the index
// already matches is not touched.
func (r *Room) index(ctx context.Context) error {
	recs, _, err := r.store.List(ctx, 0, "")
	if err != nil {
		return fmt.Errorf("index seat holders: %w", err)
	}
	ids, err := r.store.Unindexed(ctx, recs)
	if err != nil {
		return fmt.Errorf("index seat holders: %w", err)
	}
	var errs []error
	for _, id := range ids {
		if _, err := r.update(ctx, id, nil, noChange); err != nil {
			errs = append(errs, fmt.Errorf("index seat holders of %s: %w", id, err))
		}
	}
	return errors.Join(errs...)
}

// claim records the accepted offer's seat as the player's one seat in the
// room (G-21). Another game may have seated the player after this game
// read who is seated elsewhere: then the acceptance is refused and,
// its transaction undone, nothing of it remains.
func (r *Room) claim(ctx context.Context, tx *sqlstore.Tx, id string, o waitlist.Offer) error {
	table, err := r.store.Claim(ctx, tx, id, o.Player, o.Table)
	if err != nil {
		return err
	}
	if table != "" {
		return waitlist.ErrSeatedElsewhere.With("table_id", table)
	}
	return nil
}

// withdrawElsewhere withdraws the pending offers player holds in games
// other than id, now that they hold a seat in id (G-21): each of those
// seats goes to the next player at once. A game that cannot be updated
// now does it at its next change (every change withdraws the offers of
// players seated elsewhere), and the offer cannot be accepted meanwhile.
func (r *Room) withdrawElsewhere(ctx context.Context, id, player string) {
	offers, err := r.Offers(ctx, player)
	if err != nil {
		r.log.WarnContext(ctx, "seating: offers in other games not withdrawn", "player", player, "error", err)
		return
	}
	for _, o := range offers {
		if o.Game.ID == id || o.Offer.State != waitlist.Pending {
			continue
		}
		if _, err := r.update(ctx, o.Game.ID, nil, noChange); err != nil {
			r.log.WarnContext(ctx, "seating: offer in another game not withdrawn", "player", player, "waitlist", o.Game.ID, "error", err)
		}
	}
}

// SetMustMove marks a table must-move or main.
func (r *Room) SetMustMove(ctx context.Context, table string, mustMove bool, a Actor) (waitlist.Table, error) {
	id, err := r.store.ByTable(ctx, table)
	if err != nil {
		return waitlist.Table{}, err
	}
	var t waitlist.Table
	_, err = r.update(ctx, id, decision(a, "set_must_move", "", fmt.Sprintf("table %s must-move %v", table, mustMove)),
		func(_ *sqlstore.Tx, g *waitlist.Game) ([]waitlist.Event, error) {
			var evs []waitlist.Event
			var err error
			t, evs, err = g.SetMustMove(table, mustMove, r.clock.Now())
			return evs, err
		})
	return t, err
}

// BreakTable takes a breaking table out of seating; its players get the
// head of the list.
func (r *Room) BreakTable(ctx context.Context, table, reason string, a Actor) ([]waitlist.Entry, store.Record, error) {
	id, err := r.store.ByTable(ctx, table)
	if err != nil {
		return nil, store.Record{}, err
	}
	var moved []waitlist.Entry
	rec, err := r.update(ctx, id, decision(a, "break_table", "", "table "+table+": "+reason),
		func(_ *sqlstore.Tx, g *waitlist.Game) ([]waitlist.Event, error) {
			var evs []waitlist.Event
			var err error
			moved, evs, err = g.BreakTable(table, r.clock.Now())
			return evs, err
		})
	return moved, rec, err
}

// ErrLimitForFloor refuses a player who sets their own absence's time
// limit: only the floor sets one (CS-14); a player takes the policy's.
var ErrLimitForFloor = fault.Rule(fault.Forbidden, "CS-14", "LIMIT_FOR_FLOOR", "only the floor sets an absence's time limit")

// MarkAway starts an absence. A long break is taken from the player's
// allowance of the gaming day (CS-14) in the same transaction.
func (r *Room) MarkAway(ctx context.Context, table, player string, kind waitlist.AbsenceKind, limit time.Duration, a Actor) (waitlist.Absence, *waitlist.Game, error) {
	if limit != 0 && !a.Floor {
		return waitlist.Absence{}, nil, ErrLimitForFloor
	}
	id, err := r.store.ByTable(ctx, table)
	if err != nil {
		return waitlist.Absence{}, nil, err
	}
	var out waitlist.Absence
	var d *store.Decision
	if limit != 0 {
		d = decision(a, "absence_limit", player, limit.String())
	}
	rec, err := r.update(ctx, id, d, func(tx *sqlstore.Tx, g *waitlist.Game) ([]waitlist.Event, error) {
		now := r.clock.Now()
		day := r.cfg.GamingDay.Of(now)
		used := false
		if kind == waitlist.LongBreak {
			took, err := r.store.TakeLongBreak(ctx, tx, player, day, g.ID, table, now)
			if err != nil {
				return nil, err
			}
			used = !took
		}
		var evs []waitlist.Event
		var err error
		out, evs, err = g.MarkAway(table, player, kind, limit, day, used, now)
		return evs, err
	})
	return out, rec.Game, err
}

// MarkBack ends an absence.
func (r *Room) MarkBack(ctx context.Context, table, player string) error {
	id, err := r.store.ByTable(ctx, table)
	if err != nil {
		return err
	}
	_, err = r.update(ctx, id, nil, func(_ *sqlstore.Tx, g *waitlist.Game) ([]waitlist.Event, error) {
		_, evs, err := g.MarkBack(table, player)
		return evs, err
	})
	return err
}

// Absence is an absence with its game.
type Absence struct {
	Game    *waitlist.Game
	Absence waitlist.Absence
}

// Absences lists absences in every game, soonest due first; overdueOnly
// keeps those waiting for the floor (CS-13).
func (r *Room) Absences(ctx context.Context, overdueOnly bool) ([]Absence, error) {
	recs, _, err := r.store.List(ctx, 0, "")
	if err != nil {
		return nil, err
	}
	var out []Absence
	for _, rec := range recs {
		for _, a := range rec.Game.Absences {
			if a.Overdue || !overdueOnly {
				out = append(out, Absence{Game: rec.Game, Absence: a})
			}
		}
	}
	slices.SortFunc(out, func(a, b Absence) int { return a.Absence.Due.Compare(b.Absence.Due) })
	return out, nil
}

// DecideAbsence records and applies the floor's decision on an overdue
// absence (CS-13, CS-14).
func (r *Room) DecideAbsence(ctx context.Context, table, player string, release bool, extend time.Duration, reason string, a Actor) (store.Decision, error) {
	id, err := r.store.ByTable(ctx, table)
	if err != nil {
		return store.Decision{}, err
	}
	action := "extend_absence"
	if release {
		action = "release_seat"
	} else if extend > 0 {
		reason = strings.TrimSpace(fmt.Sprintf("%v more. %s", extend, reason))
	}
	d := &store.Decision{Floor: a.Subject, Action: action, Player: player, Reason: reason}
	_, err = r.update(ctx, id, d, func(_ *sqlstore.Tx, g *waitlist.Game) ([]waitlist.Event, error) {
		_, evs, err := g.DecideAbsence(table, player, release, extend, r.clock.Now())
		return evs, err
	})
	if err != nil {
		return store.Decision{}, err
	}
	return *d, nil
}

// Decisions lists the floor's decisions on a game, newest first.
func (r *Room) Decisions(ctx context.Context, id string, n int) ([]store.Decision, error) {
	if _, err := r.store.Get(ctx, id); err != nil {
		return nil, err
	}
	return r.store.Decisions(ctx, id, n)
}

// Sweep runs every timer that came due: offers expire to the next player,
// absences become decisions for the floor.
func (r *Room) Sweep(ctx context.Context) error {
	ids, err := r.store.Due(ctx, r.clock.Now())
	if err != nil {
		return err
	}
	var errs []error
	for _, id := range ids {
		_, err := r.update(ctx, id, nil, func(_ *sqlstore.Tx, g *waitlist.Game) ([]waitlist.Event, error) {
			return g.Tick(r.clock.Now()), nil
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("sweep waitlist %s: %w", id, err))
		}
	}
	return errors.Join(errs...)
}
