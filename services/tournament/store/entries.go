package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/tournament/balance"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/house"
	"github.com/cardroom/cardroom/services/tournament/levels"
	"github.com/cardroom/cardroom/services/tournament/standings"
)

// Tournament is an event with its published rules and its level clock.
type Tournament struct {
	Event event.Event
	Rules house.Rules
	// Clock's Started is zero until the event starts.
	Clock levels.Clock
	// HandForHand keeps tables in step near the money (G-26).
	HandForHand balance.HandForHand
	// PendingKnockouts are players out during the hand-for-hand round in
	// progress, placed together when it ends (TR-37).
	PendingKnockouts []standings.Knockout
	// RebuyHands counts, per table number, the hands started there since
	// the rebuy period ran out (TR-16).
	RebuyHands map[int]int
	// HeldBusts are the players out of chips whom their table holds while
	// they may still rebuy (TR-13, TR-16), each with the rebuys they had
	// when they went out.
	HeldBusts map[string]int
}

// handForHandState is the stored hand-for-hand column.
type handForHandState struct {
	balance.HandForHand
	Pending []standings.Knockout `json:"pending,omitempty"`
}

// PaymentState is where a saga step stands.
type PaymentState uint8

// Payment states.
const (
	// PaymentPending: recorded, the wallet's answer not yet recorded.
	PaymentPending PaymentState = iota + 1
	// PaymentDone: the wallet moved the money.
	PaymentDone
	// PaymentFailed: the wallet refused; nothing moved.
	PaymentFailed
	// PaymentWithdrawn: done, then withdrawn (an unregistered entry, TR-04);
	// its own refund step gives the money back. It no longer counts in the
	// prize pool.
	PaymentWithdrawn
)

// PaymentRecord is a stored saga step.
type PaymentRecord struct {
	entry.Payment
	// Chips are the chips the step gives once paid (rebuys, add-ons).
	Chips      int64
	State      PaymentState
	TransferID string
	Failure    string
	CreatedAt  time.Time
}

// Load returns a tournament with its rules and clock.
func (s *Store) Load(ctx context.Context, id string) (Tournament, error) {
	return sqlstore.Read(ctx, s.db, func(tx *sqlstore.Tx) (Tournament, error) { return load(ctx, tx, id) })
}

func load(ctx context.Context, tx *sqlstore.Tx, id string) (Tournament, error) {
	row := tx.QueryRowContext(ctx, `SELECT `+columns+`, rules, clock_started_ms, clock_paused_at_ms, clock_paused_ms,
		hand_for_hand, rebuy_hands, clock_shift_ms, clock_changes, held_busts FROM tournaments WHERE id = $1`, id)
	var t Tournament
	var format, status int
	var startsAt, createdAt, started, pausedAt, paused, shift int64
	var rules, h4h, rebuyHands, held string
	e := &t.Event
	err := row.Scan(&e.ID, &e.Name, &e.Game, &e.Structure, &format, &e.BuyIn.Currency, &e.BuyIn.PrizePool, &e.BuyIn.Fee,
		&e.StartingStack, &startsAt, &e.TargetEventID, &status, &createdAt, &rules, &started, &pausedAt, &paused, &h4h, &rebuyHands, &shift, &t.Clock.Changes, &held)
	if errors.Is(err, sql.ErrNoRows) {
		return Tournament{}, ErrNotFound.Withf("no tournament %q", id)
	}
	if err != nil {
		return Tournament{}, fmt.Errorf("load tournament %s: %w", id, err)
	}
	e.Format, e.Status = event.Format(format), event.Status(status)
	e.StartsAt, e.CreatedAt = time.UnixMilli(startsAt).UTC(), time.UnixMilli(createdAt).UTC()
	if rules != "" {
		if err := json.Unmarshal([]byte(rules), &t.Rules); err != nil {
			return Tournament{}, fmt.Errorf("load tournament %s rules: %w", id, err)
		}
	} else {
		// Tournaments created before rules were stored get the defaults.
		t.Rules = house.Rules{}.WithDefaults(t.Event)
	}
	if h4h != "" {
		var st handForHandState
		if err := json.Unmarshal([]byte(h4h), &st); err != nil {
			return Tournament{}, fmt.Errorf("load tournament %s hand-for-hand: %w", id, err)
		}
		t.HandForHand, t.PendingKnockouts = st.HandForHand, st.Pending
	}
	if rebuyHands != "" {
		if err := json.Unmarshal([]byte(rebuyHands), &t.RebuyHands); err != nil {
			return Tournament{}, fmt.Errorf("load tournament %s rebuy hands: %w", id, err)
		}
	}
	if held != "" {
		if err := json.Unmarshal([]byte(held), &t.HeldBusts); err != nil {
			return Tournament{}, fmt.Errorf("load tournament %s held busts: %w", id, err)
		}
	}
	t.Clock.Sheet = t.Rules.Sheet
	t.Clock.Started = millis(started)
	t.Clock.PausedAt = millis(pausedAt)
	t.Clock.Paused = time.Duration(paused) * time.Millisecond
	t.Clock.Shift = time.Duration(shift) * time.Millisecond
	return t, nil
}

// millis reads a stored millisecond time; 0 is the zero time.
func millis(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

func toMillis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// Tx is one read-write transaction on one tournament, handed to Update.
type Tx struct {
	ctx context.Context
	tx  *sqlstore.Tx
	id  string
	// rev is the entries revision this transaction writes under; 0 until
	// its first entry write takes one.
	rev int64
	// wrote is set by any write to the entries (the field's gauges).
	wrote bool
}

// Update runs fn on the tournament in one serializable transaction and
// writes back its name, start time, status, rules, clock and hand-for-hand
// state; fn's other
// writes go through tx. Rules may change only before the start (TR-36):
// that is the caller's check (standings.CheckChange). fn
// may run more than once (conflict retries) and must not have effects
// outside the transaction.
func (s *Store) Update(ctx context.Context, id string, fn func(tx *Tx, t *Tournament) error) error {
	return s.db.Tx(ctx, func(sqt *sqlstore.Tx) error { return update(ctx, s.db, sqt, id, fn) })
}

func update(ctx context.Context, db *sqlstore.DB, sqt *sqlstore.Tx, id string, fn func(tx *Tx, t *Tournament) error) error {
	t, err := load(ctx, sqt, id)
	if err != nil {
		return err
	}
	stx := &Tx{ctx: ctx, tx: sqt, id: id}
	if err := fn(stx, &t); err != nil {
		return err
	}
	h4h := ""
	if t.HandForHand.Active || len(t.HandForHand.Release) > 0 || len(t.PendingKnockouts) > 0 {
		raw, err := json.Marshal(handForHandState{HandForHand: t.HandForHand, Pending: t.PendingKnockouts})
		if err != nil {
			return fmt.Errorf("update tournament %s: %w", id, err)
		}
		h4h = string(raw)
	}
	rules, err := json.Marshal(t.Rules)
	if err != nil {
		return fmt.Errorf("update tournament %s: %w", id, err)
	}
	rebuyHands := ""
	if len(t.RebuyHands) > 0 {
		raw, err := json.Marshal(t.RebuyHands)
		if err != nil {
			return fmt.Errorf("update tournament %s: %w", id, err)
		}
		rebuyHands = string(raw)
	}
	held := ""
	if len(t.HeldBusts) > 0 {
		raw, err := json.Marshal(t.HeldBusts)
		if err != nil {
			return fmt.Errorf("update tournament %s: %w", id, err)
		}
		held = string(raw)
	}
	_, err = sqt.ExecContext(ctx, `UPDATE tournaments SET status = $2, clock_started_ms = $3, clock_paused_at_ms = $4,
		clock_paused_ms = $5, hand_for_hand = $6, rules = $7, name = $8, starts_at_ms = $9, rebuy_hands = $10,
		clock_shift_ms = $11, clock_changes = $12, held_busts = $13 WHERE id = $1`,
		id, int(t.Event.Status), toMillis(t.Clock.Started), toMillis(t.Clock.PausedAt), t.Clock.Paused.Milliseconds(), h4h,
		string(rules), t.Event.Name, t.Event.StartsAt.UnixMilli(), rebuyHands, t.Clock.Shift.Milliseconds(), t.Clock.Changes, held)
	if err != nil {
		return fmt.Errorf("update tournament %s: %w", id, err)
	}
	return recordGauges(ctx, sqt, fieldKey{db, id}, t, stx.wrote)
}

const entryColumns = `tournament_id, player_id, status, rebuys, add_on, withdrawals, registered_at_ms, transfer_id, table_no, seat_no, hands_to_miss, left_play, reentries`

func scanEntry(r sqlstore.Scanner) (entry.Entry, error) {
	var en entry.Entry
	var status int
	var registered int64
	err := r.Scan(&en.EventID, &en.PlayerID, &status, &en.Rebuys, &en.AddOn, &en.Withdrawals, &registered, &en.TransferID, &en.Table, &en.Seat, &en.HandsToMiss, &en.Left, &en.Reentries)
	en.Status = entry.Status(status)
	en.RegisteredAt = time.UnixMilli(registered).UTC()
	return en, err
}

// Entry returns the player's entry, or nil when there is none.
func (t *Tx) Entry(player string) (*entry.Entry, error) {
	en, err := scanEntry(t.tx.QueryRowContext(t.ctx, `SELECT `+entryColumns+` FROM tournament_entries
		WHERE tournament_id = $1 AND player_id = $2`, t.id, player))
	if ok, err := sqlstore.Found(err, "entry %s/%s", t.id, player); !ok {
		return nil, err
	}
	return &en, nil
}

// Entries returns every entry, in registration order.
func (t *Tx) Entries() ([]entry.Entry, error) { return entries(t.ctx, t.tx, t.id) }

func entries(ctx context.Context, tx *sqlstore.Tx, id string) ([]entry.Entry, error) {
	return sqlstore.Collect(ctx, tx, "entries of "+id, `SELECT `+entryColumns+` FROM tournament_entries WHERE tournament_id = $1
		ORDER BY registered_at_ms, player_id`, []any{id}, scanEntry)
}

// Entrants counts the entries that hold a place in the field: paying,
// active, busted or forfeited, each re-entry (G-23) an entry of its own, as
// the payouts count them.
func (t *Tx) Entrants() (int, error) {
	var n int
	err := t.tx.QueryRowContext(t.ctx, `SELECT COALESCE(SUM(1 + reentries), 0) FROM tournament_entries WHERE tournament_id = $1 AND status IN ($2, $3, $4, $5)`,
		t.id, int(entry.Paying), int(entry.Active), int(entry.Busted), int(entry.Forfeited)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count entrants of %s: %w", t.id, err)
	}
	return n, nil
}

// PutEntry inserts or replaces the player's entry, stamped with the
// transaction's entries revision (EntriesSince).
func (t *Tx) PutEntry(en entry.Entry) error {
	if t.rev == 0 {
		// One revision per transaction: its entries commit together, and
		// the tournament's row is written by Update anyway.
		err := t.tx.QueryRowContext(t.ctx, `UPDATE tournaments SET entries_rev = entries_rev + 1 WHERE id = $1 RETURNING entries_rev`, t.id).Scan(&t.rev)
		if err != nil {
			return fmt.Errorf("put entry %s/%s: next revision: %w", t.id, en.PlayerID, err)
		}
	}
	_, err := t.tx.ExecContext(t.ctx, `INSERT INTO tournament_entries (`+entryColumns+`, rev)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
		ON CONFLICT (tournament_id, player_id) DO UPDATE SET status = excluded.status, rebuys = excluded.rebuys, reentries = excluded.reentries,
			add_on = excluded.add_on, withdrawals = excluded.withdrawals, registered_at_ms = excluded.registered_at_ms,
			transfer_id = excluded.transfer_id, table_no = excluded.table_no, seat_no = excluded.seat_no,
			hands_to_miss = excluded.hands_to_miss, left_play = excluded.left_play, rev = excluded.rev`,
		t.id, en.PlayerID, int(en.Status), en.Rebuys, en.AddOn, en.Withdrawals, en.RegisteredAt.UnixMilli(), en.TransferID, en.Table, en.Seat,
		en.HandsToMiss, en.Left, en.Reentries, t.rev)
	if err != nil {
		return fmt.Errorf("put entry %s/%s: %w", t.id, en.PlayerID, err)
	}
	t.wrote = true
	return nil
}

// ErrKeyReused is returned when a saga step's key is recorded again with
// different content.
var ErrKeyReused = fault.New(fault.Conflict, "IDEMPOTENCY_KEY_REUSED", "the idempotency key was used for a different payment")

// AddPayment records a pending saga step. Recording the same step again is
// a no-op; the same key with other content is ErrKeyReused. A step the
// wallet refused moved nothing and left nothing under its key at the
// wallet, so a new attempt replaces it (the player topped up, or pays with
// a voucher this time).
func (t *Tx) AddPayment(p entry.Payment, chips int64, now time.Time) error {
	prev, ok, err := t.Payment(p.Key)
	if err != nil {
		return err
	}
	if ok && prev.State == PaymentFailed {
		if _, err := t.tx.ExecContext(t.ctx, `DELETE FROM tournament_payments WHERE idempotency_key = $1`, p.Key); err != nil {
			return fmt.Errorf("replace refused payment %s: %w", p.Key, err)
		}
		ok = false
	}
	if ok {
		if prev.Payment != p || prev.Chips != chips {
			return ErrKeyReused.With("idempotency_key", p.Key)
		}
		return nil
	}
	_, err = sqlstore.Exec(t.ctx, t.tx, `INSERT INTO tournament_payments (idempotency_key, tournament_id, player_id, kind, currency,
		prize_part, fee, amount, place, target_event_id, voucher_id, chips, state, created_at_ms, note, refund_of)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
		[]any{p.Key, p.EventID, p.PlayerID, int(p.Kind), p.Currency, p.PrizePart, p.Fee, p.Amount, p.Place, p.TargetEventID, p.VoucherID,
			chips, int(PaymentPending), now.UnixMilli(), p.Note, p.RefundOf}, "add payment %s", p.Key)
	return err
}

const paymentColumns = `idempotency_key, tournament_id, player_id, kind, currency, prize_part, fee, amount, place,
	target_event_id, voucher_id, chips, state, transfer_id, failure, created_at_ms, note, refund_of`

func scanPayment(r sqlstore.Scanner) (PaymentRecord, error) {
	var p PaymentRecord
	var kind, state int
	var created int64
	err := r.Scan(&p.Key, &p.EventID, &p.PlayerID, &kind, &p.Currency, &p.PrizePart, &p.Fee, &p.Amount, &p.Place,
		&p.TargetEventID, &p.VoucherID, &p.Chips, &state, &p.TransferID, &p.Failure, &created, &p.Note, &p.RefundOf)
	p.Kind, p.State, p.CreatedAt = entry.Kind(kind), PaymentState(state), time.UnixMilli(created).UTC()
	return p, err
}

// Payment returns the saga step recorded under key.
func (t *Tx) Payment(key string) (PaymentRecord, bool, error) {
	p, err := scanPayment(t.tx.QueryRowContext(t.ctx, `SELECT `+paymentColumns+` FROM tournament_payments WHERE idempotency_key = $1`, key))
	if ok, err := sqlstore.Found(err, "payment %s", key); !ok {
		return PaymentRecord{}, false, err
	}
	return p, true, nil
}

// PendingPayments returns the player's steps still waiting for the wallet
// ("" for every player), oldest first.
func (t *Tx) PendingPayments(player string) ([]PaymentRecord, error) {
	return sqlstore.Collect(t.ctx, t.tx, "pending payments of "+t.id, `SELECT `+paymentColumns+` FROM tournament_payments
		WHERE tournament_id = $1 AND state = $2 AND ($3 = '' OR player_id = $3) ORDER BY created_at_ms, idempotency_key`,
		[]any{t.id, int(PaymentPending), player}, scanPayment)
}

// SettlePayment records the wallet's answer to a pending step: done with
// its transfer id, or failed with the reason. It reports whether the step
// was pending (false: an earlier retry settled it, nothing to do).
func (t *Tx) SettlePayment(key string, done bool, transferID, failure string) (bool, error) {
	state := PaymentDone
	if !done {
		state = PaymentFailed
	}
	n, err := sqlstore.Exec(t.ctx, t.tx, `UPDATE tournament_payments SET state = $2, transfer_id = $3, failure = $4
		WHERE idempotency_key = $1 AND state = $5`, []any{key, int(state), transferID, failure, int(PaymentPending)}, "settle payment %s", key)
	return n == 1, err
}

// Withdraw moves a done entry step to PaymentWithdrawn: it leaves the
// prize pool, and the refund step recorded with it pays it back.
func (t *Tx) Withdraw(key string) error {
	_, err := sqlstore.Exec(t.ctx, t.tx, `UPDATE tournament_payments SET state = $2 WHERE idempotency_key = $1 AND state = $3`,
		[]any{key, int(PaymentWithdrawn), int(PaymentDone)}, "withdraw payment %s", key)
	return err
}

// Draw is one logged draw (TR-06, TR-07).
type Draw struct {
	Seq       int
	Kind      string
	Record    json.RawMessage
	CreatedAt time.Time
}

// AddDraw appends a draw to the log.
func (t *Tx) AddDraw(kind string, record any, now time.Time) error {
	raw, err := json.Marshal(record)
	if err != nil {
		return fmt.Errorf("log %s draw: %w", kind, err)
	}
	_, err = sqlstore.Exec(t.ctx, t.tx, `INSERT INTO tournament_draws (tournament_id, seq, kind, record, created_at_ms)
		VALUES ($1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM tournament_draws WHERE tournament_id = $1), $2, $3, $4)`,
		[]any{t.id, kind, string(raw), now.UnixMilli()}, "log %s draw", kind)
	return err
}

// Entries returns a tournament's entries in registration order.
func (s *Store) Entries(ctx context.Context, id string) ([]entry.Entry, error) {
	return sqlstore.Read(ctx, s.db, func(tx *sqlstore.Tx) ([]entry.Entry, error) {
		if _, err := load(ctx, tx, id); err != nil {
			return nil, err
		}
		return entries(ctx, tx, id)
	})
}

// EntriesSince returns the entries written after entries revision rev
// (PutEntry), in registration order, and the revision the tournament's
// entries are at now, read together: applying them to what was read at
// rev gives the entries as of now. An entry DeleteEntry removed is not
// among them (it was never paid, so never seated nor counted).
func (s *Store) EntriesSince(ctx context.Context, id string, rev int64) (changed []entry.Entry, now int64, err error) {
	err = s.db.ReadTx(ctx, func(tx *sqlstore.Tx) error {
		changed, now, err = entriesSince(ctx, tx, id, rev)
		return err
	})
	return changed, now, err
}

// EntriesSince is Store.EntriesSince inside the transaction.
func (t *Tx) EntriesSince(rev int64) (changed []entry.Entry, now int64, err error) {
	return entriesSince(t.ctx, t.tx, t.id, rev)
}

func entriesSince(ctx context.Context, tx *sqlstore.Tx, id string, rev int64) ([]entry.Entry, int64, error) {
	var now int64
	err := tx.QueryRowContext(ctx, `SELECT entries_rev FROM tournaments WHERE id = $1`, id).Scan(&now)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, ErrNotFound.Withf("no tournament %q", id)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("entries revision of %s: %w", id, err)
	}
	if now <= rev {
		return nil, now, nil
	}
	out, err := sqlstore.Collect(ctx, tx, fmt.Sprintf("entries of %s since %d", id, rev), `SELECT `+entryColumns+`
		FROM tournament_entries WHERE tournament_id = $1 AND rev > $2 ORDER BY registered_at_ms, player_id`, []any{id, rev}, scanEntry)
	return out, now, err
}

// Entry returns the player's entry, ok false when there is none.
func (s *Store) Entry(ctx context.Context, id, player string) (en entry.Entry, ok bool, err error) {
	err = s.db.ReadTx(ctx, func(sqt *sqlstore.Tx) error {
		e, err := (&Tx{ctx: ctx, tx: sqt, id: id}).Entry(player)
		if e != nil {
			en, ok = *e, true
		}
		return err
	})
	return en, ok, err
}

// Draws returns a tournament's draw log in order.
func (s *Store) Draws(ctx context.Context, id string) ([]Draw, error) {
	return sqlstore.Collect(ctx, s.db.SQL(), "draws of "+id, `SELECT seq, kind, record, created_at_ms FROM tournament_draws
		WHERE tournament_id = $1 ORDER BY seq`, []any{id}, func(r sqlstore.Scanner) (Draw, error) {
		var d Draw
		var rec string
		var created int64
		err := r.Scan(&d.Seq, &d.Kind, &rec, &created)
		d.Record, d.CreatedAt = json.RawMessage(rec), time.UnixMilli(created).UTC()
		return d, err
	})
}

// Contributions sums the paid prize-pool parts of a tournament's entries,
// rebuys and add-ons (the prize pool, TR-36) and counts its paid entries;
// a Day 2 adds the pools its flights moved to it and their entries.
func (s *Store) Contributions(ctx context.Context, id string) (pool int64, entries int, err error) {
	return contributions(ctx, s.db.SQL(), id)
}

// Contributions is Store.Contributions inside the transaction.
func (t *Tx) Contributions() (pool int64, entries int, err error) {
	return contributions(t.ctx, t.tx, t.id)
}

func contributions(ctx context.Context, q sqlstore.Querier, id string) (pool int64, entries int, err error) {
	err = q.QueryRowContext(ctx, `SELECT COALESCE(SUM(prize_part), 0), COALESCE(SUM(CASE WHEN kind = $3 THEN 1 ELSE 0 END), 0)
		FROM tournament_payments WHERE tournament_id = $1 AND state = $2 AND kind IN ($3, $4, $5)`,
		id, int(PaymentDone), int(entry.PayEntry), int(entry.PayRebuy), int(entry.PayAddOn)).Scan(&pool, &entries)
	if err != nil {
		return 0, 0, fmt.Errorf("prize pool of %s: %w", id, err)
	}
	// A Day 2 plays for its flights' pools, moved into its own (issue
	// 13), and its payouts count the flights' entries.
	var moved int64
	var flightEntries int
	err = q.QueryRowContext(ctx, `SELECT COALESCE(SUM(amount), 0) FROM tournament_payments
		WHERE target_event_id = $1 AND kind = $2 AND state = $3`, id, int(entry.SettlePool), int(PaymentDone)).Scan(&moved)
	if err == nil {
		err = q.QueryRowContext(ctx, `SELECT COUNT(*) FROM tournament_payments p JOIN tournaments t ON t.id = p.tournament_id
			WHERE t.day2_id = $1 AND p.kind = $2 AND p.state = $3`, id, int(entry.PayEntry), int(PaymentDone)).Scan(&flightEntries)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("flights' prize pool of %s: %w", id, err)
	}
	return pool + moved, entries + flightEntries, nil
}

// DeleteEntry removes an entry that was never paid.
func (t *Tx) DeleteEntry(player string) error {
	_, err := t.tx.ExecContext(t.ctx, `DELETE FROM tournament_entries WHERE tournament_id = $1 AND player_id = $2`, t.id, player)
	if err != nil {
		return fmt.Errorf("delete entry %s/%s: %w", t.id, player, err)
	}
	t.wrote = true
	return nil
}
