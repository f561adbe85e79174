-- +goose Up
-- Hands started at each table since the rebuy period ran out (TR-16), as
-- JSON {"<table>": hands}.
ALTER TABLE tournaments ADD COLUMN rebuy_hands TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE tournaments DROP COLUMN rebuy_hands;
