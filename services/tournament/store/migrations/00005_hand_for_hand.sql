-- +goose Up
-- Hand-for-hand state (G-26) as JSON; empty while off.
ALTER TABLE tournaments ADD COLUMN hand_for_hand TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE tournaments DROP COLUMN hand_for_hand;
