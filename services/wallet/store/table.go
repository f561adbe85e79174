package store

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/wallet/buyin"
	"github.com/cardroom/cardroom/services/wallet/ledger"
)

// ObserveTableEpoch records epoch as the highest seen for the table and
// fails with sqlstore.ErrFencedOut (Aborted) when a higher one was seen:
// a table owner that lost its lock cannot write on the table's behalf. An
// epoch above the highest the table service is known to have issued is
// *EpochUnverified: the caller asks the table service (RecordIssued) and
// tries again, so no caller's own number is ever recorded.
func (t *Tx) ObserveTableEpoch(ctx context.Context, table string, epoch int64) error {
	if epoch <= 0 {
		return fault.Invalidf("epoch", "must be positive, got %d", epoch)
	}
	// One upsert instead of an insert and then a conditional update: the
	// same rule in one round trip on the hot path of every buy-in. A row it
	// inserts has issued 0, so its RETURNING says unverified.
	var verified bool
	err := t.tx.QueryRowContext(ctx, observeEpoch+` RETURNING epoch <= issued`, table, epoch).Scan(&verified)
	switch {
	case noRows(err):
		return t.epochRefusal(ctx, table, epoch)
	case err != nil:
		return fmt.Errorf("observe epoch %d of table %s: %w", epoch, table, err)
	case !verified:
		return &EpochUnverified{Table: table, Epoch: epoch}
	}
	return nil
}

// observeEpoch records $2 as table $1's epoch when it is no lower than the
// highest seen and no higher than the highest issued.
const observeEpoch = `INSERT INTO table_epochs (id, epoch) VALUES ($1, $2)
		ON CONFLICT (id) DO UPDATE SET epoch = excluded.epoch
		WHERE table_epochs.epoch <= excluded.epoch AND excluded.epoch <= table_epochs.issued`

// epochRefusal explains why observeEpoch touched no row: a higher epoch
// was seen (fenced out), or this one, or the one seen, is higher than any
// known issued.
func (t *Tx) epochRefusal(ctx context.Context, table string, epoch int64) error {
	if t.tx.Pipelined() {
		return fmt.Errorf("observe epoch %d of table %s: %w", epoch, table, sqlstore.ErrNotPipelined)
	}
	var seen, issued int64
	err := t.tx.QueryRowContext(ctx, `SELECT epoch, issued FROM table_epochs WHERE id = $1`, table).Scan(&seen, &issued)
	if err != nil && !noRows(err) {
		return fmt.Errorf("observe epoch %d of table %s: %w", epoch, table, err)
	}
	// A recorded epoch above the issued one was never verified (books of
	// before the check): asking the table service brings it back down.
	if epoch < seen && seen <= issued {
		return fmt.Errorf("observe epoch %d of table %s: %w", epoch, table, sqlstore.ErrFencedOut)
	}
	return &EpochUnverified{Table: table, Epoch: epoch}
}

// EpochUnverified is a table write whose epoch is higher than the highest
// the table service is known to have issued: the bank asks the table
// service, records the answer (RecordIssued) and runs the request again,
// or refuses it when the epoch was never issued. It is not a fault: the
// transaction it ends is rolled back and nothing is recorded.
type EpochUnverified struct {
	Table string
	Epoch int64
}

func (e *EpochUnverified) Error() string {
	return fmt.Sprintf("epoch %d of table %s is not known to be issued", e.Epoch, e.Table)
}

// RecordIssued records that the table service has issued epochs up to
// issued for the table. An epoch recorded as seen above it was never
// issued (a caller's own number, before the wallet asked): it is brought
// down to issued, which no current owner is below, and reported as
// repaired.
func (s *Store) RecordIssued(ctx context.Context, table string, issued int64) (repaired int64, err error) {
	err = s.update(ctx, time.Now(), func(tx *Tx) error {
		repaired = 0
		var seen int64
		err := tx.tx.QueryRowContext(ctx, `SELECT epoch FROM table_epochs WHERE id = $1`, table).Scan(&seen)
		if err != nil && !noRows(err) {
			return err
		}
		if seen > issued {
			repaired = seen
		}
		_, err = tx.tx.ExecContext(ctx, `INSERT INTO table_epochs (id, epoch, issued) VALUES ($1, 0, $2)
			ON CONFLICT (id) DO UPDATE SET issued = CASE WHEN excluded.issued > table_epochs.issued THEN excluded.issued ELSE table_epochs.issued END,
				epoch = CASE WHEN table_epochs.epoch > excluded.issued THEN excluded.issued ELSE table_epochs.epoch END`, table, issued)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("record issued epoch %d of table %s: %w", issued, table, err)
	}
	return repaired, nil
}

// HoldState is where a hold is in its life.
type HoldState string

// Hold states: a hold is held until committed, released or expired.
const (
	Held      HoldState = "held"
	Committed HoldState = "committed"
	Released  HoldState = "released"
	Expired   HoldState = "expired"
)

// Hold is chips taken from a player for a buy-in at a table, waiting for
// the table to seat the player (commit) or give up (release).
type Hold struct {
	ID        string
	Player    string
	Table     string
	Seat      int64
	Currency  ledger.Currency
	Amount    int64
	Structure buyin.Structure
	TopUp     bool
	// Sitting is the sitting a top-up adds to; empty for a sit-down, whose
	// commit opens a sitting named by the hold's ID.
	Sitting        string
	State          HoldState
	HoldTransfer   string
	SettleTransfer string
	ExpiresAt      time.Time
	CreatedAt      time.Time
}

// InsertHold records a new hold in state Held.
func (t *Tx) InsertHold(ctx context.Context, h Hold) error {
	r := HoldRow(h)
	_, err := sqlstore.Exec(ctx, t.tx, r.insert(1), r.Values, "insert hold %s", h.ID)
	return err
}

// HoldRow is the row of a new hold in state Held, to insert with its
// transfer (Post's with).
func HoldRow(h Hold) Row {
	return Row{
		Table:   "holds",
		Columns: []string{"id", "player", "table_id", "seat", "currency", "amount", "structure", "top_up", "sitting_id", "state", "hold_transfer", "expires_at", "created_at"},
		Values: []any{h.ID, h.Player, h.Table, h.Seat, string(h.Currency), h.Amount, string(h.Structure), h.TopUp, h.Sitting, string(Held),
			h.HoldTransfer, h.ExpiresAt.UnixMilli(), h.CreatedAt.UnixMilli()},
	}
}

const holdColumns = `id, player, table_id, seat, currency, amount, structure, top_up, sitting_id, state, hold_transfer, COALESCE(settle_transfer, ''), expires_at, created_at`

func scanHold(row sqlstore.Scanner) (Hold, error) {
	var h Hold
	var cur, structure, state string
	var expires, created int64
	err := row.Scan(&h.ID, &h.Player, &h.Table, &h.Seat, &cur, &h.Amount, &structure, &h.TopUp, &h.Sitting, &state, &h.HoldTransfer, &h.SettleTransfer, &expires, &created)
	h.Currency, h.Structure, h.State = ledger.Currency(cur), buyin.Structure(structure), HoldState(state)
	h.ExpiresAt, h.CreatedAt = time.UnixMilli(expires).UTC(), time.UnixMilli(created).UTC()
	return h, err
}

// Hold reads a hold.
func (t *Tx) Hold(ctx context.Context, id string) (Hold, error) {
	h, err := scanHold(t.tx.QueryRowContext(ctx, `SELECT `+holdColumns+` FROM holds WHERE id = $1`, id))
	if noRows(err) {
		return Hold{}, fault.NotFoundf("hold", "hold %s not found", id).With("hold_id", id)
	}
	if err != nil {
		return Hold{}, fmt.Errorf("read hold %s: %w", id, err)
	}
	return h, nil
}

// SettleHold moves a hold from Held to state, recording the settling
// transfer. It reports false when the hold was no longer held (another
// request settled it first), so two settlements can never both move chips.
func (t *Tx) SettleHold(ctx context.Context, id string, state HoldState, transferID string) (bool, error) {
	n, err := sqlstore.Exec(ctx, t.tx, `UPDATE holds SET state = $1, settle_transfer = $2, settled_at = $3 WHERE id = $4 AND state = 'held'`,
		[]any{string(state), transferID, t.now.UnixMilli(), id}, "settle hold %s", id)
	return n == 1, err
}

// ClaimForCommit is what a commit reads and claims before it posts,
// checked and claimed in one statement that a pipelined transaction
// (Tx.Pipelined) can send: the table's fence (as ObserveTableEpoch), and
// the hold moved from Held to Committed with transferID as its settling
// transfer (as SettleHold) — provided it is the player's hold at the
// table, still held and not expired at the transaction's time. It returns
// the hold as it was before the claim, or ok false when any of that does
// not hold; the statement's writes then stand until the caller rolls the
// transaction back, which it must: the ordinary way (Hold, ObserveTableEpoch,
// SettleHold) tells which check failed.
func (t *Tx) ClaimForCommit(ctx context.Context, table string, epoch int64, id, player, transferID string) (h Hold, ok bool, err error) {
	if t.tx.Dialect() != sqlstore.Postgres {
		return Hold{}, false, nil
	}
	err = t.tx.Query(ctx, `WITH ep AS (`+observeEpoch+` RETURNING epoch <= issued AS verified),
		h AS (UPDATE holds SET state = 'committed', settle_transfer = $4, settled_at = $5
			WHERE id = $3 AND table_id = $1 AND player = $6 AND state = 'held' AND expires_at > $5
			RETURNING `+holdColumns+`)
		SELECT * FROM h WHERE (SELECT COUNT(*) FROM ep WHERE verified) = 1`,
		[]any{table, epoch, id, transferID, t.now.UnixMilli(), player}, func(rows sqlstore.Rows) error {
			for rows.Next() {
				if h, err = scanHold(rows); err != nil {
					return err
				}
				ok = true
			}
			return rows.Err()
		})
	if err != nil {
		return Hold{}, false, fmt.Errorf("claim hold %s at %s: %w", id, table, err)
	}
	// RETURNING gives the row as updated: the hold was held until now.
	h.State, h.SettleTransfer = Held, ""
	return h, ok, nil
}

// SittingRow is the row of the sitting a sit-down's commit opens, to
// insert with its transfer (Post's with). Unlike OpenSitting it fails the
// statement when the player still has a sitting open at the table, which
// a pipelined commit leaves to the ordinary way to explain
// (ErrCashOutPending).
func SittingRow(s Sitting) Row {
	return Row{
		Table:   "sittings",
		Columns: []string{"id", "player", "table_id", "seat", "currency", "structure", "since"},
		Values:  []any{s.ID, s.Player, s.Table, s.Seat, string(s.Currency), string(s.Structure), s.Since.UnixMilli()},
	}
}

// ExpiredHolds lists up to limit holds still held whose expiry is at or
// before now, oldest first.
func (s *Store) ExpiredHolds(ctx context.Context, now time.Time, limit int) ([]Hold, error) {
	return sqlstore.Collect(ctx, s.db.SQL(), "list expired holds", `SELECT `+holdColumns+` FROM holds WHERE state = 'held' AND expires_at <= $1
		ORDER BY expires_at LIMIT $2`, []any{now.UnixMilli(), limit}, scanHold)
}

// Sitting is a player seated at a table with chips bought from the wallet.
// It is named by the buy-in that opened it (the committed hold's ID), so
// that a cash-out ends exactly the sitting it was made for.
type Sitting struct {
	ID        string
	Player    string
	Table     string
	Seat      int64
	Currency  ledger.Currency
	Structure buyin.Structure
	Since     time.Time
}

// OpenSitting records that the player sits at the table. A player has at
// most one open sitting per table: while an earlier one is open (its
// cash-out has not reached the wallet) it returns ErrCashOutPending.
func (t *Tx) OpenSitting(ctx context.Context, s Sitting) error {
	// ON CONFLICT DO NOTHING instead of a failing insert, so that PostgreSQL
	// does not abort the transaction: the caller decides what to do.
	r := SittingRow(s)
	n, err := sqlstore.Exec(ctx, t.tx, r.insert(1)+" ON CONFLICT DO NOTHING", r.Values, "seat %s at %s", s.Player, s.Table)
	if err != nil {
		return err
	} else if n == 0 {
		return ErrCashOutPending.Withf("%s still has a sitting open at %s; it ends when its cash-out arrives", s.Player, s.Table).
			With("player_id", s.Player, "table_id", s.Table)
	}
	return nil
}

// CloseSitting ends the sitting id of player at the table and returns it;
// ok is false when no such sitting is open (never opened, or already
// ended by its cash-out).
func (t *Tx) CloseSitting(ctx context.Context, table, id, player string) (s Sitting, ok bool, err error) {
	var cur, structure string
	var since int64
	err = t.tx.QueryRowContext(ctx, `DELETE FROM sittings WHERE table_id = $1 AND id = $2 AND player = $3
		RETURNING id, player, table_id, seat, currency, structure, since`, table, id, player).
		Scan(&s.ID, &s.Player, &s.Table, &s.Seat, &cur, &structure, &since)
	if ok, err := sqlstore.Found(err, "unseat %s at %s", player, table); !ok {
		return Sitting{}, false, err
	}
	s.Currency, s.Structure, s.Since = ledger.Currency(cur), buyin.Structure(structure), time.UnixMilli(since).UTC()
	return s, true, nil
}

// RecordDeparture keeps the stack and time a player left a table with (CS-09, CS-10).
func (t *Tx) RecordDeparture(ctx context.Context, id, player string, cur ledger.Currency, gamingDay string, d buyin.Departure) error {
	_, err := sqlstore.Exec(ctx, t.tx, `INSERT INTO departures (id, player, table_id, structure, currency, stack, gaming_day, left_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		[]any{id, player, d.Table, string(d.Structure), string(cur), d.Stack, gamingDay, d.At.UnixMilli()}, "record departure of %s from %s", player, d.Table)
	return err
}

// Presence is what the buy-in policy needs to know about a player and a
// table: whether the player sits there, their departures (from any table)
// on the gaming day, and the hold still held for them at the table, if
// any, read in one query.
type Presence struct {
	Sitting    Sitting
	Seated     bool
	Departures []buyin.Departure
	// Pending is the player's hold still held at the table (in any
	// currency), nil when there is none. It may be past its expiry: the
	// caller decides with its own clock.
	Pending *PendingHold
	// Balance is the player's account balance, read under a row lock
	// held until the transaction ends when BalanceLocked (FencedPresence
	// on PostgreSQL, when the account exists); no transfer but this
	// transaction's can change it.
	Balance       int64
	BalanceLocked bool
}

// PendingHold is a hold still held for a player at a table. ID and
// ExpiresAt name it; Presence also fills Seat, Currency and Amount, so
// that a buy-in releases an expired one (Hold) without reading its row
// again.
type PendingHold struct {
	ID        string
	ExpiresAt time.Time
	Seat      int64
	Currency  ledger.Currency
	Amount    int64
}

// Hold is the held hold h of player at table, as a settlement takes it.
func (h PendingHold) Hold(player, table string) Hold {
	return Hold{ID: h.ID, Player: player, Table: table, Seat: h.Seat, Currency: h.Currency, Amount: h.Amount, State: Held, ExpiresAt: h.ExpiresAt}
}

// PendingHold reads the hold still held for the player at the table, if
// any (outside a transaction: to name the hold a refused request raced
// with).
func (s *Store) PendingHold(ctx context.Context, player, table string) (PendingHold, bool, error) {
	var h PendingHold
	var expires int64
	err := s.db.SQL().QueryRowContext(ctx, `SELECT id, expires_at FROM holds WHERE player = $1 AND table_id = $2 AND state = 'held'`, player, table).
		Scan(&h.ID, &expires)
	if ok, err := sqlstore.Found(err, "read pending hold of %s at %s", player, table); !ok {
		return PendingHold{}, false, err
	}
	h.ExpiresAt = time.UnixMilli(expires).UTC()
	return h, true, nil
}

// Presence reads the player's sitting at the table and their departures in
// currency cur on the gaming day.
func (t *Tx) Presence(ctx context.Context, player, table string, cur ledger.Currency, gamingDay string) (Presence, error) {
	var p Presence
	err := t.tx.Query(ctx, presenceQuery, []any{player, table, gamingDay, string(cur)}, func(rows sqlstore.Rows) error {
		var err error
		p, _, err = scanPresence(rows, player)
		return err
	})
	if err != nil {
		return Presence{}, fmt.Errorf("read presence of %s at %s: %w", player, table, err)
	}
	return p, nil
}

// FencedPresence is what a buy-in reads before deciding: the table's
// fence checked (ObserveTableEpoch), the player's presence (Presence), and
// the hold account hold, and the table's escrow account in the same
// currency, opened when they are not known open (EnsureAccount). The
// escrow is opened here, with the hold account, because its commit cannot
// open it in a pipeline: the commit learns the currency from the hold it
// claims, and a statement sent without waiting would go after the
// batch's merged posting into that account (commitPipelined).
//
// On PostgreSQL it is one statement, one round trip on the buy-in hot path,
// that also locks the hold account and the player's account (in account ID
// order, the order Post updates them in) until the transaction ends, and
// reports the player's balance under that lock (Presence.Balance). The
// caller then knows the balance its transfer will leave before posting it,
// which lets the buy-in's response, and so its idempotency key, be written
// in the transfer's own statement (KeyRow). The locks cost little
// concurrency: every buy-in at the table already waits on the table's epoch
// row, the transfer updates both rows in this transaction anyway, and only
// one player's buy-ins at two tables at once now wait for each other from
// this read on rather than from the transfer on.
//
// The rows are not locked while the player has a hold held at the table:
// the buy-in may then release an expired one first, claiming the hold's
// row before its accounts' rows like the sweeper does, and holding the
// player's row already would let the two deadlock.
func (t *Tx) FencedPresence(ctx context.Context, table string, epoch int64, player string, cur ledger.Currency, gamingDay string, hold ledger.AccountID) (Presence, error) {
	escrow := ledger.TableAccount(table, cur)
	if t.tx.Dialect() != sqlstore.Postgres {
		if err := t.ObserveTableEpoch(ctx, table, epoch); err != nil {
			return Presence{}, err
		}
		p, err := t.Presence(ctx, player, table, cur, gamingDay)
		if err != nil {
			return Presence{}, err
		}
		return p, cmp.Or(t.EnsureAccount(ctx, hold), t.EnsureAccount(ctx, escrow))
	}
	if epoch <= 0 {
		return Presence{}, fault.Invalidf("epoch", "must be positive, got %d", epoch)
	}
	// $6 is the player's account and $7 the hold account; first and second
	// are the two in ID order, locked in that order.
	playerAccount := ledger.PlayerAccount(player, cur)
	first, second := "$6", "$7"
	if string(hold) < string(playerAccount) {
		first, second = second, first
	}
	args := []any{player, table, gamingDay, string(cur), epoch, string(playerAccount), string(hold)}
	open := ""
	_, holdKnown := t.store.opened.Load(hold)
	_, escrowKnown := t.store.opened.Load(escrow)
	if !holdKnown || !escrowKnown {
		a, err := ledger.NewAccount(hold, t.now)
		if err != nil {
			return Presence{}, err
		}
		e, err := ledger.NewAccount(escrow, t.now)
		if err != nil {
			return Presence{}, err
		}
		// Runs after the main query (an unreferenced data-modifying CTE),
		// so the locking reads (a1, a2) do not see a hold account this
		// statement creates; nobody else can touch that uncommitted row.
		open = `, op AS (INSERT INTO accounts (id, kind, owner, currency, allow_negative, created_at)
			VALUES ($7, $8, $9, $4, $10, $11), ($12, $13, $14, $4, $15, $11) ON CONFLICT (id) DO NOTHING)`
		args = append(args, string(a.Kind), a.Owner, a.Kind.AllowsNegative(), t.now.UnixMilli(),
			string(escrow), string(e.Kind), e.Owner, e.Kind.AllowsNegative())
		t.tx.AfterCommit(func() {
			t.store.opened.Store(hold, struct{}{})
			t.store.opened.Store(escrow, struct{}{})
		})
	}
	var p Presence
	var fenceHeld bool
	err := t.tx.Query(ctx, `WITH ep AS (INSERT INTO table_epochs (id, epoch) VALUES ($2, $5)
			ON CONFLICT (id) DO UPDATE SET epoch = excluded.epoch
			WHERE table_epochs.epoch <= excluded.epoch AND excluded.epoch <= table_epochs.issued RETURNING epoch <= issued AS verified),
		a1 AS MATERIALIZED (SELECT id, balance FROM accounts WHERE id = `+first+` AND NOT EXISTS (`+pendingHold+`) FOR NO KEY UPDATE),
		a2 AS MATERIALIZED (SELECT id, balance FROM accounts WHERE id = `+second+` AND NOT EXISTS (`+pendingHold+`) FOR NO KEY UPDATE)`+open+`
		SELECT 'f', 0, '', '', '', (SELECT COUNT(*) FROM ep WHERE verified), 0, ''
		UNION ALL SELECT CASE WHEN id = $6 THEN 'p' ELSE 'a' END, 0, '', '', '', balance, 0, '' FROM a1
		UNION ALL SELECT CASE WHEN id = $6 THEN 'p' ELSE 'a' END, 0, '', '', '', balance, 0, '' FROM a2
		UNION ALL `+presenceQuery, args, func(rows sqlstore.Rows) error {
		var err error
		p, fenceHeld, err = scanPresence(rows, player)
		return err
	})
	if err != nil {
		return Presence{}, fmt.Errorf("read presence of %s at %s: %w", player, table, err)
	}
	if !fenceHeld {
		return Presence{}, t.epochRefusal(ctx, table, epoch)
	}
	return p, nil
}

// pendingHold finds the hold held for player $1 at table $2.
const pendingHold = `SELECT 1 FROM holds WHERE player = $1 AND table_id = $2 AND state = 'held'`

// presenceQuery lists the sitting ('s'), the departures ('d') and the hold
// still held at the table ('h'), each sitting and hold with its ID in the
// last column (the
// literal state = 'held' lets it use the partial index holds_one_pending);
// $1 is the player, $2 the table, $3 the gaming day, $4 the currency.
const presenceQuery = `SELECT 's', seat, structure, currency, table_id, 0, since, id FROM sittings WHERE player = $1 AND table_id = $2
	UNION ALL
	SELECT 'd', 0, structure, currency, table_id, stack, left_at, '' FROM departures WHERE player = $1 AND gaming_day = $3 AND currency = $4
	UNION ALL
	SELECT 'h', seat, structure, currency, table_id, amount, expires_at, id FROM holds WHERE player = $1 AND table_id = $2 AND state = 'held'`

// scanPresence reads presenceQuery rows, and reports whether an 'f' row
// (the fence check) counted one updated epoch.
func scanPresence(rows sqlstore.Rows, player string) (Presence, bool, error) {
	var p Presence
	fenceHeld := false
	for rows.Next() {
		var kind, structure, currency, tableID, ref string
		var seat, stack, at int64
		if err := rows.Scan(&kind, &seat, &structure, &currency, &tableID, &stack, &at, &ref); err != nil {
			return Presence{}, false, err
		}
		switch kind {
		case "f":
			fenceHeld = stack == 1
		case "p":
			p.Balance, p.BalanceLocked = stack, true
		case "h":
			p.Pending = &PendingHold{ID: ref, ExpiresAt: time.UnixMilli(at).UTC(), Seat: seat, Currency: ledger.Currency(currency), Amount: stack}
		case "s":
			p.Seated = true
			p.Sitting = Sitting{ID: ref, Player: player, Table: tableID, Seat: seat, Currency: ledger.Currency(currency), Structure: buyin.Structure(structure), Since: time.UnixMilli(at).UTC()}
		case "d":
			p.Departures = append(p.Departures, buyin.Departure{Table: tableID, Structure: buyin.Structure(structure), Stack: stack, At: time.UnixMilli(at).UTC()})
		}
	}
	return p, fenceHeld, rows.Err()
}

// SitDownTransferID is the ID of the transfer that buys sitting into its
// table (a one-step sit-down): named by the sitting, which its table chose
// before asking, so that the ledger itself refuses a second buy-in of one
// sitting, and so that the audit can tell whether a sit-down the table
// still has pending went through.
func SitDownTransferID(sitting string) string { return "tr_" + sitting }

// TransferPosted reports whether the transfer id is in the ledger.
func (t *Tx) TransferPosted(ctx context.Context, id string) (bool, error) {
	var n int
	if err := t.tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM transfers WHERE id = $1`, id).Scan(&n); err != nil {
		return false, fmt.Errorf("read transfer %s: %w", id, err)
	}
	return n > 0, nil
}
