package runner

import (
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/table/store"
)

// G-21 (the house default): a player may not hold seats in two games. The
// tables of one room are run by several replicas, each knowing only its own
// tables, so the seats held are mirrored in the shared store
// (seated_players, one row per player): each table writes its rows in the
// transaction that changes its seats, and the row's primary key refuses a
// second seat anywhere. Sit asks the store first, so that the usual
// refusal changes nothing; the primary key settles a race of two
// sit-downs that both passed that check (the loser's transaction is
// refused before the wallet is asked, so no money moves).

// holdsSeats reports whether the table's seats count under G-21: cash
// tables only. Tournament seats are the tournament's to assign (its
// players are moved by the tournament service, and its chips are not
// money), so a tournament table neither holds a player nor refuses one.
func (t *Table) holdsSeats() bool { return !t.def.Config.Tournament }

// holders returns the players who hold a seat at the table, by seat. A
// player who asked to leave at the end of the hand still holds it until
// they are cashed out: sitting elsewhere before the wallet has recorded
// the stack they leave with would let them dodge the one night, one stack
// rules (CS-09, CS-10) by leaving mid-hand. Players at a closing table do
// not hold their seats: the floor broke the table, seating offers them
// seats elsewhere with priority at once, and they may take one as soon
// as they are free.
func (t *Table) holders() map[string]int {
	out := map[string]int{}
	if !t.holdsSeats() || t.dt.Closing() {
		return out
	}
	for i, s := range t.dt.Seats() {
		if s.Occupied() {
			out[s.Player] = i
		}
	}
	return out
}

// holdersChanged reports whether holders differs from t.seated, without
// allocating: it runs on every persisted change, and seats rarely change.
func (t *Table) holdersChanged() bool {
	if !t.holdsSeats() || t.dt.Closing() {
		return len(t.seated) > 0
	}
	n := 0
	for i, s := range t.dt.Seats() {
		if s.Occupied() {
			if seat, ok := t.seated[s.Player]; !ok || seat != i {
				return true
			}
			n++
		}
	}
	return n != len(t.seated)
}

// withHoldings adds the change of the table's seat holders (if any) to the
// transaction that persists a change, and returns done: call it with the
// transaction's result so that the table remembers what the store holds.
// The caller holds t.mu.
func (t *Table) withHoldings(ctx context.Context, extra func(tx *sqlstore.Tx) error) (func(tx *sqlstore.Tx) error, func(error) error) {
	if !t.holdersChanged() {
		return extra, func(err error) error { return err }
	}
	want := t.holders()
	return func(tx *sqlstore.Tx) error {
			if extra != nil {
				if err := extra(tx); err != nil {
					return err
				}
			}
			return t.syncHoldings(ctx, tx, want, true)
		}, func(err error) error {
			if err == nil {
				t.seated = want
			}
			return err
		}
}

// syncHoldings writes the difference between the rows the table holds
// (t.seated) and want. Strict, a player seated at another table refuses
// the transaction with store.ErrSeatedAtAnotherTable; otherwise (when a
// table is claimed, its stored seats being facts already) the conflict is
// logged and the player left out of the store.
func (t *Table) syncHoldings(ctx context.Context, tx *sqlstore.Tx, want map[string]int, strict bool) error {
	st := t.r.d.Store
	// Sorted, so that two transactions touching the same players take
	// their row locks in one order.
	for _, p := range slices.Sorted(maps.Keys(t.seated)) {
		if _, ok := want[p]; !ok {
			if err := st.ReleaseSeat(ctx, tx, t.id, p); err != nil {
				return err
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(want)) {
		if seat, ok := t.seated[p]; ok && seat == want[p] {
			continue
		}
		err := st.HoldSeat(ctx, tx, t.id, p, want[p])
		if err != nil && !strict && errors.Is(err, store.ErrSeatedAtAnotherTable) {
			t.r.d.Logger.WarnContext(ctx, "G-21: a player holds seats at two tables", "table", t.id, "seat", want[p], "error", err)
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// claimHoldings reads the table's rows when this process claims the table
// and brings them in line with its seats: after the migration that added
// them, and after a change another owner stored without them. The caller
// owns the table (its fence is claimed).
func (t *Table) claimHoldings(ctx context.Context) error {
	held, err := t.r.d.Store.TableHoldings(ctx, t.r.d.DB.SQL(), t.id)
	if err != nil {
		return err
	}
	t.seated = held
	want := t.holders()
	if maps.Equal(want, held) {
		return nil
	}
	if err := t.update(ctx, true, func(tx *sqlstore.Tx) error { return t.syncHoldings(ctx, tx, want, false) }); err != nil {
		return err
	}
	// A player left out because another table holds them stays in
	// t.seated: the table does not try to hold them again on every change
	// (their release, keyed by this table, removes nothing).
	t.seated = want
	return nil
}
