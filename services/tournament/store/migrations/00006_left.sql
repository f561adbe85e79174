-- +goose Up
-- A player who left keeps their stack in play (TR-35).
ALTER TABLE tournament_entries ADD COLUMN left_play BOOLEAN NOT NULL DEFAULT FALSE;

-- +goose Down
ALTER TABLE tournament_entries DROP COLUMN left_play;
