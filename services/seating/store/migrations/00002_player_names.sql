-- +goose Up
-- The names players go by on the board: other players see these (or the
-- player's initials), never the account id. Set from the display name the
-- player's token carries when they use seating.
CREATE TABLE player_names (
    player_id     TEXT PRIMARY KEY,
    display_name  TEXT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);

-- +goose Down
DROP TABLE player_names;
