-- +goose Up
-- A sit-down asks whether the player's cash-out from another table is
-- still being paid (G-21 with CS-09/CS-10: the seat there is already
-- free, but the wallet has not yet recorded the stack left with), so the
-- pending moves are looked up by player.
CREATE INDEX money_moves_player_pending ON money_moves (player_id) WHERE NOT done;

-- +goose Down
DROP INDEX money_moves_player_pending;
