package bank

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/cardroom/cardroom/platform/telemetry"
	"github.com/cardroom/cardroom/services/wallet/ledger"
	"github.com/cardroom/cardroom/services/wallet/store"
)

var meter = telemetry.NewMeter("github.com/cardroom/cardroom/services/wallet/bank")

var (
	buyIns = meter.Amounts("cardroom.wallet.buy_ins", "{minor_unit}",
		"Buy-ins committed to a table (count and sum, in the currency's minor units), by currency.")
	cashOuts = meter.Amounts("cardroom.wallet.cash_outs", "{minor_unit}",
		"Stacks cashed out from a table to the player's account (count and sum, in minor units), by currency.")
	holdsSettled = meter.Counter("cardroom.wallet.holds", "{hold}",
		"Buy-in holds settled, by how (committed, released, expired: the table never confirmed the seat in time).")
)

// countSettled records, once tx commits, a hold settled and, for a
// commit, the buy-in.
func countSettled(ctx context.Context, tx *store.Tx, h store.Hold, to store.HoldState) {
	tx.AfterCommit(func() {
		holdsSettled.Add(ctx, 1, metric.WithAttributes(attribute.String("cardroom.hold.state", string(to))))
		if to == store.Committed {
			buyIns.Record(ctx, h.Amount, metric.WithAttributes(currency(h.Currency)))
		}
	})
}

// countCashOut records, once tx commits, a stack cashed out.
func countCashOut(ctx context.Context, tx *store.Tx, cur ledger.Currency, stack int64) {
	tx.AfterCommit(func() { cashOuts.Record(ctx, stack, metric.WithAttributes(currency(cur))) })
}

func currency(c ledger.Currency) attribute.KeyValue {
	return attribute.String("cardroom.currency", string(c))
}

// countBuyIn records, once tx commits, a buy-in bought in one step.
func countBuyIn(ctx context.Context, tx *store.Tx, cur ledger.Currency, amount int64) {
	tx.AfterCommit(func() { buyIns.Record(ctx, amount, metric.WithAttributes(currency(cur))) })
}
