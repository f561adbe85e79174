-- +goose Up
-- Players out of chips held at their table while they may still rebuy
-- (TR-13, TR-16), with the rebuys they had when they went out, as JSON
-- {"<player>": rebuys}: a rebuy paid since then is on its way to the
-- table, so the window closing does not knock the player out.
ALTER TABLE tournaments ADD COLUMN held_busts TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE tournaments DROP COLUMN held_busts;
