package room

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/sqlstore"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/seating/store"
	"github.com/cardroom/cardroom/services/seating/waitlist"
	"github.com/cardroom/cardroom/services/seating/wire"
)

// Run first brings the seat-holder index up to date with every game
// (G-21), then runs seating's background loops until ctx ends and returns
// nil: the timer sweeper (every SweepInterval on the room's clock), the board's
// poll for changes made by other replicas (every BoardPoll), and, when the
// room has a bus, the consumers of table.opened, table.seat_opened,
// table.player_seated and table.closed (consumer group Config.Consumer)
// and, when it has Tables, of its own absence events (group
// Config.Consumer + ".table", HandleAbsence). A loop that fails is logged and retried; none of them stops the others.
func (r *Room) Run(ctx context.Context) error {
	if err := r.index(ctx); err != nil && ctx.Err() == nil {
		r.log.ErrorContext(ctx, "seating: seat holders not indexed", "error", err)
	}
	var wg sync.WaitGroup
	loop := func(name string, every time.Duration, round func(context.Context) error) {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-r.clock.After(every):
				}
				if err := round(ctx); err != nil && ctx.Err() == nil {
					r.log.ErrorContext(ctx, "seating "+name, "error", err)
				}
			}
		})
	}
	loop("timers", r.cfg.SweepInterval, r.Sweep)
	loop("board", r.cfg.BoardPoll, func(ctx context.Context) error { return r.board.poll(ctx, r.store.Versions) })
	subscribe := func(topic, group string, h events.Handler) {
		wg.Go(func() {
			for ctx.Err() == nil {
				if err := r.bus.Subscribe(ctx, topic, group, h); err != nil && ctx.Err() == nil {
					r.log.ErrorContext(ctx, "seating consumer", "topic", topic, "group", group, "error", err)
					select {
					case <-ctx.Done():
					case <-r.clock.After(time.Second):
					}
				}
			}
		})
	}
	if r.bus != nil {
		for topic, h := range map[string]events.Handler{
			events.TopicTableOpened: r.HandleTableOpened, events.TopicSeatOpened: r.HandleSeatOpened, events.TopicPlayerSeated: r.HandlePlayerSeated,
			events.TopicTableClosed: r.HandleTableClosed,
		} {
			subscribe(topic, r.cfg.Consumer, h)
		}
		if r.tables != nil {
			// Seating's own absence events, read back from the outbox's
			// bus: what a committed absence asks of the table is carried
			// out at least once, after the commit, on any replica.
			for _, k := range absenceTopics {
				subscribe(k.Topic(), r.cfg.Consumer+".table", r.HandleAbsence)
			}
		}
	}
	wg.Wait()
	return nil
}

// HandleTableOpened consumes table.opened: a cash table's empty seats are
// offered to its game's list (opened with the default policy when the game
// has none). Redeliveries change nothing.
func (r *Room) HandleTableOpened(ctx context.Context, ev events.Event) error {
	var msg tablev1.TableOpened
	if err := proto.Unmarshal(ev.Payload, &msg); err != nil {
		r.log.ErrorContext(ctx, "seating: undecodable table.opened dropped", "event", ev.ID, "error", err)
		return nil // redelivery cannot fix it
	}
	if msg.GetKind() == tablev1.TableKind_TABLE_KIND_TOURNAMENT || msg.GetGame() == nil {
		return nil
	}
	id, err := r.listFor(ctx, wire.Spec(msg.GetGame()))
	if err != nil {
		return err
	}
	return r.consume(ctx, id, ev, func(_ *sqlstore.Tx, g *waitlist.Game) ([]waitlist.Event, error) {
		return g.TableOpened(msg.GetTableId(), msg.GetName(), int(msg.GetSeats()), r.clock.Now()), nil
	})
}

// HandleSeatOpened consumes table.seat_opened: the seat is offered to the
// first eligible player of its game. Redeliveries change nothing.
func (r *Room) HandleSeatOpened(ctx context.Context, ev events.Event) error {
	var msg tablev1.SeatOpened
	if err := proto.Unmarshal(ev.Payload, &msg); err != nil {
		r.log.ErrorContext(ctx, "seating: undecodable table.seat_opened dropped", "event", ev.ID, "error", err)
		return nil
	}
	id, err := r.store.ByTable(ctx, msg.GetTableId())
	if err != nil {
		if msg.GetGame() == nil {
			r.log.WarnContext(ctx, "seating: seat opened at a table of no known game", "table", msg.GetTableId())
			return nil
		}
		if id, err = r.listFor(ctx, wire.Spec(msg.GetGame())); err != nil {
			return err
		}
	}
	return r.consume(ctx, id, ev, func(_ *sqlstore.Tx, g *waitlist.Game) ([]waitlist.Event, error) {
		return g.SeatOpened(msg.GetTableId(), int(msg.GetSeat()), r.clock.Now()), nil
	})
}

// HandlePlayerSeated consumes table.player_seated: it confirms a seat
// taken through an offer (its hold no longer lapses) and records players
// the floor seated at the table directly. Redeliveries change nothing.
func (r *Room) HandlePlayerSeated(ctx context.Context, ev events.Event) error {
	var msg tablev1.PlayerSeated
	if err := proto.Unmarshal(ev.Payload, &msg); err != nil {
		r.log.ErrorContext(ctx, "seating: undecodable table.player_seated dropped", "event", ev.ID, "error", err)
		return nil
	}
	id, err := r.store.ByTable(ctx, msg.GetTableId())
	if errors.Is(err, store.ErrTableNotFound) {
		// A table seating never heard of (a tournament table): not ours.
		return nil
	}
	if err != nil {
		return err
	}
	return r.consume(ctx, id, ev, func(_ *sqlstore.Tx, g *waitlist.Game) ([]waitlist.Event, error) {
		return g.PlayerSeated(msg.GetTableId(), int(msg.GetSeat()), msg.GetPlayerId(), r.clock.Now()), nil
	})
}

// HandleTableClosed consumes table.closed: the table breaks as the floor's
// BreakTable breaks it — the open offers of its seats are withdrawn, it
// leaves its game, and the players the table reports seated at the close
// go to the head of the game's list for seats at its other tables. A
// tournament table, or one seating broke already, changes nothing, and so
// do redeliveries; a table whose table.opened has not arrived yet is
// broken in its game's list all the same.
func (r *Room) HandleTableClosed(ctx context.Context, ev events.Event) error {
	var msg tablev1.TableClosed
	if err := proto.Unmarshal(ev.Payload, &msg); err != nil {
		r.log.ErrorContext(ctx, "seating: undecodable table.closed dropped", "event", ev.ID, "error", err)
		return nil
	}
	if msg.GetKind() == tablev1.TableKind_TABLE_KIND_TOURNAMENT {
		return nil
	}
	id, err := r.store.ByTable(ctx, msg.GetTableId())
	if errors.Is(err, store.ErrTableNotFound) && msg.GetGame() != nil {
		// table.closed overtook table.opened: the game's list breaks it
		// all the same, and remembers it.
		id, err = r.listFor(ctx, wire.Spec(msg.GetGame()))
	}
	if errors.Is(err, store.ErrTableNotFound) {
		r.log.WarnContext(ctx, "seating: table of no known game closed", "table", msg.GetTableId())
		return nil
	}
	if err != nil {
		return err
	}
	seats := slices.Clone(msg.GetPlayers())
	slices.SortStableFunc(seats, func(a, b *tablev1.SeatPlayer) int { return cmp.Compare(a.GetSeat(), b.GetSeat()) })
	players := make([]string, 0, len(seats))
	for _, s := range seats {
		if s.GetPlayerId() != "" {
			players = append(players, s.GetPlayerId())
		}
	}
	return r.consume(ctx, id, ev, func(_ *sqlstore.Tx, g *waitlist.Game) ([]waitlist.Event, error) {
		_, evs := g.TableClosed(msg.GetTableId(), players, r.clock.Now())
		return evs, nil
	})
}

// consume applies an event to game id once: under the game's lock, inside
// the idempotent consumer's transaction, through the owner's fence.
func (r *Room) consume(ctx context.Context, id string, ev events.Event, c change) error {
	return r.store.Locked(ctx, id, func(ctx context.Context, owner *lock.Owner) error {
		apply := func(ctx context.Context, tx *sqlstore.Tx, _ events.Event) error {
			_, err := r.store.Apply(ctx, tx, owner.Fence, func(tx *sqlstore.Tx, g *waitlist.Game, epoch int64) error {
				return r.apply(ctx, tx, g, epoch, nil, c)
			})
			return err
		}
		if err := events.Idempotent(r.store.DB(), r.cfg.Consumer, apply)(ctx, ev); err != nil {
			return fmt.Errorf("apply %s %s to waitlist %s: %w", ev.Topic, ev.ID, id, err)
		}
		return nil
	})
}

// listFor returns the list of a game, opening it with the default policy
// when the game has none.
func (r *Room) listFor(ctx context.Context, spec waitlist.Spec) (string, error) {
	id, err := r.store.ByGame(ctx, spec)
	if err != nil || id != "" {
		return id, err
	}
	g, err := r.CreateWaitlist(ctx, spec, r.cfg.Defaults)
	if err == nil {
		return g.ID, nil
	}
	// Another replica (or redelivery) opened it first.
	if id, err2 := r.store.ByGame(ctx, spec); err2 == nil && id != "" {
		return id, nil
	}
	return "", errors.Join(err, fmt.Errorf("open waitlist for %s", spec.Name()))
}
