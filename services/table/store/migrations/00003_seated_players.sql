-- +goose Up
-- seated_players is who holds a seat at an open cash table (G-21: "a
-- player may not hold seats in two games"). The table runner writes a
-- table's rows in the same fenced transaction as the seat change they
-- mirror, so the primary key on player_id lets the database, not one
-- process's memory, refuse a second seat: two sit-downs of one player at
-- tables run by different replicas cannot both commit. Tournament tables
-- write no rows; a player leaving at the end of the hand, or seated at a
-- closing table, has no row (they are on their way out).
CREATE TABLE seated_players (
    player_id TEXT PRIMARY KEY,
    table_id  TEXT NOT NULL,
    seat      INTEGER NOT NULL
);
CREATE INDEX seated_players_table ON seated_players (table_id);

-- +goose Down
DROP TABLE seated_players;
