package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/standings"
)

// Finishes returns the places given so far, in the order given.
func (t *Tx) Finishes() ([]standings.Finish, error) { return finishes(t.ctx, t.tx, t.id) }

func finishes(ctx context.Context, tx *sqlstore.Tx, id string) ([]standings.Finish, error) {
	return sqlstore.Collect(ctx, tx, "finishes of "+id, `SELECT player_id, place, shared, removed FROM tournament_finishes
		WHERE tournament_id = $1 ORDER BY seq`, []any{id}, func(r sqlstore.Scanner) (f standings.Finish, err error) {
		err = r.Scan(&f.PlayerID, &f.Place, &f.Shared, &f.Removed)
		return f, err
	})
}

// FinishOf returns the player's place, ok false when they have none.
func (t *Tx) FinishOf(player string) (f standings.Finish, ok bool, err error) {
	err = t.tx.QueryRowContext(t.ctx, `SELECT player_id, place, shared, removed FROM tournament_finishes
		WHERE tournament_id = $1 AND player_id = $2`, t.id, player).Scan(&f.PlayerID, &f.Place, &f.Shared, &f.Removed)
	if ok, err := sqlstore.Found(err, "finish of %s in %s", player, t.id); !ok {
		return standings.Finish{}, false, err
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
	_, err := sqlstore.Exec(t.ctx, t.tx, `DELETE FROM tournament_finishes WHERE tournament_id = $1 AND player_id = $2`, []any{t.id, player},
		"delete finish %s/%s", t.id, player)
	return err
}

// Penalties returns a player's penalty history in order.
func (t *Tx) Penalties(player string) ([]standings.Penalty, error) {
	return sqlstore.Collect(t.ctx, t.tx, "penalties of "+t.id+"/"+player, `SELECT type, reason, issued_by, hand, rounds, hands_to_miss,
		override, issued_at_ms FROM tournament_penalties WHERE tournament_id = $1 AND player_id = $2 ORDER BY seq`,
		[]any{t.id, player}, func(r sqlstore.Scanner) (standings.Penalty, error) {
			var p standings.Penalty
			var typ int
			var issued int64
			err := r.Scan(&typ, &p.Reason, &p.IssuedBy, &p.Hand, &p.Rounds, &p.HandsToMiss, &p.Override, &issued)
			p.Type, p.Issued = standings.PenaltyType(typ), time.UnixMilli(issued).UTC()
			return p, err
		})
}

// AddPenalty appends a penalty to a player's history.
func (t *Tx) AddPenalty(player string, p standings.Penalty) error {
	_, err := sqlstore.Exec(t.ctx, t.tx, `INSERT INTO tournament_penalties (tournament_id, player_id, seq, type, reason, issued_by,
		hand, rounds, hands_to_miss, override, issued_at_ms)
		VALUES ($1, $2, (SELECT COALESCE(MAX(seq), 0) + 1 FROM tournament_penalties WHERE tournament_id = $1 AND player_id = $2),
			$3, $4, $5, $6, $7, $8, $9, $10)`,
		[]any{t.id, player, int(p.Type), p.Reason, p.IssuedBy, p.Hand, p.Rounds, p.HandsToMiss, p.Override, p.Issued.UnixMilli()},
		"penalty for %s/%s", t.id, player)
	return err
}

// Payments returns a tournament's saga steps of the given kinds, oldest
// first.
func (s *Store) Payments(ctx context.Context, id string, kinds ...int) ([]PaymentRecord, error) {
	out, err := sqlstore.Collect(ctx, s.db.SQL(), "payments of "+id, `SELECT `+paymentColumns+` FROM tournament_payments
		WHERE tournament_id = $1 ORDER BY created_at_ms, idempotency_key`, []any{id}, scanPayment)
	return slices.DeleteFunc(out, func(p PaymentRecord) bool { return !slices.Contains(kinds, int(p.Kind)) }), err
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
	return sqlstore.Collect(ctx, s.db.SQL(), "pending payments", `SELECT `+paymentColumns+` FROM tournament_payments WHERE state = $1
		ORDER BY created_at_ms, kind, idempotency_key`, []any{int(PaymentPending)}, scanPayment)
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
	_, err = sqlstore.Exec(t.ctx, t.tx, `INSERT INTO tournament_audit (tournament_id, seq, actor, action, detail, created_at_ms)
		VALUES ($1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM tournament_audit WHERE tournament_id = $1), $2, $3, $4, $5)`,
		[]any{t.id, actor, action, string(raw), now.UnixMilli()}, "audit %s of %s", action, t.id)
	return err
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

func auditOf(ctx context.Context, q sqlstore.Querier, id, action string) ([]AuditRecord, error) {
	return sqlstore.Collect(ctx, q, "audit of "+id, `SELECT seq, actor, action, detail, created_at_ms FROM tournament_audit
		WHERE tournament_id = $1 AND ($2 = '' OR action = $2) ORDER BY seq`, []any{id, action}, func(r sqlstore.Scanner) (AuditRecord, error) {
		var a AuditRecord
		var detail string
		var created int64
		err := r.Scan(&a.Seq, &a.Actor, &a.Action, &detail, &created)
		a.Detail, a.CreatedAt = json.RawMessage(detail), time.UnixMilli(created).UTC()
		return a, err
	})
}
