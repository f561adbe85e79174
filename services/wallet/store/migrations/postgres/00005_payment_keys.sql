-- +goose Up
-- payment_keys keeps for good the idempotency key of every payment to or
-- from an event's prize pool (entries, rebuys, add-ons, prizes and
-- bounties, vouchers, refunds, pool settlements), with the request's hash
-- and the answer, written in the transaction that posts the payment.
-- Idempotency keys are pruned after the retention window (7 days by
-- default); the tournament service names its payments by event, player,
-- kind and number and may retry one later than that, which then ran again
-- as a new request and paid a second time. The primary key refuses a
-- second payment under the key, and the bank answers the retry with the
-- original answer. One row per payment: a few per entrant.
CREATE TABLE payment_keys (
	key TEXT PRIMARY KEY,
	operation TEXT NOT NULL,
	request_hash TEXT NOT NULL,
	response BYTEA NOT NULL,
	created_at BIGINT NOT NULL
);

-- The event payments whose idempotency keys are not pruned yet are kept
-- as well.
INSERT INTO payment_keys (key, operation, request_hash, response, created_at)
SELECT key, operation, request_hash, response, created_at FROM idempotency_keys
WHERE operation IN ('Enter', 'Rebuy', 'AddOn', 'PayPrize', 'IssueVoucher', 'Refund', 'RefundEntry', 'SettlePrizePool')
	AND response IS NOT NULL;

-- +goose Down
DROP TABLE payment_keys;
