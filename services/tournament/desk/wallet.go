package desk

import (
	"context"
	"errors"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/tournament/entry"
)

// Wallet moves an event's money, one saga step per payment, idempotent by
// the payment's key. An error wrapping *PaymentRefused is the wallet's
// refusal: nothing moved. Any other is no answer: the step may yet go
// through, and the same key repeats it.
type Wallet interface {
	// Pay moves the money of one step.
	Pay(ctx context.Context, p entry.Payment) (Paid, error)
}

// Paid is the wallet's answer to a step that moved the money.
type Paid struct {
	TransferID string
	// Total is what a refund paid back.
	Total int64
}

// PaymentRefused is the wallet's refusal of a step.
type PaymentRefused struct{ Err error }

func (r *PaymentRefused) Error() string { return r.Err.Error() }

func (r *PaymentRefused) Unwrap() error { return r.Err }

// noMoney keeps the books without money (tests): every step is paid.
type noMoney struct{}

func (noMoney) Pay(context.Context, entry.Payment) (Paid, error) { return Paid{}, nil }

// ErrPaymentPending tells the caller that the wallet did not answer; the
// step is recorded and the same call finishes it.
var ErrPaymentPending = fault.New(fault.Unavailable, "PAYMENT_PENDING", "the wallet did not answer; repeat the request to finish the payment")

// outcome is the wallet's answer to one step.
type outcome struct {
	done       bool // the money moved
	refused    bool // the wallet refused for good; nothing moved
	transferID string
	total      int64 // refunds
	err        error
}

// failure is the refusal recorded with the step, "" for none.
func (o outcome) failure() string {
	if o.err == nil {
		return ""
	}
	return o.err.Error()
}

// pay asks the wallet for one saga step.
func (d *Desk) pay(ctx context.Context, p entry.Payment) outcome {
	paid, err := d.wallet.Pay(ctx, p)
	var refused *PaymentRefused
	switch {
	case err == nil:
		return outcome{done: true, transferID: paid.TransferID, total: paid.Total}
	case errors.As(err, &refused):
		return outcome{refused: true, err: err}
	}
	return outcome{err: ErrPaymentPending.Wrap(err).With("idempotency_key", p.Key)}
}
