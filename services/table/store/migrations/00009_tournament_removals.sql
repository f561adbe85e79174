-- +goose Up
-- tournament_removals are the entrants a tournament table took off, with
-- the chips they left with (out of play, TR-34; none for a busted player),
-- written in the fenced transaction of the removal. A repeat of the
-- removal's control is answered from it: the tournament counts those
-- chips as removed from play, and a repeat that said none would leave
-- them counted in play for ever. A player removed again from the table
-- (re-entered, G-23) replaces the row.
CREATE TABLE tournament_removals (
    table_id      TEXT NOT NULL,
    player_id     TEXT NOT NULL,
    reason        INTEGER NOT NULL,
    chips         BIGINT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    PRIMARY KEY (table_id, player_id)
);

-- +goose Down
DROP TABLE tournament_removals;
