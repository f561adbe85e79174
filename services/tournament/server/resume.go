package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cardroom/cardroom/services/tournament/entry"
)

// ResumePayments finishes every saga step the wallet has not answered:
// entries, rebuys, add-ons, prizes, vouchers and refunds, each under its
// own idempotency key, so a step that did reach the wallet is not paid
// twice. Run it at startup and now and then (Run does both); steps the
// wallet still does not answer stay pending. The error joins the
// failures; it does not stop the other steps.
func (s *Server) ResumePayments(ctx context.Context) error {
	pending, err := s.store.PendingPayments(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, p := range pending {
		switch p.Kind {
		case entry.PayEntry, entry.PayRebuy, entry.PayAddOn, entry.RefundEntry, entry.SettlePool:
			_, _, err = s.settle(ctx, p.EventID, []entry.Payment{p.Payment})
		case entry.PayPrize, entry.PayVoucher, entry.PayBounty:
			s.payAll(ctx, p.EventID, []entry.Payment{p.Payment})
			err = nil
		case entry.RefundEvent:
			_, err = s.refund(ctx, p.EventID, p.Payment)
		default:
			err = fmt.Errorf("unknown payment kind %s", p.Kind)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("resume %s: %w", p.Key, err))
		}
	}
	return errors.Join(errs...)
}

// ResumeInterval is how often Run retries unanswered payments.
const ResumeInterval = time.Minute

// Run resumes unanswered payments at once and then every ResumeInterval
// until ctx ends. Failures are retried on the next round; Run returns nil
// when ctx ends.
func (s *Server) Run(ctx context.Context) error {
	for {
		_ = s.ResumePayments(ctx) // what fails stays pending for the next round
		select {
		case <-ctx.Done():
			return nil
		case <-s.clock.After(ResumeInterval):
		}
	}
}
