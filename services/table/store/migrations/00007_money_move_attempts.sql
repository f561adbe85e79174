-- +goose Up
-- sitting_id is the wallet sitting a top-up adds to or a cash-out ends
-- (the hold of the buy-in that seated the player), so a retried cash-out
-- can only ever end the sitting it was made for.
ALTER TABLE money_moves ADD COLUMN sitting_id TEXT NOT NULL DEFAULT '';
-- attempts counts the wallet calls that failed for a step still pending,
-- with the last failure and when it came: a cash-out retried past a limit
-- is stuck, and is logged, counted and listed for the cage.
ALTER TABLE money_moves ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE money_moves ADD COLUMN last_error TEXT NOT NULL DEFAULT '';
ALTER TABLE money_moves ADD COLUMN last_attempt_ms BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE money_moves DROP COLUMN last_attempt_ms;
ALTER TABLE money_moves DROP COLUMN last_error;
ALTER TABLE money_moves DROP COLUMN attempts;
ALTER TABLE money_moves DROP COLUMN sitting_id;
