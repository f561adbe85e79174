-- +goose Up
-- The floor's clock control (levels.Clock.Shift and Changes): how far the
-- clock was moved on (negative: back), and how many times, for the
-- revision of the schedule the tables get.
ALTER TABLE tournaments ADD COLUMN clock_shift_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE tournaments ADD COLUMN clock_changes BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE tournaments DROP COLUMN clock_changes;
ALTER TABLE tournaments DROP COLUMN clock_shift_ms;
