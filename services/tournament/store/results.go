package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/standings"
)

// Finishes returns the places given so far, in the order given.
func (t *Tx) Finishes() ([]standings.Finish, error) { return finishes(t.ctx, t.tx, t.id) }

func finishes(ctx context.Context, tx *sqlstore.Tx, id string) ([]standings.Finish, error) {
	rows, err := tx.QueryContext(ctx, `SELECT player_id, place, shared, removed FROM tournament_finishes
		WHERE tournament_id = $1 ORDER BY seq`, id)
	if err != nil {
		return nil, fmt.Errorf("finishes of %s: %w", id, err)
	}
	defer rows.Close()
	var out []standings.Finish
	for rows.Next() {
		var f standings.Finish
		if err := rows.Scan(&f.PlayerID, &f.Place, &f.Shared, &f.Removed); err != nil {
			return nil, fmt.Errorf("finishes of %s: %w", id, err)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// FinishOf returns the player's place, ok false when they have none.
func (t *Tx) FinishOf(player string) (f standings.Finish, ok bool, err error) {
	err = t.tx.QueryRowContext(t.ctx, `SELECT player_id, place, shared, removed FROM tournament_finishes
		WHERE tournament_id = $1 AND player_id = $2`, t.id, player).Scan(&f.PlayerID, &f.Place, &f.Shared, &f.Removed)
	if errors.Is(err, sql.ErrNoRows) {
		return standings.Finish{}, false, nil
	}
	if err != nil {
		return standings.Finish{}, false, fmt.Errorf("finish of %s in %s: %w", player, t.id, err)
	}
	return f, true, nil
}

// Field counts the entries the standings count: active (in play) and
// busted (out, placed or waiting for their round's places), one aggregate
// instead of reading every entry.
func (t *Tx) Field() (active, busted int, err error) {
	err = t.tx.QueryRowContext(t.ctx, `SELECT COALESCE(SUM(CASE WHEN status = $2 THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN status = $3 THEN 1 ELSE 0 END), 0) FROM tournament_entries WHERE tournament_id = $1`,
		t.id, int(entry.Active), int(entry.Busted)).Scan(&active, &busted)
	if err != nil {
		return 0, 0, fmt.Errorf("field of %s: %w", t.id, err)
	}
	return active, busted, nil
}

// AddFinishes appends places.
func (t *Tx) AddFinishes(fs []standings.Finish, now time.Time) error {
	for _, f := range fs {
		_, err := t.tx.ExecContext(t.ctx, `INSERT INTO tournament_finishes (tournament_id, player_id, seq, place, shared, removed, created_at_ms)
			VALUES ($1, $2, (SELECT COALESCE(MAX(seq), 0) + 1 FROM tournament_finishes WHERE tournament_id = $1), $3, $4, $5, $6)`,
			t.id, f.PlayerID, f.Place, f.Shared, f.Removed, now.UnixMilli())
		if err != nil {
			return fmt.Errorf("finish %s/%s: %w", t.id, f.PlayerID, err)
		}
	}
	return nil
}

// UnpaidPrizes counts the prize, voucher and bounty (G-36) steps not
// paid: pending or refused.
func (t *Tx) UnpaidPrizes() (int, error) {
	var n int
	err := t.tx.QueryRowContext(t.ctx, `SELECT COUNT(*) FROM tournament_payments WHERE tournament_id = $1 AND kind IN ($2, $3, $5) AND state <> $4`,
		t.id, int(entry.PayPrize), int(entry.PayVoucher), int(PaymentDone), int(entry.PayBounty)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("unpaid prizes of %s: %w", t.id, err)
	}
	return n, nil
}

// PaidOut sums what has left the prize pool — prizes, vouchers, bounties
// (G-36) and settlements the wallet paid — and counts the settlements made or
// attempted, which numbers the next one's key.
func (t *Tx) PaidOut() (out int64, settlements int, err error) {
	err = t.tx.QueryRowContext(t.ctx, `SELECT COALESCE(SUM(CASE WHEN state = $5 THEN amount ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN kind = $4 THEN 1 ELSE 0 END), 0)
		FROM tournament_payments WHERE tournament_id = $1 AND kind IN ($2, $3, $4, $6)`,
		t.id, int(entry.PayPrize), int(entry.PayVoucher), int(entry.SettlePool), int(PaymentDone), int(entry.PayBounty)).Scan(&out, &settlements)
	if err != nil {
		return 0, 0, fmt.Errorf("paid out of %s: %w", t.id, err)
	}
	return out, settlements, nil
}

// RenumberFinishes stores the places given as renumbered after the field
// changed (standings.Grow, standings.Reenter): each finish's place and
// share are updated in place (its order kept) and a finish no longer in
// fs is taken back.
func (t *Tx) RenumberFinishes(fs []standings.Finish) error {
	cur, err := t.Finishes()
	if err != nil {
		return err
	}
	keep := map[string]standings.Finish{}
	for _, f := range fs {
		keep[f.PlayerID] = f
	}
	for _, c := range cur {
		f, ok := keep[c.PlayerID]
		if !ok {
			if err := t.DeleteFinish(c.PlayerID); err != nil {
				return err
			}
			continue
		}
		if f == c {
			continue
		}
		_, err := t.tx.ExecContext(t.ctx, `UPDATE tournament_finishes SET place = $3, shared = $4 WHERE tournament_id = $1 AND player_id = $2`,
			t.id, f.PlayerID, f.Place, f.Shared)
		if err != nil {
			return fmt.Errorf("renumber finish %s/%s: %w", t.id, f.PlayerID, err)
		}
	}
	return nil
}

// DeleteFinish takes back a player's place: a busted player who re-entered
// (G-23) is in the field again and is placed when this entry goes out.
func (t *Tx) DeleteFinish(player string) error {
	_, err := t.tx.ExecContext(t.ctx, `DELETE FROM tournament_finishes WHERE tournament_id = $1 AND player_id = $2`, t.id, player)
	if err != nil {
		return fmt.Errorf("delete finish %s/%s: %w", t.id, player, err)
	}
	return nil
}

// Penalties returns a player's penalty history in order.
func (t *Tx) Penalties(player string) ([]standings.Penalty, error) {
	rows, err := t.tx.QueryContext(t.ctx, `SELECT type, reason, issued_by, hand, rounds, hands_to_miss, override, issued_at_ms
		FROM tournament_penalties WHERE tournament_id = $1 AND player_id = $2 ORDER BY seq`, t.id, player)
	if err != nil {
		return nil, fmt.Errorf("penalties of %s/%s: %w", t.id, player, err)
	}
	defer rows.Close()
	var out []standings.Penalty
	for rows.Next() {
		var p standings.Penalty
		var typ int
		var issued int64
		if err := rows.Scan(&typ, &p.Reason, &p.IssuedBy, &p.Hand, &p.Rounds, &p.HandsToMiss, &p.Override, &issued); err != nil {
			return nil, fmt.Errorf("penalties of %s/%s: %w", t.id, player, err)
		}
		p.Type, p.Issued = standings.PenaltyType(typ), time.UnixMilli(issued).UTC()
		out = append(out, p)
	}
	return out, rows.Err()
}

// AddPenalty appends a penalty to a player's history.
func (t *Tx) AddPenalty(player string, p standings.Penalty) error {
	_, err := t.tx.ExecContext(t.ctx, `INSERT INTO tournament_penalties (tournament_id, player_id, seq, type, reason, issued_by,
		hand, rounds, hands_to_miss, override, issued_at_ms)
		VALUES ($1, $2, (SELECT COALESCE(MAX(seq), 0) + 1 FROM tournament_penalties WHERE tournament_id = $1 AND player_id = $2),
			$3, $4, $5, $6, $7, $8, $9, $10)`,
		t.id, player, int(p.Type), p.Reason, p.IssuedBy, p.Hand, p.Rounds, p.HandsToMiss, p.Override, p.Issued.UnixMilli())
	if err != nil {
		return fmt.Errorf("penalty for %s/%s: %w", t.id, player, err)
	}
	return nil
}

// Payments returns a tournament's saga steps of the given kinds, oldest
// first.
func (s *Store) Payments(ctx context.Context, id string, kinds ...int) ([]PaymentRecord, error) {
	rows, err := s.db.SQL().QueryContext(ctx, `SELECT `+paymentColumns+` FROM tournament_payments WHERE tournament_id = $1
		ORDER BY created_at_ms, idempotency_key`, id)
	if err != nil {
		return nil, fmt.Errorf("payments of %s: %w", id, err)
	}
	defer rows.Close()
	var out []PaymentRecord
	for rows.Next() {
		p, err := scanPayment(rows)
		if err != nil {
			return nil, fmt.Errorf("payments of %s: %w", id, err)
		}
		for _, k := range kinds {
			if int(p.Kind) == k {
				out = append(out, p)
				break
			}
		}
	}
	return out, rows.Err()
}

// Results returns the places given so far.
func (s *Store) Results(ctx context.Context, id string) ([]standings.Finish, error) {
	return sqlstore.Read(ctx, s.db, func(tx *sqlstore.Tx) ([]standings.Finish, error) {
		if _, err := load(ctx, tx, id); err != nil {
			return nil, err
		}
		return finishes(ctx, tx, id)
	})
}

// PendingPayments returns every tournament's saga steps still waiting for
// the wallet, oldest first; a rebuy comes before the add-on recorded with
// it.
func (s *Store) PendingPayments(ctx context.Context) ([]PaymentRecord, error) {
	rows, err := s.db.SQL().QueryContext(ctx, `SELECT `+paymentColumns+` FROM tournament_payments WHERE state = $1
		ORDER BY created_at_ms, kind, idempotency_key`, int(PaymentPending))
	if err != nil {
		return nil, fmt.Errorf("pending payments: %w", err)
	}
	defer rows.Close()
	var out []PaymentRecord
	for rows.Next() {
		p, err := scanPayment(rows)
		if err != nil {
			return nil, fmt.Errorf("pending payments: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// AuditRecord is one management action (TR-03).
type AuditRecord struct {
	Seq       int
	Actor     string
	Action    string
	Detail    json.RawMessage
	CreatedAt time.Time
}

// AddAudit appends a management action to the event's audit log.
func (t *Tx) AddAudit(actor, action string, detail any, now time.Time) error {
	raw, err := json.Marshal(detail)
	if err != nil {
		return fmt.Errorf("audit %s: %w", action, err)
	}
	_, err = t.tx.ExecContext(t.ctx, `INSERT INTO tournament_audit (tournament_id, seq, actor, action, detail, created_at_ms)
		VALUES ($1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM tournament_audit WHERE tournament_id = $1), $2, $3, $4, $5)`,
		t.id, actor, action, string(raw), now.UnixMilli())
	if err != nil {
		return fmt.Errorf("audit %s of %s: %w", action, t.id, err)
	}
	return nil
}

// Audit returns the event's audit log in order.
func (s *Store) Audit(ctx context.Context, id string) ([]AuditRecord, error) {
	return s.AuditOf(ctx, id, "")
}

// AuditOf returns the event's audit records of one action in order (all
// of them when action is "").
func (s *Store) AuditOf(ctx context.Context, id, action string) ([]AuditRecord, error) {
	return auditOf(ctx, s.db.SQL(), id, action)
}

// AuditOf returns the event's audit records of one action in order, as
// the transaction sees them: a step that must happen once checks for its
// own record in the transaction that would write it.
func (t *Tx) AuditOf(action string) ([]AuditRecord, error) {
	return auditOf(t.ctx, t.tx, t.id, action)
}

// querier is what reads rows: the database, or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func auditOf(ctx context.Context, q querier, id, action string) ([]AuditRecord, error) {
	rows, err := q.QueryContext(ctx, `SELECT seq, actor, action, detail, created_at_ms FROM tournament_audit
		WHERE tournament_id = $1 AND ($2 = '' OR action = $2) ORDER BY seq`, id, action)
	if err != nil {
		return nil, fmt.Errorf("audit of %s: %w", id, err)
	}
	defer rows.Close()
	var out []AuditRecord
	for rows.Next() {
		var a AuditRecord
		var detail string
		var created int64
		if err := rows.Scan(&a.Seq, &a.Actor, &a.Action, &detail, &created); err != nil {
			return nil, fmt.Errorf("audit of %s: %w", id, err)
		}
		a.Detail, a.CreatedAt = json.RawMessage(detail), time.UnixMilli(created).UTC()
		out = append(out, a)
	}
	return out, rows.Err()
}
