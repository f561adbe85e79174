package store

import (
	"context"
	"fmt"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/wallet/ledger"
)

// VoucherState is whether a voucher can still be used.
type VoucherState string

// Voucher states.
const (
	VoucherIssued VoucherState = "issued"
	VoucherUsed   VoucherState = "used"
)

// Voucher is a personal, non-transferable entry to one target event, won
// in a satellite (TR-19). Its value sits in the target event's voucher
// account until it is used for the entry.
type Voucher struct {
	ID            string
	Player        string
	Event         string
	Currency      ledger.Currency
	Amount        int64
	State         VoucherState
	IssueTransfer string
	UseTransfer   string
	CreatedAt     time.Time
}

// InsertVoucher records an issued voucher.
func (t *Tx) InsertVoucher(ctx context.Context, v Voucher) error {
	_, err := sqlstore.Exec(ctx, t.tx, `INSERT INTO vouchers (id, player, event_id, currency, amount, state, issue_transfer, created_at)
		VALUES ($1, $2, $3, $4, $5, 'issued', $6, $7)`,
		[]any{v.ID, v.Player, v.Event, string(v.Currency), v.Amount, v.IssueTransfer, v.CreatedAt.UnixMilli()}, "insert voucher %s", v.ID)
	return err
}

// Voucher reads a voucher.
func (t *Tx) Voucher(ctx context.Context, id string) (Voucher, error) {
	var v Voucher
	var cur, state string
	var created int64
	err := t.tx.QueryRowContext(ctx, `SELECT id, player, event_id, currency, amount, state, issue_transfer, COALESCE(use_transfer, ''), created_at FROM vouchers WHERE id = $1`, id).
		Scan(&v.ID, &v.Player, &v.Event, &cur, &v.Amount, &state, &v.IssueTransfer, &v.UseTransfer, &created)
	if noRows(err) {
		return Voucher{}, fault.NotFoundf("voucher", "voucher %s not found", id).With("voucher_id", id)
	}
	if err != nil {
		return Voucher{}, fmt.Errorf("read voucher %s: %w", id, err)
	}
	v.Currency, v.State, v.CreatedAt = ledger.Currency(cur), VoucherState(state), time.UnixMilli(created).UTC()
	return v, nil
}

// SetVoucherState moves a voucher from one state to another, recording the
// transfer that used it (empty to clear it); it reports false when the
// voucher was not in state from.
func (t *Tx) SetVoucherState(ctx context.Context, id string, from, to VoucherState, useTransfer string) (bool, error) {
	var use any
	if useTransfer != "" {
		use = useTransfer
	}
	n, err := sqlstore.Exec(ctx, t.tx, `UPDATE vouchers SET state = $1, use_transfer = $2 WHERE id = $3 AND state = $4`,
		[]any{string(to), use, id, string(from)}, "update voucher %s", id)
	return n == 1, err
}

// VoucherUsedBy returns the voucher a transfer used, if any.
func (t *Tx) VoucherUsedBy(ctx context.Context, transferID string) (string, bool, error) {
	var id string
	err := t.tx.QueryRowContext(ctx, `SELECT id FROM vouchers WHERE use_transfer = $1`, transferID).Scan(&id)
	if ok, err := sqlstore.Found(err, "find voucher of %s", transferID); !ok {
		return "", false, err
	}
	return id, true, nil
}

// UnreversedTransfers lists the transfers of the given kinds for a subject
// (event or table) that have not been reversed, oldest first.
func (t *Tx) UnreversedTransfers(ctx context.Context, subject string, kinds ...ledger.TransferKind) ([]string, error) {
	var out []string
	for _, k := range kinds {
		ids, err := sqlstore.Collect(ctx, t.tx, fmt.Sprintf("list %s transfers of %s", k, subject), `SELECT id FROM transfers tr
			WHERE subject = $1 AND kind = $2 AND NOT EXISTS (SELECT 1 FROM transfers r WHERE r.reverses = tr.id) ORDER BY created_at, id`,
			[]any{subject, string(k)}, sqlstore.ScanString)
		if err != nil {
			return nil, err
		}
		out = append(out, ids...)
	}
	return out, nil
}
