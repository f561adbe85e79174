-- +goose Up
-- At most one pending buy-in hold per player and table (HOLD_PENDING): the
-- bank checks first, for a refusal that names the pending hold; this index
-- is what makes the check hold across processes, because a concurrent
-- second hold fails on it at insert. A hold past its expiry is still
-- 'held' until it is released (by the sweeper, or by the player's next
-- HoldBuyIn, which releases it in its own transaction first), so it never
-- blocks for longer than that.
--
-- Deploying onto a database where a player already has two holds held at
-- one table (possible before this migration) fails here; let them expire
-- and be released by the running wallet's sweeper (HOLD_TTL), then migrate.
CREATE UNIQUE INDEX holds_one_pending ON holds (player, table_id) WHERE state = 'held';

-- Idempotency keys older than the retention window are pruned in batches,
-- oldest first.
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- +goose Down
DROP INDEX idempotency_keys_created;
DROP INDEX holds_one_pending;
