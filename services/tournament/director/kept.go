package director

import (
	"context"
	"sync"

	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// kept is one tournament's Seating kept between hands, as of the store's
// entries revision rev (store.EntriesSince). Any writer of entries — the
// books busting a player, a rebuy, a late seat, another process's director
// — stamps what it writes with a new revision, so bringing it up to date
// reads only what changed since: after a hand, the bust and the moves.
type kept struct {
	// mu is held while the seating is read or brought up to date; never
	// across a call to the table service. Inside a store transaction it
	// is taken before the transaction writes, and let go before it ends.
	mu  sync.Mutex
	s   *Seating
	rev int64
}

// entriesSince reads the entries changed after a revision (all of them
// for -1) and the revision now, in one snapshot.
type entriesSince func(rev int64) ([]entry.Entry, int64, error)

// sync brings the seating up to the revision read: from the entries
// changed since its own, or rebuilt from every entry the first time, for
// other seats per table, or after two entries claimed one seat. A read from
// an older snapshot than the seating's changes nothing.
func (k *kept) sync(read entriesSince, seatsPerTable int) error {
	if k.s != nil && !k.s.Clash() && k.s.seatsPerTable == seatsPerTable {
		changed, rev, err := read(k.rev)
		if err != nil {
			return err
		}
		ok := true
		for _, en := range changed {
			ok = ok && k.s.Apply(en)
		}
		if ok {
			k.rev = max(k.rev, rev)
			return nil
		}
	}
	ens, rev, err := read(-1)
	if err != nil {
		return err
	}
	k.s, k.rev = NewSeating(ens, seatsPerTable), rev
	return nil
}

// kept returns tournament id's kept seating.
func (d *Director) kept(id string) *kept {
	d.mu.Lock()
	defer d.mu.Unlock()
	k, ok := d.seatings[id]
	if !ok {
		k = &kept{}
		d.seatings[id] = k
	}
	return k
}

// fromStore reads changed entries outside a transaction.
func (d *Director) fromStore(ctx context.Context, id string) entriesSince {
	return func(rev int64) ([]entry.Entry, int64, error) { return d.store.EntriesSince(ctx, id, rev) }
}

// fromTx reads changed entries inside tx.
func fromTx(tx *store.Tx) entriesSince { return tx.EntriesSince }
